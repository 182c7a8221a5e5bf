"""Run tool calls on Ray: steps spread over a Ray cluster, the run stays in the driver.

Only the call leaves the process: the scheduler, the event log, approvals, retries and timeouts
stay with the executor, exactly as with the local and process backends.

Where a call runs: a step that asks Ray for CPUs only (the default) runs on a warm pooled actor
holding that many CPUs, one call at a time (``_ActorPool``: a call on a placed actor skips the
per-task worker lease, the dominant cost of a short step); while none is idle it runs as a Ray
task, as does a step that asks for GPUs, memory or custom resources (``actors=False``: always
tasks). Either way a step fails with the same classes as a local one:

- the worker process, the actor or its node died (``WorkerCrashedError``, ``ActorDiedError``,
  ``NodeDiedError``, an object lost with its node, out of memory) → ``WorkerCrashed``, class
  ``crashed``, retried by the step's policy (on another actor or as a task: a dead actor leaves
  the pool). Ray's own retries are off (``max_retries=0``, ``max_restarts=0``): two retry loops
  would run a non-idempotent step twice behind the executor's back;
- a timeout or a cancelled run → the executor cancels ``call``; a task is cancelled with
  ``force=True`` (its worker process is killed), an actor is killed, so a timed-out call does not
  keep running;
- a tool error → ``ToolError`` with the tool's own message and retryability.

How tools travel: a ``@tool`` from a ``.py`` file or a module is shipped **by reference**
(``python:<path or module>``, located on the node by ``_worker.locate`` like the process backend
does: the file must exist at that path on the node, or the module be importable there); any
other tool object (a YAML command tool, a built-in) is shipped **by value** (pickled), and a
command tool then runs its command on the node. MCP tools keep their connection in the driver and
are called there.

Per-step Ray options come from the plan's metadata — steps have no metadata field of their own,
and adding one would change every plan's hash (defaults are hashed) — as
``metadata: {ray: {default: {num_cpus: 0.5}, steps: {train: {num_gpus: 1}}}}`` with the keys
``num_cpus``, ``num_gpus``, ``memory``, ``resources``, ``accelerator_type``; the write-ahead
wrapper hands a step's merged options over as ``ctx.extra["ray_options"]``. A step without them
asks Ray for ``default_num_cpus`` (default 1, Ray's own default).

``ray`` is imported only when the first call is made (``pip install 'forethought[ray]'``).
``address`` is passed to ``ray.init`` (``None``: start or join a local instance, ``"auto"``: the
cluster this machine belongs to, ``"ray://host:10001"``: Ray Client); a process that already
called ``ray.init`` keeps its instance.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import dataclasses
import os
import threading
import time
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, TypeVar

from forethought._extras import import_extra
from forethought.errors import ToolError
from forethought.execution.backends import parse_backend
from forethought.execution.backends.base import WorkerCrashed
from forethought.plan.model import Plan
from forethought.tools._threads import BlockingPool, _current_pool
from forethought.tools.base import Tool, ToolContext

T = TypeVar("T")

_OPTION_KEYS = ("num_cpus", "num_gpus", "memory", "resources", "accelerator_type")
_remote_fn: Any = None
_runner_cls: Any = None
# On a Ray worker: tools located by reference, kept for the worker's later calls (loading a
# tools file runs it; once per worker process, as the process backend does).
_located: dict[tuple[str, str], Tool] = {}


def _run_on_node(
    by_ref: tuple[str, str] | None,
    tool: Tool | None,
    args: dict[str, Any],
    ctx: ToolContext,
    run: Callable[[Coroutine[Any, Any, Any]], Any] = asyncio.run,
) -> Any:
    """The call's body on a Ray worker (a task, or a pooled actor's method, which passes its own
    ``run`` on its long-lived loop): locate or unpickle the tool, run one call, answer with a
    tuple so no exception object has to cross back."""
    from forethought.execution.backends._worker import locate

    try:
        if by_ref is not None:
            tool = _located.get(by_ref)
            if tool is None:
                tool = _located[by_ref] = locate(*by_ref)
        assert tool is not None
        return ("ok", run(tool.invoke(args, ctx)))
    except ToolError as exc:
        return ("tool_error", str(exc), exc.retryable)
    except BaseException as exc:  # SystemExit from a tool is a tool failure too
        return ("tool_error", f"{type(exc).__name__}: {exc}", True)


class _Runner:
    """A pooled actor: one Ray worker process kept for many calls, one call at a time (so a
    timed-out call is stopped by killing its actor without touching anyone else's call). Its
    event loop lives as long as it does (none set up and torn down per call), and a blocking
    tool runs right on the actor's thread (see ``_InlinePool``)."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._context = contextvars.copy_context()
        self._context.run(_current_pool.set, _InlinePool(1, name="forethought-ray-actor"))

    def ready(self) -> int:
        return os.getpid()

    def run(
        self, by_ref: tuple[str, str] | None, tool: Tool | None, args: dict[str, Any], ctx: ToolContext
    ) -> Any:
        return _run_on_node(by_ref, tool, args, ctx, self._run)

    def _run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        # A copy per call: what one call sets in its context does not reach the next one.
        task = self._loop.create_task(coro, context=self._context.copy())
        return self._loop.run_until_complete(task)


class _InlinePool(BlockingPool):
    """Where a blocking (sync) tool runs in a pooled actor: on the actor's own thread.

    Elsewhere such a call goes to a worker thread so the event loop stays free for other calls;
    an actor runs one call at a time, so its loop has nothing else to do, and the hand-off to a
    thread and back costs two thread switches, each waiting for a CPU on a busy node. The call
    sees no running loop, as in a worker thread (a sync tool may call ``asyncio.run`` itself); a
    timed-out call is stopped by killing the actor, as on the thread path."""

    async def run(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        loop = asyncio.events._get_running_loop()
        asyncio.events._set_running_loop(None)
        try:
            return fn(*args, **kwargs)
        finally:
            asyncio.events._set_running_loop(loop)


def _remote(ray: Any) -> Any:
    global _remote_fn
    if _remote_fn is None:
        # Retries belong to the executor (events, backoff, non-idempotent steps): none here.
        _remote_fn = ray.remote(max_retries=0, retry_exceptions=False)(_run_on_node)
    return _remote_fn


def _runner_class(ray: Any) -> Any:
    global _runner_cls
    if _runner_cls is None:
        # No restarts and no task retries: a dead actor is the executor's ``crashed``, retried
        # (or sent to review) by the step's policy, never re-run behind its back.
        _runner_cls = ray.remote(max_restarts=0, max_task_retries=0, max_concurrency=1)(_Runner)
    return _runner_cls


class _ActorPool:
    """Warm actors for the calls that ask Ray for CPUs only, per CPU amount.

    Why a pool: a Ray task is scheduled afresh on every call (lease a worker from the raylet,
    push the task, return the worker), which costs milliseconds per step on a busy node; a call
    on an actor that is already placed goes straight to its process. Why shared by every backend
    of this process and Ray session: a backend lives for one run, and starting an actor takes a
    worker process start (seconds on a loaded machine), so per-run actors would cost more than
    they save.

    The rules, and why nothing waits on the pool:

    - a call takes an idle actor holding the CPUs it asks for; if there is none it goes as a
      task (the old path, never slower than before) and one more actor is started in the
      background when fewer are alive or starting than such calls are in flight;
    - an actor holds its CPUs while idle, as Ray accounts for actors. So idle actors are let go
      after ``idle_s`` without a call, and at once when a call of this process goes as a task
      and, counting what this process's actors and tasks hold, the cluster would lack the CPUs
      it asks for (it must not wait behind idle actors). What remains: on a full
      node, a task that found no idle actor can queue behind actors that started or came back
      after it was sent; it runs once enough of them have been idle for ``idle_s`` (after the
      run's other calls on them), not never;
    - a call that is cancelled or times out kills its actor (a thread cannot be stopped), and an
      actor that died is dropped: neither goes back to the pool.
    """

    def __init__(self, ray: Any, idle_s: float) -> None:
        self._ray = ray
        self.idle_s = idle_s
        # The cluster's CPUs, read now and again by the reaper (a cluster can grow or shrink).
        self._total_cpus = self._cluster_cpus()
        self._lock = threading.Lock()
        self._idle: dict[float, list[tuple[Any, float]]] = {}
        self._starting: dict[float, int] = {}
        self._busy: dict[float, int] = {}
        self._wanted: dict[float, int] = {}  # calls in flight per CPU amount (actor or task)
        self._closed = False
        self._wake = threading.Event()
        self._reaper: threading.Thread | None = None

    def stats(self) -> dict[str, int]:
        with self._lock:
            return {
                "idle": sum(len(v) for v in self._idle.values()),
                "busy": sum(self._busy.values()),
                "starting": sum(self._starting.values()),
            }

    def take(self, cpus: float) -> Any | None:
        """An idle actor for ``cpus`` (marked busy), or ``None``: the call goes as a task."""
        start = False
        with self._lock:
            self._wanted[cpus] = self._wanted.get(cpus, 0) + 1
            idle = self._idle.get(cpus)
            if idle:
                actor, _ = idle.pop()  # the most recently used: the others may age out
                self._busy[cpus] = self._busy.get(cpus, 0) + 1
                return actor
            # Idle actors holding other amounts may hold the CPUs this task (and the actor
            # started for it) needs: if so, they go.
            others = self._make_room(cpus, keep=cpus)
            alive = self._busy.get(cpus, 0) + self._starting.get(cpus, 0)
            if alive < self._wanted[cpus] and not self._closed:
                self._starting[cpus] = self._starting.get(cpus, 0) + 1
                start = True
        for actor in others:
            self._kill(actor)
        if start:
            self._start(cpus)
        return None

    def done(self, cpus: float, actor: Any | None, *, reusable: bool) -> None:
        """A call that ``take`` answered ended: its actor back to the pool, or killed."""
        with self._lock:
            self._wanted[cpus] -= 1
            if actor is None:
                return
            self._busy[cpus] -= 1
            if reusable and not self._closed:
                self._idle.setdefault(cpus, []).append((actor, time.monotonic()))
                return
        self._kill(actor)

    def make_room(self, cpus: float) -> None:
        """A task that needs ``cpus`` (and perhaps GPUs, memory…) is about to be sent: let idle
        actors go if, by this process's count, they hold CPUs it would otherwise lack."""
        with self._lock:
            idle = self._make_room(cpus, keep=None)
        for actor in idle:
            self._kill(actor)

    def _make_room(self, cpus: float, keep: float | None) -> list[Any]:
        """Under the lock: the idle actors (but those holding ``keep`` CPUs) taken out of the
        pool to be killed, when the CPUs this process's actors and tasks hold leave less than
        ``cpus`` of the cluster's (Ray's own count is a round trip away; ours is at hand, and
        counts what this process can free)."""
        held = sum(
            k * (len(self._idle.get(k, ())) + self._starting.get(k, 0) + self._wanted.get(k, 0))
            for k in {*self._idle, *self._starting, *self._wanted}
        )
        if self._total_cpus - held >= cpus:
            return []
        out = [a for k, v in self._idle.items() if k != keep for a, _ in v]
        for k in [k for k in self._idle if k != keep]:
            del self._idle[k]
        return out

    def release_idle(self) -> None:
        """Let every idle actor go now."""
        with self._lock:
            idle = [a for v in self._idle.values() for a, _ in v]
            self._idle.clear()
        for actor in idle:
            self._kill(actor)

    def close(self) -> None:
        with self._lock:
            self._closed = True
        self.release_idle()
        self._wake.set()

    def _start(self, cpus: float) -> None:
        try:
            actor = _runner_class(self._ray).options(num_cpus=cpus).remote()
            ready = actor.ready.remote().future()
        except Exception:
            with self._lock:
                self._starting[cpus] -= 1
            return

        def started(fut: Any) -> None:  # on a Ray thread: only the lock and plain data
            ok = fut.exception() is None
            with self._lock:
                self._starting[cpus] -= 1
                if ok and not self._closed:
                    self._idle.setdefault(cpus, []).append((actor, time.monotonic()))
                    return
            self._kill(actor)

        ready.add_done_callback(started)
        self._ensure_reaper()

    def _ensure_reaper(self) -> None:
        with self._lock:
            if self._reaper is not None or self._closed:
                return
            # A daemon thread of the pool's own, not a task of one run's loop: the pool outlives
            # runs and their loops, and idle actors must be let go when no run comes back.
            self._reaper = threading.Thread(target=self._reap, name="forethought-ray-pool", daemon=True)
        self._reaper.start()

    def _cluster_cpus(self) -> float:
        try:
            return float(self._ray.cluster_resources().get("CPU", 0.0))
        except Exception:  # Ray shut down: nothing to hold
            return 0.0

    def _reap(self) -> None:
        while not self._wake.wait(max(self.idle_s / 2, 0.05)):
            if not self._ray.is_initialized():  # ray.shutdown(): the actors went with it
                with self._lock:
                    self._closed = True
                    self._idle.clear()
                return
            self._total_cpus = self._cluster_cpus()
            cutoff = time.monotonic() - self.idle_s
            with self._lock:
                old = [a for v in self._idle.values() for a, t in v if t < cutoff]
                for cpus, v in self._idle.items():
                    self._idle[cpus] = [(a, t) for a, t in v if t >= cutoff]
            for actor in old:
                self._kill(actor)

    def _kill(self, actor: Any) -> None:
        with contextlib.suppress(Exception):  # already dead, or Ray shut down
            self._ray.kill(actor, no_restart=True)


_pools: dict[tuple[str, str], _ActorPool] = {}
_pools_lock = threading.Lock()


def _pool_for(ray: Any, idle_s: float) -> _ActorPool | None:
    """This process's pool for the Ray session it is connected to (a new ``ray.init`` after a
    shutdown is a new session: the old pool's actors are gone with it); ``None`` where the
    session cannot be told (every call then goes as a task)."""
    try:
        context = ray.get_runtime_context()
        key = (str(context.get_session_name()), str(context.get_job_id()))
    except Exception:
        return None
    with _pools_lock:
        pool = _pools.get(key)
        if pool is None:
            for old in _pools.values():
                old.close()
            _pools.clear()
            pool = _pools[key] = _ActorPool(ray, idle_s)
        return pool


def actor_pool_stats() -> dict[str, int]:
    """How many pooled actors this process has (idle, busy, starting) in its Ray session: for
    benches and tests that want a warm pool before they measure."""
    with _pools_lock:
        pools = list(_pools.values())
    total = {"idle": 0, "busy": 0, "starting": 0}
    for pool in pools:
        for k, v in pool.stats().items():
            total[k] += v
    return total


def plan_ray_options(plan: Plan | None, step_id: str) -> Any:
    """What the plan's ``metadata.ray`` asks for ``step_id`` (its ``default`` merged under its
    ``steps`` entry); ``None`` when the plan has none. Checked by ``step_options``."""
    wanted = plan.metadata.get("ray") if plan is not None else None
    if wanted is None:
        return None
    if not isinstance(wanted, Mapping):
        return wanted  # step_options names the problem
    steps = wanted.get("steps") or {}
    own = steps.get(step_id) if isinstance(steps, Mapping) else None
    default = wanted.get("default") or {}
    if not isinstance(own, Mapping) or not isinstance(default, Mapping):
        return own if own is not None else default
    return {**default, **own}


def step_options(ctx: ToolContext, default_num_cpus: float, wanted: Any = None) -> dict[str, Any]:
    """Ray task options for this call, from the plan's ``metadata.ray`` (unknown keys refused):
    ``wanted`` as the plan asks, else what the write-ahead wrapper put in ``ctx.extra``."""
    if wanted is None:
        wanted = ctx.extra.get("ray_options")
    options: dict[str, Any] = {"num_cpus": default_num_cpus}
    if wanted is None:
        return options
    if not isinstance(wanted, Mapping):
        raise ToolError(
            f"step {ctx.step_id}: the plan's metadata.ray (default, steps) must map Ray option "
            "names to values",
            retryable=False,
        )
    unknown = sorted(set(wanted) - set(_OPTION_KEYS))
    if unknown:
        raise ToolError(
            f"step {ctx.step_id}: metadata.ray.{unknown[0]} is not a Ray task option forethought "
            f"passes on (use {', '.join(_OPTION_KEYS)})",
            retryable=False,
        )
    options.update(wanted)
    return options


class RayBackend:
    """Runs each tool call on Ray: on a pooled actor, or as one Ray task (see the module
    docstring)."""

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        *,
        default_num_cpus: float = 1.0,
        init_options: Mapping[str, Any] | None = None,
        actors: bool = True,
        actor_idle_s: float = 10.0,
    ) -> None:
        self.address = address
        self.default_num_cpus = default_num_cpus
        self.actors = actors
        self.actor_idle_s = actor_idle_s
        self._init_options = dict(init_options or {})
        self._ray: Any = None
        # Tools shipped by value, put in Ray's object store once per backend (one run), not
        # pickled again with every call: id → (the tool, kept alive so the id stays its own; ref).
        self._shipped: dict[int, tuple[Tool, Any]] = {}
        # Where the per-step options come from when no write-ahead wrapper hands them over (a
        # run without a store): the executor's current plan, set by whoever runs it.
        self.current_plan: Callable[[], Plan | None] | None = None

    def _ensure_ray(self) -> Any:
        if self._ray is None:
            ray = import_extra("ray", "the ray backend")
            if not ray.is_initialized():
                ray.init(address=self.address, **self._init_options)
            self._ray = ray
        return self._ray

    def _by_value(self, ray: Any, tool: Tool) -> Any:
        shipped = self._shipped.get(id(tool))
        if shipped is None:
            shipped = self._shipped[id(tool)] = (tool, ray.put(tool))
        return shipped[1]

    async def call(self, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> Any:
        source = tool.spec.source
        if source.startswith("mcp"):
            return await tool.invoke(args, ctx)  # its connection lives here, not on a node
        planned = plan_ray_options(self.current_plan(), ctx.step_id) if self.current_plan else None
        options = step_options(ctx, self.default_num_cpus, planned)
        ray = self._ensure_ray()
        by_ref = (source, tool.spec.name) if source.startswith("python:") else None
        shipped_ctx = dataclasses.replace(ctx, extra={})  # callbacks in extra belong to the driver
        try:
            shipped_tool = None if by_ref else self._by_value(ray, tool)
        except Exception as exc:  # e.g. the tool object cannot be pickled
            raise ToolError(
                f"tool {tool.spec.name!r} cannot be sent to Ray ({type(exc).__name__}: {exc})",
                retryable=False,
            ) from None
        pool = _pool_for(ray, self.actor_idle_s) if self.actors else None
        cpus = options["num_cpus"]
        cpu_only = set(options) == {"num_cpus"} and type(cpus) in (int, float) and cpus >= 0
        if pool is None or not cpu_only:  # (a bad num_cpus: Ray's own error, from a task)
            # GPUs, memory, custom resources: a task with its options, as Ray schedules them. Idle
            # pooled actors go first if, by this process's count, they hold CPUs it needs.
            if pool is not None:
                pool.make_room(cpus if type(cpus) in (int, float) else 0.0)
            return await self._task(ray, options, by_ref, shipped_tool, args, shipped_ctx, tool)
        actor = pool.take(cpus)
        if actor is None:  # none idle yet: the task path, while one starts
            try:
                return await self._task(ray, options, by_ref, shipped_tool, args, shipped_ctx, tool)
            finally:
                pool.done(cpus, None, reusable=False)
        reusable = False
        try:
            try:
                ref = actor.run.remote(by_ref, shipped_tool, args, shipped_ctx)
            except Exception as exc:  # e.g. an argument that cannot be pickled
                reusable = True  # nothing reached the actor
                raise ToolError(
                    f"tool {tool.spec.name!r} cannot be sent to Ray ({type(exc).__name__}: {exc})",
                    retryable=False,
                ) from None
            reply = await ref
            reusable = True  # a tool error leaves the actor as good as it was
        except ray.exceptions.RayError as exc:
            raise _failure(ray, exc) from None
        finally:
            # Cancelled (a timeout, a stopped run) or dead: the actor is killed, not pooled; killing
            # it stops the call, as a forced cancel kills a task's worker.
            pool.done(cpus, actor, reusable=reusable)
        return _answer(reply)

    async def _task(
        self,
        ray: Any,
        options: dict[str, Any],
        by_ref: Any,
        tool: Any,
        args: dict[str, Any],
        ctx: ToolContext,
        original: Tool,
    ) -> Any:
        try:
            ref = _remote(ray).options(**options).remote(by_ref, tool, args, ctx)
        except Exception as exc:  # e.g. an argument that cannot be pickled
            raise ToolError(
                f"tool {original.spec.name!r} cannot be sent to Ray ({type(exc).__name__}: {exc})",
                retryable=False,
            ) from None
        try:
            reply = await ref
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)  # kill the worker: a timed-out call must not go on
            raise
        except ray.exceptions.RayError as exc:
            raise _failure(ray, exc) from None
        return _answer(reply)

    async def aclose(self) -> None:
        # The Ray instance belongs to the process (or the cluster), and the actor pool to the
        # process's Ray session (it serves the next run); what this run put in the object store
        # goes with it.
        self._shipped.clear()


def _answer(reply: Any) -> Any:
    if reply[0] == "ok":
        return reply[1]
    raise ToolError(reply[1], retryable=bool(reply[2]))


def _failure(ray: Any, exc: BaseException) -> Exception:
    """A Ray failure → the executor's failure classes (``crashed`` for lost workers/nodes)."""
    ex = ray.exceptions
    lost = tuple(
        getattr(ex, name)
        for name in (
            "WorkerCrashedError",
            "NodeDiedError",
            "LocalRayletDiedError",
            "ObjectLostError",
            "OwnerDiedError",
            "OutOfMemoryError",
            "ActorDiedError",
            "ActorUnavailableError",
            "RaySystemError",
        )
        if hasattr(ex, name)
    )
    first = " ".join(str(exc).split())[:300]
    if isinstance(exc, lost):
        return WorkerCrashed(f"the Ray worker running the tool died ({type(exc).__name__}: {first})")
    if isinstance(exc, ex.TaskCancelledError):
        return ToolError("the Ray task was cancelled outside forethought", retryable=True)
    return ToolError(f"Ray failed to run the tool ({type(exc).__name__}: {first})", retryable=False)


__all__ = ["RayBackend", "parse_backend", "plan_ray_options", "step_options"]
