"""A step that does not depend on a slow sibling starts on time (no superstep barrier)."""

from __future__ import annotations

import asyncio
from typing import Any

from _executor_helpers import registry, sleeper
from forethought.execution.executor import Executor
from forethought.plan.model import Plan


async def test_unrelated_step_is_not_held_back_by_slow_sibling() -> None:
    # layer 1: a, b; layer 2: a_slow (400 ms, after a), b_fast (after b); layer 3: c (after b_fast)
    steps: list[dict[str, Any]] = [
        {"id": "a", "tool": "sleep", "args": {"s": 0.01}},
        {"id": "b", "tool": "sleep", "args": {"s": 0.01}},
        {"id": "a_slow", "tool": "sleep", "args": {"s": 0.4}, "depends_on": ["a"]},
        {"id": "b_fast", "tool": "sleep", "args": {"s": 0.01}, "depends_on": ["b"]},
        {"id": "c", "tool": "sleep", "args": {"s": 0.01}, "depends_on": ["b_fast"]},
        {"id": "d", "tool": "sleep", "args": {"s": 0.01}, "depends_on": ["a_slow"]},
    ]
    ex = Executor(Plan.model_validate({"goal": "layers", "steps": steps}), registry(sleeper()))
    await asyncio.wait_for(ex.run(), 10)
    st = ex.state.steps
    assert ex.state.status == "succeeded"
    late = st["c"].started_at - st["b_fast"].ended_at  # type: ignore[operator]
    assert 0 <= late < 0.1, late
    assert st["c"].ended_at < st["a_slow"].ended_at  # type: ignore[operator]
    summary = ex.summary()
    assert summary["critical_path"] == ["a", "a_slow", "d"]
    assert summary["makespan_s"] >= summary["critical_path_s"] > 0.4
