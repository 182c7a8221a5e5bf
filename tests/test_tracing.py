"""OpenTelemetry spans of a run, derived from its events, checked with the SDK's in-memory exporter.

The run: the planner (a scripted model) proposes a tool step, an agent step (a scripted model
calls a tool, then finishes) and a failing tool step.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from forethought import Agent, tool
from forethought.models.scripted import ScriptedModel
from forethought.runs.store.sqlite import SqliteStore
from forethought.runs.tracing import RunTracer, provider_of


@tool
def lookup(name: str) -> str:
    """Look a name up."""
    return f"{name}=1"


@tool(effect="mutating")
def explode() -> str:
    """Always fails."""
    raise RuntimeError("kaboom")


PLAN = {
    "steps": [
        {"id": "find", "tool": "lookup", "args": {"name": "db"}},
        {"id": "think", "agent": "look up 'cache' and report it", "depends_on": ["find"]},
        {"id": "crash", "tool": "explode", "depends_on": ["think"]},
    ]
}


async def test_run_spans_follow_genai_conventions(tmp_path: Path) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()  # not installed globally: the tracer is handed over
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    planner = ScriptedModel([json.dumps(PLAN)], name="scripted-planner")
    worker = ScriptedModel(
        [
            json.dumps({"action": "call", "tool": "lookup", "args": {"name": "cache"}}),
            json.dumps({"action": "finish", "answer": "cache=1"}),
        ],
        name="scripted-worker",
    )
    store = SqliteStore(tmp_path / "runs.db")
    agent = Agent([lookup, explode], planner_model=planner, executor_model=worker, store=store)
    result = await agent.run(
        "find the db and cache", approve="all", on_event=RunTracer(provider.get_tracer("test"))
    )
    store.close()
    assert result.state.status == "failed"
    spans = {s.name: s for s in exporter.get_finished_spans()}
    names = sorted(spans)
    assert names == [
        "chat scripted-planner",
        "chat scripted-worker",
        "execute_tool explode",
        "execute_tool lookup",
        "invoke_agent think",
        "run",
    ], names
    run = spans["run"]
    assert run.parent is None and run.attributes["forethought.run_id"] == result.run_id
    assert run.status.status_code is StatusCode.ERROR
    trace_ids = {s.context.trace_id for s in exporter.get_finished_spans()}
    assert trace_ids == {run.context.trace_id}  # one trace per run
    for name in (
        "execute_tool lookup",
        "invoke_agent think",
        "execute_tool explode",
        "chat scripted-planner",
    ):
        assert spans[name].parent.span_id == run.context.span_id, name
    # The agent step's model calls are children of its step span.
    worker_calls = [s for s in exporter.get_finished_spans() if s.name == "chat scripted-worker"]
    assert len(worker_calls) == 2
    assert {s.parent.span_id for s in worker_calls} == {spans["invoke_agent think"].context.span_id}
    chat = spans["chat scripted-planner"]
    attrs = dict(chat.attributes)
    assert attrs["gen_ai.operation.name"] == "chat"
    assert attrs["gen_ai.request.model"] == "scripted-planner"
    assert attrs["gen_ai.provider.name"] == "forethought"
    assert attrs["forethought.role"] == "planner"
    assert isinstance(attrs["gen_ai.usage.input_tokens"], int) and attrs["gen_ai.usage.input_tokens"] > 0
    assert isinstance(attrs["gen_ai.usage.output_tokens"], int)
    crash = spans["execute_tool explode"]
    assert crash.status.status_code is StatusCode.ERROR and "kaboom" in (crash.status.description or "")
    assert crash.attributes["error.type"] == "error"
    assert [ev.name for ev in crash.events] == ["attempt_started", "attempt_failed"]
    assert spans["execute_tool lookup"].status.status_code is StatusCode.UNSET
    assert spans["execute_tool lookup"].attributes["gen_ai.tool.name"] == "lookup"
    # Spans carry the events' times: the step starts no earlier than the run.
    assert run.start_time <= spans["execute_tool lookup"].start_time <= spans["execute_tool lookup"].end_time


def test_provider_name() -> None:
    assert provider_of("openai:gpt-4o-mini") == "openai"
    assert provider_of("scripted") == "forethought"


def _cli(tmp_path: Path, exporter: str) -> subprocess.CompletedProcess[str]:
    root = Path(__file__).resolve().parents[1]
    env = {
        **os.environ,
        "PYTHONPATH": str(root / "src"),
        "FORETHOUGHT_DB": str(tmp_path / "runs.db"),
        "OTEL_TRACES_EXPORTER": exporter,
    }
    args = [
        "exec",
        str(root / "examples/deploy/plan.yaml"),
        "--tools",
        str(root / "examples/deploy/tools.yaml"),
    ]
    return subprocess.run(
        [sys.executable, "-m", "forethought", *args, "--yes-all"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_exports_spans_when_otel_exporter_is_set(tmp_path: Path) -> None:
    done = _cli(tmp_path, "console")
    assert done.returncode == 0, done.stderr
    assert '"name": "execute_tool backup_database"' in done.stdout and '"name": "run"' in done.stdout


def test_cli_unknown_exporter_is_invalid_input(tmp_path: Path) -> None:
    done = _cli(tmp_path, "nosuch")
    assert done.returncode == 2 and "no exporter named 'nosuch'" in done.stderr


def test_a_run_nobody_traces_does_not_import_opentelemetry(tmp_path: Path) -> None:
    # With the extra installed but no provider configured, a run must not pay the SDK's import
    # (it sat on the first step's critical path); with one configured, the run is traced.
    script = """
import asyncio, sys
from forethought import Agent, Plan, tool

@tool
def ping() -> str:
    return "pong"

async def main() -> None:
    plan = Plan.model_validate({"goal": "ping", "steps": [{"id": "s1", "tool": "ping"}]})
    result = await Agent([ping], store=sys.argv[1]).run(plan, approve="all")
    assert result.status == "succeeded", result.status
    print(sorted(m for m in sys.modules if m.startswith("opentelemetry")))

asyncio.run(main())
"""
    out = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "runs.db")],
        capture_output=True,
        text=True,
        timeout=120,
        env={k: v for k, v in os.environ.items() if not k.startswith("OTEL_")},
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
