"""The planner's prompt and the parsing of its answer.

The prompt is deliberately short and concrete: small models lose the thread in long system
prompts. Tools are listed as signatures (``read_file(path: string) -> string``) rather than full
JSON Schemas — the schema constrains decoding anyway; the prompt only needs to help the model
choose. Examples (from plan memory, else a built-in one) show the exact output shape.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from forethought.plan.model import Plan
from forethought.planning.step_shape import PlanShape, renumbered, steps_json
from forethought.tools.base import ToolSpec

SYSTEM = (
    "You are a planner. Turn the user's goal into a short plan of tool calls, as JSON: "
    '{"steps": [{"id": "s1", "tool": NAME, "args": {...}}, ...]}. '
    "Use only the listed tools and their argument names. Step ids are s1, s2, ... in order. "
    'To use the output of an earlier step, write the whole argument as "${s1}" (or "${s1.field}" '
    "for a field of it). Use as few steps as the goal needs; never repeat a step. "
    'Add "confidence": a number from 0 to 1, how sure you are the plan does the whole goal.'
)
# The same instructions for the compact step shape (``step_shape``): a step is one key, the
# tool's name, and its id is its position. Hosted models get this one.
SYSTEM_COMPACT = (
    "You are a planner. Turn the user's goal into a short plan of tool calls, as JSON: "
    '{"steps": [{NAME: {...args}}, ...]}: each step is an object with one key, the tool\'s '
    "name, holding its arguments. Use only the listed tools and their argument names. Steps are "
    "numbered by position: the first is s1, the second s2, and so on. "
    'To use the output of an earlier step, write the whole argument as "${s1}" (or "${s1.field}" '
    "for a field of it). Use as few steps as the goal needs; never repeat a step. "
    'Add "confidence": a number from 0 to 1, how sure you are the plan does the whole goal.'
)


def system_prompt(shape: PlanShape) -> str:
    """The planner's instructions for plans written in ``shape``."""
    return SYSTEM_COMPACT if shape == "compact" else SYSTEM


def _type_text(schema: Mapping[str, Any] | None) -> str:
    if not schema:
        return "any"
    if "enum" in schema:
        return " | ".join(json.dumps(v) for v in schema["enum"])
    t = schema.get("type")
    if t == "array":
        return f"list[{_type_text(schema.get('items'))}]"
    if t == "object" and isinstance(schema.get("properties"), Mapping):
        inner = ", ".join(f"{k}: {_type_text(v)}" for k, v in schema["properties"].items())
        return "{" + inner + "}"
    if isinstance(t, list):
        return " | ".join(map(str, t))
    if "anyOf" in schema:
        return " | ".join(_type_text(s) for s in schema["anyOf"])
    return str(t or "any")


def tool_line(spec: ToolSpec) -> str:
    props = spec.input_schema.get("properties") or {}
    required = set(spec.input_schema.get("required") or ())
    params = ", ".join(
        f"{name}{'' if name in required else '?'}: {_type_text(schema)}" for name, schema in props.items()
    )
    desc = " ".join(spec.description.split())[:200]
    effect = "" if spec.effect == "read_only" else f" [{spec.effect}]"
    return f"- {spec.name}({params}) -> {_type_text(spec.output_schema)}{effect}: {desc}"


def render_tools(tools: Mapping[str, ToolSpec]) -> str:
    return "\n".join(tool_line(spec) for spec in tools.values())


def plan_json_text(plan: Plan, shape: PlanShape = "classic") -> str:
    """A plan as the planner is asked to write it: its tool steps, in ``shape`` (compact steps
    are numbered by position, so their ids and references are renumbered to match)."""
    steps = [{"id": s.id, "tool": s.tool, "args": s.args} for s in plan.steps if s.tool]
    if shape == "compact":
        steps = renumbered(steps)
    return steps_json(steps, shape)


def plan_example_text(plan: Plan, shape: PlanShape = "classic") -> str:
    return f"Goal: {plan.goal}\n" + plan_json_text(plan, shape)


def user_prompt(
    goal: str,
    tools: Mapping[str, ToolSpec],
    *,
    examples: Sequence[Plan] = (),
    literals: Iterable[str] = (),
    constraints: Sequence[str] = (),
    budget: str | None = None,
    with_tools: bool = True,
) -> str:
    parts = [f"Tools:\n{render_tools(tools)}"] if with_tools else []
    if examples:
        parts.append("Examples of good plans:\n" + "\n\n".join(plan_example_text(p) for p in examples))
    if constraints:
        parts.append("Constraints:\n" + "\n".join(f"- {c}" for c in constraints))
    if budget:
        parts.append(f"Budget: {budget}")
    lits = list(literals)
    if lits:
        parts.append("Values from the goal: " + ", ".join(json.dumps(v) for v in lits))
    parts.append(f"Goal: {goal}\nAnswer with the JSON plan only.")
    return "\n\n".join(parts)


def repair_prompt(problems: Sequence[str]) -> str:
    listed = "\n".join(f"- {p}" for p in problems[:20])
    return f"That plan has problems:\n{listed}\nReturn the whole corrected plan as JSON only."


def coverage_repair_prompt(findings: Sequence[str]) -> str:
    listed = "\n".join(f"- {f}" for f in findings[:20])
    return (
        f"That plan does not do the whole goal:\n{listed}\n"
        "Use every file, value and output the goal names. Return the whole corrected plan as JSON only."
    )


def replan_prompt(
    goal: str,
    plan: Plan,
    completed: Mapping[str, str],
    failure: str,
    tools: Mapping[str, ToolSpec],
    *,
    shape: PlanShape = "classic",
    new_ids: Sequence[str] = (),
) -> str:
    """The replanner's question; ``new_ids`` are the ids compact new steps get by position."""
    done = (
        "\n".join(
            f"- {sid} ({plan.step(sid).tool or 'agent'}) succeeded, output: {text}"
            for sid, text in completed.items()
        )
        or "- nothing yet"
    )
    current = json.dumps(
        {"steps": [s.model_dump(mode="json", exclude_defaults=True) for s in plan.steps]},
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return (
        f"Tools:\n{render_tools(tools)}\n\nGoal: {goal}\n\nCurrent plan (version "
        f"{plan.version}):\n{current}\n\nCompleted steps (kept, never re-run; you may "
        f"reference their outputs):\n{done}\n\nWhat went wrong: {failure}\n\n"
        + _new_steps_request(shape, new_ids)
    )


def _new_steps_request(shape: PlanShape, new_ids: Sequence[str]) -> str:
    if shape == "classic":
        return 'Write only the NEW steps that finish the goal from here, as JSON {"steps": [...]}.'
    first = list(new_ids[:2])
    numbered = ", ".join(first) + (", ..." if len(new_ids) > 2 else "")
    example = "${" + first[0] + "}" if first else "${s1}"
    return (
        'Write only the NEW steps that finish the goal from here, as JSON {"steps": [{NAME: '
        f"{{...args}}}}, ...]}}, one key per step, the tool's name. The new steps are numbered "
        f'{numbered} in order: write "{example}" for the output of the first new step.'
    )


_FENCE_RE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def extract_json(text: str) -> Any:
    """The JSON value in a model answer, tolerating code fences and prose around it."""
    text = text.strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    fenced = _FENCE_RE.search(text)
    if fenced:
        try:
            return json.loads(fenced.group(1))
        except json.JSONDecodeError:
            pass
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    if start >= 0:
        try:
            value, _ = json.JSONDecoder().raw_decode(text[start:])
            return value
        except json.JSONDecodeError:
            pass
    raise ValueError("the answer is not JSON")


def summarize_output(value: Any, limit: int = 300) -> str:
    """A bounded text form of a step output, so replanning fits a small context."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 15] + f"… ({len(text)} chars)"
