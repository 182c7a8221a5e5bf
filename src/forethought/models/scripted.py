"""``ScriptedModel``: a model that replies from a list, for tests (ours and our users').

Strict on purpose (as in openai-agents-python): an unexpected extra call fails loudly instead of
returning something plausible, and ``assert_all_used()`` catches a test that scripted replies the
code never asked for. Replies may be strings, ``ModelResponse``s, exceptions (raised on that call)
or callables that compute the reply from the request (to assert on the prompt).
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path

from forethought.errors import ModelError, UserError
from forethought.models.base import ModelRequest, ModelResponse, StreamChunk, Usage

Reply = str | ModelResponse | BaseException | Callable[[ModelRequest], "str | ModelResponse"]


class ScriptedModelExhausted(ModelError):
    """The code under test made more model calls than were scripted."""


class ScriptedModel:
    def __init__(self, replies: Iterable[Reply] = (), *, name: str = "scripted", chunk_size: int = 7) -> None:
        self._replies: list[Reply] = list(replies)
        self._name = name
        self.chunk_size = chunk_size
        self.requests: list[ModelRequest] = []

    @classmethod
    def from_file(cls, path: str) -> ScriptedModel:
        """Replies from a JSON file holding a list of strings (``scripted:/path`` models)."""
        try:
            replies = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UserError(
                f"scripted model {path}: cannot read replies ({exc}); give a JSON "
                "file holding a list of reply strings"
            ) from None
        if not isinstance(replies, list) or not all(isinstance(r, str) for r in replies):
            raise UserError(f"scripted model {path}: expected a JSON list of reply strings")
        return cls(replies, name=f"scripted:{Path(path).name}")

    @property
    def name(self) -> str:
        return self._name

    def add(self, *replies: Reply) -> None:
        self._replies.extend(replies)

    @property
    def remaining(self) -> int:
        return len(self._replies)

    def assert_all_used(self) -> None:
        if self._replies:
            raise AssertionError(
                f"{len(self._replies)} scripted repl"
                f"{'y was' if len(self._replies) == 1 else 'ies were'} never "
                f"requested (after {len(self.requests)} calls)"
            )

    def _next(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        if not self._replies:
            raise ScriptedModelExhausted(
                f"{self._name}: unexpected model call #{len(self.requests)} (no scripted reply "
                f"left); last user message: {request.messages[-1].content[:120]!r}"
            )
        reply = self._replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        if callable(reply):
            reply = reply(request)
        if isinstance(reply, ModelResponse):
            return reply
        prompt_len = sum(len(m.content) for m in request.messages)
        return ModelResponse(
            text=reply,
            model=self._name,
            usage=Usage(input_tokens=max(1, prompt_len // 4), output_tokens=max(1, len(reply) // 4)),
        )

    async def complete(self, request: ModelRequest) -> ModelResponse:
        start = time.perf_counter()
        response = self._next(request)
        return response.model_copy(update={"latency_s": time.perf_counter() - start})

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamChunk]:
        response = self._next(request)
        text = response.text
        for i in range(0, len(text), self.chunk_size):
            yield StreamChunk(delta=text[i : i + self.chunk_size])
        yield StreamChunk(done=True, usage=response.usage, finish_reason="stop")
