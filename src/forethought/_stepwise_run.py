"""How the agent starts and resumes a step-wise run (``--planning stepwise|auto``).

Kept out of ``agent.py``: the agent only dispatches here. A step-wise run is an execution with
an open plan (like a streamed one) whose feed is the step-wise driver (``execution.stepwise``);
everything else — recording, sinks, budgets, the approval gate, resume leases — is the agent's
one run path (``Agent._execute``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from forethought._execution_wiring import Wiring
from forethought.errors import UserError
from forethought.events import kinds as E
from forethought.events.kinds import Event
from forethought.execution.stepwise import StepwiseSettings, drive_stepwise
from forethought.models.base import Model
from forethought.oversight.approvals import ApproveMode
from forethought.planning.stepwise import (
    DEFAULT_MAX_STEPS,
    PLANNING_MODES,
    PlanningChoice,
    choose_planning,
)

if TYPE_CHECKING:
    from forethought.agent import Agent, _Execution

Feed = Callable[[Wiring], Awaitable[None]]


def stepwise_execution(
    agent: Agent,
    goal: str,
    approve: ApproveMode,
    planning: str,
    max_steps: int | None,
    run_config: Mapping[str, Any] | None,
    force: bool,
    queue: bool = False,
) -> tuple[_Execution | None, dict[str, Any]]:
    """The start of a step-wise run of ``goal``, or None when ``auto`` picks DAG planning;
    with the run config that records which mode ran and why."""
    from forethought.agent import _Execution

    if planning not in PLANNING_MODES:
        raise UserError(f"planning: {planning!r} is not one of {', '.join(PLANNING_MODES)}")
    choice = choose_planning(goal) if planning == "auto" else PlanningChoice("stepwise", "asked for")
    config: dict[str, Any] = {**(run_config or {})}
    if planning == "auto":
        config["planning_rule"] = choice.reason
    if choice.mode == "dag":
        return None, {**config, "planning": "dag"}
    if queue:
        raise UserError(
            "step-wise planning runs its planner while the run goes on, so it cannot be queued "
            "for workers; run it here, or use --planning dag with --queue"
        )
    if approve == "none":
        raise UserError(
            "step-wise planning decides each step while the run goes on, so it needs a standing "
            "approval policy: pass approve='read_only' (--yes: side effects stop for approval) "
            "or approve='all' (--yes-all)"
        )
    if max_steps is not None and max_steps < 1:
        raise UserError(f"max_steps: {max_steps} is not a step cap; give 1 or more")
    cap = max_steps or agent.budgets.max_steps or DEFAULT_MAX_STEPS
    model = agent.model("planner")  # resolved before the run starts: a bad name is a clear error
    config = {
        "approve": approve,
        "budgets": agent.budgets.model_dump(),
        **config,
        "planning": "stepwise",
        "max_steps": cap,
    }
    feed = _feed(agent, model, goal, cap, force)
    # Not remembered as a plan example: its arguments were read off this run's results.
    start = _Execution([], [], approve, goal=goal, plan_open=True, config=config, feed=feed, remember=False)
    return start, config


def if_stepwise(agent: Agent, start: _Execution) -> _Execution:
    """``start`` (the resumption of a stored run) continuing its step-wise driver after the
    last recorded decision, if the run is step-wise; else ``start`` unchanged.

    A run whose planner already said stop (its finished plan was checked) is not asked again:
    it was stopped for a person, who approved it as it is.
    """
    events = start.prior
    created = events[0] if events else None
    if not isinstance(created, E.RunCreated) or created.config.get("planning") != "stepwise":
        return start
    recorded_cap = created.config.get("max_steps")
    cap = agent.budgets.max_steps or (recorded_cap if isinstance(recorded_cap, int) else DEFAULT_MAX_STEPS)
    stopped = planner_said_stop(events)
    force = bool(created.config.get("force")) or stopped
    feed = _feed(agent, agent.model("planner"), created.goal, cap, force, stopped=stopped)
    return dataclasses.replace(start, plan_open=True, feed=feed)


def planner_said_stop(events: Sequence[Event]) -> bool:
    """The last decision of a recorded step-wise run was ``stop`` (its plan's coverage was
    checked after its last step-wise revision)."""
    for e in reversed(events):
        if isinstance(e, E.PlanValidated) and e.coverage is not None:
            return True
        if isinstance(e, E.PlanRevised) and e.reason.startswith(E.STEPWISE_REVISION):
            return False
    return False


def _feed(agent: Agent, model: Model, goal: str, cap: int, force: bool, *, stopped: bool = False) -> Feed:
    async def feed(wiring: Wiring) -> None:
        executor = wiring.executor
        assert executor is not None
        settings = StepwiseSettings(
            goal=goal,
            specs=agent.specs,
            model=model,
            max_steps=cap,
            confidence_threshold=agent.confidence_threshold,
            approver=agent.approver,
            force=force,
            on_cap="failed" if agent.budgets.on_breach == "abort" else "paused",
            stopped=stopped,
        )
        await drive_stepwise(executor, wiring, settings)

    return feed
