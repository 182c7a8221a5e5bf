"""Everything that happens in a run is an event; this is the one union and its one serializer.

The store appends events, ``state.fold`` rebuilds run state from them, and the CLI, web UI,
tracing and replay read the same stream. Events are frozen; payloads are JSON-able so that the
serialized form is the whole truth (no pickles, nothing executable when loaded).

``seq`` is assigned by whoever owns the run's sequence (the executor for live runs); the store
refuses gaps and duplicates. ``ts`` is seconds since the epoch.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

EVENT_SCHEMA_VERSION = 1

RunStatus = Literal["running", "awaiting_approval", "paused", "succeeded", "failed", "cancelled"]
StepStatus = Literal[
    "pending", "ready", "running", "succeeded", "failed", "skipped", "cancelled", "needs_review"
]
FailureClass = Literal["error", "timeout", "check", "cancelled", "crashed", "reference", "policy"]


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    seq: int = Field(ge=0)
    ts: float = Field(default_factory=time.time)
    plan_version: int = Field(default=1, ge=0)


class RunCreated(_Event):
    kind: Literal["run_created"] = "run_created"
    goal: str
    config: dict[str, Any] = Field(default_factory=dict)
    schema_version: int = EVENT_SCHEMA_VERSION


class PlanProposed(_Event):
    kind: Literal["plan_proposed"] = "plan_proposed"
    plan: dict[str, Any]
    plan_hash: str
    source: Literal["planner", "file", "edit", "replan", "api"] = "file"


class PlanValidated(_Event):
    kind: Literal["plan_validated"] = "plan_validated"
    plan_hash: str
    problems: list[str] = Field(default_factory=list)
    # The goal coverage check (``plan.coverage``) of a planned plan: {"covered", "missing": [...]}.
    coverage: dict[str, Any] | None = None
    # The planner's own confidence in the plan (``metadata.confidence``), when it gave one.
    confidence: float | None = None


class PlanApproved(_Event):
    kind: Literal["plan_approved"] = "plan_approved"
    plan_hash: str
    approver: str
    scope: Literal["read_only", "all"] = "all"
    tool_hashes: dict[str, str] = Field(default_factory=dict)
    signature: str = ""
    steps: list[str] = Field(default_factory=list)  # non-empty: an execution-time confirmation


# The ``reason`` of a ``plan_revised`` that grows a step-wise plan by one decided step
# (``execution.stepwise``): a plan version, but not a replan (it does not count toward
# ``max_replans``).
STEPWISE_REVISION = "step-wise decision"


class PlanRevised(_Event):
    kind: Literal["plan_revised"] = "plan_revised"
    old_version: int
    new_version: int
    plan: dict[str, Any]
    plan_hash: str
    diff: dict[str, Any] = Field(default_factory=dict)
    reason: str = ""
    phase: str | None = None
    """The phase whose sub-plan this version splices in (None: a replan or another revision).
    A phase's planning is no replan: it does not count toward ``max_replans``."""


class StepsAdded(_Event):
    """Steps appended to a plan that is still streaming from the planner (before it is closed)."""

    kind: Literal["steps_added"] = "steps_added"
    steps: list[dict[str, Any]]


class ApprovalRequested(_Event):
    kind: Literal["approval_requested"] = "approval_requested"
    plan_hash: str
    reason: str
    step_ids: list[str] = Field(default_factory=list)


class ApprovalDecided(_Event):
    kind: Literal["approval_decided"] = "approval_decided"
    plan_hash: str
    decision: Literal["approved", "rejected", "edited"]
    approver: str
    note: str = ""


class StepReady(_Event):
    kind: Literal["step_ready"] = "step_ready"
    step_id: str
    # Set when a person named this step to run again (`resume --retry STEP`): a decision that
    # re-opens a step with a recorded outcome; a side-effecting step then needs a fresh approval.
    retry_by: str = ""


class StepStarted(_Event):
    kind: Literal["step_started"] = "step_started"
    step_id: str
    attempt: int = Field(ge=1)
    idempotency_key: str = ""
    args: dict[str, Any] = Field(default_factory=dict)
    backend: str = "local"


class StepProcess(_Event):
    """A step's tool started an OS process (command tools): what a resumed run needs to find and
    kill it should it outlive this runner. ``start_time`` is ``/proc/PID/stat`` field 22 (clock
    ticks since boot; 0 where unknown), which tells the process apart from a later one that
    reuses its pid."""

    kind: Literal["step_process"] = "step_process"
    step_id: str
    attempt: int = Field(ge=1)
    pid: int = Field(ge=1)
    pgid: int = Field(ge=1)
    start_time: int = Field(default=0, ge=0)


class StepSucceeded(_Event):
    kind: Literal["step_succeeded"] = "step_succeeded"
    step_id: str
    attempt: int = Field(ge=1)
    output: Any = None
    duration_s: float = 0.0


class StepFailed(_Event):
    kind: Literal["step_failed"] = "step_failed"
    step_id: str
    attempt: int = Field(ge=0)
    error: str
    failure_class: FailureClass = "error"
    final: bool = True
    retry_in_s: float | None = None
    duration_s: float = 0.0


class StepSkipped(_Event):
    kind: Literal["step_skipped"] = "step_skipped"
    step_id: str
    reason: str


class StepCancelled(_Event):
    kind: Literal["step_cancelled"] = "step_cancelled"
    step_id: str
    reason: str


class StepNeedsReview(_Event):
    kind: Literal["step_needs_review"] = "step_needs_review"
    step_id: str
    reason: str


class CheckFailed(_Event):
    kind: Literal["check_failed"] = "check_failed"
    step_id: str
    attempt: int = Field(ge=1)
    criterion: str
    detail: str
    # The output the check rejected, so a replay can run the same checks on it (absent in
    # records written before it was recorded: such an attempt replays as a tool error).
    output: Any = None


class ReplanRequested(_Event):
    kind: Literal["replan_requested"] = "replan_requested"
    step_id: str | None = None
    reason: str


class BudgetExceeded(_Event):
    kind: Literal["budget_exceeded"] = "budget_exceeded"
    budget: str
    limit: float
    used: float
    action: Literal["pause", "abort"]


class CompensationStarted(_Event):
    kind: Literal["compensation_started"] = "compensation_started"
    step_id: str
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


class CompensationSucceeded(_Event):
    kind: Literal["compensation_succeeded"] = "compensation_succeeded"
    step_id: str
    output: Any = None


class CompensationFailed(_Event):
    kind: Literal["compensation_failed"] = "compensation_failed"
    step_id: str
    error: str


class ModelCalled(_Event):
    """One model request/response, recorded whole so a replay needs no model."""

    kind: Literal["model_called"] = "model_called"
    role: str
    model: str
    step_id: str | None = None
    request: dict[str, Any] = Field(default_factory=dict)
    response: dict[str, Any] = Field(default_factory=dict)
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0


class ToolCalled(_Event):
    """A tool call made inside a step (agent steps); the step's own result is ``step_succeeded``."""

    kind: Literal["tool_called"] = "tool_called"
    step_id: str
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    output: Any = None
    error: str | None = None


class RunPaused(_Event):
    kind: Literal["run_paused"] = "run_paused"
    reason: str


class RunResumed(_Event):
    """A stopped or interrupted run continues (``resume``, ``approve`` of a waiting run)."""

    kind: Literal["run_resumed"] = "run_resumed"
    reason: str = ""


class ExecutionStarted(_Event):
    """The executor takes over a new run whose planning, validation and approval events the
    same call recorded just before: nothing had run, and nothing is resumed."""

    kind: Literal["execution_started"] = "execution_started"


class RunFinished(_Event):
    kind: Literal["run_finished"] = "run_finished"
    status: RunStatus
    reason: str = ""


Event = Annotated[
    RunCreated
    | PlanProposed
    | PlanValidated
    | PlanApproved
    | PlanRevised
    | StepsAdded
    | ApprovalRequested
    | ApprovalDecided
    | StepReady
    | StepStarted
    | StepProcess
    | StepSucceeded
    | StepFailed
    | StepSkipped
    | StepCancelled
    | StepNeedsReview
    | CheckFailed
    | ReplanRequested
    | BudgetExceeded
    | CompensationStarted
    | CompensationSucceeded
    | CompensationFailed
    | ModelCalled
    | ToolCalled
    | RunPaused
    | RunResumed
    | ExecutionStarted
    | RunFinished,
    Field(discriminator="kind"),
]

_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


def event_to_json(event: Event) -> str:
    """The one serializer: compact JSON text of an event.

    ``model_dump_json()`` with every option at its default is this call of the class's own
    pydantic-core serializer (whose defaults are the same); calling it directly skips the
    keyword plumbing around it, ~1.5 µs of ~3 per event — twice per step of every run
    (``tests/test_step_event_fast_path.py`` compares the two texts).
    """
    return type(event).__pydantic_serializer__.to_json(event).decode()


def event_to_dict(event: Event) -> dict[str, Any]:
    return event.model_dump(mode="json")


def event_from_json(text: str | bytes) -> Event:
    """Parse stored JSON back into an event; unknown kinds or fields are errors, never executed."""
    return _ADAPTER.validate_json(text)


def event_from_dict(data: dict[str, Any]) -> Event:
    return _ADAPTER.validate_python(data)
