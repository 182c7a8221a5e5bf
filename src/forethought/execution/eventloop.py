"""The event loop forethought runs on: asyncio's, with timers that fire on time.

asyncio's default selector on Linux waits in ``epoll_wait``, whose timeout is whole milliseconds,
rounded up: a timer due in 20.1 ms fires after 21 ms. Every ``asyncio.sleep``, ``wait_for``,
retry backoff and rate-limit pause in a step is late by up to a millisecond, and along a DAG the
lateness adds up step after step — on a 20-step chain of 20 ms steps, 2–3 % of the run, the same
order as everything the scheduler itself costs. ``PreciseSelector`` waits on the epoll
descriptor with ``select()`` instead, whose timeout has microsecond resolution, and then collects
the ready events from epoll without waiting. I/O readiness still wakes it at once.

Even a microsecond timeout wakes the thread late: the kernel (and the hypervisor under it) takes
about 50 µs here to get a sleeping thread running again (p99 ≈ 80 µs). ``spin_s`` > 0 (opt-in;
default 0, off) makes the selector wake that long before a timer is due and poll epoll without
sleeping until it is: timers then fire within microseconds, at the price of up to ``spin_s`` of
busy CPU per timer wake-up. It is off by default because the plain wait already keeps a DAG's
makespan within a few per mille of its critical path (see bench/executor/REPORT.md), and CPU
burnt in a poll loop is a cost every user pays; turn it on with
``FORETHOUGHT_TIMER_SPIN_US`` (microseconds, e.g. 100) or ``new_event_loop(spin_s=...)``.

The loop also asks the kernel for 1 µs of timer slack on the thread that creates it (the
default, 50 µs, lets the kernel batch wake-ups at the cost of lateness; a scheduler whose job is
starting steps on time prefers the other trade).

``run()`` is what the CLI uses; an application embedding forethought can pass
``new_event_loop`` as ``loop_factory`` to ``asyncio.Runner`` (or keep its own loop: everything
works on any asyncio loop, only timers are coarser).
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import select
import selectors
import time
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

# select() takes descriptors below FD_SETSIZE only; past it, wait like the stock selector.
_FD_SETSIZE = 1024
# How long before a timer is due the selector stops sleeping and polls: off unless asked for.
SPIN_S = 0.0


def _spin_from_env() -> float:
    text = os.environ.get("FORETHOUGHT_TIMER_SPIN_US", "")
    try:
        return max(0.0, float(text) / 1e6) if text else SPIN_S
    except ValueError:
        return SPIN_S


_EPOLL = hasattr(selectors, "EpollSelector")
_Base: type[selectors.BaseSelector] = selectors.EpollSelector if _EPOLL else selectors.DefaultSelector


class PreciseSelector(_Base):  # type: ignore[misc,valid-type]
    """An epoll selector whose waits end within microseconds of their timeout, not milliseconds."""

    def __init__(self, spin_s: float = SPIN_S) -> None:
        super().__init__()
        self._spin_s = max(0.0, spin_s)

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        ready: list[tuple[selectors.SelectorKey, int]]
        if timeout is not None and timeout > 0 and _EPOLL:
            fd = self.fileno()
            if 0 <= fd < _FD_SETSIZE:
                deadline = time.monotonic() + timeout  # asyncio's loop clock is monotonic()
                sleep_s = timeout - self._spin_s
                if sleep_s > 0:
                    try:
                        readable, _, _ = select.select([fd], [], [], sleep_s)
                    except InterruptedError:
                        return []
                    if readable:
                        ready = super().select(0)
                        return ready
                while True:  # the last ``spin_s``: poll, so the timer fires on time
                    ready = super().select(0)
                    if ready or time.monotonic() >= deadline:
                        return ready
        ready = super().select(timeout)
        return ready


_PR_SET_TIMERSLACK = 29  # linux/prctl.h
_TIMER_SLACK_NS = 1_000


def _tighten_timer_slack() -> None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_TIMERSLACK, _TIMER_SLACK_NS, 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - no libc prctl: keep the default
        pass


def new_event_loop(spin_s: float | None = None) -> asyncio.AbstractEventLoop:
    """A new asyncio event loop with precise timers (see the module docstring).

    ``spin_s`` None: ``$FORETHOUGHT_TIMER_SPIN_US``, else off."""
    if spin_s is None:
        spin_s = _spin_from_env()
    if not _EPOLL:  # pragma: no cover - not Linux: the stock loop
        return asyncio.new_event_loop()
    _tighten_timer_slack()
    return asyncio.SelectorEventLoop(PreciseSelector(spin_s))


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` on a loop from ``new_event_loop``."""
    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        return runner.run(main)


__all__ = ["PreciseSelector", "new_event_loop", "run"]
