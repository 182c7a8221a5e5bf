"""End to end: forethought vs a ReAct agent vs LLMCompiler, same model server, same tools.

    /work/main/.venv/bin/python bench/e2e/run.py            # every task, every system
    /work/main/.venv/bin/python bench/e2e/run.py --tasks chain-ticker-price --systems forethought,react

Starts the model server (``server.py``) on loopback, runs each task with each system in its own
process (forethought through its CLI; the peers through ``peers.py`` in the peers' venv), reads
the server's request log and the tools' call log, and writes ``results.json`` and ``REPORT.md``.
Peers' venv: ``python3.11 -m venv /work/venvs/e2e && /work/venvs/e2e/bin/pip install -r
bench/e2e/requirements-peers.txt``; LLMCompiler's checkout: ``--llmcompiler-src`` (see REPORT.md).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))

from tasks import TASKS, Task, answer_is_correct  # noqa: E402

PROJECT_PY = sys.executable
PRICE_IN, PRICE_OUT = 0.15, 0.60  # USD per million tokens (a hosted small model's list price)
SYSTEMS = [
    "forethought",
    "forethought-stream",
    "forethought-replan",
    "forethought-run-fail",
    "react",
    "react-serial",
    "llmcompiler",
    "llmcompiler-stream",
]
DESCRIBE = {
    "forethought": "`forethought run GOAL --no-stream --yes-all` (plan, then execute)",
    "forethought-stream": "`forethought run GOAL --yes-all` (steps start while the plan streams)",
    "forethought-replan": "`forethought plan` → every step `on_failure: replan` → `forethought exec`;"
    " the first tool call fails",
    "forethought-run-fail": "`forethought run GOAL --no-stream --yes-all`; the first tool call fails",
    "react": "LangGraph `create_react_agent` + langchain-openai `ChatOpenAI` (parallel tool calls allowed)",
    "react-serial": "the same with `parallel_tool_calls=false` (one tool call per model turn)",
    "llmcompiler": "LLMCompiler (SqueezeAILab), plan then execute, joiner answers",
    "llmcompiler-stream": "LLMCompiler with its streamed planner (tasks start as plan lines arrive)",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, ttft: float, rate: float) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [
                PROJECT_PY,
                str(HERE / "server.py"),
                "--port",
                str(self.port),
                "--ttft",
                str(ttft),
                "--rate",
                str(rate),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.proc.stdout.readline()  # the banner: the app is built; now wait for the socket
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                urllib.request.urlopen(self.url + "/v1/models", timeout=1).read()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("the model server did not start")

    def log(self) -> list[dict[str, Any]]:
        with urllib.request.urlopen(self.url + "/bench/log", timeout=10) as resp:
            return list(json.load(resp))

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


@dataclass
class Finished:
    returncode: int
    stdout: str
    stderr: str
    answer_at: float  # when the first byte reached stdout (the answer), else the exit time


def _forethought(args: list[str], env: dict[str, str], timeout: float) -> Finished:
    """Run the CLI, timing the answer: the CLI prints it on stdout as its last act, and the
    interpreter then takes a while to exit; the answer's arrival is what a user waits for."""
    proc = subprocess.Popen(
        [PROJECT_PY, "-m", "forethought", *args],
        env={**env, "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
    )
    first: list[float] = []
    out: list[bytes] = []
    err: list[bytes] = []

    def read(stream: Any, sink: list[bytes], mark: bool) -> None:
        while chunk := stream.read1(65536):
            if mark and not first:
                first.append(time.time())
            sink.append(chunk)

    readers = [
        threading.Thread(target=read, args=(proc.stdout, out, True), daemon=True),
        threading.Thread(target=read, args=(proc.stderr, err, False), daemon=True),
    ]
    for reader in readers:
        reader.start()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    exit_at = time.time()
    for reader in readers:
        reader.join(timeout=5)
    return Finished(
        proc.returncode, b"".join(out).decode(), b"".join(err).decode(), first[0] if first else exit_at
    )


def run_one(system: str, task: Task, server: Server, opts: argparse.Namespace, work: Path) -> dict[str, Any]:
    tag = f"{system}.{task.id}.{time.time_ns()}"
    tool_log = work / f"{tag}.tools.jsonl"
    env = {
        **os.environ,
        "BENCH_E2E_TOOL_LOG": str(tool_log),
        "FORETHOUGHT_OPENAI_BASE_URL": server.url + "/v1",
        "FORETHOUGHT_BUILTINS": "none",  # every system gets exactly the benchmark's 15 tools
        # A fresh plan memory per run: the planner's examples are the shipped starter plans
        # only, the same for every run, not whatever earlier runs (or other work) remembered.
        "FORETHOUGHT_MEMORY": str(work / f"{tag}.memory.sqlite"),
        "PYTHONPATH": str(REPO / "src"),
    }
    if system in ("forethought-replan", "forethought-run-fail"):
        env["BENCH_E2E_FAIL_FIRST"] = "1"
    model = f"openai-compat:{tag}"
    tools = str(HERE / "ft_tools.py")
    db = str(work / f"{tag}.db")
    answer, status, detail, end = "", "?", "", 0.0
    spawn = time.time()
    if system in ("forethought", "forethought-stream", "forethought-run-fail"):
        extra = [] if system == "forethought-stream" else ["--no-stream"]
        args = ["run", task.question, "--model", model, "--tools", tools, "--yes-all", "--db", db, *extra]
        proc = _forethought(args, env, opts.timeout)
        end = proc.answer_at
        answer = proc.stdout.strip()
        m = re.search(r"^run \w+: (\w+)", proc.stderr, re.M)
        status = m.group(1) if m else f"exit {proc.returncode}"
        detail = proc.stderr.strip().splitlines()[-4:] if proc.returncode else ""
    elif system == "forethought-replan":
        plan_file = work / f"{tag}.plan.json"
        proc = _forethought(
            ["plan", task.question, "--model", model, "--tools", tools, "-o", str(plan_file)],
            env,
            opts.timeout,
        )
        if proc.returncode == 0:
            plan = json.loads(plan_file.read_text())
            for step in plan["steps"]:
                step["on_failure"] = "replan"  # what a user adds to a plan file to allow recovery
            plan_file.write_text(json.dumps(plan))
            proc = _forethought(
                ["exec", str(plan_file), "--tools", tools, "--yes-all", "--db", db, "--json"],
                {**env, "FORETHOUGHT_MODEL": model},  # exec's replanner comes from the config
                opts.timeout,
            )
        end = proc.answer_at
        try:
            summary = json.loads(proc.stdout)
            status = summary["status"]
            outputs = [
                f"{sid}: {s['output']}" for sid, s in summary["steps"].items() if s["status"] == "succeeded"
            ]
            answer = "\n".join(outputs)
        except (json.JSONDecodeError, KeyError):
            status, detail = f"exit {proc.returncode}", proc.stderr.strip().splitlines()[-4:]
    else:
        peer = (
            ["react"]
            if system.startswith("react")
            else ["llmcompiler", "--llmcompiler-src", opts.llmcompiler_src]
        )
        if system == "react-serial":
            peer.append("--serial")
        if system == "llmcompiler-stream":
            peer.append("--stream")
        cmd = [opts.peers_python, str(HERE / "peers.py"), *peer, "--task", task.id]
        cmd += ["--base-url", server.url + "/v1", "--tag", tag]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=opts.timeout, cwd=REPO)
        end = time.time()
        try:
            out = json.loads(proc.stdout.strip().splitlines()[-1])
            answer, end = str(out["answer"]), float(out["end"])
            status = "succeeded"
        except (json.JSONDecodeError, IndexError, KeyError):
            status, detail = f"exit {proc.returncode}", proc.stderr.strip().splitlines()[-4:]
    process_s = time.time() - spawn
    calls = [e for e in server.log() if e.get("tag") == tag]
    tool_calls = [json.loads(line) for line in tool_log.read_text().splitlines()] if tool_log.exists() else []
    t0 = min((c["start"] for c in calls), default=spawn)
    first_tool = min((t["start"] for t in tool_calls), default=None)
    tokens_in = sum(c["input_tokens"] for c in calls)
    tokens_out = sum(c["output_tokens"] for c in calls)
    return {
        "system": system,
        "task": task.id,
        "kind": task.kind,
        "status": status,
        "correct": answer_is_correct(task, answer),
        "answer": answer[:500],
        "detail": detail,
        "wall_s": round(end - t0, 3),
        "process_s": round(process_s, 3),
        "first_tool_s": round(first_tool - t0, 3) if first_tool is not None else None,
        "first_reply_s": round(min(c["end"] for c in calls) - t0, 3) if calls else None,
        "model_s": round(sum(c["end"] - c["start"] for c in calls), 3),
        "tools_s": round(max(t["end"] for t in tool_calls) - first_tool, 3)
        if first_tool is not None
        else None,
        "schema_chars": max((c.get("schema_chars", 0) for c in calls), default=0),
        "model_calls": len(calls),
        "model_errors": sum(1 for c in calls if c.get("error")),
        "roles": [c["role"] for c in calls],
        "schema_ok": [c.get("schema_ok") for c in calls if c.get("schema_ok") is not None],
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "cost_usd": (tokens_in * PRICE_IN + tokens_out * PRICE_OUT) / 1e6,
        "tool_calls": len(tool_calls),
        "tool_failures": sum(1 for t in tool_calls if not t["ok"]),
    }


# ------------------------------------------------------------------------------------ report


def _sum(rows: list[dict[str, Any]], key: str) -> float:
    return float(sum(r[key] or 0 for r in rows))


def _fmt(x: float | None, digits: int = 2) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def machine() -> dict[str, Any]:
    cpu = ""
    with contextlib.suppress(OSError, StopIteration):
        cpu = next(
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
    return {
        "cpus": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def totals_table(results: list[dict[str, Any]], systems: list[str], kinds: list[str]) -> list[str]:
    lines = [
        "| system | tasks | correct | wall s | first tool s (mean) | model calls | input tok | output tok |"
        " cost $ | wall ÷ react | tokens ÷ react | wall ÷ react-serial | tokens ÷ react-serial |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    base: dict[str, tuple[float, float]] = {}
    for b in ("react", "react-serial"):
        rows = [r for r in results if r["system"] == b and r["kind"] in kinds]
        base[b] = (_sum(rows, "wall_s"), _sum(rows, "input_tokens") + _sum(rows, "output_tokens"))
    for system in systems:
        rows = [r for r in results if r["system"] == system and r["kind"] in kinds]
        if not rows:
            continue
        wall = _sum(rows, "wall_s")
        toks = _sum(rows, "input_tokens") + _sum(rows, "output_tokens")
        firsts = [r["first_tool_s"] for r in rows if r["first_tool_s"] is not None]
        ratios = []
        for b in ("react", "react-serial"):
            bw, bt = base[b]
            ratios += [_fmt(wall / bw) if bw else "–", _fmt(toks / bt) if bt else "–"]
        lines.append(
            f"| {system} | {len(rows)} | {sum(r['correct'] for r in rows)} | {wall:.1f} | "
            f"{_fmt(sum(firsts) / len(firsts) if firsts else None)} | {int(_sum(rows, 'model_calls'))} | "
            f"{int(_sum(rows, 'input_tokens'))} | {int(_sum(rows, 'output_tokens'))} | "
            f"{_sum(rows, 'cost_usd'):.4f} | " + " | ".join(ratios) + " |"
        )
    return lines


def per_task_table(results: list[dict[str, Any]], systems: list[str]) -> list[str]:
    lines = [
        "Each cell: wall s / time to first tool call s / model calls / input+output tokens / "
        "correct (✓ or ✗).",
        "",
        "| task | kind | " + " | ".join(systems) + " |",
        "|---|---|" + "---|" * len(systems),
    ]
    for tid, task in TASKS.items():
        cells = []
        for system in systems:
            r = next((r for r in results if r["system"] == system and r["task"] == tid), None)
            if r is None:
                cells.append("")
                continue
            cells.append(
                f"{r['wall_s']:.2f} / {_fmt(r['first_tool_s'])} / {r['model_calls']} / "
                f"{r['input_tokens']}+{r['output_tokens']} / {'✓' if r['correct'] else '✗'}"
            )
        if any(cells):
            lines.append(f"| {tid} | {task.kind} | " + " | ".join(cells) + " |")
    return lines


def time_table(results: list[dict[str, Any]], systems: list[str]) -> list[str]:
    """Means per run: when the first model reply and the first tool call came, how long the
    model calls took in total, and how long from the first tool call to the last one's end."""
    lines = [
        "| system | first reply s | first tool s | model time s | tool span s | wall s | process s |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]

    def mean(rows: list[dict[str, Any]], key: str) -> str:
        vals = [r[key] for r in rows if r.get(key) is not None]
        return _fmt(sum(vals) / len(vals)) if vals else "–"

    for system in systems:
        rows = [r for r in results if r["system"] == system]
        keys = ("first_reply_s", "first_tool_s", "model_s", "tools_s", "wall_s", "process_s")
        lines.append(f"| {system} | " + " | ".join(mean(rows, k) for k in keys) + " |")
    return lines


FINDINGS_START, FINDINGS_END = "<!-- findings -->", "<!-- /findings -->"


def write_report(data: dict[str, Any], path: Path) -> None:
    results = data["results"]
    systems = [s for s in SYSTEMS if any(r["system"] == s for r in results)]
    cfg = data["config"]
    old = path.read_text() if path.exists() else ""
    findings = ""
    if FINDINGS_START in old and FINDINGS_END in old:
        findings = old[old.index(FINDINGS_START) : old.index(FINDINGS_END) + len(FINDINGS_END)]
    out = [
        "# End to end: forethought vs ReAct vs LLMCompiler (issue 20)",
        "",
        "Produced by (peers' venv and LLMCompiler checkout as in *Setup* below):",
        "",
        "```",
        data["command"],
        "```",
        "",
        f"Machine: {data['machine']['cpus']} CPUs ({data['machine']['cpu']}), Python "
        f"{data['machine']['python']}, {data['machine']['platform']}; run {data['started']}; "
        f"shared with other work, runs one at a time.",
        "",
        f"Model server: time to first token {cfg['ttft']} s, {cfg['rate']} output tokens/s; "
        f"price ${PRICE_IN}/M input and ${PRICE_OUT}/M output tokens. Tokens: ceil(UTF-8 bytes / 4) "
        "per message content and tool calls, +4 per message, plus tool definitions sent in `tools`; "
        "a `response_format` schema is a decoding constraint, not counted (see *Method*).",
        "",
        findings,
        "",
        "## Totals",
        "",
        "All tasks:",
        "",
        *totals_table(results, systems, ["fanout", "combine", "chain", "mix"]),
    ]
    for kind in ("fanout", "combine", "chain", "mix"):
        out += ["", f"`{kind}` tasks:", "", *totals_table(results, systems, [kind])]
    out += ["", "## Where the time goes (means per run)", "", *time_table(results, systems)]
    out += ["", "## Per task", "", *per_task_table(results, systems), "", "## Systems", ""]
    out += [f"- `{s}`: {DESCRIBE[s]}" for s in systems]
    failures = [r for r in results if not r["correct"] or r["model_errors"]]
    if failures:
        out += ["", "## Runs that did not answer correctly", ""]
        for r in failures:
            detail = " ".join(r["detail"]) if isinstance(r["detail"], list) else r["detail"]
            out.append(
                f"- `{r['system']}` / `{r['task']}`: status {r['status']}, model errors "
                f"{r['model_errors']}, answer {r['answer'][:120]!r} {detail[:300]}"
            )
    out += ["", (HERE / "METHOD.md").read_text().strip(), ""]
    path.write_text("\n".join(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tasks", help="comma-separated task ids (default: all)")
    parser.add_argument("--systems", help="comma-separated systems (default: all): " + ",".join(SYSTEMS))
    parser.add_argument("--ttft", type=float, default=0.4)
    parser.add_argument("--rate", type=float, default=80.0)
    parser.add_argument("--timeout", type=float, default=180.0)
    parser.add_argument(
        "--peers-python", default=os.environ.get("BENCH_E2E_PEERS_PYTHON", "/work/venvs/e2e/bin/python")
    )
    parser.add_argument(
        "--llmcompiler-src", default=os.environ.get("LLMCOMPILER_SRC", "/work/venvs/llmcompiler-src")
    )
    parser.add_argument("--out", default=str(HERE / "results.json"))
    parser.add_argument("--report", default=str(HERE / "REPORT.md"))
    opts = parser.parse_args()
    tasks = [TASKS[t] for t in opts.tasks.split(",")] if opts.tasks else list(TASKS.values())
    systems = opts.systems.split(",") if opts.systems else list(SYSTEMS)
    if any(s.startswith(("react", "llmcompiler")) for s in systems) and not Path(opts.peers_python).exists():
        sys.exit(
            f"run.py: {opts.peers_python} not found: create the peers' venv (see requirements-peers.txt)"
        )
    if (
        any(s.startswith("llmcompiler") for s in systems)
        and not (Path(opts.llmcompiler_src) / "src").is_dir()
    ):
        sys.exit(f"run.py: {opts.llmcompiler_src} is not an LLMCompiler checkout (see REPORT.md, Setup)")
    server = Server(opts.ttft, opts.rate)
    work = Path(tempfile.mkdtemp(prefix="bench-e2e-"))
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    results = []
    try:
        for task in tasks:
            for system in systems:
                row = run_one(system, task, server, opts, work)
                results.append(row)
                print(
                    f"{task.id:32} {system:22} {row['status']:10} wall {row['wall_s']:6.2f}s "
                    f"calls {row['model_calls']:2} tok {row['input_tokens'] + row['output_tokens']:6} "
                    f"{'ok' if row['correct'] else 'WRONG'}",
                    flush=True,
                )
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    data = {
        "command": " ".join([sys.executable, "bench/e2e/run.py", *sys.argv[1:]]),
        "started": started,
        "machine": machine(),
        "config": {
            "ttft": opts.ttft,
            "rate": opts.rate,
            "price_in_per_m": PRICE_IN,
            "price_out_per_m": PRICE_OUT,
        },
        "results": results,
    }
    Path(opts.out).write_text(json.dumps(data, indent=1) + "\n")
    write_report(data, Path(opts.report))
    print(f"wrote {opts.out} and {opts.report}")


if __name__ == "__main__":
    main()
