"""Per-step helpers of the executor's hot path: argument resolution, context, failure classes."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from forethought.errors import ToolError, ToolTimeout
from forethought.execution._parts import UnserializableOutput
from forethought.execution.backends.base import WorkerCrashed
from forethought.execution.outcomes import Failed
from forethought.oversight.redaction import register_secret
from forethought.plan.model import Plan, Step
from forethought.plan.references import (
    ReferenceResolutionError,
    env_value,
    lookup,
    resolve,
)
from forethought.tools.base import Tool, ToolContext, ToolSpec


def plan_record(plan: Plan) -> tuple[dict[str, Any], str]:
    """The plan as recorded in events (full form, defaults included) and its plan hash.

    The hash is sha256 of exactly this data in canonical JSON, so re-hashing a stored plan
    reproduces the approved hash even if a later version of forethought changes a default. Both
    are computed once per plan object (see ``Plan.record_data``).
    """
    return plan.record_data(), plan.plan_hash()


def secret_env(name: str) -> str:
    """``${env.NAME}`` at call time: the allowed variable's value, registered with redaction first.

    Registered before the value is handed to anything, so the ``step_started`` event that
    records the resolved arguments, and any tool output echoing the value (plainly, base64- or
    URL-encoded), are redacted before they are stored or printed.
    """
    value = env_value(name)
    register_secret(name, value)
    return value


def resolve_args(step: Step, outputs: Mapping[str, Any]) -> dict[str, Any]:
    """``refs.resolve`` with a fast path for the common case: whole-value top-level references."""
    bindings = step.arg_bindings
    # Every argument a whole step reference: no other argument can hold a ``${env...}``.
    if bindings is None or (len(bindings) < len(step.args) and step.uses_env):
        return dict(resolve(step.args, outputs, secret_env))
    args = dict(step.args)
    for name, source, ref in bindings:
        try:
            value = outputs[source]
        except KeyError:
            raise ReferenceResolutionError(f"${{{source}}}: step {source!r} has no recorded output") from None
        args[name] = value if ref is None else lookup(value, ref.path, step_id=ref.step_id)
    return args


TOOL_FAILURES = (Exception, SystemExit)
"""What a tool call may raise that fails its step.

``SystemExit`` included: a tool calling ``sys.exit()`` (or a sync tool's thread doing so) ends its
step, not the whole run, as it would end only its worker process under the process backend. Other
``BaseException``s — cancellation, a second Ctrl-C — still end the step's task and reach the run.
"""


def classify(exc: BaseException, limit_s: float | None) -> Failed:
    """A tool call's exception → its failure class, message and whether a retry may help."""
    if isinstance(exc, SystemExit):
        return Failed(
            "crashed",
            f"the tool called sys.exit({exc.code!r}) instead of returning or raising an exception",
            True,
        )
    if isinstance(exc, TimeoutError):
        return Failed("timeout", f"timed out after {limit_s:g}s" if limit_s else "timed out", True)
    if isinstance(exc, ToolTimeout):
        return Failed("timeout", str(exc), True)
    if isinstance(exc, WorkerCrashed):
        return Failed("crashed", str(exc), True)
    if isinstance(exc, UnserializableOutput):
        return Failed("error", str(exc), False)
    if isinstance(exc, ToolError):
        return Failed("error", str(exc) or type(exc).__name__, exc.retryable)
    return Failed("error", f"{type(exc).__name__}: {exc}", True)


def context(
    run_id: str, step_id: str, attempt: int, key: str, extra: Mapping[str, Any], workspace: Path | None
) -> ToolContext:
    """The ``ToolContext`` of one attempt."""
    return ToolContext(
        run_id=run_id, step_id=step_id, attempt=attempt, idempotency_key=key, workspace=workspace, extra=extra
    )


def spec_of(tools: Mapping[str, Tool], step: Step) -> ToolSpec | None:
    tool = tools.get(step.tool) if step.tool is not None else None
    return tool.spec if tool is not None else None


def step_data(step: Step) -> dict[str, Any]:
    return step.model_dump(mode="json", by_alias=True, exclude_defaults=True)
