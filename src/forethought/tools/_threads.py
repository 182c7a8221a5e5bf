"""Blocking tool functions run in daemon threads, so one that never returns cannot hold the process.

``asyncio.to_thread`` runs on the loop's default ``ThreadPoolExecutor``, whose threads are joined
when the loop closes and again at interpreter exit. A sync tool stuck past its timeout then keeps
``forethought exec`` from exiting long after the run has ended (measured: a 1 s timeout around a
20 s ``time.sleep`` — the step failed at 1 s, the command returned at 20 s; a tool that never
returns would hang it for good). Python cannot stop a thread, so a call whose awaiter gave up
(timeout, abort, Ctrl-C) is *abandoned*: its thread is a daemon, runs on unseen, frees its slot at
once, and its result is dropped.

At most ``MAX_BLOCKING_CALLS`` calls run at once per event loop (the rest wait, cancellably);
abandoned calls do not count. One thread per call: a thread starts in tens of microseconds, small
next to the work of a function worth running off the loop (pass ``blocking=False`` to ``@tool``
for trivial ones).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import threading
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

MAX_BLOCKING_CALLS = 32

_slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = weakref.WeakKeyDictionary()


def _slots_of(loop: asyncio.AbstractEventLoop) -> asyncio.Semaphore:
    sem = _slots.get(loop)
    if sem is None:
        sem = _slots[loop] = asyncio.Semaphore(MAX_BLOCKING_CALLS)
    return sem


def _settle(fut: asyncio.Future[Any], result: Any, exc: BaseException | None) -> None:
    if fut.done():  # the awaiter gave up: the call was abandoned, its outcome goes nowhere
        return
    if exc is not None:
        fut.set_exception(exc)
    else:
        fut.set_result(result)


async def run_blocking(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``await fn(*args, **kwargs)`` in a daemon thread, with the caller's context variables.

    Exceptions, ``SystemExit`` included, are raised in the caller, as ``asyncio.to_thread`` does.
    """
    loop = asyncio.get_running_loop()
    call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
    async with _slots_of(loop):
        fut: asyncio.Future[T] = loop.create_future()

        def target() -> None:
            result: Any = None
            error: BaseException | None = None
            try:
                result = call()
            except BaseException as exc:  # delivered to the awaiter, like to_thread does
                error = exc
            # RuntimeError: the loop closed while the call ran, so nobody is waiting for it.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_settle, fut, result, error)

        name = f"forethought-blocking-{getattr(fn, '__name__', 'call')}"
        threading.Thread(target=target, name=name, daemon=True).start()
        return await fut
