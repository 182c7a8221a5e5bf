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
