"""Write-ahead for side effects: a non-idempotent tool never acts before its start is on disk.

The executor hands events to sinks asynchronously (a slow sink must not slow scheduling), so
without help a tool could run, act, and the process die before its ``step_started`` reached the
database; the resumed run would then see the step as never started and run it again — the
duplicated side effect users of other runtimes report after ``kill -9``. These wrappers sit
between the executor and the place a call happens (a backend, the agent runner) and wait until
every event emitted so far, the step's ``step_started`` included, is committed.

Idempotent tools skip the wait: re-running them after a crash is safe by definition, and not
waiting lets their events be group-committed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from forethought.execution.backends.base import Backend
from forethought.plan.model import Step
from forethought.runs.store.recorder import Recorder
from forethought.tools.base import Tool, ToolContext

SeqSource = Callable[[], int]
AgentRunnerFn = Callable[[Step, ToolContext], Any]


class WriteAheadBackend:
    """A backend that commits the record of a call before making a non-idempotent call."""

    def __init__(
        self, name: str, make_inner: Callable[[], Backend], recorder: Recorder, current_seq: SeqSource
    ) -> None:
        self.name = name
        self._make_inner = make_inner
        self._inner: Backend | None = None
        self._recorder = recorder
        self._current_seq = current_seq

    async def call(self, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> Any:
        if not tool.spec.idempotent:
            await self._recorder.wait_durable(ctx.run_id, self._current_seq())
        if self._inner is None:
            self._inner = self._make_inner()  # e.g. a process pool, only when first needed
        return await self._inner.call(tool, args, ctx)

    async def aclose(self) -> None:
        if self._inner is not None:
            await self._inner.aclose()


def write_ahead_agent_runner(runner: Any, recorder: Recorder, current_seq: SeqSource) -> Any:
    """Agent steps are never idempotent (a model decides what they do): always write ahead."""

    async def run(step: Step, ctx: ToolContext) -> Any:
        await recorder.wait_durable(ctx.run_id, current_seq())
        return await runner(step, ctx)

    return run


def durable_backends(
    recorder: Recorder, current_seq: SeqSource, extra: dict[str, Callable[[], Backend]] | None = None
) -> dict[str, WriteAheadBackend]:
    """The executor's standard backends (``local``, ``process``), each behind the write-ahead."""
    from forethought.execution.backends.base import LocalBackend

    def make_process() -> Backend:
        from forethought.execution.backends.process import ProcessBackend

        return ProcessBackend()

    factories: dict[str, Callable[[], Backend]] = {"local": LocalBackend, "process": make_process}
    factories.update(extra or {})
    return {name: WriteAheadBackend(name, f, recorder, current_seq) for name, f in factories.items()}
