"""Plan memory: successful plans, offered back to the planner as examples for similar goals.

A worked example for a similar goal is the cheapest way to make a small model plan well. Storage
is one SQLite file in the user data dir (path injectable): the ``plans`` table and an FTS5 index
over their goals, ranked by SQLite's ``bm25()`` — lexical, instant, no embedding model to
download, and the whole memory is searched, not a recent window. The starter plans shipped with
forethought sit in the same index under negative rowids, so one ranking covers both (and gives a
young memory sensible word weights). A plan is parsed and validated only when it ranks high
enough to be offered, and only plans whose tools all exist in the current tool set are offered,
so an example never teaches a tool that is not there.

Memory is keyed by the tool set a plan used: each row keeps the names of the tools its steps,
rollback steps and compensations call (with each tool's definition hash when it was known), and
``similar`` offers it only when every one of them is in the current tool set — the same rule,
through the same ``plan_tools``, as for the starter plans.

What is learned: ``remember(plan)`` keeps a plan the caller vouches for. A run's plan is kept only
when the run achieved its goal (``remember(plan, run=state, events=..., tools=..., forced=...)``):
the run succeeded, was not forced past a review, every check that failed was passed by a later
attempt of its step, and the plan covers its goal by the deterministic coverage check — a plan
that "succeeded" without doing the goal must never become an example.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forethought.errors import StoreError
from forethought.events.kinds import CheckFailed, Event, StepSucceeded
from forethought.events.state import RunState
from forethought.plan.model import Plan
from forethought.tools.base import ToolSpec

_WORD_RE = re.compile(r"[^\W_]+")
_STOP = frozenset(
    {
        "a",
        "an",
        "and",
        "the",
        "of",
        "to",
        "in",
        "on",
        "for",
        "from",
        "with",
        "into",
        "by",
        "is",
        "it",
        "its",
        "this",
        "that",
        "then",
    }
)
MAX_CANDIDATES = 2000  # ranked rows examined per query: bounded work however large memory grows
# An example is shown whole in a planner's prompt: a plan larger than this can never be one, and
# checking and storing it (a 100,000-step plan file run by `exec`) would cost seconds per run.
MAX_REMEMBERED_STEPS = 500


def default_memory_path() -> Path:
    """``$FORETHOUGHT_MEMORY``, else ``plan_memory.sqlite`` in the user data dir."""
    env = os.environ.get("FORETHOUGHT_MEMORY")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_data_dir("forethought")) / "plan_memory.sqlite"


def starter_plans() -> list[Plan]:
    """Worked examples over the built-in tools, shipped with forethought (`data/`).

    A fresh install has an empty memory, and the embedded model plans far better with an example
    to imitate; these are offered like remembered plans (only when their tools are configured).
    """
    return list(_starters()[1])


@functools.cache
def _starters() -> tuple[str, tuple[Plan, ...]]:
    """(digest of the shipped file, its plans); package data never changes while running."""
    from importlib.resources import files

    text = files("forethought").joinpath("data/starter_plans.json").read_text("utf-8")
    plans = tuple(Plan.model_validate(item) for item in json.loads(text))
    return hashlib.sha256(text.encode()).hexdigest(), plans


def _match_query(goal: str) -> str | None:
    """An FTS5 query matching any of the goal's words (each quoted: no query syntax leaks in)."""
    words = dict.fromkeys(w for w in _WORD_RE.findall(goal.lower()) if w not in _STOP)
    return " OR ".join(f'"{w}"' for w in words) or None


# Schema migrations, in order; `PRAGMA user_version` counts those applied. Files written before the
# index existed have version 0 and the `plans` table: the second step indexes their goals.


def _create_plans(db: sqlite3.Connection) -> None:
    db.execute(
        "CREATE TABLE IF NOT EXISTS plans (id INTEGER PRIMARY KEY, goal TEXT NOT NULL, "
        "plan TEXT NOT NULL, plan_hash TEXT NOT NULL UNIQUE, created_at REAL NOT NULL)"
    )


def _index_goals(db: sqlite3.Connection) -> None:
    db.execute("CREATE VIRTUAL TABLE plans_fts USING fts5(goal)")
    db.execute("INSERT INTO plans_fts (rowid, goal) SELECT id, goal FROM plans")
    # Triggers keep the index true to `plans` whoever writes it (older forethought versions too).
    db.execute(
        "CREATE TRIGGER plans_fts_insert AFTER INSERT ON plans BEGIN "
        "INSERT INTO plans_fts (rowid, goal) VALUES (new.id, new.goal); END"
    )
    db.execute(
        "CREATE TRIGGER plans_fts_delete AFTER DELETE ON plans BEGIN "
        "DELETE FROM plans_fts WHERE rowid = old.id; END"
    )
    db.execute(
        "CREATE TRIGGER plans_fts_update AFTER UPDATE ON plans BEGIN "
        "DELETE FROM plans_fts WHERE rowid = old.id; "
        "INSERT INTO plans_fts (rowid, goal) VALUES (new.id, new.goal); END"
    )
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")


def _key_by_tools(db: sqlite3.Connection) -> None:
    """Each plan's tool set (``{name: definition hash or null}``); older rows get their names."""
    db.execute("ALTER TABLE plans ADD COLUMN tools TEXT")
    rows = db.execute("SELECT id, plan FROM plans").fetchall()
    for rowid, text in rows:
        parsed = _parse(text)
        if parsed is not None:
            db.execute("UPDATE plans SET tools = ? WHERE id = ?", (_tools_json(parsed, None), rowid))


_MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_create_plans, _index_goals, _key_by_tools)


def plan_tools(plan: Plan) -> frozenset[str]:
    """Every tool ``plan`` calls: its steps', its rollback steps' and their compensations'."""
    names: set[str] = set()
    for step in (*plan.steps, *plan.rollback):
        if step.tool:
            names.add(step.tool)
        if step.compensate is not None:
            names.add(step.compensate.tool)
    return frozenset(names)


def _tools_json(plan: Plan, specs: Mapping[str, ToolSpec] | None) -> str:
    used = {
        name: (specs[name].definition_hash() if specs is not None and name in specs else None)
        for name in sorted(plan_tools(plan))
    }
    return json.dumps(used, sort_keys=True)


def _offerable(used: Iterable[str], tools: Mapping[str, ToolSpec] | None) -> bool:
    return tools is None or all(name in tools for name in used)


def not_learnable(
    plan: Plan,
    run: RunState,
    *,
    events: Iterable[Event] = (),
    tools: Mapping[str, ToolSpec] | None = None,
    forced: bool = False,
) -> str | None:
    """Why the plan of a finished run must not be remembered (None: it achieved its goal).

    The run succeeded; it was not forced; no ``check_failed`` is outstanding (a step whose
    check failed must have succeeded at a later attempt — read from ``events`` in order, and
    every step of the final plan must have succeeded); and the plan covers the run's goal.
    """
    return _run_not_learnable(plan, run, events=events, forced=forced) or _uncovered(plan, run, tools)


def _run_not_learnable(plan: Plan, run: RunState, *, events: Iterable[Event], forced: bool) -> str | None:
    """``not_learnable`` but for the coverage check: what the run itself says."""
    if forced:
        return "the run was forced"
    if run.status != "succeeded":
        return f"the run did not succeed ({run.status})"
    for step in plan.steps:
        st = run.steps.get(step.id)
        if st is None or st.status != "succeeded":
            return f"step {step.id} did not succeed"
    outstanding: dict[str, bool] = {}
    for e in events:
        if isinstance(e, CheckFailed):
            outstanding[e.step_id] = True
        elif isinstance(e, StepSucceeded):
            outstanding[e.step_id] = False
    # A recorded run keeps no ``step_succeeded`` in memory (the store holds them): a step whose
    # check failed and that succeeded at a later attempt ends succeeded in the run's state.
    failed = [
        sid
        for sid, open_ in outstanding.items()
        if open_ and (sid not in run.steps or run.steps[sid].status != "succeeded")
    ]
    if failed:
        return "a check failed for step(s) " + ", ".join(sorted(failed))
    return None


def _uncovered(plan: Plan, run: RunState, tools: Mapping[str, ToolSpec] | None) -> str | None:
    """Why the plan does not cover the run's goal (None: it does), by the coverage check."""
    from forethought.plan.coverage import check_coverage  # after a run, not with the package

    coverage = check_coverage(plan, run.goal or plan.goal, tools)
    if not coverage.covered:
        return "the plan does not cover its goal: " + "; ".join(f.message for f in coverage.missing)
    return None


@dataclass(frozen=True, slots=True)
class Remembered:
    """One remembered plan, as ``memory list`` shows it."""

    id: int
    goal: str
    tools: tuple[str, ...]
    created_at: float
    plan_hash: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "goal": self.goal,
            "tools": list(self.tools),
            "created_at": self.created_at,
            "plan_hash": self.plan_hash,
        }


def _prepare(db: sqlite3.Connection) -> None:
    """Apply pending migrations and index the current starter plans, in one write transaction."""
    digest, starters = _starters()

    def current() -> bool:
        if db.execute("PRAGMA user_version").fetchone()[0] < len(_MIGRATIONS):
            return False
        row = db.execute("SELECT value FROM meta WHERE key = 'starters'").fetchone()
        return row is not None and row[0] == digest

    if current():
        return
    db.execute("BEGIN IMMEDIATE")  # another process may be preparing the same file
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        for migrate in _MIGRATIONS[version:]:
            migrate(db)
        db.execute(f"PRAGMA user_version = {max(version, len(_MIGRATIONS))}")
        if not current():
            db.execute("DELETE FROM plans_fts WHERE rowid < 0")
            db.executemany(
                "INSERT INTO plans_fts (rowid, goal) VALUES (?, ?)",
                [(-i, p.goal) for i, p in enumerate(starters, 1)],
            )
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('starters', ?)", (digest,))
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


class PlanMemory:
    def __init__(self, path: str | Path | None = None, *, starter: bool = True) -> None:
        self.path = Path(path) if path is not None else default_memory_path()
        self.starter = starter

    @contextmanager
    def _db(self, *, in_memory: bool = False) -> Iterator[sqlite3.Connection]:
        """The memory file (or, to rank starters before anything was remembered, a scratch one)."""
        try:
            if not in_memory:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(":memory:" if in_memory else self.path, timeout=5.0, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(
                f"plan memory {self.path}: cannot open ({exc}); check the directory is writable"
            ) from None
        try:
            _prepare(conn)
            yield conn
        except sqlite3.Error as exc:
            raise StoreError(f"plan memory {self.path}: {exc}") from None
        finally:
            conn.close()

    def remember(
        self,
        plan: Plan,
        *,
        run: RunState | None = None,
        events: Iterable[Event] = (),
        tools: Mapping[str, ToolSpec] | None = None,
        forced: bool = False,
    ) -> bool:
        """Keep a plan that worked; True when it is (now or already) in memory.

        Without ``run`` the caller vouches for the plan (a forced one is still refused). With
        ``run`` (the finished run's state, and its ``events``) the plan is kept only when the
        run achieved its goal: see ``not_learnable``. ``tools`` (the run's tool specs) record
        each tool's definition hash beside its name. Re-remembering is a no-op (a plan already
        kept is not judged again: True). A plan of more than ``MAX_REMEMBERED_STEPS`` steps is
        never kept: no prompt could show it.
        """
        if forced or len(plan.steps) + len(plan.rollback) > MAX_REMEMBERED_STEPS:
            return False
        if run is not None and _run_not_learnable(plan, run, events=events, forced=forced) is not None:
            return False
        with self._db() as db:
            known = "SELECT 1 FROM plans WHERE plan_hash = ?"
            if db.execute(known, (plan.plan_hash(),)).fetchone() is not None:
                # Kept before (its goal judged then): the insert below would change nothing, and
                # the coverage rules cost a repeated ``exec`` of a small plan more than its run.
                return True
            if run is not None and _uncovered(plan, run, tools) is not None:
                return False
            data = json.dumps(plan.to_data(), ensure_ascii=False, sort_keys=True)
            db.execute(
                "INSERT OR IGNORE INTO plans (goal, plan, plan_hash, created_at, tools) "
                "VALUES (?, ?, ?, ?, ?)",
                (plan.goal, data, plan.plan_hash(), time.time(), _tools_json(plan, tools)),
            )
        return True

    def __len__(self) -> int:
        if not self.path.exists():
            return 0
        with self._db() as db:
            return int(db.execute("SELECT count(*) FROM plans").fetchone()[0])

    def entries(self, *, goal_like: str | None = None) -> list[Remembered]:
        """The remembered plans (oldest first); ``goal_like``: those whose goal contains it."""
        if not self.path.exists():
            return []
        sql = "SELECT id, goal, tools, plan, created_at, plan_hash FROM plans"
        params: tuple[Any, ...] = ()
        if goal_like is not None:
            sql += " WHERE instr(lower(goal), lower(?)) > 0"
            params = (goal_like,)
        with self._db() as db:
            rows = db.execute(sql + " ORDER BY id", params).fetchall()
        return [
            Remembered(int(i), goal, tuple(sorted(_used(tools, text) or ())), float(at), h)
            for i, goal, tools, text, at, h in rows
        ]

    def forget(self, ids: Iterable[int]) -> list[Remembered]:
        """Delete the plans with these ids; returns those that existed (in id order)."""
        wanted = set(ids)
        if not wanted or not self.path.exists():
            return []
        found = [e for e in self.entries() if e.id in wanted]
        with self._db() as db:
            db.executemany("DELETE FROM plans WHERE id = ?", [(e.id,) for e in found])
        return found

    def similar(
        self, goal: str, *, tools: Mapping[str, ToolSpec] | None = None, k: int = 2, min_score: float = 0.0
    ) -> list[Plan]:
        """The ``k`` remembered plans whose goals are most similar to ``goal`` (best first).

        A plan qualifies when its goal shares a word with ``goal`` (common words such as "the"
        aside) and its relevance, ``-bm25()``, exceeds ``min_score``. On equal relevance the
        newer plan wins, and the user's own plans win over the starter plans.
        """
        query = _match_query(goal)
        if k <= 0 or query is None:
            return []
        exists = self.path.exists()
        if not exists and not self.starter:
            return []  # nothing remembered, and nothing created just by asking
        lowest = -(1 << 62) if self.starter else 0
        out: list[Plan] = []
        with self._db(in_memory=not exists) as db:
            rows = db.execute(
                "SELECT plans_fts.rowid, bm25(plans_fts), plans.plan, plans.tools FROM plans_fts "
                "LEFT JOIN plans ON plans.id = plans_fts.rowid "
                "WHERE plans_fts MATCH ? AND plans_fts.rowid > ? "
                "ORDER BY bm25(plans_fts), plans_fts.rowid DESC LIMIT ?",
                (query, lowest, MAX_CANDIDATES),
            )
            for rowid, rank, text, used in rows:
                if -rank <= min_score:
                    break
                if rowid >= 0:
                    names = _used(used, None)  # the stored tool set: no parse for a plan not offered
                    if names is not None and not _offerable(names, tools):
                        continue
                plan = _starter(-rowid - 1) if rowid < 0 else _parse(text)
                if plan is None or not _offerable(plan_tools(plan), tools):
                    continue
                out.append(plan)
                if len(out) == k:
                    break
        return out


def _starter(index: int) -> Plan | None:
    starters = _starters()[1]
    # Out of range only if another forethought version re-indexed its own starters meanwhile.
    return starters[index] if index < len(starters) else None


def _used(tools: str | None, plan_text: str | None) -> list[str] | None:
    """The stored tool names of a row; without them (an older writer), the plan's own, if given."""
    try:
        data = json.loads(tools) if tools else None
    except ValueError:
        data = None
    if isinstance(data, dict):
        return [str(k) for k in data]
    if plan_text is None:
        return None
    plan = _parse(plan_text)
    return sorted(plan_tools(plan)) if plan is not None else None


def _parse(text: str | None) -> Plan | None:
    try:
        return Plan.model_validate(json.loads(text or ""))
    except ValueError:
        return None  # written by an incompatible version: skip, never crash planning
