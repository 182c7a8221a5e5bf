"""A sample of bench/outcomes in the suite: goals no tool can do, run through the real CLI as
the bench runs them, answer with the missing capability (no model is asked for those)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench" / "outcomes" / "run.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("outcomes_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("goal", ["delete every file in docs", "erase all memos"])
def test_impossible_bench_goals_name_the_missing_capability(bench: ModuleType, goal: str) -> None:
    (entry,) = [g for g in bench.GOALS if g.goal == goal]
    assert entry.check is None  # the bench lists it as impossible
    row = bench.run_goal(entry, sys.executable)
    assert row["exit"] == 1 and row["status"] == "failed", row
    assert row["names_missing_capability"], row
    assert not row["achieved"]


def test_the_bench_has_forty_goals_of_both_kinds_over_both_tool_sets(bench: ModuleType) -> None:
    goals = bench.GOALS
    assert len(goals) >= 40
    kinds = {(g.tools, g.check is None) for g in goals}
    assert kinds == {("builtin", True), ("builtin", False), ("stockroom", True), ("stockroom", False)}
    summary = bench.summarize(
        [
            {
                "status": "succeeded",
                "expected": "achievable",
                "achieved": True,
                "exit": 0,
                "names_missing_capability": False,
                "seconds": 2.0,
            },
            {
                "status": "succeeded",
                "expected": "achievable",
                "achieved": False,
                "exit": 0,
                "names_missing_capability": False,
                "seconds": 4.0,
            },
            {
                "status": "failed",
                "expected": "impossible",
                "achieved": False,
                "exit": 1,
                "names_missing_capability": True,
                "seconds": 1.0,
            },
        ]
    )
    assert summary["precision_of_succeeded"] == 0.5
    assert summary["missing_capability_share"] == 1.0
    assert summary["median_seconds"] == 2.0
