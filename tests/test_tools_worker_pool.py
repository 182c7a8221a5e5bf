"""The run's pool of worker threads for sync tools: reused, bounded, abandoned when stuck, closed.

``BlockingPool`` replaces a thread per call (300+ µs of start-up and GIL hand-over each) with
reused daemon workers. What must still hold: a call stuck past its awaiter's patience is abandoned
(its worker retires, later calls still run), the bound holds, and closing leaves no thread behind
but the stuck ones, which are daemons.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from pathlib import Path

import pytest

from forethought import Agent, Plan, Step, tool
from forethought.tools import _threads
from forethought.tools._threads import BlockingPool, blocking_pool, run_blocking


def _me() -> threading.Thread:
    return threading.current_thread()


async def test_the_same_worker_serves_consecutive_calls() -> None:
    with blocking_pool(4) as pool:
        first = await run_blocking(_me)
        second = await run_blocking(_me)
        third = await pool.run(_me)
    assert first is second is third
    assert first is not threading.main_thread()
    assert first.daemon
    assert not first.is_alive()  # closed with the pool


async def test_workers_started_up_front_wait_for_calls() -> None:
    with blocking_pool(3, start=3) as pool:
        assert pool.wait_started(30)  # started by the pool's starter thread, not by the opener
        assert len(pool.threads) == 3
        seen = {await run_blocking(_me) for _ in range(5)}
        assert seen <= pool.threads
    assert not pool.threads


async def test_errors_and_context_variables_cross_the_pool() -> None:
    import contextvars

    var: contextvars.ContextVar[str] = contextvars.ContextVar("var")
    var.set("caller's")

    def fail() -> None:
        raise ValueError("from the worker")

    with blocking_pool(2):
        assert await run_blocking(lambda: var.get()) == "caller's"
        with pytest.raises(ValueError, match="from the worker"):
            await run_blocking(fail)
        with pytest.raises(SystemExit):
            await run_blocking(sys.exit, 3)  # raised in the worker, delivered here
        assert await run_blocking(lambda: "still serving") == "still serving"


async def test_a_stuck_call_is_abandoned_and_the_pool_still_serves() -> None:
    release = threading.Event()
    stuck_threads: list[threading.Thread] = []

    def stuck() -> str:
        stuck_threads.append(threading.current_thread())
        release.wait(60)
        return "late"

    try:
        with blocking_pool(1) as pool:
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(run_blocking(stuck), 0.05)
            # The only worker is stuck, yet the pool (bound 1) serves the next calls on a new one.
            later = [await asyncio.wait_for(run_blocking(_me), 10) for _ in range(3)]
            assert len(set(later)) == 1
            assert later[0] is not stuck_threads[0]
            started = time.monotonic()
        # Closing does not wait for the stuck worker...
        assert time.monotonic() - started < 5
        assert pool.threads == {stuck_threads[0]}
        assert stuck_threads[0].daemon
    finally:
        release.set()
    # ...which exits once its call returns; the result went nowhere.
    stuck_threads[0].join(10)
    assert not stuck_threads[0].is_alive()
    assert not pool.threads


async def test_at_most_max_workers_calls_run_at_once() -> None:
    lock = threading.Lock()
    live = peak = 0

    def busy() -> None:
        nonlocal live, peak
        with lock:
            live += 1
            peak = max(peak, live)
        time.sleep(0.01)
        with lock:
            live -= 1

    with blocking_pool(3) as pool:
        await asyncio.wait_for(asyncio.gather(*(run_blocking(busy) for _ in range(12))), 20)
        assert len(pool.threads) == 3
    assert peak == 3


async def test_a_call_given_up_before_it_started_never_runs() -> None:
    release = threading.Event()
    ran: list[str] = []

    def hold() -> None:
        release.wait(60)

    def record() -> None:
        ran.append("ran")

    try:
        with blocking_pool(1):
            holding = asyncio.ensure_future(run_blocking(hold))
            queued = asyncio.ensure_future(run_blocking(record))
            await asyncio.sleep(0)  # both handed to the pool, the second waits for the worker
            queued.cancel()
            release.set()
            await asyncio.wait_for(holding, 10)
            assert await asyncio.wait_for(run_blocking(lambda: "next"), 10) == "next"
    finally:
        release.set()
    assert ran == []
    assert queued.cancelled()


async def test_a_closed_pool_still_runs_calls_in_threads_of_their_own() -> None:
    pool = BlockingPool(2)
    pool.close()
    thread = await pool.run(_me)
    assert thread.daemon and thread.name.startswith("forethought-blocking")


async def test_without_a_pool_each_call_has_its_own_thread() -> None:
    assert _threads._current_pool.get() is None
    first, second = await run_blocking(_me), await run_blocking(_me)
    assert first is not second


async def test_an_agent_run_reuses_workers_and_leaves_no_thread_behind(tmp_path: Path) -> None:
    seen: list[threading.Thread] = []

    @tool
    def note(x: int) -> int:
        seen.append(threading.current_thread())
        return x

    steps = [
        Step(id=f"s{i}", tool="note", args={"x": i}, depends_on=[f"s{i - 1}"] if i else []) for i in range(6)
    ]
    agent = Agent([note], max_concurrency=2, store=str(tmp_path / "runs.db"))
    result = await agent.run(Plan(goal="chain", steps=steps), approve="all")
    assert result.status == "succeeded"
    assert len(seen) == 6
    assert all(t.name.startswith("forethought-blocking") for t in seen)
    assert len(set(seen)) <= 2  # a chain of six calls on the run's two workers
    # The run's workers are gone (the store's own to_thread workers belong to the loop).
    assert not [t for t in threading.enumerate() if t.name.startswith("forethought-blocking")]


async def test_opening_a_pool_does_not_wait_for_its_workers_to_start(monkeypatch: pytest.MonkeyPatch) -> None:
    # The run that opens the pool goes on to its first steps while the workers start (32
    # starts took 3-7 ms before the first step); a call made meanwhile waits for the first one.
    gate = threading.Event()
    real = BlockingPool._spawn

    def held(self: BlockingPool) -> None:
        gate.wait(5)  # the starter waits here until the test lets the workers start
        real(self)

    monkeypatch.setattr(BlockingPool, "_spawn", held)
    pool = BlockingPool(2)
    pool.start_workers(2)  # returns although no worker can start yet
    assert not pool.threads
    call = asyncio.ensure_future(pool.run(_me))
    await asyncio.sleep(0)  # the call is queued (a loop turn, not a wait for time to pass)
    assert not call.done()
    gate.set()
    worker = await call
    assert worker.name.startswith("forethought-blocking-") and worker is not threading.current_thread()
    pool.close()
    assert not pool.threads
    assert pool.wait_started(0)
