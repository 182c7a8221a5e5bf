"""Shared pieces of the web UI tests: tools that wait on gates the test opens, an agent opener
with a scripted planner, and a real uvicorn server on a loopback port in a thread."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import AsyncIterator, Iterator, Mapping
from pathlib import Path
from typing import Any

from forethought import tool
from forethought.agent import Agent
from forethought.interfaces.web.app import create_app
from forethought.interfaces.web.runner import RunManager
from forethought.interfaces.web.security import Guard
from forethought.models.base import ModelRequest, ModelResponse, StreamChunk, Usage
from forethought.models.scripted import ScriptedModel
from forethought.runs.store.sqlite import SqliteStore

GATE_LIMIT_S = 30.0  # a gate nobody opens fails the step instead of hanging the suite


class Gates:
    """One threading.Event per name: a tool call waits until the test opens its gate."""

    def __init__(self) -> None:
        self._events: dict[str, threading.Event] = {}
        self._lock = threading.Lock()

    def event(self, name: str) -> threading.Event:
        with self._lock:
            return self._events.setdefault(name, threading.Event())

    def reset(self) -> None:
        with self._lock:
            self._events.clear()

    def open(self, name: str) -> None:
        self.event(name).set()

    def wait(self, name: str) -> None:
        if not self.event(name).wait(GATE_LIMIT_S):
            raise TimeoutError(f"gate {name!r} was never opened by the test")


GATES = Gates()


@tool
def gate(name: str) -> str:
    """Wait until the test opens the gate called ``name``; return the name."""
    GATES.wait(name)
    return name


@tool(effect="mutating")
def press(name: str) -> str:
    """A side effect: waits for the gate ``press:<name>``, then reports it pressed."""
    GATES.wait(f"press:{name}")
    return f"pressed {name}"


TOOLS = [gate, press]

# g1 → g2 (read-only, waiting for gates "a" and "a2"), then the side effect (gate "press:a2").
PLAN_WITH_EFFECT = {
    "steps": [
        {"id": "g1", "tool": "gate", "args": {"name": "a"}},
        {"id": "g2", "tool": "gate", "args": {"name": "${g1}2"}},
        {"id": "p1", "tool": "press", "args": {"name": "${g2}"}},
    ]
}
GOAL = "gate a, then press it"


class GatedStreamModel:
    """Streams a plan's JSON in two parts: up to the end of the first step, then — once the
    test opens the gate ``plan:rest`` — the rest, so the test can watch the plan arrive."""

    name = "gated-stream"

    def __init__(self, plan: Mapping[str, Any]) -> None:
        text = json.dumps(plan)
        # Through the `{` that opens the second step: a step counts as written once the next begins.
        cut = text.index("}}, {", text.index('"steps"')) + 5
        self.parts = (text[:cut], text[cut:])

    async def complete(self, request: ModelRequest) -> ModelResponse:
        raise AssertionError("the New run page streams the plan")

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamChunk]:
        yield StreamChunk(delta=self.parts[0])
        await asyncio.to_thread(GATES.wait, "plan:rest")
        yield StreamChunk(delta=self.parts[1])
        yield StreamChunk(done=True, usage=Usage(input_tokens=50, output_tokens=40), finish_reason="stop")


class Planner:
    """Hands each agent the next queued planner model (a run started from the New run page
    plans once; approve/resume open agents that make no model call)."""

    def __init__(self) -> None:
        self.models: list[Any] = []

    def plan(self, plan: Mapping[str, Any], *, gated: bool = False) -> None:
        self.models.append(GatedStreamModel(plan) if gated else ScriptedModel([json.dumps(plan)]))

    def model(self) -> Any:
        return QueuedModel(self)


class QueuedModel:
    """An agent's planner: takes the next queued model at its first call, so agents opened only
    to read tool specs or to approve consume nothing."""

    name = "queued"

    def __init__(self, planner: Planner) -> None:
        self._planner = planner
        self._model: Any = None

    def _take(self) -> Any:
        if self._model is None:
            queued = self._planner.models
            self._model = queued.pop(0) if queued else ScriptedModel([])
        return self._model

    async def complete(self, request: ModelRequest) -> ModelResponse:
        response: ModelResponse = await self._take().complete(request)
        return response

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamChunk]:
        async for chunk in self._take().stream(request):
            yield chunk


def make_manager(store: SqliteStore, planner: Planner) -> RunManager:
    @contextlib.asynccontextmanager
    async def opener(setup: Mapping[str, Any], model: str | None) -> AsyncIterator[Agent]:
        yield Agent(TOOLS, model=planner.model(), store=store, approver="tester")

    return RunManager(
        store=store, open_agent=opener, base_setup={"tools": [], "builtins": [], "workspace": "."}
    )


def make_app(store: SqliteStore, planner: Planner, token: str | None = None) -> Any:
    return create_app(make_manager(store, planner), Guard(token=token))


@contextlib.contextmanager
def served(app: Any) -> Iterator[str]:
    """Run ``app`` under uvicorn on 127.0.0.1 (a free port) in a thread; yields its base URL."""
    import uvicorn

    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    ready = threading.Event()
    original = server.startup

    async def startup(sockets: Any = None) -> None:
        await original(sockets)
        ready.set()

    server.startup = startup  # type: ignore[method-assign]
    thread = threading.Thread(target=server.run, name="ui-server", daemon=True)
    thread.start()
    if not ready.wait(30):
        raise RuntimeError("the UI server did not start")
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)


def tmp_store(path: Path) -> SqliteStore:
    return SqliteStore(path / "runs.db")
