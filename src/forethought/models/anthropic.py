"""Anthropic's Messages API via the official SDK.

Constrained output is done the portable way: one tool whose ``input_schema`` is the requested
JSON Schema, with ``tool_choice`` forcing the model to call it; the tool input *is* the answer.
When streaming, the tool input arrives as ``input_json_delta`` fragments, which is exactly the
incremental JSON text the plan stream parser wants.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import AsyncIterator
from typing import Any

from forethought._extras import import_extra, require_extra
from forethought.errors import ModelError
from forethought.models._errors import map_sdk_error
from forethought.models._retry import with_retries
from forethought.models.base import ModelRequest, ModelResponse, StreamChunk, Usage
from forethought.models.pricing import price_call

DEFAULT_MAX_TOKENS = 4096  # the Messages API requires max_tokens


class AnthropicModel:
    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout_s: float = 120.0,
        attempts: int = 4,
        http_client: Any = None,
    ) -> None:
        self.model = model
        require_extra("anthropic", f'model "{self.name}"')  # before the key: the SDK is the first fix
        key = api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not key:
            raise ModelError(
                f"{self.name}: ANTHROPIC_API_KEY is not set; export your Anthropic "
                "API key, or use --model local for the embedded model"
            )
        self._api_key = key
        self.base_url = base_url or os.environ.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com"
        self.timeout_s = timeout_s
        self.attempts = attempts
        self._http_client = http_client
        self._client: Any = None

    @property
    def name(self) -> str:
        return f"anthropic:{self.model}"

    def _sdk(self) -> Any:
        return import_extra("anthropic", f'model "{self.name}"')

    def prepare(self) -> None:
        """Import the SDK and build the client now, so the first call does not (the CLI calls
        this before a run; the first call does the same work otherwise)."""
        self.client()

    def client(self) -> Any:
        if self._client is None:
            kwargs: dict[str, Any] = {
                "api_key": self._api_key,
                "base_url": self.base_url,
                "timeout": self.timeout_s,
                "max_retries": 0,
            }
            if self._http_client is not None:
                kwargs["http_client"] = self._http_client
            self._client = self._sdk().AsyncAnthropic(**kwargs)
        return self._client

    def _params(self, request: ModelRequest) -> dict[str, Any]:
        system = "\n\n".join(m.content for m in request.messages if m.role == "system")
        params: dict[str, Any] = {
            "model": self.model,
            "max_tokens": request.max_tokens or DEFAULT_MAX_TOKENS,
            "messages": [
                {"role": m.role, "content": m.content} for m in request.messages if m.role != "system"
            ],
        }
        if system:
            params["system"] = system
        # No temperature: current Anthropic models and SDKs no longer take sampling parameters
        # (the SDK rejects the argument); determinism comes from the forced tool schema instead.
        if request.stop:
            params["stop_sequences"] = list(request.stop)
        if request.json_schema is not None:
            schema = request.json_schema
            if schema.get("type") != "object":  # tool inputs must be objects
                raise ModelError(f"{self.name}: constrained output needs an object schema")
            params["tools"] = [
                {
                    "name": request.schema_name,
                    "description": "Return the answer by calling this tool.",
                    "input_schema": schema,
                }
            ]
            params["tool_choice"] = {"type": "tool", "name": request.schema_name}
        return params

    def _error(self, exc: Exception) -> ModelError:
        return map_sdk_error(
            exc, self._sdk(), name=self.name, where=self.base_url, key_env="ANTHROPIC_API_KEY"
        )

    async def complete(self, request: ModelRequest) -> ModelResponse:
        sdk = self._sdk()
        params = self._params(request)

        async def call() -> Any:
            try:
                return await self.client().messages.create(**params)
            except sdk.AnthropicError as exc:
                raise self._error(exc) from None

        start = time.perf_counter()
        message = await with_retries(call, attempts=self.attempts)
        latency = time.perf_counter() - start
        parts: list[str] = []
        for block in message.content:
            if block.type == "tool_use" and request.json_schema is not None:
                parts = [json.dumps(block.input, ensure_ascii=False)]
                break
            if block.type == "text":
                parts.append(block.text)
        usage = Usage(input_tokens=message.usage.input_tokens, output_tokens=message.usage.output_tokens)
        return ModelResponse(
            text="".join(parts),
            usage=usage,
            model=self.name,
            latency_s=latency,
            cost_usd=price_call("anthropic", self.model, usage).usd,
            finish_reason=message.stop_reason,
            raw=message.model_dump(mode="json"),
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamChunk]:
        sdk = self._sdk()
        params = self._params(request) | {"stream": True}

        async def open_stream() -> Any:
            try:
                return await self.client().messages.create(**params)
            except sdk.AnthropicError as exc:
                raise self._error(exc) from None

        stream = await with_retries(open_stream, attempts=self.attempts)
        input_tokens = output_tokens = 0
        finish: str | None = None
        want_tool = request.json_schema is not None
        try:
            async for event in stream:
                kind = event.type
                if kind == "message_start":
                    input_tokens = event.message.usage.input_tokens
                    output_tokens = event.message.usage.output_tokens
                elif kind == "content_block_delta":
                    delta = event.delta
                    if delta.type == "input_json_delta" and want_tool:
                        yield StreamChunk(delta=delta.partial_json)
                    elif delta.type == "text_delta" and not want_tool:
                        yield StreamChunk(delta=delta.text)
                elif kind == "message_delta":
                    output_tokens = event.usage.output_tokens
                    finish = event.delta.stop_reason or finish
                elif kind == "error":  # pragma: no cover - the SDK raises these itself
                    raise ModelError(f"{self.name}: stream error: {event}")
        except sdk.AnthropicError as exc:
            raise self._error(exc) from None
        usage = Usage(input_tokens=input_tokens, output_tokens=output_tokens)
        yield StreamChunk(done=True, usage=usage, finish_reason=finish)
