"""Plan memory: successful plans, offered back to the planner as examples for similar goals.

A worked example for a similar goal is the cheapest way to make a small model plan well. Storage
is one SQLite file in the user data dir (path injectable): the ``plans`` table and an FTS5 index
over their goals, ranked by SQLite's ``bm25()`` — lexical, instant, no embedding model to
download, and the whole memory is searched, not a recent window. The starter plans shipped with
forethought sit in the same index under negative rowids, so one ranking covers both (and gives a
young memory sensible word weights). A plan is parsed and validated only when it ranks high
enough to be offered, and only plans whose tools all exist in the current tool set are offered,
so an example never teaches a tool that is not there.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from forethought.errors import StoreError
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


def default_memory_path() -> Path:
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


_MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_create_plans, _index_goals)


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

    def remember(self, plan: Plan) -> None:
        """Keep a plan that worked (call after a successful run). Re-remembering is a no-op."""
        data = json.dumps(plan.to_data(), ensure_ascii=False, sort_keys=True)
        with self._db() as db:
            db.execute(
                "INSERT OR IGNORE INTO plans (goal, plan, plan_hash, created_at) VALUES (?, ?, ?, ?)",
                (plan.goal, data, plan.plan_hash(), time.time()),
            )

    def __len__(self) -> int:
        with self._db() as db:
            return int(db.execute("SELECT count(*) FROM plans").fetchone()[0])

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
                "SELECT plans_fts.rowid, bm25(plans_fts), plans.plan FROM plans_fts "
                "LEFT JOIN plans ON plans.id = plans_fts.rowid "
                "WHERE plans_fts MATCH ? AND plans_fts.rowid > ? "
                "ORDER BY bm25(plans_fts), plans_fts.rowid DESC LIMIT ?",
                (query, lowest, MAX_CANDIDATES),
            )
            for rowid, rank, text in rows:
                if -rank <= min_score:
                    break
                plan = _starter(-rowid - 1) if rowid < 0 else _parse(text)
                if plan is None:
                    continue
                if tools is not None and any(s.tool not in tools for s in plan.steps if s.tool):
                    continue
                out.append(plan)
                if len(out) == k:
                    break
        return out


def _starter(index: int) -> Plan | None:
    starters = _starters()[1]
    # Out of range only if another forethought version re-indexed its own starters meanwhile.
    return starters[index] if index < len(starters) else None


def _parse(text: str | None) -> Plan | None:
    try:
        return Plan.model_validate(json.loads(text or ""))
    except ValueError:
        return None  # written by an incompatible version: skip, never crash planning
