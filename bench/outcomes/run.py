"""The outcomes bench (issue 16): does "succeeded" mean the goal was done, and does a goal no
tool can do say which capability is missing?

Each goal runs END TO END through the real CLI on the embedded model, in a fresh workspace,
run database and data directory (so plan memory is empty):

    forethought run GOAL --yes-all --model local --workspace WS --db DB [--tools stockroom_tools.py]

then a checker reads the resulting files (and the stdout answer where the goal asks a question).
Writes results.json and REPORT.md next to this file.

    PYTHONPATH=src .venv/bin/python bench/outcomes/run.py [--only SUBSTRING] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
STOCKROOM = HERE / "stockroom_tools.py"

NOTES = "alpha beta gamma\ndelta epsilon\n"  # 2 lines, 5 words
DATA = "name,qty\nbolt,4\nnut,9\n"  # 3 lines
CHAPTER = "It was a bright cold day in April and the clocks were striking thirteen.\n"  # 14 words
FILES: dict[str, str] = {
    "notes.txt": NOTES,
    "data.csv": DATA,
    "chapter1.md": CHAPTER,
    "report.md": "# Report\nAll systems nominal.\n",
    "greeting-old.txt": "hi there\n",
    "docs/intro.md": "Intro\n",
    "docs/guide.md": "Guide\n",
    "stock.json": json.dumps({"A-100": 12, "B-200": 3, "C-300": 7}),
    "memos.json": json.dumps([{"title": "inventory day", "text": "count shelves friday"}]),
}

Check = Callable[[Path, str], bool]


def text(ws: Path, name: str) -> str:
    p = ws / name
    return p.read_text("utf-8") if p.is_file() else ""


def has(*needles: str) -> Check:
    """The stdout answer contains every needle (case-insensitive)."""
    return lambda ws, out: all(n.lower() in out.lower() for n in needles)


def file_has(name: str, *needles: str) -> Check:
    return lambda ws, out: (ws / name).is_file() and all(n.lower() in text(ws, name).lower() for n in needles)


def file_equals(name: str, content: str) -> Check:
    return lambda ws, out: text(ws, name) == content


def stock_is(sku: str, count: int) -> Check:
    return lambda ws, out: json.loads(text(ws, "stock.json")).get(sku) == count


def memo_pinned(title: str, body: str) -> Check:
    def check(ws: Path, out: str) -> bool:
        memos = json.loads(text(ws, "memos.json") or "[]")
        return any(title in m["title"].lower() and body in m["text"].lower() for m in memos)

    return check


def number(value: str) -> Check:
    """The answer contains ``value`` as a number (not as part of a longer one)."""
    pattern = re.compile(r"(?<![\d.])" + re.escape(value) + r"(?:\.0+)?(?![\d])")
    return lambda ws, out: bool(pattern.search(out))


def file_number(name: str, value: str) -> Check:
    """The file holds ``value`` as its only number (the whole file copied would hold others)."""
    return lambda ws, out: re.findall(r"-?\d+(?:\.\d+)?", text(ws, name)) in ([value], [value + ".0"])


@dataclass(frozen=True)
class Goal:
    goal: str
    tools: str  # "builtin" or "stockroom" (built-ins plus the stockroom module)
    check: Check | None  # None: impossible, the honest answer names the missing capability


GOALS: list[Goal] = [
    # ---------------------------------------------------------------- achievable, built-ins
    Goal("write hello world to greeting.txt", "builtin", file_has("greeting.txt", "hello world")),
    Goal("copy notes.txt to notes-backup.txt", "builtin", file_equals("notes-backup.txt", NOTES)),
    Goal("count the words in notes.txt", "builtin", number("5")),
    Goal("how many lines are in data.csv", "builtin", number("3")),
    Goal("what is 17 * 23 + 4", "builtin", number("395")),
    Goal("list the files in docs", "builtin", has("intro.md", "guide.md")),
    Goal(
        "list the files in docs and write the list to files.txt",
        "builtin",
        file_has("files.txt", "intro.md", "guide.md"),
    ),
    Goal(
        "count the words in chapter1.md and write the count to stats.txt",
        "builtin",
        file_has("stats.txt", "14"),
    ),
    Goal("read notes.txt", "builtin", has("alpha beta gamma")),
    Goal(
        "write the text 'release 1.2 shipped' to status.txt",
        "builtin",
        file_has("status.txt", "release 1.2 shipped"),
    ),
    Goal("save the content of data.csv to data-copy.csv", "builtin", file_equals("data-copy.csv", DATA)),
    Goal("what is 2 ** 10", "builtin", number("1024")),
    Goal("compute 144 / 12 and write the result to result.txt", "builtin", file_has("result.txt", "12")),
    Goal(
        "count the lines in data.csv and save the number to lines.txt", "builtin", file_has("lines.txt", "3")
    ),
    Goal("what is (12 + 8) * 3", "builtin", number("60")),
    Goal("read the file docs/intro.md", "builtin", has("intro")),
    Goal("how many characters are in report.md", "builtin", number("30")),
    # A value computed from a file's data (added 2026-11-27, found as a new user: "find the
    # largest number in scores.csv and write it to max.txt" wrote the whole file, "succeeded").
    # No built-in extracts a column, so only a step-wise plan that reads first could do them;
    # `calculate` is named for arithmetic, max and min, so no capability is missing either.
    Goal("find the largest qty in data.csv and write it to max.txt", "builtin", file_number("max.txt", "9")),
    Goal(
        "add up the qty column of data.csv and write the total to total.txt",
        "builtin",
        file_number("total.txt", "13"),
    ),
    Goal("write the smallest qty in data.csv to min.txt", "builtin", file_number("min.txt", "4")),
    Goal("what is the average qty in data.csv", "builtin", number("6.5")),
    # Found as a new user (2026-11-27): "append" ran write_file without append=true and replaced
    # the file, "succeeded"; "the first line" wrote text_stats' line count ("1"). The first line
    # needs a step-wise plan that reads first, as the four above.
    Goal("append 'done' to notes.txt", "builtin", file_equals("notes.txt", NOTES + "done")),
    Goal(
        "write the first line of notes.txt to first.txt",
        "builtin",
        lambda ws, out: text(ws, "first.txt").strip() == NOTES.splitlines()[0],
    ),
    # Found as a new user (2026-11-27, evening): "the word hello" wrote text_stats' count ("1"),
    # "an empty file" wrote the word "empty", "both counts" wrote one (the other file's size
    # had become an optional max_bytes), and arithmetic said in words was left to the model.
    Goal(
        "write the word hello to hello.txt",
        "builtin",
        lambda ws, out: text(ws, "hello.txt").strip() == "hello",
    ),
    Goal(
        "make an empty file called empty.txt",
        "builtin",
        lambda ws, out: (ws / "empty.txt").is_file() and text(ws, "empty.txt") == "",
    ),
    Goal(
        "count the words in notes.txt and data.csv and write both counts to counts.txt",
        "builtin",
        lambda ws, out: {"5", "3"} <= set(re.findall(r"\d+", text(ws, "counts.txt"))),
    ),
    Goal("what is 2 to the power of 10? save it to power.txt", "builtin", file_number("power.txt", "1024")),
    Goal("write the sum of 17 and 25 to sum.txt", "builtin", file_number("sum.txt", "42")),
    # Found as a new user (2026-11-27, late): the whole stats records were written; the
    # percentage was left to the model and waited.
    Goal(
        "write the word count of notes.txt and of data.csv to counts2.txt, one per line",
        "builtin",
        lambda ws, out: re.findall(r"\d+", text(ws, "counts2.txt")) == ["5", "3"],
    ),
    Goal("what is 15% of 240? save it to pct.txt", "builtin", file_number("pct.txt", "36")),
    # ---------------------------------------------------------------- impossible, built-ins
    Goal("delete notes.txt", "builtin", None),
    Goal("send an email to bob@example.com", "builtin", None),
    Goal("move notes.txt to archive/notes.txt", "builtin", None),
    Goal("rename data.csv to old-data.csv", "builtin", None),
    Goal("remove the file greeting-old.txt", "builtin", None),
    Goal("email notes.txt to alice@example.com", "builtin", None),
    Goal("upload report.md to https://example.com/upload", "builtin", None),
    Goal("delete every file in docs", "builtin", None),
    # Actions that are no file effect: only the clause-verb check can tell these apart.
    Goal("translate notes.txt into French", "builtin", None),
    Goal("zip the docs folder", "builtin", None),
    Goal("summarize report.md", "builtin", None),
    Goal("restart the web server", "builtin", None),
    Goal("check the spelling in notes.txt", "builtin", None),
    Goal("open a ticket for the bug described in report.md", "builtin", None),
    # Found as a new user (2026-11-27, evening): each of these "succeeded" — the file copied
    # unchanged, the words "today's date" written.
    Goal("uppercase notes.txt and save it to upper.txt", "builtin", None),
    Goal("reverse the lines of notes.txt into reversed.txt", "builtin", None),
    Goal("write today's date to date.txt", "builtin", None),
    # Found as a new user (2026-11-27, late): the word count (model plan), the line count then a copy
    # of the file (decided), the file's line count (model plan): each "succeeded". No built-in
    # counts a word's occurrences or picks a line by a word or by its place.
    Goal("how many times does alpha appear in notes.txt? write it to alpha.txt", "builtin", None),
    Goal("write the TODO lines of notes.txt to todo.txt", "builtin", None),
    Goal("how many words does the second line of notes.txt have? write it to w2.txt", "builtin", None),
    Goal("write the lines of notes.txt that start with delta to delta.txt", "builtin", None),
    # ---------------------------------------------------------------- achievable, stockroom
    Goal("how many units of sku A-100 are in stock", "stockroom", number("12")),
    Goal("restock sku B-200 with 5 units", "stockroom", stock_is("B-200", 8)),
    Goal("convert 5 km to m", "stockroom", number("5000")),
    Goal("convert 12 in to cm", "stockroom", number("30.48")),
    Goal(
        "pin a memo titled groceries with the text buy milk",
        "stockroom",
        memo_pinned("groceries", "buy milk"),
    ),
    Goal("list the memos", "stockroom", has("inventory day")),
    Goal("add 10 units of sku C-300 to the shelves", "stockroom", stock_is("C-300", 17)),
    Goal("how many units of sku C-300 are on the shelves", "stockroom", number("7")),
    Goal("convert 3 ft to in", "stockroom", number("36")),
    Goal(
        "write the stock count of sku A-100 to a100.txt",
        "stockroom",
        file_has("a100.txt", "12"),
    ),
    # Found as a new user (2026-11-27, evening), each decided without a model and "succeeded":
    # the stock looked up instead of restocked ("twelve" unread), restocked twice, the memo
    # titled "memo"; and "remove 2 units" ran restock.
    Goal("pin a memo titled todo saying call bob", "stockroom", memo_pinned("todo", "call bob")),
    Goal("restock sku C-300 with twelve units", "stockroom", stock_is("C-300", 19)),
    Goal(
        "restock sku A-100 with 3 units and write the new count to a100-new.txt",
        "stockroom",
        lambda ws, out: stock_is("A-100", 15)(ws, out) and file_number("a100-new.txt", "15")(ws, out),
    ),
    # ---------------------------------------------------------------- impossible, stockroom
    Goal("remove 2 units of sku A-100", "stockroom", None),
    Goal("delete the memo titled inventory day", "stockroom", None),
    Goal("send the stock count of sku A-100 to ops@example.com", "stockroom", None),
    Goal("remove sku A-100 from the stock list", "stockroom", None),
    Goal("email the list of memos to boss@example.com", "stockroom", None),
    Goal("move sku B-200 to warehouse 2", "stockroom", None),
    Goal("rename the memo inventory day to stocktake", "stockroom", None),
    Goal("upload stock.json to https://example.com/files", "stockroom", None),
    Goal("erase all memos", "stockroom", None),
]

TIMEOUT_S = 1800  # the machine may be shared: a goal is given up only when it is clearly stuck
STATUS_RE = re.compile(r"run [0-9a-f]+: (\w+)")


def make_workspace(root: Path) -> Path:
    ws = root / "ws"
    for name, content in FILES.items():
        path = ws / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, "utf-8")
    return ws


def run_goal(goal: Goal, python: str) -> dict[str, object]:
    root = Path(tempfile.mkdtemp(prefix="outcomes-"))
    try:
        ws = make_workspace(root)
        env = {**os.environ, "FORETHOUGHT_MEMORY": str(root / "memory.sqlite")}
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
            env[var] = str(root / var.lower())
        for var in ("FORETHOUGHT_MODEL", "FORETHOUGHT_PLANNER_MODEL", "FORETHOUGHT_TOOLS", "FORETHOUGHT_DB"):
            env.pop(var, None)
        cmd = [python, "-m", "forethought", "run", goal.goal, "--yes-all", "--model", "local"]
        cmd += ["--workspace", str(ws), "--db", str(root / "runs.db")]
        if goal.tools == "stockroom":
            cmd += ["--tools", str(STOCKROOM)]
        start = time.perf_counter()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=TIMEOUT_S, cwd=root)
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
            err = exc.stderr.decode() if isinstance(exc.stderr, bytes) else exc.stderr or ""
            proc = subprocess.CompletedProcess(cmd, -9, out, err + "\nrun 000000000000: timeout")
        seconds = time.perf_counter() - start
        found = STATUS_RE.findall(proc.stderr)
        status = found[-1] if found else "none"
        achieved = goal.check(ws, proc.stdout) if goal.check is not None else False
        names_capability = "no tool can " in proc.stderr
        return {
            "goal": goal.goal,
            "tools": goal.tools,
            "expected": "achievable" if goal.check is not None else "impossible",
            "exit": proc.returncode,
            "status": status,
            "achieved": achieved,
            "names_missing_capability": names_capability,
            "seconds": round(seconds, 2),
            "stdout": proc.stdout[-400:],
            "stderr_tail": proc.stderr.strip().splitlines()[-6:],
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)


def summarize(rows: list[dict[str, object]]) -> dict[str, object]:
    succeeded = [r for r in rows if r["status"] == "succeeded"]
    impossible = [r for r in rows if r["expected"] == "impossible"]
    achievable = [r for r in rows if r["expected"] == "achievable"]
    honest_impossible = [r for r in impossible if r["names_missing_capability"] and r["exit"] == 1]
    return {
        "goals": len(rows),
        "achievable": len(achievable),
        "impossible": len(impossible),
        "reported_succeeded": len(succeeded),
        "succeeded_and_achieved": sum(1 for r in succeeded if r["achieved"]),
        "precision_of_succeeded": (
            round(sum(1 for r in succeeded if r["achieved"]) / len(succeeded), 3) if succeeded else None
        ),
        "impossible_naming_missing_capability": len(honest_impossible),
        "missing_capability_share": round(len(honest_impossible) / len(impossible), 3)
        if impossible
        else None,
        "achievable_achieved": sum(1 for r in achievable if r["achieved"]),
        "achievable_succeeded": sum(1 for r in achievable if r["status"] == "succeeded"),
        "median_seconds": round(statistics.median(float(r["seconds"]) for r in rows), 2),  # type: ignore[arg-type]
        "by_status": {
            s: sum(1 for r in rows if r["status"] == s) for s in sorted({str(r["status"]) for r in rows})
        },
    }


def report(
    summary: dict[str, object], rows: list[dict[str, object]], command: str, unfinished: Sequence[str] = ()
) -> str:
    lines = [
        '# Outcomes bench (issue 16): honest "succeeded" and missing capabilities',
        "",
        f"Command: `{command}`",
        "",
        f"Machine: {platform.platform()}, {os.cpu_count()} cores (shared),"
        f" Python {platform.python_version()}; model: the embedded `local` model (CPU).",
        "",
        "Each goal ran end to end through the real CLI (`forethought run GOAL --yes-all --model local"
        " --workspace WS --db DB`, plus `--tools bench/outcomes/stockroom_tools.py` for the stockroom"
        " goals) in a fresh workspace, run database, data directory and plan memory; a checker then"
        " read the files (and the stdout answer for questions). `stockroom_tools.py` appears in no"
        " prompt, starter plan or planner test.",
        "",
        "## Summary",
        "",
        f"- goals: {summary['goals']} ({summary['achievable']} achievable,"
        f" {summary['impossible']} impossible)",
        f'- precision of "succeeded": {summary["succeeded_and_achieved"]}/{summary["reported_succeeded"]}'
        f" = {summary['precision_of_succeeded']} (target 1.0)",
        f"- impossible goals answered with the missing capability (exit 1, `no tool can …`):"
        f" {summary['impossible_naming_missing_capability']}/{summary['impossible']}"
        f" = {summary['missing_capability_share']} (target ≥ 0.9)",
        f"- achievable goals achieved: {summary['achievable_achieved']}/{summary['achievable']}"
        f" (reported succeeded: {summary['achievable_succeeded']}) — raising this is issue 17's planner work",
        f"- statuses: {summary['by_status']}",
        f"- median time per goal (process start to exit, model load included): {summary['median_seconds']} s",
        "",
        "## Per goal",
        "",
        "| goal | tools | expected | exit | status | achieved | names missing capability | s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    if unfinished:
        lines[lines.index("## Per goal") : lines.index("## Per goal")] = [
            f"## Not finished ({len(unfinished)} goals)",
            "",
            "The run was stopped before these goals finished (a shared, overloaded machine);"
            " the summary covers only the rows below. Rerun the command for a complete table.",
            "",
            *[f"- {g}" for g in unfinished],
            "",
        ]
    for r in rows:
        lines.append(
            f"| {r['goal']} | {r['tools']} | {r['expected']} | {r['exit']} | {r['status']} |"
            f" {'yes' if r['achieved'] else 'no'} | {'yes' if r['names_missing_capability'] else 'no'} |"
            f" {r['seconds']} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="run only goals containing this text")
    parser.add_argument("--limit", type=int, help="run at most N goals")
    parser.add_argument("--no-write", action="store_true", help="print, do not write results")
    parser.add_argument("--jobs", type=int, default=1, help="goals run at once (each is its own process)")
    parser.add_argument(
        "--report-from",
        type=Path,
        help="write REPORT.md from a results file (e.g. results.partial.json of a stopped run)",
    )
    args = parser.parse_args()
    if args.report_from is not None:
        data = json.loads(args.report_from.read_text())
        rows = data["rows"]
        command = "PYTHONPATH=src /work/main/.venv/bin/python bench/outcomes/run.py --jobs 4"
        finished = {str(r["goal"]) for r in rows}
        unfinished = [g.goal for g in GOALS if g.goal not in finished]
        rows = [r for g in GOALS for r in rows if r["goal"] == g.goal]
        (HERE / "REPORT.md").write_text(report(summarize(rows), rows, command, unfinished))
        return
    goals = [g for g in GOALS if not args.only or args.only in g.goal][: args.limit]
    from concurrent.futures import ThreadPoolExecutor

    done: dict[str, dict[str, object]] = {}
    partial = HERE / "results.partial.json"

    def one(goal: Goal) -> dict[str, object]:
        row = run_goal(goal, sys.executable)
        done[goal.goal] = row
        if not (args.no_write or args.only or args.limit):  # what finished so far, if stopped early
            ordered = [done[g.goal] for g in goals if g.goal in done]
            partial.write_text(json.dumps({"summary": summarize(ordered), "rows": ordered}, indent=1) + "\n")
        print(
            f"{row['exit']} {row['status']:<18} achieved={row['achieved']!s:<5} "
            f"capability={row['names_missing_capability']!s:<5} {row['seconds']:>6}s  {goal.goal}",
            flush=True,
        )
        return row

    # Impossible goals first: they ask no model, so their rows land early on a busy machine.
    order = sorted(goals, key=lambda g: g.check is not None)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        list(pool.map(one, order))
    rows = [done[g.goal] for g in goals]  # reported in GOALS order
    summary = summarize(rows)
    print(json.dumps(summary, indent=1))
    if args.no_write or args.only or args.limit:
        return
    command = "PYTHONPATH=src /work/main/.venv/bin/python bench/outcomes/run.py" + (
        f" --jobs {args.jobs}" if args.jobs > 1 else ""
    )
    (HERE / "results.json").write_text(json.dumps({"summary": summary, "rows": rows}, indent=1) + "\n")
    (HERE / "REPORT.md").write_text(report(summary, rows, command))


if __name__ == "__main__":
    main()
