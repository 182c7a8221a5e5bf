"""PostgreSQL schema migrations: the same discipline as ``_migrations`` (SQLite), its own list.

An ordered list of small named functions, each run once inside the migrating transaction and
recorded in ``_migrations``; never edit or reorder one that has shipped. The schema starts where
SQLite's reached after its three migrations (events with their chain hash, summaries with the
chain head and seal, leases), so both backends hold the same data.

Several workers may start against a fresh database at once: the migrating transaction first takes
an advisory lock named after the schema, so exactly one of them creates the tables and the others
find them done. Tables are created in the first schema on the connection's ``search_path`` (a
``postgresql://…?options=-csearch_path%3Dname`` URL picks another schema than ``public``).

All SQL here is static text.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from forethought.errors import StoreError

Migration = Callable[[Any], None]  # a psycopg Connection inside a transaction


def m001_initial(conn: Any) -> None:
    # The append-only log; (run_id, seq) refuses duplicates, the writer refuses gaps. Bodies are
    # text, not jsonb: the chain hashes the exact bytes the writer serialized.
    conn.execute(
        """
        CREATE TABLE events (
            run_id TEXT NOT NULL,
            seq BIGINT NOT NULL,
            kind TEXT NOT NULL,
            ts DOUBLE PRECISION NOT NULL,
            plan_version INTEGER NOT NULL,
            body TEXT NOT NULL,
            prev_hash TEXT NOT NULL,
            PRIMARY KEY (run_id, seq)
        )
        """
    )
    # ``listed`` breaks ties between runs created in the same instant (SQLite uses its rowid).
    conn.execute(
        """
        CREATE TABLE runs (
            run_id TEXT PRIMARY KEY,
            goal TEXT NOT NULL DEFAULT '',
            status TEXT NOT NULL DEFAULT 'running',
            created_at DOUBLE PRECISION NOT NULL,
            updated_at DOUBLE PRECISION NOT NULL,
            plan_version INTEGER NOT NULL DEFAULT 0,
            plan_hash TEXT NOT NULL DEFAULT '',
            last_seq BIGINT NOT NULL DEFAULT -1,
            input_tokens BIGINT NOT NULL DEFAULT 0,
            output_tokens BIGINT NOT NULL DEFAULT 0,
            cost_usd DOUBLE PRECISION NOT NULL DEFAULT 0,
            chain_head TEXT NOT NULL DEFAULT '',
            chain_seal TEXT NOT NULL DEFAULT '',
            listed BIGINT GENERATED ALWAYS AS IDENTITY
        )
        """
    )
    conn.execute("CREATE INDEX runs_created ON runs (created_at DESC, listed DESC)")
    conn.execute(
        """
        CREATE TABLE steps (
            run_id TEXT NOT NULL,
            step_id TEXT NOT NULL,
            status TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            started_at DOUBLE PRECISION,
            ended_at DOUBLE PRECISION,
            error TEXT,
            PRIMARY KEY (run_id, step_id)
        )
        """
    )
    conn.execute(
        """
        CREATE TABLE plan_versions (
            run_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            hash TEXT NOT NULL,
            plan TEXT NOT NULL,
            created_at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (run_id, version)
        )
        """
    )
    conn.execute(
        """
        CREATE TABLE leases (
            run_id TEXT PRIMARY KEY,
            owner TEXT NOT NULL,
            acquired_at DOUBLE PRECISION NOT NULL,
            expires_at DOUBLE PRECISION NOT NULL
        )
        """
    )


def m002_run_queue(conn: Any) -> None:
    # Runs submitted for workers (``store.queue``). Who holds a run is its lease; this row says
    # whether a worker should pick it up at all, and keeps the last claimant for ``runs``.
    conn.execute(
        """
        CREATE TABLE run_queue (
            run_id TEXT PRIMARY KEY,
            state TEXT NOT NULL DEFAULT 'queued',
            submitted_at DOUBLE PRECISION NOT NULL,
            updated_at DOUBLE PRECISION NOT NULL,
            claims INTEGER NOT NULL DEFAULT 0,
            worker TEXT,
            note TEXT NOT NULL DEFAULT ''
        )
        """
    )
    conn.execute("CREATE INDEX run_queue_waiting ON run_queue (submitted_at) WHERE state = 'queued'")


MIGRATIONS: list[Migration] = [m001_initial, m002_run_queue]


def migrate(conn: Any) -> list[str]:
    """Apply pending migrations; the caller holds a transaction. Returns the names applied."""
    conn.execute("SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.forethought-migrations'))")
    conn.execute(
        "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)"
    )
    done = {row[0] for row in conn.execute("SELECT name FROM _migrations").fetchall()}
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
        conn.execute("INSERT INTO _migrations (name, applied_at) VALUES (%s, %s)", (fn.__name__, time.time()))
        applied.append(fn.__name__)
    return applied


def schema_version() -> int:
    return len(MIGRATIONS)
