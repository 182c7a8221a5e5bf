"""Planning benchmark: simple goals over a small tool set, scored for validity and for success.

Each goal gets a fresh temp workspace with known files. The planner (``make_plan``) writes a plan;
the plan is *valid* if the validator accepts it; it *achieves* the goal if executing it (a tiny
sequential loop over ``refs.resolve`` + ``tool.invoke`` — deliberately not the real executor, so
this measures the planner alone) yields the expected output or file content.

    .venv/bin/python bench/planning/run.py --model local --modes none,memory --out results.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from rows import ROWS
from tools import BENCH_TOOLS, summarize

from forethought.models.resolve import resolve_model
from forethought.plan import references as refs
from forethought.plan.model import Plan
from forethought.planning.memory import PlanMemory
from forethought.planning.planner import make_plan
from forethought.tools.base import ToolContext

NOTES = "The quick brown fox jumps over the lazy dog. It was not amused at all."
REPORT = "Sales grew by ten percent this quarter. Costs stayed flat. Next quarter looks good."
CSV = "name,qty\napple,3\npear,5\nplum,7\n"
LOG = "start\nload config\nserve\nstop\nexit\n"
FILES = {
    "notes.txt": NOTES,
    "report.txt": REPORT,
    "data.csv": CSV,
    "log.txt": LOG,
    "essay.md": "Planning first saves time later. Always.",
    "todo.txt": "buy milk",
    "story.txt": "A cat sat on a mat. Then it slept.",
    "readme.md": "Run make test.",
}

Check = Callable[[Path, list[Any]], bool]


@dataclass(frozen=True)
class Goal:
    text: str
    check: Check


def has(value: Any) -> Check:
    return lambda ws, outputs: value in outputs


def file_is(name: str, content: str) -> Check:
    return lambda ws, outputs: (ws / name).is_file() and (ws / name).read_text() == content


GOALS = [
    Goal("Count the words in notes.txt", has(len(NOTES.split()))),
    Goal("How many lines does data.csv have?", has(len(CSV.splitlines()))),
    Goal("Count the lines in log.txt", has(len(LOG.splitlines()))),
    Goal("How many words are in essay.md?", has(6)),
    Goal("Summarize report.txt", has(summarize.fn(REPORT))),
    Goal("Read todo.txt", has("buy milk")),
    Goal("What does readme.md say?", has("Run make test.")),
    Goal("List the files in the workspace", has(sorted(FILES))),
    Goal('Write "hello world" to greeting.txt', file_is("greeting.txt", "hello world")),
    Goal('Write "done" to status.txt', file_is("status.txt", "done")),
    Goal("Copy notes.txt to backup.txt", file_is("backup.txt", NOTES)),
    Goal(
        "Write a one-sentence summary of report.txt to summary.txt",
        file_is("summary.txt", summarize.fn(REPORT)),
    ),
    Goal(
        "Summarize story.txt and save it to short.txt", file_is("short.txt", summarize.fn(FILES["story.txt"]))
    ),
    Goal("Count the words in the summary of report.txt", has(len(summarize.fn(REPORT).split()))),
    Goal("Count the lines of the file data.csv", has(len(CSV.splitlines()))),
]

# Remembered plans for *other* goals over the same tools (never one of the goals above).
MEMORY = [
    (
        "How many words are in draft.txt?",
        [("read_file", {"path": "draft.txt"}), ("count_words", {"text": "${s1}"})],
    ),
    (
        "Count the lines of notes.md",
        [("read_file", {"path": "notes.md"}), ("count_lines", {"text": "${s1}"})],
    ),
    (
        "Summarize paper.txt into abstract.txt",
        [
            ("read_file", {"path": "paper.txt"}),
            ("summarize", {"text": "${s1}"}),
            ("write_file", {"path": "abstract.txt", "content": "${s2}"}),
        ],
    ),
    ('Write "hi" to a.txt', [("write_file", {"path": "a.txt", "content": "hi"})]),
]


async def execute(plan: Plan, workspace: Path) -> list[Any]:
    """Run the plan's steps in order (plans from the planner are topologically ordered)."""
    tools = {t.spec.name: t for t in BENCH_TOOLS}
    outputs: dict[str, Any] = {}
    for step in plan.steps:
        assert step.tool is not None
        args = refs.resolve(step.args, outputs)
        ctx = ToolContext(run_id="bench", step_id=step.id, workspace=workspace)
        outputs[step.id] = await tools[step.tool].invoke(args, ctx)
    return list(outputs.values())


async def run_mode(model_name: str, mode: str, goals: list[Goal], row: str = "sample") -> dict[str, Any]:
    model = resolve_model(model_name)
    specs = {t.spec.name: t.spec for t in BENCH_TOOLS}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        memory = None
        if mode == "memory":
            memory = PlanMemory(Path(tmp) / "memory.sqlite", starter=False)
            for goal, steps in MEMORY:
                memory.remember(
                    Plan.model_validate(
                        {
                            "goal": goal,
                            "steps": [
                                {"id": f"s{i + 1}", "tool": t, "args": a} for i, (t, a) in enumerate(steps)
                            ],
                        }
                    )
                )
        if hasattr(model, "server"):
            await model.server()  # load the weights outside the timed region
        for n, goal in enumerate(goals):
            ws = Path(tmp) / f"ws{n}"
            ws.mkdir()
            for name, content in FILES.items():
                (ws / name).write_text(content)
            start = time.perf_counter()
            result = await make_plan(goal.text, specs, model, memory=memory, options=ROWS[row])
            elapsed = time.perf_counter() - start
            achieved, error = False, None
            if result.ok and result.plan is not None:
                try:
                    achieved = goal.check(ws, await execute(result.plan, ws))
                except Exception as exc:
                    error = f"{type(exc).__name__}: {exc}"
            rows.append(
                {
                    "goal": goal.text,
                    "valid": result.ok,
                    "achieved": achieved,
                    "seconds": round(elapsed, 2),
                    "calls": len(result.calls),
                    "tokens": result.usage.total_tokens,
                    "error": error,
                    "plan": [f"{s.tool}({json.dumps(s.args)})" for s in result.plan.steps]
                    if result.plan
                    else None,
                    "problems": [str(p) for p in result.problems][:3],
                }
            )
            print(
                f"[{row}/{mode}] {'V' if result.ok else '-'}{'A' if achieved else '-'} "
                f"{elapsed:5.1f}s {goal.text!r}: {rows[-1]['plan']}",
                flush=True,
            )
    secs = [r["seconds"] for r in rows]
    return {
        "model": model.name,
        "mode": mode,
        "row": row,
        "goals": len(rows),
        "valid": sum(r["valid"] for r in rows),
        "achieved": sum(r["achieved"] for r in rows),
        "median_s": statistics.median(secs),
        "mean_s": round(statistics.mean(secs), 2),
        "max_s": max(secs),
        "first_try_valid": sum(r["valid"] and r["calls"] == 1 for r in rows),
        "rows": rows,
    }


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="local")
    parser.add_argument("--modes", default="none,memory")
    parser.add_argument("--limit", type=int, default=len(GOALS))
    parser.add_argument("--rows", default="sample", help=f"planner techniques, of {', '.join(ROWS)}")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    results = [
        await run_mode(args.model, mode, GOALS[: args.limit], row)
        for row in args.rows.split(",")
        for mode in args.modes.split(",")
    ]
    for r in results:
        print(
            f"{r['model']} {r['row']} memory={r['mode']}: valid {r['valid']}/{r['goals']} "
            f"(first try {r['first_try_valid']}), achieved {r['achieved']}/{r['goals']}, "
            f"plan time median {r['median_s']}s mean {r['mean_s']}s max {r['max_s']}s"
        )
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2))  # noqa: ASYNC240


if __name__ == "__main__":
    asyncio.run(main())
