"""OpenTelemetry traces of runs, derived from the event stream (extra ``forethought[otel]``).

``RunTracer`` is an event sink: everything that happens is an event, so the spans come from the
events and carry the events' timestamps — the executor knows nothing about tracing. One trace per
run (a root span ``run``), a span per step (``execute_tool TOOL`` / ``invoke_agent STEP``) with its
attempts as span events, and a span per model call named ``{gen_ai.operation.name}
{gen_ai.request.model}`` with the GenAI semantic-convention attributes (``gen_ai.operation.name``
= ``chat``, ``gen_ai.provider.name``, ``gen_ai.request.model``, ``gen_ai.usage.input_tokens``,
``gen_ai.usage.output_tokens``), parented to its step when the call names one (agent turns,
critic checks), else to the run (the planner). A step that fails for good gets ERROR status.

The tracer comes from the application's global tracer provider (``opentelemetry.trace``); this
module never installs one. With none installed the API's no-op tracer makes this free, and the
agent does not even subscribe (``tracing_enabled``).
"""

from __future__ import annotations

from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer

from forethought.events.kinds import Event
from forethought.oversight.redaction import redact_text

_NS = 1_000_000_000
_STEP_END = frozenset({"step_succeeded", "step_skipped", "step_cancelled"})


def tracing_enabled() -> bool:
    """Whether the application installed a tracer provider (the API's default is a proxy)."""
    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


def _ns(ts: float) -> int:
    return int(ts * _NS)


def provider_of(model: str) -> str:
    """``openai:gpt-4o`` → ``openai``; a bare name → ``forethought`` (scripted, replayed)."""
    return model.split(":", 1)[0] if ":" in model else "forethought"


class RunTracer:
    """Turns one run's events into spans; ``await tracer(event)`` for each, in order."""

    def __init__(self, tracer: Tracer | None = None) -> None:
        self._tracer = tracer or trace.get_tracer("forethought")
        self._run: Span | None = None
        self._steps: dict[str, Span] = {}
        self._tools: dict[str, str | None] = {}

    async def __call__(self, event: Event) -> None:
        try:
            self.handle(event)
        except Exception:  # tracing must never fail a run (a raising sink would)
            return

    def _child(self, name: str, parent: Span | None, ts: float, kind: SpanKind = SpanKind.INTERNAL) -> Span:
        ctx = trace.set_span_in_context(parent) if parent is not None else otel_context.Context()
        return self._tracer.start_span(name, context=ctx, kind=kind, start_time=_ns(ts))

    def _run_span(self, e: Any) -> Span:
        if self._run is None:
            self._run = self._child("run", None, e.ts)
            self._run.set_attribute("forethought.run_id", e.run_id)
            self._run.set_attribute("gen_ai.operation.name", "invoke_agent")
        return self._run

    def handle(self, event: Event) -> None:
        e: Any = event
        kind = e.kind
        run = self._run_span(e)
        if kind == "run_created":
            run.set_attribute("forethought.goal", redact_text(e.goal))
        elif kind in ("plan_proposed", "plan_revised"):
            self._tools.update(
                {
                    str(s["id"]): s.get("tool")
                    for s in e.plan.get("steps", ())
                    if isinstance(s, dict) and "id" in s
                }
            )
        elif kind == "steps_added":
            self._tools.update(
                {str(s["id"]): s.get("tool") for s in e.steps if isinstance(s, dict) and "id" in s}
            )
        elif kind == "step_started":
            span = self._steps.get(e.step_id)
            if span is None:
                tool = self._tools.get(e.step_id)
                name = f"execute_tool {tool}" if tool else f"invoke_agent {e.step_id}"
                span = self._steps[e.step_id] = self._child(name, run, e.ts)
                span.set_attribute("forethought.step_id", e.step_id)
                span.set_attribute("gen_ai.operation.name", "execute_tool" if tool else "invoke_agent")
                if tool:
                    span.set_attribute("gen_ai.tool.name", tool)
            span.set_attribute("forethought.attempts", e.attempt)
            span.add_event("attempt_started", {"attempt": e.attempt}, timestamp=_ns(e.ts))
        elif kind == "step_failed":
            span = self._steps.get(e.step_id)
            if span is None:  # failed before it started (a reference or policy failure)
                span = self._steps[e.step_id] = self._child(f"step {e.step_id}", run, e.ts)
            error = redact_text(e.error)
            span.add_event(
                "attempt_failed",
                {"attempt": e.attempt, "error": error, "failure_class": e.failure_class},
                timestamp=_ns(e.ts),
            )
            if e.final:
                span.set_attribute("error.type", e.failure_class)
                span.set_status(Status(StatusCode.ERROR, error))
                span.end(end_time=_ns(e.ts))
                del self._steps[e.step_id]
        elif kind in _STEP_END:
            span = self._steps.pop(e.step_id, None)
            if span is not None:
                span.set_attribute("forethought.step_status", kind.removeprefix("step_"))
                span.end(end_time=_ns(e.ts))
        elif kind == "model_called":
            parent = self._steps.get(e.step_id) if e.step_id else None
            span = self._child(f"chat {e.model}", parent or run, e.ts - e.latency_s, SpanKind.CLIENT)
            span.set_attribute("gen_ai.operation.name", "chat")
            span.set_attribute("gen_ai.provider.name", provider_of(e.model))
            span.set_attribute("gen_ai.request.model", e.model)
            span.set_attribute("gen_ai.usage.input_tokens", e.input_tokens)
            span.set_attribute("gen_ai.usage.output_tokens", e.output_tokens)
            span.set_attribute("forethought.role", e.role)
            span.set_attribute("forethought.cost_usd", e.cost_usd)
            span.end(end_time=_ns(e.ts))
        elif kind in ("run_finished", "run_paused"):
            for span in self._steps.values():  # still open: the run stopped around them
                span.end(end_time=_ns(e.ts))
            self._steps.clear()
            status = e.status if kind == "run_finished" else "paused"
            run.set_attribute("forethought.status", status)
            if status in ("failed", "cancelled"):
                run.set_status(Status(StatusCode.ERROR, redact_text(e.reason or status)))
            run.end(end_time=_ns(e.ts))
            self._run = None
