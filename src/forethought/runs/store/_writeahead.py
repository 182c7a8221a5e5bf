"""Write-ahead for calls the executor does not make itself: other backends, agent steps.

The executor writes ahead on its own for the stock local backend (``ExecutorOptions.journal``):
it calls no tool before the step's ``step_started`` and everything emitted before it — its
dependencies' outcomes included — is committed. A call that goes elsewhere (the process
backend, a backend of the caller's, the agent runner) passes through these wrappers, which wait
the same way before handing it on, so that a crash can never hide that a call may have started
and a step never acts on a dependency's result that a resume would not find. For a step's call
the executor has done that wait already (``attempts``) and names the seq it covered
(``WRITTEN_AHEAD``); the wrapper waits for that one, not for events other steps recorded since,
which would put one more commit on every such call's path.

Every call on the local backend also gets ``ctx.extra["on_process"]``: a command tool reports the
OS process it started, and the executor records it as ``step_process`` (pid, pgid, start time) so
that a resumed run can find and kill a process group that outlived a killed runner before anyone
reviews or retries the step. That record follows the spawn (it cannot precede it); the window in
between is covered by the supervisor that kills the group with the runner and by the
``FORETHOUGHT_RUN_ID`` environment tag resume also looks for (see ``tools._proc``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from forethought.events import kinds as E
from forethought.execution._parts import WRITTEN_AHEAD
from forethought.execution.backends.base import Backend
from forethought.plan.model import Step
from forethought.runs.store.recorder import Recorder
from forethought.tools._proc import ProcInfo
from forethought.tools.base import Tool, ToolContext

SeqSource = Callable[[], int]
AgentRunnerFn = Callable[[Step, ToolContext], Any]


class WriteAheadBackend:
    """A backend that makes a call only once everything recorded before it is committed."""

    def __init__(
        self, name: str, make_inner: Callable[[], Backend], recorder: Recorder, current_seq: SeqSource
    ) -> None:
        self.name = name
        self._make_inner = make_inner
        self._inner: Backend | None = None
        self._recorder = recorder
        self._current_seq = current_seq

    async def call(self, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> Any:
        await self._recorder.wait_durable(ctx.run_id, _written_ahead(ctx, self._current_seq))
        if self._inner is None:
            self._inner = self._make_inner()  # e.g. a process pool, only when first needed
        options = self._ray_options(ctx.step_id)
        if options is not None:  # per-step Ray resources travel with the call
            ctx = dataclasses.replace(ctx, extra={**ctx.extra, "ray_options": options})
        recorder = _event_recorder(self._current_seq)
        if recorder is not None and self.name == "local":
            ctx = dataclasses.replace(
                ctx, extra={**ctx.extra, "on_process": _process_observer(recorder, ctx)}
            )
        return await self._inner.call(tool, args, ctx)

    def _ray_options(self, step_id: str) -> Any:
        """The step's Ray task options from the plan's ``metadata.ray``; ``None`` when the plan
        has none (the common case: cheap)."""
        plan = getattr(getattr(self._current_seq, "executor", None), "plan", None)
        if plan is None or "ray" not in plan.metadata:
            return None
        # Only a plan that asks for Ray resources reads them; its steps name a Ray backend, so
        # the executor imported the module before the run (``prepare_backend``).
        from forethought.execution.backends.ray import plan_ray_options

        return plan_ray_options(plan, step_id)

    async def aclose(self) -> None:
        if self._inner is not None:
            await self._inner.aclose()


def _written_ahead(ctx: ToolContext, current_seq: SeqSource) -> int:
    """The seq that must be durable before this call: the attempt's own ``step_started`` when
    the executor opened it (``WRITTEN_AHEAD``; what other steps recorded since is no concern of
    this call, and waiting for it put a commit of theirs on this call's path), else everything
    recorded so far (e.g. a compensation, recorded just before its call)."""
    seq = ctx.extra.get(WRITTEN_AHEAD)
    return seq if type(seq) is int else current_seq()


def _event_recorder(current_seq: SeqSource) -> Callable[..., Any] | None:
    """``Executor.record`` behind the late-bound seq source (``recording._SeqBox.executor``)."""
    executor = getattr(current_seq, "executor", None)
    return getattr(executor, "record", None)


def _process_observer(record: Callable[..., Any], ctx: ToolContext) -> Callable[[ProcInfo], None]:
    def observe(info: ProcInfo) -> None:
        record(
            E.StepProcess,
            step_id=ctx.step_id,
            attempt=max(ctx.attempt, 1),
            pid=info.pid,
            pgid=info.pgid,
            start_time=info.start_time,
        )

    return observe


def write_ahead_agent_runner(runner: Any, recorder: Recorder, current_seq: SeqSource) -> Any:
    """Agent steps are never idempotent (a model decides what they do): always write ahead."""

    async def run(step: Step, ctx: ToolContext) -> Any:
        await recorder.wait_durable(ctx.run_id, _written_ahead(ctx, current_seq))
        return await runner(step, ctx)

    return run


def durable_backends(
    recorder: Recorder, current_seq: SeqSource, extra: dict[str, Callable[[], Backend]] | None = None
) -> dict[str, Backend]:
    """The executor's standard backends (``local``, ``process``), each behind the write-ahead.

    The stock local backend is not wrapped: the executor writes ahead for it itself (and then
    calls tools without a task or an await of their own)."""
    from forethought.execution.backends.base import LocalBackend

    def make_process() -> Backend:
        from forethought.execution.backends.process import ProcessBackend

        return ProcessBackend()

    def make_ray() -> Backend:
        from forethought.execution.backends.ray import RayBackend

        return RayBackend()

    factories: dict[str, Callable[[], Backend]] = {
        "local": LocalBackend,
        "process": make_process,
        "ray": make_ray,
    }
    factories.update(extra or {})
    return {
        name: LocalBackend()
        if name == "local" and f is LocalBackend
        else WriteAheadBackend(name, f, recorder, current_seq)
        for name, f in factories.items()
    }
