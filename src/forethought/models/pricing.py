"""Cost of a model call, from the maintained ``genai-prices`` data (not a hand-written table).

Prices change monthly; a table in our code would be wrong within weeks. ``genai-prices`` ships a
snapshot and is updated upstream. Local models (the embedded one, Ollama, any self-hosted
OpenAI-compatible server) cost 0. An unknown model is priced at 0 and flagged ``known=False`` so
budgets can warn instead of silently pretending the call was free.
"""

from __future__ import annotations

from dataclasses import dataclass

from forethought.models.base import Usage

# Providers whose calls run on the user's own hardware.
FREE_PROVIDERS = frozenset({"local", "ollama", "scripted", "openai-compat"})


@dataclass(frozen=True)
class Price:
    usd: float
    known: bool


def _calc(provider: str, model: str, usage: Usage) -> float | None:
    try:
        from genai_prices import Usage as GUsage
        from genai_prices import calc_price
    except ImportError:  # pragma: no cover - genai-prices is a dependency
        return None
    try:
        # Priced on the real counts (not a per-token rate) so tiered prices come out right.
        calc = calc_price(
            GUsage(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens),
            model,
            provider_id=provider,
        )
    except (LookupError, ValueError):
        return None
    return float(calc.total_price)


def price_call(provider: str, model: str, usage: Usage) -> Price:
    """USD cost of one call. Free for local providers; 0 and ``known=False`` if not in the data."""
    if provider in FREE_PROVIDERS:
        return Price(0.0, True)
    usd = _calc(provider, model, usage)
    if usd is None:
        return Price(0.0, False)
    return Price(usd, True)


# ------------------------------------------------------------------ estimates before a run

# What one agent step is assumed to use: a few model turns (the review screen says so). Measured
# figures replace this in the run summary.
AGENT_STEP_INPUT_TOKENS = 1200
AGENT_STEP_OUTPUT_TOKENS = 300


@dataclass(frozen=True)
class CostEstimate:
    """A cost estimate shown before approval. ``None`` money means the price is unknown."""

    model: str  # the executor model agent steps would use ("" when the plan has none)
    agent_steps: int
    per_agent_step_usd: float | None
    planning_usd: float  # recorded so far (the planner's calls), not estimated
    planning_unpriced_calls: int

    @property
    def total_usd(self) -> float | None:
        if self.agent_steps and self.per_agent_step_usd is None:
            return None
        return self.planning_usd + self.agent_steps * (self.per_agent_step_usd or 0.0)

    def text(self) -> str:
        planning = f"${self.planning_usd:.4f} planning so far" + (
            f" (plus {self.planning_unpriced_calls} calls of unknown price)"
            if self.planning_unpriced_calls
            else ""
        )
        if not self.agent_steps:
            return f"cost estimate: {planning}; the plan's tool steps call no model"
        per = "unknown" if self.per_agent_step_usd is None else f"${self.per_agent_step_usd:.4f}"
        total = "unknown" if self.total_usd is None else f"${self.total_usd:.4f}"
        return (
            f"cost estimate (an estimate, not a quote): {total} = {planning} + {self.agent_steps} agent "
            f"step(s) × {per} (assumed ~{AGENT_STEP_INPUT_TOKENS} input + {AGENT_STEP_OUTPUT_TOKENS} "
            f"output tokens each at {self.model or 'an unknown model'}'s genai-prices price)"
        )


def estimate_cost(
    model: str, agent_steps: int, planning: list[tuple[int, int, float]] | None = None
) -> CostEstimate:
    """``model``: ``provider:name`` of the executor model; ``planning``: the recorded planner calls
    as (input tokens, output tokens, cost)."""
    per: float | None = None
    if agent_steps:
        provider, _, name = model.partition(":")
        if name:
            price = price_call(
                provider,
                name,
                Usage(input_tokens=AGENT_STEP_INPUT_TOKENS, output_tokens=AGENT_STEP_OUTPUT_TOKENS),
            )
            per = price.usd if price.known else None
    calls = planning or []
    return CostEstimate(
        model=model,
        agent_steps=agent_steps,
        per_agent_step_usd=per,
        planning_usd=sum(c for _, _, c in calls),
        planning_unpriced_calls=sum(1 for i, o, c in calls if c == 0 and (i or o)),
    )
