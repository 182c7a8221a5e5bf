"""Property tests over random DAGs: ordering, exactly-one terminal state, skip sets, rollback order."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _executor_helpers import FnTool, registry
from forethought.execution.executor import ApproveAll, Executor
from forethought.execution.options import ExecutorOptions
from forethought.plan.model import Plan
from forethought.tools.base import ToolContext

TERMINAL = {"step_succeeded", "step_skipped", "step_cancelled", "step_needs_review"}


@st.composite
def dags(draw: st.DrawFn, max_nodes: int = 18) -> tuple[list[list[int]], list[bool], list[int]]:
    n = draw(st.integers(1, max_nodes))
    deps = [sorted(draw(st.sets(st.integers(0, i - 1), max_size=min(i, 3)))) if i else [] for i in range(n)]
    fails = [draw(st.booleans()) and draw(st.booleans()) for _ in range(n)]
    delays = [draw(st.integers(0, 3)) for _ in range(n)]
    return deps, fails, delays


async def _work(args: dict[str, Any], ctx: ToolContext) -> Any:
    await asyncio.sleep(args["ms"] / 1000)
    if args["fail"]:
        raise RuntimeError("scripted failure")
    return ctx.step_id


def _plan(deps: list[list[int]], fails: list[bool], delays: list[int], policy: str, **extra: Any) -> Plan:
    steps = [
        {
            "id": f"s{i}",
            "tool": "work",
            "depends_on": [f"s{d}" for d in ds],
            "args": {"ms": delays[i], "fail": fails[i]},
            "on_failure": policy,
            "retry": {"attempts": 1},
            **extra,
        }
        for i, ds in enumerate(deps)
    ]
    return Plan.model_validate({"goal": "prop", "steps": steps})


def _execute(plan: Plan, **kw: Any) -> Executor:
    ex = Executor(
        plan, registry(FnTool("work", _work), FnTool("undo", effect="mutating")), ExecutorOptions(**kw)
    )
    asyncio.run(asyncio.wait_for(ex.run(), 30))
    return ex


def _terminal_counts(ex: Executor) -> dict[str, int]:
    counts: dict[str, int] = {}
    for e in ex.log:
        sid = getattr(e, "step_id", None)
        final_failure = e.kind == "step_failed" and e.final  # type: ignore[union-attr]
        if sid is not None and (e.kind in TERMINAL or final_failure):
            counts[sid] = counts.get(sid, 0) + 1
    return counts


def _descendants(deps: list[list[int]], roots: set[int]) -> set[int]:
    out: set[int] = set()
    changed = True
    while changed:
        changed = False
        for i, ds in enumerate(deps):
            if i not in out and any(d in roots or d in out for d in ds):
                out.add(i)
                changed = True
    return out


FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(dags())
def test_continue_policy_properties(dag: tuple[list[list[int]], list[bool], list[int]]) -> None:
    deps, fails, delays = dag
    ex = _execute(_plan(deps, fails, delays, "continue"))
    succeeded_at: dict[str, int] = {}
    for e in ex.log:
        if e.kind == "step_succeeded":
            succeeded_at[e.step_id] = e.seq  # type: ignore[union-attr]
        if e.kind == "step_started":
            i = int(e.step_id[1:])  # type: ignore[union-attr]
            for d in deps[i]:  # no step starts before all its dependencies succeeded
                assert f"s{d}" in succeeded_at and succeeded_at[f"s{d}"] < e.seq
    counts = _terminal_counts(ex)
    assert counts == {f"s{i}": 1 for i in range(len(deps))}  # exactly one terminal state
    failed = {i for i, f in enumerate(fails) if f and ex.state.steps[f"s{i}"].status == "failed"}
    skipped = {int(s[1:]) for s, v in ex.state.steps.items() if v.status == "skipped"}
    assert skipped == _descendants(deps, failed)
    # failed steps are exactly the scripted failures that were reached
    assert all(fails[i] for i in failed)
    assert {i for i in range(len(deps)) if fails[i] and i not in skipped} == failed


@FAST
@given(dags())
def test_abort_policy_every_step_ends_once(dag: tuple[list[list[int]], list[bool], list[int]]) -> None:
    deps, fails, delays = dag
    ex = _execute(_plan(deps, fails, delays, "abort"))
    assert _terminal_counts(ex) == {f"s{i}": 1 for i in range(len(deps))}
    statuses = {v.status for v in ex.state.steps.values()}
    assert statuses <= {"succeeded", "failed", "skipped", "cancelled"}
    assert (ex.state.status == "failed") == ("failed" in statuses)
    assert [e.seq for e in ex.log] == list(range(len(ex.log)))


@FAST
@given(dags(max_nodes=12))
def test_rollback_compensates_in_reverse_completion_order(
    dag: tuple[list[list[int]], list[bool], list[int]],
) -> None:
    deps, _, delays = dag
    n = len(deps)
    # every step succeeds except a final step depending on all of them, which rolls back
    plan_steps = _plan(deps, [False] * n, delays, "continue", compensate={"tool": "undo", "args": {}}).steps
    data = [s.model_dump(mode="json", by_alias=True) for s in plan_steps]
    data.append(
        {
            "id": "last",
            "tool": "work",
            "args": {"ms": 0, "fail": True},
            "depends_on": [f"s{i}" for i in range(n)],
            "on_failure": "rollback",
            "retry": {"attempts": 1},
        }
    )
    ex = _execute(Plan.model_validate({"goal": "rb", "steps": data}), gate=ApproveAll())
    completed = [e.step_id for e in ex.log if e.kind == "step_succeeded"]  # type: ignore[union-attr]
    compensated = [
        e.step_id
        for e in ex.log  # type: ignore[union-attr]
        if e.kind == "compensation_started"
    ]
    assert compensated == list(reversed(completed))
    assert ex.state.status == "failed"
