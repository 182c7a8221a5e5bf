"""Goal → plan, with the tool set as a grammar and the validator as a teacher.

``make_plan`` prompts the model with the goal, the tools, constraints, budget and similar past
plans; constrains its output with a JSON Schema generated from the tools (``_planner_schema``);
parses the answer into a ``Plan``; runs the static validator; and, when the validator finds
problems, shows the model the located problems for a bounded number of repair rounds.

``replan`` produces version N+1 after a failure. Completed steps are *enforced*, not requested:
whatever the model answers, they are copied verbatim from the old plan, so a replan can never
re-run or alter work that already happened.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from forethought.errors import ModelError, RunError
from forethought.models.base import Message, Model, ModelRequest, ModelResponse, Usage
from forethought.plan.files import check_data
from forethought.plan.model import Plan, Step
from forethought.plan.validation import Problem, validate_plan
from forethought.planning.candidates import CandidateScore, mean_logprob, score_candidate
from forethought.planning.decompose import skeletons
from forethought.planning.failure_policy import (
    PLANNED_ON_FAILURE,
    is_embedded,
    planned_failure_policy,
    with_planned_failure_policy,
)
from forethought.planning.grammar import (
    PlanSchemaBuilder,
    goal_literals,
    min_steps_hint,
    rank_tools,
    step_ids,
)
from forethought.planning.prompt import (
    SYSTEM,
    coverage_repair_prompt,
    extract_json,
    plan_json_text,
    render_tools,
    repair_prompt,
    replan_prompt,
    summarize_output,
    system_prompt,
    user_prompt,
)
from forethought.planning.refinements import Refinements
from forethought.planning.slots import Slots, bind, plan_text
from forethought.planning.step_shape import PlanShape, classic_steps, ref_rewriter, shape_for
from forethought.tools.base import ToolSpec

if TYPE_CHECKING:
    from forethought.planning.memory import PlanMemory

LiteralMode = Literal["auto", "strict", "hint", "off"]
ShapeMode = Literal["auto", "compact", "classic"]


class PlanningError(RunError):
    """The planner could not produce a valid plan within its repair budget."""

    def __init__(self, message: str, problems: Sequence[Problem] = ()) -> None:
        super().__init__(message)
        self.problems = list(problems)


@dataclass(frozen=True)
class PlannerOptions:
    """Knobs of the planning call. Defaults suit both frontier and tiny local models."""

    # None: 4 for the embedded model (grammar size and so per-token cost grow with it; simple
    # goals need few steps), 10 otherwise.
    max_steps: int | None = None
    temperature: float = 0.0
    max_tokens: int = 1024
    # "strict": string arguments must be literals from the goal or references (tiny models);
    # "hint": literals are listed in the prompt only; "auto": strict for the embedded model.
    literal_mode: LiteralMode = "auto"
    constrained: bool = True
    describe: bool = False
    examples: int = 2
    # Drop invalid steps (and what depends on them) when the rest is a valid plan. None: do it
    # at once for the embedded model (a repair round rarely helps it and costs seconds), and
    # only once repairs are exhausted for other models.
    prune_invalid: bool | None = None
    # Decompose, then fill (``decompose.py``): clauses pick tools by BM25, the model only fills
    # argument slots. None: on for the embedded model. Falls back to the whole-plan grammar
    # (with plan memory's examples) when no candidate is valid and covers the goal.
    decompose: bool | None = None
    # Typed data flow in the slots (types, input/output roles of literals, unused outputs
    # first); off = the strict-literal rules of the whole-plan grammar. None: as ``decompose``.
    typed_flow: bool | None = None
    # How many tool chains to fill and score (``candidates.py``); 1 = the best prior only.
    # None: 4 for the embedded model.
    candidates: int | None = None
    # The techniques added after held-out suite 5 (``refinements.Refinements``: name precision,
    # filters by a bare value, a record's field straight to the writer); all on by default.
    refinements: Refinements = field(default_factory=Refinements)
    # The step shape the model is asked to write (``step_shape``): "compact" spends ~6 fewer
    # output tokens a step than "classic". "auto": compact, except for the embedded model,
    # whose grammars and prompts are tuned on the classic shape. Replies in either are read.
    plan_shape: ShapeMode = "auto"


@dataclass(frozen=True)
class ModelCall:
    """One recorded planner call (feed it to ``models.record.model_called_fields``)."""

    request: ModelRequest
    response: ModelResponse
    role: str = "planner"


@dataclass
class PlanResult:
    """The outcome of planning: a plan (valid iff ``problems`` is empty) and what it cost."""

    plan: Plan | None
    problems: list[Problem] = field(default_factory=list)
    calls: list[ModelCall] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.plan is not None and not self.problems

    @property
    def usage(self) -> Usage:
        total = Usage()
        for call in self.calls:
            total = total + call.response.usage
        return total

    @property
    def cost_usd(self) -> float:
        return sum(c.response.cost_usd for c in self.calls)

    def require(self) -> Plan:
        if self.plan is None or self.problems:
            first = str(self.problems[0]) if self.problems else "no plan"
            raise PlanningError(f"the planner produced no valid plan: {first}", self.problems)
        return self.plan


def _is_local(model: Model) -> bool:
    return is_embedded(model.name)


def _max_steps(opts: PlannerOptions, model: Model) -> int:
    if opts.max_steps is not None:
        return opts.max_steps
    return 4 if _is_local(model) else 10


def _decompose(opts: PlannerOptions, model: Model) -> tuple[bool, bool, int]:
    """(decompose?, typed flow?, candidates) for this model."""
    on = opts.decompose if opts.decompose is not None else _is_local(model)
    typed = opts.typed_flow if opts.typed_flow is not None else on
    count = opts.candidates if opts.candidates is not None else (4 if _is_local(model) else 1)
    return on, typed, max(1, count)


def plan_shape(opts: PlannerOptions, model: Model, tools: Mapping[str, ToolSpec]) -> PlanShape:
    """The step shape the model is asked to write its plan in (``step_shape.shape_for``)."""
    mode = opts.plan_shape
    wanted: PlanShape = ("classic" if _is_local(model) else "compact") if mode == "auto" else mode
    return shape_for(tools, wanted)


def _strict_literals(mode: LiteralMode, model: Model) -> bool:
    if mode == "auto":
        return _is_local(model)
    return mode == "strict"


# ------------------------------------------------------------------------------ post-processing


def drop_duplicate_steps(steps: list[Any], tools: Mapping[str, ToolSpec]) -> list[Any]:
    """Remove read-only steps identical to an earlier one, pointing references at the original.

    Small models often repeat the last step until the length limit; a repeated read-only call
    adds nothing. Side-effecting steps are never dropped: repeating them may be intended.
    """
    seen: dict[str, str] = {}
    mapping: dict[str, str] = {}
    out: list[Any] = []
    for raw in steps:
        if not isinstance(raw, dict):
            out.append(raw)
            continue
        step = ref_rewriter(mapping)(raw)
        tool = step.get("tool")
        spec = tools.get(tool) if isinstance(tool, str) else None
        if spec is not None and spec.effect == "read_only" and isinstance(step.get("id"), str):
            key = json.dumps([tool, step.get("args"), step.get("depends_on")], sort_keys=True, default=str)
            if key in seen:
                mapping[step["id"]] = seen[key]
                continue
            seen[key] = step["id"]
        if mapping and isinstance(step.get("depends_on"), list):
            step["depends_on"] = list(dict.fromkeys(mapping.get(d, d) for d in step["depends_on"]))
        out.append(step)
    return out


def prune_invalid_steps(
    plan: Plan, problems: Sequence[Problem], tools: Mapping[str, ToolSpec]
) -> Plan | None:
    """``plan`` without its invalid steps and their dependents, if what is left is valid.

    Small models often get the useful first steps right and then wander (an extra step feeding
    an integer into a text argument). Cutting the located bad steps keeps the good part; the
    removed ids are recorded in ``metadata["pruned"]`` for the reviewer. None when a problem is
    not located at a step or nothing valid would remain.
    """
    bad = {p.step_id for p in problems}
    if None in bad or not bad:
        return None
    deps = plan.dependency_map()
    changed = True
    while changed:
        changed = False
        for sid, ds in deps.items():
            if sid not in bad and any(d in bad for d in ds):
                bad.add(sid)
                changed = True
    kept = tuple(s for s in plan.steps if s.id not in bad)
    if not kept:
        return None
    candidate = plan.model_copy(
        update={"steps": kept, "metadata": {**plan.metadata, "pruned": sorted(str(b) for b in bad)}}
    )
    candidate = Plan.model_validate(candidate.model_dump(mode="json", by_alias=True))
    return None if validate_plan(candidate, tools) else candidate


def _steps_of(data: Any) -> list[Any] | None:
    if isinstance(data, list):
        return data
    if isinstance(data, dict) and isinstance(data.get("steps"), list):
        return list(data["steps"])
    return None


def parse_plan_text(
    text: str,
    goal: str,
    tools: Mapping[str, ToolSpec],
    *,
    version: int = 1,
    metadata: Mapping[str, Any] | None = None,
    on_failure: str = PLANNED_ON_FAILURE,
    taken: Sequence[str] = (),
) -> tuple[Plan | None, list[Problem]]:
    """Model answer → (plan or None, every problem). Never raises on any text. Steps may be in
    either shape (``step_shape``); compact ones are numbered by position after the ids
    ``taken``. A step that does not say what happens when it fails gets ``on_failure``
    (``planning.failure_policy``)."""
    try:
        data = extract_json(text)
    except ValueError:
        return None, [Problem("not_json", "the answer is not JSON; reply with the JSON plan only")]
    raw_steps = _steps_of(data)
    if raw_steps is None:
        return None, [Problem("no_steps", 'the answer needs a "steps" list of tool calls')]
    steps, shape_problems = classic_steps(raw_steps, taken)
    if shape_problems:
        return None, shape_problems
    planned = with_planned_failure_policy(drop_duplicate_steps(steps, tools), on_failure)
    doc: dict[str, Any] = {"goal": goal, "steps": planned, "version": version}
    meta = dict(metadata or {})
    confidence = answer_confidence(data)
    if confidence is not None:
        meta["confidence"] = confidence
    if meta:
        doc["metadata"] = meta
    return check_data(doc, dict(tools))


def answer_confidence(data: Any) -> float | None:
    """The planner's own confidence in its plan (0..1), when the answer gives one."""
    value = data.get("confidence") if isinstance(data, dict) else None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1:
        return float(value)
    return None


def with_confidence(schema: dict[str, Any]) -> dict[str, Any]:
    """The plan schema plus the planner's confidence (as the seed's planner spec has it):
    ``{"steps": [...], "confidence": 0.8}``. Optional, so a model that omits it still plans."""
    props = schema.get("properties")
    if not isinstance(props, dict):
        return schema
    return {**schema, "properties": {**props, "confidence": {"type": "number", "minimum": 0, "maximum": 1}}}


# ------------------------------------------------------------------------------------ planning


def plan_request(
    messages: Sequence[Message], schema: dict[str, Any] | None, opts: PlannerOptions
) -> ModelRequest:
    """The request for a plan (first draft, repair or replan): one shape for every planning call."""
    return ModelRequest(
        messages=tuple(messages),
        json_schema=schema,
        schema_name="plan",
        temperature=opts.temperature,
        max_tokens=opts.max_tokens,
    )


def build_planning_request(
    goal: str,
    tools: Mapping[str, ToolSpec],
    model: Model,
    *,
    constraints: Sequence[str] = (),
    budget: str | None = None,
    memory: PlanMemory | None = None,
    options: PlannerOptions | None = None,
    decompose: bool = True,
    chain: ChosenChain | None = None,
) -> tuple[list[Message], dict[bool, dict[str, Any]], bool]:
    """Messages, output schemas (keyed by "strict literals?") and whether to start strict.

    With decompose-then-fill on (and ``decompose``), a goal whose best tool chain binds into a
    valid plan that covers the goal gets that chain's slot grammar instead of the whole-plan
    one: a single streamed call then writes the same plan ``make_plan`` returns (forced where
    every slot is decided), so ``run`` and ``plan`` agree. ``chain``: that chain, when the
    caller chose it already (``chosen_chain``; pass ``decompose=False`` with it).
    """
    opts = options or PlannerOptions()
    if not tools:
        raise PlanningError("there are no tools to plan with; pass --tools or enable built-ins")
    chosen = chosen_chain(goal, tools, model, opts) if decompose else chain
    if chosen is not None:
        sub = {n: tools[n] for n in dict.fromkeys(chosen.steps_tools)}
        strict = _strict_literals(opts.literal_mode, model)
        return _fill_messages(goal, sub, constraints), {strict: chosen.slots.schema()}, strict
    tools = rank_tools(goal, tools)
    literals = goal_literals(goal)
    strict = _strict_literals(opts.literal_mode, model)
    shape = plan_shape(opts, model, tools)
    # `is not None`, not truthiness: an empty memory still offers the shipped starter plans.
    examples = (
        memory.similar(goal, tools=tools, k=opts.examples) if memory is not None and opts.examples else []
    )
    # Examples go in as earlier chat turns: small chat models imitate a previous assistant
    # answer far more reliably than an example embedded in the prompt text.
    messages = [Message(role="system", content=system_prompt(shape) + "\n\nTools:\n" + render_tools(tools))]
    for example in reversed(examples):  # the most similar example ends up closest to the goal
        messages += [
            Message(role="user", content=f"Goal: {example.goal}"),
            Message(role="assistant", content=plan_json_text(example, shape)),
        ]
    messages.append(
        Message(
            role="user",
            content=user_prompt(
                goal,
                tools,
                literals=literals.strings if opts.literal_mode != "off" else (),
                constraints=constraints,
                budget=budget,
                with_tools=False,
            ),
        )
    )
    ids = step_ids(_max_steps(opts, model))
    # Free strings are capped for the embedded model: a tiny model can ramble inside a string
    # until max_tokens, which costs tens of seconds and is never a useful argument.
    max_string = 200 if _is_local(model) else None
    schemas = (
        {
            strict: with_confidence(
                PlanSchemaBuilder(
                    tools,
                    literals=literals if strict else None,
                    describe=opts.describe,
                    max_string=max_string,
                    shape=shape,
                ).plan_schema(ids, min_steps=min_steps_hint(goal, tools) if strict else 1)
            )
        }
        if opts.constrained
        else {}
    )
    return messages, schemas, strict


async def make_plan(
    goal: str,
    tools: Mapping[str, ToolSpec],
    model: Model,
    *,
    constraints: Sequence[str] = (),
    budget: str | None = None,
    memory: PlanMemory | None = None,
    max_repairs: int = 2,
    options: PlannerOptions | None = None,
) -> PlanResult:
    """Plan ``goal`` with ``tools``; see the module docstring. Model failures raise ModelError."""
    opts = options or PlannerOptions()
    decomposed: PlanResult | None = None
    if _decompose(opts, model)[0] and tools:
        decomposed = await plan_by_decomposition(goal, tools, model, options=opts, constraints=constraints)
        if decomposed.ok and decomposed.plan is not None and decomposed.plan.metadata.get("covered"):
            return decomposed
    messages, schemas, strict = build_planning_request(
        goal,
        tools,
        model,
        constraints=constraints,
        budget=budget,
        memory=memory,
        options=opts,
        decompose=False,
    )
    result = PlanResult(plan=None, calls=list(decomposed.calls) if decomposed is not None else [])
    for attempt in range(max_repairs + 1):
        # Repairs keep the same grammar: for a tiny model the constrained space is its best
        # chance, and the feedback in the prompt is what changes between attempts.
        schema = schemas.get(strict)
        request = plan_request(messages, schema, opts)
        response = await model.complete(request)
        result.calls.append(ModelCall(request, response))
        plan, problems = parse_plan_text(
            response.text,
            goal,
            tools,
            metadata={"planner": model.name, "attempts": attempt + 1},
            on_failure=planned_failure_policy(model.name),
        )
        result.plan, result.problems = plan, problems
        if plan is not None and not problems:
            return _better(result, decomposed, goal, tools)
        prune_now = opts.prune_invalid if opts.prune_invalid is not None else _is_local(model)
        if plan is not None and (prune_now or (opts.prune_invalid is None and attempt == max_repairs)):
            pruned = prune_invalid_steps(plan, problems, tools)
            if pruned is not None:
                result.plan, result.problems = pruned, []
                return _better(result, decomposed, goal, tools)
        messages += [
            Message(role="assistant", content=response.text),
            Message(role="user", content=repair_prompt([str(p) for p in problems])),
        ]
    return _better(result, decomposed, goal, tools)


def _better(
    whole: PlanResult, decomposed: PlanResult | None, goal: str, tools: Mapping[str, ToolSpec]
) -> PlanResult:
    """The whole-plan answer, unless the decomposed one scores better (valid, covers more)."""
    if decomposed is None or decomposed.plan is None:
        return whole
    mine = score_candidate(decomposed.plan, decomposed.problems, goal, tools)
    theirs = score_candidate(whole.plan, whole.problems, goal, tools)
    if (mine.problems, mine.findings) <= (theirs.problems, theirs.findings):
        return PlanResult(decomposed.plan, decomposed.problems, whole.calls)
    return whole


def _fill_messages(goal: str, tools: Mapping[str, ToolSpec], constraints: Sequence[str]) -> list[Message]:
    """The prompt for filling a chain's slots: only the chain's tools are listed."""
    return [
        Message(role="system", content=SYSTEM + "\n\nTools:\n" + render_tools(tools)),
        Message(role="user", content=user_prompt(goal, tools, constraints=constraints, with_tools=False)),
    ]


@dataclass(frozen=True)
class ChosenChain:
    steps_tools: tuple[str, ...]
    slots: Slots


def best_chain(
    goal: str,
    tools: Mapping[str, ToolSpec],
    typed: bool,
    *,
    limit: int = 8,
    refinements: Refinements | None = None,
) -> ChosenChain | None:
    """The best chain by its preferred slot values, without a model: the first ``limit``
    feasible chains are bound, each at its first values, and scored; None unless the best is
    valid and covers the goal."""
    refine = refinements if refinements is not None else Refinements()
    best: tuple[CandidateScore, ChosenChain] | None = None
    tried = 0
    for skeleton in skeletons(goal, tools, limit=8 * limit, refinements=refine):
        if tried == limit:
            break
        slots = bind(skeleton.tools, goal, tools, typed=typed, refinements=refine)
        if not slots.feasible:
            continue
        tried += 1
        plan, problems = parse_plan_text(plan_text(slots.first_plan()), goal, tools)
        score = score_candidate(
            plan,
            problems,
            goal,
            tools,
            prior=skeleton.prior,
            record_fields=refine.record_fields,
            question_fields=refine.question_fields,
            file_named=refine.file_named_values,
            abbreviations=refine.abbreviated_fields,
            formatted_records=refine.formatted_records,
        )
        if plan is not None and (best is None or score < best[0]):
            best = (score, ChosenChain(skeleton.tools, slots))
    if best is None or best[0].problems or best[0].findings:
        return None
    return best[1]


def chosen_chain(
    goal: str, tools: Mapping[str, ToolSpec], model: Model, options: PlannerOptions | None = None
) -> ChosenChain | None:
    """The tool chain whose slot grammar a planning request uses (``best_chain``), or None when
    decompose-then-fill is off for this model, output is unconstrained, or no chain covers the
    goal. When every slot is decided, ``plan_text(chain.slots.first_plan())`` is the plan the
    forced grammar would make the model write (``stream_plan`` yields it without asking)."""
    opts = options or PlannerOptions()
    use, typed, _ = _decompose(opts, model)
    if not tools or not opts.constrained or not use:
        return None
    return best_chain(goal, tools, typed, refinements=opts.refinements)


async def plan_by_decomposition(
    goal: str,
    tools: Mapping[str, ToolSpec],
    model: Model,
    *,
    options: PlannerOptions | None = None,
    constraints: Sequence[str] = (),
) -> PlanResult:
    """Decompose, then fill (``decompose.py``), scoring candidates (``candidates.py``).

    Each candidate tool chain gets its argument slots; a chain whose slots are all decided is
    a plan without a model call, otherwise the model fills the slots under a grammar of exactly
    those values. The best-scoring candidate is returned with ``metadata.covered`` saying
    whether the coverage check found nothing missing; ``metadata.decomposed`` records the chain.
    """
    opts = options or PlannerOptions()
    _, typed, count = _decompose(opts, model)
    result = PlanResult(plan=None)
    if opts.refinements.decided_chain_first:
        # The chain ``stream_plan`` takes without a model call, when every slot is decided and
        # it covers the goal: ``plan`` agrees with ``run``, and no model fills a chain first.
        chosen = chosen_chain(goal, tools, model, opts)
        if chosen is not None and chosen.slots.decided():
            decided = {"planner": model.name, "decomposed": list(chosen.steps_tools), "model_filled": False}
            plan, problems = parse_plan_text(
                plan_text(chosen.slots.first_plan()),
                goal,
                tools,
                metadata={**decided, "covered": True},
                on_failure=planned_failure_policy(model.name),
            )
            if plan is not None and not problems:
                result.plan, result.problems = plan, problems
                return result
    best: tuple[CandidateScore, Plan, list[Problem]] | None = None
    tried = 0
    for skeleton in skeletons(goal, tools, limit=8 * count, refinements=opts.refinements):
        if tried == count:
            break
        covering = best is not None and best[0].problems == 0 and best[0].findings == 0
        if covering and best is not None and skeleton.prior < -best[0].neg_prior:
            break  # sorted by prior: no later chain can beat a valid, covering plan
        slots = bind(skeleton.tools, goal, tools, typed=typed, refinements=opts.refinements)
        if not slots.feasible:
            continue  # only chains whose every required argument can be bound count as tried
        tried += 1
        likelihood: float | None = None
        meta: dict[str, Any] = {"planner": model.name, "decomposed": list(skeleton.tools)}
        if slots.decided():
            text = plan_text(slots.first_plan())
            meta["model_filled"] = False
        else:
            sub = {n: tools[n] for n in dict.fromkeys(skeleton.tools)}
            request = plan_request(_fill_messages(goal, sub, constraints), slots.schema(), opts)
            response = await model.complete(request)
            result.calls.append(ModelCall(request, response))
            text = response.text
            likelihood = mean_logprob(response.raw)
            meta["model_filled"] = True
        plan, problems = parse_plan_text(
            text, goal, tools, metadata=meta, on_failure=planned_failure_policy(model.name)
        )
        score = score_candidate(
            plan,
            problems,
            goal,
            tools,
            prior=skeleton.prior,
            likelihood=likelihood,
            record_fields=opts.refinements.record_fields,
            question_fields=opts.refinements.question_fields,
            file_named=opts.refinements.file_named_values,
            abbreviations=opts.refinements.abbreviated_fields,
            formatted_records=opts.refinements.formatted_records,
        )
        if plan is not None and (best is None or score < best[0]):
            best = (score, plan, problems)
    if best is not None:
        score, plan, problems = best
        covered = score.problems == 0 and score.findings == 0
        result.plan = plan.model_copy(update={"metadata": {**plan.metadata, "covered": covered}})
        result.problems = problems
    else:
        result.problems = [Problem("no_candidate", "no tool chain fits the goal's clauses")]
    return result


async def repair_coverage(
    goal: str,
    plan: Plan,
    findings: Sequence[str],
    tools: Mapping[str, ToolSpec],
    model: Model,
    *,
    options: PlannerOptions | None = None,
) -> PlanResult:
    """One repair round for a valid plan that misses its goal: a covering plan by decomposition
    (as ``make_plan`` finds first), else the coverage findings go back to the model (as the
    validator's problems do in ``make_plan``); the answer becomes version N+1 (``parent_version``
    N, ``metadata.repair = "coverage"``), never a silent replacement.
    The caller bounds the rounds (the run's ``max_replans``) and re-checks coverage."""
    opts = options or PlannerOptions()
    if _decompose(opts, model)[0] and tools:
        # What ``make_plan`` tries first: candidate chains, the model filling only their open
        # slots. A streamed plan (one answer under the whole-plan grammar) often misses what
        # this finds, and a small model asked to repair its own plan tends to repeat it; so a
        # covering candidate is the repair, and ``run`` ends where ``plan`` does.
        decomposed = await plan_by_decomposition(goal, tools, model, options=opts)
        found = decomposed.plan
        same = found is not None and _calls(found) == _calls(plan)  # the plan being repaired
        if decomposed.ok and found is not None and found.metadata.get("covered") and not same:
            repaired_plan = found.model_copy(
                update={
                    "version": plan.version + 1,
                    "parent_version": plan.version,
                    "metadata": {**found.metadata, "repair": "coverage"},
                }
            )
            return PlanResult(repaired_plan, [], list(decomposed.calls))
    messages, schemas, strict = build_planning_request(goal, tools, model, options=opts, decompose=False)
    messages += [
        Message(role="assistant", content=plan_json_text(plan, plan_shape(opts, model, tools))),
        Message(role="user", content=coverage_repair_prompt(findings)),
    ]
    request = plan_request(messages, schemas.get(strict), opts)
    response = await model.complete(request)
    repaired, problems = parse_plan_text(
        response.text,
        goal,
        tools,
        version=plan.version + 1,
        metadata={"planner": model.name, "repair": "coverage"},
        on_failure=planned_failure_policy(model.name),
    )
    if repaired is not None:
        repaired = repaired.model_copy(update={"parent_version": plan.version})
    return PlanResult(repaired, problems, [ModelCall(request, response)])


def _calls(plan: Plan) -> list[tuple[str | None, str]]:
    """A plan's tool calls, ids aside: two plans that make the same calls."""
    return [(s.tool, json.dumps(s.args, sort_keys=True, default=str)) for s in plan.steps]


async def replan(
    goal: str,
    plan: Plan,
    state_summary: Mapping[str, Any],
    failure: str,
    tools: Mapping[str, ToolSpec],
    model: Model,
    *,
    max_repairs: int = 2,
    options: PlannerOptions | None = None,
    calls: list[ModelCall] | None = None,
) -> Plan:
    """Plan version N+1 after ``failure``; ``state_summary`` maps completed step ids → outputs.

    Completed steps are kept by id and copied verbatim from ``plan``; the model only writes the
    remaining work. Raises ``PlanningError`` when no valid plan comes out of the repair budget
    (the caller bounds the number of replans with its ``max_replans``).
    """
    opts = options or PlannerOptions()
    by_id = plan.step_map()
    unknown = [sid for sid in state_summary if sid not in by_id]
    if unknown:
        raise PlanningError(f"replan: completed step {unknown[0]!r} is not in plan version {plan.version}")
    completed = [s for s in plan.steps if s.id in state_summary]
    completed_ids = {s.id for s in completed}
    summaries = {s.id: summarize_output(state_summary[s.id]) for s in completed}
    shape = plan_shape(opts, model, tools)
    prior = [(s.id, s.tool) for s in completed]
    new_ids = step_ids(_max_steps(opts, model), [s.id for s in plan.steps])
    messages = [
        Message(role="system", content=system_prompt(shape)),
        Message(
            role="user",
            content=replan_prompt(goal, plan, summaries, failure, tools, shape=shape, new_ids=new_ids),
        ),
    ]
    schema = (
        PlanSchemaBuilder(tools, describe=opts.describe, shape=shape).plan_schema(new_ids, prior)
        if opts.constrained
        else None
    )
    problems: list[Problem] = []
    # The embedded model gets one call per replan: a repair round costs it tens of seconds on
    # two cores (minutes under load), and the run's max_replans already bounds the rounds.
    rounds = 1 if _is_local(model) else max_repairs + 1
    for _attempt in range(rounds):
        request = plan_request(messages, schema, opts)
        response = await model.complete(request)
        if calls is not None:
            calls.append(ModelCall(request, response, role="replanner"))
        candidate, problems = _assemble_replan(
            response.text, goal, plan, completed, completed_ids, tools, model.name
        )
        if candidate is not None and not problems:
            return candidate
        messages += [
            Message(role="assistant", content=response.text),
            Message(role="user", content=repair_prompt([str(p) for p in problems])),
        ]
    first = str(problems[0]) if problems else "no plan"
    raise PlanningError(f"replan of version {plan.version} failed: {first}", problems)


def _assemble_replan(
    text: str,
    goal: str,
    plan: Plan,
    completed: list[Step],
    completed_ids: set[str],
    tools: Mapping[str, ToolSpec],
    model_name: str,
) -> tuple[Plan | None, list[Problem]]:
    try:
        raw_steps = _steps_of(extract_json(text))
    except ValueError:
        raw_steps = None
    if raw_steps is None:
        return None, [Problem("no_steps", 'the answer needs a "steps" list of the new steps')]
    # Compact new steps are numbered after every id of the current plan, as the schema's are.
    steps, shape_problems = classic_steps(raw_steps, [s.id for s in plan.steps])
    if shape_problems:
        return None, shape_problems
    kept = [s.model_dump(mode="json", by_alias=True, exclude_defaults=True) for s in completed]
    # Whatever the model says about a completed step is ignored: the old one is authoritative.
    new = [s for s in steps if not (isinstance(s, dict) and s.get("id") in completed_ids)]
    doc = {
        "goal": goal,
        "steps": kept
        + with_planned_failure_policy(drop_duplicate_steps(new, tools), planned_failure_policy(model_name)),
        "version": plan.version + 1,
        "parent_version": plan.version,
        "rollback": [s.model_dump(mode="json", by_alias=True, exclude_defaults=True) for s in plan.rollback],
        "metadata": {**plan.metadata, "planner": model_name},
    }
    candidate, problems = check_data(doc, dict(tools))
    if candidate is not None:
        for old in completed:  # belt and braces: the copy must be exact
            if candidate.step(old.id) != old:
                raise ModelError(f"replan altered completed step {old.id!r}")  # pragma: no cover
    return candidate, problems
