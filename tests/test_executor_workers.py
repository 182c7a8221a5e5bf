"""Workers: steps that never suspend run back to back; steps that do suspend get their own task.

These pin the properties the worker design must keep: a step's code always runs inside a task
named after it (so ``asyncio.timeout``, task groups and anyio cancel scopes bind to the step),
any number of suspended steps run concurrently, a long run of synchronous steps still lets the
supervisor and subscribers in, and cancellation reaches steps wherever they are suspended.
"""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import pytest

from _executor_helpers import FnTool, registry
from forethought.events.state import RunState
from forethought.execution import _resume
from forethought.execution.executor import Executor, StopRequest
from forethought.execution.options import ExecutorOptions
from forethought.plan.model import Plan, Step
from forethought.tools.base import ToolContext


def chain(n: int, tool: str = "t") -> Plan:
    return Plan(
        goal="g",
        steps=[Step(id=f"s{i}", tool=tool, args={"prev": f"${{s{i - 1}}}"} if i else {}) for i in range(n)],
    )


def fan(n: int, tool: str = "t") -> Plan:
    return Plan(goal="g", steps=[Step(id=f"s{i}", tool=tool) for i in range(n)])


async def test_every_step_runs_in_a_task_named_after_it() -> None:
    seen: list[tuple[str, str, str]] = []

    async def fn(args: dict[str, Any], ctx: ToolContext) -> Any:
        before = asyncio.current_task()
        assert before is not None
        if int(ctx.step_id[1:]) % 2:  # every other step suspends once
            await asyncio.sleep(0)
        after = asyncio.current_task()
        assert after is before  # the same task before and after suspending
        seen.append((ctx.step_id, before.get_name(), after.get_name()))
        return 1

    ex = Executor(chain(20), registry(FnTool("t", fn)))
    await ex.run()
    assert ex.state.status == "succeeded"
    assert seen == [(f"s{i}", f"s{i}", f"s{i}") for i in range(20)]


async def test_timeouts_and_cancel_scopes_bind_to_the_step_task() -> None:
    async def fn(args: dict[str, Any], ctx: ToolContext) -> Any:
        # Entered before the first suspension, i.e. while the worker runs the step by hand.
        async with asyncio.timeout(5):
            with anyio.fail_after(5):
                async with asyncio.TaskGroup() as tg:
                    tg.create_task(asyncio.sleep(0.001))
                await asyncio.sleep(0.001)
        if ctx.step_id == "s3":
            async with asyncio.timeout(0.01):
                await asyncio.sleep(10)  # this step's own timeout fires, and only this one's
        return ctx.step_id

    plan = Plan(goal="g", steps=[Step(id=f"s{i}", tool="t", on_failure="continue") for i in range(8)])
    ex = Executor(plan, registry(FnTool("t", fn)))
    await asyncio.wait_for(ex.run(), 20)
    statuses = {sid: st.status for sid, st in ex.state.steps.items()}
    assert statuses.pop("s3") == "failed"
    assert set(statuses.values()) == {"succeeded"}
    assert ex.state.steps["s3"].failure_class == "timeout"


async def test_suspended_steps_all_run_at_once() -> None:
    # Fifty steps that each wait until all fifty have started: only possible if every
    # suspended step has its own task (no worker may sit on a ready step while another waits).
    n = 50
    started = 0
    everyone = asyncio.Event()

    async def fn(args: dict[str, Any], ctx: ToolContext) -> Any:
        nonlocal started
        started += 1
        if started == n:
            everyone.set()
        await everyone.wait()
        return 1

    tool = FnTool("t", fn)
    ex = Executor(fan(n), registry(tool))
    await asyncio.wait_for(ex.run(), 10)
    assert ex.state.status == "succeeded"
    assert tool.max_active == n


async def test_a_long_synchronous_run_lets_the_supervisor_in() -> None:
    # 3,000 steps that never suspend: without time slices the supervisor would first run after
    # the last of them. It asks to stop at the 100th start; the run must stop long before the end.
    started = 0

    async def supervisor(event: Any, state: RunState) -> StopRequest | None:
        nonlocal started
        if event.kind == "step_started":
            started += 1
            if started == 100:
                return StopRequest("paused", "enough")
        return None

    ex = Executor(chain(3000), registry(FnTool("t")), ExecutorOptions(supervisor=supervisor))
    state = await asyncio.wait_for(ex.run(), 60)
    assert state.status == "paused" and state.reason == "enough"
    done = sum(1 for st in state.steps.values() if st.status == "succeeded")
    assert 100 <= done < 3000


async def test_a_subscriber_sees_events_during_a_synchronous_run() -> None:
    seen_while_running = 0
    ex = Executor(chain(3000), registry(FnTool("t")))

    async def consume() -> None:
        nonlocal seen_while_running
        async for _ in ex.events():
            if ex.state.status == "running" and ex.state.finished_at is None:
                seen_while_running += 1

    consumer = asyncio.create_task(consume())
    await ex.run()
    await consumer
    assert seen_while_running > 0


async def test_abort_cancels_steps_suspended_in_any_worker() -> None:
    gate = asyncio.Event()

    async def wait(args: dict[str, Any], ctx: ToolContext) -> Any:
        await gate.wait()
        return 1

    async def boom(args: dict[str, Any], ctx: ToolContext) -> Any:
        await asyncio.sleep(0.01)
        raise RuntimeError("boom")

    plan = Plan(
        goal="g",
        steps=[
            *(Step(id=f"w{i}", tool="wait") for i in range(10)),
            Step(id="b", tool="boom", retry={"attempts": 1}),
        ],
    )
    ex = Executor(plan, registry(FnTool("wait", wait), FnTool("boom", boom)))
    state = await asyncio.wait_for(ex.run(), 10)
    assert state.status == "failed"
    assert {state.steps[f"w{i}"].status for i in range(10)} == {"cancelled"}
    assert state.steps["b"].status == "failed"
    assert not [
        t for t in asyncio.all_tasks() if t.get_name().startswith(("w", "forethought")) and not t.done()
    ]


async def test_a_tool_raising_cancelled_error_ends_its_step_not_the_run() -> None:
    async def fn(args: dict[str, Any], ctx: ToolContext) -> Any:
        if ctx.step_id == "s1":
            raise asyncio.CancelledError()  # a tool cancelling itself, synchronously
        return 1

    ex = Executor(chain(3), registry(FnTool("t", fn)))
    state = await asyncio.wait_for(ex.run(), 10)  # no hang: the worker's bookkeeping ran
    assert state.steps["s1"].status == "cancelled"
    assert state.steps["s2"].status == "pending"  # its dependency never succeeded
    assert state.status == "failed" and "s1" in state.reason


def test_resume_behaves_like_await_for_values_exceptions_and_close() -> None:
    async def inner(fail: bool) -> str:
        await asyncio.sleep(0)
        if fail:
            raise ValueError("inner")
        return "done"

    async def outer(fail: bool) -> str:
        coro = inner(fail)
        first = coro.send(None)  # started by hand, as a worker does
        result: str = await _resume.Resume(coro, first)
        return result

    assert asyncio.run(outer(False)) == "done"
    with pytest.raises(ValueError, match="inner"):
        asyncio.run(outer(True))

    async def never() -> None:
        await asyncio.Event().wait()

    async def cancelled() -> None:
        coro = never()
        first = coro.send(None)
        task = asyncio.ensure_future(_resume.Resume(coro, first))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert coro.cr_frame is None  # the inner coroutine finished (cancelled), not leaked

    asyncio.run(cancelled())


@pytest.mark.parametrize("suspend_first", [False, True])
async def test_retries_continue_after_a_quick_first_attempt(suspend_first: bool) -> None:
    # The first attempt of a plain step runs without a coroutine of the executor's own; its
    # retries must follow the same policy and produce the same events as any other retry.
    calls = 0

    async def fn(args: dict[str, Any], ctx: ToolContext) -> Any:
        nonlocal calls
        calls += 1
        if suspend_first or calls > 1:
            await asyncio.sleep(0)
        if calls < 3:
            raise RuntimeError(f"flaky {calls}")
        return {"n": calls, "attempt": ctx.attempt}

    plan = Plan(goal="g", steps=[Step(id="a", tool="t", retry={"attempts": 3, "backoff_s": 0})])
    ex = Executor(plan, registry(FnTool("t", fn)))
    state = await asyncio.wait_for(ex.run(), 10)
    assert state.status == "succeeded"
    assert state.steps["a"].attempts == 3 and state.outputs["a"] == {"n": 3, "attempt": 3}
    kinds = [e.kind for e in ex.log if getattr(e, "step_id", None) == "a"]
    assert kinds == ["step_started", "step_failed"] * 2 + ["step_started", "step_succeeded"]
    failed = [e for e in ex.log if e.kind == "step_failed"]
    assert [e.final for e in failed] == [False, False]
    assert [e.error for e in failed] == ["RuntimeError: flaky 1", "RuntimeError: flaky 2"]


async def test_a_cancelled_worker_leaves_no_launched_step_behind() -> None:
    # One step's tool raises CancelledError while a hundred other ready steps wait in the
    # queue behind it: the worker ends, and a fresh one must run the rest.
    async def fn(args: dict[str, Any], ctx: ToolContext) -> Any:
        if ctx.step_id == "s0":
            raise asyncio.CancelledError()
        return 1

    ex = Executor(fan(101), registry(FnTool("t", fn)))
    state = await asyncio.wait_for(ex.run(), 10)
    assert state.steps["s0"].status == "cancelled"
    assert sum(st.status == "succeeded" for st in state.steps.values()) == 100
