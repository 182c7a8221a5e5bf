"""ScriptedModel, retries, pricing, resolution and event payloads: no network at all."""

from __future__ import annotations

import pytest

from forethought.errors import ModelError, UserError
from forethought.events.kinds import event_from_json, event_to_json
from forethought.models import (
    ModelRequest,
    ModelResponse,
    ScriptedModel,
    ScriptedModelExhausted,
    Usage,
    collect_stream,
    model_called_event,
    resolve_model,
)
from forethought.models._retry import TransientModelError, with_retries
from forethought.models.pricing import price_call
from forethought.models.record import response_from_record
from forethought.models.resolve import default_model_name, ollama_base_url, probe


def req(text: str = "hi") -> ModelRequest:
    return ModelRequest.of("sys", text)


async def test_scripted_replies_in_order_and_checks_use() -> None:
    m = ScriptedModel(["one", "two"])
    assert (await m.complete(req())).text == "one"
    with pytest.raises(AssertionError, match="1 scripted reply was never requested"):
        m.assert_all_used()
    assert (await m.complete(req())).text == "two"
    m.assert_all_used()
    with pytest.raises(ScriptedModelExhausted, match="unexpected model call #3"):
        await m.complete(req("extra"))


async def test_scripted_raises_scripted_exceptions_and_calls_functions() -> None:
    m = ScriptedModel([ModelError("boom"), lambda r: r.messages[-1].content.upper()])
    with pytest.raises(ModelError, match="boom"):
        await m.complete(req())
    assert (await m.complete(req("abc"))).text == "ABC"
    assert [r.messages[-1].content for r in m.requests] == ["hi", "abc"]


async def test_scripted_stream_reassembles() -> None:
    m = ScriptedModel(["x" * 20], chunk_size=3)
    chunks = [c async for c in m.stream(req())]
    assert "".join(c.delta for c in chunks) == "x" * 20
    assert chunks[-1].done and chunks[-1].usage is not None
    m.add("abc")
    assert (await collect_stream(m, req())).text == "abc"


async def test_retries_back_off_then_give_up() -> None:
    calls: list[int] = []
    sleeps: list[float] = []

    async def sleep(s: float) -> None:
        sleeps.append(s)

    async def flaky() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise TransientModelError("rate limited", retry_after=0.2)
        return "ok"

    assert await with_retries(flaky, attempts=4, base_delay_s=0.1, sleep=sleep) == "ok"
    assert len(calls) == 3 and len(sleeps) == 2
    assert all(s >= 0.1 for s in sleeps)  # retry_after respected (with jitter >= half)

    async def always() -> str:
        raise TransientModelError("server error 503")

    with pytest.raises(ModelError, match="gave up after 2 attempts") as info:
        await with_retries(always, attempts=2, sleep=sleep)
    assert not isinstance(info.value, TransientModelError)

    async def final() -> str:
        calls.append(1)
        raise ModelError("bad key")

    before = len(calls)
    with pytest.raises(ModelError, match="bad key"):
        await with_retries(final, attempts=5, sleep=sleep)
    assert len(calls) == before + 1  # permanent errors are not retried


def test_pricing_uses_genai_prices_and_local_is_free() -> None:
    usage = Usage(input_tokens=1_000_000, output_tokens=0)
    paid = price_call("openai", "gpt-4o-mini", usage)
    assert paid.known and paid.usd == pytest.approx(0.15)
    assert price_call("local", "anything", usage).usd == 0.0
    unknown = price_call("openai", "no-such-model-xyz", usage)
    assert unknown.usd == 0.0 and not unknown.known


def test_model_called_event_roundtrips_without_secrets() -> None:
    request = ModelRequest.of("sys", "plan it", json_schema={"type": "object"}, temperature=0)
    response = ModelResponse(
        text="{}",
        usage=Usage(input_tokens=5, output_tokens=2),
        model="openai:gpt-4o-mini",
        latency_s=0.5,
        cost_usd=0.001,
        raw={"id": "x"},
    )
    event = model_called_event("run1", 3, "planner", request, response, step_id="s1")
    text = event_to_json(event)
    assert "api_key" not in text.lower() and "sk-" not in text
    back = event_from_json(text)
    assert back.kind == "model_called"
    assert back.input_tokens == 5 and back.cost_usd == 0.001  # type: ignore[union-attr]
    rebuilt = response_from_record(back.model_dump())
    assert rebuilt.text == "{}" and rebuilt.usage == response.usage


def test_resolve_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-fake")
    m = resolve_model("openai:gpt-4o-mini")
    assert m.name == "openai:gpt-4o-mini"
    o = resolve_model("ollama:qwen2.5:7b")
    assert o.name == "ollama:qwen2.5:7b"
    assert o.base_url == "http://127.0.0.1:11434/v1"  # type: ignore[attr-defined]
    monkeypatch.setenv("OLLAMA_HOST", "10.0.0.5:9999")
    assert ollama_base_url() == "http://10.0.0.5:9999/v1"
    with pytest.raises(UserError, match="unknown provider 'nope'"):
        resolve_model("nope:x")
    with pytest.raises(UserError, match="give a model after the provider"):
        resolve_model("openai")
    with pytest.raises(UserError, match="FORETHOUGHT_OPENAI_BASE_URL"):
        resolve_model("openai-compat:m")


def test_missing_keys_are_one_line_user_errors() -> None:
    with pytest.raises(UserError, match="OPENAI_API_KEY is not set") as info:
        resolve_model("openai:gpt-4o-mini")
    assert "\n" not in str(info.value)
    with pytest.raises(UserError, match="ANTHROPIC_API_KEY is not set"):
        resolve_model("anthropic:claude-sonnet-4-5")
    with pytest.raises(UserError, match="no such GGUF file"):
        resolve_model("local:/nonexistent/model.gguf")


def test_default_model_prefers_reachable_ollama(monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    try:
        monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{port}")
        assert probe(ollama_base_url())
        assert default_model_name().startswith("ollama:")
    finally:
        listener.close()
    assert not probe(ollama_base_url())
    assert default_model_name() == "local"
    monkeypatch.setenv("FORETHOUGHT_MODEL", "openai:gpt-4o")
    assert default_model_name() == "openai:gpt-4o"
