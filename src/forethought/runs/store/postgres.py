"""The PostgreSQL run store: psycopg 3 with a connection pool, the same contract as SQLite's.

For teams whose runs outgrow one machine: any number of processes on any machines share one
database, each driving the runs it holds the lease of. What differs from ``sqlite`` and why:

- Concurrency is row locks, not one write lock. An append locks its runs' summary rows
  (``FOR UPDATE``, in run-id order so two batches never deadlock), so appends to different runs
  proceed in parallel and appends to one run queue. A fenced append first takes the run's lease
  row ``FOR SHARE``: a take-over (which updates that row) waits for the append to commit, and an
  append that comes after a take-over sees the new owner and fails with ``LeaseLost``.
- Lease times come from the database server's clock, not the client's: workers on several
  machines agree on when a lease expires even when their clocks drift.
- A connection lost mid-append is one ``StoreError`` line and never retried: whether the commit
  happened is unknown, and the recorder stops rather than guess (a later resume reads what is
  there). Deadlocks and serialization failures — which PostgreSQL rolls back — are retried.
- The database is named by a URL (``postgresql://user@host:5432/db``); libpq's ``options``
  parameter picks a schema (``?options=-csearch_path%3Dteam_a``).

psycopg is imported only here, and only when a ``postgresql://`` store is opened
(``pip install 'forethought[postgres]'``).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from forethought._extras import import_extra, missing_extra
from forethought.errors import StoreError
from forethought.events.kinds import Event
from forethought.runs.store._owners import owner_is_dead
from forethought.runs.store._pg_append import append_tx
from forethought.runs.store._pg_migrations import migrate
from forethought.runs.store._rows import append_inputs, parse_bodies
from forethought.runs.store.base import (
    Appended,
    ChainRow,
    Lease,
    LeaseHeld,
    LeaseLost,
    PlanVersionRow,
    RecordChain,
    RunRow,
    SequenceError,
    StepRow,
)
from forethought.runs.store.queue import Claim, QueueEntry, QueueState

T = TypeVar("T")

_RUN_COLUMNS = (
    "run_id, goal, status, created_at, updated_at, plan_version, plan_hash, last_seq, "
    "input_tokens, output_tokens, cost_usd"
)
_NOW = "extract(epoch from clock_timestamp())::double precision"


def display_url(url: str) -> str:
    """The URL without its password, for messages and ``runs`` output."""
    scheme, _, rest = url.partition("://")
    creds, at, hostpart = rest.rpartition("@")
    if not at:
        return url
    user = creds.partition(":")[0]
    return f"{scheme}://{user}@{hostpart}" if user else f"{scheme}://{hostpart}"


def _psycopg() -> tuple[Any, Any]:
    psycopg = import_extra("postgres", "a postgresql:// run database")
    try:
        import psycopg_pool
    except ImportError:
        raise missing_extra(
            "a postgresql:// run database", "postgres", detail=" (psycopg_pool is missing)"
        ) from None
    return psycopg, psycopg_pool


class PostgresStore:
    """A ``Store`` in a PostgreSQL database. Thread-safe: a pool of connections.

    ``pool_size`` bounds this process's connections; a run needs about two at once (its
    recorder and its lease renewal), readers one each.
    """

    def __init__(
        self,
        url: str,
        *,
        record_key: bytes | None = None,
        pool_size: int = 4,
        connect_timeout_s: float = 10.0,
        retry_deadline_s: float = 60.0,
    ) -> None:
        # Set first: ``close`` must work on a store whatever part of opening it got through.
        self._closed = False
        self._close_lock = threading.Lock()
        self.url = url
        self.path = display_url(url)  # what messages name (SqliteStore.path's counterpart)
        self._record_key = record_key
        self._retry_deadline_s = retry_deadline_s
        self._psycopg, pool_mod = _psycopg()
        self._errors = self._psycopg.errors
        try:
            # One direct connection first: its error is the server's own words (a pool would
            # only time out), and it runs the migrations before any pooled connection exists.
            timeout = max(1, int(connect_timeout_s))
            with self._psycopg.connect(url, connect_timeout=timeout) as conn, conn.transaction():
                migrate(conn)
        except self._psycopg.Error as exc:
            raise StoreError(self._describe(exc, "cannot open the run database")) from None
        self._pool = pool_mod.ConnectionPool(
            url,
            min_size=1,
            max_size=max(1, pool_size),
            kwargs={"autocommit": True},
            timeout=connect_timeout_s,
            check=pool_mod.ConnectionPool.check_connection,
            name="forethought-store",
            open=True,
        )

    # -- plumbing --------------------------------------------------------------------------------

    def _describe(self, exc: BaseException, what: str) -> str:
        text = " ".join(str(exc).split()) or type(exc).__name__
        return f"{self.path}: {what} ({text}); check that the server is up and the URL is right"

    def _run(self, fn: Callable[[Any], T], *, write: bool) -> T:
        """Run ``fn(conn)`` on a pooled connection (in a transaction when ``write``).

        Deadlocks and serialization failures were rolled back by the server: retried with
        jittered backoff. A connection failure is one ``StoreError``: a read is retried once on
        a fresh connection; a write is not (its commit may have happened).
        """
        deadline = time.monotonic() + self._retry_deadline_s
        delay = 0.005
        read_retried = False
        pool_errors = _pool_errors()
        while True:
            try:
                with self._pool.connection() as conn:
                    if not write:
                        return fn(conn)
                    with conn.transaction():
                        return fn(conn)
            except (self._errors.DeadlockDetected, self._errors.SerializationFailure) as exc:
                if time.monotonic() >= deadline:
                    raise StoreError(self._describe(exc, "a write kept conflicting")) from None
            except self._errors.UniqueViolation as exc:
                raise SequenceError(
                    f"another process appended the same event concurrently ({exc.diag.constraint_name});"
                    " nothing was recorded"
                ) from None
            except self._psycopg.OperationalError as exc:
                if write or read_retried:
                    raise StoreError(self._describe(exc, "lost the connection to the run database")) from None
                read_retried = True
                continue
            except self._psycopg.Error as exc:
                raise StoreError(self._describe(exc, "the run database refused a statement")) from None
            except pool_errors as exc:
                raise StoreError(self._describe(exc, "no connection to the run database")) from None
            time.sleep(delay * (0.5 + random.random()))  # noqa: S311 - jitter, not crypto
            delay = min(delay * 2, 0.2)

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self._run(lambda conn: conn.execute(sql, params).fetchall(), write=False)

    # -- appends ---------------------------------------------------------------------------------

    def append(self, event: Event, *, owner: str | None = None) -> None:
        self.append_many((event,), owner=owner)

    def append_many(
        self,
        events: Sequence[Appended],
        *,
        owner: str | None = None,
        bodies: Sequence[str] | None = None,
        plan_texts: Mapping[str, str] | None = None,
    ) -> None:
        if not events:
            return
        body_list, texts = append_inputs(events, bodies, plan_texts)
        key = self.record_key()
        self._run(lambda conn: append_tx(conn, events, body_list, owner, texts, key), write=True)

    def record_key(self) -> bytes:
        if self._record_key is None:
            from forethought.oversight.approvals import record_key

            self._record_key = record_key()
        return self._record_key

    # -- reads -----------------------------------------------------------------------------------

    def events(self, run_id: str, *, after_seq: int = -1) -> list[Event]:
        rows = self._read(
            "SELECT body FROM events WHERE run_id = %s AND seq > %s ORDER BY seq", (run_id, after_seq)
        )
        return parse_bodies(run_id, [r[0] for r in rows])

    def iter_events(self, run_id: str, *, after_seq: int = -1, batch: int = 1000) -> Iterator[Event]:
        cursor = after_seq
        while True:
            rows = self._read(
                "SELECT seq, body FROM events WHERE run_id = %s AND seq > %s ORDER BY seq LIMIT %s",
                (run_id, cursor, batch),
            )
            if not rows:
                return
            yield from parse_bodies(run_id, [r[1] for r in rows])
            cursor = int(rows[-1][0])

    def last_seq(self, run_id: str) -> int:
        rows = self._read("SELECT last_seq FROM runs WHERE run_id = %s", (run_id,))
        return int(rows[0][0]) if rows else -1

    def get_run(self, run_id: str) -> RunRow | None:
        rows = self._read(f"SELECT {_RUN_COLUMNS} FROM runs WHERE run_id = %s", (run_id,))  # noqa: S608
        return RunRow(*rows[0]) if rows else None

    def find_runs(self, prefix: str) -> list[str]:
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self._read(
            "SELECT run_id FROM runs WHERE run_id LIKE %s ESCAPE '\\' "
            "ORDER BY created_at DESC, listed DESC LIMIT 20",
            (escaped + "%",),
        )
        return [r[0] for r in rows]

    def list_runs(self, *, limit: int | None = None) -> list[RunRow]:
        rows = self._read(
            f"SELECT {_RUN_COLUMNS} FROM runs "  # noqa: S608 - constant column list
            "ORDER BY created_at DESC, listed DESC LIMIT %s",
            (limit,),
        )
        return [RunRow(*r) for r in rows]

    def steps(self, run_id: str) -> list[StepRow]:
        # COLLATE "C": the same byte order as SQLite, whatever the database's locale.
        rows = self._read(
            "SELECT run_id, step_id, status, attempts, started_at, ended_at, error FROM steps "
            'WHERE run_id = %s ORDER BY started_at IS NULL, started_at, step_id COLLATE "C"',
            (run_id,),
        )
        return [StepRow(*r) for r in rows]

    def plan_versions(self, run_id: str) -> list[PlanVersionRow]:
        rows = self._read(
            "SELECT run_id, version, hash, plan, created_at FROM plan_versions WHERE run_id = %s "
            "ORDER BY version",
            (run_id,),
        )
        return [PlanVersionRow(*r) for r in rows]

    def record_chain(self, run_id: str) -> RecordChain | None:
        def snapshot(conn: Any) -> RecordChain | None:
            # One snapshot for both reads: an append between them would look like tampering.
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            run = conn.execute(
                "SELECT chain_head, chain_seal FROM runs WHERE run_id = %s", (run_id,)
            ).fetchone()
            rows = conn.execute(
                "SELECT seq, kind, body, prev_hash FROM events WHERE run_id = %s ORDER BY seq", (run_id,)
            ).fetchall()
            if run is None and not rows:
                return None
            return RecordChain(
                run_id,
                [ChainRow(int(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows],
                str(run[0]) if run else "",
                str(run[1]) if run else "",
            )

        return self._run(snapshot, write=True)

    # -- leases ----------------------------------------------------------------------------------

    def acquire_lease(self, run_id: str, owner: str, ttl_s: float) -> Lease:
        def tx(conn: Any) -> Lease:
            now = float(conn.execute(f"SELECT {_NOW}").fetchone()[0])
            inserted = conn.execute(
                "INSERT INTO leases (run_id, owner, acquired_at, expires_at) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (run_id) DO NOTHING RETURNING run_id",
                (run_id, owner, now, now + ttl_s),
            ).fetchone()
            if inserted is not None:
                return Lease(run_id, owner, now, now + ttl_s)
            held = conn.execute(
                "SELECT owner, expires_at FROM leases WHERE run_id = %s FOR UPDATE", (run_id,)
            ).fetchone()
            if held is None:  # released between our insert and our read: take it next time round
                raise self._errors.SerializationFailure("lease row vanished")
            holder, expires = str(held[0]), float(held[1])
            if holder != owner and expires > now and not owner_is_dead(holder):
                raise LeaseHeld(run_id, holder, expires)
            conn.execute(
                "UPDATE leases SET owner = %s, acquired_at = %s, expires_at = %s WHERE run_id = %s",
                (owner, now, now + ttl_s, run_id),
            )
            return Lease(run_id, owner, now, now + ttl_s)

        return self._run(tx, write=True)

    def renew_lease(self, run_id: str, owner: str, ttl_s: float) -> Lease:
        def tx(conn: Any) -> Lease:
            row = conn.execute(
                f"UPDATE leases SET expires_at = {_NOW} + %s WHERE run_id = %s AND owner = %s "  # noqa: S608
                "RETURNING acquired_at, expires_at",
                (ttl_s, run_id, owner),
            ).fetchone()
            if row is None:
                raise LeaseLost(f"run {run_id}: our lease was taken over by another process")
            return Lease(run_id, owner, float(row[0]), float(row[1]))

        return self._run(tx, write=True)

    def release_lease(self, run_id: str, owner: str) -> None:
        self._run(
            lambda conn: conn.execute("DELETE FROM leases WHERE run_id = %s AND owner = %s", (run_id, owner)),
            write=True,
        )

    def get_lease(self, run_id: str) -> Lease | None:
        rows = self._read(
            "SELECT run_id, owner, acquired_at, expires_at FROM leases WHERE run_id = %s", (run_id,)
        )
        return Lease(*rows[0]) if rows else None

    # -- the run queue (``store.queue.RunQueue``) --------------------------------------------------

    def enqueue(self, run_id: str) -> None:
        self._run(
            lambda conn: conn.execute(
                f"INSERT INTO run_queue (run_id, state, submitted_at, updated_at) "  # noqa: S608
                f"VALUES (%s, 'queued', {_NOW}, {_NOW}) ON CONFLICT (run_id) DO UPDATE SET "
                f"state = 'queued', note = '', worker = NULL, updated_at = {_NOW}",
                (run_id,),
            ),
            write=True,
        )

    def claim(self, owner: str, ttl_s: float) -> Claim | None:
        host = owner.partition(":")[0]

        def tx(conn: Any) -> Claim | None:
            now = float(conn.execute(f"SELECT {_NOW}").fetchone()[0])
            # Free or expired leases first; live leases held on this host are candidates too
            # (their process may be dead). SKIP LOCKED: racing workers look at different rows.
            rows = conn.execute(
                "SELECT q.run_id, l.owner, l.expires_at FROM run_queue q "
                "LEFT JOIN leases l ON l.run_id = q.run_id "
                "WHERE q.state = 'queued' AND ("
                # never claimed, or its claimant released the lease and went silent for a TTL
                # (a worker settles its entry right after releasing: don't race it)
                "  (l.run_id IS NULL AND (q.worker IS NULL OR q.updated_at <= %s)) "
                "  OR l.expires_at <= %s OR l.owner LIKE %s) "
                "ORDER BY (l.run_id IS NOT NULL AND l.expires_at > %s), q.submitted_at, q.run_id "
                "LIMIT 20 FOR UPDATE OF q SKIP LOCKED",
                (now - ttl_s, now, _like_prefix(host + ":"), now),
            ).fetchall()
            for run_id, holder, expires in rows:
                if holder is not None and float(expires) > now and not owner_is_dead(str(holder)):
                    continue
                if holder is None:
                    taken = conn.execute(
                        "INSERT INTO leases (run_id, owner, acquired_at, expires_at) "
                        "VALUES (%s, %s, %s, %s) ON CONFLICT (run_id) DO NOTHING RETURNING run_id",
                        (run_id, owner, now, now + ttl_s),
                    ).fetchone()
                else:  # only if it is still the lease we judged stale
                    taken = conn.execute(
                        "UPDATE leases SET owner = %s, acquired_at = %s, expires_at = %s "
                        "WHERE run_id = %s AND owner = %s RETURNING run_id",
                        (owner, now, now + ttl_s, run_id, holder),
                    ).fetchone()
                if taken is None:
                    continue
                claims = conn.execute(
                    "UPDATE run_queue SET claims = claims + 1, worker = %s, updated_at = %s "
                    "WHERE run_id = %s RETURNING claims",
                    (owner, now, run_id),
                ).fetchone()[0]
                return Claim(str(run_id), owner, int(claims), now + ttl_s)
            return None

        return self._run(tx, write=True)

    def settle(self, run_id: str, owner: str, state: QueueState, note: str = "") -> bool:
        def tx(conn: Any) -> bool:
            row = conn.execute(
                f"UPDATE run_queue SET state = %s, note = %s, updated_at = {_NOW} "  # noqa: S608
                "WHERE run_id = %s AND worker = %s RETURNING run_id",
                (state, note, run_id, owner),
            ).fetchone()
            return row is not None

        return self._run(tx, write=True)

    def queue_entries(self, run_ids: list[str] | None = None) -> list[QueueEntry]:
        sql = "SELECT run_id, state, submitted_at, claims, worker, note FROM run_queue "
        if run_ids is None:
            rows = self._read(sql + "ORDER BY submitted_at, run_id")
        else:
            rows = self._read(sql + "WHERE run_id = ANY(%s) ORDER BY submitted_at, run_id", (run_ids,))
        return [QueueEntry(str(r[0]), r[1], float(r[2]), int(r[3]), r[4], str(r[5])) for r in rows]

    def close(self) -> None:
        with self._close_lock:
            if not self._closed:
                self._closed = True
                self._pool.close()

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _like_prefix(prefix: str) -> str:
    return prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _pool_errors() -> tuple[type[BaseException], ...]:
    import psycopg_pool

    return (psycopg_pool.PoolTimeout, psycopg_pool.PoolClosed)


__all__ = ["PostgresStore", "display_url"]
