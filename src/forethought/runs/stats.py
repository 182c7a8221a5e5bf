"""Metrics across recorded runs (``forethought stats``), computed from the event log alone.

Every figure is derived from the runs' events as the store returns them (``Store.list_runs`` to
select runs, ``Store.events`` to read them), so it means the same on SQLite and PostgreSQL and
agrees with what ``show`` and ``replay`` see. The definitions, which the CLI help and
docs/architecture.md repeat:

- ``success_rate``: succeeded runs / finished runs (succeeded, failed or cancelled); runs still
  running, paused or awaiting approval are counted in ``runs`` but not here.
- ``steps_per_run``: mean number of steps in each run's final plan.
- ``tool_success``: per tool, over *tool attempts*: each ended attempt of a tool step
  (``step_succeeded``, or ``step_failed`` with attempt ≥ 1 and a failure class other than
  ``cancelled``) plus each ``tool_called`` inside an agent step. Success is ``step_succeeded`` /
  a ``tool_called`` without error. A step attempt whose tool returned but whose check rejected
  the result counts as a failure of that tool attempt.
- ``evaluator_disagreement_rate``: of the step attempts whose tool returned without error (a
  ``step_succeeded``, or a ``check_failed`` for that step and attempt), the share the evaluator
  rejected (had a ``check_failed``). It measures how often the check overrules the tool's own
  success.
- ``escalation_rate``: share of runs that were ever awaiting approval or paused (an
  ``approval_requested`` or ``run_paused`` event, or a final status of either).
- ``replan_rate``: share of runs with at least one ``replan_requested``; ``replans`` is their count.
- tokens and cost: sums over ``model_called`` events (cost as recorded; an unknown price was
  recorded as 0, so the cost is a lower bound when ``unpriced_model_calls`` > 0 — model calls with
  tokens but cost 0).
- makespan: per run, from the first ``step_started`` to the last step end (``step_succeeded``,
  ``step_failed``, ``step_skipped``, ``step_cancelled``); runs with no started step have none.
  p50/p95 are nearest-rank percentiles: the value at rank ⌈p/100·n⌉ of the sorted makespans.
- ``critical_path_share``: mean over runs with a makespan > 0 of (critical path / makespan), the
  critical path being the longest dependency chain of the final plan weighted by each step's
  measured duration (first start to end). 1.0 means the run was as fast as its dependencies allow.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from forethought.events.kinds import Event
from forethought.events.state import FINISHED_RUN_STATUSES, fold
from forethought.plan.graph import critical_path
from forethought.plan.model import Plan
from forethought.runs.store.base import RunRow, Store

_STEP_END_KINDS = frozenset({"step_succeeded", "step_failed", "step_skipped", "step_cancelled"})


@dataclass(frozen=True, slots=True)
class ToolStats:
    attempts: int
    succeeded: int

    @property
    def success_rate(self) -> float | None:
        return self.succeeded / self.attempts if self.attempts else None


@dataclass(frozen=True, slots=True)
class RunFigures:
    """What one run contributes; ``stats`` sums these."""

    run_id: str
    status: str
    steps: int
    tool_attempts: dict[str, tuple[int, int]]  # tool → (attempts, succeeded)
    evaluated: int
    rejected: int
    escalated: bool
    replans: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    unpriced_model_calls: int
    makespan_s: float | None
    critical_path_s: float | None


@dataclass(frozen=True, slots=True)
class Stats:
    runs: int
    finished_runs: int
    succeeded_runs: int
    success_rate: float | None
    steps_per_run: float | None
    tool_success: dict[str, ToolStats]
    evaluated_attempts: int
    rejected_attempts: int
    evaluator_disagreement_rate: float | None
    escalated_runs: int
    escalation_rate: float | None
    replanned_runs: int
    replans: int
    replan_rate: float | None
    input_tokens: int
    output_tokens: int
    cost_usd: float
    unpriced_model_calls: int
    makespan_p50_s: float | None
    makespan_p95_s: float | None
    critical_path_share: float | None
    per_run: list[RunFigures] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("per_run")
        data["tool_success"] = {
            tool: {"attempts": t.attempts, "succeeded": t.succeeded, "success_rate": t.success_rate}
            for tool, t in sorted(self.tool_success.items())
        }
        return data


def select_runs(store: Store, *, since: float | None = None, goal_like: str | None = None) -> list[RunRow]:
    """Runs created at or after ``since`` (epoch seconds) whose goal contains ``goal_like``
    (case-insensitive), newest first."""
    needle = goal_like.casefold() if goal_like else None
    return [
        r
        for r in store.list_runs()
        if (since is None or r.created_at >= since) and (needle is None or needle in r.goal.casefold())
    ]


def stats(store: Store, *, since: float | None = None, goal_like: str | None = None) -> Stats:
    return summarize(
        [run_figures(store.events(r.run_id)) for r in select_runs(store, since=since, goal_like=goal_like)]
    )


def _step_tools(plan: dict[str, Any] | None) -> dict[str, str | None]:
    if not plan:
        return {}
    return {
        str(s["id"]): (str(s["tool"]) if s.get("tool") else None)
        for s in plan.get("steps", ())
        if isinstance(s, dict) and "id" in s
    }


def _dependencies(plan: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    try:
        return Plan.model_validate(plan).dependency_map()
    except ValueError:  # a plan that no longer validates (older schema): explicit edges only
        return {
            str(s["id"]): tuple(str(d) for d in s.get("depends_on", ()))
            for s in plan.get("steps", ())
            if isinstance(s, dict) and "id" in s
        }


def run_figures(events: Sequence[Event]) -> RunFigures:
    """One run's contribution, from its events in order."""
    state = fold(events)
    tools: dict[str, str | None] = {}  # step id → tool (None: agent step), as of the current plan
    attempts: dict[str, list[int]] = {}  # tool → [attempts, succeeded]
    rejected: set[tuple[str, int]] = set()
    evaluated: set[tuple[str, int]] = set()
    escalated = state.status in ("awaiting_approval", "paused")
    replans = unpriced = 0
    first_start: float | None = None
    last_end: float | None = None

    def count(tool: str, ok: bool) -> None:
        slot = attempts.setdefault(tool, [0, 0])
        slot[0] += 1
        slot[1] += int(ok)

    for event in events:
        e: Any = event  # fields by kind, checked by the event models
        kind = e.kind
        if kind in ("plan_proposed", "plan_revised"):
            tools = _step_tools(e.plan)
        elif kind == "steps_added":
            tools.update(_step_tools({"steps": e.steps}))
        elif kind in ("approval_requested", "run_paused"):
            escalated = True
        elif kind == "replan_requested":
            replans += 1
        elif kind == "model_called":
            if e.cost_usd == 0 and (e.input_tokens or e.output_tokens):
                unpriced += 1
        elif kind == "tool_called":
            count(e.tool, e.error is None)
        elif kind == "check_failed":
            key = (e.step_id, e.attempt)
            rejected.add(key)
            evaluated.add(key)
        if kind == "step_started":
            first_start = e.ts if first_start is None else min(first_start, e.ts)
        if kind in _STEP_END_KINDS:
            last_end = e.ts if last_end is None else max(last_end, e.ts)
        if kind == "step_succeeded":
            evaluated.add((e.step_id, e.attempt))
        if kind in ("step_succeeded", "step_failed"):
            tool = tools.get(e.step_id)
            ended = kind == "step_succeeded" or (e.attempt >= 1 and e.failure_class != "cancelled")
            if tool is not None and ended:
                count(tool, kind == "step_succeeded")

    makespan = None if first_start is None or last_end is None else max(0.0, last_end - first_start)
    cp: float | None = None
    if state.plan is not None and makespan is not None:
        durations = {sid: st.duration_s or 0.0 for sid, st in state.steps.items()}
        cp = critical_path(_dependencies(state.plan), durations).length_s
    return RunFigures(
        run_id=state.run_id,
        status=state.status,
        steps=len(_step_tools(state.plan)),
        tool_attempts={t: (a, s) for t, (a, s) in attempts.items()},
        evaluated=len(evaluated),
        rejected=len(rejected),
        escalated=escalated,
        replans=replans,
        input_tokens=state.input_tokens,
        output_tokens=state.output_tokens,
        cost_usd=state.cost_usd,
        unpriced_model_calls=unpriced,
        makespan_s=makespan,
        critical_path_s=cp,
    )


def nearest_rank(values: Iterable[float], p: float) -> float | None:
    """The p-th percentile by nearest rank: the value at rank ⌈p/100·n⌉ (1-based) when sorted."""
    ordered = sorted(values)
    if not ordered:
        return None
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def summarize(figures: Sequence[RunFigures]) -> Stats:
    n = len(figures)
    finished = [f for f in figures if f.status in FINISHED_RUN_STATUSES]
    succeeded = sum(f.status == "succeeded" for f in finished)
    tools: dict[str, list[int]] = {}
    for f in figures:
        for tool, (a, s) in f.tool_attempts.items():
            slot = tools.setdefault(tool, [0, 0])
            slot[0] += a
            slot[1] += s
    evaluated = sum(f.evaluated for f in figures)
    rejected = sum(f.rejected for f in figures)
    escalated = sum(f.escalated for f in figures)
    replanned = sum(f.replans > 0 for f in figures)
    makespans = [f.makespan_s for f in figures if f.makespan_s is not None]
    shares = [
        f.critical_path_s / f.makespan_s for f in figures if f.makespan_s and f.critical_path_s is not None
    ]
    return Stats(
        runs=n,
        finished_runs=len(finished),
        succeeded_runs=succeeded,
        success_rate=_ratio(succeeded, len(finished)),
        steps_per_run=_ratio(sum(f.steps for f in figures), n),
        tool_success={t: ToolStats(a, s) for t, (a, s) in tools.items()},
        evaluated_attempts=evaluated,
        rejected_attempts=rejected,
        evaluator_disagreement_rate=_ratio(rejected, evaluated),
        escalated_runs=escalated,
        escalation_rate=_ratio(escalated, n),
        replanned_runs=replanned,
        replans=sum(f.replans for f in figures),
        replan_rate=_ratio(replanned, n),
        input_tokens=sum(f.input_tokens for f in figures),
        output_tokens=sum(f.output_tokens for f in figures),
        cost_usd=sum(f.cost_usd for f in figures),
        unpriced_model_calls=sum(f.unpriced_model_calls for f in figures),
        makespan_p50_s=nearest_rank(makespans, 50),
        makespan_p95_s=nearest_rank(makespans, 95),
        critical_path_share=_ratio(sum(shares), len(shares)),
        per_run=list(figures),
    )
