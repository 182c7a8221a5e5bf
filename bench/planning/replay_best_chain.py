"""Model-free replay of the planner's own choice (``planner.best_chain``) over held-out suites.

For each goal: the chain ``best_chain`` takes -- every slot decided and no coverage finding --
runs through the real ``Agent`` in a fresh workspace and the goal's check reads the result
(``replay_decided.check``). A goal with no such chain is reported as ``m`` (the planner would
call the model); one the capability check calls impossible, as ``x``. Stricter than
``replay_decided.py``, which runs the best-scoring decided plan even when the coverage check
has findings on it.

    PYTHONPATH=src .venv/bin/python bench/planning/replay_best_chain.py --suites cinema,weather
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from replay_decided import called_impossible, check
from suites import every_suite

from forethought.planning.planner import best_chain, parse_plan_text
from forethought.planning.refinements import Refinements
from forethought.planning.slots import plan_text


async def main() -> None:
    suites = every_suite()
    parser = argparse.ArgumentParser()
    parser.add_argument("--suites", default=",".join(s.name for s in suites))
    parser.add_argument("--without", default="", help="these refinements off (comma-separated names)")
    args = parser.parse_args()
    refine = Refinements()
    if args.without:
        refine = dataclasses.replace(refine, **{name: False for name in args.without.split(",")})
    total = achieved = 0
    with tempfile.TemporaryDirectory() as tmp:
        for toolset in [s for s in suites if s.name in args.suites.split(",")]:
            specs = {t.spec.name: t.spec for t in toolset.tools}
            for goal in toolset.goals:
                if called_impossible(toolset, goal, specs):
                    total += 1
                    continue
                chosen = best_chain(goal.text, specs, True, refinements=refine)
                plan = None
                if chosen is not None:
                    plan, _ = parse_plan_text(plan_text(chosen.slots.first_plan()), goal.text, specs)
                ok = plan is not None and await check(toolset, goal, plan, Path(tmp))
                total += 1
                achieved += ok
                steps = [f"{s.tool}({s.args})" for s in plan.steps] if plan else None
                mark = "A" if ok else ("-" if chosen is not None else "m")
                print(f"{mark} {toolset.name:10} {goal.text!r}: {steps}", flush=True)
    print(f"achieved {achieved}/{total}")


if __name__ == "__main__":
    asyncio.run(main())
