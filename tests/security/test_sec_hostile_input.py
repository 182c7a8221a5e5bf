"""Issue 15 items 8 and 14: hostile plan text and an unlucky environment.

Item 8: ``goal: x\\nsteps: &a [*a]`` (23 bytes) made line indexing walk the alias cycle until memory
ran out, and ``&a {id: a, x: [*a]}`` silently became ``null``. Recursive aliases, and aliases that
expand beyond a bound ("billion laughs"), are now refused in one line with exit 2.

Item 14: a full disk, a read-only or corrupt database and a 100000-digit integer were reported as
"internal error ... please report it". Each is now one line saying what happened and what to do,
exit 2, and ``runs`` / ``show`` read a database they cannot write.
"""

from __future__ import annotations

import errno
import os
import resource
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from _store_support import full_run
from forethought.interfaces.cli import main as cli_main
from forethought.plan.files import PlanFileError, parse_text
from forethought.runs.store import sqlite as store_sqlite
from forethought.runs.store.sqlite import SqliteStore

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _limit_memory() -> None:  # runs in the child only
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def cli_child(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run(
        [sys.executable, "-m", "forethought", *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_limit_memory,  # a test child, no threads involved
        check=False,
    )


def assert_one_line(proc: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr[-2000:]
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


# ------------------------------------------------------------------------------ item 8: aliases


def test_the_23_byte_recursive_plan_is_refused_in_one_line(tmp_path: Path) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text("goal: x\nsteps: &a [*a]\n")
    assert plan.stat().st_size == 23
    proc = cli_child("lint", str(plan), cwd=tmp_path)
    assert_one_line(proc, f"{plan}:2:", "recursive alias", "*a")


def test_a_recursive_alias_inside_a_step_is_refused_not_null(tmp_path: Path) -> None:
    text = "goal: x\nsteps:\n  - &a {id: a, tool: t, args: {x: [*a]}}\n"
    with pytest.raises(PlanFileError) as exc:
        parse_text(text, "yaml", "plan.yaml")
    message = str(exc.value)
    assert message.startswith("plan.yaml:3:") and "recursive alias" in message and "\n" not in message


def test_an_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 10):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    plan = tmp_path / "bomb.yaml"
    plan.write_text("goal: x\nsteps: []\n" + "\n".join(lines) + "\n")
    proc = cli_child("lint", str(plan), cwd=tmp_path)
    assert_one_line(proc, str(plan), "aliases expand", "anchors")


def test_modest_aliases_still_load(tmp_path: Path) -> None:
    text = (
        "goal: x\nsteps:\n  - id: a\n    tool: t\n    args: &common {n: 1, tags: [p, q]}\n"
        "  - id: b\n    tool: t\n    args: *common\n"
    )
    data = parse_text(text, "yaml", "plan.yaml")
    assert data["steps"][1]["args"] == {"n": 1, "tags": ["p", "q"]}


def test_line_index_never_walks_an_alias_twice(tmp_path: Path) -> None:
    # Even on text that bypassed the loader, building the line index terminates (in a child
    # with a memory and time guard: before the fix this walked the cycle until memory ran out).
    code = (
        "from forethought.plan.files import line_index\n"
        "index = line_index('goal: x\\nsteps: &a [*a]', 'yaml')\n"
        "print(index[('steps',)], len(index))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": SRC},
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_limit_memory,  # a test child, no threads involved
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-500:]
    assert proc.stdout.split() == ["2", "4"]


def test_a_tools_file_with_a_recursive_alias_is_refused(tmp_path: Path) -> None:
    tools = tmp_path / "tools.yaml"
    tools.write_text("tools: &t\n  - name: x\n    command: [echo, *t]\n")
    plan = tmp_path / "plan.yaml"
    plan.write_text("goal: x\nsteps:\n  - {id: a, tool: x}\n")
    proc = cli_child("lint", str(plan), "--tools", str(tools), cwd=tmp_path)
    assert_one_line(proc, str(tools), "recursive alias")


# ------------------------------------------------------------------------------ item 14: environment


@pytest.mark.parametrize("suffix", ["yaml", "json"])
def test_a_100000_digit_integer_is_one_line(tmp_path: Path, suffix: str) -> None:
    plan = tmp_path / f"plan.{suffix}"
    digits = "9" * 100_000
    if suffix == "json":
        plan.write_text('{"goal": "x", "steps": [{"id": "a", "tool": "t", "args": {"n": ' + digits + "}}]}")
    else:
        plan.write_text("goal: x\nsteps:\n  - id: a\n    tool: t\n    args: {n: " + digits + "}\n")
    proc = cli_child("lint", str(plan), cwd=tmp_path)
    assert_one_line(proc, str(plan), "digits", "string")


def _db_with_a_run(path: Path) -> str:
    with SqliteStore(path) as store:
        store.append_many(full_run("r-readonly-1"))
    return "r-readonly-1"


@pytest.fixture
def commands(monkeypatch: pytest.MonkeyPatch) -> None:
    extra = {name: f"forethought.interfaces.cli.runs_cmd:{name}_command" for name in ("runs", "show")}
    monkeypatch.setattr(cli_main, "COMMANDS", {**cli_main.COMMANDS, **extra})


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli_main.run(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_file_that_is_not_a_database_is_one_line(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    db.write_bytes(b"this is not sqlite at all\n" * 100)
    proc = cli_child("runs", "--db", str(db), cwd=tmp_path)
    assert_one_line(proc, str(db), "not a forethought database", "--db")


def test_a_malformed_database_is_one_line(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    run_id = _db_with_a_run(db)
    raw = bytearray(db.read_bytes())
    page = 4096
    assert len(raw) > 3 * page
    for offset in range(page, len(raw)):  # keep the header page, wreck every other page
        raw[offset] = 0x5A
    db.write_bytes(bytes(raw))
    proc = cli_child("show", run_id, "--db", str(db), cwd=tmp_path)
    assert_one_line(proc, str(db), "damaged", "backup")


def test_a_full_disk_in_the_database_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], commands: None
) -> None:
    real_connect = sqlite3.connect

    def tiny_connect(*args: object, **kwargs: object) -> sqlite3.Connection:
        conn = real_connect(*args, **kwargs)  # type: ignore[arg-type]
        conn.execute("PRAGMA max_page_count = 1")  # SQLite: "database or disk is full"
        return conn

    monkeypatch.setattr(store_sqlite.sqlite3, "connect", tiny_connect)
    code, _, err = cli(capsys, "runs", "--db", str(tmp_path / "runs.db"))
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "internal error" not in err
    assert "full" in err and "free" in err


@pytest.mark.parametrize(
    ("code", "needle"),
    [(errno.ENOSPC, "free some space"), (errno.EROFS, "read-only"), (errno.EACCES, "permission")],
)
def test_os_errors_at_the_cli_boundary_are_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    code: int,
    needle: str,
) -> None:
    from forethought.interfaces.cli import plan_file_cmds

    target = tmp_path / "somewhere" / "file"

    def failing(*args: object, **kwargs: object) -> object:
        raise OSError(code, os.strerror(code), str(target))

    monkeypatch.setattr(plan_file_cmds, "lint_file", failing)
    plan = tmp_path / "plan.yaml"
    plan.write_text("goal: x\nsteps: []\n")
    rc, _, err = cli(capsys, "lint", str(plan))
    assert rc == 2, err
    assert len(err.strip().splitlines()) == 1 and "internal error" not in err
    assert str(target) in err and needle in err.lower()


def test_other_os_errors_stay_internal_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The boundary maps environment failures only; a bug is still reported as one.
    from forethought.interfaces.cli import plan_file_cmds

    def failing(*args: object, **kwargs: object) -> object:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))

    monkeypatch.setattr(plan_file_cmds, "lint_file", failing)
    plan = tmp_path / "plan.yaml"
    plan.write_text("goal: x\nsteps: []\n")
    rc, _, err = cli(capsys, "lint", str(plan))
    assert rc == 1 and "internal error" in err


# ------------------------------------------------------------------------------ read-only database


def test_the_open_mode_decision(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "runs.db"
    assert store_sqlite.needs_read_only(db) is False  # does not exist: a normal open creates it
    _db_with_a_run(db)
    assert store_sqlite.needs_read_only(db) is False
    real_access = os.access

    def no_write(path: object, mode: int, **kwargs: object) -> bool:
        return False if mode & os.W_OK and Path(str(path)) == db else real_access(path, mode)  # type: ignore[arg-type]

    monkeypatch.setattr(store_sqlite.os, "access", no_write)
    assert store_sqlite.needs_read_only(db) is True

    def no_dir_write(path: object, mode: int, **kwargs: object) -> bool:
        return False if mode & os.W_OK and Path(str(path)) == tmp_path else real_access(path, mode)  # type: ignore[arg-type]

    monkeypatch.setattr(store_sqlite.os, "access", no_dir_write)
    assert store_sqlite.needs_read_only(db) is True


def test_a_read_only_store_really_cannot_write(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    run_id = _db_with_a_run(db)
    before = db.read_bytes()
    with SqliteStore(db, read_only=True) as store:
        assert [r.run_id for r in store.list_runs()] == [run_id]
        assert len(store.events(run_id)) > 3
        with pytest.raises(Exception, match="read-only"):
            store.append_many(full_run("another"))
    assert db.read_bytes() == before


def test_runs_and_show_work_on_a_read_only_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], commands: None
) -> None:
    db = tmp_path / "runs.db"
    run_id = _db_with_a_run(db)
    before = db.read_bytes()
    if os.geteuid() != 0:
        db.chmod(0o444)
        tmp_path.chmod(0o555)
    else:
        # root writes through chmod; report the file as not writable, as access(2) would for
        # a normal user or a read-only mount, and check nothing was written.
        real_access = os.access

        def no_write(path: object, mode: int, **kwargs: object) -> bool:
            if mode & os.W_OK and str(path).startswith(str(tmp_path)):
                return False
            return real_access(path, mode)  # type: ignore[arg-type]

        monkeypatch.setattr(store_sqlite.os, "access", no_write)
    try:
        code, out, err = cli(capsys, "runs", "--db", str(db))
        assert code == 0, err
        assert run_id in out
        code, out, err = cli(capsys, "show", run_id, "--db", str(db))
        assert code == 0, err
        assert run_id in out
    finally:
        tmp_path.chmod(0o755)
        db.chmod(0o644)
    assert db.read_bytes() == before
    assert not Path(str(db) + "-wal").exists() or Path(str(db) + "-wal").stat().st_size == 0


def test_sqlite_failures_are_described_with_what_to_do() -> None:
    cases = {
        "attempt to write a readonly database": ("read-only", "writable"),
        "database or disk is full": ("full", "free some space"),
        "disk I/O error": ("disk failed", "check the disk"),
    }
    for text, needles in cases.items():
        line = store_sqlite.describe_sqlite_error("runs.db", sqlite3.OperationalError(text))
        assert line.startswith("runs.db: ") and all(n in line for n in needles), line
    line = store_sqlite.describe_sqlite_error("runs.db", sqlite3.DatabaseError("file is not a database"))
    assert "damaged" in line and "backup" in line


# ------------------------------------------------------------------------------ found by bench/fuzz


@pytest.mark.parametrize(
    ("fmt", "text", "needle"),
    [
        ("yaml", "".join(" " * i + "-\n" for i in range(1500)), "nested more than 200 levels"),
        ("json", "[" * 300 + "1" + "]" * 300, "nested more than 200 levels"),
        ("yaml", "tool: {? [a]: {}, x: 1}\n? x: &a [1]\n", "keys must be strings"),
    ],
)
def test_fuzz_findings_are_one_line_rejections(fmt: str, text: str, needle: str) -> None:
    # Each raised RecursionError / TypeError ("internal error") before.
    with pytest.raises(PlanFileError) as exc:
        parse_text(text, fmt, f"plan.{fmt}")  # type: ignore[arg-type]
    assert needle in str(exc.value) and "\n" not in str(exc.value)
