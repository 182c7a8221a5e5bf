"""``forethought worker``: drive queued runs from a shared run database, any number at once.

Each worker claims queued runs (``runs.store.queue``): a claim takes the run's lease, and the
worker resumes the run exactly as ``forethought resume`` would — the recorded tools, workspace
and signed approvals, finished steps kept, an interrupted non-idempotent step left for a person
to review. The lease is renewed while the run goes on; a worker that dies stops renewing and
another worker claims the run once the lease expired (or at once, on the same host, when the
dead process is seen gone). Whatever a run stops for — approval, review, a budget — the queue
entry becomes ``held`` with the reason, and ``forethought runs`` shows it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from forethought.errors import StoreError, UserError
from forethought.interfaces.config import Config
from forethought.runs.leases import DEFAULT_LEASE_TTL_S
from forethought.runs.store.base import LeaseHeld
from forethought.runs.store.opening import open_store
from forethought.runs.store.queue import Claim, RunQueue
from forethought.runs.store.sqlite import new_owner_id

FINISHED = ("succeeded", "failed", "cancelled")
LOST_LEASE = "lost the run lease"


@dataclass(frozen=True)
class WorkerOptions:
    concurrency: int = 1  # runs driven at once by this worker
    poll_s: float = 1.0  # how often to look for queued runs when idle
    lease_ttl_s: float = DEFAULT_LEASE_TTL_S  # a dead worker's runs are claimable after this
    until_empty: bool = False  # exit once no run is queued (batch jobs, tests)
    extra_tools: Sequence[str] = ()  # --tools beyond the ones each run recorded


class Worker:
    """One worker process's loop. ``say`` receives one line per claim and per outcome."""

    def __init__(self, cfg: Config, options: WorkerOptions, say: Callable[[str], None]) -> None:
        self.cfg = cfg
        self.options = options
        self.say = say
        self.driven = 0
        self._stopping = False

    def stop(self) -> None:
        """Claim nothing more; runs in progress go on (cancel the task to pause them)."""
        self._stopping = True

    async def serve(self) -> int:
        """Claim and drive runs until stopped (or, with ``until_empty``, until none is queued)."""
        store = open_store(self.cfg.db)
        try:
            if not isinstance(store, RunQueue):
                raise UserError(
                    f"{self.cfg.db or 'the default run database'}: workers need a shared run "
                    "database; pass --db postgresql://…"
                )
            await self._loop(store)
        finally:
            store.close()
        return self.driven

    async def _loop(self, store: Any) -> None:
        running: set[asyncio.Task[None]] = set()
        try:
            while True:
                while len(running) < self.options.concurrency and not self._stopping:
                    claim = await asyncio.to_thread(store.claim, new_owner_id(), self.options.lease_ttl_s)
                    if claim is None:
                        break
                    again = f" (claim {claim.claims})" if claim.claims > 1 else ""
                    self.say(f"{claim.run_id}: claimed by {claim.owner}{again}")
                    task = asyncio.create_task(self._drive(store, claim), name=f"run-{claim.run_id}")
                    running.add(task)
                if not running and (
                    self._stopping
                    or (self.options.until_empty and not await asyncio.to_thread(_queued, store))
                ):
                    return
                if running:
                    done, _ = await asyncio.wait(
                        running, timeout=self.options.poll_s, return_when=asyncio.FIRST_COMPLETED
                    )
                    running -= done
                else:
                    await asyncio.sleep(self.options.poll_s)
        finally:
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)

    async def _drive(self, store: Any, claim: Claim) -> None:
        """Resume one claimed run and record in its queue entry what should happen next."""
        run_id, owner = claim.run_id, claim.owner
        try:
            row = await asyncio.to_thread(store.get_run, run_id)
            if row is not None and row.status in FINISHED:
                await self._settle(store, claim, "done", row.status)
                return
            outcome = await self._resume(store, claim)
        except LeaseHeld:
            return  # someone (a person's `resume`) holds it now; the queue entry stays queued
        except StoreError as exc:
            # The database failed under us: the lease will expire and a worker will try again.
            self.say(f"{run_id}: {exc}")
            return
        except UserError as exc:
            await self._settle(store, claim, "held", str(exc))
            with contextlib.suppress(StoreError):
                await asyncio.to_thread(store.release_lease, run_id, owner)
            return
        self.driven += 1
        status, reason = outcome
        if reason.startswith(LOST_LEASE):
            self.say(f"{run_id}: another worker took it over")
        elif status in FINISHED:
            await self._settle(store, claim, "done", status)
        elif self._stopping and "interrupted" in reason:
            await self._settle(store, claim, "queued", "worker stopped")
        else:
            await self._settle(store, claim, "held", f"{status}: {reason}")

    async def _resume(self, store: Any, claim: Claim) -> tuple[str, str]:
        from forethought.interfaces.session import open_agent, recorded_setup
        from forethought.runs.resume import NothingToResume

        events = await asyncio.to_thread(store.events, claim.run_id)
        setup = recorded_setup(events)
        tools = list(dict.fromkeys([*setup.get("tools", []), *self.options.extra_tools]))
        async with open_agent(self.cfg, {**setup, "tools": tools}, store=store) as agent:
            try:
                result = await agent.resume(
                    claim.run_id, owner=claim.owner, lease_ttl_s=self.options.lease_ttl_s
                )
            except NothingToResume as exc:
                return "failed", str(exc)
        state = result.state
        reason = state.reason or ""
        review = sorted(sid for sid, st in state.steps.items() if st.status == "needs_review")
        if review:
            reason = (
                f"{reason} (review {', '.join(review)}: forethought resume {claim.run_id} "
                "--mark-succeeded STEP or --retry STEP)"
            )
        return state.status, reason

    async def _settle(self, store: Any, claim: Claim, state: str, note: str) -> None:
        self.say(f"{claim.run_id}: {note}")
        with contextlib.suppress(StoreError):
            await asyncio.to_thread(store.settle, claim.run_id, claim.owner, state, note)


def _queued(store: Any) -> bool:
    return any(e.state == "queued" for e in store.queue_entries())


__all__ = ["Worker", "WorkerOptions"]
