"""Many rows in few SQLite statements: what keeps the recorder's writer thread off the GIL.

``executemany`` runs one ``sqlite3_step`` per row, and Python's ``sqlite3`` releases the GIL
around every step. The writer thread commits while the event loop's thread runs Python flat
out, and a thread that gave the GIL away gets it back only when the other is made to yield —
every switch interval (5 ms). One release per row made a commit of 178 events take 0.56 s of
wall time for ~10 ms of work (measured in ``forethought exec`` of a 10,000-step plan: the run
went on with its idempotent steps while nothing became durable, and on 100,000 steps ~194,000
events waited in memory for the disk). Rows bound into one multi-row statement are written by
one step: one release per statement.

Statements hold at most ``CHUNK_ROWS`` rows; a batch is cut into chunks of that size and then
powers of two, so a connection's statement cache sees at most a dozen statement texts per table.
A row the caller marks ``alone`` (an event whose body is a large plan) gets a statement of its
own, as ``executemany`` gave it: SQLite held two more copies of a 31 MB ``plan_proposed`` body
while it ran in a multi-row statement, and the writer thread's allocator kept them resident
(peak RSS of exec of 100,000 steps +60 MB).

A statement that bound a large value must also let go of it (``execute_released``): Python's
``sqlite3`` keeps prepared statements in a per-connection cache, and SQLite keeps a copy of each
value bound to a statement until the statement is bound again (resetting it does not clear its
bindings). The statements that wrote a 100,000-step plan's ``plan_proposed`` body and its
``plan_versions`` text held 31–34 MB each for the connection's life.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, NamedTuple

# 512 rows of 10 parameters stay far below SQLite's default limit of 32,766 parameters.
CHUNK_ROWS = 512
# A text value this long (a large plan: its ``plan_proposed`` body, its canonical text) is
# written by a statement that lets go of it afterwards (``execute_released``).
LARGE_VALUE_CHARS = 64 * 1024


@lru_cache(maxsize=64)
def _statement(head: str, row: str, tail: str, n: int) -> str:
    return head + ",".join([row] * n) + tail


def execute_rows(
    conn: sqlite3.Connection,
    head: str,
    row: str,
    rows: Sequence[Sequence[Any]],
    tail: str = "",
    *,
    alone: Alone | None = None,
) -> None:
    """Execute ``head + row,row,... + tail`` over ``rows``, many rows per statement.

    ``row`` is one row's placeholders (``"(?,?,?)"``); ``head`` and ``tail`` surround the list
    of rows (an ``INSERT ... VALUES`` or a ``WITH p(...) AS (VALUES`` ... ``) INSERT ...``).
    Rows are written in order; a statement must not depend on rows of a later chunk. A row for
    which ``alone.test`` is true is written by ``alone.sql`` on its own (``execute_released``).
    """
    if alone is None:
        _execute_chunks(conn, head, row, rows, tail)
        return
    start = 0
    for i, values in enumerate(rows):
        if alone.test(values):
            _execute_chunks(conn, head, row, rows[start:i], tail)
            execute_released(conn, alone.sql, [values])
            start = i + 1
    _execute_chunks(conn, head, row, rows[start:], tail)


class Alone(NamedTuple):
    """Which rows ``execute_rows`` writes on their own, and the guarded statement that writes one
    (see ``execute_released``)."""

    test: Callable[[Sequence[Any]], bool]
    sql: str


def execute_released(conn: sqlite3.Connection, sql: str, rows: Sequence[Sequence[Any]]) -> None:
    """Execute ``sql`` once per row of ``rows``, then make SQLite drop its copies of their values.

    ``sql`` takes one more parameter than a row holds, last: a guard that makes the statement
    change nothing when it is false (``INSERT ... SELECT ?, ?, ... WHERE ?``). Each row is run
    with a true guard; then the same cached statement is run once more with NULLs and a false
    guard, which binds small values in place of the row's (see the module's docstring) and
    writes nothing.
    """
    if not rows:
        return
    conn.executemany(sql, [(*r, 1) for r in rows])
    conn.execute(sql, (None,) * len(rows[0]) + (0,))


def _execute_chunks(
    conn: sqlite3.Connection, head: str, row: str, rows: Sequence[Sequence[Any]], tail: str
) -> None:
    start, total = 0, len(rows)
    while start < total:
        left = total - start
        n = CHUNK_ROWS if left >= CHUNK_ROWS else 1 << (left.bit_length() - 1)
        chunk = rows[start : start + n]
        conn.execute(_statement(head, row, tail, n), [value for r in chunk for value in r])
        start += n
