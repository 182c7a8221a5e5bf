"""What a fresh plan costs before its first step: one piece of the per-plan work, for callgrind.

    PYTHONPATH=src valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        .venv/bin/python bench/executor/plan_pieces.py validate 6001

builds the bench's fan-out/fan-in plan of N steps (``bench_executor._forethought_plan``, a new
``Plan`` of new ``Step`` objects) and does one piece of what ``Agent.run`` / ``Executor`` do to
it before any step runs:

- ``none``: nothing (the baseline: imports, building the plan, exit);
- ``validate``: ``validate_plan`` with the bench's tools;
- ``wiring``: what the executor asks of a fresh plan — dependents and indegree maps, each
  step's argument bindings and ``${env...}`` flag;
- ``record``: the plan's record, canonical text and hash;
- ``all``: the three above on one plan (they share what they compute).

Instructions per step = (total of a piece − total of ``none``) / N; the garbage collector's work
during the piece is included, as it is in a run.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import bench_executor as bench


def main() -> None:
    from forethought.plan.validation import validate_plan

    piece, n = sys.argv[1], int(sys.argv[2])
    tools = {t.spec.name: t.spec for t in bench._forethought_tools()}
    plan = bench._forethought_plan(bench.fan(n), None)
    if piece in ("validate", "all"):
        validate_plan(plan, tools)
    if piece in ("wiring", "all"):
        plan.dependents_map()
        plan.indegree_map()
        for step in plan.steps:
            _ = step.arg_bindings, step.uses_env
    if piece in ("record", "all"):
        plan.plan_hash()
        plan.canonical_json()


if __name__ == "__main__":
    main()
