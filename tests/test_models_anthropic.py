"""The Anthropic adapter against recorded response bodies replayed through httpx2.MockTransport.

The bodies in tests/fixtures/anthropic follow the Messages API wire format (JSON and SSE); they
are replayed in-process, so no request ever leaves the test.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest

from _planner_support import bench_like_specs
from forethought.errors import ModelError
from forethought.models import ModelRequest
from forethought.models.anthropic import AnthropicModel
from forethought.planning.streaming import PlanDone, stream_plan

FIX = Path(__file__).parent / "fixtures" / "anthropic"


def transport(replies: list[tuple[int, str, str]], seen: list[dict[str, Any]]) -> Any:
    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(
            {"url": str(request.url), "headers": dict(request.headers), "body": json.loads(request.content)}
        )
        status, name, ctype = replies.pop(0)
        return httpx2.Response(status, content=(FIX / name).read_bytes(), headers={"content-type": ctype})

    return httpx2.MockTransport(handler)


def model_with(replies: list[tuple[int, str, str]], seen: list[dict[str, Any]], **kw: Any) -> AnthropicModel:
    client = httpx2.AsyncClient(transport=transport(replies, seen))
    return AnthropicModel("claude-haiku-4-5", api_key="sk-ant-fake", http_client=client, **kw)


JSON = "application/json"
SSE = "text/event-stream"
PLAN_SCHEMA: dict[str, Any] = {"type": "object", "properties": {"steps": {"type": "array"}}}


async def test_json_schema_via_forced_tool() -> None:
    seen: list[dict[str, Any]] = []
    model = model_with([(200, "message_tool_use.json", JSON)], seen)
    response = await model.complete(
        ModelRequest.of("be brief", "plan it", json_schema=PLAN_SCHEMA, schema_name="plan")
    )
    body = seen[0]["body"]
    assert body["tool_choice"] == {"type": "tool", "name": "plan"}
    assert body["tools"][0]["input_schema"] == PLAN_SCHEMA
    assert body["system"] == "be brief" and body["messages"] == [{"role": "user", "content": "plan it"}]
    assert any("sk-ant-fake" in v for v in seen[0]["headers"].values())
    assert json.loads(response.text)["steps"][1]["args"] == {"text": "${s1}"}
    assert (response.usage.input_tokens, response.usage.output_tokens) == (412, 61)
    assert response.cost_usd > 0  # priced from genai-prices
    assert response.finish_reason == "tool_use"


async def test_plain_text() -> None:
    model = model_with([(200, "message_text.json", JSON)], [])
    response = await model.complete(ModelRequest.of(None, "hi"))
    assert response.text == "Hello there."


async def test_stream_yields_partial_json_and_usage() -> None:
    model = model_with([(200, "stream_tool_use.sse", SSE)], [])
    chunks = [
        c async for c in model.stream(ModelRequest.of(None, "x", json_schema=PLAN_SCHEMA, schema_name="plan"))
    ]
    text = "".join(c.delta for c in chunks)
    assert json.loads(text)["steps"][0]["tool"] == "read_file"
    assert chunks[-1].done and chunks[-1].usage is not None
    assert chunks[-1].usage.input_tokens == 472 and chunks[-1].usage.output_tokens == 89


async def test_stream_plan_over_recorded_anthropic_stream() -> None:
    model = model_with([(200, "stream_tool_use.sse", SSE)], [])
    items = [i async for i in stream_plan("Count the words in notes.txt", bench_like_specs(), model)]
    assert [getattr(i, "id", None) for i in items[:-1]] == ["s1", "s2"]
    done = items[-1]
    assert isinstance(done, PlanDone) and done.ok and done.streamed == ("s1", "s2")


async def test_overloaded_is_retried_auth_is_not() -> None:
    seen: list[dict[str, Any]] = []
    model = model_with(
        [(529, "error_overloaded.json", JSON), (200, "message_text.json", JSON)], seen, attempts=2
    )
    assert (await model.complete(ModelRequest.of(None, "hi"))).text == "Hello there."
    assert len(seen) == 2
    seen.clear()
    model = model_with([(401, "error_auth.json", JSON)], seen, attempts=3)
    with pytest.raises(ModelError, match=r"authentication failed.*ANTHROPIC_API_KEY"):
        await model.complete(ModelRequest.of(None, "hi"))
    assert len(seen) == 1


def test_constrained_output_needs_object_schema() -> None:
    model = AnthropicModel("claude-haiku-4-5", api_key="k")
    with pytest.raises(ModelError, match="object schema"):
        model._params(ModelRequest.of(None, "x", json_schema={"type": "array"}))


_: Callable[..., Any] = transport
