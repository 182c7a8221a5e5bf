"""One step's attempts: the hot path of the executor, and the retry loop around it.

``quick_attempt`` runs the first attempt of a plain step (a local tool, no timeout, no check)
without a coroutine of the executor's own; ``attempts`` is the general loop (retries with
backoff, timeouts, checks, backends, agent steps, rollback steps). Both record an attempt with
``_open`` (arguments resolved, ``step_started``) and ``_close`` (``step_succeeded``, a retry, or
the final ``step_failed``), so the two paths emit the same events. Functions over an
``Executor`` (like ``_executor_recovery``), so that ``executor.py`` stays the scheduling algorithm.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from forethought.errors import ToolError
from forethought.events import kinds as E
from forethought.events.state import fold_handler
from forethought.execution._events import step_started, step_succeeded
from forethought.execution._parts import PLAIN_OUTPUT, normalize_output
from forethought.execution._resume import Resume
from forethought.execution._steps import (
    TOOL_FAILURES,
    Failure,
    classify,
    context,
    resolve_args,
    spec_of,
)
from forethought.execution.backends.base import Backend
from forethought.oversight.checks import evaluate
from forethought.plan.model import Step
from forethought.plan.references import ReferenceError_
from forethought.tools.base import Tool, ToolContext

if TYPE_CHECKING:
    from forethought.execution.executor import Executor

Pending = Coroutine[Any, Any, "Failure | None"]
"""What is left of a step whose attempt suspended (or retries): awaited in the step's task."""

_fold_started = fold_handler("step_started")
_fold_succeeded = fold_handler("step_succeeded")


class _Unresolved(Exception):
    """An attempt's arguments could not be resolved (already recorded as ``step_failed``)."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure[1])
        self.failure = failure


async def attempts(ex: Executor, step: Step, *, rollback: bool = False, attempt: int = 0,
                   delay: float = 0.0) -> Failure | None:
    """Run ``step`` per its retry policy; emit its events; the final failure or None.

    ``attempt``/``delay``: continue after that many attempts, sleeping ``delay`` first (a
    retry handed over by ``quick_attempt``).
    """
    sid = step.id
    direct, limit_s, backend_name = ex._how[sid] if not rollback else \
        ex._how_to_run(step, spec_of(ex._tools, step))
    key = ex._keys.get(sid) or f"{ex.run_id}:{sid}"
    while True:
        if delay:
            await asyncio.sleep(delay)
        attempt += 1
        try:
            args, ctx, t0 = _open(ex, step, attempt, key, backend_name)
        except _Unresolved as exc:
            return exc.failure
        failure: Failure | None = None
        output: Any = None
        try:
            call = direct.invoke(args, ctx) if direct is not None else \
                _call(ex, step, args, ctx)
            if limit_s is None:
                output = await call
            else:
                async with asyncio.timeout(limit_s):
                    output = await call
            output = normalize_output(output)
        except TOOL_FAILURES as exc:
            failure = classify(exc, limit_s)
        if failure is None and step.check is not None:
            verdict = await evaluate(step.check, output, step=step, critic=ex._critic)
            if verdict is not None:
                ex._emit(E.CheckFailed, step_id=sid, attempt=attempt,
                         criterion=verdict.criterion, detail=verdict.detail)
                failure = ("check", str(verdict), True)
        outcome = _close(ex, step, attempt, t0, output, failure)
        if type(outcome) is not float:
            return outcome  # type: ignore[return-value]
        delay = outcome


def quick_attempt(ex: Executor, step: Step, tool: Tool) -> Failure | Pending | None:
    """The first attempt of a plain step (local tool, no timeout, no check), without a task.

    The tool's coroutine is started by hand: if it returns without suspending, the step is
    done here — no coroutine of our own, no exception thrown through one — and the outcome is
    returned. If it suspends (or fails and will retry), what is left is returned as an
    awaitable for the worker to finish in the step's task.
    """
    sid = step.id
    key = ex._keys.get(sid) or f"{ex.run_id}:{sid}"
    try:
        args, ctx, t0 = _open(ex, step, 1, key, "local")
    except _Unresolved as exc:
        return exc.failure
    call = tool.invoke(args, ctx)
    try:
        first = call.send(None)
    except StopIteration as done:
        output = done.value
        if type(output) not in PLAIN_OUTPUT:
            try:
                output = normalize_output(output)
            except TOOL_FAILURES as exc:
                return _after_quick(ex, step, _close(ex, step, 1, t0, None,
                                                     classify(exc, None)))
        return _close(ex, step, 1, t0, output, None)  # type: ignore[return-value]
    except TOOL_FAILURES as exc:
        return _after_quick(ex, step, _close(ex, step, 1, t0, None, classify(exc, None)))
    return _finish_quick(ex, step, call, first, t0)


async def _finish_quick(ex: Executor, step: Step, call: Coroutine[Any, Any, Any], first: Any,
                        t0: float) -> Failure | None:
    """The rest of a quick attempt whose tool suspended (awaited in the step's task)."""
    failure: Failure | None = None
    output: Any = None
    try:
        output = normalize_output(await Resume(call, first))
    except TOOL_FAILURES as exc:
        failure = classify(exc, None)
    outcome = _close(ex, step, 1, t0, output, failure)
    if type(outcome) is float:
        return await attempts(ex, step, attempt=1, delay=outcome)
    return outcome  # type: ignore[return-value]


def _after_quick(ex: Executor, step: Step, outcome: Failure | float | None
                 ) -> Failure | Pending | None:
    if type(outcome) is float:  # retry: the remaining attempts may sleep, so in a task
        return attempts(ex, step, attempt=1, delay=outcome)
    return outcome  # type: ignore[return-value]


def _open(ex: Executor, step: Step, attempt: int, key: str, backend_name: str
          ) -> tuple[dict[str, Any], ToolContext, float]:
    """Start an attempt: resolve its arguments, record ``step_started``, build the context.

    The per-step event is built without re-validation and folded with its handler
    directly (see ``_executor_events``). Raises ``_Unresolved`` (already recorded) when a
    reference cannot be resolved.
    """
    sid = step.id
    state = ex.state
    try:
        args = resolve_args(step, state.outputs)
    except ReferenceError_ as exc:
        msg = f"reference {exc}"
        ex._emit(E.StepFailed, step_id=sid, attempt=attempt - 1, error=msg,
                 failure_class="reference")
        raise _Unresolved(("reference", msg, False)) from None
    seq = ex._seq
    ex._seq = seq + 1
    event = step_started(ex.run_id, seq, time.time(),
                         ex._plan.version if ex._plan is not None else 1, sid, attempt,
                         key, dict(args), backend_name)
    _fold_started(state, event)
    state.last_seq = seq
    ex._bus.push(event)
    ctx = context(ex.run_id, sid, attempt, key,
                  {"args": args, "record": ex.record} if step.agent is not None else {})
    return args, ctx, time.perf_counter()


def _close(ex: Executor, step: Step, attempt: int, t0: float, output: Any,
           failure: Failure | None) -> Failure | float | None:
    """End an attempt: record success (None), a retry (its delay), or the final failure."""
    dur = time.perf_counter() - t0
    sid = step.id
    if failure is None:
        seq = ex._seq
        ex._seq = seq + 1
        state = ex.state
        event = step_succeeded(ex.run_id, seq, time.time(),
                               ex._plan.version if ex._plan is not None else 1, sid,
                               attempt, output, dur)
        _fold_succeeded(state, event)
        state.last_seq = seq
        ex._bus.push(event)
        return None
    cls, msg, retryable = failure
    retry_class = "error" if cls == "crashed" else cls
    policy = step.retry
    if retryable and attempt < policy.attempts and retry_class in policy.retry_on:
        delay = policy.delay_before(attempt + 1, ex._rng.random())
        ex._emit(E.StepFailed, step_id=sid, attempt=attempt, error=msg,
                 failure_class=cls, final=False, retry_in_s=delay, duration_s=dur)
        return float(delay)
    ex._emit(E.StepFailed, step_id=sid, attempt=attempt, error=msg, failure_class=cls,
             duration_s=dur)
    return failure


async def _call(ex: Executor, step: Step, args: dict[str, Any], ctx: ToolContext) -> Any:
    if step.agent is not None:
        if ex._agent_runner is None:
            raise ToolError("no executor model configured for agent steps; configure "
                            "--executor-model (or pass agent_runner=...)", retryable=False)
        return await ex._agent_runner(step, ctx)
    tool = ex._tools.get(step.tool or "")
    if tool is None:
        raise ToolError(f"unknown tool {step.tool!r}; pass the --tools file that defines it",
                        retryable=False)
    backend = ex._backends.get(step.executor or "local")
    if backend is None:
        backend = await _default_backend(ex, step.executor or "")
    return await backend.call(tool, args, ctx)


async def _default_backend(ex: Executor, name: str) -> Backend:
    if name == "process" and ex._own_backends:
        from forethought.execution.backends.process import ProcessBackend

        backend = ex._backends["process"] = ProcessBackend()
        return backend
    raise ToolError(f"no executor backend named {name!r} (have: "
                    f"{', '.join(sorted(ex._backends))})", retryable=False)
