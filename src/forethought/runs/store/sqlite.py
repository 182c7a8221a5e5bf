"""The SQLite run store: stdlib ``sqlite3``, WAL, ``synchronous=FULL``, no ORM.

Why these choices:

- WAL lets CLI readers (``runs``, ``show``) read while an executor writes, and ``synchronous=FULL``
  means a committed event survives power loss, not just a process crash (the crash tests rely on
  "printed after commit ⇒ in the database"). Lease rows alone are committed without an fsync of
  their own: the next event commit's fsync covers them, and a lease lost with the power belonged
  to a process that died with it.
- Every write is ``BEGIN IMMEDIATE`` so the write lock is taken up front: two writers queue on the
  busy timeout instead of deadlocking on a read→write upgrade. On top of SQLite's busy timeout we
  retry with jittered backoff until a generous deadline, so "database is locked" never reaches a
  user as a traceback; if it truly cannot proceed it is one ``StoreError`` line.
- Durable throughput comes from batching (``append_many``): one fsync per transaction, not per
  event. The ``Recorder`` groups concurrent appends into such batches.
- Stored data is JSON validated by the event union on the way out: nothing loaded is executed,
  and every SQL statement is static text with parameters.
"""

from __future__ import annotations

import contextlib
import os
import random
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

import platformdirs

from forethought.errors import StoreError
from forethought.events.kinds import Event
from forethought.runs.store import _chain
from forethought.runs.store._materialize import Materializer
from forethought.runs.store._migrations import migrate
from forethought.runs.store._owners import new_owner_id
from forethought.runs.store._owners import owner_is_dead as _owner_is_dead
from forethought.runs.store._rows import append_inputs
from forethought.runs.store._rows import parse_bodies as _parse_bodies
from forethought.runs.store._rows import stored_head as _stored_head
from forethought.runs.store._sqlite_rows import LARGE_VALUE_CHARS, Alone, execute_rows
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

T = TypeVar("T")
Synchronous = Literal["OFF", "NORMAL", "FULL", "EXTRA"]

_BUSY_CODES = {5, 6, 261, 517}  # SQLITE_BUSY, SQLITE_LOCKED, BUSY_RECOVERY, BUSY_SNAPSHOT
_RUN_COLUMNS = (
    "run_id, goal, status, created_at, updated_at, plan_version, plan_hash, last_seq, "
    "input_tokens, output_tokens, cost_usd"
)


def default_db_path() -> Path:
    """``$FORETHOUGHT_DB`` if set, else ``runs.db`` in the user's data dir (XDG on Linux)."""
    env = os.environ.get("FORETHOUGHT_DB")
    if env:
        return Path(env).expanduser()
    return platformdirs.user_data_path("forethought") / "runs.db"


def open_store(db: str | Path | None = None, **options: Any) -> SqliteStore:
    """Open the store at ``db`` (``--db``), else ``$FORETHOUGHT_DB``, else the default path."""
    return SqliteStore(default_db_path() if db is None else db, **options)


def open_store_for_reading(db: str | Path | None = None, **options: Any) -> SqliteStore:
    """Open for commands that only read (``runs``, ``show``): read-only when we cannot write.

    A database we may write is opened as usual (so its schema is current); one we may not is
    opened with SQLite's ``mode=ro``: no WAL switch, no chmod, no migrations, no leases.
    """
    path = default_db_path() if db is None else db
    return SqliteStore(path, read_only=needs_read_only(path), **options)


def needs_read_only(path: str | Path) -> bool:
    """True when ``path`` exists but this process may not write it or its directory.

    SQLite writes next to the file (``-wal``, ``-shm``), so a read-only directory counts too.
    ``access(2)`` also reports a read-only mount (``EROFS``), even to root.
    """
    if str(path) == ":memory:":
        return False
    p = Path(path).expanduser()
    if not p.exists():
        return False
    return not (os.access(p, os.W_OK) and os.access(p.parent, os.W_OK))


def describe_sqlite_error(path: str, exc: sqlite3.Error) -> str:
    """One line for an SQLite failure the user can act on (disk, permissions, damage)."""
    text = str(exc)
    low = text.lower()
    if "database or disk is full" in low or "disk is full" in low:
        return f"{path}: the disk holding the run database is full ({text}); free some space and retry"
    if "readonly database" in low or "read-only" in low:
        return (
            f"{path}: the run database is read-only ({text}); make it and its directory writable, "
            "or pass another --db"
        )
    if "disk i/o error" in low:
        return (
            f"{path}: the disk failed while reading or writing the run database ({text}); check the "
            "disk and free space, then retry"
        )
    if "unable to open" in low:
        return (
            f"{path}: cannot open the run database ({text}); check the path and its permissions "
            "or pass another --db"
        )
    damaged = "malformed" in low or "not a database" in low
    if damaged or not isinstance(exc, sqlite3.OperationalError):
        return (
            f"{path}: the run database is damaged or not a forethought database ({text}); restore a "
            "backup or pass another --db"
        )
    return f"{path}: {text}"


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code in _BUSY_CODES:
        return True
    text = str(exc).lower()
    return "locked" in text or "busy" in text


# An event body this long (a large plan's ``plan_proposed``) is inserted by a statement of its
# own, which then lets go of its copy of the body (``_sqlite_rows.execute_released``); the rows
# of the events table keep the body sixth.
_ALONE_BODY_CHARS = LARGE_VALUE_CHARS


def _large_body(row: Sequence[Any]) -> bool:
    return len(row[5]) > _ALONE_BODY_CHARS


_LARGE_EVENT = Alone(
    _large_body,
    "INSERT INTO events (run_id, seq, kind, ts, plan_version, body, prev_hash) SELECT ?,?,?,?,?,?,? WHERE ?",
)


def _run_head(
    conn: sqlite3.Connection, run_id: str, owner: str | None, key: bytes, heads: dict[str, bytes]
) -> int:
    """The stored ``last_seq`` of ``run_id`` (-1: a new run), its chain head put in ``heads``;
    ``LeaseLost`` when ``owner`` no longer holds the run's lease (the batch is then refused)."""
    if owner is not None:
        held = conn.execute("SELECT owner FROM leases WHERE run_id = ?", (run_id,)).fetchone()
        if held is None or held[0] != owner:
            raise LeaseLost(
                f"run {run_id}: this process no longer holds the run's "
                f"lease ({'now held by ' + held[0] if held else 'released'}"
                "); its events were not recorded"
            )
    row = conn.execute(
        "SELECT last_seq, chain_head, chain_seal FROM runs WHERE run_id = ?", (run_id,)
    ).fetchone()
    heads[run_id] = _stored_head(run_id, row, key)
    return -1 if row is None else int(row[0])


class SqliteStore:
    """A ``Store`` in one SQLite file (or ``":memory:"``). Thread-safe: one connection + a lock.

    Open one instance per process (or per thread pool); many processes may share the file.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        synchronous: Synchronous = "FULL",
        busy_timeout_s: float = 5.0,
        retry_deadline_s: float = 120.0,
        record_key: bytes | None = None,
        read_only: bool = False,
    ) -> None:
        self.path = str(path)
        # Seals each run's event chain (``_chain``); derived from the approval key on first append.
        self._record_key = record_key
        self._memory = self.path == ":memory:"
        self._sync_sql = ""
        self._lease_sync_sql: str | None = None  # set by ``_configure`` (not when read-only)
        self.read_only = read_only and not self._memory
        if self.read_only:
            self.path = str(Path(self.path).expanduser())
            self._conn = self._connect_read_only(busy_timeout_s)
            self._retry_deadline_s = retry_deadline_s
            self._lock = threading.RLock()
            self._retrying(self._check_schema)
            return
        self._retry_deadline_s = retry_deadline_s
        self._lock = threading.RLock()
        if not self._memory:
            parent = Path(self.path).expanduser().parent
            try:
                parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(
                    f"{self.path}: cannot create the database directory: {exc.strerror}; pass another --db"
                ) from None
            self.path = str(Path(self.path).expanduser())
        try:
            self._conn = sqlite3.connect(
                self.path, timeout=busy_timeout_s, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise StoreError(
                f"{self.path}: cannot open the run database: {exc}; check the path or pass another --db"
            ) from None
        if not self._memory:
            # Runs hold tool outputs and model transcripts: readable by the owner only.
            for suffix in ("", "-wal", "-shm"):
                p = Path(self.path + suffix)
                if p.exists():
                    with contextlib.suppress(OSError):
                        p.chmod(0o600)
        self._retrying(self._configure, synchronous)
        self._write(migrate)

    # -- connection plumbing -------------------------------------------------------------------

    def _connect_read_only(self, busy_timeout_s: float) -> sqlite3.Connection:
        uri = "file:" + urllib.parse.quote(self.path) + "?mode=ro"
        for attempt in (uri, uri + "&immutable=1"):
            try:
                conn = sqlite3.connect(
                    attempt, uri=True, timeout=busy_timeout_s, isolation_level=None, check_same_thread=False
                )
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
                return conn
            except sqlite3.OperationalError as exc:
                # A WAL database in a directory we cannot write has no -shm to share: read it
                # as immutable (nobody can be writing it there without that directory either).
                if "unable to open" not in str(exc).lower() or attempt.endswith("immutable=1"):
                    raise StoreError(describe_sqlite_error(self.path, exc)) from None
            except sqlite3.Error as exc:
                raise StoreError(describe_sqlite_error(self.path, exc)) from None
        raise AssertionError("unreachable")

    def _check_schema(self) -> None:
        tables = {r[0] for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"runs", "events"} <= tables:
            raise StoreError(
                f"{self.path}: read-only and not a forethought run database (no runs table); "
                "pass another --db"
            )

    def _configure(self, synchronous: Synchronous) -> None:
        if not self._memory:
            mode = self._conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StoreError(
                    f"{self.path}: the database cannot use WAL mode ({mode}); put it on a local filesystem"
                )
        sync_sql = {
            "OFF": "PRAGMA synchronous=OFF",
            "NORMAL": "PRAGMA synchronous=NORMAL",
            "FULL": "PRAGMA synchronous=FULL",
            "EXTRA": "PRAGMA synchronous=EXTRA",
        }[synchronous]
        self._conn.execute(sync_sql)
        self._conn.execute("PRAGMA foreign_keys=ON")
        # Lease rows need no fsync of their own (``_write(..., durable=False)``), where the
        # events' commits have one: in WAL mode such a commit is ordered before the next one and
        # on disk with the next fsync'd commit, and a lease that power loss takes back belonged
        # to a process that died with it (it expires, or its owner is seen dead).
        self._lease_sync_sql = (
            "PRAGMA synchronous=NORMAL" if synchronous in ("FULL", "EXTRA") and not self._memory else None
        )
        self._sync_sql = sync_sql

    def _retrying(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn`` under the lock, retrying "database is locked" with backoff to a deadline."""
        deadline = time.monotonic() + self._retry_deadline_s
        delay = 0.002
        while True:
            try:
                with self._lock:
                    return fn(*args)
            except sqlite3.OperationalError as exc:
                if not _is_busy(exc):
                    raise StoreError(describe_sqlite_error(self.path, exc)) from None
                if time.monotonic() >= deadline:
                    raise StoreError(
                        f"{self.path}: the run database stayed locked for "
                        f"{self._retry_deadline_s:g}s; another process is holding a write "
                        "transaction — stop it or retry"
                    ) from None
            except sqlite3.DatabaseError as exc:
                raise StoreError(describe_sqlite_error(self.path, exc)) from None
            time.sleep(delay * (0.5 + random.random()))  # noqa: S311 - jitter, not crypto
            delay = min(delay * 2, 0.1)

    def _write(self, fn: Callable[[sqlite3.Connection], T], *, durable: bool = True) -> T:
        """One ``BEGIN IMMEDIATE`` transaction; rolled back on any error, retried when busy.

        ``durable=False`` (lease rows only): committed without an fsync of its own, see
        ``_configure``; the connection's ``synchronous`` is back as configured afterwards."""
        relaxed = None if durable else self._lease_sync_sql

        def tx() -> T:
            conn = self._conn
            if relaxed is not None:
                conn.execute(relaxed)
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    result = fn(conn)
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
            finally:
                if relaxed is not None:
                    conn.execute(self._sync_sql)
            return result

        return self._retrying(tx)

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self._retrying(lambda: self._conn.execute(sql, params).fetchall())

    # -- appends -------------------------------------------------------------------------------

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
        self._write(lambda conn: self._append_tx(conn, events, body_list, owner, texts, key))

    def record_key(self) -> bytes:
        if self._record_key is None:
            from forethought.oversight.approvals import record_key

            self._record_key = record_key()
        return self._record_key

    @staticmethod
    def _append_tx(
        conn: sqlite3.Connection,
        events: Sequence[Appended],
        bodies: Sequence[str],
        owner: str | None,
        plan_texts: dict[int, str],
        key: bytes,
    ) -> None:
        # One pass over the batch: each event's seq is checked, its row built, the chain
        # extended from its run's stored head (one sha256 per event, no re-reading) and its
        # effect on the summary tables noted. Nothing is written before the pass ends, so an
        # event out of sequence still fails the batch before any of it reaches the database.
        last: dict[str, int] = {}
        heads: dict[str, bytes] = {}
        rows: list[tuple[Any, ...]] = []
        mat = Materializer(plan_texts)
        link = _chain.link_text
        large = False
        for e, body in zip(events, bodies, strict=True):
            run_id, seq = e.run_id, e.seq
            expected = last.get(run_id)
            if expected is None:
                expected = _run_head(conn, run_id, owner, key, heads)
            if seq != expected + 1:
                what = "duplicate" if seq <= expected else "gap"
                raise SequenceError(
                    f"run {run_id}: event seq {seq} ({e.kind}) would be a {what}; the next "
                    f"seq must be {expected + 1}"
                )
            last[run_id] = seq
            prev = heads[run_id]
            rows.append((run_id, seq, e.kind, e.ts, e.plan_version, body, prev.hex()))
            heads[run_id] = link(prev, body)
            large = large or len(body) > _ALONE_BODY_CHARS
            mat.apply(e)
        # Many rows per statement, not one per row (``_sqlite_rows``: the GIL).
        execute_rows(
            conn,
            "INSERT INTO events (run_id, seq, kind, ts, plan_version, body, prev_hash) VALUES ",
            "(?,?,?,?,?,?,?)",
            rows,
            alone=_LARGE_EVENT if large else None,
        )
        # The new head and its seal go into the run's row with its summary: one HMAC per run.
        mat.write(
            conn,
            {run: (head.hex(), _chain.seal(key, run, last[run], head)) for run, head in heads.items()},
        )

    # -- reads ---------------------------------------------------------------------------------

    def events(self, run_id: str, *, after_seq: int = -1) -> list[Event]:
        rows = self._read(
            "SELECT body FROM events WHERE run_id = ? AND seq > ? ORDER BY seq", (run_id, after_seq)
        )
        return _parse_bodies(run_id, [r[0] for r in rows])

    def iter_events(self, run_id: str, *, after_seq: int = -1, batch: int = 1000) -> Iterator[Event]:
        cursor = after_seq
        while True:
            rows = self._read(
                "SELECT seq, body FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                (run_id, cursor, batch),
            )
            if not rows:
                return
            yield from _parse_bodies(run_id, [r[1] for r in rows])
            cursor = int(rows[-1][0])

    def last_seq(self, run_id: str) -> int:
        rows = self._read("SELECT last_seq FROM runs WHERE run_id = ?", (run_id,))
        return int(rows[0][0]) if rows else -1

    def get_run(self, run_id: str) -> RunRow | None:
        rows = self._read(
            f"SELECT {_RUN_COLUMNS} FROM runs WHERE run_id = ?",  # noqa: S608
            (run_id,),
        )
        return RunRow(*rows[0]) if rows else None

    def find_runs(self, prefix: str) -> list[str]:
        """Run ids starting with ``prefix`` (so users can type the first few characters)."""
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self._read(
            "SELECT run_id FROM runs WHERE run_id LIKE ? ESCAPE '\\' ORDER BY created_at DESC LIMIT 20",
            (escaped + "%",),
        )
        return [r[0] for r in rows]

    def list_runs(self, *, limit: int | None = None) -> list[RunRow]:
        rows = self._read(
            f"SELECT {_RUN_COLUMNS} FROM runs "  # noqa: S608 - constant column list
            "ORDER BY created_at DESC, rowid DESC LIMIT ?",
            (-1 if limit is None else limit,),
        )
        return [RunRow(*r) for r in rows]

    def steps(self, run_id: str) -> list[StepRow]:
        rows = self._read(
            "SELECT run_id, step_id, status, attempts, started_at, ended_at, error FROM steps "
            "WHERE run_id = ? ORDER BY started_at IS NULL, started_at, step_id",
            (run_id,),
        )
        return [StepRow(*r) for r in rows]

    def plan_versions(self, run_id: str) -> list[PlanVersionRow]:
        rows = self._read(
            "SELECT run_id, version, hash, plan, created_at FROM plan_versions WHERE run_id = ? "
            "ORDER BY version",
            (run_id,),
        )
        return [PlanVersionRow(*r) for r in rows]

    def record_chain(self, run_id: str) -> RecordChain | None:
        """The run's stored bodies with their chain hashes, and its head and seal (one snapshot)."""

        def snapshot() -> RecordChain | None:
            conn = self._conn
            conn.execute("BEGIN")
            try:
                run = conn.execute(
                    "SELECT chain_head, chain_seal FROM runs WHERE run_id = ?", (run_id,)
                ).fetchone()
                rows = conn.execute(
                    "SELECT seq, kind, body, prev_hash FROM events WHERE run_id = ? ORDER BY seq", (run_id,)
                ).fetchall()
            finally:
                conn.execute("COMMIT")
            if run is None and not rows:
                return None
            return RecordChain(
                run_id,
                [ChainRow(int(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows],
                str(run[0]) if run else "",
                str(run[1]) if run else "",
            )

        return self._retrying(snapshot)

    def integrity_check(self) -> str:
        """``PRAGMA integrity_check`` result: ``"ok"`` for a healthy file."""
        rows = self._read("PRAGMA integrity_check")
        return "; ".join(str(r[0]) for r in rows)

    # -- leases --------------------------------------------------------------------------------

    def acquire_lease(self, run_id: str, owner: str, ttl_s: float) -> Lease:
        def tx(conn: sqlite3.Connection) -> Lease:
            now = time.time()
            row = conn.execute("SELECT owner, expires_at FROM leases WHERE run_id = ?", (run_id,)).fetchone()
            if row is not None and row[0] != owner and row[1] > now and not _owner_is_dead(row[0]):
                raise LeaseHeld(run_id, row[0], row[1])
            conn.execute(
                "INSERT INTO leases (run_id, owner, acquired_at, expires_at) VALUES (?,?,?,?) "
                "ON CONFLICT(run_id) DO UPDATE SET owner = excluded.owner, "
                "acquired_at = excluded.acquired_at, expires_at = excluded.expires_at",
                (run_id, owner, now, now + ttl_s),
            )
            return Lease(run_id, owner, now, now + ttl_s)

        return self._write(tx, durable=False)

    def renew_lease(self, run_id: str, owner: str, ttl_s: float) -> Lease:
        def tx(conn: sqlite3.Connection) -> Lease:
            now = time.time()
            cur = conn.execute(
                "UPDATE leases SET expires_at = ? WHERE run_id = ? AND owner = ?",
                (now + ttl_s, run_id, owner),
            )
            if cur.rowcount != 1:
                raise LeaseLost(f"run {run_id}: our lease was taken over by another process")
            acquired = conn.execute("SELECT acquired_at FROM leases WHERE run_id = ?", (run_id,)).fetchone()[
                0
            ]
            return Lease(run_id, owner, float(acquired), now + ttl_s)

        return self._write(tx, durable=False)

    def release_lease(self, run_id: str, owner: str) -> None:
        self._write(
            lambda conn: conn.execute("DELETE FROM leases WHERE run_id = ? AND owner = ?", (run_id, owner)),
            durable=False,
        )

    def get_lease(self, run_id: str) -> Lease | None:
        rows = self._read(
            "SELECT run_id, owner, acquired_at, expires_at FROM leases WHERE run_id = ?", (run_id,)
        )
        return Lease(*rows[0]) if rows else None

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = [
    "SequenceError",
    "SqliteStore",
    "default_db_path",
    "describe_sqlite_error",
    "needs_read_only",
    "new_owner_id",
    "open_store",
    "open_store_for_reading",
]
