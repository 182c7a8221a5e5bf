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
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

# 512 rows of 10 parameters stay far below SQLite's default limit of 32,766 parameters.
CHUNK_ROWS = 512


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
    alone: Callable[[Sequence[Any]], bool] | None = None,
) -> None:
    """Execute ``head + row,row,... + tail`` over ``rows``, many rows per statement.

    ``row`` is one row's placeholders (``"(?,?,?)"``); ``head`` and ``tail`` surround the list
    of rows (an ``INSERT ... VALUES`` or a ``WITH p(...) AS (VALUES`` ... ``) INSERT ...``).
    Rows are written in order; a statement must not depend on rows of a later chunk. A row for
    which ``alone`` is true is written by a statement of its own.
    """
    if alone is None:
        _execute_chunks(conn, head, row, rows, tail)
        return
    start = 0
    for i, values in enumerate(rows):
        if alone(values):
            _execute_chunks(conn, head, row, rows[start:i], tail)
            _execute_chunks(conn, head, row, rows[i : i + 1], tail)
            start = i + 1
    _execute_chunks(conn, head, row, rows[start:], tail)


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
