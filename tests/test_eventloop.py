"""The precise event loop: timers never fire early, I/O still wakes it at once, and it falls back."""

from __future__ import annotations

import asyncio
import socket
import sys
import time

import pytest

from forethought.execution import eventloop


def test_run_returns_the_result_on_the_precise_loop() -> None:
    async def main() -> str:
        loop = asyncio.get_running_loop()
        assert isinstance(loop._selector, eventloop.PreciseSelector)  # type: ignore[attr-defined]
        return "ok"

    assert eventloop.run(main()) == "ok"


@pytest.mark.parametrize("spin_s", [0.0001, 0.0])
@pytest.mark.parametrize("delay", [0.00004, 0.0003, 0.0021, 0.0105])
def test_sleep_never_returns_early(delay: float, spin_s: float) -> None:
    # 40 µs is inside the spin window: that wait is all polling, no sleep at all.
    async def main() -> list[float]:
        out = []
        for _ in range(20):
            t0 = time.perf_counter()
            await asyncio.sleep(delay)
            out.append(time.perf_counter() - t0)
        return out

    with asyncio.Runner(loop_factory=lambda: eventloop.new_event_loop(spin_s)) as runner:
        assert min(runner.run(main())) >= delay


@pytest.mark.parametrize("timeout", [0.00005, 5.0])
def test_a_ready_descriptor_ends_the_wait_in_and_before_the_spin_window(timeout: float) -> None:
    import selectors

    selector = eventloop.PreciseSelector(0.0001)
    a, b = socket.socketpair()
    try:
        selector.register(a, selectors.EVENT_READ, "a")
        assert selector.select(0.0002) == []  # nothing to read: waits out the timeout
        b.send(b"x")
        t0 = time.monotonic()
        ready = selector.select(timeout)
        assert [(key.data, events) for key, events in ready] == [("a", selectors.EVENT_READ)]
        assert time.monotonic() - t0 < 4  # not the 5 s timeout: readiness ended the wait
    finally:
        selector.close()
        a.close()
        b.close()


def test_io_readiness_wakes_a_long_wait() -> None:
    async def main() -> bytes:
        loop = asyncio.get_running_loop()
        a, b = socket.socketpair()
        a.setblocking(False)
        b.setblocking(False)
        try:
            loop.call_later(0.05, b.send, b"ping")
            # Also a far-away timer: the select must end on the socket, not on this.
            loop.call_later(30, lambda: None)
            return await asyncio.wait_for(loop.sock_recv(a, 4), 10)
        finally:
            a.close()
            b.close()

    assert eventloop.run(main()) == b"ping"


def test_subprocesses_and_timeouts_work() -> None:
    async def main() -> tuple[bytes, bool]:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", "print('hi')", stdout=asyncio.subprocess.PIPE
        )
        out, _ = await proc.communicate()
        timed_out = False
        try:
            async with asyncio.timeout(0.01):
                await asyncio.sleep(5)
        except TimeoutError:
            timed_out = True
        return out, timed_out

    assert eventloop.run(main()) == (b"hi\n", True)


def test_a_descriptor_beyond_select_limits_falls_back_to_epoll(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(eventloop, "_FD_SETSIZE", 0)  # as if the epoll fd were >= FD_SETSIZE

    async def main() -> float:
        t0 = time.perf_counter()
        await asyncio.sleep(0.003)
        return time.perf_counter() - t0

    assert eventloop.run(main()) >= 0.003


def test_the_loop_tightens_timer_slack_of_its_thread() -> None:
    import ctypes
    import threading

    libc = ctypes.CDLL(None)

    def slack() -> int:
        return int(libc.prctl(30, 0, 0, 0, 0))  # PR_GET_TIMERSLACK: this thread's, in ns

    result: dict[str, int] = {}

    def in_a_thread() -> None:
        libc.prctl(29, 50_000, 0, 0, 0)  # PR_SET_TIMERSLACK: the kernel default (threads inherit)
        result["before"] = slack()
        eventloop.new_event_loop().close()
        result["after"] = slack()

    t = threading.Thread(target=in_a_thread)
    t.start()
    t.join()
    assert result["before"] == 50_000
    assert result["after"] == eventloop._TIMER_SLACK_NS


def test_the_spinning_timer_is_opt_in(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FORETHOUGHT_TIMER_SPIN_US", raising=False)
    loop = eventloop.new_event_loop()
    try:
        assert loop._selector._spin_s == 0.0  # type: ignore[attr-defined]
    finally:
        loop.close()
    monkeypatch.setenv("FORETHOUGHT_TIMER_SPIN_US", "100")
    loop = eventloop.new_event_loop()
    try:
        assert loop._selector._spin_s == pytest.approx(0.0001)  # type: ignore[attr-defined]
    finally:
        loop.close()
