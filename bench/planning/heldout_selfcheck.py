"""Self-check of a held-out suite: every goal's reference plan is valid, runs, and passes the check.

No model: each hand-written plan (``heldoutN_reference.py``) becomes a ``forethought`` plan
(``plan_from_data``), is validated against the tool set's specs, then runs through the real
``Agent`` (``approve="all"``, nothing recorded, no memory) in a fresh temp workspace holding the
set's files, with the workspace as the current directory, exactly as ``heldout_run.py`` runs a
planned plan; then the goal's file check reads the result. One line per goal; exit status 1 if
any goal has no reference plan, a plan is invalid, a run does not succeed, a check fails, or a
check already passes on the seed files alone (it would prove nothing).

    PYTHONPATH=src .venv/bin/python bench/planning/heldout6_selfcheck.py   # or heldout7_selfcheck.py

Each suite's script names its tool sets and reference plans and calls ``main`` here (or ``cli``,
which adds ``--broken``: wrong plans in place of some reference plans, to show the checks reject
wrong answers).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from heldout import Call, Goal, ToolSet

from forethought import Agent
from forethought.plan.model import plan_from_data
from forethought.plan.validation import validate_plan


def plan_data(goal: str, calls: list[Call]) -> dict[str, Any]:
    steps = [{"id": f"s{i}", "tool": tool, "args": args} for i, (tool, args) in enumerate(calls, start=1)]
    return {"goal": goal, "steps": steps}


async def check_goal(toolset: ToolSet, goal: Goal, calls: list[Call], root: Path) -> str | None:
    """None when the reference plan achieves the goal, else what went wrong."""
    plan = plan_from_data(plan_data(goal.text, calls))
    problems = validate_plan(plan, {t.spec.name: t.spec for t in toolset.tools})
    if problems:
        return "invalid: " + "; ".join(str(p) for p in problems[:3])
    ws = Path(tempfile.mkdtemp(dir=root))
    for name, content in toolset.files.items():
        (ws / name).write_text(content, encoding="utf-8")
    if goal.check(ws):  # a check that the seed files already satisfy proves nothing
        return "check passes before the plan ran"
    agent = Agent(toolset.tools, record=False, memory=None)
    cwd = Path.cwd()
    os.chdir(ws)  # the executor gives Python tools no workspace: they resolve from the cwd
    try:
        run = await agent.run(plan, approve="all")
    finally:
        os.chdir(cwd)
    if run.status != "succeeded":
        return f"run {run.status}: {[str(p) for p in run.problems][:3]}"
    if not goal.check(ws):
        return "check failed"
    return None


async def main(suite: Sequence[ToolSet], reference_plans: Mapping[str, Mapping[str, list[Call]]]) -> int:
    failures = 0  # goals that fail, plus reference plans for no goal
    achieved = 0
    total = 0
    with tempfile.TemporaryDirectory() as tmp:
        for toolset in suite:
            plans = reference_plans.get(toolset.name, {})
            stale = set(plans) - {g.text for g in toolset.goals}
            for text in sorted(stale):
                failures += 1
                print(f"FAIL [{toolset.name}] reference plan for no goal: {text!r}")
            for goal in toolset.goals:
                total += 1
                calls = plans.get(goal.text)
                error = (
                    "no reference plan"
                    if calls is None
                    else await check_goal(toolset, goal, calls, Path(tmp))
                )
                failures += error is not None
                achieved += error is None
                steps = 0 if calls is None else len(calls)
                verdict = "ok  " if error is None else "FAIL"
                print(
                    f"{verdict} [{toolset.name}] {steps} steps {goal.text!r}"
                    + (f": {error}" if error else "")
                )
    print(f"{achieved}/{total} reference plans valid and achieved")
    return 1 if failures else 0


async def broken(
    suite: Sequence[ToolSet],
    reference_plans: Mapping[str, Mapping[str, list[Call]]],
    wrong_plans: Mapping[str, Mapping[str, list[Call]]],
) -> int:
    """Run ``suite`` with ``wrong_plans`` in place of their goals' reference plans (each runs to
    completion but writes a wrong answer); 0 when exactly those goals fail, by their check."""
    plans = {name: {**goals, **wrong_plans.get(name, {})} for name, goals in reference_plans.items()}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        await main(suite, plans)
    print(out.getvalue(), end="")
    failed = [line for line in out.getvalue().splitlines() if line.startswith("FAIL")]
    expected = [goal for goals in wrong_plans.values() for goal in goals]
    as_expected = len(failed) == len(expected) and all(
        any(f"{goal!r}: check failed" in line for line in failed) for goal in expected
    )
    print("the checks rejected every wrong answer" if as_expected else "UNEXPECTED: see the FAIL lines")
    return 0 if as_expected else 1


def cli(
    doc: str | None,
    suite: Sequence[ToolSet],
    reference_plans: Mapping[str, Mapping[str, list[Call]]],
    wrong_plans: Mapping[str, Mapping[str, list[Call]]],
) -> None:
    """A suite's self-check command: the reference plans, or with ``--broken`` the wrong ones."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0] if doc else None)
    wrong = sum(len(goals) for goals in wrong_plans.values())
    parser.add_argument(
        "--broken", action="store_true", help=f"break {wrong} reference plans; expect them to fail"
    )
    if parser.parse_args().broken:
        sys.exit(asyncio.run(broken(suite, reference_plans, wrong_plans)))
    sys.exit(asyncio.run(main(suite, reference_plans)))
