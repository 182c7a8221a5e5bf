"""Open the run store a ``--db`` value names: a ``postgresql://`` URL or an SQLite file.

The one place that chooses a backend, so every command (``run``, ``exec``, ``runs``, ``worker``…)
and the ``Agent`` accept the same values: ``--db``, else ``$FORETHOUGHT_DB`` or the config
file's ``db``, else the SQLite file in the user's data directory.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from forethought.runs.store.sqlite import SqliteStore, default_db_path
from forethought.runs.store.sqlite import open_store as open_sqlite
from forethought.runs.store.sqlite import open_store_for_reading as open_sqlite_for_reading

if TYPE_CHECKING:
    from forethought.runs.store.postgres import PostgresStore

# Both are context managers (``with open_store(db) as store``) and satisfy ``Store``.
OpenedStore: TypeAlias = "SqliteStore | PostgresStore"

URL_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(db: object) -> bool:
    return isinstance(db, str) and db.startswith(URL_SCHEMES)


def _target(db: str | Path | None) -> str | Path:
    if db is not None:
        return db
    import os

    env = os.environ.get("FORETHOUGHT_DB")
    return env if env and is_postgres_url(env) else default_db_path()


def open_store(db: str | Path | None = None, **options: Any) -> OpenedStore:
    """The store ``db`` names (a URL or a path); the default when ``None``."""
    target = _target(db)
    if is_postgres_url(target):
        # Only a URL needs the PostgreSQL store (and its queue, migrations): a local run never does.
        from forethought.runs.store.postgres import PostgresStore

        return PostgresStore(str(target), **options)
    return open_sqlite(target, **options)


def open_store_for_reading(db: str | Path | None = None, **options: Any) -> OpenedStore:
    """For commands that only read: an SQLite file we may not write is opened read-only; a
    database server decides permissions itself, so a URL opens as usual."""
    target = _target(db)
    if is_postgres_url(target):
        return open_store(target, **options)
    return open_sqlite_for_reading(target, **options)


def is_shared_store(db: str | Path | None) -> bool:
    """True when ``db`` is a database server (several machines may use it), not a local file."""
    return is_postgres_url(_target(db))


__all__ = [
    "URL_SCHEMES",
    "OpenedStore",
    "is_postgres_url",
    "is_shared_store",
    "open_store",
    "open_store_for_reading",
]
