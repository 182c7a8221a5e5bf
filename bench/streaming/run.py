"""Streaming plans: time to the first startable step versus time to the full plan.

A tiny loopback OpenAI-compatible server replays a canned plan as SSE at a fixed token rate
(a "token" = 4 characters, roughly a BPE token of JSON). The real OpenAI adapter and
``stream_plan`` consume it; we record when the first step is yielded (the moment an executor
could start it, since it is read-only with no dependencies) and when the plan is complete.

    .venv/bin/python bench/streaming/run.py --rates 20,50,100 --steps 3,6,10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent.parent / "planning"))

from tools import BENCH_TOOLS

from forethought.models.openai import OpenAIModel
from forethought.plan.model import Step
from forethought.planning.planner import PlannerOptions
from forethought.planning.streaming import PlanDone, stream_plan

CHARS_PER_TOKEN = 4


def canned_plan(n_steps: int) -> str:
    """Independent reads first (startable at once), then counts over them."""
    steps: list[dict[str, Any]] = []
    reads = max(1, n_steps // 2)
    for i in range(reads):
        steps.append({"id": f"s{i + 1}", "tool": "read_file", "args": {"path": f"f{i}.txt"}})
    for j in range(n_steps - reads):
        steps.append(
            {
                "id": f"s{reads + j + 1}",
                "tool": "count_words",
                "args": {"text": "${s" + str(j % reads + 1) + "}"},
            }
        )
    return json.dumps({"steps": steps})


class Replay(BaseHTTPRequestHandler):
    text = ""
    rate = 50.0

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        delay = 1.0 / self.rate
        pieces = [self.text[i : i + CHARS_PER_TOKEN] for i in range(0, len(self.text), CHARS_PER_TOKEN)]
        start = time.perf_counter()
        for n, piece in enumerate(pieces):
            # Pace against the clock, not per sleep, so the rate holds over the whole stream.
            wait = start + (n + 1) * delay - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            self._event({"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
        self._event({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        self._event({"choices": [], "usage": {"prompt_tokens": 300, "completion_tokens": len(pieces)}})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()

    def _event(self, payload: dict[str, Any]) -> None:
        base = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "replay"}
        self.wfile.write(b"data: " + json.dumps(base | payload).encode() + b"\n\n")
        self.wfile.flush()

    def log_message(self, *args: Any) -> None:
        pass


def serve(text: str, rate: float) -> Iterator[str]:
    handler = type("R", (Replay,), {"text": text, "rate": rate})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


async def measure(n_steps: int, rate: float) -> dict[str, Any]:
    text = canned_plan(n_steps)
    specs = {t.spec.name: t.spec for t in BENCH_TOOLS}
    gen = serve(text, rate)
    url = next(gen)
    try:
        model = OpenAIModel("replay", provider="openai-compat", base_url=url, key_env=None)
        start = time.perf_counter()
        first: float | None = None
        done: PlanDone | None = None
        async for item in stream_plan(
            "benchmark goal", specs, model, options=PlannerOptions(max_steps=n_steps)
        ):
            if isinstance(item, Step) and first is None:
                first = time.perf_counter() - start
            elif isinstance(item, PlanDone):
                done = item
        total = time.perf_counter() - start
        await model.aclose()
    finally:
        next(gen, None)
    assert done is not None and done.ok, done.problems if done else "no PlanDone"
    assert first is not None
    return {
        "steps": n_steps,
        "rate_tok_s": rate,
        "tokens": -(-len(text) // CHARS_PER_TOKEN),
        "first_step_s": round(first, 3),
        "full_plan_s": round(total, 3),
        "head_start_s": round(total - first, 3),
        "first_fraction": round(first / total, 3),
    }


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rates", default="20,50,100")
    parser.add_argument("--steps", default="3,6,10")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    await measure(3, 200.0)  # warm-up: imports, the HTTP client, pydantic schemas
    rows = []
    for rate in map(float, args.rates.split(",")):
        for n in map(int, args.steps.split(",")):
            row = await measure(n, rate)
            rows.append(row)
            print(
                f"{n:3d} steps @ {rate:5.0f} tok/s ({row['tokens']} tokens): first step "
                f"{row['first_step_s']:6.2f}s, full plan {row['full_plan_s']:6.2f}s, "
                f"head start {row['head_start_s']:6.2f}s ({row['first_fraction']:.0%} of the "
                "wait)",
                flush=True,
            )
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=2))  # noqa: ASYNC240


if __name__ == "__main__":
    asyncio.run(main())
