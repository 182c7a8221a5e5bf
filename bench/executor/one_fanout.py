"""One run of the bench's no-op fan-out/fan-in of N steps, for instruction counts (callgrind).

    valgrind --tool=callgrind .venv/bin/python bench/executor/one_fanout.py agent 2001
    valgrind --tool=callgrind .venv/bin/python bench/executor/one_fanout.py agent 401

Instructions per step = (total of the 2,001-step run - total of the 401-step run) / 1,600: the
imports, start-up and exit cancel out. Engines: ``executor`` (in memory) or ``agent`` (SQLite,
``synchronous=FULL``), built exactly as ``bench_executor.py`` builds them (``PYTHONPATH=src``).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import bench_executor as bench


def main() -> None:
    engine, n = sys.argv[1], int(sys.argv[2])
    deps: dict[int, list[int]] = {0: []}
    for i in range(1, n - 1):
        deps[i] = [0]
    deps[n - 1] = list(range(1, n - 1))
    with tempfile.TemporaryDirectory() as tmp:
        if engine == "executor":
            prepare = bench.make_executor(deps, None)
        else:
            prepare = bench.make_agent(deps, None, lambda: os.path.join(tmp, "runs.db"))
        run = prepare()

        async def go() -> None:
            await run()

        asyncio.run(go())


if __name__ == "__main__":
    main()
