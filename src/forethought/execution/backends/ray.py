"""Run tool calls as Ray tasks: steps spread over a Ray cluster, the run stays in the driver.

Only the call leaves the process: the scheduler, the event log, approvals, retries and timeouts
stay with the executor, exactly as with the local and process backends. So a step on Ray fails
with the same classes as a local one:

- the worker process or its node died (``WorkerCrashedError``, ``NodeDiedError``, an object
  lost with its node, out of memory) → ``WorkerCrashed``, class ``crashed``, retried by the step's
  policy. Ray's own task retries are off (``max_retries=0``): two retry loops would run a
  non-idempotent step twice behind the executor's back;
- a timeout or a cancelled run → the executor cancels ``call``; the Ray task is cancelled with
  ``force=True`` (its worker process is killed), so a timed-out call does not keep running;
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
import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from forethought._extras import import_extra
from forethought.errors import ToolError
from forethought.execution.backends.base import WorkerCrashed
from forethought.plan.model import Plan
from forethought.tools.base import Tool, ToolContext

_OPTION_KEYS = ("num_cpus", "num_gpus", "memory", "resources", "accelerator_type")
_remote_fn: Any = None
# On a Ray worker: tools located by reference, kept for the worker's later calls (loading a
# tools file runs it; once per worker process, as the process backend does).
_located: dict[tuple[str, str], Tool] = {}


def _run_on_node(
    by_ref: tuple[str, str] | None, tool: Tool | None, args: dict[str, Any], ctx: ToolContext
) -> Any:
    """The Ray task body (runs on a Ray worker): locate or unpickle the tool, run one call,
    answer with a tuple so no exception object has to cross back."""
    from forethought.execution.backends._worker import locate

    try:
        if by_ref is not None:
            tool = _located.get(by_ref)
            if tool is None:
                tool = _located[by_ref] = locate(*by_ref)
        assert tool is not None
        return ("ok", asyncio.run(tool.invoke(args, ctx)))
    except ToolError as exc:
        return ("tool_error", str(exc), exc.retryable)
    except BaseException as exc:  # SystemExit from a tool is a tool failure too
        return ("tool_error", f"{type(exc).__name__}: {exc}", True)


def _remote(ray: Any) -> Any:
    global _remote_fn
    if _remote_fn is None:
        # Retries belong to the executor (events, backoff, non-idempotent steps): none here.
        _remote_fn = ray.remote(max_retries=0, retry_exceptions=False)(_run_on_node)
    return _remote_fn


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
    """Runs each tool call as one Ray task (see the module docstring)."""

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        *,
        default_num_cpus: float = 1.0,
        init_options: Mapping[str, Any] | None = None,
    ) -> None:
        self.address = address
        self.default_num_cpus = default_num_cpus
        self._init_options = dict(init_options or {})
        self._ray: Any = None
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
            ref = _remote(ray).options(**options).remote(by_ref, None if by_ref else tool, args, shipped_ctx)
        except Exception as exc:  # e.g. the tool object cannot be pickled
            raise ToolError(
                f"tool {tool.spec.name!r} cannot be sent to Ray ({type(exc).__name__}: {exc})",
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
        if reply[0] == "ok":
            return reply[1]
        raise ToolError(reply[1], retryable=bool(reply[2]))

    async def aclose(self) -> None:
        return None  # the Ray instance belongs to the process (or the cluster), not to one run


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


def parse_backend(value: str) -> tuple[str, str | None]:
    """``local`` | ``ray`` | ``ray:ADDRESS`` → (name, address). (The ``process`` pool is chosen per
    step with ``executor: process``.)"""
    name, _, address = value.partition(":")
    if name not in ("local", "ray") or (address and name != "ray"):
        raise ValueError(f"unknown backend {value!r}: use local, ray or ray:ADDRESS")
    return name, address or None


__all__ = ["RayBackend", "parse_backend", "plan_ray_options", "step_options"]
