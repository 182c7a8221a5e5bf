"""The step-wise run loop: ask the planner for one next step, run it, show it the result, repeat.

The executor runs with an open plan (as a streamed one does); this driver grows it by one step
per decision. Each decision leaves, in order: the planner's ``model_called``; the step
(``steps_added``); the new plan version (``plan_revised``, reason ``step-wise decision N: …``)
and its check (``plan_validated``); an approval where policy grants one (``plan_approved``).
So a decision is a plan version like any other: validated by the plan validator, approved by
the same gate (an approval is bound to the version that holds the step, and a later step is
never covered by an earlier approval: its content, id included, differs), recorded, resumable
(``drive_stepwise`` on a resumed executor continues after the last recorded decision) and
replayable (the replay re-enacts the recorded decisions at their positions).

The loop ends on the planner's ``stop`` (the plan is closed, its coverage checked; the executor
then says whether every step succeeded), on the step cap, on a decision below the confidence
threshold (its step is held for a person: ``approval: required``), on a side effect no
approval covers, on a step that failed (its check or its tool: the executor's failure names
it), on a decision still invalid after the model was told once what was wrong, or when the run
is stopped (budgets). Every ending the driver decides closes the plan first, then stops with a
reason that starts with ``planning.stepwise.STOP_PREFIX``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from forethought.errors import ModelError
from forethought.events import kinds as E
from forethought.events.kinds import Event
from forethought.execution.executor import Executor
from forethought.models.base import Model
from forethought.models.record import model_called_fields
from forethought.oversight.approvals import ApprovalGate, ApproveMode, needs_new_approval
from forethought.oversight.policy import needs_approval
from forethought.oversight.redaction import default_redactor
from forethought.plan.coverage import Coverage, check_coverage
from forethought.plan.files import check_data
from forethought.plan.model import Plan, Step
from forethought.planning.stepwise import (
    NO_TOOL,
    STOP_PREFIX,
    Decision,
    Done,
    decision_request,
    decision_step,
    parse_decision,
)
from forethought.tools.base import ToolSpec

__all__ = ["DecisionApprovals", "StepwiseSettings", "drive_stepwise", "stepwise_reason"]

_SETTLED = frozenset({"succeeded", "failed", "skipped", "cancelled", "needs_review"})


class DecisionApprovals(Protocol):
    """What the driver needs of the run's approval wiring (``_execution_wiring.Wiring``)."""

    plans: list[Plan]
    gate: ApprovalGate
    approve: ApproveMode

    def grant(self, plan: Plan, who: str) -> None: ...


@dataclass(frozen=True)
class StepwiseSettings:
    goal: str
    specs: Mapping[str, ToolSpec]
    model: Model
    max_steps: int
    confidence_threshold: float
    approver: str
    force: bool = False  # run a finished plan the coverage check says misses the goal
    on_cap: Literal["paused", "failed"] = "paused"
    # Resuming a run whose planner already said stop: finish it, ask nothing more.
    stopped: bool = False


def stepwise_reason(number: int, what: str) -> str:
    """The ``plan_revised`` reason of decision ``number``."""
    return f"{E.STEPWISE_REVISION} {number}" + (f": {what}" if what else "")


async def drive_stepwise(
    executor: Executor, approvals: DecisionApprovals, settings: StepwiseSettings
) -> None:
    """Decide and run steps one at a time until the run ends (see the module docstring)."""
    events = executor.events()
    try:
        await _Loop(executor, approvals, settings, events).run()
    except Exception as exc:  # a bug or a broken collaborator: stop resumably, say why
        if not executor.stopping:
            executor.stop("paused", f"{STOP_PREFIX}internal error: {type(exc).__name__}: {exc}")
        raise
    finally:
        await events.aclose()  # subscribed when asked for: stop queueing the run's events


class _Loop:
    def __init__(
        self,
        executor: Executor,
        approvals: DecisionApprovals,
        settings: StepwiseSettings,
        events: AsyncIterator[Event],
    ) -> None:
        self.ex = executor
        self.approvals = approvals
        self.s = settings
        self.events = events
        state_plan = executor.state.plan or {}
        self.steps: list[Step] = [Step.model_validate(d) for d in state_plan.get("steps", ())]

    async def run(self) -> None:
        ex = self.ex
        if self.steps:  # resumed: the last decided step may still have to run
            pending = self.steps[-1]
            if ex.state.step(pending.id).status not in _SETTLED:
                ex.reconsider()
                if not self._allowed(pending):
                    self._end("awaiting_approval", self._held_reason(pending, len(self.steps)))
                    return
        while True:
            if self.steps and not await self._settled(self.steps[-1]):
                return
            if ex.stopping:
                return
            last = self.steps[-1] if self.steps else None
            if last is not None and ex.state.step(last.id).status != "succeeded":
                # The executor already failed the run and names the step (and its check): close
                # the plan and let it conclude (``reconsider`` wakes it; nothing is released).
                self._close()
                ex.reconsider()
                return
            if self.s.stopped:
                self._finish()
                return
            number = len(self.steps) + 1
            if number > self.s.max_steps:
                self._end(
                    self.s.on_cap,
                    f"{STOP_PREFIX}the step cap ({self.s.max_steps} steps) was reached before the "
                    "planner said stop; raise it (--max-steps or budgets.max_steps) and "
                    "`forethought resume` the run",
                )
                return
            decision = await self._decide(number)
            if decision is None:
                return
            if decision.stop:
                self._finish()
                return
            if not self._add(decision, number):
                return

    # ------------------------------------------------------------------ one decision

    async def _decide(self, number: int) -> Decision | None:
        """Ask for decision ``number``; a refused answer is explained once and asked again."""
        retry: tuple[str, list[str]] | None = None
        for _attempt in range(2):
            request = decision_request(
                self.s.goal, self.s.specs, self._done(), number, self.s.max_steps, retry=retry
            )
            try:
                response = await self.s.model.complete(request)
            except ModelError as exc:
                if not self.ex.stopping:
                    self._end(
                        "paused",
                        f"{STOP_PREFIX}decision {number}: the planner failed ({exc}); "
                        "`forethought resume` the run to ask again",
                    )
                return None
            if self.ex.stopping:  # stopped while the model was answering (budgets): nothing more
                return None
            self.ex.record(E.ModelCalled, **model_called_fields("planner", request, response))
            decision, problems = self._check(response.text, number)
            if decision is not None and not problems:
                return decision
            retry = (response.text, problems)
        assert retry is not None
        self._end(
            "failed",
            f"{STOP_PREFIX}decision {number} is invalid after one retry: {retry[1][0]}",
        )
        return None

    def _check(self, text: str, number: int) -> tuple[Decision | None, list[str]]:
        """The decision and, unless it stops, every problem of the plan version it makes."""
        decision, problem = parse_decision(text)
        if decision is None:
            return None, [problem]
        if decision.stop:
            return decision, []
        if decision.tool == NO_TOOL:
            return decision, [f'decision {number} has "tool": "{NO_TOOL}" but does not stop']
        _plan, problems = check_data(self._version_data(decision, number), dict(self.s.specs))
        return decision, [str(p) for p in problems]

    def _version_data(self, decision: Decision, number: int) -> dict[str, Any]:
        """Plan version ``number``: the steps so far plus the decided one."""
        step = decision_step(decision, f"s{number}", self.steps[-1].id if self.steps else None)
        if decision.confidence < self.s.confidence_threshold:
            step["approval"] = "required"  # a person decides whether this step runs
        return {
            "goal": self.s.goal,
            "steps": [
                *(s.model_dump(mode="json", by_alias=True, exclude_defaults=True) for s in self.steps),
                step,
            ],
            "version": number,
            "parent_version": number - 1 if number > 1 else None,
            "metadata": {"planning": "stepwise", "confidence": decision.confidence},
        }

    def _add(self, decision: Decision, number: int) -> bool:
        """Grow the plan by the decided step, record the version, approve it if policy allows;
        False when the run stops here (the step waits for a person)."""
        plan = Plan.model_validate(self._version_data(decision, number))
        step = plan.steps[-1]
        ex = self.ex
        ex.extend([step])
        self.steps.append(step)
        ex.record(
            E.PlanRevised,
            old_version=number - 1,
            new_version=number,
            plan=plan.record_data(),
            plan_hash=plan.plan_hash(),
            diff={"added": [step.id]},
            reason=stepwise_reason(number, decision.next_step),
        )
        ex.record(E.PlanValidated, plan_hash=plan.plan_hash(), problems=[], confidence=decision.confidence)
        self.approvals.plans.append(plan)
        self.approvals.gate.add(plan=plan)
        low = decision.confidence < self.s.confidence_threshold
        if (
            not low
            and self.approvals.approve == "all"
            and needs_approval(step, self.s.specs.get(step.tool or ""))
            and needs_new_approval(plan, self.approvals.gate)
        ):
            self.approvals.grant(plan, self.s.approver + " (--yes-all)")
            ex.reconsider()
        if not self._allowed(step):
            self._end(
                "awaiting_approval", self._held_reason(step, number, decision.confidence if low else None)
            )
            return False
        return True

    def _allowed(self, step: Step) -> bool:
        return self.approvals.gate.allows(step, self.s.specs.get(step.tool or ""))

    def _held_reason(self, step: Step, number: int, confidence: float | None = None) -> str:
        if confidence is not None or step.approval == "required":
            why = (
                f"planner confidence {confidence} is below {self.s.confidence_threshold}"
                if confidence is not None
                else "the planner's confidence was below the threshold"
            )
            return (
                f"{STOP_PREFIX}decision {number} ({step.id}: {step.tool}) needs a person: {why}; "
                "`forethought approve RUN` runs it"
            )
        denied = getattr(self.approvals.gate, "reason_denied", {}).get(step.id)
        why = f" ({denied})" if denied and denied != "no approval covers this side-effecting step" else ""
        return (
            f"{STOP_PREFIX}decision {number} ({step.id}: {step.tool}) has side effects and no "
            f"approval covers it{why}; `forethought approve RUN` runs it"
        )

    # ------------------------------------------------------------------ waiting, results, endings

    async def _settled(self, step: Step) -> bool:
        """Wait until ``step`` has an outcome; False if the run ended first."""
        ex = self.ex
        while ex.state.step(step.id).status not in _SETTLED:
            if ex.stopping:
                return False
            try:
                await anext(self.events)
            except StopAsyncIteration:
                return False
        return True

    def _done(self) -> list[Done]:
        """The steps so far with their results, redacted as run outputs are."""
        redact = default_redactor().redact
        out = []
        for s in self.steps:
            st = self.ex.state.step(s.id)
            out.append(
                Done(
                    s.id,
                    s.tool or "",
                    redact(dict(s.args)),
                    st.status,
                    redact(st.output) if st.status == "succeeded" else None,
                    redact(st.error) if st.error else None,
                )
            )
        return out

    def _close(self) -> Plan | None:
        if not self.steps:
            return None
        return self.ex.close_plan(release=False, version=len(self.steps))

    def _coverage(self, plan: Plan) -> Coverage:
        """The goal coverage check, read for a plan whose data flowed through the planner.

        Missing literals, outputs and actions count as for any plan. Two findings do not apply
        as written: every result went back to the planner, which chose the next step from it,
        so no step is dead; and an argument is not invented when an earlier step's result
        holds it (that is where a step-wise planner takes its values from).
        """
        coverage = check_coverage(plan, self.s.goal, self.s.specs)
        seen: dict[str, str] = {}  # step id → the results before it, as lower-case text
        text = ""
        for step in plan.steps:
            seen[step.id] = text
            output = self.ex.state.step(step.id).output
            text += "\n" + (output if isinstance(output, str) else json.dumps(output, default=str)).lower()
        kept = []
        for finding in coverage.missing:
            if finding.kind == "dead_step":
                continue
            if finding.kind == "invented_argument" and finding.step_id in seen:
                value = _at(plan.step(finding.step_id).args, finding.field[1:])
                shown = value if isinstance(value, str) else json.dumps(value)
                if shown.lower() in seen[finding.step_id]:
                    continue
            kept.append(finding)
        return dataclasses.replace(coverage, covered=not kept, missing=tuple(kept))

    def _end(self, status: Literal["paused", "failed", "awaiting_approval"], reason: str) -> None:
        """Close the plan so far (what `show` and `approve` see), then stop."""
        self._close()
        self.ex.stop(status, reason)

    def _finish(self) -> None:
        """The planner said stop: close the plan, check that it covers the goal, let the
        executor conclude (succeeded only if every step did)."""
        if not self.steps:
            self.ex.stop("failed", f"{STOP_PREFIX}the planner stopped before taking any step")
            return
        plan = self._close()
        assert plan is not None
        coverage = self._coverage(plan)
        self.approvals.plans.append(plan)
        self.approvals.gate.add(plan=plan)
        self.ex.record(E.PlanValidated, plan_hash=plan.plan_hash(), problems=[], coverage=coverage.to_dict())
        if not coverage.covered and not self.s.force:
            self.ex.stop(
                "awaiting_approval",
                "plan does not cover the goal: " + "; ".join(str(f) for f in coverage.missing),
            )
            return
        self.ex.reconsider()


def _at(args: Mapping[str, Any], path: tuple[str | int, ...]) -> Any:
    value: Any = args
    for part in path:
        value = value[part]
    return value
