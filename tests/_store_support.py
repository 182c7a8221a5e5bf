"""Helpers shared by the store/resume/replay/redact tests: event builders and backends.

``BACKENDS`` are the stores the backend-generic tests run on: SQLite (file and memory) and
PostgreSQL, a fresh schema per store, dropped when the test ends (``_pg_schemas`` below). The
PostgreSQL cases skip, with the reason, when no test server is reachable.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from forethought.runs.store.base import Store
from forethought.runs.store.sqlite import SqliteStore
from forethought.testing import postgres as pg
from forethought.testing.runs import Seq, chunks, full_run, small_plan
from forethought.testing.store_conformance import rows

__all__ = ["BACKENDS", "Seq", "chunks", "full_run", "make_store", "postgres_factory", "rows", "small_plan"]


BACKENDS = ["sqlite-file", "sqlite-memory", "postgresql"]

_PG_SKIP: list[str | None] = []  # the server is probed once per session


def postgres_skip_reason() -> str | None:
    if not _PG_SKIP:
        _PG_SKIP.append(pg.unavailable_reason())
    return _PG_SKIP[0]


def require_postgres() -> str:
    """The test server's URL, or skip the test with the reason there is none."""
    reason = postgres_skip_reason()
    if reason is not None:
        pytest.skip(reason)
    return pg.server_url()


# Schemas (and the stores on them) made during the current test; conftest drops them after it.
_pg_cleanups: list[contextlib.ExitStack] = []


def drop_postgres_schemas() -> None:
    if not _pg_cleanups:
        return
    # Tests open stores with open_store(url) and may not close them: close every one still
    # open (each holds pooled connections; the server allows ~100) before dropping the schemas.
    import gc

    from forethought.runs.store.postgres import PostgresStore

    # A store whose opening failed (no server, no driver) has no pool; it is garbage, held only
    # by its exception's traceback: collected first, or closing it here fails by GC timing.
    gc.collect()
    for obj in gc.get_objects():
        if isinstance(obj, PostgresStore):
            obj.close()
    while _pg_cleanups:
        _pg_cleanups.pop().close()


def postgres_url() -> str:
    """A URL on a fresh schema, dropped when the test ends (skips when there is no server)."""
    require_postgres()
    stack = contextlib.ExitStack()
    _pg_cleanups.append(stack)
    return stack.enter_context(pg.fresh_schema())


@contextlib.contextmanager
def postgres_factory() -> Iterator[Callable[..., Store]]:
    """``factory(name="main")``: a store on schema ``name`` (fresh per name), all dropped after."""
    require_postgres()
    from forethought.runs.store.postgres import PostgresStore

    urls: dict[str, str] = {}
    handles: list[PostgresStore] = []
    with contextlib.ExitStack() as stack:

        def factory(name: str = "main") -> Store:
            if name not in urls:
                urls[name] = stack.enter_context(pg.fresh_schema())
            handles.append(PostgresStore(urls[name]))
            return handles[-1]

        try:
            yield factory
        finally:
            for h in handles:
                h.close()


def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A ``--db`` value for the fixture's backend param (``"sqlite"`` or ``"postgresql"``).

    Use as ``db = pytest.fixture(params=["sqlite", "postgresql"])(database)`` in a test module.
    """
    if request.param == "sqlite":
        return str(tmp_path / "runs.db")
    return postgres_url()


def another_database(db: str, tmp_path: Path) -> str:
    """A second, empty database of ``db``'s backend."""
    if "://" in db:
        return postgres_url()
    (tmp_path / "another").mkdir(exist_ok=True)
    return str(tmp_path / "another" / "runs.db")


def force_lease(store: Any, run_id: str, owner: str, *, extend_s: float) -> None:
    """An operator's forcible take-over of a run's lease, behind the store's back."""
    from forethought.runs.store.postgres import PostgresStore

    if isinstance(store, PostgresStore):
        with store._pool.connection() as conn:
            conn.execute(
                "UPDATE leases SET owner = %s, expires_at = expires_at + %s WHERE run_id = %s",
                (owner, extend_s, run_id),
            )
        return
    store._write(
        lambda c: c.execute(
            "UPDATE leases SET owner = ?, expires_at = expires_at + ? WHERE run_id = ?",
            (owner, extend_s, run_id),
        )
    )


def make_store(kind: str, tmp_path: Path) -> Any:
    """A fresh, empty store of ``kind`` (PostgreSQL: its own schema, dropped after the test)."""
    if kind == "sqlite-file":
        tmp_path.mkdir(parents=True, exist_ok=True)
        return SqliteStore(tmp_path / "runs.db")
    if kind == "sqlite-memory":
        return SqliteStore(":memory:")
    if kind == "postgresql":
        from forethought.runs.store.postgres import PostgresStore

        store = PostgresStore(postgres_url())
        _pg_cleanups[-1].callback(store.close)  # closed before its schema is dropped
        return store
    raise ValueError(kind)
