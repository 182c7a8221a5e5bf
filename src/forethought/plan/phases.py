"""Phases: steps whose own steps are planned when they become ready, and how a sub-plan is spliced in.

A phase step (``phase: {goal, tools, max_steps}``) stands for a sub-goal. When it is expanded, its
sub-plan's steps replace it in a new version of the run's plan:

- each sub-step's id is prefixed with the phase id and ``__`` (``research`` + ``s1`` →
  ``research__s1``); a dot cannot be used because ``${research.s1}`` already means the field ``s1``
  of the output of ``research``;
- sub-steps without dependencies inside the sub-plan inherit the phase step's dependencies;
- **a phase's output is the output of its sub-plan's final step**: the last step, in plan order,
  that no other sub-step depends on. Later steps' ``${research}`` / ``${research.field}``
  references and ``depends_on: [research]`` are rewritten to that step; every other final
  sub-step becomes an explicit dependency too, so nothing after the phase starts before the whole
  phase has finished;
- ``metadata["phases"][phase_id]`` keeps the phase (goal, tools, max_steps), its sub-step ids and
  its output step, so a graph can show the phase collapsed and an expanded plan says where each
  step came from.

Pure data: the planner call, approval and execution of the new version live above this layer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from forethought.plan.model import Phase, Plan, Step

PHASE_SEPARATOR = "__"


class PhaseExpansionError(ValueError):
    """A sub-plan that cannot be spliced in; the message names the phase and the fix."""


def phase_steps(plan: Plan) -> tuple[Step, ...]:
    """The plan's steps that are phases not yet expanded, in plan order."""
    return tuple(s for s in plan.steps if s.phase is not None)


def sub_step_id(phase_id: str, step_id: str) -> str:
    return f"{phase_id}{PHASE_SEPARATOR}{step_id}"


def final_step_ids(plan: Plan) -> tuple[str, ...]:
    """Steps no other step depends on, in plan order (the last one is the plan's output)."""
    depended = set(plan.dependents_map())
    return tuple(s.id for s in plan.steps if s.id not in depended)


def phase_problems(phase_id: str, phase: Phase, sub_plan: Plan) -> list[str]:
    """Why ``sub_plan`` may not stand for the phase (besides the ordinary plan validation)."""
    out: list[str] = []
    if not sub_plan.steps:
        out.append(f"phase {phase_id!r}: the sub-plan has no steps")
    if len(sub_plan.steps) > phase.max_steps:
        out.append(
            f"phase {phase_id!r}: the sub-plan has {len(sub_plan.steps)} steps, more than its "
            f"max_steps {phase.max_steps}; plan fewer steps or raise max_steps"
        )
    allowed = set(phase.tools)
    for s in sub_plan.steps:
        if s.phase is not None:
            out.append(f"phase {phase_id!r}: step {s.id!r} is itself a phase; phases do not nest")
        elif s.tool is not None and s.tool not in allowed:
            out.append(
                f"phase {phase_id!r}: step {s.id!r} calls {s.tool!r}, not one of the phase's tools "
                f"({', '.join(phase.tools)})"
            )
    if sub_plan.rollback:
        out.append(f"phase {phase_id!r}: a sub-plan may not have rollback steps; put them in the top plan")
    return out


def _rename_refs(value: Any, renames: Mapping[str, str]) -> Any:
    """``value`` with ``${old...}`` references pointing at ``renames[old]`` (escapes ``$${`` kept)."""
    if not renames:
        return value
    pattern = re.compile(
        r"(?<!\$)\$\{("
        + "|".join(re.escape(k) for k in sorted(renames, key=len, reverse=True))
        + r")(?=[.\[}])"
    )

    def walk(v: Any) -> Any:
        if isinstance(v, str):
            return pattern.sub(lambda m: "${" + renames[m.group(1)], v) if "${" in v else v
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x) for x in v]
        return v

    return walk(value)


def splice_phase(plan: Plan, phase_id: str, sub_plan: Plan) -> Plan:
    """The next version of ``plan`` with phase ``phase_id`` replaced by ``sub_plan``'s steps.

    Raises PhaseExpansionError when the step is no phase or the sub-plan breaks the phase's limits.
    """
    try:
        phase_step = plan.step(phase_id)
    except KeyError:
        raise PhaseExpansionError(f"no step {phase_id!r} in plan v{plan.version}") from None
    phase = phase_step.phase
    if phase is None:
        raise PhaseExpansionError(f"step {phase_id!r} is not a phase (or was already expanded)")
    problems = phase_problems(phase_id, phase, sub_plan)
    if problems:
        raise PhaseExpansionError("; ".join(problems))
    inner = {s.id: sub_step_id(phase_id, s.id) for s in sub_plan.steps}
    taken = {s.id for s in plan.steps} - {phase_id}
    clash = sorted(set(inner.values()) & taken)
    if clash:
        raise PhaseExpansionError(f"phase {phase_id!r}: sub-step ids {clash} are already used in the plan")
    finals = [inner[i] for i in final_step_ids(sub_plan)]
    output = finals[-1]
    sub_steps: list[Step] = []
    for s in sub_plan.steps:
        data = s.model_dump(mode="json", by_alias=True, exclude_defaults=True)
        data["id"] = inner[s.id]
        data["args"] = _rename_refs(s.args, inner)
        own = [inner[d] for d in s.depends_on]
        if not s.all_dependencies():
            own = [*phase_step.depends_on, *own]
        data["depends_on"] = own
        if s.compensate is not None:
            data["compensate"] = {"tool": s.compensate.tool, "args": _rename_refs(s.compensate.args, inner)}
        sub_steps.append(Step.model_validate(data))
    after_phase = {phase_id: output}
    steps: list[Step] = []
    for s in plan.steps:
        if s.id == phase_id:
            steps.extend(sub_steps)
            continue
        if phase_id not in s.all_dependencies():
            steps.append(s)
            continue
        deps: list[str] = []
        for d in s.depends_on:
            deps.extend(finals if d == phase_id else [d])
        if phase_id not in s.depends_on:
            # Referenced only: the reference names the output step; the other finals still gate it.
            deps.extend(f for f in finals if f != output)
        steps.append(
            s.model_copy(
                update={"depends_on": tuple(dict.fromkeys(deps)), "args": _rename_refs(s.args, after_phase)}
            )
        )
    phases = dict(plan.metadata.get("phases", {}))
    phases[phase_id] = {
        **phase.model_dump(mode="json"),
        "steps": list(inner.values()),
        "output": output,
        "description": phase_step.description,
    }
    confidence = sub_plan.metadata.get("confidence")
    if isinstance(confidence, (int, float)) and not isinstance(confidence, bool):
        # The planner's own confidence in this sub-plan: a policy that approves plans only when
        # the planner was sure looks at it (the top plan's confidence says nothing about it).
        phases[phase_id]["confidence"] = confidence
    # Validated afresh (model_copy would not): the spliced plan is a plan like any other.
    return Plan.model_validate(
        {
            **plan.to_data(),
            "steps": steps,
            "version": plan.version + 1,
            "parent_version": plan.version,
            "metadata": {**plan.metadata, "phases": phases},
        }
    )


def collapse_phases(plan: Plan) -> Plan:
    """``plan`` with each expanded phase's sub-steps folded back into one phase step (for display).

    Dependencies on a sub-step become dependencies on its phase; the result is for graphs and
    review screens, not for running.
    """
    info = plan.metadata.get("phases", {})
    owner = phase_of(plan)
    if not owner:
        return plan
    steps: list[Step] = []
    placed: set[str] = set()
    for s in plan.steps:
        pid = owner.get(s.id)
        if pid is None:
            deps = tuple(dict.fromkeys(owner.get(d, d) for d in s.all_dependencies()))
            steps.append(s.model_copy(update={"depends_on": deps, "args": {}}))
            continue
        if pid in placed:
            continue
        placed.add(pid)
        members = set(info[pid]["steps"])
        outside = [d for m in info[pid]["steps"] for d in plan.step(m).all_dependencies() if d not in members]
        deps = tuple(dict.fromkeys(owner.get(d, d) for d in outside))
        phase = Phase.model_validate({k: info[pid][k] for k in ("goal", "tools", "max_steps")})
        steps.append(Step(id=pid, description=info[pid].get("description", ""), phase=phase, depends_on=deps))
    metadata = {k: v for k, v in plan.metadata.items() if k != "phases"}
    return Plan.model_validate({**plan.to_data(), "steps": steps, "metadata": metadata})


def phase_of(plan: Plan) -> dict[str, str]:
    """Step id → id of the phase it was planned for (only the expanded phases' sub-steps)."""
    out: dict[str, str] = {}
    for pid, info in plan.metadata.get("phases", {}).items():
        for sid in info.get("steps", ()):
            out[sid] = pid
    return out


def recorded_sub_plan(plan: Plan, phase_id: str) -> Plan:
    """The sub-plan that was spliced into ``plan`` for phase ``phase_id`` (ids unprefixed).

    Splicing it again into the version before ``plan`` gives ``plan`` back: a replay serves a
    phase's planning from the record this way, and a review can show the sub-plan by itself.
    """
    info = plan.metadata.get("phases", {}).get(phase_id)
    if info is None:
        raise PhaseExpansionError(f"phase {phase_id!r} is not expanded in plan v{plan.version}")
    prefix = phase_id + PHASE_SEPARATOR
    back = {sid: sid[len(prefix) :] for sid in info.get("steps", ())}
    steps: list[dict[str, Any]] = []
    for sid in back:
        s = plan.step(sid)
        data = s.model_dump(mode="json", by_alias=True, exclude_defaults=True)
        data["id"] = back[sid]
        data["args"] = _rename_refs(s.args, back)
        # Dependencies outside the phase were inherited from the phase step when spliced.
        data["depends_on"] = [back[d] for d in s.depends_on if d in back]
        if s.compensate is not None:
            data["compensate"] = {"tool": s.compensate.tool, "args": _rename_refs(s.compensate.args, back)}
        steps.append(data)
    metadata = {"confidence": info["confidence"]} if "confidence" in info else {}
    return Plan.model_validate({"goal": info["goal"], "steps": steps, "metadata": metadata})
