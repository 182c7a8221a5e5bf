"""The SQLite store writes a batch's step summaries many rows per statement, merged with the
stored rows in SQL, bound from tuples; the one-row upsert with named parameters (dicts) stays
for the PostgreSQL store and is the rule. Both must leave the same ``steps`` rows."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from forethought.events import kinds as E
from forethought.runs.store._materialize import _STEP_UPSERT, Materializer, _step_params
from forethought.runs.store.sqlite import SqliteStore

STEP_IDS = ("a", "b", "c")


def _event(kind: str, sid: str, attempt: int, seq: int) -> E.Event:
    base: dict[str, Any] = {"run_id": "r", "seq": seq, "ts": float(seq), "plan_version": 1, "step_id": sid}
    if kind == "started":
        return E.StepStarted(**base, attempt=attempt, idempotency_key=f"r:{sid}")
    if kind == "succeeded":
        return E.StepSucceeded(**base, attempt=attempt, output=seq, duration_s=0.1)
    if kind == "failed":
        return E.StepFailed(**base, attempt=attempt, error=f"e{seq}", final=attempt % 2 == 0)
    if kind == "skipped":
        return E.StepSkipped(**base, reason="upstream failed")
    if kind == "ready":
        return E.StepReady(**base)
    return E.CheckFailed(**base, attempt=attempt, criterion="c", detail="d")


EVENT = st.tuples(
    st.sampled_from(("started", "succeeded", "failed", "skipped", "ready", "check")),
    st.sampled_from(STEP_IDS),
    st.integers(1, 3),
)


def _steps_table(path: Path, batches: list[list[E.Event]], named: bool) -> list[tuple[Any, ...]]:
    SqliteStore(str(path)).close()  # the schema
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        for batch in batches:
            mat = Materializer()
            for e in batch:
                mat.apply(e)
            conn.execute("BEGIN")
            if named:
                _, rows, _ = mat.row_params({"r": ("", "")})
                if rows:
                    conn.executemany(_STEP_UPSERT, rows)
            else:
                mat.write(conn, {"r": ("", "")})
            conn.execute("COMMIT")
        columns = "run_id, step_id, status, attempts, started_at, ended_at, error"
        return conn.execute(f"SELECT {columns} FROM steps ORDER BY step_id").fetchall()
    finally:
        conn.close()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(EVENT, min_size=1, max_size=6), min_size=1, max_size=4))
def test_numbered_step_rows_equal_the_named_ones(tmp_path_factory: Any, spec: list[list[Any]]) -> None:
    seq = 0
    batches: list[list[E.Event]] = []
    for group in spec:
        batch = []
        for kind, sid, attempt in group:
            batch.append(_event(kind, sid, attempt, seq))
            seq += 1
        batches.append(batch)
    tmp = tmp_path_factory.mktemp("rows")
    named = _steps_table(tmp / "named.db", batches, named=True)
    numbered = _steps_table(tmp / "numbered.db", batches, named=False)
    assert numbered == named
    assert {r[1] for r in named} == {sid for batch in spec for _, sid, _ in batch}


def test_the_tuple_follows_the_named_parameters() -> None:
    mat = Materializer()
    mat.apply(_event("failed", "a", 2, 0))
    _, rows, _ = mat.row_params({"r": ("", "")})
    names = ("run_id", "step_id", "status", "attempts", "started_at", "ended_at", "error")
    assert rows[0]["error"] == "e0" and rows[0]["status"] == "failed"
    assert [rows[0][n] for n in names] == ["r", "a", "failed", 2, None, 0.0, "e0"]
    assert _step_params(("r", "a"), next(iter(mat._steps.values())))["ended_set"] is True


def test_batches_larger_than_a_statement_equal_the_named_rows(tmp_path: Path) -> None:
    # 1,300 steps: statements of 512, 512, 256, 16 and 4 rows; each batch touches every step.
    ids = [f"s{i}" for i in range(1300)]
    kinds = ("ready", "started", "succeeded", "failed")
    batches = [
        [_event(kind, sid, 1 + n % 2, n * 1300 + i) for i, sid in enumerate(ids)]
        for n, kind in enumerate(kinds)
    ]
    named = _steps_table(tmp_path / "named.db", batches, named=True)
    merged = _steps_table(tmp_path / "merged.db", batches, named=False)
    assert merged == named and len(named) == 1300
