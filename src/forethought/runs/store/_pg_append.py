"""The PostgreSQL store's append transaction: sequence checks, fencing, the hash chain and the
summary upserts, in one transaction (``PostgresStore.append_many``; see its module docstring for
the locking). The SQLite store does the same in its own dialect."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from forethought.runs.store import _chain
from forethought.runs.store._materialize import Materializer
from forethought.runs.store._rows import stored_head
from forethought.runs.store.base import Appended, LeaseLost, SequenceError

_RUN_UPSERT = """
INSERT INTO runs (run_id, goal, status, created_at, updated_at, plan_version, plan_hash, last_seq,
                  input_tokens, output_tokens, cost_usd, chain_head, chain_seal)
VALUES (%(run_id)s, %(goal)s, %(status)s, %(created_at)s, %(updated_at)s, %(plan_version)s,
        %(plan_hash)s, %(last_seq)s, %(input_tokens)s, %(output_tokens)s, %(cost_usd)s,
        %(chain_head)s, %(chain_seal)s)
ON CONFLICT (run_id) DO UPDATE SET
    chain_head = excluded.chain_head,
    chain_seal = excluded.chain_seal,
    goal = CASE WHEN %(goal_set)s THEN excluded.goal ELSE runs.goal END,
    status = CASE WHEN %(status_set)s THEN excluded.status ELSE runs.status END,
    updated_at = excluded.updated_at,
    plan_version = CASE WHEN %(version_set)s THEN excluded.plan_version ELSE runs.plan_version END,
    plan_hash = CASE WHEN %(hash_set)s THEN excluded.plan_hash ELSE runs.plan_hash END,
    last_seq = excluded.last_seq,
    input_tokens = runs.input_tokens + excluded.input_tokens,
    output_tokens = runs.output_tokens + excluded.output_tokens,
    cost_usd = runs.cost_usd + excluded.cost_usd
"""

_STEP_UPSERT = """
INSERT INTO steps (run_id, step_id, status, attempts, started_at, ended_at, error)
VALUES (%(run_id)s, %(step_id)s, %(status)s, %(attempts)s, %(started_at)s::double precision,
        %(ended_at)s::double precision, %(error)s)
ON CONFLICT (run_id, step_id) DO UPDATE SET
    status = CASE WHEN %(status_set)s THEN excluded.status ELSE steps.status END,
    attempts = GREATEST(steps.attempts, excluded.attempts),
    started_at = COALESCE(steps.started_at, excluded.started_at),
    ended_at = CASE WHEN %(ended_set)s THEN excluded.ended_at ELSE steps.ended_at END,
    error = CASE WHEN %(error_set)s THEN excluded.error ELSE steps.error END
"""

_PLAN_UPSERT = """
INSERT INTO plan_versions (run_id, version, hash, plan, created_at) VALUES (%s, %s, %s, %s, %s)
ON CONFLICT (run_id, version) DO UPDATE SET hash = excluded.hash, plan = excluded.plan
"""


def append_tx(
    conn: Any,
    events: Sequence[Appended],
    bodies: list[str],
    owner: str | None,
    plan_texts: dict[int, str],
    key: bytes,
) -> None:
    runs = sorted({e.run_id for e in events})  # lock order: no two batches deadlock
    expected: dict[str, int] = {}
    heads: dict[str, bytes] = {}
    for run_id in runs:
        if owner is not None:
            # FOR SHARE: a take-over (an UPDATE of this row) waits until we commit.
            held = conn.execute("SELECT owner FROM leases WHERE run_id = %s FOR SHARE", (run_id,)).fetchone()
            if held is None or held[0] != owner:
                raise LeaseLost(
                    f"run {run_id}: this process no longer holds the run's "
                    f"lease ({'now held by ' + held[0] if held else 'released'}"
                    "); its events were not recorded"
                )
        row = conn.execute(
            "SELECT last_seq, chain_head, chain_seal FROM runs WHERE run_id = %s FOR UPDATE", (run_id,)
        ).fetchone()
        expected[run_id] = -1 if row is None else int(row[0])
        heads[run_id] = stored_head(run_id, row, key)
    last: dict[str, int] = {}
    for e in events:
        want = last.get(e.run_id, expected[e.run_id]) + 1
        if e.seq != want:
            what = "duplicate" if e.seq < want else "gap"
            raise SequenceError(
                f"run {e.run_id}: event seq {e.seq} ({e.kind}) would be a {what}; the next seq must be {want}"
            )
        last[e.run_id] = e.seq
    rows: list[tuple[Any, ...]] = []
    for e, body in zip(events, bodies, strict=True):
        prev = heads[e.run_id]
        rows.append((e.run_id, e.seq, e.kind, e.ts, e.plan_version, body, prev.hex()))
        heads[e.run_id] = _chain.link_text(prev, body)
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO events (run_id, seq, kind, ts, plan_version, body, prev_hash) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s)",
            rows,
        )
        mat = Materializer(plan_texts)
        for e in events:
            mat.apply(e)
        chain = {run: (head.hex(), _chain.seal(key, run, last[run], head)) for run, head in heads.items()}
        run_rows, step_rows, plan_rows = mat.row_params(chain)
        cur.executemany(_RUN_UPSERT, run_rows)
        if step_rows:
            cur.executemany(_STEP_UPSERT, step_rows)
        if plan_rows:
            cur.executemany(_PLAN_UPSERT, plan_rows)
