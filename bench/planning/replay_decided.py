"""Model-free replay of the planner's chain choice over the held-out suites (an analysis aid).

For each goal: the candidate chains (``skeletons``) are bound (``bind``); only chains whose every
slot is decided become plans (no model call); the best by ``score_candidate`` runs through the
real ``Agent`` in a fresh workspace and the goal's check reads the result. A goal whose best
plan would need the model is reported as ``model`` (``m``); one the capability check calls
impossible, as the user's path does before planning, as ``x``. Not a measurement of the
planner (the model fallback is left out); it shows what the rules alone decide, fast, for
before/after checks.

    PYTHONPATH=src .venv/bin/python bench/planning/replay_decided.py --suites catalogue,timesheet
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from heldout import Goal, ToolSet
from suites import every_suite

from forethought import Agent
from forethought.plan.model import Plan
from forethought.planning.candidates import score_candidate
from forethought.planning.capability import missing_capabilities
from forethought.planning.decompose import skeletons
from forethought.planning.planner import parse_plan_text
from forethought.planning.refinements import NO_REFINEMENTS, Refinements
from forethought.planning.slots import bind, plan_text


def decided_plan(goal: str, specs: dict, refine: Refinements) -> tuple[Plan | None, bool]:
    """The best model-free plan among the first 4 feasible chains, and whether one of those
    chains would have needed the model."""
    best = None
    needs_model = False
    tried = 0
    for sk in skeletons(goal, specs, limit=32, refinements=refine):
        if tried == 4:
            break
        slots = bind(sk.tools, goal, specs, typed=True, refinements=refine)
        if not slots.feasible:
            continue
        tried += 1
        if not slots.decided():
            needs_model = True
            continue
        plan, problems = parse_plan_text(plan_text(slots.first_plan()), goal, specs)
        score = score_candidate(
            plan,
            problems,
            goal,
            specs,
            prior=sk.prior,
            record_fields=refine.record_fields,
            question_fields=refine.question_fields,
            file_named=refine.file_named_values,
            abbreviations=refine.abbreviated_fields,
            formatted_records=refine.formatted_records,
        )
        if plan is not None and (best is None or score < best[0]):
            best = (score, plan)
    return (best[1] if best else None), needs_model


def called_impossible(toolset: ToolSet, goal: Goal, specs: dict[str, Any]) -> bool:
    """Whether the capability check calls ``goal`` impossible, as the user's path asks before
    planning (then nothing is planned: printed as ``x``)."""
    missing = missing_capabilities(goal.text, specs)
    if missing:
        print(f"x {toolset.name:10} {goal.text!r}: called impossible: {missing[0]}", flush=True)
    return bool(missing)


async def check(toolset: ToolSet, goal: Goal, plan: Plan, root: Path) -> bool:
    ws = Path(tempfile.mkdtemp(dir=root))
    for name, content in toolset.files.items():
        (ws / name).write_text(content, encoding="utf-8")
    agent = Agent(toolset.tools, record=False, memory=None)
    cwd = Path.cwd()
    os.chdir(ws)
    try:
        await agent.run(plan, approve="all")
    except Exception:
        return False
    finally:
        os.chdir(cwd)
    return goal.check(ws)


async def main() -> None:
    every = every_suite()
    parser = argparse.ArgumentParser()
    parser.add_argument("--suites", default=",".join(s.name for s in every))
    parser.add_argument("--off", action="store_true", help="refinements off")
    parser.add_argument("--without", default="", help="these refinements off (comma-separated names)")
    args = parser.parse_args()
    refine = NO_REFINEMENTS if args.off else Refinements()
    if args.without:
        refine = dataclasses.replace(refine, **{name: False for name in args.without.split(",")})
    total = achieved = 0
    with tempfile.TemporaryDirectory() as tmp:
        for toolset in [s for s in every if s.name in args.suites.split(",")]:
            specs = {t.spec.name: t.spec for t in toolset.tools}
            for goal in toolset.goals:
                total += 1
                achieved += await replay_goal(toolset, goal, specs, refine, Path(tmp))
    print(f"achieved {achieved}/{total}")


async def replay_goal(
    toolset: ToolSet, goal: Goal, specs: dict[str, Any], refine: Refinements, tmp: Path
) -> bool:
    """Plan ``goal`` without a model as the user's path does, run and check it, print its line
    (``A`` achieved, ``m`` would need the model, ``-`` failed, ``x`` called impossible)."""
    if called_impossible(toolset, goal, specs):
        return False
    plan, needs_model = decided_plan(goal.text, specs, refine)
    ok = plan is not None and await check(toolset, goal, plan, tmp)
    steps = [f"{s.tool}({s.args})" for s in plan.steps] if plan else None
    mark = "A" if ok else ("m" if needs_model else "-")
    print(f"{mark} {toolset.name:10} {goal.text!r}: {steps}", flush=True)
    return ok


if __name__ == "__main__":
    asyncio.run(main())
