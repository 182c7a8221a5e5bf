"""OpenAI and every OpenAI-compatible server (Ollama, vLLM, llama.cpp server) via the official SDK.

One adapter covers them all because they speak the same wire format; only the base URL, the key
and whether calls cost money differ. Constrained output uses ``response_format`` with a JSON
Schema, which llama.cpp/vLLM/Ollama enforce while decoding. The SDK's own retries are disabled so
that every provider follows the same backoff policy (``_retry``) and errors read the same.
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator
from typing import Any

from forethought._extras import import_extra, require_extra
from forethought.errors import ModelError
from forethought.models._errors import map_sdk_error
from forethought.models._retry import with_retries
from forethought.models.base import (
    ModelRequest,
    ModelResponse,
    StreamChunk,
    Usage,
    sampling_options,
)
from forethought.models.pricing import price_call

OPENAI_BASE_URL = "https://api.openai.com/v1"


class OpenAIModel:
    """A chat model behind an OpenAI-compatible ``/v1/chat/completions`` endpoint."""

    def __init__(
        self,
        model: str,
        *,
        provider: str = "openai",
        base_url: str | None = None,
        api_key: str | None = None,
        key_env: str | None = "OPENAI_API_KEY",
        timeout_s: float = 120.0,
        attempts: int = 4,
        extra_body: dict[str, Any] | None = None,
    ) -> None:
        self.model = model
        self.provider = provider
        require_extra("openai", f'model "{self.name}"')  # before the key: the SDK is the first fix
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_BASE_URL
        self._key_env = key_env
        key = api_key or (os.environ.get(key_env) if key_env else None)
        if not key:
            if provider == "openai" and self.base_url == OPENAI_BASE_URL:
                raise ModelError(
                    f"{self.name}: {key_env} is not set; export your OpenAI API key, "
                    "or use --model local for the embedded model"
                )
            key = "not-needed"  # local servers ignore the key but the SDK insists on one
        self._api_key = key
        self.timeout_s = timeout_s
        self.attempts = attempts
        self.extra_body = extra_body or {}
        self._client: Any = None

    @property
    def name(self) -> str:
        return f"{self.provider}:{self.model}"

    def _sdk(self) -> Any:
        return import_extra("openai", f'model "{self.name}"')

    def prepare(self) -> None:
        """Import the SDK and build the client now, so the first call does not (the CLI calls
        this before a run; the first call does the same work otherwise)."""
        self.client()

    def client(self) -> Any:
        if self._client is None:
            openai = self._sdk()
            self._client = openai.AsyncOpenAI(
                api_key=self._api_key, base_url=self.base_url, timeout=self.timeout_s, max_retries=0
            )
        return self._client

    def _params(self, request: ModelRequest) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": self.model,
            "messages": [m.model_dump() for m in request.messages],
        }
        params.update(sampling_options(request))
        if request.json_schema is not None:
            # strict=False: OpenAI's strict mode rejects optional properties, which tool argument
            # schemas have; compatible servers enforce the schema while decoding either way.
            params["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": request.schema_name, "schema": request.json_schema, "strict": False},
            }
        if self.extra_body:
            params["extra_body"] = self.extra_body
        return params

    def _error(self, exc: Exception) -> ModelError:
        return map_sdk_error(exc, self._sdk(), name=self.name, where=self.base_url, key_env=self._key_env)

    def _price(self, usage: Usage) -> float:
        return price_call(self.provider, self.model, usage).usd

    async def complete(self, request: ModelRequest) -> ModelResponse:
        openai = self._sdk()
        params = self._params(request)

        async def call() -> Any:
            try:
                return await self.client().chat.completions.create(**params)
            except openai.OpenAIError as exc:
                raise self._error(exc) from None

        start = time.perf_counter()
        result = await with_retries(call, attempts=self.attempts)
        latency = time.perf_counter() - start
        if not result.choices:
            raise ModelError(f"{self.name}: the server returned no choices")
        choice = result.choices[0]
        usage = Usage(
            input_tokens=getattr(result.usage, "prompt_tokens", 0) or 0,
            output_tokens=getattr(result.usage, "completion_tokens", 0) or 0,
        )
        return ModelResponse(
            text=choice.message.content or "",
            usage=usage,
            model=self.name,
            latency_s=latency,
            cost_usd=self._price(usage),
            finish_reason=choice.finish_reason,
            raw=result.model_dump(mode="json"),
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamChunk]:
        openai = self._sdk()
        params = self._params(request) | {"stream": True, "stream_options": {"include_usage": True}}

        async def open_stream() -> Any:
            try:
                return await self.client().chat.completions.create(**params)
            except openai.OpenAIError as exc:
                raise self._error(exc) from None

        # Only opening the stream is retried: once text has been yielded, a retry would repeat it.
        stream = await with_retries(open_stream, attempts=self.attempts)
        usage: Usage | None = None
        finish: str | None = None
        try:
            async for event in stream:
                if event.usage is not None:
                    usage = Usage(
                        input_tokens=event.usage.prompt_tokens or 0,
                        output_tokens=event.usage.completion_tokens or 0,
                    )
                for choice in event.choices or ():
                    if choice.finish_reason:
                        finish = choice.finish_reason
                    delta = choice.delta.content if choice.delta else None
                    if delta:
                        yield StreamChunk(delta=delta)
        except openai.OpenAIError as exc:
            raise self._error(exc) from None
        yield StreamChunk(done=True, usage=usage or Usage(), finish_reason=finish)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None
