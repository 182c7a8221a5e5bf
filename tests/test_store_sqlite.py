"""SQLite-specific behaviour: pragmas, migrations, paths, locking, damaged files."""

from __future__ import annotations

import sqlite3
import stat
import threading
import time
from pathlib import Path

import pytest

from _store_support import full_run
from forethought.errors import StoreError
from forethought.runs.store import _migrations
from forethought.runs.store.sqlite import SqliteStore, default_db_path, open_store


def test_pragmas_wal_and_full_sync(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "r.db") as s:
        assert s._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert s._conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert s._conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000
    with SqliteStore(tmp_path / "n.db", synchronous="NORMAL") as s:
        assert s._conn.execute("PRAGMA synchronous").fetchone()[0] == 1


@pytest.mark.parametrize("synchronous", ["FULL", "EXTRA", "NORMAL", "OFF"])
def test_lease_rows_skip_their_own_fsync_and_events_never_do(tmp_path: Path, synchronous: str) -> None:
    # Leases are written without an fsync of their own (a FULL or EXTRA store relaxes to NORMAL
    # for that transaction only; WAL keeps it ordered before the next event commit, whose fsync
    # covers it). Whatever happens in a lease transaction — taken, renewed, refused, released —
    # the connection is back as configured, so an event commit is never relaxed.
    from forethought.runs.store.base import LeaseHeld

    level = {"OFF": 0, "NORMAL": 1, "FULL": 2, "EXTRA": 3}[synchronous]
    store = SqliteStore(tmp_path / "runs.db", synchronous=synchronous)  # type: ignore[arg-type]
    other = SqliteStore(tmp_path / "runs.db")
    seen: list[int] = []
    real_begin = store._write

    def spy(fn, **kw):  # type: ignore[no-untyped-def]
        def probe(conn: sqlite3.Connection):  # type: ignore[no-untyped-def]
            seen.append(conn.execute("PRAGMA synchronous").fetchone()[0])
            return fn(conn)

        return real_begin(probe, **kw)

    store._write = spy  # type: ignore[method-assign]
    events = full_run("r", 2)
    store.acquire_lease("r", "me", 30)
    store.append_many(events[:2], owner="me")
    store.renew_lease("r", "me", 30)
    with pytest.raises(LeaseHeld):
        other.acquire_lease("r", "them", 30)  # refused: held by a live owner
    with pytest.raises(LeaseHeld):
        store.acquire_lease("r", "them", 30)  # refused inside this store's relaxed transaction
    store.append_many(events[2:], owner="me")
    store.release_lease("r", "me")
    lease_level = 1 if level >= 2 else level
    assert seen == [lease_level, level, lease_level, lease_level, level, lease_level]
    assert store._conn.execute("PRAGMA synchronous").fetchone()[0] == level
    assert other.get_lease("r") is None and other.events("r") == events
    store.close()
    other.close()


def test_migrations_run_once_in_order(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    SqliteStore(db).close()
    SqliteStore(db).close()  # reopening applies nothing twice
    conn = sqlite3.connect(db)
    names = [r[0] for r in conn.execute("SELECT name FROM _migrations ORDER BY rowid")]
    assert names == [fn.__name__ for fn in _migrations.MIGRATIONS]
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(_migrations.MIGRATIONS)
    conn.close()


def test_newer_database_refused(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    SqliteStore(db).close()
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO _migrations VALUES ('m999_from_the_future', 0)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match=r"newer forethought.*m999_from_the_future"):
        SqliteStore(db)


def test_a_new_migration_is_applied_to_an_old_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "r.db"
    with SqliteStore(db) as s:
        s.append_many(full_run("r", 1))

    def m003_add_note(conn: sqlite3.Connection) -> None:
        conn.execute("ALTER TABLE runs ADD COLUMN note TEXT NOT NULL DEFAULT ''")

    monkeypatch.setattr(_migrations, "MIGRATIONS", [*_migrations.MIGRATIONS, m003_add_note])
    with SqliteStore(db) as s:
        assert s.get_run("r") is not None  # old data intact
        cols = [r[1] for r in s._conn.execute("PRAGMA table_info(runs)")]
        assert "note" in cols


def test_damaged_file_is_one_clear_error(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    db.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(StoreError, match=r"damaged or not a forethought database.*--db"):
        SqliteStore(db)


def test_default_path_env_and_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_db_path() == tmp_path / "xdg" / "forethought" / "runs.db"
    monkeypatch.setenv("FORETHOUGHT_DB", str(tmp_path / "env.db"))
    assert default_db_path() == tmp_path / "env.db"
    with open_store() as s:
        assert s.path == str(tmp_path / "env.db")
    with open_store(tmp_path / "flag.db") as s:  # --db beats the env var
        assert s.path == str(tmp_path / "flag.db")


def test_database_is_private_to_the_user(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "sub" / "r.db") as s:
        s.append_many(full_run("r", 1))
        mode = stat.S_IMODE((tmp_path / "sub" / "r.db").stat().st_mode)
    assert mode == 0o600


def test_writer_waits_for_a_lock_holder_instead_of_failing(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    store = SqliteStore(db, busy_timeout_s=0.05)  # tiny busy timeout: our retry loop must cover
    blocker = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    blocker.execute("BEGIN IMMEDIATE")
    released = threading.Event()

    def release() -> None:
        time.sleep(0.6)
        blocker.execute("COMMIT")
        released.set()

    threading.Thread(target=release).start()
    t0 = time.monotonic()
    store.append_many(full_run("r", 1))
    assert released.is_set()
    assert time.monotonic() - t0 >= 0.5
    assert store.last_seq("r") == 7
    store.close()
    blocker.close()


def test_locked_past_deadline_is_a_store_error_not_a_traceback(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    store = SqliteStore(db, busy_timeout_s=0.01, retry_deadline_s=0.2)
    blocker = sqlite3.connect(db, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StoreError, match="stayed locked") as info:
            store.append_many(full_run("r", 1))
        assert "\n" not in str(info.value)
        assert not isinstance(info.value, sqlite3.Error)
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    store.append_many(full_run("r", 1))  # fine once released
    store.close()


def test_integrity_check_and_find_runs(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "r.db") as s:
        s.append_many(full_run("abc123", 1))
        s.append_many(full_run("abd999", 1))
        s.append_many(full_run("x_%", 1))
        assert s.integrity_check() == "ok"
        assert sorted(s.find_runs("ab")) == ["abc123", "abd999"]
        assert s.find_runs("abc") == ["abc123"]
        assert s.find_runs("x_") == ["x_%"]
        assert s.find_runs("x%") == []  # LIKE wildcards in user input are literal


def test_no_pickle_and_static_sql() -> None:
    # Loading stored data must never execute it: no pickle/eval anywhere in the store.
    src = Path(__file__).parents[1] / "src" / "forethought" / "store"
    text = "\n".join(p.read_text() for p in src.glob("*.py"))
    for banned in ("pickle", "eval(", "exec(", "marshal", "executescript"):
        assert banned not in text


def _schema_text(db: Path) -> str:
    conn = sqlite3.connect(db)
    rows = conn.execute(
        "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name"
    ).fetchall()
    conn.close()
    return "\n".join(f"-- {t} {n}\n{' '.join(sql.split())};" for t, n, sql in rows) + "\n"


def test_schema_matches_the_golden_file(tmp_path: Path) -> None:
    """A schema change must come with a new migration and a new golden file, never silently."""
    SqliteStore(tmp_path / "r.db").close()
    version = len(_migrations.MIGRATIONS)
    golden = Path(__file__).parent / "fixtures" / "store" / f"schema_v{version}.sql"
    assert golden.exists(), f"add {golden.name} for the new schema version"
    assert _schema_text(tmp_path / "r.db") == golden.read_text()


def test_a_version_1_database_upgrades_in_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "old.db"
    with SqliteStore(db) as old:
        old.append_many(full_run("r", 2))
    _downgrade_to_v1(db)
    with SqliteStore(db) as new:
        assert new.events("r") == full_run("r", 2)
        lease = new.acquire_lease("r", "me", ttl_s=5)  # the table m002 added works
        assert lease.owner == "me"
    assert _schema_text(db) == _schema_text_fresh(tmp_path)


def _rebuild_without_rowid(conn: sqlite3.Connection, table: str, columns: str, key: str) -> None:
    """``table`` as versions 1-3 stored it: a WITHOUT ROWID b-tree keyed by ``key``."""
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    conn.execute(f"ALTER TABLE {table} RENAME TO old_{table}")
    conn.execute(sql.rstrip() + " WITHOUT ROWID")
    conn.execute(f"INSERT INTO {table} ({columns}) SELECT {columns} FROM old_{table} ORDER BY {key}")
    conn.execute(f"DROP TABLE old_{table}")


def _downgrade_to_v3(db: Path) -> None:
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("BEGIN")
    events_cols = "run_id, seq, kind, ts, plan_version, body, prev_hash"
    _rebuild_without_rowid(conn, "events", events_cols, "run_id, seq")
    plan_cols = "run_id, version, hash, plan, created_at"
    _rebuild_without_rowid(conn, "plan_versions", plan_cols, "run_id, version")
    steps_cols = "run_id, step_id, status, attempts, started_at, ended_at, error"
    _rebuild_without_rowid(conn, "steps", steps_cols, "run_id, step_id")
    conn.execute("DELETE FROM _migrations WHERE name = 'm004_rowid_tables'")
    conn.execute("PRAGMA user_version = 3")
    conn.execute("COMMIT")
    conn.close()


def _without_rowid(db: Path) -> list[str]:
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
    conn.close()
    return sorted(name for name, sql in rows if "WITHOUT ROWID" in " ".join(sql.split()).upper())


def test_a_version_3_database_moves_events_and_plans_into_rowid_tables(tmp_path: Path) -> None:
    """m004: event bodies, plans and step errors (unbounded texts) leave WITHOUT ROWID b-trees, where SQLite
    reads an overflowing key cell whole for every comparison; nothing recorded changes: the
    same events, plan versions and summaries, and the record chain still verifies."""
    from forethought.events.kinds import StepFailed, StepSucceeded
    from forethought.runs.integrity import check_run

    db = tmp_path / "old.db"
    big = {"text": "x" * 50_000, "é": "ünïcode"}  # a body that spills onto overflow pages
    runs = {run_id: full_run(run_id, 4) for run_id in ("r1", "r2", "r3")}
    with SqliteStore(db) as old:
        for events in runs.values():
            events[-2] = events[-2].model_copy(update={"output": big})
            done = events[6]  # the first step's ``step_succeeded``: failed instead, at length
            assert isinstance(done, StepSucceeded)
            events[6] = StepFailed(
                run_id=done.run_id,
                seq=done.seq,
                ts=done.ts,
                step_id=done.step_id,
                attempt=1,
                error="e" * 9_000,
            )
            old.append_many(events)
        before = {r: (old.events(r), old.plan_versions(r), old.steps(r), old.get_run(r)) for r in runs}
    _downgrade_to_v3(db)
    assert _without_rowid(db) == ["events", "plan_versions", "steps"]
    with SqliteStore(db) as new:
        for run_id, events in runs.items():
            assert new.events(run_id) == events
            now = (new.events(run_id), new.plan_versions(run_id), new.steps(run_id), new.get_run(run_id))
            assert now == before[run_id]
            report = check_run(new, run_id)
            assert report.problem is None and not report.modified, report.problem
        more = full_run("r4", 2)
        new.append_many(more)  # appends and the seq check work on the new tables
        assert new.events("r4") == more
        with pytest.raises(Exception, match="duplicate"):
            new.append_many(more[:1])
    assert _without_rowid(db) == []
    assert _schema_text(db) == _schema_text_fresh(tmp_path)


def _downgrade_to_v1(db: Path) -> None:
    """Turn a current database into what version 1 wrote (the writer only writes the current
    schema): drop what later migrations added and forget that they ran."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("ALTER TABLE events DROP COLUMN prev_hash")
    conn.execute("ALTER TABLE runs DROP COLUMN chain_head")
    conn.execute("ALTER TABLE runs DROP COLUMN chain_seal")
    conn.execute("DROP TABLE leases")
    conn.execute("DELETE FROM _migrations WHERE name != 'm001_initial'")
    conn.execute("PRAGMA user_version = 1")
    conn.close()


def _schema_text_fresh(tmp_path: Path) -> str:
    SqliteStore(tmp_path / "fresh.db").close()
    return _schema_text(tmp_path / "fresh.db")


def test_a_batch_larger_than_one_statement_keeps_order_and_chain(tmp_path: Path) -> None:
    # 1,300 events are written as statements of 512, 512, 256, 16 and 4 rows (``_sqlite_rows``).
    from forethought.events import kinds as E
    from forethought.runs.integrity import check_run

    events: list[E.Event] = [E.RunCreated(run_id="big", seq=0, goal="g")]
    events += [E.StepReady(run_id="big", seq=i, step_id=f"s{i}") for i in range(1, 1300)]
    with SqliteStore(tmp_path / "r.db") as s:
        s.append_many(events[:3])
        s.append_many(events[3:])
        assert [e.seq for e in s.events("big")] == list(range(1300))
        assert s.events("big") == events
        assert check_run(s, "big").problem is None


def test_a_large_body_between_small_ones_keeps_its_place(tmp_path: Path) -> None:
    # A body past 64 KiB (a large plan) is inserted by a statement of its own, between chunks.
    from forethought.events import kinds as E
    from forethought.runs.integrity import check_run

    events: list[E.Event] = [E.RunCreated(run_id="mix", seq=0, goal="g" * 100_000)]
    events += [E.StepReady(run_id="mix", seq=i, step_id=f"s{i}") for i in range(1, 600)]
    events.append(E.StepReady(run_id="mix", seq=600, step_id="s" + "x" * 100))
    with SqliteStore(tmp_path / "r.db") as s:
        s.append_many(events)
        assert s.events("mix") == events
        assert check_run(s, "mix").problem is None


def test_a_batch_with_a_gap_in_its_middle_is_refused_whole(tmp_path: Path) -> None:
    # The writer checks each event's seq in the same pass that builds its row and chain link
    # (``SqliteStore._append_tx``): an event out of sequence after good ones, of either of two
    # runs interleaved in one batch, still leaves nothing of the batch in the database.
    from forethought.events import kinds as E
    from forethought.runs.integrity import check_run
    from forethought.runs.store.base import SequenceError

    with SqliteStore(tmp_path / "r.db") as s:
        s.append_many([E.RunCreated(run_id="a", seq=0, goal="g"), E.RunCreated(run_id="b", seq=0, goal="g")])
        batch: list[E.Event] = []
        for i in range(1, 40):
            batch += [
                E.StepReady(run_id="a", seq=i, step_id=f"s{i}"),
                E.StepReady(run_id="b", seq=i, step_id=f"s{i}"),
            ]
        gapped = [*batch[:51], E.StepReady(run_id="b", seq=99, step_id="late"), *batch[51:]]
        with pytest.raises(SequenceError, match="seq 99"):
            s.append_many(gapped)
        assert s.last_seq("a") == 0 and s.last_seq("b") == 0
        s.append_many(batch)  # the same batch in sequence lands whole, chained per run
        assert [e.seq for e in s.events("a")] == list(range(40)) == [e.seq for e in s.events("b")]
        assert check_run(s, "a").problem is None and check_run(s, "b").problem is None
