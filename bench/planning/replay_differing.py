"""Replay (plan, run in a fresh workspace, check, as ``replay_decided.py`` does) only the goals
whose decided plans differ between two listings of ``plans_decided.py``: the rest have the same
plan, so the same outcome.

    PYTHONPATH=<snapshot>/src .venv/bin/python bench/planning/replay_differing.py main.tsv fix.tsv
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from replay_decided import replay_goal
from suites import every_suite

from forethought.planning.refinements import Refinements


def _rows(path: str) -> list[list[str]]:
    return [line.rstrip("\n").split("\t") for line in Path(path).read_text(encoding="utf-8").splitlines()]


async def main() -> None:
    before, after = _rows(sys.argv[1]), _rows(sys.argv[2])
    differ = {(a[1], a[2]) for a, b in zip(before, after, strict=True) if a[0] != b[0] or a[3] != b[3]}
    refine = Refinements()
    achieved = total = 0
    with tempfile.TemporaryDirectory() as tmp:
        for toolset in every_suite():
            specs = {t.spec.name: t.spec for t in toolset.tools}
            for goal in toolset.goals:
                if (toolset.name, repr(goal.text)) not in differ:
                    continue
                total += 1
                achieved += await replay_goal(toolset, goal, specs, refine, Path(tmp))
    print(f"achieved {achieved}/{total}")


if __name__ == "__main__":
    asyncio.run(main())
