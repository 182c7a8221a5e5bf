"""The executor's event plumbing: the two per-step events built fast, and ordered fan-out.

``EventLog`` fans a run's events out to any number of subscribers, each at its own pace. The
scheduler appends synchronously (no await on the hot path); each subscriber has its own queue and
wakes on a shared future, so a slow subscriber only lags — it never blocks the scheduler and never
sees events out of order.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from typing import Any

from pydantic import BaseModel

from forethought.events.kinds import Event, StepStarted, StepSucceeded

# ------------------------------------------------------------------------------ per-step events
#
# ``step_started`` and ``step_succeeded`` are emitted once per step each: building them through
# pydantic validation was the executor's largest per-step cost. Their fields are typed by
# construction here (ids, ints, floats, a fresh args dict, an output already normalized through
# the event serializer), so they are assembled directly — the same instance layout validation
# produces, checked once at import: the keys below must be the classes' fields in declaration
# order (the serializer writes ``__dict__`` in that order) and pydantic must keep its instance
# slots. If either ever changes, ``FAST_EVENTS`` is False and these validate like any event.

_STARTED_FIELDS = (
    "run_id",
    "seq",
    "ts",
    "plan_version",
    "kind",
    "step_id",
    "attempt",
    "idempotency_key",
    "args",
    "backend",
)
_SUCCEEDED_FIELDS = (
    "run_id",
    "seq",
    "ts",
    "plan_version",
    "kind",
    "step_id",
    "attempt",
    "output",
    "duration_s",
)
FAST_EVENTS = (
    {"__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__"}
    <= set(getattr(BaseModel, "__slots__", ()))
    and tuple(StepStarted.model_fields) == _STARTED_FIELDS
    and tuple(StepSucceeded.model_fields) == _SUCCEEDED_FIELDS
)
_new = object.__new__
_set = object.__setattr__
# Shared by every event of the class: frozen models never change their fields-set (pydantic only
# copies it, in ``model_copy``), and one set per event would cost a copy per event.
_started_set = set(_STARTED_FIELDS)
_succeeded_set = set(_SUCCEEDED_FIELDS)


def step_started(
    run_id: str,
    seq: int,
    ts: float,
    plan_version: int,
    step_id: str,
    attempt: int,
    idempotency_key: str,
    args: dict[str, Any],
    backend: str,
) -> StepStarted:
    fields = {
        "run_id": run_id,
        "seq": seq,
        "ts": ts,
        "plan_version": plan_version,
        "kind": "step_started",
        "step_id": step_id,
        "attempt": attempt,
        "idempotency_key": idempotency_key,
        "args": args,
        "backend": backend,
    }
    if not FAST_EVENTS:
        return StepStarted.model_validate(fields)
    event = _new(StepStarted)
    _set(event, "__dict__", fields)
    _set(event, "__pydantic_fields_set__", _started_set)
    _set(event, "__pydantic_extra__", None)
    _set(event, "__pydantic_private__", None)
    return event


def step_succeeded(
    run_id: str,
    seq: int,
    ts: float,
    plan_version: int,
    step_id: str,
    attempt: int,
    output: Any,
    duration_s: float,
) -> StepSucceeded:
    fields = {
        "run_id": run_id,
        "seq": seq,
        "ts": ts,
        "plan_version": plan_version,
        "kind": "step_succeeded",
        "step_id": step_id,
        "attempt": attempt,
        "output": output,
        "duration_s": duration_s,
    }
    if not FAST_EVENTS:
        return StepSucceeded.model_validate(fields)
    event = _new(StepSucceeded)
    _set(event, "__dict__", fields)
    _set(event, "__pydantic_fields_set__", _succeeded_set)
    _set(event, "__pydantic_extra__", None)
    _set(event, "__pydantic_private__", None)
    return event


# ------------------------------------------------------------------------------ fan-out


class EventLog:
    """Events of one execution. ``keep=False`` keeps no history (subscribers see only new ones)."""

    def __init__(self, *, keep: bool = True) -> None:
        self.history: list[Event] | None = [] if keep else None
        self._subs: list[deque[Event]] = []
        self._news: asyncio.Future[None] | None = None
        self._closed = False

    def push(self, event: Any) -> None:
        if self.history is not None:
            self.history.append(event)
        for queue in self._subs:
            queue.append(event)
        if self._news is not None:  # someone waits: wake them (once per batch, not per event)
            self._wake()

    def close(self) -> None:
        """No more events: subscribers finish once they have drained their queues."""
        self._closed = True
        self._wake()

    def _wake(self) -> None:
        news = self._news
        if news is not None:
            self._news = None
            if not news.done():
                news.set_result(None)

    async def stream(self) -> AsyncIterator[Event]:
        """Every event (the kept history first), in order, until the log is closed."""
        queue: deque[Event] = deque(self.history or ())
        self._subs.append(queue)
        try:
            while True:
                while queue:
                    yield queue.popleft()
                if self._closed:
                    return
                if self._news is None:
                    self._news = asyncio.get_running_loop().create_future()
                # shield: a cancelled subscriber must not cancel the future the others wait on
                await asyncio.shield(self._news)
        finally:
            self._subs.remove(queue)
