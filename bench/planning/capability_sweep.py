"""The capability check over goals known to be achievable: every planning suite's goals, and the
outcomes bench's goals (achievable and impossible), as ``forethought run`` applies it before
planning. Prints each goal it calls impossible and a count per kind; exit 1 when an achievable
goal is called impossible.

    PYTHONPATH=src .venv/bin/python bench/planning/capability_sweep.py [--suites a,b] [--no-outcomes]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from suites import every_suite  # noqa: E402

from forethought.planning.capability import missing_capabilities  # noqa: E402
from forethought.tools.base import ToolRegistry, ToolSpec  # noqa: E402
from forethought.tools.builtin import builtin_tools  # noqa: E402
from forethought.tools.python import load_python_tools  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--suites", default="", help="comma-separated tool sets (default: all)")
    parser.add_argument("--no-outcomes", action="store_true", help="leave out the outcomes bench's goals")
    args = parser.parse_args()
    wanted = set(filter(None, args.suites.split(",")))
    false_impossible = suite_goals = 0
    for toolset in every_suite():
        if wanted and toolset.name not in wanted:
            continue
        specs = {t.spec.name: t.spec for t in toolset.tools}
        for goal in toolset.goals:
            suite_goals += 1
            missing = missing_capabilities(goal.text, specs)
            if missing:
                false_impossible += 1
                print(f"suite {toolset.name}: called impossible: {goal.text!r}: {missing[0]}")
    print(f"suites: {false_impossible}/{suite_goals} achievable goals called impossible")
    if not args.no_outcomes:
        # bench/outcomes/run.py by its path: bench/planning has a run.py of its own.
        where = importlib.util.spec_from_file_location("outcomes_run", HERE.parent / "outcomes" / "run.py")
        assert where is not None and where.loader is not None
        outcomes = importlib.util.module_from_spec(where)
        sys.modules["outcomes_run"] = outcomes  # its dataclasses look their module up
        where.loader.exec_module(outcomes)
        GOALS, STOCKROOM = outcomes.GOALS, outcomes.STOCKROOM
        builtin: dict[str, ToolSpec] = ToolRegistry(builtin_tools(Path.cwd())).specs()
        stockroom = {**builtin, **{t.spec.name: t.spec for t in load_python_tools(STOCKROOM)}}
        named = impossible = wrong = 0
        for g in GOALS:
            missing = missing_capabilities(g.goal, builtin if g.tools == "builtin" else stockroom)
            if g.check is None:
                impossible += 1
                named += bool(missing)
            elif missing:
                wrong += 1
                print(f"outcomes: achievable goal called impossible: {g.goal!r}: {missing[0]}")
        print(
            f"outcomes: {named}/{impossible} impossible goals named before planning;"
            f" {wrong} achievable called impossible"
        )
        false_impossible += wrong
    return 1 if false_impossible else 0


if __name__ == "__main__":
    sys.exit(main())
