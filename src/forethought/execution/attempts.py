"""One step's attempts: run a step per its retry policy and record what each attempt did.

This module's one responsibility is the life of a single step once the scheduler has started it:
resolve its arguments, call the tool (directly, through a backend, or as an agent step) under its
timeout, apply its check, and record ``step_started`` / ``step_succeeded`` / ``step_failed``
(with retries and backoff in between). When a step may start, and what its outcome means for the
rest of the plan, is the scheduler's business (``executor.py``); everything shared with it — the
event stream, tool and backend lookup, idempotency keys — arrives as a ``RunContext``.

``quick_attempt`` runs the first attempt of a plain step (a local tool, no timeout, no check)
without a coroutine of its own; ``attempts`` is the general loop. Both record an attempt with
``_open`` and ``_succeed``/``_fail``, so the two paths emit the same events. Outcomes are tagged values
(``outcomes.Succeeded``/``Failed``/``Retry``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any

from forethought.errors import ToolError
from forethought.events import kinds as E
from forethought.events.state import fold_handler
from forethought.execution._events import step_started, step_succeeded
from forethought.execution._parts import PLAIN_OUTPUT, WRITTEN_AHEAD, normalize_output
from forethought.execution._resume import Resume
from forethought.execution._steps import TOOL_FAILURES, classify, context, resolve_args
from forethought.execution.backends.base import Backend
from forethought.execution.context import How, RunContext
from forethought.execution.outcomes import SUCCEEDED, Failed, Outcome, Retry, Succeeded
from forethought.oversight.checks import run_checks
from forethought.plan.model import Step
from forethought.plan.references import ReferenceResolutionError
from forethought.tools._proc import ProcInfo
from forethought.tools.base import Tool, ToolContext

Pending = Coroutine[Any, Any, Outcome]
"""What is left of a step whose attempt suspended (or retries): awaited in the step's task."""

_fold_started = fold_handler("step_started")
_fold_succeeded = fold_handler("step_succeeded")


class _Unresolved(Exception):
    """An attempt's arguments could not be resolved (already recorded as ``step_failed``)."""

    def __init__(self, failure: Failed) -> None:
        super().__init__(failure.message)
        self.failure = failure


async def attempts(run: RunContext, step: Step, how: How, *, attempt: int = 0, delay: float = 0.0) -> Outcome:
    """Run ``step`` as ``how`` says, per its retry policy; emit its events; return the outcome.

    ``attempt``/``delay``: continue after that many attempts, sleeping ``delay`` first (a
    retry handed over by ``quick_attempt``).
    """
    sid = step.id
    direct, limit_s, backend_name = how
    key = run.key(sid)
    while True:
        if delay:
            await asyncio.sleep(delay)
        attempt += 1
        # Write-ahead: the start (and all before it) on disk before the call; for the first
        # attempt of an idempotent step, only what it depends on (``RunContext.early_seq``).
        early = run.early_seq(step) if attempt == 1 and run.early_seq is not None else None
        try:
            args, ctx, t0 = _open(run, step, attempt, key, backend_name, early)
        except _Unresolved as exc:
            return exc.failure
        if run.journal is not None:
            need = run.seq - 1 if early is None else early
            if run.durable_seq < need:
                await run.until_durable(need)
                t0 = time.perf_counter()
        failure: Failed | None = None
        output: Any = None
        try:
            call = direct.invoke(args, ctx) if direct is not None else _call(run, step, args, ctx)
            if limit_s is None:
                output = await call
            else:
                async with asyncio.timeout(limit_s):
                    output = await call
            output = normalize_output(output)
        except TOOL_FAILURES as exc:
            failure = classify(exc, limit_s)
        if failure is None and step.check is not None:
            verdict = await run_checks(step.check, output, step=step, critic=run.critic)
            if verdict is not None:
                run.emit(
                    E.CheckFailed,
                    step_id=sid,
                    attempt=attempt,
                    criterion=verdict.criterion,
                    detail=verdict.detail,
                    output=output,
                )
                failure = Failed("check", str(verdict), True)
        if failure is None:
            return _succeed(run, step, attempt, t0, output)
        outcome = _fail(run, step, attempt, t0, failure)
        if isinstance(outcome, Failed):
            return outcome
        delay = outcome.delay_s


def quick_attempt(run: RunContext, step: Step, tool: Tool) -> Outcome | Pending:
    """The first attempt of a plain step (local tool, no timeout, no check), without a task.

    The tool's coroutine is started by hand: if it returns without suspending, the step is
    done here — no coroutine of our own, no exception thrown through one — and the outcome is
    returned. If it suspends (or fails and will retry), what is left is returned as an
    awaitable for the worker to finish in the step's task.
    """
    opened = quick_open(run, step)
    if type(opened) is Failed:
        return opened
    return quick_call(run, step, tool, opened)  # type: ignore[arg-type]


def quick_open(run: RunContext, step: Step) -> Opened | Failed:
    """Start a quick attempt without calling the tool yet: ``step_started`` is emitted.

    With a journal the executor calls ``quick_call`` once that event is durable.
    """
    sid = step.id
    key = run.keys.get(sid) or f"{run.run_id}:{sid}"  # ``run.key`` inlined: once per step
    try:
        args, ctx, _ = _open(run, step, 1, key, "local")
    except _Unresolved as exc:
        return exc.failure
    return Opened(step, args, ctx, run.seq - 1)


def quick_call(run: RunContext, step: Step, tool: Tool, opened: Opened) -> Outcome | Pending:
    """Call the tool of an opened quick attempt (see ``quick_attempt``)."""
    t0 = time.perf_counter()
    call = tool.invoke(opened.args, opened.ctx)
    try:
        first = call.send(None)
    except StopIteration as done:
        output = done.value
        if type(output) not in PLAIN_OUTPUT:
            try:
                output = normalize_output(output)
            except TOOL_FAILURES as exc:
                return _after_quick(run, step, tool, _fail(run, step, 1, t0, classify(exc, None)))
        return _succeed(run, step, 1, t0, output)
    except TOOL_FAILURES as exc:
        return _after_quick(run, step, tool, _fail(run, step, 1, t0, classify(exc, None)))
    return _finish_quick(run, step, tool, call, first, t0)


class Opened:
    """A quick attempt whose ``step_started`` is recorded and whose tool is not called yet."""

    __slots__ = ("args", "ctx", "id", "seq", "step")

    def __init__(self, step: Step, args: dict[str, Any], ctx: ToolContext, seq: int) -> None:
        self.step = step
        self.id = step.id
        self.args = args
        self.ctx = ctx
        self.seq = seq
        """The ``seq`` of its ``step_started``: the call waits until the journal has it."""


async def _finish_quick(
    run: RunContext, step: Step, tool: Tool, call: Coroutine[Any, Any, Any], first: Any, t0: float
) -> Outcome:
    """The rest of a quick attempt whose tool suspended (awaited in the step's task)."""
    try:
        output = normalize_output(await Resume(call, first))
    except TOOL_FAILURES as exc:
        outcome = _fail(run, step, 1, t0, classify(exc, None))
        if isinstance(outcome, Retry):
            return await attempts(run, step, (tool, None, "local"), attempt=1, delay=outcome.delay_s)
        return outcome
    return _succeed(run, step, 1, t0, output)


def _after_quick(run: RunContext, step: Step, tool: Tool, outcome: Failed | Retry) -> Outcome | Pending:
    if isinstance(outcome, Retry):  # the remaining attempts may sleep, so in a task
        return attempts(run, step, (tool, None, "local"), attempt=1, delay=outcome.delay_s)
    return outcome


def _open(
    run: RunContext, step: Step, attempt: int, key: str, backend_name: str, early: int | None = None
) -> tuple[dict[str, Any], ToolContext, float]:
    """Start an attempt: resolve its arguments, record ``step_started``, build the context.

    ``early``: the seq the call waits for instead of this start (``RunContext.early_seq``).

    The per-step event is built without re-validation and folded with its handler
    directly (see ``_events``). Raises ``_Unresolved`` (already recorded) when a
    reference cannot be resolved.
    """
    sid = step.id
    state = run.state
    try:
        args = resolve_args(step, state.outputs)
    except ReferenceResolutionError as exc:
        msg = f"reference {exc}"
        run.emit(E.StepFailed, step_id=sid, attempt=attempt - 1, error=msg, failure_class="reference")
        raise _Unresolved(Failed("reference", msg, False)) from None
    seq = run.seq
    run.seq = seq + 1
    plan = run.plan
    event = step_started(
        run.run_id,
        seq,
        time.time(),
        plan.version if plan is not None else 1,
        sid,
        attempt,
        key,
        dict(args),
        backend_name,
    )
    _fold_started(state, event)
    state.last_seq = seq
    run.bus.push(event)
    if step.agent is not None:
        extra: dict[str, Any] = {"args": args, "record": run.record}
    elif run.journal is not None and backend_name == "local" and run.local_is_default:
        # A command tool reports the process it spawns; recorded so that a resume can find a
        # process group a killed runner left behind (see ``runs.store._writeahead``).
        extra = {"on_process": _process_observer(run, sid, attempt)}
    else:
        extra = {}
    if run.journal is not None and "on_process" not in extra:
        # A call through a backend or the agent runner: ``attempts`` makes this start durable
        # before it, and tells the write-ahead wrapper so (the stock local path needs no note).
        extra[WRITTEN_AHEAD] = seq if early is None else min(seq, early)
    ctx = context(run.run_id, sid, attempt, key, extra, run.workspace)
    return args, ctx, time.perf_counter()


def _process_observer(run: RunContext, step_id: str, attempt: int) -> Callable[[ProcInfo], None]:
    def observe(info: ProcInfo) -> None:
        run.emit(
            E.StepProcess,
            step_id=step_id,
            attempt=attempt,
            pid=info.pid,
            pgid=info.pgid,
            start_time=info.start_time,
        )

    return observe


def _succeed(run: RunContext, step: Step, attempt: int, t0: float, output: Any) -> Succeeded:
    """End an attempt that succeeded: record ``step_succeeded`` (built and folded directly)."""
    dur = time.perf_counter() - t0
    seq = run.seq
    run.seq = seq + 1
    state = run.state
    plan = run.plan
    event = step_succeeded(
        run.run_id, seq, time.time(), plan.version if plan is not None else 1, step.id, attempt, output, dur
    )
    _fold_succeeded(state, event)
    state.last_seq = seq
    run.bus.push(event)
    return SUCCEEDED


def _fail(run: RunContext, step: Step, attempt: int, t0: float, failure: Failed) -> Failed | Retry:
    """End an attempt that failed: record a retry (with its delay) or the final failure."""
    dur = time.perf_counter() - t0
    sid = step.id
    cls = failure.failure_class
    retry_class = "error" if cls == "crashed" else cls
    policy = step.retry
    if failure.retryable and attempt < policy.attempts and retry_class in policy.retry_on:
        delay = policy.delay_before(attempt + 1, run.rng.random())
        run.emit(
            E.StepFailed,
            step_id=sid,
            attempt=attempt,
            error=failure.message,
            failure_class=cls,
            final=False,
            retry_in_s=delay,
            duration_s=dur,
        )
        return Retry(float(delay))
    run.emit(
        E.StepFailed, step_id=sid, attempt=attempt, error=failure.message, failure_class=cls, duration_s=dur
    )
    return failure


async def _call(run: RunContext, step: Step, args: dict[str, Any], ctx: ToolContext) -> Any:
    if step.phase is not None:  # pragma: no cover - the scheduler plans phases (phase_expansion)
        raise ToolError(f"phase {step.id!r} is planned by the scheduler, not called", retryable=False)
    if step.agent is not None:
        if run.agent_runner is None:
            raise ToolError(
                "no executor model configured for agent steps; configure "
                "--executor-model (or pass agent_runner=...)",
                retryable=False,
            )
        return await run.agent_runner(step, ctx)
    tool = run.tools.get(step.tool or "")
    if tool is None:
        raise ToolError(f"unknown tool {step.tool!r}; pass the --tools file that defines it", retryable=False)
    backend = run.backends.get(step.executor or "local")
    if backend is None:
        backend = await _default_backend(run, step.executor or "")
    return await backend.call(tool, args, ctx)


async def _default_backend(run: RunContext, name: str) -> Backend:
    if name == "process" and run.own_backends:
        from forethought.execution.backends.process import ProcessBackend

        backend = run.backends["process"] = ProcessBackend()
        return backend
    raise ToolError(
        f"no executor backend named {name!r} (have: {', '.join(sorted(run.backends))})", retryable=False
    )
