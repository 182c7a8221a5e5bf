"""Plan memory: persistence, lexical similarity, tool filtering, bad rows."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from _planner_support import bench_like_specs
from forethought.errors import StoreError
from forethought.plan.model import Plan
from forethought.planning.memory import PlanMemory, default_memory_path


def plan(goal: str, tool: str = "read_file") -> Plan:
    return Plan.model_validate({"goal": goal, "steps": [{"id": "s1", "tool": tool, "args": {"path": "x"}}]})


def test_similar_ranks_by_goal_overlap(tmp_path: Path) -> None:
    mem = PlanMemory(tmp_path / "m.sqlite", starter=False)
    assert mem.similar("anything") == []  # no file yet: nothing, and nothing created
    mem.remember(plan("count the words in notes.txt"))
    mem.remember(plan("deploy the staging database"))
    mem.remember(plan("count lines of the log file"))
    mem.remember(plan("count the words in notes.txt"))  # duplicate: ignored
    assert len(mem) == 3
    best = mem.similar("how many words in report.txt", k=2)
    assert next(p.goal for p in best) == "count the words in notes.txt"
    assert mem.similar("zebra quantum", k=3) == []  # nothing similar enough
    assert len(PlanMemory(tmp_path / "m.sqlite", starter=False).similar("count words", k=5)) == 2  # persisted


def test_only_plans_with_available_tools(tmp_path: Path) -> None:
    mem = PlanMemory(tmp_path / "m.sqlite", starter=False)
    mem.remember(plan("count words", tool="gone_tool"))
    mem.remember(plan("count words please"))
    found = mem.similar("count words", tools=bench_like_specs(), k=5)
    assert [p.goal for p in found] == ["count words please"]


def test_bad_rows_are_skipped_and_unwritable_path_is_store_error(tmp_path: Path) -> None:
    mem = PlanMemory(tmp_path / "m.sqlite", starter=False)
    mem.remember(plan("count words"))
    with sqlite3.connect(tmp_path / "m.sqlite") as db:
        db.execute(
            "INSERT INTO plans (goal, plan, plan_hash, created_at) VALUES "
            "('count words now', '{\"nope\": 1}', 'h', 0)"
        )
    assert [p.goal for p in mem.similar("count words", k=5)] == ["count words"]
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="cannot open"):
        PlanMemory(blocker / "sub" / "m.sqlite", starter=False).remember(plan("x"))


def test_default_path_is_in_user_data_dir() -> None:
    assert "forethought" in str(default_memory_path())


def test_starter_plans_are_offered_only_with_their_tools(tmp_path: Path) -> None:
    from forethought.tools.builtin import builtin_tools

    specs = {t.spec.name: t.spec for t in builtin_tools(tmp_path)}
    mem = PlanMemory(tmp_path / "m.sqlite")
    best = mem.similar("count the words in README.md", tools=specs, k=1)
    assert [s.tool for s in best[0].steps][:2] == ["read_file", "text_stats"]
    # without text_stats configured, no starter plan that needs it is offered
    fewer = {k: v for k, v in specs.items() if k != "text_stats"}
    assert all(s.tool != "text_stats" for p in mem.similar("count words", tools=fewer, k=5) for s in p.steps)


def test_a_memory_file_from_before_the_index_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite"
    with sqlite3.connect(path) as db:  # the format written before the FTS5 index existed
        db.execute(
            "CREATE TABLE plans (id INTEGER PRIMARY KEY, goal TEXT NOT NULL, plan TEXT "
            "NOT NULL, plan_hash TEXT NOT NULL UNIQUE, created_at REAL NOT NULL)"
        )
        db.execute(
            "INSERT INTO plans (goal, plan, plan_hash, created_at) VALUES (?, ?, 'h', 0)",
            ("count the words in notes.txt", json.dumps(plan("count the words in notes.txt").to_data())),
        )
    mem = PlanMemory(path, starter=False)
    assert [p.goal for p in mem.similar("count words", k=5)] == ["count the words in notes.txt"]
    mem.remember(plan("count words again"))
    assert len(mem) == 2 and len(mem.similar("count words", k=5)) == 2
