"""What keeps a large plan's run from holding copies of the plan it no longer needs.

- SQLite keeps a copy of each value bound to a cached statement until the statement is bound
  again: the statements that write a large plan's ``plan_proposed`` body and its
  ``plan_versions`` text let go of it (``_sqlite_rows.execute_released``), and still write
  exactly their rows;
- a large text is hashed a slice at a time, to the same digest (the plan hash, the chain);
- the ``forethought`` program's own process fixes glibc's mmap threshold; the CLI run
  in-process leaves the caller's allocator alone.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forethought.events import kinds as E
from forethought.interfaces.cli import _common
from forethought.interfaces.cli import main as cli_main
from forethought.plan import model as plan_model
from forethought.plan.model import Plan, Step, sha256_of_text
from forethought.runs.integrity import check_run
from forethought.runs.store import _chain
from forethought.runs.store._sqlite_rows import LARGE_VALUE_CHARS, execute_released
from forethought.runs.store.sqlite import SqliteStore


@settings(max_examples=60, deadline=None)
@given(
    text=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40),
    prefix=st.binary(max_size=8),
)
def test_a_text_hashed_in_slices_has_the_digest_of_its_whole_encoding(text: str, prefix: bytes) -> None:
    whole = hashlib.sha256(prefix + text.encode("utf-8")).digest()
    assert sha256_of_text(text, prefix) == whole
    with pytest.MonkeyPatch.context() as mp:  # slices of 1-3 code points: every boundary cut
        for size in (1, 2, 3):
            mp.setattr(plan_model, "_HASH_SLICE_CHARS", size)
            assert sha256_of_text(text, prefix) == whole
            assert _chain.link_text(prefix, text) == _chain.link(prefix, text.encode())


def test_a_large_plan_hashes_as_its_canonical_text_does() -> None:
    step = Step(id="s1", tool="t", description="é€😀 " * 400_000)  # ~2.4 M characters, non-ASCII
    plan = Plan(goal="g", steps=(step,))
    assert len(plan.canonical_json()) > plan_model._HASH_SLICE_CHARS
    assert plan.plan_hash() == hashlib.sha256(plan.canonical_json().encode("utf-8")).hexdigest()


def test_a_released_statement_writes_each_row_once_and_nothing_more() -> None:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute("CREATE TABLE t (a INTEGER, b TEXT)")
    sql = "INSERT INTO t (a, b) SELECT ?, ? WHERE ?"
    execute_released(conn, sql, [(1, "x" * 100), (2, "y")])
    execute_released(conn, sql, [])
    assert conn.execute("SELECT a, b FROM t ORDER BY rowid").fetchall() == [(1, "x" * 100), (2, "y")]


def _sqlite_memory_used() -> int | None:
    name = ctypes.util.find_library("sqlite3")
    if name is None:
        return None
    try:
        lib = ctypes.CDLL(name)
    except OSError:
        return None
    lib.sqlite3_memory_used.restype = ctypes.c_int64
    lib.sqlite3_libversion.restype = ctypes.c_char_p
    if sqlite3.sqlite_version != lib.sqlite3_libversion().decode():
        return None  # not the library the sqlite3 module runs on: its counter says nothing here
    return int(lib.sqlite3_memory_used())


def test_a_large_plan_is_stored_whole_and_its_statements_let_go_of_it(tmp_path: Path) -> None:
    step = Step(id="s1", tool="t", description="x" * 6_000_000)
    plan = Plan(goal="g", steps=(step,))
    events: list[E.Event] = [
        E.RunCreated(run_id="r", seq=0, goal="g"),
        E.PlanProposed(run_id="r", seq=1, plan=plan.record_data(), plan_hash=plan.plan_hash()),
        E.StepReady(run_id="r", seq=2, step_id="s1"),
    ]
    assert len(plan.canonical_json()) > LARGE_VALUE_CHARS
    with SqliteStore(tmp_path / "runs.db") as store:
        before = _sqlite_memory_used()
        store.append_many(events, plan_texts={plan.plan_hash(): plan.canonical_json()})
        after = _sqlite_memory_used()
        assert store.events("r") == events
        [version] = store.plan_versions("r")
        assert version.plan_json == plan.canonical_json()
        assert version.hash == plan.plan_hash()
        assert check_run(store, "r").problem is None
    if before is None or after is None:
        pytest.skip("the sqlite3 module's SQLite library cannot be asked for its memory")
    # Held, the body and the text were two copies of 6 MB; the page cache stays within ~2 MB.
    assert after - before < 4_000_000


def test_the_cli_run_in_process_leaves_the_callers_allocator_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    monkeypatch.setattr(_common, "_fix_mmap_threshold", lambda: calls.append("fixed"))
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        "goal: list\nsteps:\n  - id: s1\n    tool: list_dir\n    args: {path: .}\n", encoding="utf-8"
    )
    assert cli_main.run(["exec", str(plan), "--db", str(tmp_path / "runs.db"), "--yes-all", "--json"]) == 0
    assert calls == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_the_forethought_program_maps_large_blocks_after_freeing_a_larger_one(tmp_path: Path) -> None:
    # glibc's sliding threshold: after a 6 MB mapped block is freed, a 3 MB request would come
    # from the heap (no new mapping). The program's own process keeps mapping it.
    probe = (
        "import ctypes, sys\n"
        "class Info(ctypes.Structure):\n"
        "    _fields_ = [(n, ctypes.c_size_t) for n in ('arena', 'ordblks', 'smblks', 'hblks',\n"
        "        'hblkhd', 'usmblks', 'fsmblks', 'uordblks', 'fordblks', 'keepcost')]\n"
        "libc = ctypes.CDLL(None)\n"
        "libc.mallinfo2.restype = Info\n"
        "from forethought.interfaces.cli import _common\n"
        "if sys.argv[1] == 'own':\n"
        "    _common.own_process()\n"
        "big = bytearray(6 << 20); del big\n"
        "before = libc.mallinfo2().hblks\n"
        "mid = bytearray(3 << 20)\n"
        "print(libc.mallinfo2().hblks - before)\n"
    )
    try:
        libc_version = os.confstr("CS_GNU_LIBC_VERSION") or ""
        ctypes.CDLL(None).mallinfo2  # noqa: B018 - glibc 2.33 and later
    except (OSError, ValueError, AttributeError):
        pytest.skip("not glibc, or no mallinfo2")
    if not libc_version.startswith("glibc"):
        pytest.skip("not glibc")

    def new_mappings(mode: str) -> int:
        env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}  # glibc's own defaults
        done = subprocess.run(
            [sys.executable, "-c", probe, mode],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
            env=env,
        )
        assert done.returncode == 0, done.stderr
        return int(done.stdout.strip())

    assert new_mappings("library") == 0  # glibc's own behaviour: the heap serves it
    assert new_mappings("own") == 1


def test_a_batch_of_small_and_large_versions_of_one_plan_keeps_the_last(tmp_path: Path) -> None:
    # The large text goes through its own statement; the rows still land in batch order.
    small = Plan(goal="g", steps=(Step(id="s1", tool="t"),))
    large = Plan(goal="g", steps=(Step(id="s1", tool="t", description="x" * 100_000),))
    events: list[E.Event] = [
        E.RunCreated(run_id="r", seq=0, goal="g"),
        E.PlanProposed(run_id="r", seq=1, plan=large.record_data(), plan_hash=large.plan_hash()),
        E.PlanProposed(run_id="r", seq=2, plan=small.record_data(), plan_hash=small.plan_hash()),
    ]
    with SqliteStore(tmp_path / "runs.db") as store:
        store.append_many(events)
        [version] = store.plan_versions("r")
        assert version.hash == small.plan_hash()
        assert version.plan_json == small.canonical_json()
