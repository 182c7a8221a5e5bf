"""Planning and agent steps over ``openai-compat:`` against a REAL llama.cpp server.

The server is xllamacpp's OpenAI-compatible HTTP server on an ephemeral loopback port, serving the
embedded SmolLM2 weights (one server for the module). Before issue 17 it answered every planning
request with HTTP 400 "JSON schema error at #/properties/steps/items: schema must be an object",
because the plan schema ended its positional steps with ``items: false``.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import jsonschema
import pytest

from _local_model import needs_local_model
from _planner_support import bench_like_specs
from forethought import tool
from forethought.errors import ModelError
from forethought.execution.agent_step import AgentStepRunner, action_schema, parse_action
from forethought.execution.executor import ApproveAll, Executor
from forethought.execution.options import ExecutorOptions
from forethought.models import ModelRequest
from forethought.models.local import LocalModel
from forethought.models.openai import OpenAIModel
from forethought.models.resolve import resolve_model
from forethought.plan.model import Plan
from forethought.planning.planner import PlannerOptions, make_plan
from forethought.planning.streaming import PlanDone, stream_plan
from forethought.tools.base import ToolRegistry

pytestmark = needs_local_model

GOAL = "Count the words in notes.txt and write the count to count.txt"
# Short plans and goal literals only: the test is about the wire format, and a 135M model
# wandering inside a free string would make it slow without testing anything more.
OPTIONS = PlannerOptions(max_steps=3, literal_mode="strict", max_tokens=200, examples=0)


@pytest.fixture(scope="module")
def base_url() -> str:
    """``http://127.0.0.1:PORT/v1`` of the llama.cpp server (loaded once, ephemeral port)."""
    return asyncio.run(LocalModel().listening_address()) + "/v1"


def compat(base_url: str, **kw: Any) -> OpenAIModel:
    return OpenAIModel("smollm2", provider="openai-compat", base_url=base_url, key_env=None, **kw)


def conforms(text: str, schema: dict[str, Any] | None) -> None:
    assert schema is not None
    jsonschema.validate(json.loads(text), schema)


async def test_plan_non_streaming_is_accepted_and_follows_the_schema(
    base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The model as ``--model openai-compat:smollm2`` resolves it.
    monkeypatch.setenv("FORETHOUGHT_OPENAI_BASE_URL", base_url)
    model = resolve_model("openai-compat:smollm2")
    assert isinstance(model, OpenAIModel) and model.name == "openai-compat:smollm2"
    result = await make_plan(GOAL, bench_like_specs(), model, options=OPTIONS, max_repairs=0)
    await model.aclose()
    assert len(result.calls) == 1
    call = result.calls[0]
    assert call.request.json_schema is not None  # several allowed lengths: the anyOf form
    assert len(call.request.json_schema["properties"]["steps"]["anyOf"]) >= 2
    conforms(call.response.text, call.request.json_schema)
    assert call.response.usage.output_tokens > 0
    assert result.plan is not None and result.plan.steps
    assert result.plan.steps[0].id == "s1"


async def test_plan_streaming_is_accepted_and_follows_the_schema(base_url: str) -> None:
    model = compat(base_url, attempts=1)
    items = [item async for item in stream_plan(GOAL, bench_like_specs(), model, options=OPTIONS)]
    await model.aclose()
    done = items[-1]
    assert isinstance(done, PlanDone)
    assert len(done.calls) == 1
    conforms(done.calls[0].response.text, done.calls[0].request.json_schema)
    assert done.calls[0].response.usage.output_tokens > 0
    streamed = [i for i in items[:-1] if not isinstance(i, PlanDone)]
    assert streamed and streamed[0].id == "s1"  # steps arrived before the answer was complete


async def test_the_old_tail_form_is_what_the_server_rejects(base_url: str) -> None:
    """Pins the cause: a boolean ``items`` after ``prefixItems`` is outside llama.cpp's subset."""
    model = compat(base_url, attempts=1)
    old = {
        "type": "object",
        "properties": {"steps": {"type": "array", "prefixItems": [{"const": 1}], "items": False}},
        "required": ["steps"],
        "additionalProperties": False,
    }
    with pytest.raises(ModelError, match=r"HTTP 400.*steps/items"):
        await model.complete(ModelRequest.of(None, "x", json_schema=old, max_tokens=8))
    await model.aclose()


@tool
def word_count(text: str) -> int:
    """Count the words in a text."""
    return len(text.split())


async def run_agent_step(base_url: str, step: dict[str, Any]) -> Executor:
    model = compat(base_url, attempts=1)
    tools = ToolRegistry([word_count])
    plan = Plan.model_validate({"goal": "g", "steps": [{"id": "a", **step}]})
    runner = AgentStepRunner({"default": model}, tools)
    ex = Executor(plan, tools, ExecutorOptions(gate=ApproveAll(), agent_runner=runner))
    runner.record = ex.record
    await ex.run()
    await model.aclose()
    return ex


@pytest.mark.parametrize("streaming", [False, True])
async def test_action_schema_is_accepted_and_enforced(base_url: str, streaming: bool) -> None:
    # No tools: finishing is the only action the schema allows. The answer itself is free JSON,
    # which SmolLM2 may ramble in until max_tokens, so only the enforced shape is checked.
    model = compat(base_url, attempts=1)
    request = ModelRequest.of(
        "Reply with one JSON object.", "Say hello.", json_schema=action_schema({}), max_tokens=40
    )
    if streaming:
        text = "".join([c.delta async for c in model.stream(request)])
    else:
        text = (await model.complete(request)).text
    await model.aclose()
    assert "".join(text.split()).startswith('{"next":{"action":"finish",')


async def test_agent_step_with_a_tool_speaks_the_action_schema(base_url: str) -> None:
    ex = await run_agent_step(
        base_url,
        {"agent": "Count the words in the text.", "args": {"text": "one two three", "max_turns": 1}},
    )
    calls = [e for e in ex.log if e.kind == "model_called"]
    assert calls, "no model call was recorded"
    for event in calls:
        conforms(event.response["text"], event.request["json_schema"])
        assert parse_action(event.response["text"]) is not None
    # The answer was a well-formed action: the schema was accepted and enforced. (Whether
    # SmolLM2 finishes in one turn or calls the tool first is the model's business.)
    state = ex.state.steps["a"]
    assert state.status == "succeeded" or "did not finish within 1 turns" in (state.error or "")
    tool_calls = [e for e in ex.log if e.kind == "tool_called"]
    assert all(e.tool == "word_count" and e.error is None for e in tool_calls)
