"""The supervisor: budgets per run and per step, checked after every event and by a wall clock.

A breach stops the run — paused for a human or aborted, per policy — with the budget, the limit
and the amount used stated in the run record. There is never a silent infinite loop: a planner
that always asks to replan hits ``max_replans``, a tool that burns tokens hits ``max_tokens`` or
``max_step_tokens``, and a step that never ends hits its timeout or the run's ``max_wall_s``
(enforced by a timer, because a hung step emits no events).
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from forethought.events.kinds import Event, ModelCalled, StepReady, StepStarted, StepSucceeded
from forethought.events.state import RunState

BreachAction = Literal["pause", "abort"]


class Budgets(BaseModel):
    """Limits for one run; ``None`` means unlimited (``max_replans`` has a finite default)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_steps: int | None = Field(default=None, ge=1, description="Step attempts started.")
    max_replans: int = Field(default=3, ge=0)
    max_tokens: int | None = Field(default=None, ge=1)
    max_cost_usd: float | None = Field(default=None, ge=0)
    max_wall_s: float | None = Field(default=None, gt=0)
    max_step_tokens: int | None = Field(default=None, ge=1)
    on_breach: BreachAction = "pause"


@dataclass(frozen=True)
class Breach:
    budget: str
    limit: float
    used: float
    action: BreachAction

    @property
    def reason(self) -> str:
        verb = "paused" if self.action == "pause" else "aborted"
        return f"budget {self.budget} exceeded: used {self.used:g} of {self.limit:g}; run {verb}" + (
            "; raise the limit and `forethought resume` it" if self.action == "pause" else ""
        )


# Events that change nothing a budget counts — attempts are counted at ``step_started``, tokens
# and cost at ``model_called``, replans at ``plan_revised`` — so ``observe`` needs not see them:
# a breach they would reveal is revealed by the counted event that made it, and the wall clock
# has a timer of its own. Two of a step's three events: the executor queues them for nobody
# (``Wiring``: the supervisor hook ignores them).
UNCOUNTED: frozenset[type[Event]] = frozenset((StepReady, StepSucceeded))


class Supervisor:
    """Stateless over the run state except for per-step token tallies (which the fold lacks)."""

    def __init__(self, budgets: Budgets) -> None:
        self.budgets = budgets
        self._step_tokens: dict[str, int] = defaultdict(int)
        self._attempts = 0
        self.breach: Breach | None = None

    def observe(self, event: Event, state: RunState) -> Breach | None:
        """Account for ``event`` and return the first breach (then keep returning it)."""
        if self.breach is not None:
            return self.breach
        b = self.budgets
        match event:
            case StepStarted():
                self._attempts += 1
                if b.max_steps is not None and self._attempts > b.max_steps:
                    return self._breach("max_steps", b.max_steps, self._attempts)
            case ModelCalled(step_id=str() as sid):
                self._step_tokens[sid] += event.input_tokens + event.output_tokens
                used = self._step_tokens[sid]
                if b.max_step_tokens is not None and used > b.max_step_tokens:
                    return self._breach(f"max_step_tokens (step {sid})", b.max_step_tokens, used)
        if state.replans > b.max_replans:
            return self._breach("max_replans", b.max_replans, state.replans)
        tokens = state.input_tokens + state.output_tokens
        if b.max_tokens is not None and tokens > b.max_tokens:
            return self._breach("max_tokens", b.max_tokens, tokens)
        if b.max_cost_usd is not None and state.cost_usd > b.max_cost_usd:
            return self._breach("max_cost_usd", b.max_cost_usd, state.cost_usd)
        return self.check_clock(state)

    def check_clock(self, state: RunState, now: float | None = None) -> Breach | None:
        if self.breach is not None:
            return self.breach
        limit = self.budgets.max_wall_s
        if limit is None:
            return None
        used = wall_time_used(state, now)
        if used > limit:
            return self._breach("max_wall_s", limit, round(used, 3))
        return None

    def seconds_left(self, state: RunState, now: float | None = None) -> float | None:
        limit = self.budgets.max_wall_s
        if limit is None:
            return None
        return max(0.0, limit - wall_time_used(state, now))

    def _breach(self, budget: str, limit: float, used: float) -> Breach:
        self.breach = Breach(budget, float(limit), float(used), self.budgets.on_breach)
        return self.breach


def wall_time_used(state: RunState, now: float | None = None) -> float:
    """Active seconds of the run so far, not counting time it spent stopped between resumes."""
    now = time.time() if now is None else now
    running = now - state.segment_started_at if state.segment_started_at is not None else 0.0
    return state.active_s + max(0.0, running)
