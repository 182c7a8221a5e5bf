"""The recorder: the run's journal — it redacts events and commits them to a ``Store`` in groups.

The executor appends every event to it synchronously as it emits it (``append_nowait``; it is
the executor's ``Journal``), and it also works as an ordinary async event sink
(``await recorder(event)``). What it guarantees, and how:

- **Group commit per loop turn.** Appending only queues the event (serialized once, here). The
  first event of a loop turn schedules a commit for the end of the next turn (so the tasks those
  events woke — a finished step's other dependents — add their starts to it); the commit runs in
  the recorder's own writer thread — one transaction, one fsync — while the loop goes on, and
  whatever arrives meanwhile goes into the next commit, started the moment this one is on disk.
  A fan-out of 6,000 steps costs a handful of fsyncs, and a lone event waits one loop turn.
- **Write-ahead.** ``watch`` tells the executor about every commit (the highest durable
  ``seq``), so it calls no tool before the tool's ``step_started`` and its dependencies'
  ``step_succeeded`` are on disk; ``await recorder.wait_durable(run_id, seq)`` is the same for
  any other code about to do something irreversible (the write-ahead backends).
- **Order and all-or-nothing.** Events are committed in the order received; a failed commit
  stops the recorder (``StoreError`` on every later call, ``broken`` to the watchers) rather than
  leave a gap.

Secrets are removed before an event reaches the store (``forethought.oversight.redaction``),
including values registered while the run goes on (a resolved ``${env.NAME}``). The JSON text a
secret screen reads is the very text that is stored: an event is serialized once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor  # imported now, not at the first commit

from forethought.errors import StoreError
from forethought.events.kinds import Event, StepReady, StepStarted, StepSucceeded, event_to_json
from forethought.oversight.redaction import Redactor, default_redactor
from forethought.runs.store.base import Appended, LeaseLost, StepProgress, Store

_log = logging.getLogger(__name__)

# The events of every step (``step_ready`` too when a concurrency limit queues it): their JSON
# starts with the structural fields, ``kind`` last of them (``tests/test_recorder_screen.py``
# checks the field order of these classes).
_KIND_FIRST_AFTER_BASE = (StepReady, StepStarted, StepSucceeded)
_KIND_FIELD = ',"kind":"'


def payload_text(event: Event, body: str) -> str:
    """What of ``body`` (``event``'s JSON) the secret screen must read: all but its structural
    fields (run id, seq, ts, plan version, kind) for the per-step events, else all of it.

    What the redactor may rewrite (payload values and keys) lies wholly after the cut, so an
    event the full walk would change has an anchor there too; an anchor in the structural fields
    (a run id with ``api`` in it) only sent a clean event through the walk to come out as it
    went in. Screening the payload alone roughly halves the screen of a step's two events (each
    anchor is one substring search over the text).
    """
    if type(event) not in _KIND_FIRST_AFTER_BASE:
        return body
    # Inside a JSON string every ``"`` is escaped, so the first ``,"kind":"`` is the field itself.
    at = body.find(_KIND_FIELD)
    end = body.find('"', at + len(_KIND_FIELD)) if at >= 0 else -1
    return body[end + 1 :] if end >= 0 else body


def redacted_json(redactor: Redactor, event: Event) -> tuple[Event, str]:
    """``event`` without secrets, and its JSON: the one serialization the screen reads and the
    store keeps (a second only when something was redacted)."""
    body = event_to_json(event)
    if redactor.might_contain_secret(payload_text(event, body)):
        clean = redactor.redact_event(event)
        if clean is not event:
            return clean, event_to_json(clean)
    return event, body


OnCommit = Callable[[Sequence[Appended]], None]
Durable = Callable[[int], None]
Broken = Callable[[BaseException], None]


class Recorder:
    """``append_nowait(event)`` or ``await recorder(event)``; ``await recorder.aclose()`` at the end."""

    def __init__(
        self,
        store: Store,
        *,
        redactor: Redactor | None = None,
        redact: bool = True,
        max_batch: int = 20_000,
        max_pending: int = 100_000,
        on_commit: OnCommit | None = None,
        owner: str | None = None,
    ) -> None:
        self.store = store
        self.owner = owner  # when set, appends are fenced by the run's lease (see Store)
        # None with ``redact``: the process-wide redactor, looked up per event, so values
        # registered during the run (``${env.NAME}``, see ``register_secret``) are covered.
        self._redactor = redactor
        self._redact = redact
        self._max_batch = max_batch
        self._max_pending = max_pending
        self._on_commit = on_commit
        # What is queued for the next commit: each event's body, and the event itself — or,
        # for the per-step progress events, their ``StepProgress`` row (see there): a run's
        # progress events are most of its events, and a burst of them waits here for seconds.
        self._events: list[Appended] = []
        self._bodies: list[str] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._scheduled = False  # a commit is due at the end of the next loop turn
        self._inflight: asyncio.Future[None] | None = None
        # One writer thread of our own: commits are ordered, and never queue behind tool calls
        # in the loop's default executor.
        self._thread: ThreadPoolExecutor | None = None
        self._failed: BaseException | None = None
        self._closed = False
        self._committed_seq: dict[str, int] = {}
        self._news: asyncio.Future[None] | None = None
        self._watchers: list[tuple[Durable, Broken]] = []
        self._plan_texts: dict[str, str] = {}
        self.committed = 0
        self.commits = 0

    # ------------------------------------------------------------------ appending

    def append_nowait(self, event: Event, *, redacted: bool = False) -> None:
        """Queue ``event`` for the commit at the end of the next loop turn (``Journal``).

        ``redacted``: the caller removed secrets already (the ``Agent``'s pre-execution events).
        """
        self._check()
        if self._redact and not redacted:
            event, body = redacted_json(self._redactor or default_redactor(), event)
        else:
            body = event_to_json(event)
        if type(event) is StepStarted or type(event) is StepSucceeded:
            run_id, seq, ts, version = event.run_id, event.seq, event.ts, event.plan_version
            row = StepProgress(run_id, seq, event.kind, ts, version, event.step_id, event.attempt)
            self._events.append(row)
        elif type(event) is StepReady:
            row = StepProgress(
                event.run_id, event.seq, "step_ready", event.ts, event.plan_version, event.step_id, 0
            )
            self._events.append(row)
        else:
            self._events.append(event)
        self._bodies.append(body)
        if not self._scheduled and self._inflight is None:
            self._scheduled = True
            if self._loop is None:
                self._loop = asyncio.get_running_loop()
            self._loop.call_soon(self._commit_after_next_turn)

    async def __call__(self, event: Event) -> None:
        """The recorder as an async event sink."""
        self.append_nowait(event)
        if len(self._events) >= self._max_pending:
            await self.flush()  # back-pressure: the disk is far behind, bound our memory

    def know_plan(self, plan_hash: str, canonical_text: str) -> None:
        """The canonical JSON of a plan this run records: the store keeps it in
        ``plan_versions`` without rebuilding it from the event (it checks the hash)."""
        self._plan_texts[plan_hash] = canonical_text

    def watch(self, durable: Durable, broken: Broken) -> None:
        """Call ``durable(seq)`` after every commit, or ``broken(exc)`` once if recording fails."""
        self._watchers.append((durable, broken))

    # ------------------------------------------------------------------ committing

    def _commit_after_next_turn(self) -> None:
        """Commit once the tasks that this turn's events woke have run too.

        A step that finishes often readies several dependents; the executor opens the first in
        the finished step's own task and hands the others to fresh worker tasks, which run in
        the next loop turn. Committing at the end of this turn would put their ``step_started``
        in a second commit, started only when the first is on disk: two fsyncs before those
        steps may start (measured on Ray: ``bench/ray_backend/profile_ray.py``). One more turn
        lets them join this commit; a lone event waits one loop turn, not an fsync."""
        assert self._loop is not None
        self._loop.call_soon(self._commit_next)

    def _commit_next(self) -> None:
        """Start committing what is queued, unless a commit is in flight (it starts the next)."""
        self._scheduled = False
        if self._inflight is not None or not self._events or self._failed is not None:
            return
        n = self._max_batch
        events, bodies = self._events[:n], self._bodies[:n]
        del self._events[:n], self._bodies[:n]
        loop = self._loop
        assert loop is not None
        if self._thread is None:
            self._thread = ThreadPoolExecutor(1, thread_name_prefix="forethought-recorder")
        inflight = self._inflight = loop.run_in_executor(self._thread, self._append, events, bodies)
        inflight.add_done_callback(lambda done: self._committed(done, events))

    def _append(self, events: Sequence[Appended], bodies: Sequence[str]) -> None:
        self.store.append_many(events, owner=self.owner, bodies=bodies, plan_texts=self._plan_texts)

    def _committed(self, done: asyncio.Future[None], batch: Sequence[Appended]) -> None:
        self._inflight = None
        exc = done.exception() if not done.cancelled() else asyncio.CancelledError()
        if exc is not None:
            # A failed append leaves a hole we cannot fill correctly later: stop recording
            # and fail every later call rather than write a gapped log.
            _log.error(
                "recording %d events of run %s failed: %s",
                len(batch),
                batch[0].run_id if batch else "?",
                default_redactor().redact_text(f"{type(exc).__name__}: {exc}"),
            )
            self._failed = exc
            self._events.clear()
            self._bodies.clear()
            self._wake_waiters()
            for _, broken in self._watchers:
                broken(exc)
            return
        self.committed += len(batch)
        self.commits += 1
        committed = self._committed_seq
        for e in batch:
            committed[e.run_id] = e.seq
        last = batch[-1].seq
        self._wake_waiters()
        if self._on_commit is not None:
            self._on_commit(batch)
        for durable, _ in self._watchers:
            durable(last)
        if self._events and not self._scheduled:
            self._commit_next()  # everything that arrived during this fsync, in one more

    async def flush(self) -> None:
        """Commit everything queued so far; returns once it is durable (``StoreError`` if not)."""
        while True:
            self._check()
            if self._inflight is None:
                if not self._events:
                    return
                self._commit_next()
            inflight = self._inflight
            assert inflight is not None
            if inflight.done():
                # Landed, but its bookkeeping (``_committed``, a done-callback) runs on the next
                # loop turn: awaiting the done future would not yield, and this would spin.
                await asyncio.sleep(0)
            else:
                await asyncio.shield(inflight)

    def committed_seq(self, run_id: str) -> int:
        """Highest seq of ``run_id`` known to be durable (-1: none yet)."""
        return self._committed_seq.get(run_id, -1)

    async def wait_durable(self, run_id: str, seq: int) -> None:
        """Return once event ``seq`` of ``run_id`` (and all before it) is committed."""
        while self._committed_seq.get(run_id, -1) < seq:
            self._check()
            if self._news is None or self._news.done():
                self._news = asyncio.get_running_loop().create_future()
            await asyncio.shield(self._news)

    def _wake_waiters(self) -> None:
        news, self._news = self._news, None
        if news is not None and not news.done():
            news.set_result(None)

    def _check(self) -> None:
        if isinstance(self._failed, LeaseLost):
            raise LeaseLost(str(self._failed))  # callers tell a take-over from a broken disk
        if self._failed is not None:
            raise StoreError(
                f"recording this run failed ({self._failed}); the run cannot be recorded further"
            )

    async def aclose(self) -> None:
        """Flush what is queued and stop the writer; ``StoreError`` if recording failed.

        Raising here matters: a run whose record is incomplete must not look like a success.
        """
        self._closed = True
        try:
            await self.flush()
        finally:
            if self._inflight is not None:  # cancelled while a commit was on its way: let it land
                await asyncio.gather(self._inflight, return_exceptions=True)
            if self._thread is not None:
                self._thread.shutdown(wait=False)
                self._thread = None

    async def __aenter__(self) -> Recorder:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
