"""Fold a batch of events into row patches for ``runs``, ``steps`` and ``plan_versions``.

This is deliberately not ``state.fold``: it only keeps the handful of columns that listing runs
needs, it merges a whole batch in Python first and then writes one upsert per touched row, which
is what lets ``append_many`` stay well above 10,000 events/s. The full run state is always
rebuilt from the event log, never from these tables.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from forethought.events.kinds import (
    CheckFailed,
    ExecutionStarted,
    ModelCalled,
    PlanProposed,
    PlanRevised,
    RunCreated,
    RunFinished,
    RunPaused,
    RunResumed,
    StepCancelled,
    StepFailed,
    StepNeedsReview,
    StepReady,
    StepSkipped,
    StepStarted,
    StepSucceeded,
)
from forethought.plan.model import canonical_dumps
from forethought.runs.store._sqlite_rows import LARGE_VALUE_CHARS, execute_released, execute_rows
from forethought.runs.store.base import Appended, StepProgress

_UNSET: Any = object()


@dataclass
class _RunPatch:
    run_id: str
    first_ts: float
    last_ts: float
    last_seq: int
    goal: Any = _UNSET
    status: Any = _UNSET
    plan_version: Any = _UNSET
    plan_hash: Any = _UNSET
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


@dataclass(slots=True)
class _StepPatch:
    status: Any = _UNSET
    attempts: int = 0
    started_at: float | None = None
    ended_at: Any = _UNSET
    error: Any = _UNSET


_RUN_UPSERT = """
INSERT INTO runs (run_id, goal, status, created_at, updated_at, plan_version, plan_hash, last_seq,
                  input_tokens, output_tokens, cost_usd, chain_head, chain_seal)
VALUES (:run_id, :goal, :status, :created_at, :updated_at, :plan_version, :plan_hash, :last_seq,
        :input_tokens, :output_tokens, :cost_usd, :chain_head, :chain_seal)
ON CONFLICT (run_id) DO UPDATE SET
    chain_head = excluded.chain_head,
    chain_seal = excluded.chain_seal,
    goal = CASE WHEN :goal_set THEN excluded.goal ELSE runs.goal END,
    status = CASE WHEN :status_set THEN excluded.status ELSE runs.status END,
    updated_at = excluded.updated_at,
    plan_version = CASE WHEN :version_set THEN excluded.plan_version ELSE runs.plan_version END,
    plan_hash = CASE WHEN :hash_set THEN excluded.plan_hash ELSE runs.plan_hash END,
    last_seq = excluded.last_seq,
    input_tokens = runs.input_tokens + excluded.input_tokens,
    output_tokens = runs.output_tokens + excluded.output_tokens,
    cost_usd = runs.cost_usd + excluded.cost_usd
"""

_STEP_UPSERT = """
INSERT INTO steps (run_id, step_id, status, attempts, started_at, ended_at, error)
VALUES (:run_id, :step_id, :status, :attempts, :started_at, :ended_at, :error)
ON CONFLICT (run_id, step_id) DO UPDATE SET
    status = CASE WHEN :status_set THEN excluded.status ELSE steps.status END,
    attempts = max(steps.attempts, excluded.attempts),
    started_at = COALESCE(steps.started_at, excluded.started_at),
    ended_at = CASE WHEN :ended_set THEN excluded.ended_at ELSE steps.ended_at END,
    error = CASE WHEN :error_set THEN excluded.error ELSE steps.error END
"""

# The SQLite store writes the same rule for many rows in one statement (``_sqlite_rows``: one
# ``executemany`` step per row gave the GIL away per row). An upsert's ``DO UPDATE`` sees only
# the table's columns of the row it inserts (``excluded``), not a row's flags, so the rows are
# merged with the stored ones first, by ``_STEP_UPSERT``'s rules, and the merged values inserted
# or written over (``tests/test_store_step_rows.py`` compares the two). Rows are bound from
# tuples: binding a named parameter builds its name and looks it up in a dict, per parameter and
# row (~45 % dearer). A batch holds each step once (``Materializer._steps``). ``row_params``
# keeps the named form for the PostgreSQL store's dialect.
_STEP_MERGE_HEAD = """
WITH p(run_id, step_id, status, attempts, started_at, ended_at, error, status_set, ended_set, error_set)
AS (VALUES """
_STEP_MERGE_TAIL = """)
INSERT INTO steps (run_id, step_id, status, attempts, started_at, ended_at, error)
SELECT p.run_id, p.step_id,
    CASE WHEN s.run_id IS NULL OR p.status_set THEN p.status ELSE s.status END,
    CASE WHEN s.run_id IS NULL THEN p.attempts ELSE max(s.attempts, p.attempts) END,
    CASE WHEN s.run_id IS NULL THEN p.started_at ELSE COALESCE(s.started_at, p.started_at) END,
    CASE WHEN s.run_id IS NULL OR p.ended_set THEN p.ended_at ELSE s.ended_at END,
    CASE WHEN s.run_id IS NULL OR p.error_set THEN p.error ELSE s.error END
FROM p LEFT JOIN steps AS s ON s.run_id = p.run_id AND s.step_id = p.step_id
WHERE true
ON CONFLICT (run_id, step_id) DO UPDATE SET
    status = excluded.status,
    attempts = excluded.attempts,
    started_at = excluded.started_at,
    ended_at = excluded.ended_at,
    error = excluded.error
"""

_PLAN_UPSERT = """
INSERT INTO plan_versions (run_id, version, hash, plan, created_at) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (run_id, version) DO UPDATE SET hash = excluded.hash, plan = excluded.plan
"""
# The same for a large plan's text, guarded so that the statement can let go of it afterwards
# (``_sqlite_rows.execute_released``: it held a 100,000-step plan's 31 MB text for the
# connection's life).
_LARGE_PLAN_UPSERT = """
INSERT INTO plan_versions (run_id, version, hash, plan, created_at) SELECT ?, ?, ?, ?, ? WHERE ?
ON CONFLICT (run_id, version) DO UPDATE SET hash = excluded.hash, plan = excluded.plan
"""

_TERMINAL_WITH_REASON = {
    "step_skipped": "skipped",
    "step_cancelled": "cancelled",
    "step_needs_review": "needs_review",
}


def canonical_plan_text(plan: dict[str, Any], plan_hash: str) -> str:
    """The plan's canonical JSON — the exact text whose sha256 is ``plan_hash`` when it validates.

    Events may carry the short form (defaults omitted); the plan_versions table keeps the
    canonical form so anyone can check ``sha256(plan) == hash`` on the stored text.
    """
    # Events that carry the full form (the agent's and the executor's plan records) are already
    # canonical: one encoding and a hash check, instead of rebuilding the plan model (on a
    # 100,000-step plan ~150 MB and seconds, the peak of the whole run).
    text = canonical_dumps(plan)
    if hashlib.sha256(text.encode("utf-8")).hexdigest() == plan_hash:
        return text
    from pydantic import ValidationError

    from forethought.plan.model import Plan

    try:
        text = Plan.model_validate(plan).canonical_json()
    except ValidationError:
        return canonical_dumps(plan)
    if hashlib.sha256(text.encode("utf-8")).hexdigest() != plan_hash:
        return canonical_dumps(plan)  # recorded by another version: keep what was recorded
    return text


class Materializer:
    """Accumulates one batch's effect on the summary tables, then writes it.

    ``plan_texts`` maps ``id(event)`` of plan events to their canonical text, computed by the
    caller before the write transaction (validating a large plan should not hold the lock).
    """

    def __init__(self, plan_texts: dict[int, str] | None = None) -> None:
        self._plan_texts = plan_texts or {}
        self._runs: dict[str, _RunPatch] = {}
        self._steps: dict[tuple[str, str], _StepPatch] = {}
        self._plans: list[tuple[str, int, str, str, float]] = []

    def _step(self, run_id: str, step_id: str) -> _StepPatch:
        key = (run_id, step_id)
        patch = self._steps.get(key)
        if patch is None:
            patch = self._steps[key] = _StepPatch()
        return patch

    def apply(self, e: Appended) -> None:
        run = self._runs.get(e.run_id)
        if run is None:
            run = self._runs[e.run_id] = _RunPatch(e.run_id, e.ts, e.ts, e.seq)
        run.last_ts, run.last_seq = e.ts, e.seq
        if type(e) is StepProgress:
            self._progress(e)
            return
        # The events of every step first: most of a long run's events are these (a queued
        # step's ``step_ready`` went through eight ``isinstance`` tests to get to its branch).
        if type(e) is StepReady:
            self._step(e.run_id, e.step_id).status = "ready"
        elif type(e) is StepStarted:
            s = self._step(e.run_id, e.step_id)
            s.status, s.attempts = "running", max(s.attempts, e.attempt)
            if s.started_at is None:
                s.started_at = e.ts
            s.ended_at, s.error = None, None
        elif type(e) is StepSucceeded:
            s = self._step(e.run_id, e.step_id)
            s.status, s.attempts, s.ended_at, s.error = ("succeeded", max(s.attempts, e.attempt), e.ts, None)
        elif isinstance(e, RunCreated):
            run.goal, run.status = e.goal, "running"
        elif isinstance(e, (PlanProposed, PlanRevised)):
            version = e.new_version if isinstance(e, PlanRevised) else e.plan_version
            run.plan_version, run.plan_hash = version, e.plan_hash
            text = self._plan_texts.get(id(e)) or canonical_dumps(e.plan)
            self._plans.append((e.run_id, version, e.plan_hash, text, e.ts))
        elif isinstance(e, RunPaused):
            run.status = "paused"
        elif isinstance(e, (RunResumed, ExecutionStarted)):
            run.status = "running"
        elif isinstance(e, RunFinished):
            run.status = e.status
        elif isinstance(e, ModelCalled):
            run.input_tokens += e.input_tokens
            run.output_tokens += e.output_tokens
            run.cost_usd += e.cost_usd
        elif isinstance(e, StepReady):
            self._step(e.run_id, e.step_id).status = "ready"
        elif isinstance(e, StepStarted):
            s = self._step(e.run_id, e.step_id)
            s.status, s.attempts = "running", max(s.attempts, e.attempt)
            if s.started_at is None:
                s.started_at = e.ts
            s.ended_at, s.error = None, None
        elif isinstance(e, StepSucceeded):
            s = self._step(e.run_id, e.step_id)
            s.status, s.attempts, s.ended_at, s.error = ("succeeded", max(s.attempts, e.attempt), e.ts, None)
        elif isinstance(e, StepFailed):
            s = self._step(e.run_id, e.step_id)
            s.attempts, s.error = max(s.attempts, e.attempt), e.error
            # A non-final failure waits for its retry: ready again, not failed.
            s.status = "failed" if e.final else "ready"
            if e.final:
                s.ended_at = e.ts
        elif isinstance(e, (StepSkipped, StepCancelled, StepNeedsReview)):
            s = self._step(e.run_id, e.step_id)
            s.status, s.ended_at, s.error = _TERMINAL_WITH_REASON[e.kind], e.ts, e.reason
        elif isinstance(e, CheckFailed):
            self._step(e.run_id, e.step_id).error = f"check {e.criterion}: {e.detail}"

    def _progress(self, p: StepProgress) -> None:
        """A progress row: what ``apply`` does with the event it stands for."""
        s = self._step(p.run_id, p.step_id)
        if p.kind == "step_ready":
            s.status = "ready"
        elif p.kind == "step_started":
            s.status, s.attempts = "running", max(s.attempts, p.attempt)
            if s.started_at is None:
                s.started_at = p.ts
            s.ended_at, s.error = None, None
        elif p.kind == "step_succeeded":
            s.status, s.attempts, s.ended_at, s.error = ("succeeded", max(s.attempts, p.attempt), p.ts, None)
        else:
            raise ValueError(f"not a progress event: {p.kind}")

    def write(self, conn: sqlite3.Connection, chain: Mapping[str, tuple[str, str]]) -> None:
        """``chain``: each run's new chain head and seal (``_chain``), stored with its summary."""
        runs = [_run_params(p, *chain[p.run_id]) for p in self._runs.values()]
        conn.executemany(_RUN_UPSERT, runs)
        if self._steps:
            rows = [_step_row(k, p) for k, p in self._steps.items()]
            execute_rows(conn, _STEP_MERGE_HEAD, "(?,?,?,?,?,?,?,?,?,?)", rows, _STEP_MERGE_TAIL)
        if self._plans:
            if all(len(p[3]) <= LARGE_VALUE_CHARS for p in self._plans):
                conn.executemany(_PLAN_UPSERT, self._plans)
            else:
                for p in self._plans:  # in order: a later row of the same version wins
                    if len(p[3]) > LARGE_VALUE_CHARS:
                        execute_released(conn, _LARGE_PLAN_UPSERT, [p])
                    else:
                        conn.execute(_PLAN_UPSERT, p)

    def row_params(
        self, chain: Mapping[str, tuple[str, str]]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[tuple[str, int, str, str, float]]]:
        """The batch's upsert parameters (runs, steps, plan versions), for a backend whose SQL
        dialect differs from ``write``'s (the PostgreSQL store)."""
        runs = [_run_params(p, *chain[p.run_id]) for p in self._runs.values()]
        steps = [_step_params(k, p) for k, p in self._steps.items()]
        return runs, steps, list(self._plans)


def _val(value: Any, default: Any) -> Any:
    return default if value is _UNSET else value


def _run_params(p: _RunPatch, chain_head: str, chain_seal: str) -> dict[str, Any]:
    return {
        "run_id": p.run_id,
        "chain_head": chain_head,
        "chain_seal": chain_seal,
        "goal": _val(p.goal, ""),
        "status": _val(p.status, "running"),
        "created_at": p.first_ts,
        "updated_at": p.last_ts,
        "plan_version": _val(p.plan_version, 0),
        "plan_hash": _val(p.plan_hash, ""),
        "last_seq": p.last_seq,
        "input_tokens": p.input_tokens,
        "output_tokens": p.output_tokens,
        "cost_usd": p.cost_usd,
        "goal_set": p.goal is not _UNSET,
        "status_set": p.status is not _UNSET,
        "version_set": p.plan_version is not _UNSET,
        "hash_set": p.plan_hash is not _UNSET,
    }


def _step_row(key: tuple[str, str], p: _StepPatch) -> tuple[Any, ...]:
    """``_step_params`` as a tuple, in the order of ``_STEP_MERGE_HEAD``'s columns."""
    status, ended, error = p.status, p.ended_at, p.error
    return (
        key[0],
        key[1],
        "pending" if status is _UNSET else status,
        p.attempts,
        p.started_at,
        None if ended is _UNSET else ended,
        None if error is _UNSET else error,
        status is not _UNSET,
        ended is not _UNSET,
        error is not _UNSET,
    )


def _step_params(key: tuple[str, str], p: _StepPatch) -> dict[str, Any]:
    return {
        "run_id": key[0],
        "step_id": key[1],
        "status": _val(p.status, "pending"),
        "attempts": p.attempts,
        "started_at": p.started_at,
        "ended_at": _val(p.ended_at, None),
        "error": _val(p.error, None),
        "status_set": p.status is not _UNSET,
        "ended_set": p.ended_at is not _UNSET,
        "error_set": p.error is not _UNSET,
    }
