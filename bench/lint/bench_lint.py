"""Benchmark: lint of large plans (issue 2: a 10,000-step plan lints well under a second).

Generates plans of N steps (random layered DAG, every step with typed args and references into
its producers' outputs, so every check runs: ids, dependencies, cycles, tools, argument schemas
and typed data flow), then times `lint_file` in-process (best and median of R runs) and the whole
`forethought lint` command including interpreter start-up.

    python bench/lint/bench_lint.py [--steps 10000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from forethought.plan.files import lint_file
from forethought.tools.python import load_python_tools

TOOLS_PY = '''
from pydantic import BaseModel
from forethought import tool

class Listing(BaseModel):
    files: list[str]
    count: int

@tool
def list_files(directory: str, pattern: str = "*") -> Listing:
    """List files."""
    return Listing(files=[], count=0)

@tool
def count_words(text: str, min_length: int = 1) -> int:
    """Count words."""
    return 0

@tool(effect="mutating")
def write_file(path: str, text: str) -> str:
    """Write a file."""
    return path
'''


def make_plan(n: int, seed: int = 7) -> dict[str, object]:
    rng = random.Random(seed)
    steps: list[dict[str, object]] = []
    kinds: list[str] = []
    for i in range(n):
        kind = rng.choice(["list_files", "count_words", "write_file"]) if i else "list_files"
        earlier = range(max(0, i - 50), i)
        deps = sorted({f"s{j}" for j in rng.sample(list(earlier), min(len(earlier), 2))})
        producers = [d for d in deps if kinds[int(d[1:])] == "list_files"]
        src = producers[0] if producers else None
        if kind == "list_files":
            args: dict[str, object] = {"directory": f"/data/{i}", "pattern": "*.txt"}
        elif kind == "count_words":
            args = {"text": f"${{{src}.files[0]}}" if src else "some text", "min_length": rng.randint(1, 5)}
        else:
            args = {"path": f"/out/{i}.txt", "text": f"count: ${{{src}.count}}" if src else "x"}
        steps.append({"id": f"s{i}", "tool": kind, "args": args, "depends_on": deps})
        kinds.append(kind)
    return {"goal": f"benchmark plan with {n} steps", "steps": steps}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        tools_file = tmpdir / "tools.py"
        tools_file.write_text(TOOLS_PY)
        specs = {t.spec.name: t.spec for t in load_python_tools(tools_file)}
        data = make_plan(args.steps)
        files = {"json": tmpdir / "plan.json", "yaml": tmpdir / "plan.yaml"}
        files["json"].write_text(json.dumps(data))
        files["yaml"].write_text(yaml.safe_dump(data, sort_keys=False))
        print(
            f"lint of a {args.steps}-step plan ({sys.version.split()[0]}, "
            f"libyaml={'yes' if getattr(yaml, '__with_libyaml__', False) else 'no'})"
        )
        print(f"{'format':<8}{'size':>10}{'best':>10}{'median':>10}{'CLI wall':>11}  problems")
        for fmt, path in files.items():
            times = []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                loaded = lint_file(path, specs)
                times.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-m", "forethought", "lint", str(path), "--tools", str(tools_file)],
                capture_output=True,
                text=True,
            )
            wall = time.perf_counter() - t0
            assert proc.returncode == 0, proc.stdout + proc.stderr
            print(
                f"{fmt:<8}{path.stat().st_size / 1e6:>8.2f}MB{min(times):>9.3f}s"
                f"{statistics.median(times):>9.3f}s{wall:>10.3f}s  {len(loaded.problems)}"
            )


if __name__ == "__main__":
    main()
