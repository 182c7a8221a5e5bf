"""The evaluation suite file, as frozen models: golden tasks, their expectations, tolerance bands.

A suite is a YAML file (see docs/eval.md)::

    name: examples
    tolerances: {min_success_rate: 1.0, max_mean_steps: 12}
    tasks:
      - id: deploy
        plan: ../deploy/plan.yaml          # or goal: "..." (planned by --model / model:)
        workspace: ../deploy               # copied fresh for the task; tools inside it load from the copy
        tools: [../deploy/tools.yaml]
        faults: [{tool: run_smoke_tests, kind: fail, on_call: 2}]
        expect:
          status: failed
          rolled_back: true
          tools: {match: unordered, calls: [run_tests, ...]}

Paths are relative to the suite file; the loader (``evaluation.loader``) resolves them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from forethought.tools.faults import FaultSpec

TASK_ID_PATTERN = r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$"
RunStatusName = Literal["succeeded", "failed", "cancelled", "paused", "awaiting_approval"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class ValueCheck(_Frozen):
    """What a value must be; every criterion given must hold (at least one is required).

    ``equals``: equal as data. ``contains``: a substring of a string, an element of a list, or
    key/value pairs included in an object. ``schema``: a JSON Schema. ``expr``: a safe expression
    (``plan.expressions``) over ``value`` that must be true."""

    equals: Any = None
    contains: Any = None
    json_schema: dict[str, Any] | None = Field(default=None, alias="schema")
    expr: str | None = None

    @model_validator(mode="after")
    def _something(self) -> ValueCheck:
        if not ({"equals", "contains", "json_schema", "expr"} & self.model_fields_set):
            raise ValueError("give at least one of equals, contains, schema, expr")
        return self

    @property
    def has_equals(self) -> bool:
        return "equals" in self.model_fields_set

    @property
    def has_contains(self) -> bool:
        return "contains" in self.model_fields_set


class OutputCheck(ValueCheck):
    """A check of one step's recorded output (``value`` and ``output`` in ``expr``)."""

    step: str = Field(min_length=1)


class FileCheck(ValueCheck):
    """A check of a file in the task's workspace copy after the run: its text, or with
    ``json: true`` its parsed JSON (``value`` in ``expr``; ``text`` is always the text)."""

    path: str = Field(min_length=1)
    json_: bool = Field(default=False, alias="json")


class ToolExpectation(_Frozen):
    """The tools the run called, in call order (each step attempt, agent tool call, compensation).

    ``exact``: the same sequence. ``unordered``: the same calls, any order (a multiset). ``subset``:
    at least these calls (each as often as listed), others allowed."""

    match: Literal["exact", "unordered", "subset"] = "exact"
    calls: tuple[str, ...]


class Expect(_Frozen):
    status: RunStatusName | None = "succeeded"
    tools: ToolExpectation | None = None
    outputs: tuple[OutputCheck, ...] = ()
    files: tuple[FileCheck, ...] = ()
    max_steps: int | None = Field(default=None, ge=0, description="Step attempts started.")
    max_cost_usd: float | None = Field(default=None, ge=0)
    max_wall_s: float | None = Field(default=None, gt=0)
    # What the run's events must (true) or must not (false) show; None: not checked.
    escalated: bool | None = None
    replanned: bool | None = None
    rolled_back: bool | None = None
    looped: bool | None = None


class Task(_Frozen):
    id: str = Field(pattern=TASK_ID_PATTERN)
    goal: str | None = Field(default=None, min_length=1)
    plan: str | None = Field(default=None, min_length=1, description="A plan file (no model needed).")
    model: str | None = Field(default=None, description="Plans the goal unless --model is given.")
    tools: tuple[str, ...] = ()
    builtins: tuple[str, ...] = ()
    workspace: str | None = None
    approve: Literal["all", "read_only", "none"] = "all"
    max_replans: int | None = Field(default=None, ge=0)
    faults: tuple[FaultSpec, ...] = ()
    expect: Expect = Expect()

    @model_validator(mode="after")
    def _goal_or_plan(self) -> Task:
        if (self.goal is None) == (self.plan is None):
            raise ValueError("give exactly one of goal (planned by a model) or plan (a plan file)")
        return self


class Tolerances(_Frozen):
    """Bands the suite's metrics must stay in; a metric outside its band fails the evaluation.

    Absolute bands apply to every evaluation; the ``max_*_drop`` / ``max_*_increase`` bands compare
    with a baseline report (``--baseline previous.json``) and apply only when one is given."""

    min_success_rate: float | None = Field(default=None, ge=0, le=1)
    max_mean_steps: float | None = Field(default=None, ge=0)
    max_total_cost_usd: float | None = Field(default=None, ge=0)
    max_mean_wall_s: float | None = Field(default=None, gt=0)
    max_escalation_rate: float | None = Field(default=None, ge=0, le=1)
    max_success_rate_drop: float | None = Field(default=None, ge=0, le=1)
    max_mean_steps_increase: float | None = Field(default=None, ge=0)
    max_mean_wall_increase_s: float | None = Field(default=None, ge=0)
    max_total_cost_increase_usd: float | None = Field(default=None, ge=0)


class Suite(_Frozen):
    name: str = "suite"
    model: str | None = Field(default=None, description="Default model for goal tasks.")
    tolerances: Tolerances = Tolerances()
    tasks: tuple[Task, ...]

    @field_validator("tasks")
    @classmethod
    def _some(cls, tasks: tuple[Task, ...]) -> tuple[Task, ...]:
        if not tasks:
            raise ValueError("a suite needs at least one task")
        return tasks

    @model_validator(mode="after")
    def _unique_ids(self) -> Suite:
        seen: set[str] = set()
        for task in self.tasks:
            if task.id in seen:
                raise ValueError(f"task id {task.id!r} is used twice; task ids must be unique")
            seen.add(task.id)
        return self
