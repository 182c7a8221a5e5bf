"""The run queue: runs submitted for workers, claimed with the run's lease.

``forethought submit`` records a run (its plan and approvals) and queues it; each
``forethought worker`` claims queued runs and drives them like ``resume`` does. A claim *is*
taking the run's lease (same table, same fencing), so a worker that dies stops renewing, its
lease expires (or, on the same host, its process is seen dead) and another worker claims the
run again, under the usual resume rules: finished steps are kept, an interrupted step that is
not idempotent waits for a person's review.

A queue entry is ``queued`` (a worker should drive it), ``held`` (it stopped for a person:
approval, review of an interrupted step, a budget) or ``done`` (the run finished). The run
itself, as always, is the event log; the entry only says who should act next.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

QueueState = Literal["queued", "held", "done"]


@dataclass(frozen=True, slots=True)
class Claim:
    """A queued run this worker now holds the lease of (``owner``), and how often it was claimed
    before (``claims`` > 1: a worker died or gave it up mid-run)."""

    run_id: str
    owner: str
    claims: int
    expires_at: float


@dataclass(frozen=True, slots=True)
class QueueEntry:
    run_id: str
    state: QueueState
    submitted_at: float
    claims: int
    worker: str | None  # the owner id of the last claim
    note: str


@runtime_checkable
class RunQueue(Protocol):
    """What a store shared by workers provides on top of ``Store``."""

    def enqueue(self, run_id: str) -> None:
        """Queue a recorded run for the workers (again, if it was held or done)."""
        ...

    def claim(self, owner: str, ttl_s: float) -> Claim | None:
        """Take the lease of the oldest queued run nobody holds (or whose holder's lease expired
        or who died on this host); ``None`` when there is none. Atomic: two workers never claim
        the same run. A run whose last claimant released its lease is left to that claimant
        for ``ttl_s`` (it settles the entry right after releasing)."""
        ...

    def settle(self, run_id: str, owner: str, state: QueueState, note: str = "") -> bool:
        """Set the entry's state — only if ``owner`` made the last claim (a worker that lost the
        run to another must not overwrite the new holder's entry). True if it did."""
        ...

    def queue_entries(self, run_ids: list[str] | None = None) -> list[QueueEntry]:
        """Entries (all, or of ``run_ids``), oldest submission first."""
        ...


__all__ = ["Claim", "QueueEntry", "QueueState", "RunQueue"]
