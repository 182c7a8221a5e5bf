"""SQLite schema migrations: an ordered list of small named functions (the simonw/llm way).

Each migration runs once, inside the caller's ``BEGIN IMMEDIATE`` transaction, and is recorded in
``_migrations`` by name. Appending a function to ``MIGRATIONS`` is the only way to change the
schema; never edit or reorder one that has shipped, because databases in the field already ran it.
A database that knows migrations we do not was written by a newer forethought: we refuse to touch
it rather than guess.

All SQL here is static text: nothing stored in the database is ever turned into SQL.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable

from forethought.errors import StoreError
from forethought.runs.store import _chain

Migration = Callable[[sqlite3.Connection], None]


def m001_initial(conn: sqlite3.Connection) -> None:
    # The append-only log. (run_id, seq) is the primary key, so a duplicate seq is refused by
    # SQLite itself; gaps are refused by the writer against runs.last_seq.
    conn.execute(
        """
        CREATE TABLE events (
            run_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            kind TEXT NOT NULL,
            ts REAL NOT NULL,
            plan_version INTEGER NOT NULL,
            body TEXT NOT NULL,
            PRIMARY KEY (run_id, seq)
        ) WITHOUT ROWID
        """
    )
    # Materialized views of the log, maintained in the same transaction as the events they
    # summarize, so they can never disagree with it after a crash.
    conn.execute(
        """
        CREATE TABLE runs (
            run_id TEXT PRIMARY KEY,
            goal TEXT NOT NULL DEFAULT '',
            status TEXT NOT NULL DEFAULT 'running',
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            plan_version INTEGER NOT NULL DEFAULT 0,
            plan_hash TEXT NOT NULL DEFAULT '',
            last_seq INTEGER NOT NULL DEFAULT -1,
            input_tokens INTEGER NOT NULL DEFAULT 0,
            output_tokens INTEGER NOT NULL DEFAULT 0,
            cost_usd REAL NOT NULL DEFAULT 0
        )
        """
    )
    conn.execute("CREATE INDEX runs_created ON runs (created_at DESC)")
    conn.execute(
        """
        CREATE TABLE steps (
            run_id TEXT NOT NULL,
            step_id TEXT NOT NULL,
            status TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            started_at REAL,
            ended_at REAL,
            error TEXT,
            PRIMARY KEY (run_id, step_id)
        ) WITHOUT ROWID
        """
    )
    conn.execute(
        """
        CREATE TABLE plan_versions (
            run_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            hash TEXT NOT NULL,
            plan TEXT NOT NULL,
            created_at REAL NOT NULL,
            PRIMARY KEY (run_id, version)
        ) WITHOUT ROWID
        """
    )


def m002_leases(conn: sqlite3.Connection) -> None:
    # One row per run being driven by a process; taken and renewed in BEGIN IMMEDIATE.
    conn.execute(
        """
        CREATE TABLE leases (
            run_id TEXT PRIMARY KEY,
            owner TEXT NOT NULL,
            acquired_at REAL NOT NULL,
            expires_at REAL NOT NULL
        )
        """
    )


def m003_event_chain(conn: sqlite3.Connection) -> None:
    # Every event carries the chain hash before it; the run row keeps the head and its seal
    # (see ``_chain``). Runs recorded before this migration are chained and sealed now, with the
    # current key: edits made before today cannot be detected, later ones can.
    conn.execute("ALTER TABLE events ADD COLUMN prev_hash TEXT NOT NULL DEFAULT ''")
    conn.execute("ALTER TABLE runs ADD COLUMN chain_head TEXT NOT NULL DEFAULT ''")
    conn.execute("ALTER TABLE runs ADD COLUMN chain_seal TEXT NOT NULL DEFAULT ''")
    run_ids = [r[0] for r in conn.execute("SELECT DISTINCT run_id FROM events")]
    if not run_ids:
        return
    from forethought.oversight.approvals import record_key

    key = record_key()
    for run_id in run_ids:
        head = _chain.genesis(run_id)
        updates: list[tuple[str, str, int]] = []
        last = -1
        for seq, body in conn.execute(
            "SELECT seq, body FROM events WHERE run_id = ? ORDER BY seq", (run_id,)
        ).fetchall():
            updates.append((head.hex(), run_id, seq))
            head = _chain.link(head, body.encode())
            last = seq
        conn.executemany("UPDATE events SET prev_hash = ? WHERE run_id = ? AND seq = ?", updates)
        conn.execute(
            "UPDATE runs SET chain_head = ?, chain_seal = ? WHERE run_id = ?",
            (head.hex(), _chain.seal(key, run_id, last, head), run_id),
        )


def m004_rowid_tables(conn: sqlite3.Connection) -> None:
    # ``events``, ``plan_versions`` and ``steps`` become ordinary (rowid) tables; their primary
    # keys are kept as unique indexes holding only (run_id, seq) / (run_id, version) /
    # (run_id, step_id).
    #
    # Why: a WITHOUT ROWID table is a b-tree keyed by its whole row, and SQLite compares a key
    # whose cell spills onto overflow pages by reading the entire cell (``accessPayload`` in
    # ``sqlite3BtreeIndexMoveto``). Event bodies and plans have no size bound — a 6,000-step
    # plan's ``plan_proposed`` is ~1 MB, a tool's output can be anything — and such a cell
    # copied into an interior page as a divider is read whole by every insert that descends
    # past it: measured on a database holding two earlier 6,001-step runs, 430 page reads per
    # step and ~10x the writer thread's CPU (``bench/executor/REPORT.md``). In a rowid table
    # the body lives in the table b-tree, found by integer rowid, and the index compares keys.
    # ``steps`` holds a step's last error, whose text has no bound either.
    #
    # Copied in place (one transaction, like every migration: a crash leaves the old table),
    # columns named so a table changed by an earlier migration's ALTER copies the same way.
    conn.execute("ALTER TABLE events RENAME TO events_m003")
    conn.execute(
        """
        CREATE TABLE events (
            run_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            kind TEXT NOT NULL,
            ts REAL NOT NULL,
            plan_version INTEGER NOT NULL,
            body TEXT NOT NULL,
            prev_hash TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (run_id, seq)
        )
        """
    )
    conn.execute(
        "INSERT INTO events (run_id, seq, kind, ts, plan_version, body, prev_hash) "
        "SELECT run_id, seq, kind, ts, plan_version, body, prev_hash FROM events_m003 ORDER BY run_id, seq"
    )
    conn.execute("DROP TABLE events_m003")
    conn.execute("ALTER TABLE plan_versions RENAME TO plan_versions_m003")
    conn.execute(
        """
        CREATE TABLE plan_versions (
            run_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            hash TEXT NOT NULL,
            plan TEXT NOT NULL,
            created_at REAL NOT NULL,
            PRIMARY KEY (run_id, version)
        )
        """
    )
    conn.execute(
        "INSERT INTO plan_versions (run_id, version, hash, plan, created_at) "
        "SELECT run_id, version, hash, plan, created_at FROM plan_versions_m003 ORDER BY run_id, version"
    )
    conn.execute("DROP TABLE plan_versions_m003")
    conn.execute("ALTER TABLE steps RENAME TO steps_m003")
    conn.execute(
        """
        CREATE TABLE steps (
            run_id TEXT NOT NULL,
            step_id TEXT NOT NULL,
            status TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            started_at REAL,
            ended_at REAL,
            error TEXT,
            PRIMARY KEY (run_id, step_id)
        )
        """
    )
    conn.execute(
        "INSERT INTO steps (run_id, step_id, status, attempts, started_at, ended_at, error) "
        "SELECT run_id, step_id, status, attempts, started_at, ended_at, error FROM steps_m003 "
        "ORDER BY run_id, step_id"
    )
    conn.execute("DROP TABLE steps_m003")


MIGRATIONS: list[Migration] = [m001_initial, m002_leases, m003_event_chain, m004_rowid_tables]


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply pending migrations; the caller holds a write transaction. Returns the names applied."""
    conn.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
    done = {row[0] for row in conn.execute("SELECT name FROM _migrations")}
    known = {fn.__name__ for fn in MIGRATIONS}
    unknown = sorted(done - known)
    if unknown:
        raise StoreError(
            f"the run database was written by a newer forethought (unknown migrations: "
            f"{', '.join(unknown)}); upgrade forethought or use another --db"
        )
    applied: list[str] = []
    for fn in MIGRATIONS:
        if fn.__name__ in done:
            continue
        fn(conn)
        conn.execute("INSERT INTO _migrations (name, applied_at) VALUES (?, ?)", (fn.__name__, time.time()))
        applied.append(fn.__name__)
    # user_version mirrors the count so `sqlite3 runs.db 'pragma user_version'` tells a human.
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
    return applied


def schema_version() -> int:
    return len(MIGRATIONS)
