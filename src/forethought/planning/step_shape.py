"""The two shapes a model may write a plan step in, and the one normalisation both go through.

*classic* — ``{"id": "s1", "tool": "get_population", "args": {"city": "Paris"}}`` — is the plan
file's own step form. *compact* — ``{"get_population": {"city": "Paris"}}`` — is the same step
keyed by its tool's name, its id given by its position (``s1``, ``s2``, … or, on a replan, the
next ids after the plan's existing ones, as ``grammar.step_ids`` numbers them). In the schema the
id is a ``const`` and the tool a ``const`` among alternatives, so writing them spends output
tokens without choosing anything: about 23 bytes, ~6 tokens of a ~15-token step, paid in latency
(tokens / rate) and money on every hosted model. The compact shape's other keys are the step's
optional fields (``depends_on``, ``description``, … — every field of a step except the
action and its id).

A reply may use either shape, step by step: scripted replies in tests, recorded runs and
unconstrained models write the classic one. ``classic_steps`` turns every step of a reply into
the classic form (the one ``plan.files.check_data`` reads), so one parser serves both and a
plan's hash does not depend on the shape it was written in. The compact shape cannot be used with
a tool named like a step field (``id``, ``args``, ``depends_on``, …), where a step would read two
ways, nor with a tool name longer than 64 characters, which Anthropic refuses as a property key
(``^[a-zA-Z0-9_.-]{1,64}$``; tool names have those characters already): ``shape_for`` falls back
to classic for such a tool set.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from forethought.plan.model import Step
from forethought.plan.validation import Problem

PlanShape = Literal["classic", "compact"]

# A step object holding any of these is in the classic shape.
CLASSIC_MARKERS = frozenset({"id", "tool", "agent", "phase", "args"})
# Every step field: a compact step's sibling keys are these minus the markers, and a tool with
# one of these names cannot be written compactly.
STEP_FIELDS = frozenset(Step.model_fields)
COMPACT_SIBLINGS = STEP_FIELDS - CLASSIC_MARKERS


# The longest property key every provider takes (Anthropic's limit).
MAX_KEY = 64


def shape_for(tool_names: Iterable[str], wanted: PlanShape) -> PlanShape:
    """``wanted``, unless it is compact and a tool's name cannot be a compact step's key (a step
    field's name, or longer than ``MAX_KEY``)."""
    names = set(tool_names)
    if wanted == "compact" and STEP_FIELDS.isdisjoint(names) and all(len(n) <= MAX_KEY for n in names):
        return "compact"
    return "classic"


class PositionalIds:
    """The id of the step at each position of a reply: ``s1, s2, …`` skipping ``taken``."""

    def __init__(self, taken: Iterable[str] = ()) -> None:
        self._taken = set(taken)
        self._ids: list[str] = []
        self._next = 1

    def __getitem__(self, position: int) -> str:
        while len(self._ids) <= position:
            candidate = f"s{self._next}"
            self._next += 1
            if candidate not in self._taken:
                self._ids.append(candidate)
        return self._ids[position]


def is_compact(raw: Any) -> bool:
    """Whether a step object of a reply is in the compact shape (no classic marker key)."""
    return isinstance(raw, dict) and CLASSIC_MARKERS.isdisjoint(raw)


def classic_step(raw: Any, position: int, ids: PositionalIds) -> tuple[Any, Problem | None]:
    """One step of a reply (0-based ``position``) in the classic shape, or the problem with it.

    A classic step (or anything that is not an object) comes back unchanged: the plan checks
    report what is wrong with it, as they do for plan files.
    """
    if not is_compact(raw):
        return raw, None
    step_id = ids[position]
    tools = [k for k in raw if k not in COMPACT_SIBLINGS]
    if not tools:
        keys = f" (it has only {', '.join(sorted(raw))})" if raw else ""
        return raw, Problem(
            "step_shape",
            f'names no tool{keys}; write each step as {{"TOOL_NAME": {{ARGUMENTS}}}}',
            step_id,
        )
    if len(tools) > 1:
        named = ", ".join(repr(t) for t in tools[:4])
        return raw, Problem(
            "step_shape",
            f"names {len(tools)} tools ({named}) in one object; write one tool call per step",
            step_id,
        )
    tool = tools[0]
    args = raw[tool]
    if not isinstance(args, dict):
        got = "null" if args is None else type(args).__name__
        return raw, Problem(
            "step_shape",
            f"the arguments of {tool!r} must be a JSON object of name: value (got {got})",
            step_id,
            ("args",),
        )
    siblings = {k: v for k, v in raw.items() if k != tool}
    return {"id": step_id, "tool": tool, "args": args, **siblings}, None


def classic_steps(steps: Sequence[Any], taken: Iterable[str] = ()) -> tuple[list[Any], list[Problem]]:
    """Every step of a reply in the classic shape, compact ones numbered by position after
    ``taken``; and a problem per malformed compact step."""
    ids = PositionalIds(taken)
    out: list[Any] = []
    problems: list[Problem] = []
    for position, raw in enumerate(steps):
        step, problem = classic_step(raw, position, ids)
        out.append(step)
        if problem is not None:
            problems.append(problem)
    return out, problems


def compact_steps(steps: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Classic step objects (ids already positional) written compactly: the inverse of
    ``classic_steps`` for steps without a classic-only field."""
    out = []
    for step in steps:
        siblings = {k: v for k, v in step.items() if k not in ("id", "tool", "args")}
        out.append({str(step["tool"]): dict(step.get("args") or {}), **siblings})
    return out


def steps_json(steps: Sequence[Mapping[str, Any]], shape: PlanShape) -> str:
    """``{"steps": [...]}`` of classic step objects in ``shape``, as compactly as JSON goes."""
    body = compact_steps(steps) if shape == "compact" else [dict(s) for s in steps]
    return json.dumps({"steps": body}, ensure_ascii=False, separators=(",", ":"))


def renumbered(steps: Sequence[Mapping[str, Any]], taken: Iterable[str] = ()) -> list[dict[str, Any]]:
    """Classic step objects with positional ids (after ``taken``), references and
    ``depends_on`` following: how a compact reply would number them."""
    ids = PositionalIds(taken)
    mapping = {str(s["id"]): ids[k] for k, s in enumerate(steps)}
    rewrite = ref_rewriter(mapping)
    out = []
    for step in steps:
        new = {**step, "id": mapping[str(step["id"])], "args": rewrite(step.get("args") or {})}
        if "depends_on" in step:
            new["depends_on"] = [mapping.get(str(d), d) for d in step["depends_on"]]
        out.append(new)
    return out


def ref_rewriter(mapping: Mapping[str, str]) -> Callable[[Any], Any]:
    """A function that renames the step ids of ``mapping`` in every reference of a JSON value
    (``${old…}`` → ``${new…}``); an escaped ``$${old}`` stays as written."""
    if not mapping:
        return lambda v: v
    pattern = re.compile(r"(?<!\$)\$\{(" + "|".join(map(re.escape, mapping)) + r")(?=[.\[}])")

    def rewrite(value: Any) -> Any:
        if isinstance(value, str):
            return pattern.sub(lambda m: "${" + mapping[m.group(1)], value)
        if isinstance(value, dict):
            return {k: rewrite(v) for k, v in value.items()}
        if isinstance(value, list):
            return [rewrite(v) for v in value]
        return value

    return rewrite
