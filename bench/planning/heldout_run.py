"""Run the held-out suite (``heldout.py``) on a model, one row per technique, for real.

Each goal: a fresh temp workspace with the tool set's files, an empty plan memory (``memory=None``:
no remembered plans and no starter plans), ``make_plan`` with the row's ``PlannerOptions`` (timed),
then the plan runs through the real ``Agent``/``Executor`` path (``Agent.run(plan,
approve="all")``, nothing recorded) with the workspace as the current directory, and the goal's
file check reads the result. **Valid** = the planner's plan passes validation; **achieved** = the
file check passes after the run.

    PYTHONPATH=src .venv/bin/python bench/planning/heldout_run.py --rows baseline,decompose,typed,sample \\
        --out bench/planning/heldout_results.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from heldout import HELD_OUT, ToolSet
from rows import LABELS, ROWS
from suites import every_suite

from forethought import Agent
from forethought.models.base import Model
from forethought.models.local import LocalModel
from forethought.models.resolve import resolve_model
from forethought.planning.capability import missing_capabilities
from forethought.planning.planner import make_plan


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


async def run_goal(
    model: Model, toolset: ToolSet, goal: Any, row: str, root: Path, plan_limit_s: float | None = None
) -> dict[str, Any]:
    ws = Path(tempfile.mkdtemp(dir=root))
    for name, content in toolset.files.items():
        (ws / name).write_text(content, encoding="utf-8")
    specs = {t.spec.name: t.spec for t in toolset.tools}
    start = time.perf_counter()
    # The user's path (``Agent.run(goal)``, ``forethought run``/``plan``) asks the capability
    # check first and plans nothing for a goal it calls impossible: so does this run.
    missing = missing_capabilities(goal.text, specs)
    if missing:
        return unplanned(toolset, goal, start, f"called impossible: {missing[0]}")
    try:
        async with asyncio.timeout(plan_limit_s):
            result = await make_plan(goal.text, specs, model, options=ROWS[row])
    except TimeoutError:  # counted as neither valid nor achieved; tokens of the cut call unknown
        return unplanned(toolset, goal, start, f"planning took longer than {plan_limit_s:.0f} s")
    elapsed = time.perf_counter() - start
    status, error = None, None
    if result.ok and result.plan is not None:
        agent = Agent(toolset.tools, model=model, record=False, memory=None)
        cwd = Path.cwd()
        os.chdir(ws)  # the executor gives Python tools no workspace: they resolve from the cwd
        try:
            run = await agent.run(result.plan, approve="all")
            status = run.status
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
        finally:
            os.chdir(cwd)
    achieved = bool(result.ok) and goal.check(ws)
    plan = result.plan
    return {
        "toolset": toolset.name,
        "goal": goal.text,
        "valid": result.ok,
        "achieved": achieved,
        "status": status,
        "seconds": round(elapsed, 2),
        "calls": len(result.calls),
        "tokens": result.usage.total_tokens,
        "model_filled": None if plan is None else plan.metadata.get("model_filled"),
        "error": error,
        "plan": [f"{s.tool}({json.dumps(s.args)})" for s in plan.steps] if plan else None,
        "problems": [str(p) for p in result.problems][:3],
    }


async def run_limited(
    model: Model,
    toolset: ToolSet,
    goal: Any,
    row: str,
    root: Path,
    plan_limit_s: float | None,
    goal_limit_s: float | None,
) -> dict[str, Any]:
    """``run_goal`` bounded as a whole (planning and the run, replans included)."""
    start = time.perf_counter()
    try:
        async with asyncio.timeout(goal_limit_s):
            return await run_goal(model, toolset, goal, row, root, plan_limit_s)
    except TimeoutError:  # the plan limit did not fire: the time went to the run (or a replan)
        return unplanned(toolset, goal, start, f"planning and running took longer than {goal_limit_s:.0f} s")


def unplanned(toolset: ToolSet, goal: Any, start: float, error: str) -> dict[str, Any]:
    """The row of a goal with no plan run: a time limit cut it off or the capability check called
    it impossible. Neither valid nor achieved, nothing measured."""
    return {
        "toolset": toolset.name,
        "goal": goal.text,
        "valid": False,
        "achieved": False,
        "status": None,
        "seconds": round(time.perf_counter() - start, 2),
        "calls": None,
        "tokens": None,
        "model_filled": None,
        "error": error,
        "plan": None,
        "problems": [],
    }


async def run_row(
    model: Model,
    row: str,
    suites: list[ToolSet],
    plan_limit_s: float | None = None,
    goal_limit_s: float | None = None,
    skip: int = 0,
) -> dict[str, Any]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        goals = [(toolset, goal) for toolset in suites for goal in toolset.goals][skip:]
        for toolset, goal in goals:
            r = await run_limited(model, toolset, goal, row, Path(tmp), plan_limit_s, goal_limit_s)
            rows.append(r)
            print(
                f"[{row}] {'V' if r['valid'] else '-'}{'A' if r['achieved'] else '-'} "
                f"{r['seconds']:5.1f}s {goal.text!r}: {r['plan']}",
                flush=True,
            )
    secs = [r["seconds"] for r in rows]
    return {
        "row": row,
        "label": LABELS[row],
        "model": model.name,
        "goals": len(rows),
        "valid": sum(r["valid"] for r in rows),
        "achieved": sum(r["achieved"] for r in rows),
        "by_toolset": {s.name: sum(r["achieved"] for r in rows if r["toolset"] == s.name) for s in suites},
        "median_s": round(statistics.median(secs), 2),
        "p90_s": round(_p90(secs), 2),
        "max_s": max(secs),
        "tokens_median": statistics.median(r["tokens"] for r in rows if r["tokens"] is not None),
        "tokens_total": sum(r["tokens"] for r in rows if r["tokens"] is not None),
        "model_calls": sum(r["calls"] for r in rows if r["calls"] is not None),
        "timed_out": sum(1 for r in rows if r["tokens"] is None),
        "rows": rows,
    }


def table(results: list[dict[str, Any]]) -> str:
    lines = [
        "| technique (cumulative) | achieved | valid | plan time median | p90 "
        "| tokens (median / total) | model calls |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        n = r["goals"]
        lines.append(
            f"| {r['label']} | **{r['achieved']}/{n} ({100 * r['achieved'] / n:.0f} %)** "
            f"| {r['valid']}/{n} ({100 * r['valid'] / n:.0f} %) | {r['median_s']:.2f} s | {r['p90_s']:.2f} s "
            f"| {r['tokens_median']:.0f} / {r['tokens_total']} | {r['model_calls']} |"
        )
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="local")
    parser.add_argument("--rows", default=",".join(ROWS))
    parser.add_argument(
        "--suites",
        default=",".join(s.name for s in HELD_OUT),
        help="tool sets: documents,ledger (heldout.py); textkit,contacts (heldout2.py); "
        "agenda,numbers (heldout3.py); shop,lexicon (heldout4.py); pantry,sensors (heldout5.py); "
        "catalogue,timesheet (heldout6.py); workshop,racing (heldout7.py); gradebook,triplog (heldout8.py); "
        "helpdesk,statement (heldout9.py); loans,garden (heldout10.py); samples,trains (heldout11.py); "
        "gym,parcels (heldout12.py); hotel,fuel (heldout13.py); playlist,builds (heldout14.py); "
        "cinema,weather (heldout15.py); weblog,birdcount (heldout16.py); tides,apiary (heldout17.py); "
        "dental,bakery (heldout18.py)",
    )
    parser.add_argument(
        "--plan-limit",
        type=float,
        default=None,
        help="seconds one goal's planning may take; past it the goal counts as not planned",
    )
    parser.add_argument(
        "--goal-limit",
        type=float,
        default=None,
        help="seconds one goal's planning and run together may take (a run's replans are not "
        "bounded by --plan-limit); past it the goal counts as not planned",
    )
    parser.add_argument(
        "--skip",
        type=int,
        default=0,
        help="leave out the first N goals of the selected suites (to finish a run that was stopped)",
    )
    parser.add_argument("--out", default=None)
    parser.add_argument(
        "--threads", type=int, default=None, help="llama.cpp threads for local (default: all cores)"
    )
    parser.add_argument(
        "--merge", default=None, help="print the table of saved results (comma-separated json files)"
    )
    args = parser.parse_args()
    if args.merge:
        saved = [r for f in args.merge.split(",") for r in json.loads(Path(f).read_text())]  # noqa: ASYNC240
        saved.sort(key=lambda r: list(ROWS).index(r["row"]))
        print(table(saved))
        return
    model = LocalModel(threads=args.threads) if args.model == "local" else resolve_model(args.model)
    if hasattr(model, "server"):
        await model.server()  # load the weights outside the timed region
    suites = [s for s in every_suite() if s.name in args.suites.split(",")]
    results = [
        await run_row(model, row, suites, args.plan_limit, args.goal_limit, args.skip)
        for row in args.rows.split(",")
    ]
    print(table(results))
    print("load average:", Path("/proc/loadavg").read_text().strip())  # noqa: ASYNC240
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2))  # noqa: ASYNC240


if __name__ == "__main__":
    asyncio.run(main())
