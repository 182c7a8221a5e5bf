"""The model contract: one request type, one response type, and a two-method protocol.

Like pydantic-ai, an adapter is small: it turns a ``ModelRequest`` into a provider call and the
provider's answer into a ``ModelResponse`` (or a stream of ``StreamChunk``). Everything else —
retries, pricing, event payloads — lives in plain functions so adapters stay thin and the planner
never needs to know which provider it talks to.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["system", "user", "assistant"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Message(_Frozen):
    role: Role
    content: str


class ModelRequest(_Frozen):
    """What we ask a model. ``json_schema`` asks for constrained output where the provider can."""

    messages: tuple[Message, ...]
    json_schema: dict[str, Any] | None = None
    schema_name: str = "output"
    temperature: float | None = Field(default=None, ge=0, le=2)
    max_tokens: int | None = Field(default=None, ge=1)
    stop: tuple[str, ...] = ()
    seed: int | None = None

    @classmethod
    def of(cls, system: str | None, user: str, **kw: Any) -> ModelRequest:
        msgs = [Message(role="system", content=system)] if system else []
        msgs.append(Message(role="user", content=user))
        return cls(messages=tuple(msgs), **kw)


def sampling_options(request: ModelRequest) -> dict[str, Any]:
    """The OpenAI-style sampling fields a request sets (shared by the OpenAI-compatible and the
    in-process llama.cpp adapters, which speak the same chat-completions body)."""
    out: dict[str, Any] = {}
    if request.temperature is not None:
        out["temperature"] = request.temperature
    if request.max_tokens is not None:
        out["max_tokens"] = request.max_tokens
    if request.stop:
        out["stop"] = list(request.stop)
    if request.seed is not None:
        out["seed"] = request.seed
    return out


class Usage(_Frozen):
    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
        )

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


class ModelResponse(_Frozen):
    """A complete answer. ``raw`` is the provider's JSON body, kept for replay and audit."""

    text: str
    usage: Usage = Field(default_factory=Usage)
    model: str = ""
    latency_s: float = 0.0
    cost_usd: float = 0.0
    finish_reason: str | None = None
    raw: dict[str, Any] = Field(default_factory=dict)


class StreamChunk(_Frozen):
    """A piece of a streamed answer. The last chunk has ``done=True`` and carries the usage."""

    delta: str = ""
    done: bool = False
    usage: Usage | None = None
    finish_reason: str | None = None


@runtime_checkable
class Model(Protocol):
    """A chat model. ``name`` is the resolvable name, e.g. ``openai:gpt-4o-mini``."""

    @property
    def name(self) -> str: ...

    async def complete(self, request: ModelRequest) -> ModelResponse: ...

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamChunk]: ...


async def collect_stream(model: Model, request: ModelRequest) -> ModelResponse:
    """Run ``model.stream`` to the end and assemble the response (for callers that want both)."""
    import time

    start = time.perf_counter()
    parts: list[str] = []
    usage = Usage()
    finish: str | None = None
    async for chunk in model.stream(request):
        parts.append(chunk.delta)
        if chunk.usage is not None:
            usage = chunk.usage
        if chunk.finish_reason:
            finish = chunk.finish_reason
    return ModelResponse(
        text="".join(parts),
        usage=usage,
        model=model.name,
        latency_s=time.perf_counter() - start,
        finish_reason=finish,
    )
