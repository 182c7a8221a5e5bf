"""Plan memory: successful plans, offered back to the planner as examples for similar goals.

A worked example for a similar goal is the cheapest way to make a small model plan well. Storage
is one SQLite table in the user data dir (path injectable); similarity is TF-IDF cosine over
goal tokens — lexical, instant, and no embedding model to download. Only plans whose tools all
exist in the current tool set are offered, so an example never teaches a tool that is not there.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from forethought.errors import StoreError
from forethought.plan.model import Plan
from forethought.tools.base import ToolSpec

_TOKEN_RE = re.compile(r"[a-z0-9]+")
_STOP = frozenset({"a", "an", "and", "the", "of", "to", "in", "on", "for", "from", "with",
                   "into", "by", "is", "it", "its", "this", "that", "then"})
MAX_CANDIDATES = 2000  # newest plans scanned per query: bounded work however large memory grows


def default_memory_path() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("forethought")) / "plan_memory.sqlite"


def tokens(text: str) -> list[str]:
    return [t for t in _TOKEN_RE.findall(text.lower()) if t not in _STOP]


def starter_plans() -> list[Plan]:
    """Worked examples over the built-in tools, shipped with forethought (`data/`).

    A fresh install has an empty memory, and the embedded model plans far better with an example
    to imitate; these are offered like remembered plans (only when their tools are configured).
    """
    from importlib.resources import files

    data = json.loads(files("forethought").joinpath("data/starter_plans.json").read_text("utf-8"))
    return [Plan.model_validate(item) for item in data]


class PlanMemory:
    def __init__(self, path: str | Path | None = None, *, starter: bool = True) -> None:
        self.path = Path(path) if path is not None else default_memory_path()
        self.starter = starter

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=5.0)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"plan memory {self.path}: cannot open ({exc}); check the "
                             "directory is writable") from None
        try:
            conn.execute("CREATE TABLE IF NOT EXISTS plans (id INTEGER PRIMARY KEY, goal TEXT "
                         "NOT NULL, plan TEXT NOT NULL, plan_hash TEXT NOT NULL UNIQUE, "
                         "created_at REAL NOT NULL)")
            with conn:
                yield conn
        except sqlite3.Error as exc:
            raise StoreError(f"plan memory {self.path}: {exc}") from None
        finally:
            conn.close()

    def remember(self, plan: Plan) -> None:
        """Keep a plan that worked (call after a successful run). Re-remembering is a no-op."""
        data = json.dumps(plan.to_data(), ensure_ascii=False, sort_keys=True)
        with self._db() as db:
            db.execute("INSERT OR IGNORE INTO plans (goal, plan, plan_hash, created_at) "
                       "VALUES (?, ?, ?, ?)", (plan.goal, data, plan.plan_hash(), time.time()))

    def __len__(self) -> int:
        with self._db() as db:
            return int(db.execute("SELECT count(*) FROM plans").fetchone()[0])

    def similar(self, goal: str, *, tools: Mapping[str, ToolSpec] | None = None,
                k: int = 2, min_score: float = 0.05) -> list[Plan]:
        """The ``k`` remembered plans whose goals are most similar to ``goal`` (best first)."""
        if k <= 0:
            return []
        rows: list[tuple[str, str]] = []
        if self.path.exists():
            with self._db() as db:
                rows = db.execute("SELECT goal, plan FROM plans ORDER BY id DESC LIMIT ?",
                                  (MAX_CANDIDATES,)).fetchall()
        if self.starter:  # after the user's own plans: theirs win ties
            rows += [(p.goal, json.dumps(p.to_data())) for p in starter_plans()]
        candidates: list[tuple[str, Plan]] = []
        for row_goal, text in rows:
            try:
                plan = Plan.model_validate(json.loads(text))
            except ValueError:
                continue  # written by an incompatible version: skip, never crash planning
            if tools is not None and any(s.tool not in tools for s in plan.steps if s.tool):
                continue
            candidates.append((row_goal, plan))
        scored = _rank(goal, [g for g, _ in candidates])
        best = sorted(range(len(candidates)), key=lambda i: -scored[i])
        return [candidates[i][1] for i in best[:k] if scored[i] >= min_score]


def _rank(query: str, docs: list[str]) -> list[float]:
    """TF-IDF cosine similarity of ``query`` to each doc (smoothed idf over docs + query)."""
    doc_tokens = [Counter(tokens(d)) for d in docs]
    q = Counter(tokens(query))
    n = len(docs) + 1
    df: Counter[str] = Counter()
    for counts in [*doc_tokens, q]:
        df.update(counts.keys())

    def vec(counts: Counter[str]) -> dict[str, float]:
        return {t: c * (math.log((1 + n) / (1 + df[t])) + 1.0) for t, c in counts.items()}

    qv = vec(q)
    qn = math.sqrt(sum(v * v for v in qv.values())) or 1.0
    out = []
    for counts in doc_tokens:
        dv = vec(counts)
        dn = math.sqrt(sum(v * v for v in dv.values())) or 1.0
        out.append(sum(qv[t] * dv.get(t, 0.0) for t in qv) / (qn * dn))
    return out
