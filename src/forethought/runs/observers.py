"""The run's observers that only read its events: ``logging`` records and OpenTelemetry spans.

Each is subscribed only when someone is listening (a logger enabled for INFO; an installed tracer
provider with the ``otel`` extra present), so a run nobody observes pays nothing. Returned with
the history each must see first: a new run's preamble (created, planned, approved) is recorded
before the executor starts and is not in its stream.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable, Sequence

from forethought._extras import has_extra
from forethought.events.kinds import Event
from forethought.runs.run_log import log_event, run_logging_enabled

Sink = Callable[[Event], Awaitable[None]]


def observers(prior: Sequence[Event], *, resumed: bool) -> list[tuple[Sink, Sequence[Event]]]:
    """``(sink, history)`` pairs; on a resume the history is not replayed (it was observed then)."""
    out: list[tuple[Sink, Sequence[Event]]] = []
    if run_logging_enabled():
        out.append((log_event, [] if resumed else [e for e in prior if e.kind == "run_created"]))
    # A tracer provider is installed through ``opentelemetry.trace``, so an application that never
    # imported it has none: importing the SDK here to find out would cost every run's first
    # step ~17 ms (reading ``sys.modules`` has no side effect).
    if "opentelemetry.trace" in sys.modules and has_extra("otel"):
        from forethought.runs.tracing import RunTracer, tracing_enabled

        if tracing_enabled():
            out.append((RunTracer(), [] if resumed else list(prior)))
    return out
