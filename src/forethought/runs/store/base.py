"""The ``Store`` contract: an append-only event log per run plus the summaries readers need.

The log is the source of truth (``state.fold`` rebuilds a run from it); ``runs``, ``steps`` and
``plan_versions`` are materialized from it in the same transaction so listing runs never needs a
fold. Every backend must pass ``tests/test_store_conformance.py``.

The protocol is synchronous on purpose: SQLite calls are short and blocking, and the async
``Recorder`` moves them to a worker thread in batches. A backend for a remote database would
implement the same methods and be wrapped the same way.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol, runtime_checkable

from forethought.errors import StoreError, UserError
from forethought.events.kinds import Event


class SequenceError(StoreError):
    """An append would leave a gap or a duplicate in a run's sequence numbers."""


class LeaseHeld(UserError):
    """Another live process is driving this run; the message says who and until when."""

    exit_code = 3

    def __init__(self, run_id: str, owner: str, expires_at: float) -> None:
        super().__init__(
            f"run {run_id} is already being resumed by {owner} (lease until "
            f"{_fmt_time(expires_at)}); wait for it to finish or for the lease to expire"
        )
        self.run_id = run_id
        self.owner = owner
        self.expires_at = expires_at


class RecordModified(UserError):
    """A run's stored record fails verification (``runs.integrity``): it was changed outside
    forethought, so nothing may act on it or append to it (appending would seal the change)."""

    exit_code = 2


class LeaseLost(StoreError):
    """Our lease on a run expired or was taken over; we must stop writing to it."""


def _fmt_time(ts: float) -> str:
    import time

    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts))


class StepProgress(NamedTuple):
    """A per-step progress event (``step_ready``, ``step_started``, ``step_succeeded``) as a
    store needs it beside the event's JSON body: the fields it writes and materializes.

    The recorder holds this instead of the event until the event is committed: one small tuple
    against a model, its field dict and field set, arguments and output. A fan-out of 100,000
    steps queued by a concurrency limit made 100,000 ``step_ready`` events in one loop turn, all
    held until their commits (``bench/exec_scale``). ``attempt`` is 0 for ``step_ready``.
    """

    run_id: str
    seq: int
    kind: str
    ts: float
    plan_version: int
    step_id: str
    attempt: int


# What ``Store.append_many`` takes: events, or the progress rows of some (bodies given).
Appended = Event | StepProgress


@dataclass(frozen=True, slots=True)
class RunRow:
    run_id: str
    goal: str
    status: str
    created_at: float
    updated_at: float
    plan_version: int
    plan_hash: str
    last_seq: int
    input_tokens: int
    output_tokens: int
    cost_usd: float


@dataclass(frozen=True, slots=True)
class StepRow:
    run_id: str
    step_id: str
    status: str
    attempts: int
    started_at: float | None
    ended_at: float | None
    error: str | None


@dataclass(frozen=True, slots=True)
class PlanVersionRow:
    run_id: str
    version: int
    hash: str
    plan_json: str
    created_at: float


@dataclass(frozen=True, slots=True)
class ChainRow:
    """One stored event as written: its body and the chain hash before it (hex)."""

    seq: int
    kind: str
    body: str
    prev_hash: str


@dataclass(frozen=True, slots=True)
class RecordChain:
    """What ``runs.integrity`` checks: the stored events, the chain head and its seal."""

    run_id: str
    rows: list[ChainRow]
    head: str
    seal: str


@dataclass(frozen=True, slots=True)
class Lease:
    run_id: str
    owner: str
    acquired_at: float
    expires_at: float


@runtime_checkable
class Store(Protocol):
    """Durable home of runs. Implementations must be safe to share between threads."""

    def append(self, event: Event, *, owner: str | None = None) -> None:
        """Append one event durably (same contract as ``append_many([event])``)."""
        ...

    def append_many(
        self,
        events: Sequence[Appended],
        *,
        owner: str | None = None,
        bodies: Sequence[str] | None = None,
        plan_texts: Mapping[str, str] | None = None,
    ) -> None:
        """Append events in one transaction: all or nothing.

        ``bodies``: the events' JSON text (``event_to_json``) when the caller has it already —
        required when ``events`` holds a ``StepProgress`` (the row of an event, not the event);
        ``plan_texts``: canonical plan JSON by plan hash, for plans the caller holds (used only
        when the text's sha256 is that hash; otherwise the store rebuilds it from the event).

        Per run, sequence numbers must continue exactly from the last stored one (the first event
        of a run has seq 0); otherwise ``SequenceError`` and nothing is written. With ``owner``
        the append is fenced: it succeeds only while ``owner`` holds each run's lease (checked in
        the same transaction), else ``LeaseLost`` — so a process that stalled past its lease and
        woke up cannot interleave its writes with the new owner's.
        """
        ...

    def events(self, run_id: str, *, after_seq: int = -1) -> list[Event]:
        """The run's events with ``seq > after_seq``, in order."""
        ...

    def iter_events(self, run_id: str, *, after_seq: int = -1, batch: int = 1000) -> Iterator[Event]:
        """Like ``events`` but streamed, for runs too long to hold twice in memory."""
        ...

    def last_seq(self, run_id: str) -> int:
        """Highest stored seq of the run, -1 when it has none."""
        ...

    def get_run(self, run_id: str) -> RunRow | None: ...

    def find_runs(self, prefix: str) -> list[str]:
        """Run ids starting with ``prefix``, newest first (so users can type a few characters)."""
        ...

    def list_runs(self, *, limit: int | None = None) -> list[RunRow]:
        """Newest first."""
        ...

    def steps(self, run_id: str) -> list[StepRow]: ...

    def plan_versions(self, run_id: str) -> list[PlanVersionRow]: ...

    def record_chain(self, run_id: str) -> RecordChain | None:
        """The run's events as stored (body + the chain hash before each), its chain head and the
        head's seal, read in one snapshot; ``None`` for an unknown run. Appends must extend the
        chain as ``store._chain`` describes."""
        ...

    def record_key(self) -> bytes:
        """The key that seals this store's chain heads (checked by ``runs.integrity``)."""
        ...

    def acquire_lease(self, run_id: str, owner: str, ttl_s: float) -> Lease:
        """Take the run's lease or raise ``LeaseHeld``. A stale lease (expired, or held by a
        dead process on this host) is taken over."""
        ...

    def renew_lease(self, run_id: str, owner: str, ttl_s: float) -> Lease:
        """Extend our lease; ``LeaseLost`` if it is no longer ours."""
        ...

    def release_lease(self, run_id: str, owner: str) -> None: ...

    def get_lease(self, run_id: str) -> Lease | None: ...

    def close(self) -> None: ...
