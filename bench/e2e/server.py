"""A latency-faithful OpenAI-compatible model server on loopback, for the end-to-end benchmark.

``POST /v1/chat/completions`` answers from ``scripts.reply`` (what a correct agent would say) and
takes as long as a hosted small model would: ``ttft`` seconds to the first token, then output
tokens at ``rate`` tokens/s. Streaming sends SSE chunks paced against the clock; tool calls,
``response_format`` (the reply is checked against a given JSON schema and the check recorded),
``stop`` sequences and ``usage`` (also in the last streamed chunk) follow the OpenAI wire format.

Tokens are counted the same way for every system: ``ceil(UTF-8 bytes / 4)`` of each message's
content and tool calls plus 4 per message, plus the tool definitions sent (``tools``, as hosted
APIs bill them); a ``response_format`` schema is a decoding constraint on compatible servers and
is not counted as input (its size is logged separately). tiktoken is not used: its encodings are
downloaded at run time, which an offline benchmark cannot do.

Every request is logged (``GET /bench/log``): the ``model`` field is the caller's run tag, so
the runner attributes calls, tokens and time to a run without the server trusting it for
anything else. ``python server.py --port 8765 --ttft 0.4 --rate 80``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import scripts
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route


def tokens(text: str) -> int:
    return math.ceil(len(text.encode("utf-8")) / 4)


def input_tokens(request: dict[str, Any]) -> int:
    total = 0
    for msg in request.get("messages") or ():
        content = msg.get("content")
        text = content if isinstance(content, str) else json.dumps(content or "")
        total += 4 + tokens(text)
        if msg.get("tool_calls"):
            total += tokens(json.dumps(msg["tool_calls"], separators=(",", ":")))
    if request.get("tools"):
        total += tokens(json.dumps(request["tools"], separators=(",", ":")))
    return total


def _apply_stop(text: str, stop: Any) -> str:
    stops = [stop] if isinstance(stop, str) else list(stop or [])
    cut = min((i for s in stops if s and (i := text.find(s)) >= 0), default=-1)
    return text if cut < 0 else text[:cut]


def _schema_ok(request: dict[str, Any], content: str) -> bool | None:
    fmt = request.get("response_format") or {}
    schema = (fmt.get("json_schema") or {}).get("schema")
    if fmt.get("type") != "json_schema" or schema is None:
        return None
    try:
        import jsonschema
    except ImportError:
        return None
    try:
        jsonschema.Draft202012Validator(schema).validate(json.loads(content))
    except (jsonschema.ValidationError, json.JSONDecodeError):
        return False
    return True


class ModelServer:
    def __init__(self, ttft: float, rate: float) -> None:
        self.ttft = ttft
        self.rate = rate
        self.log: list[dict[str, Any]] = []

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v1/chat/completions", self.completions, methods=["POST"]),
                Route("/v1/models", self.models, methods=["GET"]),
                Route("/bench/log", self.get_log, methods=["GET"]),
                Route("/bench/reset", self.reset, methods=["POST"]),
                Route("/bench/config", self.config, methods=["POST"]),
            ]
        )

    async def models(self, _: Request) -> Response:
        return JSONResponse({"object": "list", "data": [{"id": "scripted", "object": "model"}]})

    async def get_log(self, _: Request) -> Response:
        return JSONResponse(self.log)

    async def reset(self, _: Request) -> Response:
        self.log.clear()
        return JSONResponse({"ok": True})

    async def config(self, request: Request) -> Response:
        body = await request.json()
        self.ttft = float(body.get("ttft", self.ttft))
        self.rate = float(body.get("rate", self.rate))
        return JSONResponse({"ttft": self.ttft, "rate": self.rate})

    async def completions(self, request: Request) -> Response:
        start = time.time()
        body = await request.json()
        rep = scripts.reply(body)
        entry: dict[str, Any] = {
            "tag": body.get("model"),
            "role": rep.role,
            "task": rep.task.id if rep.task else None,
            "start": start,
            "stream": bool(body.get("stream")),
            "input_tokens": input_tokens(body),
            "schema_chars": len(json.dumps((body.get("response_format") or {}).get("json_schema") or {})),
        }
        if rep.error is not None:
            entry |= {"error": rep.error, "end": time.time(), "output_tokens": 0}
            self.log.append(entry)
            return JSONResponse({"error": {"message": f"scripted model: {rep.error}"}}, status_code=400)
        content = _apply_stop(rep.content, body.get("stop")) if rep.content is not None else None
        calls_text = json.dumps(rep.tool_calls, separators=(",", ":")) if rep.tool_calls else ""
        out_tokens = tokens(content or "") + (tokens(calls_text) if calls_text else 0)
        entry |= {"output_tokens": out_tokens, "schema_ok": _schema_ok(body, content or "")}
        usage = {
            "prompt_tokens": entry["input_tokens"],
            "completion_tokens": out_tokens,
            "total_tokens": entry["input_tokens"] + out_tokens,
        }
        cid = "chatcmpl-" + uuid.uuid4().hex[:12]
        model = body.get("model") or "scripted"
        finish = "tool_calls" if rep.tool_calls else "stop"
        if body.get("stream"):
            return StreamingResponse(
                self._sse(entry, cid, model, content, rep.tool_calls, finish, usage, body),
                media_type="text/event-stream",
            )
        await asyncio.sleep(max(0.0, start + self.ttft + out_tokens / self.rate - time.time()))
        entry["first_token"] = entry["end"] = time.time()
        self.log.append(entry)
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if rep.tool_calls:
            message["tool_calls"] = rep.tool_calls
        return JSONResponse(
            {
                "id": cid,
                "object": "chat.completion",
                "created": int(start),
                "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
                "usage": usage,
            }
        )

    async def _sse(
        self,
        entry: dict[str, Any],
        cid: str,
        model: str,
        content: str | None,
        tool_calls: list[dict[str, Any]],
        finish: str,
        usage: dict[str, int],
        body: dict[str, Any],
    ) -> Any:
        start = entry["start"]

        def chunk(delta: dict[str, Any], finish_reason: str | None = None, **extra: Any) -> str:
            data = {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": int(start),
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
                **extra,
            }
            return f"data: {json.dumps(data)}\n\n"

        yield chunk({"role": "assistant", "content": ""})
        text = content or ""
        pieces = [text[i : i + 4] for i in range(0, len(text), 4)]  # ~1 token each (see tokens())
        sent = 0
        while sent < len(pieces):
            due = start + self.ttft + sent / self.rate
            await asyncio.sleep(max(0.0, due - time.time()))
            if sent == 0:
                entry["first_token"] = time.time()
            # everything due by now goes in one chunk (the clock, not the loop, sets the pace)
            upto = min(len(pieces), sent + 1 + max(0, int((time.time() - due) * self.rate)))
            yield chunk({"content": "".join(pieces[sent:upto])})
            sent = upto
        if tool_calls:
            calls_tokens = entry["output_tokens"] - tokens(text)
            await asyncio.sleep(
                max(0.0, start + self.ttft + (len(pieces) + calls_tokens) / self.rate - time.time())
            )
            entry.setdefault("first_token", time.time())
            yield chunk({"tool_calls": [{"index": i, **tc} for i, tc in enumerate(tool_calls)]})
        await asyncio.sleep(max(0.0, start + self.ttft + entry["output_tokens"] / self.rate - time.time()))
        entry.setdefault("first_token", time.time())
        yield chunk({}, finish)
        if (body.get("stream_options") or {}).get("include_usage"):
            last = {"id": cid, "object": "chat.completion.chunk", "created": int(start), "model": model}
            yield f"data: {json.dumps({**last, 'choices': [], 'usage': usage})}\n\n"
        yield "data: [DONE]\n\n"
        entry["end"] = time.time()
        self.log.append(entry)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--ttft", type=float, default=0.4, help="seconds to the first token")
    parser.add_argument("--rate", type=float, default=80.0, help="output tokens per second")
    args = parser.parse_args()
    server = ModelServer(args.ttft, args.rate)
    print(
        f"model server on http://{args.host}:{args.port}/v1 (ttft {args.ttft}s, {args.rate} tok/s)",
        flush=True,
    )
    uvicorn.run(server.app(), host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
