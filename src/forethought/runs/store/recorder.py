"""The recorder: an async event sink that redacts events and appends them to a ``Store``.

Plug it into the executor's sinks. What it guarantees, and how:

- **Group commit.** ``await recorder(event)`` only queues the event; a background writer task
  commits everything queued in one transaction, and whatever arrives while a commit (an fsync)
  is in flight goes into the next one. Under load one fsync covers hundreds of events; the
  scheduler never waits for the disk.
- **Write-ahead where it matters.** Code about to do something irreversible calls
  ``await recorder.wait_durable(run_id, seq)`` and resumes only once the record of everything up
  to ``seq`` is committed. The write-ahead backends (``store._writeahead``) do this before every
  non-idempotent tool call, so a crash can never hide that such a call may have started.
- **Order and all-or-nothing.** Events are committed in the order received; a failed append
  stops the recorder (``StoreError`` on every later call) rather than leave a gap.

Chatty events with nothing durable behind them (a lone ``run_created``, ``step_ready``) linger
for at most ``max_delay_s`` so they share a commit with what follows.

Secrets are removed before an event reaches the store (``forethought.oversight.redaction``),
including values registered while the run goes on (a resolved ``${env.NAME}``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence

from forethought.errors import StoreError
from forethought.events.kinds import Event
from forethought.oversight.redaction import Redactor, default_redactor
from forethought.runs.store.base import LeaseLost, Store

# Kinds that are committed as soon as the writer can; anything else may linger ``max_delay_s``.
# ``run_created`` lingers on purpose: alone it is useless to a resume (no plan yet), so it is
# committed together with the plan that follows it.
DURABLE_KINDS: frozenset[str] = frozenset(
    {
        "plan_proposed",
        "plan_validated",
        "plan_approved",
        "plan_revised",
        "approval_requested",
        "approval_decided",
        "step_started",
        "step_process",  # pid/pgid of a tool: resume's orphan check needs it soon (issue 15/6)
        "step_succeeded",
        "step_failed",
        "step_skipped",
        "step_cancelled",
        "step_needs_review",
        "check_failed",
        "replan_requested",
        "budget_exceeded",
        "compensation_started",
        "compensation_succeeded",
        "compensation_failed",
        "run_paused",
        "run_resumed",
        "run_finished",
    }
)

OnCommit = Callable[[Sequence[Event]], None]


class Recorder:
    """``await recorder(event)``; ``await recorder.aclose()`` when the run ends (flushes)."""

    def __init__(
        self,
        store: Store,
        *,
        redactor: Redactor | None = None,
        redact: bool = True,
        durable_kinds: frozenset[str] = DURABLE_KINDS,
        max_batch: int = 5000,
        max_pending: int = 50_000,
        max_delay_s: float = 0.05,
        on_commit: OnCommit | None = None,
        owner: str | None = None,
    ) -> None:
        self.store = store
        self.owner = owner  # when set, appends are fenced by the run's lease (see Store)
        # None with ``redact``: the process-wide redactor, looked up per event, so values
        # registered during the run (``${env.NAME}``, see ``register_secret``) are covered.
        self._redactor = redactor
        self._redact = redact
        self._durable = durable_kinds
        self._max_batch = max_batch
        self._max_pending = max_pending
        self._max_delay_s = max_delay_s
        self._on_commit = on_commit
        self._pending: list[Event] = []
        self._urgent = False
        self._lock = asyncio.Lock()
        self._kick: asyncio.Event | None = None
        self._writer: asyncio.Task[None] | None = None
        self._failed: BaseException | None = None
        self._closed = False
        self._committed_seq: dict[str, int] = {}
        self._news: asyncio.Future[None] | None = None
        self.committed = 0
        self.commits = 0

    async def __call__(self, event: Event) -> None:
        self._check()
        if self._redact:
            event = (self._redactor or default_redactor()).redact_event(event)
        self._pending.append(event)
        if event.kind in self._durable:
            self._urgent = True
        self._start_writer()
        if len(self._pending) >= self._max_pending:
            await self.flush()  # back-pressure: the disk is far behind, bound our memory

    def _start_writer(self) -> None:
        if self._kick is None:
            self._kick = asyncio.Event()
        if self._writer is None and not self._closed:
            self._writer = asyncio.get_running_loop().create_task(
                self._write_loop(), name="forethought-recorder"
            )
        self._kick.set()

    async def _write_loop(self) -> None:
        assert self._kick is not None
        while True:
            await self._kick.wait()
            self._kick.clear()
            if not self._urgent and self._pending:
                # Nothing durable queued: give followers a moment to share the commit.
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wait_urgent(), self._max_delay_s)
            try:
                await self.flush()
            except Exception:
                return  # recorded in self._failed; surfaced to the next caller

    async def _wait_urgent(self) -> None:
        assert self._kick is not None
        while not self._urgent:
            await self._kick.wait()
            self._kick.clear()

    async def flush(self) -> None:
        """Commit everything queued so far; returns once it is durable."""
        async with self._lock:
            self._check()
            while self._pending:
                batch = self._pending[: self._max_batch]
                del self._pending[: len(batch)]
                self._urgent = any(e.kind in self._durable for e in self._pending)
                try:
                    await asyncio.to_thread(self._append, batch)
                except BaseException as exc:
                    # A failed append leaves a hole we cannot fill correctly later: stop
                    # recording and fail every later call rather than write a gapped log.
                    self._failed = exc
                    self._wake_waiters()
                    raise
                self.committed += len(batch)
                self.commits += 1
                for e in batch:
                    self._committed_seq[e.run_id] = e.seq
                self._wake_waiters()
                if self._on_commit is not None:
                    self._on_commit(batch)

    def _append(self, batch: Sequence[Event]) -> None:
        self.store.append_many(batch, owner=self.owner)

    def committed_seq(self, run_id: str) -> int:
        """Highest seq of ``run_id`` known to be durable (-1: none yet)."""
        return self._committed_seq.get(run_id, -1)

    async def wait_durable(self, run_id: str, seq: int) -> None:
        """Return once event ``seq`` of ``run_id`` (and all before it) is committed.

        The executor hands events to sinks asynchronously; this is how a caller about to do
        something irreversible waits for the record of it to be on disk first.
        """
        while self._committed_seq.get(run_id, -1) < seq:
            self._check()
            if self._pending:
                self._urgent = True
                self._start_writer()
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
            if self._writer is not None:
                self._writer.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._writer
                self._writer = None

    async def __aenter__(self) -> Recorder:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
