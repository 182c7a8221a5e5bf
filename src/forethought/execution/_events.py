"""The executor's event plumbing: the two per-step events, and ordered fan-out.

``EventLog`` fans a run's events out to any number of subscribers, each at its own pace. The
scheduler appends synchronously (no await on the hot path); each subscriber has its own queue and
wakes on a shared future, so a slow subscriber only lags — it never blocks the scheduler and never
sees events out of order.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Any

from forethought.events.kinds import Event, StepReady, StepStarted, StepSucceeded

# ------------------------------------------------------------------------------ per-step events
#
# ``step_started`` and ``step_succeeded`` are emitted once per step each, and validated like
# every other event: the fields go to the class's own pydantic-core validator as one dict, which
# is what ``StepStarted(**fields)`` does too, minus the keyword packing and ``BaseModel.__init__``
# around it (4.1 against 7.2 µs an event, measured side by side; ``model_construct`` is slower
# still, 7–13 µs, being Python). The result is the same model instance, state and all
# (``tests/test_step_event_fast_path.py``); nothing of pydantic's is written to.

_validate_started = StepStarted.__pydantic_validator__.validate_python
_validate_succeeded = StepSucceeded.__pydantic_validator__.validate_python


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
    event: StepStarted = _validate_started(
        {
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
    )
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
    event: StepSucceeded = _validate_succeeded(
        {
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
    )
    return event


# ------------------------------------------------------------------------------ fan-out


# The per-step progress events: three of every step's events, most of a large run's memory
# when kept (~2.7 KB a step). With a journal the store holds them (see ``EventLog``).
PROGRESS_EVENTS: frozenset[type[Any]] = frozenset((StepReady, StepStarted, StepSucceeded))


class EventLog:
    """Events of one execution. ``keep=False`` keeps no history (subscribers see only new ones).

    ``unkept``: event classes left out of the kept history (they still reach the tap and every
    subscriber): with a journal, the per-step progress events, which the store holds; a
    100,000-step run kept ~270 MB of them for nothing. Whoever reads the history then must not
    need them (the executor's own readers take those facts from the run's state)."""

    def __init__(
        self,
        *,
        keep: bool = True,
        tap: Callable[[Event], None] | None = None,
        unkept: frozenset[type[Any]] = frozenset(),
    ) -> None:
        self.history: list[Event] | None = [] if keep else None
        self.tap = tap
        """Called with every event as it is pushed, before any subscriber sees it (the journal)."""
        self._unkept = unkept
        # Each subscriber's queue, and the event classes it ignores (never queued for it).
        self._subs: list[tuple[deque[Event], frozenset[type[Any]]]] = []
        # Called with each event as it is pushed (``listen``), but those of classes they ignore.
        self._listeners: list[tuple[Callable[[Event], None], frozenset[type[Any]]]] = []
        self._news: asyncio.Future[None] | None = None
        self._closed = False

    def push(self, event: Any) -> None:
        if self.tap is not None:
            self.tap(event)
        cls = type(event)
        if self.history is not None and cls not in self._unkept:
            self.history.append(event)
        for listener, ignores in self._listeners:
            if cls not in ignores:
                listener(event)
        for queue, ignores in self._subs:
            if cls not in ignores:
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

    def stream(self, ignores: frozenset[type[Any]] = frozenset()) -> Subscription:
        """Every event (the kept history first), in order, until the log is closed — but those
        of the classes in ``ignores``, which are never queued for it.

        Registered now, not when first advanced: every event pushed from here on reaches it,
        kept or not (the executor's sinks subscribe before its first event). Iterate it to the
        end or close it (``aclose``, also before its first event): it queues events until then."""
        queue: deque[Event] = deque(e for e in self.history or () if type(e) not in ignores)
        self._subs.append((queue, ignores))
        return Subscription(self, queue)

    def listen(self, listener: Callable[[Event], None], ignores: frozenset[type[Any]] = frozenset()) -> None:
        """Call ``listener`` with every event, synchronously and in order — the kept history at
        once, then each event as it is pushed — but those of the classes in ``ignores``: what a
        ``stream`` subscriber would see, without its queue and task (``_parts.inline_of``)."""
        for event in self.history or ():
            if type(event) not in ignores:
                listener(event)
        self._listeners.append((listener, ignores))

    def unlisten(self, listener: Callable[[Event], None]) -> None:
        self._listeners = [entry for entry in self._listeners if entry[0] is not listener]

    async def _news_of(self) -> None:
        if self._news is None:
            self._news = asyncio.get_running_loop().create_future()
        # shield: a cancelled subscriber must not cancel the future the others wait on
        await asyncio.shield(self._news)

    def _leave(self, queue: deque[Event]) -> None:
        self._subs = [sub for sub in self._subs if sub[0] is not queue]


class Subscription:
    """One subscriber's events (``EventLog.stream``): an async iterator that leaves the log when
    it ends, fails, is cancelled or is closed — before its first event too (an async generator
    closed before it started would run no cleanup and stay registered, queueing for nobody)."""

    def __init__(self, log: EventLog, queue: deque[Event]) -> None:
        self._log = log
        self._queue: deque[Event] | None = queue

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> Event:
        queue = self._queue
        if queue is None:
            raise StopAsyncIteration
        try:
            while not queue:
                if self._log._closed:
                    raise StopAsyncIteration
                await self._log._news_of()
        except BaseException:
            self._close()
            raise
        return queue.popleft()

    async def aclose(self) -> None:
        self._close()

    def _close(self) -> None:
        if self._queue is not None:
            self._log._leave(self._queue)
            self._queue = None
