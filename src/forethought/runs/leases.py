"""Run leases: one process drives a run at a time.

A process driving a run holds a lease row (owner id + expiry) taken in a ``BEGIN IMMEDIATE``
transaction and renewed while it runs. A second ``resume`` of the same run gets ``LeaseHeld``
(one line, exit code 3) instead of racing the first into duplicate work. Writers outside a run
(an approval, a review of interrupted steps) append under the same lease.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from forethought.errors import StoreError
from forethought.events.kinds import Event
from forethought.events.state import RunState, fold
from forethought.runs.store.base import LeaseLost, Store
from forethought.runs.store.sqlite import new_owner_id

DEFAULT_LEASE_TTL_S = 30.0


@contextlib.asynccontextmanager
async def held_lease(
    store: Store,
    run_id: str,
    *,
    owner: str | None = None,
    ttl_s: float = DEFAULT_LEASE_TTL_S,
    on_lost: Callable[[], None] | None = None,
) -> AsyncIterator[str]:
    """Hold the run's lease for the block, renewing it every ``ttl_s/3``; yields the owner id."""
    owner = owner or new_owner_id()
    await asyncio.to_thread(store.acquire_lease, run_id, owner, ttl_s)

    async def renew() -> None:
        while True:
            await asyncio.sleep(ttl_s / 3)
            try:
                await asyncio.to_thread(store.renew_lease, run_id, owner, ttl_s)
            except LeaseLost:
                if on_lost is not None:
                    on_lost()
                return
            except StoreError:
                continue  # e.g. locked for a long time: try again; fencing covers the gap

    task = asyncio.get_running_loop().create_task(renew(), name=f"lease-{run_id}")
    try:
        yield owner
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await asyncio.to_thread(store.release_lease, run_id, owner)


def append_under_lease(
    store: Store,
    run_id: str,
    build: Callable[[RunState], list[dict[str, Any]]],
    *,
    owner: str | None = None,
    ttl_s: float = DEFAULT_LEASE_TTL_S,
) -> list[Event]:
    """Append events computed from the run's current state, holding its lease meanwhile.

    ``build`` returns field dicts with the event class under ``"cls"``; sequence numbers and the
    plan version are filled in here. Raises ``LeaseHeld`` if another process drives the run.
    """
    owner = owner or new_owner_id()
    store.acquire_lease(run_id, owner, ttl_s)
    try:
        state = fold(store.events(run_id))
        stamped: list[Event] = []
        for i, fields in enumerate(build(state)):
            fields = dict(fields)
            cls = fields.pop("cls")
            stamped.append(
                cls(run_id=run_id, seq=state.last_seq + 1 + i, plan_version=state.plan_version, **fields)
            )
        store.append_many(stamped, owner=owner)
        return stamped
    finally:
        store.release_lease(run_id, owner)
