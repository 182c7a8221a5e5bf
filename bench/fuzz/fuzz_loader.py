"""Fuzz the plan loader (issue 15): 0 tracebacks, 0 hangs, every rejection one line with exit 2.

Hypothesis generates plan files — random text and bytes, but mostly structured YAML and JSON with
anchors and aliases (recursive, undefined, exponential), tags, deep nesting, huge and non-finite
numbers, odd Unicode, duplicate keys, and valid-looking plans with mutations — and each input goes
through ``lint_file`` in-process (read → parse → validate → line numbers), with a per-input time
limit. Every Nth input also goes through ``forethought lint FILE`` in a child process.

A finding is: an exception that is not a ``UserError`` (a traceback), an input over the time limit
(a hang), a message or problem line that spans several lines, or a CLI run that exits other than
0/2, prints a traceback or "internal error", or rejects with more than one line on stderr.

    python bench/fuzz/fuzz_loader.py [--seconds 600] [--seed 0] [--cli-every 50] [--limit-s 5]

Findings are printed (repr of the input, truncated) and the exit status is 1 if there are any.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from forethought.errors import UserError
from forethought.plan.files import PlanFileError, lint_file

SRC = str(Path(__file__).resolve().parents[2] / "src")
SAVE_DIR: Path | None = None  # --save: keep a copy of each input that raised

# ------------------------------------------------------------------------------------------ inputs

ODD = [
    "\u200b",  # zero-width space
    "\u202e",  # right-to-left override
    "\ufeff",  # byte order mark
    "\u0000",
    "\u0085",  # next line
    "\u2028",  # line separator
    "\x1b[31m",
    "é",
    "𝔘",
    "\U0001f600",
    "\t",
    "\r",
]
NAMES = ["a", "b", "c"]
words = st.sampled_from(
    ["goal", "steps", "id", "tool", "args", "after", "agent", "x", "s1", "${s1}", "on_failure"]
)
odd_text = st.lists(st.one_of(words, st.sampled_from(ODD), st.text(max_size=4)), max_size=6).map("".join)


def _quote(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


big_number = st.one_of(
    st.integers(min_value=1, max_value=20_000).map(lambda n: "9" * n),
    st.integers(min_value=4290, max_value=4310).map(lambda n: "-" + "1" * n),
    st.sampled_from(
        ["1e999", "-1e999", ".nan", ".inf", "-.inf", "NaN", "Infinity", "0x1F", "0o17", "012", "1_000"]
    ),
    st.integers().map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)
scalar = st.one_of(
    words,
    odd_text.map(_quote),
    big_number,
    st.sampled_from(
        ["null", "~", "true", "yes", "no", "2001-12-14t21:59:43.10-05:00", "2002-12-14", "''", '""']
    ),
    st.sampled_from(
        ["!!python/object/apply:os.system ['touch x']", "!!binary aGVsbG8=", "!foo bar", "!!str 1"]
    ),
    st.sampled_from(NAMES).map(lambda n: "*" + n),
)


def _anchor(draw_text: tuple[str | None, str]) -> str:
    name, body = draw_text
    return f"&{name} {body}" if name else body


anchor_name = st.one_of(st.none(), st.sampled_from(NAMES))


def _flow(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    seq = st.lists(children, max_size=5).map(lambda xs: "[" + ", ".join(xs) + "]")
    keys = st.one_of(words, scalar, st.sampled_from(["? [a]", "<<", "*a"]))
    mapping = st.lists(st.tuples(keys, children), max_size=5).map(
        lambda kvs: "{" + ", ".join(f"{k}: {v}" for k, v in kvs) + "}"
    )
    return st.tuples(anchor_name, st.one_of(seq, mapping)).map(_anchor)


flow_value = st.recursive(st.tuples(anchor_name, scalar).map(_anchor), _flow, max_leaves=30)


@st.composite
def block_yaml(draw: st.DrawFn) -> str:
    """Block-style YAML with plan-like keys, anchors, aliases, duplicates and odd indentation."""
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 12))):
        indent = " " * draw(st.sampled_from([0, 0, 2, 4, 1, 3]))
        key = draw(st.one_of(words, odd_text, st.sampled_from(["- id", "-", "? x", "<<"])))
        value = draw(st.one_of(flow_value, st.just(""), st.sampled_from(["|", ">-", "|+"])))
        lines.append(f"{indent}{key}: {value}".rstrip())
    if draw(st.booleans()):
        lines.insert(
            0, draw(st.sampled_from(["---", "%YAML 1.2\n---", "%TAG !e! tag:example.com,2000:\n---"]))
        )
    return "\n".join(lines) + draw(st.sampled_from(["\n", "", "\n...\n", "\n---\nother: doc\n"]))


@st.composite
def alias_bomb(draw: st.DrawFn) -> str:
    width = draw(st.integers(2, 12))
    depth = draw(st.integers(1, 12))
    out = ["goal: x", "steps: []", "l0: &l0 [" + ", ".join(["lol"] * width) + "]"]
    for i in range(1, depth):
        out.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * width) + "]")
    return "\n".join(out) + "\n"


@st.composite
def deep_nesting(draw: st.DrawFn) -> str:
    depth = draw(st.integers(10, 200_000))
    opener, closer = draw(st.sampled_from([("[", "]"), ('{"a": ', "}"), ("- ", "")]))
    if opener == "- ":
        return "".join(" " * min(i, 2000) + "-\n" for i in range(min(depth, 3000)))
    return opener * depth + "1" + closer * depth


plan_dict = st.fixed_dictionaries(
    {
        "goal": odd_text,
        "steps": st.lists(
            st.fixed_dictionaries(
                {"id": st.one_of(st.sampled_from(["s1", "s2", "s3"]), odd_text), "tool": words},
                optional={
                    "args": st.dictionaries(
                        words,
                        st.recursive(
                            st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), odd_text),
                            lambda c: st.lists(c, max_size=3) | st.dictionaries(words, c, max_size=3),
                            max_leaves=10,
                        ),
                        max_size=4,
                    ),
                    "after": st.lists(st.sampled_from(["s1", "s2", "s3", "zz"]), max_size=3),
                    "on_failure": st.sampled_from(["stop", "continue", "rollback", "retry", 3]),
                    "agent": odd_text,
                    "action": words,
                    "params": st.dictionaries(words, odd_text, max_size=2),
                    "input": odd_text,
                },
            ),
            max_size=5,
        ),
    },
    optional={"rollback": st.lists(st.fixed_dictionaries({"id": words, "tool": words}), max_size=2)},
)


@st.composite
def mutated_plan(draw: st.DrawFn) -> tuple[str, str]:
    data = draw(plan_dict)
    fmt = draw(st.sampled_from(["json", "yaml"]))
    if fmt == "json":
        text = json.dumps(data, ensure_ascii=draw(st.booleans()))
    else:
        import yaml_rs

        text = str(yaml_rs.dumps(data))
    for _ in range(draw(st.integers(0, 3))):
        pos = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["insert", "delete", "dup"]))
        if kind == "insert":
            text = (
                text[:pos]
                + draw(st.one_of(st.sampled_from([*ODD, "&a", "*a", "!!", ":", "{", "[", '"']), scalar))
                + text[pos:]
            )
        elif kind == "delete":
            text = text[:pos] + text[pos + draw(st.integers(1, 8)) :]
        else:
            end = min(len(text), pos + draw(st.integers(1, 40)))
            text = text[:end] + text[pos:end] + text[end:]
    return fmt, text


@st.composite
def json_oddities(draw: st.DrawFn) -> str:
    return draw(
        st.sampled_from(
            [
                '{"goal": "x", "goal": "y", "steps": []}',
                '{"goal": "x", "steps": [{"id": "a", "tool": "t", "args": {"n": NaN}}]}',
                '{"goal": "\\ud800", "steps": []}',
                '{"goal": "x", "steps": [{"id": "a\\nb", "tool": "t"}]}',
                "[1, 2, 3]",
                '"just a string"',
                "null",
                "{}",
                '{"goal": "x", "steps": [{"id": "a", "tool": "t", "args": {"n": ' + "9" * 5000 + "}}]}",
            ]
        )
    )


inputs = st.one_of(
    st.tuples(st.just("yaml"), block_yaml()),
    st.tuples(st.just("yaml"), flow_value.map(lambda v: f"goal: x\nsteps: {v}\n")),
    st.tuples(st.just("yaml"), alias_bomb()),
    st.tuples(st.sampled_from(["json", "yaml"]), deep_nesting()),
    mutated_plan(),
    st.tuples(st.just("json"), json_oddities()),
    st.tuples(st.sampled_from(["json", "yaml"]), st.text(max_size=200)),
    st.tuples(st.sampled_from(["json", "yaml"]), st.binary(max_size=200).map(lambda b: b.decode("latin-1"))),
    st.tuples(st.just("bytes"), st.binary(max_size=200).map(lambda b: b.decode("latin-1"))),
)

# ------------------------------------------------------------------------------------------ checks


@dataclass
class Tally:
    inputs: int = 0
    cli_runs: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    findings: list[str] = field(default_factory=list)
    slowest_s: float = 0.0


class _Hang(Exception):
    pass


def _on_alarm(signum: int, frame: Any) -> None:
    raise _Hang


def check_in_process(path: Path, limit_s: float, tally: Tally, label: str) -> None:
    signal.setitimer(signal.ITIMER_REAL, limit_s * 2)  # interrupts Python code; C code is timed below
    start = time.perf_counter()
    try:
        loaded = lint_file(path)
        outcome = "valid" if not loaded.problems else "problems"
        for p in loaded.problems:
            if "\n" in str(p) or "\r" in str(p):
                tally.findings.append(f"{label}: multi-line problem {str(p)[:300]!r}")
    except _Hang:
        outcome = "hang"
        tally.findings.append(f"{label}: no answer within {limit_s * 2:g}s")
    except PlanFileError as exc:
        outcome = "rejected"
        if "\n" in str(exc) or "\r" in str(exc):
            tally.findings.append(f"{label}: multi-line rejection {str(exc)[:300]!r}")
    except UserError as exc:
        outcome = "rejected (other UserError)"
        if "\n" in str(exc):
            tally.findings.append(f"{label}: multi-line rejection {str(exc)[:300]!r}")
    except Exception as exc:  # the thing we hunt
        outcome = "traceback"
        tally.findings.append(f"{label}: {type(exc).__name__}: {str(exc)[:300]}")
        if SAVE_DIR is not None:
            SAVE_DIR.mkdir(parents=True, exist_ok=True)
            (SAVE_DIR / f"traceback-{tally.inputs}{path.suffix}").write_bytes(path.read_bytes())
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    elapsed = time.perf_counter() - start
    tally.slowest_s = max(tally.slowest_s, elapsed)
    if elapsed > limit_s and outcome != "hang":
        tally.findings.append(f"{label}: took {elapsed:.1f}s (limit {limit_s:g}s)")
    tally.outcomes[outcome] += 1


def check_cli(path: Path, limit_s: float, tally: Tally, label: str) -> None:
    tally.cli_runs += 1
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "forethought", "lint", str(path)],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=limit_s + 10,  # plus interpreter start-up
            env={**os.environ, "PYTHONPATH": SRC},
            check=False,
        )
    except subprocess.TimeoutExpired:
        tally.findings.append(f"{label}: CLI lint did not finish within {limit_s + 10:g}s")
        return
    err_lines = proc.stderr.strip().splitlines()
    if proc.returncode not in (0, 2):
        tally.findings.append(f"{label}: CLI exit {proc.returncode}: {proc.stderr[-300:]!r}")
    if "Traceback" in proc.stderr or "internal error" in proc.stderr:
        tally.findings.append(f"{label}: CLI printed {proc.stderr[-300:]!r}")
    if proc.returncode == 2 and len(err_lines) != 1:
        tally.findings.append(f"{label}: CLI rejection of {len(err_lines)} lines: {proc.stderr[-300:]!r}")


def run(
    seconds: float, seed_value: int, cli_every: int, limit_s: float, work: Path, min_inputs: int = 0
) -> Tally:
    """Fuzz for ``seconds``, and on until at least ``min_inputs`` inputs were checked (a sample
    on a loaded machine checks as many inputs as on a quiet one, only slower)."""
    tally = Tally()
    deadline = time.monotonic() + seconds

    def time_up() -> bool:
        return time.monotonic() > deadline and tally.inputs >= min_inputs

    class _TimeUp(Exception):
        pass

    @seed(seed_value)
    @settings(
        max_examples=1000,  # per seed: Hypothesis keeps every choice it made in memory
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(inputs)
    def one(case: tuple[str, str]) -> None:
        if time_up():
            raise _TimeUp
        fmt, text = case
        tally.inputs += 1
        n = tally.inputs
        suffix = {"json": ".json", "yaml": ".yaml", "bytes": ".yaml"}[fmt]
        path = work / f"case{n % 2}{suffix}"
        if fmt == "bytes":
            path.write_bytes(text.encode("latin-1"))
        else:
            path.write_text(text, encoding="utf-8", errors="surrogatepass")
        label = f"#{n} {fmt} {text[:120]!r}"
        check_in_process(path, limit_s, tally, label)
        if cli_every and n % cli_every == 0:
            check_cli(path, limit_s, tally, label)

    while not time_up():
        try:
            one()
        except _TimeUp:
            break
        # This seed's examples are done: go on with the next (fresh Hypothesis state).
        seed_value += 1
        print(f"  {tally.inputs} inputs, {len(tally.findings)} findings", file=sys.stderr, flush=True)
    return tally


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=600.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--min-inputs", type=int, default=0, help="go past --seconds until this many inputs ran")
    ap.add_argument("--cli-every", type=int, default=50, help="run `forethought lint` on every Nth input")
    ap.add_argument("--limit-s", type=float, default=5.0, help="per-input time limit")
    ap.add_argument("--memory-gb", type=float, default=2.0, help="address-space limit for this process")
    ap.add_argument("--save", type=Path, default=None, help="copy inputs that raised into this directory")
    args = ap.parse_args()
    global SAVE_DIR
    SAVE_DIR = args.save
    limit = int(args.memory_gb * (1 << 30))
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    signal.signal(signal.SIGALRM, _on_alarm)  # a script, not library code
    warnings.filterwarnings("ignore", message="Generating overly large repr")
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ft-fuzz-") as tmp:
        tally = run(args.seconds, args.seed, args.cli_every, args.limit_s, Path(tmp), args.min_inputs)
    elapsed = time.monotonic() - start
    print(f"seconds: {elapsed:.0f}  seed: {args.seed}  inputs: {tally.inputs}  CLI runs: {tally.cli_runs}")
    print("outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.outcomes.items())))
    print(f"slowest input: {tally.slowest_s:.2f}s  findings: {len(tally.findings)}")
    for finding in tally.findings[:50]:
        print("  " + finding)
    return 1 if tally.findings else 0


if __name__ == "__main__":
    sys.exit(main())
