"""Streaming plans: yield each step the moment its JSON object is complete.

LLMCompiler's idea with our rules: the executor may start a read-only step whose dependencies
are met while the planner is still writing later steps. A step is yielded only once it checks
out on its own (known tool, valid arguments, references only to steps already yielded), so an
early start never runs something the final validation would reject. The stream ends with one
``PlanDone`` carrying the full plan and every problem; it is authoritative (the executor's
``close_plan()``), and every streamed step appears in it unchanged.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from forethought.models.base import Model, ModelResponse, Usage
from forethought.models.pricing import price_call
from forethought.plan.model import Plan, Step
from forethought.plan.validation import Problem, validate_plan
from forethought.planning._json_stream import PlanParseError, StepScanner
from forethought.planning.failure_policy import planned_failure_policy, planned_step
from forethought.planning.planner import (
    ChosenChain,
    ModelCall,
    PlannerOptions,
    build_planning_request,
    chosen_chain,
    parse_plan_text,
    plan_request,
)
from forethought.planning.slots import plan_text
from forethought.planning.step_shape import PositionalIds, classic_step, ref_rewriter
from forethought.tools.base import ToolSpec

if TYPE_CHECKING:
    from forethought.planning.memory import PlanMemory

__all__ = ["PlanDone", "PlanParseError", "StepScanner", "keep_streamed_ids", "stream_plan"]


@dataclass
class PlanDone:
    """End of a plan stream. ``plan`` is None when the answer could not be parsed at all."""

    goal: str
    plan: Plan | None
    problems: list[Problem] = field(default_factory=list)
    calls: list[ModelCall] = field(default_factory=list)
    streamed: tuple[str, ...] = ()  # ids yielded early, in order
    accepted: tuple[Step, ...] = ()  # the steps yielded early: what an executor has been given
    first_step_s: float | None = None  # seconds from request to the first yielded step
    total_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.plan is not None and not self.problems


def _admissible(step: Step, accepted: list[Step], goal: str, tools: Mapping[str, ToolSpec]) -> bool:
    """Would this step pass validation given only the steps accepted so far?"""
    probe = Plan(goal=goal, steps=(*accepted, step))
    return not [p for p in validate_plan(probe, tools) if p.step_id == step.id]


async def stream_plan(
    goal: str,
    tools: Mapping[str, ToolSpec],
    model: Model,
    *,
    constraints: Sequence[str] = (),
    budget: str | None = None,
    memory: PlanMemory | None = None,
    options: PlannerOptions | None = None,
) -> AsyncIterator[Step | PlanDone]:
    """Yield admissible ``Step``s as they complete, then one ``PlanDone``.

    Model failures raise ``ModelError``; a malformed answer ends in a ``PlanDone`` with problems
    (no repair round here: a caller that wants one plans again with ``make_plan``).
    """
    opts = options or PlannerOptions()
    chain = chosen_chain(goal, tools, model, opts)
    if chain is not None and chain.slots.decided():
        # Every slot of the best chain is decided: the forced grammar would make the model type
        # out exactly this plan, token by token (seconds on the embedded model). ``make_plan``
        # returns it without a model call too, so ``run`` and ``plan`` still agree.
        for ready in _decided_stream(goal, tools, model, chain):
            yield ready
        return
    messages, schemas, strict = build_planning_request(
        goal,
        tools,
        model,
        constraints=constraints,
        budget=budget,
        memory=memory,
        options=opts,
        decompose=False,  # chosen above: not bound a second time
        chain=chain,
    )
    request = plan_request(messages, schemas.get(strict), opts)
    scanner = StepScanner()
    ids = PositionalIds()  # a compact step's id is its position, as in parse_plan_text
    policy = planned_failure_policy(model.name)
    accepted: list[Step] = []
    seen_keys: set[str] = set()
    text: list[str] = []
    usage = Usage()
    finish: str | None = None
    start = time.perf_counter()
    first: float | None = None
    parse_problem: Problem | None = None
    async for chunk in model.stream(request):
        if chunk.usage is not None:
            usage = chunk.usage
        finish = chunk.finish_reason or finish
        if not chunk.delta:
            continue
        text.append(chunk.delta)
        if parse_problem is not None:
            continue
        try:
            found = scanner.feed(chunk.delta)
        except PlanParseError as exc:
            parse_problem = Problem("not_json", str(exc))
            continue
        for item in found:
            if item.kind != "step":
                continue
            raw, shape_problem = classic_step(item.value, item.index, ids)
            step = None if shape_problem is not None else _step_or_none(raw, policy)
            if step is None:
                continue
            key = repr((step.tool, step.args, step.depends_on))
            spec = tools.get(step.tool or "")
            if spec is not None and spec.effect == "read_only" and key in seen_keys:
                continue  # a duplicate the final parse drops too (drop_duplicate_steps)
            if _admissible(step, accepted, goal, tools):
                accepted.append(step)
                seen_keys.add(key)
                if first is None:
                    first = time.perf_counter() - start
                yield step
    total = time.perf_counter() - start
    provider, _, model_id = model.name.partition(":")
    response = ModelResponse(
        text="".join(text),
        usage=usage,
        model=model.name,
        latency_s=total,
        finish_reason=finish,
        cost_usd=price_call(provider, model_id, usage).usd,
    )
    calls = [ModelCall(request, response)]
    plan, problems = parse_plan_text(
        response.text,
        goal,
        tools,
        metadata={"planner": model.name, "attempts": 1},
        on_failure=planned_failure_policy(model.name),
    )
    if parse_problem is not None and plan is None:
        problems = [parse_problem]
    if plan is not None:
        problems = [*problems, *_consistency(plan, accepted)]
    yield PlanDone(
        goal=goal,
        plan=plan,
        problems=problems,
        calls=calls,
        streamed=tuple(s.id for s in accepted),
        accepted=tuple(accepted),
        first_step_s=first,
        total_s=total,
    )


def _decided_stream(
    goal: str, tools: Mapping[str, ToolSpec], model: Model, chain: ChosenChain
) -> list[Step | PlanDone]:
    """A decided chain's plan as a stream: its steps, then its ``PlanDone`` (no model call)."""
    start = time.perf_counter()
    meta = {"planner": model.name, "decomposed": list(chain.steps_tools), "model_filled": False}
    plan, problems = parse_plan_text(
        plan_text(chain.slots.first_plan()),
        goal,
        tools,
        metadata=meta,
        on_failure=planned_failure_policy(model.name),
    )
    steps = list(plan.steps) if plan is not None and not problems else []
    done = PlanDone(
        goal=goal,
        plan=plan,
        problems=problems,
        streamed=tuple(s.id for s in steps),
        accepted=tuple(steps),
        first_step_s=(time.perf_counter() - start) if steps else None,
        total_s=time.perf_counter() - start,
    )
    return [*steps, done]


def _step_or_none(value: Any, policy: str) -> Step | None:
    try:
        return Step.model_validate(planned_step(value, policy))
    except (ValidationError, TypeError):
        return None


def _consistency(plan: Plan, accepted: list[Step]) -> list[Problem]:
    by_id = plan.step_map()
    return [
        Problem("stream_mismatch", "a streamed step differs from the final plan", s.id)
        for s in accepted
        if by_id.get(s.id) != s
    ]


def keep_streamed_ids(repaired: Plan, streamed: Plan) -> Plan:
    """``repaired`` with every step that reuses an id of ``streamed`` for a different call
    renamed (``s2`` → ``s2_v2``, references and dependencies follow).

    Steps of a streamed plan may already have run when its repair arrives; a revision keeps a
    succeeded step's result by id. A repaired step that only shares the id would otherwise be
    taken as done without ever running.
    """
    before = streamed.step_map()
    taken = {s.id for s in (*streamed.steps, *repaired.steps)}
    renames: dict[str, str] = {}
    for step in repaired.steps:
        old = before.get(step.id)
        if old is None or old == step:
            continue
        n, new_id = repaired.version, f"{step.id}_v{repaired.version}"
        while new_id in taken:
            n += 1
            new_id = f"{step.id}_v{n}"
        taken.add(new_id)
        renames[step.id] = new_id
    if not renames:
        return repaired
    rewrite = ref_rewriter(renames)

    steps = []
    for step in repaired.steps:
        data = rewrite(step.model_dump(mode="json", by_alias=True, exclude_defaults=True))
        data["id"] = renames.get(step.id, step.id)
        data["depends_on"] = [renames.get(d, d) for d in step.depends_on]
        steps.append(Step.model_validate(data))
    data = repaired.model_dump(mode="json", by_alias=True)
    return Plan.model_validate({**data, "steps": [s.model_dump(mode="json", by_alias=True) for s in steps]})
