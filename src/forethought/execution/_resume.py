"""Finish awaiting a coroutine that was started by hand.

The executor's workers start a step's coroutine with ``send(None)`` inside their own task, so that
a step which completes without suspending (a pure transform, a cached lookup, a no-op) costs no
task and no trip around the event loop. When the step does suspend, the worker has to go on
awaiting it exactly as ``await`` would have: ``Resume`` is that ``await``, picking up after the
first yielded future. Cancellation and exceptions thrown into the worker's task reach the step's
coroutine at the point where it is suspended, as they would with a plain ``await``.
"""

from __future__ import annotations

from collections.abc import Coroutine, Generator
from typing import Any


class Resume:
    """``await Resume(coro, first)`` == the rest of ``await coro`` after ``first = coro.send(None)``."""

    __slots__ = ("_coro", "_first")

    def __init__(self, coro: Coroutine[Any, Any, Any], first: Any) -> None:
        self._coro = coro
        self._first = first

    def __await__(self) -> Generator[Any, Any, Any]:
        coro, yielded = self._coro, self._first
        while True:
            try:
                value = yield yielded
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as exc:
                try:
                    yielded = coro.throw(exc)
                except StopIteration as stop:
                    return stop.value
            else:
                try:
                    yielded = coro.send(value)
                except StopIteration as stop:
                    return stop.value
