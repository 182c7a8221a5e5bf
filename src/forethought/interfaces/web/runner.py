"""What the web UI does to runs: start, approve, edit, reject, review, resume, cancel.

Each action calls what the CLI command of the same name calls — ``Agent.run`` / ``approve`` /
``resume``, ``runs.approval.grant_approval`` (through ``Agent.approve``), ``runs.review`` — so an
approval from the browser is the same signed, hash-bound record as ``forethought approve``. Runs
started or continued here execute as tasks on the server's event loop; every event they emit
bumps ``Changes``, which wakes the Server-Sent Events streams (which then read the store: the
store is the one source of truth, and runs driven by another process show up too).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forethought.agent import Agent
from forethought.errors import UserError
from forethought.events import kinds as E
from forethought.events.kinds import Event
from forethought.events.state import FINISHED_RUN_STATUSES, fold
from forethought.oversight.approvals import ApprovalGate, default_approver, needs_new_approval
from forethought.oversight.approvals import recorded_plans_and_approvals as recorded
from forethought.oversight.redaction import redact_text
from forethought.plan.files import check_data, parse_text
from forethought.plan.model import Plan
from forethought.runs.integrity import refuse_if_modified
from forethought.runs.review import InterruptedStepsReview, record_review
from forethought.runs.run_ids import resolve_run_id
from forethought.runs.store.base import Store
from forethought.runs.store.sqlite import new_owner_id
from forethought.tools.base import ToolSpec

# (recorded tool setup, model override) → an open Agent for the duration of the block.
AgentOpener = Callable[[Mapping[str, Any], str | None], contextlib.AbstractAsyncContextManager[Agent]]
WAITING = ("awaiting_approval", "paused")


class Changes:
    """A counter bumped on every event of a run this server drives; waiters wake on a bump."""

    def __init__(self) -> None:
        self.version = 0
        self._event = asyncio.Event()

    def bump(self) -> None:
        self.version += 1
        self._event.set()
        self._event = asyncio.Event()

    async def wait(self, since: int, timeout_s: float) -> int:
        """Return at the next bump after ``since``, or after ``timeout_s`` (a run driven by another
        process bumps nothing here: the caller re-reads the store on the timeout too)."""
        if self.version == since:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._event.wait(), timeout_s)
        return self.version


@dataclass(frozen=True)
class NewRun:
    goal: str
    model: str | None = None
    tools: tuple[str, ...] | None = None  # tool files (None: the configured ones)
    builtins: tuple[str, ...] | None = None  # enabled built-ins (None: the configured ones)
    # "read_only": read-only steps start as the plan streams in; side effects wait for approval.
    # "none": the whole plan waits for review.
    approve: str = "read_only"


@dataclass
class RunManager:
    store: Store
    open_agent: AgentOpener
    base_setup: Mapping[str, Any]
    approver: str = field(default_factory=lambda: f"{default_approver()} (web UI)")
    changes: Changes = field(default_factory=Changes)
    tasks: dict[str, asyncio.Task[Any]] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)  # run id → why its last action failed
    _specs: dict[str, dict[str, ToolSpec]] = field(default_factory=dict)

    # ------------------------------------------------------------------ helpers

    async def _sink(self, event: Event) -> None:
        self.changes.bump()

    def driving(self, run_id: str) -> bool:
        task = self.tasks.get(run_id)
        return task is not None and not task.done()

    def _recorded_setup(self, run_id: str) -> dict[str, Any]:
        from forethought.interfaces.session import recorded_setup

        return recorded_setup(self.store.events(run_id))

    def _spawn(self, run_id: str, work: Callable[[], Any]) -> None:
        if self.driving(run_id):
            raise UserError(f"run {run_id} is already running in this server")

        async def guarded() -> None:
            try:
                await work()
            except UserError as exc:
                self.notes[run_id] = redact_text(str(exc))
            except Exception as exc:  # shown on the run page: the server keeps serving
                self.notes[run_id] = f"{type(exc).__name__}: {redact_text(str(exc))}"
            finally:
                self.changes.bump()

        self.notes.pop(run_id, None)
        self.tasks[run_id] = asyncio.get_running_loop().create_task(guarded(), name=f"web-{run_id}")

    def resolve(self, run_id: str) -> str:
        return resolve_run_id(self.store, run_id)

    # ------------------------------------------------------------------ new run

    async def start(self, new: NewRun) -> str:
        """Start planning ``new.goal``; returns the run id as soon as it is known."""
        if not new.goal.strip():
            raise UserError("the goal is empty; say what you want done")
        setup = dict(self.base_setup)
        if new.tools is not None:
            setup["tools"] = await asyncio.to_thread(_absolute, new.tools)
        if new.builtins is not None:
            setup["builtins"] = list(new.builtins)
        known: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        holder: list[Agent] = []

        async def sink(event: Event) -> None:
            if not known.done():
                known.set_result(event.run_id)
            await self._sink(event)

        async def work() -> None:
            async with self.open_agent(setup, new.model) as agent:
                holder.append(agent)
                try:
                    await agent.run(
                        new.goal,
                        approve="read_only" if new.approve == "read_only" else "none",
                        on_event=sink,
                        run_config={"setup": setup, "via": "web"},
                        stream=new.approve == "read_only",
                    )
                finally:
                    if not known.done() and agent.last_run_id:
                        known.set_result(agent.last_run_id)

        task = asyncio.get_running_loop().create_task(work(), name="web-new-run")
        # The run id exists once the agent starts the run (before planning for a reviewed run,
        # at the executor's first event for a streamed one); a failure before that is the answer.
        while not known.done() and not task.done():
            if holder and holder[0].last_run_id:
                known.set_result(holder[0].last_run_id)
                break
            await asyncio.wait({task}, timeout=0.02)
        if not known.done():
            await task  # raises the failure (a missing tool file, an unknown model, …)
            raise UserError("the run ended before it was recorded")
        run_id = known.result()

        async def finish() -> None:
            await task

        self._spawn(run_id, finish)
        return run_id

    # ------------------------------------------------------------------ review

    async def approve(self, run_id: str, plan_hash: str) -> None:
        """``forethought approve RUN --plan-hash H``: a signed approval bound to the reviewed hash,
        then the run continues here."""
        if not plan_hash:
            raise UserError("approve: the form lost the plan hash it was reviewing; reload the page")
        setup = self._recorded_setup(run_id)
        # Granted now, so a plan that changed since the page was rendered is refused on the page;
        # then the run continues in the background, as `forethought approve` continues it.
        async with self.open_agent(setup, None) as agent:
            await agent.approve(run_id, plan_hash=plan_hash, approver=self.approver, continue_run=False)
        self.changes.bump()
        await self.resume(run_id)

    async def resume(self, run_id: str, review: InterruptedStepsReview | None = None) -> None:
        """``forethought resume RUN [--mark-succeeded S | --retry S]``."""
        setup = self._recorded_setup(run_id)
        if review is not None:
            await asyncio.to_thread(record_review, self.store, run_id, review, self.approver)
            self.changes.bump()

        async def work() -> None:
            async with self.open_agent(setup, None) as agent:
                await agent.resume(run_id, on_event=self._sink)

        self._spawn(run_id, work)

    async def reject(self, run_id: str, note: str = "") -> None:
        """The review screen's reject, for a stored run: recorded, and the run is cancelled."""

        def build(state: Any) -> list[dict[str, Any]]:
            if state.status not in WAITING:
                raise UserError(
                    f"run {run_id} is {state.status}; only a run awaiting approval can be rejected"
                )
            reason = f"plan rejected by {self.approver}" + (f": {note}" if note else "")
            return [
                {
                    "cls": E.ApprovalDecided,
                    "plan_hash": state.plan_hash,
                    "decision": "rejected",
                    "approver": self.approver,
                    "note": note,
                },
                {"cls": E.RunFinished, "status": "cancelled", "reason": reason},
            ]

        await asyncio.to_thread(self._append, run_id, build)

    async def pause(self, run_id: str) -> None:
        """Interrupt a run driven here, as Ctrl-C interrupts `forethought run`: the executor
        records a resumable pause (a step cut off mid-call is reviewed on resume unless its tool
        is idempotent)."""
        task = self.tasks.get(run_id)
        if task is None or task.done():
            raise UserError(f"run {run_id} is not running in this server; nothing to pause")
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task

    async def cancel(self, run_id: str) -> None:
        """Stop a run: one driven here is interrupted (the executor records a resumable pause),
        then the run is recorded as cancelled."""
        task = self.tasks.get(run_id)
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

        def build(state: Any) -> list[dict[str, Any]]:
            if state.status in FINISHED_RUN_STATUSES:
                raise UserError(f"run {run_id} already {state.status}; nothing to cancel")
            return [{"cls": E.RunFinished, "status": "cancelled", "reason": f"cancelled by {self.approver}"}]

        await asyncio.to_thread(self._append, run_id, build)

    async def specs(self, run_id: str, *, fresh: bool = True) -> dict[str, ToolSpec]:
        """The specs of the run's recorded tools, opened now (``fresh``) or as last opened for
        this run (linting while typing must not restart MCP servers on every keystroke)."""
        if fresh or run_id not in self._specs:
            async with self.open_agent(self._recorded_setup(run_id), None) as agent:
                self._specs[run_id] = agent.specs
        return self._specs[run_id]

    async def tools_of(self, setup: Mapping[str, Any]) -> dict[str, ToolSpec]:
        async with self.open_agent(setup, None) as agent:
            return agent.specs

    async def lint(self, run_id: str, text: str, *, fresh: bool = False) -> tuple[Plan | None, list[str]]:
        """Parse and validate an edited plan against the run's recorded tools."""
        specs = await self.specs(run_id, fresh=fresh)
        try:
            data = parse_text(text, "yaml", "plan.yaml")
        except UserError as exc:
            return None, [str(exc)]
        plan, problems = check_data(data, specs)
        return plan, [str(p) for p in problems]

    async def edit(self, run_id: str, text: str) -> list[str]:
        """Save an edited plan as a new version of a waiting run; it needs a fresh approval (the
        review screen's edit). Returns the problems (nothing is saved while there are any)."""
        plan, problems = await self.lint(run_id, text, fresh=True)
        if plan is None or problems:
            return problems or ["the plan is empty"]
        specs = await self.specs(run_id, fresh=False)  # the ones just validated against
        return await asyncio.to_thread(self._record_edit, run_id, plan, specs)

    def _record_edit(self, run_id: str, edited: Plan, specs: Mapping[str, Any]) -> list[str]:
        refuse_if_modified(self.store, run_id, "edited")
        owner = new_owner_id()
        self.store.acquire_lease(run_id, owner, 30.0)
        try:
            events = self.store.events(run_id)
            state = fold(events)
            if state.status not in WAITING or not state.plan:
                raise UserError(f"run {run_id} is {state.status}; only a waiting run's plan can be edited")
            current = Plan.model_validate(state.plan)
            # A step that has run keeps the outcome of what it ran as: an edit changing it would
            # not run again on resume, so the edit would silently not take effect (dropping it is
            # fine: its outcome is history). The same rule as Executor.revise.
            ran = [
                f"step {s.id!r} has already run ({state.steps[s.id].status}); an edit cannot change "
                "what it did — give the changed step a new id to run it again"
                for s in edited.steps
                if s.id in state.steps
                and state.steps[s.id].status in ("succeeded", "failed")
                and current.step_map().get(s.id) not in (None, s)
            ]
            if ran:
                return ran
            edited = edited.model_copy(
                update={"version": current.version + 1, "parent_version": current.version}
            )
            if edited.plan_hash() == current.plan_hash():
                return []
            plans, approvals = recorded(events)
            pending = needs_new_approval(edited, ApprovalGate([*plans, edited], approvals, specs))
            seq, version = state.last_seq + 1, edited.version
            new: Sequence[Event] = [
                E.ApprovalDecided(
                    run_id=run_id,
                    seq=seq,
                    plan_version=current.version,
                    plan_hash=current.plan_hash(),
                    decision="edited",
                    approver=self.approver,
                ),
                E.PlanProposed(
                    run_id=run_id,
                    seq=seq + 1,
                    plan_version=version,
                    plan=edited.to_data(),
                    plan_hash=edited.plan_hash(),
                    source="edit",
                ),
                E.ApprovalRequested(
                    run_id=run_id,
                    seq=seq + 2,
                    plan_version=version,
                    plan_hash=edited.plan_hash(),
                    reason=f"the plan was edited by {self.approver}; the new version needs approval",
                    step_ids=list(pending),
                ),
            ]
            self.store.append_many(list(new), owner=owner)
        finally:
            self.store.release_lease(run_id, owner)
        self.changes.bump()
        return []

    def _append(self, run_id: str, build: Callable[[Any], list[dict[str, Any]]]) -> None:
        from forethought.runs.leases import append_under_lease

        refuse_if_modified(self.store, run_id, "changed")
        append_under_lease(self.store, run_id, build)
        self.changes.bump()

    async def close(self) -> None:
        for task in self.tasks.values():
            task.cancel()
        await asyncio.gather(*self.tasks.values(), return_exceptions=True)


def _absolute(paths: Sequence[str]) -> list[str]:
    """Tool files as absolute paths: a run records them so `resume` works from anywhere."""
    return [str(Path(p).resolve()) for p in dict.fromkeys(paths)]


def config_opener(cfg: Any) -> AgentOpener:
    """The CLI's way of opening an agent (``interfaces.session.open_agent``), for the server."""
    import dataclasses

    from forethought.interfaces.session import open_agent

    @contextlib.asynccontextmanager
    async def opener(setup: Mapping[str, Any], model: str | None) -> AsyncIterator[Agent]:
        chosen = dataclasses.replace(cfg, model=model) if model else cfg
        async with open_agent(chosen, setup) as agent:
            yield agent

    return opener
