"""Blocking tool functions run in daemon threads, so one that never returns cannot hold the process.

``asyncio.to_thread`` runs on the loop's default ``ThreadPoolExecutor``, whose threads are joined
when the loop closes and again at interpreter exit. A sync tool stuck past its timeout then keeps
``forethought exec`` from exiting long after the run has ended (measured: a 1 s timeout around a
20 s ``time.sleep`` — the step failed at 1 s, the command returned at 20 s; a tool that never
returns would hang it for good). Python cannot stop a thread, so a call whose awaiter gave up
(timeout, abort, Ctrl-C) is *abandoned*: its thread is a daemon, runs on unseen, frees its slot at
once, and its result is dropped.

Two ways to get such a thread:

- ``BlockingPool``: reused daemon workers, owned by whoever opens it (the ``Agent`` opens one per
  run with ``blocking_pool()``; tools find it through a context variable, so nothing is global)
  and closed at the end. A thread per call costs 300+ µs of start-up, thread-switching and GIL
  hand-over per call; a reused worker costs a queue hand-off. An abandoned call retires its
  worker (the pool starts a replacement when one is needed; the stuck one exits whenever its call
  returns). Workers are started when the pool opens, not on the first call: ``Thread.start()``
  waits for the new thread to run, and while another worker is busy in Python that wait is a GIL
  switch interval (5 ms) for every root step that starts a thread. They are started by a starter
  thread of the pool's own, not by the opener: 32 starts held a run's first step 3-7 ms on a
  quiet machine and ~50 ms on a busy one (``bench/executor/sync_sleep_dag.py``); a call queued
  before any worker runs waits in the queue for the first one up.
- Without a pool (a tool invoked outside a run): one thread per call, at most
  ``MAX_BLOCKING_CALLS`` at once per event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import itertools
import queue
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from typing import Any, Literal, TypeVar

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


def _deliver(loop: asyncio.AbstractEventLoop, fut: asyncio.Future[Any], call: Callable[[], Any]) -> None:
    result: Any = None
    error: BaseException | None = None
    try:
        result = call()
    except BaseException as exc:  # delivered to the awaiter, like to_thread does
        error = exc
    # RuntimeError: the loop closed while the call ran, so nobody is waiting for it.
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(_settle, fut, result, error)


JobState = Literal["queued", "running", "done", "abandoned"]


class _Job:
    __slots__ = ("call", "fut", "loop", "state", "thread")

    def __init__(self, loop: asyncio.AbstractEventLoop, fut: asyncio.Future[Any], call: Callable[[], Any]):
        self.loop = loop
        self.fut = fut
        self.call = call
        self.state: JobState = "queued"
        self.thread: threading.Thread | None = None  # the worker running it


class BlockingPool:
    """At most ``max_workers`` reused daemon threads running blocking calls for one owner.

    Accounting (under ``_lock``): ``_live`` workers count against the bound; ``_idle`` of them
    wait for a job nobody has claimed yet; ``_backlog`` jobs wait for a worker to come free. A
    worker whose call was abandoned leaves ``_live`` at once (the pool no longer counts on it)
    and exits when its call returns.
    """

    def __init__(self, max_workers: int = MAX_BLOCKING_CALLS, *, name: str = "forethought-blocking") -> None:
        if max_workers < 1:
            raise ValueError("max_workers must be at least 1")
        self.max_workers = max_workers
        self._name = name
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._live = 0
        self._idle = 0
        self._backlog = 0
        self._closed = False
        self._threads: set[threading.Thread] = set()
        self._retired: weakref.WeakSet[threading.Thread] = weakref.WeakSet()  # stuck in abandoned calls
        self._numbers = itertools.count(1)
        self._starter: threading.Thread | None = None  # starts the workers of ``start_workers``
        # Jobs not yet handed to the workers, per loop (only that loop's thread touches its list).
        self._pending: dict[asyncio.AbstractEventLoop, list[_Job]] = {}
        # Outcomes not yet taken by their loop (workers append, the loop takes; under _lock).
        self._outbox: dict[
            asyncio.AbstractEventLoop, list[tuple[asyncio.Future[Any], Any, BaseException | None]]
        ] = {}

    # ------------------------------------------------------------------ owner side

    def start_workers(self, n: int) -> None:
        """Start up to ``n`` idle workers, on the pool's starter thread: the caller goes on at
        once. They count as idle from now on, so calls queue for them instead of starting more."""
        with self._lock:
            n = max(0, min(n, self.max_workers - self._live))
            self._live += n
            self._idle += n
        if n == 0:
            return
        previous = self._starter
        starter = threading.Thread(
            target=self._spawn_after, args=(previous, n), name=f"{self._name}-starter", daemon=True
        )
        self._starter = starter
        starter.start()

    def _spawn_after(self, previous: threading.Thread | None, n: int) -> None:
        if previous is not None:  # one starter at a time: the threads' numbers stay in order
            previous.join()
        for _ in range(n):
            self._spawn()

    def wait_started(self, timeout_s: float | None = None) -> bool:
        """Wait until the workers of ``start_workers`` are started; False if ``timeout_s`` ran
        out first (for tests and diagnostics)."""
        starter = self._starter
        if starter is None:
            return True
        starter.join(timeout_s)
        return not starter.is_alive()

    def close(self, timeout_s: float = 1.0) -> None:
        """Stop the idle workers and wait for them; a worker stuck in an abandoned call is left
        to exit when its call returns (it is a daemon: it never holds the process)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            stopping = self._idle
            self._idle = 0
            self._live -= stopping
        for _ in range(stopping):
            self._jobs.put(None)
        deadline = time.monotonic() + timeout_s
        starter = self._starter
        if starter is not None and starter is not threading.current_thread():
            # Its workers may still be starting: each takes one of the stops put above.
            starter.join(max(0.0, deadline - time.monotonic()))
        for thread in list(self._threads):
            if thread is not threading.current_thread() and thread not in self._retired:
                thread.join(max(0.0, deadline - time.monotonic()))

    @property
    def threads(self) -> frozenset[threading.Thread]:
        """The pool's threads still alive (for tests and diagnostics)."""
        return frozenset(t for t in self._threads if t.is_alive())

    # ------------------------------------------------------------------ caller side

    async def run(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """``await fn(*args, **kwargs)`` on a worker, with the caller's context variables."""
        loop = asyncio.get_running_loop()
        call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
        fut: asyncio.Future[T] = loop.create_future()
        job = _Job(loop, fut, call)
        spawn = closed = False
        with self._lock:
            if self._closed:
                closed = True
            elif self._idle:
                self._idle -= 1
            elif self._live < self.max_workers:
                self._live += 1
                spawn = True
            else:
                self._backlog += 1
        if closed:  # a call after the owner closed the pool still runs, in a thread of its own
            return await _run_in_new_thread(fn, *args, **kwargs)
        if spawn:  # started before its job is queued, so start() need not wait out a busy worker
            self._spawn()
        self._hand_over(loop, job)
        try:
            return await fut
        except BaseException:
            self._abandon(job)
            raise

    def _hand_over(self, loop: asyncio.AbstractEventLoop, job: _Job) -> None:
        """Queue the job for the workers once the loop has run the callbacks already due.

        A woken worker competes with the loop thread for the GIL: queued at once, it would get
        it the next time the loop thread waits (even a zero-timeout ``select`` between two
        callbacks) and a CPU-bound call keeps it for a switch interval (5 ms), so the steps
        made ready in the same turn would start milliseconds apart. Handed over after them,
        they all start first.
        """
        pending = self._pending.get(loop)
        if pending is None:
            pending = self._pending[loop] = []
            loop.call_soon(self._flush, loop)
        pending.append(job)

    def _flush(self, loop: asyncio.AbstractEventLoop) -> None:
        for job in self._pending.pop(loop, ()):
            self._jobs.put(job)

    def _abandon(self, job: _Job) -> None:
        replace = False
        with self._lock:
            if job.state == "queued":  # never started: the worker that dequeues it skips it
                job.state = "abandoned"
            elif job.state == "running":
                job.state = "abandoned"
                if job.thread is not None:
                    self._retired.add(job.thread)
                self._live -= 1  # that worker is gone for the pool; it exits when the call returns
                if self._backlog and not self._closed:
                    self._backlog -= 1
                    self._live += 1
                    replace = True
        if replace:
            self._spawn()

    # ------------------------------------------------------------------ worker side

    def _spawn(self) -> None:
        thread = threading.Thread(target=self._work, name=f"{self._name}-{next(self._numbers)}", daemon=True)
        self._threads.add(thread)
        thread.start()

    def _work(self) -> None:
        jobs = self._jobs
        me = threading.current_thread()
        try:
            while True:
                job = jobs.get()
                if job is None:
                    return
                with self._lock:
                    skip = job.state == "abandoned"
                    if not skip:
                        job.state = "running"
                        job.thread = me
                if skip:  # given up before it started
                    if not self._free():
                        return
                    continue
                result: Any = None
                error: BaseException | None = None
                try:
                    result = job.call()
                except BaseException as exc:  # delivered to the awaiter, like to_thread does
                    error = exc
                with self._lock:
                    if job.state == "abandoned":
                        return  # _abandon retired this worker while the call ran; nobody waits
                    job.state = "done"
                    # Free before the outcome is posted: the awaiter's next call finds this
                    # worker idle instead of starting another.
                    stay = self._free_locked()
                self._post(job, result, error)
                if not stay:
                    return
        finally:
            self._threads.discard(me)

    def _free(self) -> bool:
        with self._lock:
            return self._free_locked()

    def _free_locked(self) -> bool:
        """This worker is free: it takes a waiting job, waits as idle, or (closed) leaves."""
        if self._backlog:
            self._backlog -= 1  # a queued job is waiting for exactly this worker
            return True
        if self._closed:
            self._live -= 1
            return False
        self._idle += 1
        return True

    def _post(self, job: _Job, result: Any, error: BaseException | None) -> None:
        """Hand an outcome to the job's loop: outcomes that finish while the loop has not yet
        taken the earlier ones ride along with them (one wake-up of the loop, not one each)."""
        loop = job.loop
        with self._lock:
            first = loop not in self._outbox
            self._outbox.setdefault(loop, []).append((job.fut, result, error))
        if first:
            try:
                loop.call_soon_threadsafe(self._settle_all, loop)
            except RuntimeError:  # the loop closed while the call ran: nobody is waiting
                with self._lock:
                    self._outbox.pop(loop, None)

    def _settle_all(self, loop: asyncio.AbstractEventLoop) -> None:
        with self._lock:
            box = self._outbox.pop(loop, [])
        for fut, result, error in box:
            _settle(fut, result, error)


_current_pool: contextvars.ContextVar[BlockingPool | None] = contextvars.ContextVar(
    "forethought_blocking_pool", default=None
)


@contextlib.contextmanager
def blocking_pool(max_workers: int = MAX_BLOCKING_CALLS, *, start: int = 0) -> Iterator[BlockingPool]:
    """Open a pool for the calls made in this context (and tasks created from it), close it after.

    ``start`` workers are started now, so the run's first calls find them waiting.
    """
    pool = BlockingPool(max_workers)
    token = _current_pool.set(pool)
    try:
        pool.start_workers(start)
        yield pool
    finally:
        _current_pool.reset(token)
        pool.close()


async def run_blocking(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``await fn(*args, **kwargs)`` in a daemon thread, with the caller's context variables.

    On the pool of the current context if there is one, else in a thread of its own. Exceptions,
    ``SystemExit`` included, are raised in the caller, as ``asyncio.to_thread`` does.
    """
    pool = _current_pool.get()
    if pool is not None:
        return await pool.run(fn, *args, **kwargs)
    return await _run_in_new_thread(fn, *args, **kwargs)


async def _run_in_new_thread(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    loop = asyncio.get_running_loop()
    call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
    async with _slots_of(loop):
        fut: asyncio.Future[T] = loop.create_future()
        name = f"forethought-blocking-{getattr(fn, '__name__', 'call')}"
        threading.Thread(target=_deliver, args=(loop, fut, call), name=name, daemon=True).start()
        return await fut
