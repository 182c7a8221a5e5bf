"""Attempts run against a ``RunContext`` alone, and outcomes are tagged values.

These pin the execution package's split of responsibility: a step's attempts need the shared
run context (events, tools, keys), not an ``Executor``; and neither attempts nor recovery reach
into the executor's private fields.
"""

from __future__ import annotations

import ast
import random
from pathlib import Path
from typing import Any

from _executor_helpers import FnTool, failing
from forethought.events.kinds import Event
from forethought.events.state import RunState
from forethought.execution import attempts as attempts_mod
from forethought.execution import recovery as recovery_mod
from forethought.execution._events import EventLog
from forethought.execution.attempts import attempts, quick_attempt
from forethought.execution.context import RunContext
from forethought.execution.outcomes import SUCCEEDED, Failed
from forethought.plan.model import Step


def _context(tools: dict[str, Any]) -> RunContext:
    def record(*_: Any, **__: Any) -> Event:
        raise AssertionError("no agent step here")

    return RunContext(
        run_id="r1",
        state=RunState(),
        plan=None,
        plan_hash="",
        bus=EventLog(),
        tools=tools,
        backends=None,
        rng=random.Random(0),
        critic=None,
        agent_runner=None,
        replanner=None,
        max_replans=0,
        record=record,
    )


async def test_quick_attempt_needs_only_a_run_context() -> None:
    tool = FnTool("echo")
    run = _context({"echo": tool})
    step = Step.model_validate({"id": "a", "tool": "echo", "args": {"value": 7}})
    assert quick_attempt(run, step, tool) is SUCCEEDED
    history = run.bus.history or []
    assert [e.kind for e in history] == ["step_started", "step_succeeded"]
    assert [e.seq for e in history] == [0, 1] and run.seq == 2  # gap-free from the start
    assert run.state.outputs["a"] == 7
    assert tool.calls[0][1].idempotency_key == "r1:a"


async def test_a_final_failure_is_a_failed_value() -> None:
    tool = failing("boom", retryable=False)
    run = _context({"boom": tool})
    step = Step.model_validate({"id": "b", "tool": "boom"})
    outcome = await attempts(run, step, run.how_to_run(step, tool.spec))
    assert isinstance(outcome, Failed)
    assert outcome.failure_class == "error" and not outcome.retryable
    assert run.state.steps["b"].status == "failed"


def test_attempts_and_recovery_do_not_reach_into_the_executor() -> None:
    for module in (attempts_mod, recovery_mod):
        source = Path(module.__file__ or "").read_text()
        tree = ast.parse(source)
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert "forethought.execution.executor" not in imported, module.__name__
        assert "ex._" not in source, module.__name__
