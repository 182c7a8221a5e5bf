"""What the pages show, read from the run store and folded as ``forethought show`` folds it.

Everything taken from the record passes through the redactor here (goal, arguments, outputs,
errors, reasons, event details), so no template can show a secret by forgetting to.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from forethought.events import kinds as E
from forethought.events.kinds import Event, event_to_dict
from forethought.events.state import RunState, fold
from forethought.interfaces.web.graph_svg import render_svg
from forethought.oversight.policy import needs_approval
from forethought.oversight.redaction import default_redactor
from forethought.plan.coverage import check_coverage
from forethought.plan.diff import diff_plans
from forethought.plan.graph import CriticalPath, critical_path, estimate_durations
from forethought.plan.model import Plan
from forethought.plan.tool_spec import ToolSpec
from forethought.runs.store.base import RunRow, Store

OUTPUT_CHARS = 2000
TIMELINE_EVENTS = 300


def clean(value: Any) -> Any:
    return default_redactor().redact(value)


def clean_text(text: str | None) -> str:
    return default_redactor().redact_text(text or "")


def when(ts: float | None) -> str:
    if ts is None:
        return ""
    return dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M:%S")


def shown(value: Any) -> str:
    """A step output or argument as text, redacted and clipped."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(clean(value), ensure_ascii=False, indent=1)
    text = clean_text(text)
    return text if len(text) <= OUTPUT_CHARS else text[:OUTPUT_CHARS] + f"… ({len(text)} characters)"


# ------------------------------------------------------------------------------ runs list


@dataclass(frozen=True)
class RunFilter:
    status: str = ""
    goal: str = ""
    since: str = ""  # YYYY-MM-DD
    until: str = ""

    def keeps(self, row: RunRow) -> bool:
        if self.status and row.status != self.status:
            return False
        if self.goal and self.goal.lower() not in row.goal.lower():
            return False
        day = dt.date.fromtimestamp(row.created_at).isoformat()
        return not ((self.since and day < self.since) or (self.until and day > self.until))


def runs_rows(store: Store, flt: RunFilter, limit: int = 200) -> list[dict[str, Any]]:
    rows = [r for r in store.list_runs(limit=2000) if flt.keeps(r)][:limit]
    return [
        {
            "run_id": r.run_id,
            "status": r.status,
            "goal": clean_text(r.goal),
            "created_at": when(r.created_at),
            "updated_at": when(r.updated_at),
            "plan_version": r.plan_version,
            "tokens": r.input_tokens + r.output_tokens,
            "cost_usd": r.cost_usd,
        }
        for r in rows
    ]


def runs_signature(store: Store) -> str:
    """Changes whenever a run is added or changes status (what the list's live updates watch)."""
    return "|".join(f"{r.run_id}:{r.status}:{r.last_seq}" for r in store.list_runs(limit=200))


# ------------------------------------------------------------------------------ one run


@dataclass
class RunView:
    run_id: str
    state: RunState
    events: list[Event]
    plan: Plan | None
    steps: list[dict[str, Any]] = field(default_factory=list)
    rollback: list[dict[str, Any]] = field(default_factory=list)
    svg: str = ""
    critical: CriticalPath = field(default_factory=lambda: CriticalPath(0.0, ()))

    @property
    def summary(self) -> dict[str, Any]:
        st = self.state
        return {
            "run_id": self.run_id,
            "goal": clean_text(st.goal),
            "status": st.status,
            "reason": clean_text(st.reason),
            "plan_version": st.plan_version,
            "plan_hash": st.plan_hash,
            "tokens": st.tokens,
            "cost_usd": st.cost_usd,
            "created_at": when(st.created_at),
            "last_seq": st.last_seq,
            "critical_path": list(self.critical.steps),
            "critical_path_s": self.critical.length_s,
        }


def _step_tokens(events: Sequence[Event]) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in events:
        if isinstance(e, E.ModelCalled) and e.step_id:
            out[e.step_id] = out.get(e.step_id, 0) + e.input_tokens + e.output_tokens
    return out


def _step_cost(events: Sequence[Event]) -> dict[str, float]:
    out: dict[str, float] = {}
    for e in events:
        if isinstance(e, E.ModelCalled) and e.step_id:
            out[e.step_id] = out.get(e.step_id, 0.0) + e.cost_usd
    return out


def run_view(store: Store, run_id: str) -> RunView:
    events = store.events(run_id)
    state = fold(events)
    plan = Plan.model_validate(state.plan) if state.plan else None
    view = RunView(run_id, state, events, plan)
    if plan is None:
        return view
    # Measured where a step has run, the estimate (as `forethought graph` uses) where not yet.
    measured = {sid: st.duration_s for sid, st in state.steps.items() if st.duration_s is not None}
    durations = {**estimate_durations(plan), **measured}
    deps = plan.dependency_map()
    view.critical = critical_path(deps, durations)
    tokens, cost = _step_tokens(events), _step_cost(events)

    def row(step: Any) -> dict[str, Any]:
        st = state.steps.get(step.id)
        return {
            "id": step.id,
            "action": step.tool if step.tool is not None else "agent",
            "depends_on": list(deps.get(step.id, ())),
            "status": st.status if st else "pending",
            "attempts": st.attempts if st else 0,
            "started_at": when(st.started_at if st else None),
            "duration_s": st.duration_s if st else None,
            "tokens": tokens.get(step.id, 0),
            "cost_usd": cost.get(step.id, 0.0),
            "output": shown(st.output) if st else "",
            "error": clean_text(st.error) if st and st.error else "",
            "skip_reason": clean_text(st.skip_reason) if st and st.skip_reason else "",
            "critical": step.id in view.critical.steps,
        }

    view.steps = [row(s) for s in plan.steps]
    view.rollback = [row(s) for s in plan.rollback]
    statuses = {s["id"]: s["status"] for s in view.steps}
    view.svg = render_svg(plan, statuses, view.critical)
    return view


def versions(store: Store, run_id: str) -> list[dict[str, Any]]:
    """Each plan version with its hash and its diff from the version before (``plan.diff``)."""
    out: list[dict[str, Any]] = []
    previous: Plan | None = None
    for row in store.plan_versions(run_id):
        plan = Plan.model_validate(json.loads(row.plan_json))
        diff = diff_plans(previous, plan).render() if previous is not None else ""
        out.append(
            {
                "version": row.version,
                "hash": row.hash,
                "created_at": when(row.created_at),
                "steps": len(plan.steps),
                "diff": clean_text(diff),
            }
        )
        previous = plan
    return out


_DETAIL_FIELDS = ("step_id", "decision", "approver", "status", "reason", "error", "source", "role", "model")


def timeline(events: Sequence[Event], limit: int = TIMELINE_EVENTS) -> list[dict[str, Any]]:
    out = []
    for e in events[-limit:]:
        data = event_to_dict(e)
        parts = [f"{k}={data[k]}" for k in _DETAIL_FIELDS if data.get(k) not in (None, "", [], {})]
        if isinstance(e, E.ModelCalled):
            parts.append(f"tokens={e.input_tokens + e.output_tokens}")
        if isinstance(e, (E.PlanApproved, E.PlanProposed, E.ApprovalRequested)):
            parts.append(f"hash={e.plan_hash[:12]}")
        out.append(
            {
                "seq": e.seq,
                "time": when(e.ts),
                "kind": e.kind,
                "version": e.plan_version,
                "detail": clean_text("  ".join(str(p) for p in parts))[:400],
            }
        )
    return out


# ------------------------------------------------------------------------------ review


def review_rows(
    plan: Plan, specs: Mapping[str, ToolSpec], pending: Sequence[str], state: RunState
) -> list[dict[str, Any]]:
    """Each step as a reviewer needs it: the call (redacted), its effect, whether the approvals on
    record cover it, its estimate and timeout."""
    from forethought.interfaces.cli._display import call_text

    estimates = estimate_durations(plan, {n: s.est_latency_s for n, s in specs.items() if s.est_latency_s})
    out = []
    for step in plan.iter_all_steps():
        spec = specs.get(step.tool or "")
        st = state.steps.get(step.id)
        out.append(
            {
                "id": step.id,
                "call": call_text(step.tool, step.args, step.agent),
                "effect": "agent" if step.tool is None else spec.effect if spec else "unknown tool",
                "gated": needs_approval(step, spec),
                "uncovered": step.id in pending,
                "estimate_s": estimates.get(step.id),
                "timeout_s": step.timeout_s,
                "depends_on": list(step.all_dependencies()),
                "on_failure": step.on_failure,
                "status": st.status if st else "pending",
            }
        )
    return out


def coverage_findings(plan: Plan, goal: str, specs: Mapping[str, ToolSpec]) -> list[str]:
    """What of the goal this version of the plan misses (``plan.coverage``), checked now: an
    edited version has no recorded check."""
    return [clean_text(str(f)) for f in check_coverage(plan, goal, specs).missing]
