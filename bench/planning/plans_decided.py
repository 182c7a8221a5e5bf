"""The plan the rules decide for every goal of the given suites, one tab-separated line each
(mark, suite, goal, steps), without running it: two such listings, from two copies of ``src``,
compare the planner goal for goal in minutes where a full replay takes an hour on a loaded
machine (``replay_differing.py`` then runs only the goals whose plans differ). Mark: ``x`` called
impossible, ``m`` one of the first four chains would need the model, ``p`` otherwise.

    PYTHONPATH=<snapshot>/src .venv/bin/python bench/planning/plans_decided.py tides,apiary > plans.tsv
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from replay_decided import decided_plan
from suites import every_suite

from forethought.planning.capability import missing_capabilities
from forethought.planning.refinements import Refinements


def main() -> None:
    names = sys.argv[1].split(",")
    refine = Refinements()
    for toolset in [s for s in every_suite() if s.name in names]:
        specs = {t.spec.name: t.spec for t in toolset.tools}
        for goal in toolset.goals:
            if missing_capabilities(goal.text, specs):
                print(f"x\t{toolset.name}\t{goal.text!r}\tNone", flush=True)
                continue
            plan, needs = decided_plan(goal.text, specs, refine)
            steps = [f"{s.tool}({s.args})" for s in plan.steps] if plan else None
            print(f"{'m' if needs else 'p'}\t{toolset.name}\t{goal.text!r}\t{steps}", flush=True)


if __name__ == "__main__":
    main()
