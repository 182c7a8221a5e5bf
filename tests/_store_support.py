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
