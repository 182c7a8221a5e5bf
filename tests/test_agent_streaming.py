"""Planning and executing at once: read-only steps start while the plan is still streaming;
side effects wait for the complete plan and its approval."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from forethought import tool
from forethought.agent import Agent
from forethought.events import kinds as E
from forethought.models.base import ModelRequest, ModelResponse, StreamChunk, Usage
from forethought.oversight.supervisor import Budgets
from forethought.runs.store.sqlite import SqliteStore

STARTS: dict[str, float] = {}


@tool
async def fetch(name: str) -> dict[str, str]:
    """Fetch a value."""
    STARTS[name] = time.monotonic()
    return {"value": name.upper()}


@tool(effect="mutating")
def save(text: str) -> str:
    """Save a text."""
    STARTS["save"] = time.monotonic()
    return f"saved {text}"


class SlowStreamModel:
    """Streams a fixed answer at a fixed pace, like a model decoding tokens."""

    name = "slow-stream"

    def __init__(self, text: str, delay_s: float = 0.05, chunk: int = 8) -> None:
        self.text, self.delay_s, self.chunk = text, delay_s, chunk
        self.finished_at: float | None = None

    async def complete(self, request: ModelRequest) -> ModelResponse:
        raise AssertionError("the streaming path must stream")

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamChunk]:
        for i in range(0, len(self.text), self.chunk):
            await asyncio.sleep(self.delay_s)
            yield StreamChunk(delta=self.text[i : i + self.chunk])
        self.finished_at = time.monotonic()
        yield StreamChunk(done=True, usage=Usage(input_tokens=10, output_tokens=20), finish_reason="stop")


PLAN = {
    "steps": [
        {"id": "s1", "tool": "fetch", "args": {"name": "a"}},
        {"id": "s2", "tool": "fetch", "args": {"name": "b"}},
        {"id": "s3", "tool": "fetch", "args": {"name": "c"}},
        {"id": "s4", "tool": "save", "args": {"text": "${s1.value}${s2.value}${s3.value}"}},
    ]
}


@pytest.fixture(autouse=True)
def _clear() -> None:
    STARTS.clear()


@pytest.fixture
def store(tmp_path: Path) -> Any:
    s = SqliteStore(tmp_path / "runs.db")
    yield s
    s.close()


async def test_read_only_steps_start_before_the_plan_is_complete(store: SqliteStore) -> None:
    model = SlowStreamModel(json.dumps(PLAN))
    agent = Agent([fetch, save], model=model, store=store)
    result = await agent.run("fetch a, b and c and save them", approve="all", stream=True)
    assert result.status == "succeeded", result.state.reason
    assert model.finished_at is not None
    assert STARTS["a"] < model.finished_at  # started while the planner was still writing
    assert STARTS["save"] >= model.finished_at  # the side effect waited for the whole plan
    assert result.state.outputs["s4"] == "saved ABC"
    kinds = [e.kind for e in store.events(result.run_id)]
    assert kinds.index("step_started") < kinds.index("plan_proposed")
    approved = kinds.index("plan_approved")
    save_start = next(
        i for i, e in enumerate(store.events(result.run_id)) if e.kind == "step_started" and e.step_id == "s4"
    )
    assert kinds.index("plan_proposed") < approved < save_start
    assert "model_called" in kinds


async def test_yes_runs_read_only_work_and_waits_for_side_effects(store: SqliteStore) -> None:
    agent = Agent([fetch, save], model=SlowStreamModel(json.dumps(PLAN), delay_s=0.01), store=store)
    result = await agent.run("fetch a, b and c and save them", approve="read_only", stream=True)
    assert result.status == "awaiting_approval"
    assert set(STARTS) == {"a", "b", "c"}
    assert result.state.steps["s4"].status in ("pending", "ready")


async def test_an_invalid_streamed_plan_is_recorded_invalid_and_does_not_succeed(store: SqliteStore) -> None:
    bad = {
        "steps": [
            {"id": "s1", "tool": "fetch", "args": {"name": "a"}},
            {"id": "s2", "tool": "nope", "args": {}},
        ]
    }
    model = SlowStreamModel(json.dumps(bad), delay_s=0.0)
    agent = Agent([fetch, save], model=model, store=store, budgets=Budgets(max_replans=0))
    result = await agent.run("x", approve="all", stream=True)
    # What was streamed (s1, valid on its own) is the plan, as `plan` shows the pruned plan;
    # it misses the goal (its output is unused), so the run waits instead of "succeeding".
    assert result.status == "awaiting_approval"
    assert result.state.reason.startswith("plan does not cover the goal")
    checked = [e for e in store.events(result.run_id) if isinstance(e, E.PlanValidated)]
    assert any("nope" in p for p in checked[0].problems)
    assert "save" not in STARTS
