"""``Agent``: the public API that ties planner, validator, approval, executor and store together.

    agent = Agent(tools=[...], model="local", store="runs.db")
    result = await agent.run("count the words in README.md", approve="read_only")

One run's record, in order: ``run_created``; the planner's ``model_called`` events;
``plan_proposed`` and ``plan_validated``; the review (``approval_requested`` /
``approval_decided`` / ``plan_approved``, signed and bound to the plan hash); then everything the
executor does. The pre-execution part is written by this module, the rest by the executor — both
through the same store, so `show`, `resume` and `replay` see one continuous log.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import uuid
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from forethought._execution_wiring import Wiring, WiringSettings, low_confidence
from forethought.errors import ModelError, UserError
from forethought.events import kinds as E
from forethought.events.kinds import Event
from forethought.events.state import RunState, fold
from forethought.execution._parts import Sink, ignored_by, inline_of
from forethought.execution.executor import Executor, ExecutorOptions
from forethought.models.base import Model
from forethought.models.pricing import CostEstimate, estimate_cost
from forethought.models.record import model_called_fields
from forethought.oversight.approvals import (
    Approval,
    ApprovalGate,
    ApproveMode,
    default_approver,
    needs_new_approval,
    recorded_plans_and_approvals,
)
from forethought.oversight.redaction import default_redactor, redact_goal, redact_text
from forethought.oversight.supervisor import Budgets
from forethought.plan.model import Plan
from forethought.plan.validation import Problem, Validated, validate_plan
from forethought.runs.observers import observers
from forethought.tools._threads import MAX_BLOCKING_CALLS, BlockingPool, blocking_pool
from forethought.tools.base import Tool, ToolRegistry, ToolSpec

if TYPE_CHECKING:
    from forethought.plan.coverage import Coverage
    from forethought.planning.planner import ModelCall
    from forethought.planning.streaming import PlanDone


@dataclass(frozen=True)
class PlanReview:
    """What a human reviewer is shown: the plan and which steps have side effects."""

    plan: Plan
    specs: Mapping[str, ToolSpec]
    side_effect_steps: tuple[str, ...]
    reason: str = ""
    coverage: Coverage | None = None  # the goal coverage check of a planned plan
    cost: CostEstimate | None = None  # tokens × genai-prices price, an estimate (models/pricing.py)


@dataclass(frozen=True)
class Decision:
    action: Literal["approve", "reject", "edit"]
    plan: Plan | None = None  # the edited plan for "edit"
    note: str = ""


Reviewer = Callable[[PlanReview], Awaitable[Decision]]


@dataclass
class RunResult:
    run_id: str
    state: RunState
    summary: dict[str, Any]
    plan: Plan | None
    problems: list[Problem] = field(default_factory=list)
    # The goal coverage check of the latest checked plan ({"covered", "missing"}), if any.
    coverage: dict[str, Any] | None = None

    @property
    def status(self) -> str:
        return self.state.status


class _Preamble:
    """Events before execution, numbered from 0, handed to the executor as prior events."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.events: list[Event] = []
        self.version = 1

    def add(self, cls: type[E._Event], texts: Mapping[str, str] | None = None, **fields: Any) -> Event:
        """``texts``: JSON text of fields the caller has at hand (``Redactor.redact_event``)."""
        # Every concrete event class is a member of the ``Event`` union; ``_Event`` is its base.
        event = cast(
            Event, cls(run_id=self.run_id, seq=len(self.events), plan_version=self.version, **fields)
        )
        # Stored without the recorder: redact here (a valid plan is unchanged by this).
        event = default_redactor().redact_event(event, texts)
        self.events.append(event)
        return event

    def add_plan(self, plan: Plan, source: str) -> Event:
        """``plan_proposed``: the plan is screened for secrets through its canonical text,
        which hashing it made already (the record is that text's data)."""
        return self.add(
            E.PlanProposed,
            texts={"plan": plan.canonical_json()},
            plan=plan.record_data(),
            plan_hash=plan.plan_hash(),
            source=source,
        )


EventSink = Callable[[Event], Awaitable[None]]
PlanFeed = Callable[[Wiring], Awaitable[None]]


@dataclass(frozen=True)
class _Execution:
    """How one execution starts: the only thing in which ``run``, a streamed run and ``resume``
    differ. ``Agent._execute`` is the one path that builds the wiring, picks recorded or
    in-memory execution, runs, closes and builds the ``RunResult`` for all of them."""

    plans: list[Plan]  # the plans proposed so far (the gate's and the replanner's history)
    approvals: list[Approval]
    approve: ApproveMode
    plan: Plan | None = None  # None: the plan arrives while running (``feed``) or from the store
    # The run's log before this execution: replayed to ``on_event`` first. A new run's preamble
    # is also written to the store and folded by the executor; ``resume`` reads its own.
    prior: Sequence[Event] = ()
    resume: str | None = None  # the stored run to continue
    goal: str | None = None
    plan_open: bool = False  # steps may still be added (a streamed plan)
    config: Mapping[str, Any] | None = None
    # Streaming: extends the open plan once the executor runs, then closes it.
    feed: PlanFeed | None = None
    remember: bool = True  # a succeeded plan goes to the plan memory
    owner: str | None = None  # resume under this lease owner (a worker's claim)
    lease_ttl_s: float | None = None


class Agent:
    """Plan, review, execute and record goals with a fixed tool set and models."""

    def __init__(
        self,
        tools: Iterable[Tool] | ToolRegistry = (),
        *,
        model: str | Model | None = None,
        planner_model: str | Model | None = None,
        executor_model: str | Model | None = None,
        critic_model: str | Model | None = None,
        executors: Mapping[str, str | Model] | None = None,
        store: Any = None,
        budgets: Budgets | None = None,
        max_concurrency: int | None = 8,
        memory: Any = None,
        approver: str | None = None,
        confidence_threshold: float = 0.0,
        reconfirm_destructive: bool = False,
        record: bool = True,
        backend: str = "local",
        workspace: str | Path | None = None,
    ) -> None:
        self.tools = tools if isinstance(tools, ToolRegistry) else ToolRegistry(tools)
        self._model_names = {
            "model": model,
            "planner": planner_model,
            "executor": executor_model,
            "critic": critic_model,
        }
        self.executor_pools: dict[str, str | Model] = dict(executors or {})
        self._models: dict[str, Model] = {}
        self.budgets = budgets or Budgets()
        self.max_concurrency = max_concurrency
        self.memory = memory
        self.approver = approver or default_approver()
        self.confidence_threshold = confidence_threshold
        self.reconfirm_destructive = reconfirm_destructive
        self._store_arg = store
        self._store: Any = None
        self._record = record
        # Where steps without an ``executor`` run: local (this process) or ray[:ADDRESS].
        self.backend = backend
        # The directory the run works in: every tool call gets it as ``ctx.workspace``.
        self.workspace = Path(workspace).resolve() if workspace is not None else None
        if record:
            # Imported with the agent, not when its first run is about to start its steps.
            import forethought.runs.recording  # noqa: F401
        self.last_run_id: str | None = None

    # ----------------------------------------------------------------- collaborators

    def model(self, role: str) -> Model:
        """The model for ``role`` (planner / executor / critic), else ``model``, else default."""
        if role not in self._models:
            chosen = self._model_names.get(role) or self._model_names.get("model")
            self._models[role] = self.resolve_model(chosen)
        return self._models[role]

    def _cost_estimate(self, plan: Plan, events: Sequence[Event]) -> CostEstimate:
        """The review screen's estimate: planning recorded so far plus the agent steps at the
        executor model's price (unknown when the model cannot be resolved or priced)."""
        agent_steps = sum(1 for s in plan.iter_all_steps() if s.agent is not None)
        name = ""
        if agent_steps:
            try:
                name = self.model("executor").name
            except (UserError, ModelError):  # no usable executor model: the estimate says "unknown"
                name = ""
        planning = [(e.input_tokens, e.output_tokens, e.cost_usd) for e in events if e.kind == "model_called"]
        return estimate_cost(name, agent_steps, planning)

    @staticmethod
    def resolve_model(model: str | Model | None) -> Model:
        if model is None or isinstance(model, str):
            from forethought.models.resolve import resolve_model

            return resolve_model(model)
        return model

    @property
    def store(self) -> Any:
        """The run store: the one given, a SQLite file at the given path, or the default one
        (every run is recorded unless the agent was made with ``record=False``)."""
        if self._store is None and self._record:
            arg = self._store_arg
            if arg is None or isinstance(arg, (str, Path)):
                from forethought.runs.store.opening import open_store

                arg = open_store(arg)
            self._store = arg
        return self._store

    @property
    def specs(self) -> dict[str, ToolSpec]:
        return self.tools.specs()

    # ----------------------------------------------------------------- planning

    async def plan(
        self, goal: str, *, preamble: _Preamble | None = None
    ) -> tuple[Plan | None, list[Problem]]:
        from forethought.planning.planner import make_plan

        model = self.model("planner")
        result = await make_plan(redact_text(goal), self.specs, model, memory=self.memory)
        if preamble is not None:
            for call in result.calls:
                preamble.add(E.ModelCalled, **model_called_fields(call.role, call.request, call.response))
        return result.plan, list(result.problems)

    # ----------------------------------------------------------------- running

    async def run(
        self,
        goal_or_plan: str | Plan | Validated,
        *,
        approve: ApproveMode = "none",
        reviewer: Reviewer | None = None,
        on_event: Callable[[Event], Awaitable[None]] | None = None,
        run_config: Mapping[str, Any] | None = None,
        stream: bool = False,
        force: bool = False,
        queue: bool = False,
        planning: str = "dag",
        max_steps: int | None = None,
    ) -> RunResult:
        """Plan (unless given a plan), review, execute. ``approve`` is the non-interactive policy:
        ``read_only`` runs read-only steps and pauses for the rest; ``all`` approves everything
        (recorded as an approval by this process's user); ``none`` asks ``reviewer`` or pauses.

        A planned plan that does not cover the goal (``plan.coverage``) is first repaired by the
        planner (up to ``budgets.max_replans`` rounds, each a new plan version); if it still
        misses the goal, nothing runs without a person (``reviewer``, or ``approve`` later)
        unless ``force`` (recorded in ``run_created.config.force``). A goal asking for an effect
        no tool can produce fails before planning, naming the missing capability.

        A secret in the goal is redacted first: the model, the plan and the run record never
        see it (reference secrets in plan arguments as ``${env.NAME}``).

        ``queue``: record the reviewed run (plan, approvals) and queue it for workers
        (``forethought worker``) instead of executing it here; the result's status is
        ``running`` (queued). Needs a store that has a run queue (PostgreSQL).

        A given plan is validated against this agent's tools, unless it comes as ``Validated``
        (``plan.files.load_validated_plan``) for this very plan object and equal tool specs.

        ``planning``: ``dag`` (a whole plan first, the default), ``stepwise`` (one next step at
        a time with the results so far in view, at most ``max_steps`` or ``budgets.max_steps``
        steps: ``execution.stepwise``) or ``auto`` (``planning.stepwise.choose_planning``)."""
        receipt = goal_or_plan if isinstance(goal_or_plan, Validated) else None
        # A goal that redaction changes makes a new plan object: the receipt no longer holds.
        given: str | Plan = goal_or_plan.plan if isinstance(goal_or_plan, Validated) else goal_or_plan
        goal_or_plan = redact_goal(given)
        if force:
            run_config = {**(run_config or {}), "force": True}
        if isinstance(goal_or_plan, str):
            # The goal-reading rules (``plan.coverage``), before planning: a streamed run checks
            # coverage while steps run, and nothing may be imported then. A given plan never
            # needs them (``exec``: a tenth of its start-up).
            import forethought.plan.coverage  # noqa: F401

            incapable = self._incapable(goal_or_plan, approve, run_config)
            if incapable is not None:
                return incapable
            if planning != "dag":
                from forethought._stepwise_run import stepwise_execution

                start, run_config = stepwise_execution(
                    self, goal_or_plan, approve, planning, max_steps, run_config, force, queue
                )
                if start is not None:
                    return await self._execute(start, on_event)
        if stream and isinstance(goal_or_plan, str) and reviewer is None and approve != "none":
            return await self._execute(self._streamed(goal_or_plan, approve, run_config, force), on_event)
        run_id = uuid.uuid4().hex[:12]
        self.last_run_id = run_id
        pre = _Preamble(run_id)
        goal = goal_or_plan if isinstance(goal_or_plan, str) else goal_or_plan.goal
        pre.add(
            E.RunCreated,
            goal=goal,
            config={"approve": approve, "budgets": self.budgets.model_dump(), **(run_config or {})},
        )

        if isinstance(goal_or_plan, Plan):
            plan: Plan | None = goal_or_plan
            specs = self.specs
            checked = receipt is not None and receipt.holds_for(goal_or_plan, specs)
            problems = [] if checked else validate_plan(goal_or_plan, specs)
            source: Literal["planner", "api"] = "api"
        else:
            plan, problems = await self.plan(goal_or_plan, preamble=pre)
            source = "planner"
        if plan is not None:
            pre.add_plan(plan, source)
        # Coverage is checked for planned plans: a given plan (a file, the API) is the caller's.
        coverage = (
            check_coverage(plan, goal, self.specs) if plan and not problems and source == "planner" else None
        )
        self._validated(pre, plan, problems, coverage)
        if plan is None or problems:
            first = str(problems[0]) if problems else "the planner returned no plan"
            pre.add(E.RunFinished, status="failed", reason=f"invalid plan: {first}")
            return self._finish_without_executing(pre, plan, problems)
        plans = [plan]
        if coverage is not None and not coverage.covered and not force:  # --force: run it as written
            plan, coverage = await self._repair_coverage(pre, goal, plan, coverage, plans)
        approvals: list[Approval] = []
        uncovered = coverage is not None and not coverage.covered and not force
        if uncovered and reviewer is None:
            assert coverage is not None
            # Nobody can look, and the plan misses the goal: nothing runs (not even read-only
            # steps, whose answer would read as the goal's). `approve` or `--force` runs it.
            reason = uncovered_reason(coverage)
            pre.add(
                E.ApprovalRequested,
                plan_hash=plan.plan_hash(),
                reason=reason,
                step_ids=list(needs_new_approval(plan, ApprovalGate(plans, approvals, self.specs))),
            )
            pre.add(E.RunFinished, status="awaiting_approval", reason=reason)
            return self._finish_without_executing(pre, plan, [])
        reviewed = await self._review(pre, plan, plans, approvals, approve, reviewer, coverage)
        if reviewed is None:
            return self._finish_without_executing(pre, plans[-1], [])
        plan = reviewed
        if queue:
            return self._enqueue(pre, plan)
        if approve == "none" and reviewer is None:
            # Nobody approved anything, not even read-only work: stop before executing.
            pre.add(
                E.RunFinished,
                status="awaiting_approval",
                reason="the plan needs approval: `forethought approve RUN` to run it",
            )
            return self._finish_without_executing(pre, plan, [])
        return await self._execute(
            _Execution(plans, approvals, approve, plan=plan, prior=pre.events), on_event
        )

    async def _review(
        self,
        pre: _Preamble,
        plan: Plan,
        plans: list[Plan],
        approvals: list[Approval],
        approve: ApproveMode,
        reviewer: Reviewer | None,
        coverage: Coverage | None = None,
    ) -> Plan | None:
        """Approve, edit (loop) or reject before execution; returns the plan to run or None."""
        while True:
            gate = ApprovalGate(plans, approvals, self.specs)
            pending = tuple(needs_new_approval(plan, gate))
            low_confidence = self.low_confidence(plan)
            # A plan that misses the goal goes to the person (the caller stops a run without one).
            missing = coverage.missing if coverage is not None and reviewer is not None else ()
            if approve == "all" and not low_confidence and not missing:
                if pending:
                    self._grant(pre, plan, approvals, self.approver + " (--yes-all)")
                return plan
            if approve == "read_only" and not pending and not missing:
                return plan  # --yes: a plan with no side effects needs no one
            confidence = plan.metadata.get("confidence")
            reason = (
                uncovered_reason(coverage)
                if missing and coverage is not None
                else f"planner confidence {confidence} is below {self.confidence_threshold}"
                if low_confidence
                else f"{len(pending)} step(s) have side effects"
                if pending
                else "review the plan before it runs"
            )
            if reviewer is None:
                if approve == "none":
                    pre.add(
                        E.ApprovalRequested, plan_hash=plan.plan_hash(), reason=reason, step_ids=list(pending)
                    )
                return plan  # with --yes read-only steps run; the executor pauses for the rest
            pre.add(E.ApprovalRequested, plan_hash=plan.plan_hash(), reason=reason, step_ids=list(pending))
            cost = self._cost_estimate(plan, pre.events)
            decision = await reviewer(PlanReview(plan, self.specs, pending, reason, coverage, cost))
            if decision.action == "approve":
                pre.add(
                    E.ApprovalDecided,
                    plan_hash=plan.plan_hash(),
                    decision="approved",
                    approver=self.approver,
                    note=decision.note,
                )
                self._grant(pre, plan, approvals, self.approver)
                return plan
            if decision.action == "reject":
                pre.add(
                    E.ApprovalDecided,
                    plan_hash=plan.plan_hash(),
                    decision="rejected",
                    approver=self.approver,
                    note=decision.note,
                )
                pre.add(
                    E.RunFinished,
                    status="cancelled",
                    reason=f"plan rejected by {self.approver}"
                    + (f": {decision.note}" if decision.note else ""),
                )
                return None
            edited = decision.plan
            if edited is None:
                raise UserError("an `edit` decision must carry the edited plan")
            problems = validate_plan(edited, self.specs)
            if problems:  # the reviewer loops until valid; guard anyway
                raise UserError(f"edited plan is invalid: {problems[0]}")
            edited = edited.model_copy(update={"version": plan.version + 1, "parent_version": plan.version})
            pre.add(
                E.ApprovalDecided,
                plan_hash=plan.plan_hash(),
                decision="edited",
                approver=self.approver,
                note=decision.note,
            )
            pre.version = edited.version
            pre.add_plan(edited, "edit")
            plans.append(edited)
            plan = edited
            coverage = None  # the person wrote this version

    def _incapable(
        self, goal: str, approve: ApproveMode, run_config: Mapping[str, Any] | None
    ) -> RunResult | None:
        """A recorded failed run when the goal asks for an effect no tool can produce."""
        from forethought.planning.capability import missing_capabilities

        missing = missing_capabilities(goal, self.specs)
        if not missing:
            return None
        run_id = uuid.uuid4().hex[:12]
        self.last_run_id = run_id
        pre = _Preamble(run_id)
        pre.add(
            E.RunCreated,
            goal=goal,
            config={"approve": approve, "budgets": self.budgets.model_dump(), **(run_config or {})},
        )
        pre.add(E.RunFinished, status="failed", reason="; ".join(str(m) for m in missing))
        return self._finish_without_executing(pre, None, [])

    def _validated(
        self, pre: _Preamble, plan: Plan | None, problems: Sequence[Problem], coverage: Coverage | None
    ) -> None:
        confidence = plan.metadata.get("confidence") if plan is not None else None
        pre.add(
            E.PlanValidated,
            plan_hash=plan.plan_hash() if plan else "",
            problems=[str(p) for p in problems],
            coverage=coverage.to_dict() if coverage is not None else None,
            confidence=confidence if isinstance(confidence, (int, float)) else None,
        )

    async def _repair_coverage(
        self, pre: _Preamble, goal: str, plan: Plan, coverage: Coverage, plans: list[Plan]
    ) -> tuple[Plan, Coverage]:
        """Feed the coverage findings back to the planner (``_coverage_repairs``); each repaired
        plan is recorded as a new version (``plan_proposed`` source ``replan``)."""

        def record_call(call: ModelCall) -> None:
            pre.add(E.ModelCalled, **model_called_fields(call.role, call.request, call.response))

        async for repaired, repaired_coverage in self._coverage_repairs(goal, plan, coverage, record_call):
            plan, coverage = repaired, repaired_coverage
            pre.version = plan.version
            pre.add_plan(plan, "replan")
            self._validated(pre, plan, [], coverage)
            plans.append(plan)
        return plan, coverage

    async def _coverage_repairs(
        self, goal: str, plan: Plan, coverage: Coverage, record_call: Callable[[ModelCall], None]
    ) -> AsyncIterator[tuple[Plan, Coverage]]:
        """The repair rounds of a plan that misses its goal, within ``max_replans``: the findings
        go back to the planner, and each valid answer is yielded with its coverage, until one
        covers the goal. A model failure or an invalid answer ends the rounds (the repair is a
        courtesy: the last valid plan then waits for a person)."""
        from forethought.planning.planner import repair_coverage

        model = self.model("planner")
        for _round in range(self.budgets.max_replans):
            try:
                result = await repair_coverage(
                    goal, plan, [str(f) for f in coverage.missing], self.specs, model
                )
            except ModelError:
                return
            for call in result.calls:
                record_call(call)
            if result.plan is None or result.problems:
                return
            plan = result.plan
            coverage = check_coverage(plan, goal, self.specs)
            yield plan, coverage
            if coverage.covered:
                return

    def low_confidence(self, plan: Plan) -> bool:
        return low_confidence(plan, self.confidence_threshold)

    def _grant(self, pre: _Preamble, plan: Plan, approvals: list[Approval], who: str) -> None:
        approval = Approval.grant(plan, self.specs, approver=who, run_id=pre.run_id)
        approvals.append(approval)
        pre.add(E.PlanApproved, **approval.event_fields())

    def _enqueue(self, pre: _Preamble, plan: Plan) -> RunResult:
        from forethought.runs.store.queue import RunQueue

        store = self.store
        if not isinstance(store, RunQueue):
            raise UserError(
                "queueing a run for workers needs a shared run database: pass --db postgresql://…"
            )
        result = self._finish_without_executing(pre, plan, [])
        store.enqueue(pre.run_id)
        return result

    def _finish_without_executing(
        self, pre: _Preamble, plan: Plan | None, problems: list[Problem]
    ) -> RunResult:
        if self.store is not None:
            self.store.append_many(pre.events)
        state = fold(pre.events)
        from forethought.execution._parts import run_summary

        return RunResult(pre.run_id, state, run_summary(state, {}), plan, problems, coverage_of(pre.events))

    def _settings(self) -> WiringSettings:
        return WiringSettings(
            tools=self.tools,
            specs=self.specs,
            budgets=self.budgets,
            max_concurrency=self.max_concurrency,
            approver=self.approver,
            confidence_threshold=self.confidence_threshold,
            reconfirm_destructive=self.reconfirm_destructive,
            model=self.model,
            resolve_model=self.resolve_model,
            executor_pools=self.executor_pools,
            workspace=self.workspace,
        )

    async def _execute(self, start: _Execution, on_event: EventSink | None) -> RunResult:
        """The one run path: every ``run`` (planned, given, streamed) and ``resume`` ends here."""
        wiring = Wiring(self._settings(), start.plans, start.approvals, start.approve)
        # Logging and tracing, each only when someone listens (runs/observers.py).
        sinks: list[Sink] = [
            _with_history(s, h) for s, h in observers(start.prior, resumed=start.resume is not None)
        ]
        feeder: asyncio.Task[None] | None = None
        if start.feed is not None:
            feeder, mark_started = _feeder(start.feed, wiring)
            sinks.append(mark_started)
        if on_event is not None:
            sinks.append(_with_history(on_event, start.prior))
        options = wiring.options(sinks=sinks, config=start.config)

        def on_executor(executor: Executor) -> None:
            wiring.bind(executor)
            self.last_run_id = executor.run_id

        try:
            with self._blocking_pool():
                state = await self._drive(start, options, on_executor)
        finally:
            wiring.close()
            if feeder is not None:
                if not feeder.done():
                    feeder.cancel()
                await asyncio.gather(feeder, return_exceptions=True)
        executor = wiring.executor
        assert executor is not None
        if (
            start.remember
            and state.status == "succeeded"
            and self.memory is not None
            and executor.plan is not None
        ):
            # Kept only if the run achieved its goal: covered, every check passed, not forced.
            self.memory.remember(
                executor.plan,
                run=state,
                events=executor.log,
                tools=self.specs,
                forced=bool(state.config.get("force")),
            )
        coverage = coverage_of([*start.prior, *executor.log])
        return RunResult(executor.run_id, state, executor.summary(), executor.plan, coverage=coverage)

    def _blocking_pool(self) -> contextlib.AbstractContextManager[BlockingPool]:
        """The run's worker threads for sync tools: at most one per step that may run at once,
        started before the run (when a tool needs them) and closed after it."""
        size = min(MAX_BLOCKING_CALLS, self.max_concurrency or MAX_BLOCKING_CALLS)
        # With a default backend outside this process (Ray: sync tools run on Ray's workers),
        # none of this run's calls needs a thread here: starting them would only delay the
        # first step and joining them the run's end.
        local = not self._backend_factories()
        needed = local and any(getattr(t, "runs_in_thread", False) for t in self.tools.values())
        return blocking_pool(size, start=size if needed else 0)

    async def _drive(
        self, start: _Execution, options: ExecutorOptions, on_executor: Callable[[Executor], None]
    ) -> RunState:
        """Recorded (a store) or in memory (``record=False``): chosen here and nowhere else."""
        store = self.store
        if start.resume is not None:
            from forethought.runs.resume import resume_run

            lease: dict[str, Any] = {} if start.lease_ttl_s is None else {"lease_ttl_s": start.lease_ttl_s}
            return await resume_run(
                store,
                start.resume,
                self.tools,
                options,
                on_executor=on_executor,
                owner=start.owner,
                backend_factories=self._backend_factories(),
                plan_open=start.plan_open,
                **lease,
            )
        if store is None:
            factories = self._backend_factories()
            if factories:
                options = dataclasses.replace(options, backends={k: f() for k, f in factories.items()})
            executor = Executor(
                start.plan,
                self.tools,
                options,
                prior_events=start.prior,
                preamble=True,
                goal=start.goal,
                plan_open=start.plan_open,
            )
            for backend in (options.backends or {}).values():
                if hasattr(backend, "current_plan"):  # e.g. Ray: per-step options from the plan
                    backend.current_plan = lambda: executor.plan
            on_executor(executor)
            return await executor.run()
        from forethought.runs.recording import execute_recorded

        # The pre-execution events are committed with the executor's first ones, under the lease.
        return await execute_recorded(
            store,
            start.plan,
            self.tools,
            options,
            prior_events=start.prior,
            prior_stored=False,
            goal=start.goal,
            plan_open=start.plan_open,
            on_executor=on_executor,
            backend_factories=self._backend_factories(),
        )

    def _backend_factories(self) -> dict[str, Callable[[], Any]]:
        """The default backend (for steps without ``executor``), when it is not this process."""
        from forethought.execution.backends import parse_backend

        try:
            name, address = parse_backend(self.backend)
        except ValueError as exc:
            raise UserError(f"backend: {exc}") from None
        if name == "ray":
            from forethought.execution.backends.ray import RayBackend

            return {"local": lambda: RayBackend(address), "ray": lambda: RayBackend(address)}
        return {}

    def _streamed(
        self, goal: str, approve: ApproveMode, run_config: Mapping[str, Any] | None, force: bool = False
    ) -> _Execution:
        """Plan and execute at once: each step starts as soon as the planner has streamed it and
        its dependencies are done, if it is read-only. Side effects wait for the complete plan
        (and, with ``approve="all"``, its recorded approval)."""

        async def feed(wiring: Wiring) -> None:
            from forethought.planning.streaming import PlanDone, stream_plan

            executor = wiring.executor
            assert executor is not None
            try:
                async for item in stream_plan(goal, self.specs, self.model("planner"), memory=self.memory):
                    if isinstance(item, PlanDone):
                        await self._close_streamed(wiring, item, goal, force)
                        return
                    executor.extend([item])
            except Exception as exc:  # the model failed mid-plan: stop, and say why
                executor.stop("failed", f"planning failed: {type(exc).__name__}: {exc}")
                raise

        config = {
            "approve": approve,
            "budgets": self.budgets.model_dump(),
            "stream": True,
            **(run_config or {}),
        }
        return _Execution([], [], approve, goal=goal, plan_open=True, config=config, feed=feed)

    async def _close_streamed(self, wiring: Wiring, done: PlanDone, goal: str, force: bool = False) -> None:
        """The planner finished: record its calls, repair the plan if it misses the goal, close
        it, approve it if allowed — the same outcome as a run planned before executing.

        While the repair is asked for, the plan stays open: read-only steps already streamed go
        on, side effects keep waiting, and the executor cannot conclude. A repaired plan is the
        next version (``plan_revised``). A plan that still misses the goal stops the run in
        ``awaiting_approval``, naming what is missing (``approve`` continues it, ``--force``
        runs it as written). From closing the plan on, this is synchronous: no other task runs
        between closing it and asking the gate again.
        """
        executor = wiring.executor
        assert executor is not None
        for call in done.calls:
            executor.record(E.ModelCalled, **model_called_fields(call.role, call.request, call.response))
        if done.plan is None or done.problems:
            first = str(done.problems[0]) if done.problems else "the planner returned no plan"
            executor.record(E.PlanValidated, plan_hash="", problems=[str(p) for p in done.problems])
            executor.stop("failed", f"invalid plan: {first}")
            return
        coverage = check_coverage(done.plan, goal, self.specs)
        repaired: list[tuple[Plan, Coverage]] = []
        if not coverage.covered and not force:

            def record_call(call: ModelCall) -> None:
                executor.record(E.ModelCalled, **model_called_fields(call.role, call.request, call.response))

            repaired = [r async for r in self._coverage_repairs(goal, done.plan, coverage, record_call)]
        plan = executor.close_plan(rollback=done.plan.rollback, release=False)
        self._checked_streamed(wiring, plan, goal, done.plan.metadata.get("confidence"))
        from forethought.planning.streaming import keep_streamed_ids

        findings = "; ".join(str(f) for f in coverage.missing)
        proposed = done.plan  # the planner's latest plan: its confidence decides --yes-all
        for candidate, candidate_coverage in repaired:
            # A repaired step that reuses a streamed id for another call gets a new id, so it is
            # not taken for the streamed step's result. Refused when it changes a step already
            # under way: then a person decides.
            revision = keep_streamed_ids(candidate, plan)
            if executor.revise(revision, f"coverage repair: {findings}") is not None:
                break
            findings = "; ".join(str(f) for f in candidate_coverage.missing)
            plan, proposed = executor.plan or plan, candidate
            self._checked_streamed(wiring, plan, goal, candidate.metadata.get("confidence"))
        coverage = check_coverage(plan, goal, self.specs)
        if not coverage.covered and not force:
            executor.stop("awaiting_approval", uncovered_reason(coverage))
            return
        if (
            wiring.approve == "all"
            and not wiring.settings.low_confidence(proposed)
            and needs_new_approval(plan, wiring.gate)
        ):
            wiring.grant(plan, self.approver + " (--yes-all)")
        executor.reconsider()

    def _checked_streamed(self, wiring: Wiring, plan: Plan, goal: str, confidence: Any) -> None:
        """Record the check of a streamed plan version and make it known to the gate."""
        executor = wiring.executor
        assert executor is not None
        wiring.plans.append(plan)
        wiring.gate.add(plan=plan)
        executor.record(
            E.PlanValidated,
            plan_hash=plan.plan_hash(),
            problems=[],
            coverage=check_coverage(plan, goal, self.specs).to_dict(),
            confidence=confidence if isinstance(confidence, (int, float)) else None,
        )

    async def resume(
        self,
        run_id: str,
        *,
        approve: ApproveMode = "none",
        on_event: Callable[[Event], Awaitable[None]] | None = None,
        owner: str | None = None,
        lease_ttl_s: float | None = None,
    ) -> RunResult:
        """Continue a stored run with this agent's tools, models, gate and budgets.

        ``owner``: the lease owner id to resume under (a worker that claimed the run already
        holds its lease under that id); ``lease_ttl_s`` how long a silent holder keeps it."""
        run_id = self._resolve_run(run_id)
        self.last_run_id = run_id
        events = self.store.events(run_id)
        plans, approvals = recorded_plans_and_approvals(events)
        start = _Execution(
            plans,
            approvals,
            approve,
            prior=events,
            resume=run_id,
            remember=False,
            owner=owner,
            lease_ttl_s=lease_ttl_s,
        )
        from forethought._stepwise_run import if_stepwise

        return await self._execute(if_stepwise(self, start), on_event)

    async def approve(
        self,
        run_id: str,
        *,
        plan_hash: str | None = None,
        approver: str | None = None,
        continue_run: bool = True,
        steps: Sequence[str] = (),
        on_event: Callable[[Event], Awaitable[None]] | None = None,
    ) -> RunResult | None:
        """Approve the current plan of a stored run (bound to its hash) and, by default, continue
        it. ``plan_hash`` (a prefix is enough) guards against approving a plan that changed
        since it was reviewed. ``steps`` confirms those steps now (execution-time approval of
        destructive steps under the ``reconfirm_destructive`` policy)."""
        from forethought.runs.approval import grant_approval

        run_id = self._resolve_run(run_id)
        await asyncio.to_thread(
            grant_approval,
            self.store,
            run_id,
            self.specs,
            approver or self.approver,
            plan_hash=plan_hash,
            steps=steps,
            require_waiting=True,
        )
        if not continue_run:
            return None
        return await self.resume(run_id, on_event=on_event)

    def _resolve_run(self, run_id: str) -> str:
        from forethought.runs.run_ids import resolve_run_id

        return resolve_run_id(self.store, run_id)


def check_coverage(plan: Plan, goal: str, tools: Mapping[str, ToolSpec] | None) -> Coverage:
    """``plan.coverage.check_coverage``: imported by ``Agent.run`` when it is given a goal."""
    from forethought.plan.coverage import check_coverage as check

    return check(plan, goal, tools)


def coverage_of(events: Sequence[Event]) -> dict[str, Any] | None:
    """The recorded coverage of the latest checked plan (``plan_validated.coverage``)."""
    for event in reversed(events):
        if isinstance(event, E.PlanValidated) and event.coverage is not None:
            return event.coverage
    return None


def uncovered_reason(coverage: Coverage) -> str:
    """The one line that says why a plan waits: what of the goal it misses."""
    return "plan does not cover the goal: " + "; ".join(str(f) for f in coverage.missing)


def _feeder(feed: PlanFeed, wiring: Wiring) -> tuple[asyncio.Task[None], EventSink]:
    """Start ``feed`` as a task that waits for the executor's first event (from then on it
    accepts steps and recorded events); returns the task and the sink that releases it."""
    started = asyncio.Event()

    async def mark_started(event: Event) -> None:
        started.set()

    async def run_feed() -> None:
        await started.wait()
        await feed(wiring)

    return asyncio.create_task(run_feed(), name="plan-stream"), mark_started


class _WithHistory:
    """A sink that first replays ``history`` (the executor delivers only what it emits itself);
    it ignores what ``sink`` ignores (``ignored_by``).

    Replaying on the first live event, not before starting, means nothing is shown for a run
    whose lease another process holds.
    """

    def __init__(self, sink: EventSink, history: Sequence[Event]) -> None:
        self._sink = sink
        self._pending = deque(history)
        self.ignores = ignored_by(sink)

    async def __call__(self, event: Event) -> None:
        pending = self._pending
        while pending:
            await self._sink(pending.popleft())
        await self._sink(event)


class _InlineWithHistory(_WithHistory):
    """``_WithHistory`` of a sink the executor calls inline (``execution._parts.inline_of``):
    the history is replayed through ``deliver_inline`` before the first live event."""

    def __init__(self, sink: EventSink, deliver: Callable[[Event], None], history: Sequence[Event]) -> None:
        super().__init__(sink, history)
        self._deliver = deliver

    def deliver_inline(self, event: Event) -> None:
        pending = self._pending
        while pending:
            self._deliver(pending.popleft())
        self._deliver(event)


def _with_history(sink: EventSink, history: Sequence[Event]) -> EventSink:
    deliver = inline_of(sink)
    return _WithHistory(sink, history) if deliver is None else _InlineWithHistory(sink, deliver, history)
