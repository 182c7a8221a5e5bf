"""A throwaway schema on a test PostgreSQL server, so each test starts from an empty database.

The server comes from ``$FORETHOUGHT_TEST_POSTGRES`` (a ``postgresql://`` URL), else
``postgresql://postgres@127.0.0.1:5432/test``. ``fresh_schema()`` creates a schema with a random
name, yields a URL whose connections use it (``options=-csearch_path=…``), and drops it with
everything in it afterwards. ``unavailable_reason()`` says why tests cannot use the server
(driver not installed, server unreachable) so they can skip with that reason.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test"
ENV = "FORETHOUGHT_TEST_POSTGRES"


def server_url() -> str:
    return os.environ.get(ENV) or DEFAULT_URL


def unavailable_reason(url: str | None = None) -> str | None:
    """``None`` when the test server accepts connections, else why not (one line)."""
    url = url or server_url()
    try:
        import psycopg
        import psycopg_pool  # noqa: F401 - the store needs it too
    except ImportError as exc:
        return f"psycopg 3 / psycopg_pool not installed ({exc.name}): pip install 'forethought[postgres]'"
    try:
        with psycopg.connect(url, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return f"no PostgreSQL server for tests at {url} ({first}); set ${ENV} to one"
    return None


def with_schema(url: str, schema: str) -> str:
    """``url`` with libpq ``options`` that make ``schema`` the connection's search path."""
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options=-csearch_path%3D{schema}"


@contextlib.contextmanager
def fresh_schema(url: str | None = None) -> Iterator[str]:
    """Create an empty schema, yield a URL that uses it, then drop the schema (CASCADE)."""
    import psycopg

    url = url or server_url()
    schema = "ft_test_" + os.urandom(6).hex()  # [a-z0-9_] only: safe as an identifier
    with psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield with_schema(url, schema)
    finally:
        with psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
            conn.execute("SET lock_timeout = '20s'")
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


__all__ = ["DEFAULT_URL", "ENV", "fresh_schema", "server_url", "unavailable_reason", "with_schema"]
