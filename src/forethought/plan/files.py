"""Plan files: read YAML/JSON safely, import seed-style plans, dump back, map problems to lines.

Reading never executes anything: YAML goes through the safe loader only (a ``!!python/object``
tag is an error, not an object), and sizes are bounded before parsing. Line numbers are computed
lazily — only when there is a problem to report — so the happy path stays fast on large plans.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from forethought.errors import UserError
from forethought.plan import references as refs
from forethought.plan._yaml import check_nesting, load_yaml, safe_loader, too_many_digits
from forethought.plan.model import Plan
from forethought.plan.tool_spec import ToolSpec
from forethought.plan.validation import Problem, Validated, check_plan, problems_from_validation_error

MAX_PLAN_BYTES = 64 * 1024 * 1024
Format = Literal["yaml", "json"]


class PlanFileError(UserError):
    """A plan file that cannot be read or parsed at all; ``problems`` when it parsed but is invalid."""

    def __init__(self, message: str, problems: list[Problem] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or []


@dataclass
class LoadedPlan:
    """The result of linting a file: the plan if it is structurally valid, and every problem."""

    path: Path
    text: str
    data: Any
    plan: Plan | None
    problems: list[Problem]
    validated: Validated | None = None  # the plan, checked valid against the given tools


def read_text(path: Path) -> str:
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise PlanFileError(f"{path}: no such plan file; check the path") from None
    except OSError as exc:
        raise PlanFileError(f"{path}: cannot read: {exc.strerror}") from None
    if path.is_dir():
        raise PlanFileError(f"{path}: is a directory; give a .yaml or .json plan file")
    if size > MAX_PLAN_BYTES:
        raise PlanFileError(
            f"{path}: plan file is {size:,} bytes, over the limit of {MAX_PLAN_BYTES:,} bytes; split the plan"
        )
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise PlanFileError(f"{path}: not UTF-8 text (byte {exc.start}); save the plan as UTF-8") from None
    except OSError as exc:
        raise PlanFileError(f"{path}: cannot read: {exc.strerror}") from None


def detect_format(path: Path, text: str) -> Format:
    if path.suffix.lower() == ".json":
        return "json"
    if path.suffix.lower() in (".yaml", ".yml"):
        return "yaml"
    return "json" if text.lstrip()[:1] in ("{", "[") else "yaml"


def parse_text(text: str, fmt: Format, source: str) -> Any:
    """Parse plan text into JSON-compatible data; failures are one-line PlanFileErrors.

    YAML is read with YAML 1.2 core-schema semantics (``yes`` is a string, ``012`` is 12,
    duplicate keys are errors) by a compiled parser that constructs plain data only; tags are
    refused outright, so ``!!python/object`` can never become an object. JSON refuses duplicate
    keys too, with the line and column of the second one.
    """
    if fmt == "json":
        try:
            data = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_unique_keys)
        except json.JSONDecodeError as exc:
            raise PlanFileError(f"{source}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
        except _DuplicateKey as exc:
            key, where = _locate_duplicate(text) or (exc.key, "")
            raise PlanFileError(
                f"{source}{where}: invalid JSON: duplicate key {key!r} in an object "
                "(JSON would silently keep the last one); keep one of them"
            ) from None
        except _NonFinite as exc:
            raise PlanFileError(
                f"{source}: invalid JSON: {exc} is not a number plans accept; use a finite number or a string"
            ) from None
        except RecursionError:
            raise PlanFileError(f"{source}: JSON nested too deeply") from None
        except ValueError as exc:  # after the ValueError subclasses above
            if "integer string conversion" in str(exc):
                raise PlanFileError(too_many_digits(source)) from None
            raise
        check_nesting(data, source, PlanFileError)
        return data  # JSON yields only JSON types, and non-finite numbers were refused above
    return load_yaml(text, source, error=PlanFileError)


class _NonFinite(ValueError):
    pass


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # Last-wins would let a reviewer read one value while another runs (YAML refuses it too).
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return data


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+')


def _locate_duplicate(text: str) -> tuple[str, str] | None:
    """The first duplicate key of valid JSON ``text`` in file order, and ``:line:col`` of it.

    Only run once a duplicate is known, so the happy path pays nothing for locations.
    """
    frames: list[set[str] | None] = []  # a set of seen keys per open object, None per array
    expect_key = False
    for m in _JSON_TOKEN.finditer(text):
        tok = m.group()
        if tok in ("{", "["):
            frames.append(set() if tok == "{" else None)
            expect_key = tok == "{"
        elif tok in ("}", "]"):
            frames.pop()
            expect_key = False
        elif tok == ",":
            expect_key = bool(frames) and frames[-1] is not None
        elif tok == ":":
            expect_key = False
        elif expect_key and tok.startswith('"'):
            keys = frames[-1]
            key = json.loads(tok)
            if keys is not None:
                if key in keys:
                    line = text.count("\n", 0, m.start()) + 1
                    col = m.start() - text.rfind("\n", 0, m.start())
                    return key, f":{line}:{col}"
                keys.add(key)
    return None


def _reject_constant(name: str) -> Any:
    raise _NonFinite(name)


# ----------------------------------------------------------------------------- seed import

_SEED_STEP_KEYS = {"action", "params", "input", "criteria", "success_criteria"}
_NO_TOOL = ("none", None)


def is_foreign(data: Any) -> bool:
    """Seed-style plans: a bare list of steps, a ``tasks`` list (seed 003), or steps using
    `action`/`params`/`input`/`criteria`."""
    if isinstance(data, list):
        return True
    if not isinstance(data, Mapping):
        return False
    if "steps" not in data and isinstance(data.get("tasks"), list):
        return True
    steps = data.get("steps")
    groups = [steps, data.get("rollback")]
    return any(
        isinstance(g, list) and any(isinstance(s, Mapping) and _SEED_STEP_KEYS & s.keys() for s in g)
        for g in groups
    )


def _import_step(raw: Any, fallback_id: str, tools: Mapping[str, ToolSpec] | None) -> Any:
    if not isinstance(raw, Mapping):
        return raw
    step = dict(raw)
    if "action" in step and "tool" not in step:
        step["tool"] = step.pop("action")
    if "params" in step and "args" not in step:
        step["args"] = step.pop("params")
    # Seed 001 says `tool: "none"`: no tool call, the executor only notes the step with its
    # resolved input. Seed 003's tasks name no tool at all: the executor model does the task
    # with the tools it has. Both are model (agent) steps; only the first is denied tools.
    tool_less = step.get("tool") in _NO_TOOL and "agent" not in step and "phase" not in step
    explicit_none = tool_less and "tool" in step
    if "input" in step and "args" not in step:
        value = step.pop("input")
        if not (tool_less and value in ("", None)):
            param = "input" if tool_less else _input_param(step.get("tool"), tools)
            step["args"] = {param: value}
    criteria = step.pop("criteria", None) or step.pop("success_criteria", None)
    if criteria and "check" not in step:
        # Seed 003: the planner evaluates each result against the task's success criteria.
        step["check"] = {"critic": str(criteria)}
    if tool_less:
        step.pop("tool", None)
        step["agent"] = str(step.get("description") or "note this step")
        if explicit_none:
            # The input (with `{step_N_result}` references resolved) is what the model sees;
            # an empty tool list keeps the step from calling anything, as the seed's executor.
            args = step.get("args")
            if args is None or isinstance(args, dict):  # anything else: the validator names it
                step["args"] = {**(args or {}), "tools": []}
    step.setdefault("id", fallback_id)
    if "args" in step:
        step["args"] = refs.import_foreign(step["args"])
    return step


def _input_param(tool_name: Any, tools: Mapping[str, ToolSpec] | None) -> str:
    # Seed 001 passes one string `input`; route it to the tool's only required parameter if any.
    spec = tools.get(tool_name) if tools and isinstance(tool_name, str) else None
    if spec is not None:
        required = spec.input_schema.get("required") or list(spec.input_schema.get("properties", {}))
        if len(required) == 1:
            return str(required[0])
    return "input"


def import_foreign(data: Any, tools: Mapping[str, ToolSpec] | None = None) -> Any:
    """Rewrite a seed-style plan into native data that keeps the seed's meaning.

    Ids become strings and `{step_N_result}` / `$N` references become `${N}`. What the seeds'
    executors do implicitly becomes explicit, so the plan a reviewer approves says it:

    - seed 000 runs its `rollback` list when any step fails: every step that does not say
      otherwise gets ``on_failure: rollback`` when the plan has a rollback list;
    - seeds 001 and 003 run their steps one after another in list order: a list in which no
      step declares `depends_on` becomes a chain (a plan that declares dependencies keeps them);
    - seed 003 replans when a task misses its success criteria: such tasks get
      ``on_failure: replan`` and their criteria become a critic check.
    """
    if isinstance(data, list):
        data = {"goal": "(imported plan)", "steps": data}
    out = dict(data)
    if "steps" not in out and isinstance(out.get("tasks"), list):
        out["steps"] = out.pop("tasks")
    raw_steps = out.get("steps")
    if isinstance(raw_steps, list):
        steps = [_import_step(s, f"s{i + 1}", tools) for i, s in enumerate(raw_steps)]
        if all(isinstance(s, dict) and "depends_on" not in s for s in steps):
            for before, s in pairwise(steps):
                s["depends_on"] = [before["id"]]
        rollback = out.get("rollback")
        for s in steps:
            if not isinstance(s, dict) or "on_failure" in s:
                continue
            if isinstance(rollback, list) and rollback:
                s["on_failure"] = "rollback"
            elif isinstance(s.get("check"), dict) and s["check"].get("critic"):
                s["on_failure"] = "replan"
        out["steps"] = steps
    if isinstance(out.get("rollback"), list):
        out["rollback"] = [_import_step(s, f"rollback_{i + 1}", tools) for i, s in enumerate(out["rollback"])]
    return out


# ----------------------------------------------------------------------------- lines


def line_index(text: str, fmt: Format) -> dict[tuple[Any, ...], int]:
    """Map data paths (``("steps", 3, "args", "x")``) to 1-based lines; empty if unavailable."""
    import yaml  # only when there is a problem to place, or a YAML file

    try:
        root = yaml.compose(text, Loader=safe_loader())
    except (yaml.YAMLError, RecursionError):
        return {}
    index: dict[tuple[Any, ...], int] = {}
    stack: list[tuple[yaml.Node, tuple[Any, ...]]] = [(root, ())] if root is not None else []
    seen: set[int] = set()  # an alias shares its node: walk each node once (no cycles, no bombs)
    while stack:
        node, path = stack.pop()
        index.setdefault(path, node.start_mark.line + 1)
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                sub = (*path, key.value)
                index[sub] = key.start_mark.line + 1
                stack.append((value, sub))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                stack.append((item, (*path, i)))
    return index


def _attach_lines(problems: list[Problem], data: Any, text: str, fmt: Format, source: str) -> list[Problem]:
    index = line_index(text, fmt)
    positions: dict[tuple[str, str], int] = {}
    if isinstance(data, Mapping):
        for group in ("steps", "rollback"):
            items = data.get(group)
            if isinstance(items, list):
                for i, s in enumerate(items):
                    if isinstance(s, Mapping) and "id" in s:
                        positions.setdefault((group, str(s["id"])), i)
    out = []
    for p in problems:
        path: tuple[Any, ...] = p.data_path
        if path[:1] == ("steps",) and isinstance(data, list):
            path = path[1:]  # a seed-style plan is a bare list of steps
        elif path[:1] == ("steps",) and isinstance(data, Mapping) and "steps" not in data:
            path = ("tasks", *path[1:])  # seed 003 calls them tasks
        if not path and p.step_id is not None:
            group = "rollback" if p.in_rollback else "steps"
            if (group, p.step_id) in positions:
                path = (group, positions[(group, p.step_id)], *p.field_parts())
        line = None
        while path and line is None:
            line = index.get(path)
            path = path[:-1]
        out.append(p.with_location(file=source, line=line))
    # Report in file order; problems without a line keep their relative order at the end.
    return sorted(out, key=lambda p: p.line if p.line is not None else 1 << 62)


# ----------------------------------------------------------------------------- public API


def check_data(data: Any, tools: Mapping[str, ToolSpec] | None = None) -> tuple[Plan | None, list[Problem]]:
    """Structural then semantic validation of plan data; never raises on arbitrary JSON input."""
    plan, problems, _ = _check_data(data, tools)
    return plan, problems


def _check_data(
    data: Any, tools: Mapping[str, ToolSpec] | None
) -> tuple[Plan | None, list[Problem], Validated | None]:
    if not isinstance(data, (Mapping, list)):
        kind = "empty" if data is None else type(data).__name__
        problem = Problem("not_a_mapping", f"a plan must be a mapping with `goal` and `steps` (got {kind})")
        return None, [problem], None
    if is_foreign(data):
        data = import_foreign(data, tools)
    try:
        plan = Plan.model_validate(data)
    except ValidationError as exc:
        return None, problems_from_validation_error(exc, data), None
    problems, validated = check_plan(plan, tools)
    return plan, problems, validated


def lint_file(path: str | Path, tools: Mapping[str, ToolSpec] | None = None) -> LoadedPlan:
    """Read, parse and validate a plan file, collecting every problem with file and line."""
    p = Path(path)
    text = read_text(p)
    fmt = detect_format(p, text)
    data = parse_text(text, fmt, str(p))
    plan, problems, validated = _check_data(data, tools)
    if problems:
        problems = _attach_lines(problems, data, text, fmt, str(p))
    return LoadedPlan(p, text, data, plan, problems, validated)


def load_plan(path: str | Path, tools: Mapping[str, ToolSpec] | None = None) -> Plan:
    """Load a valid plan or raise PlanFileError whose message is the first problem (all attached)."""
    return load_validated_plan(path, tools).plan


def load_validated_plan(path: str | Path, tools: Mapping[str, ToolSpec] | None = None) -> Validated:
    """``load_plan``, returning the plan with its receipt, so ``Agent.run`` does not check it again."""
    loaded = lint_file(path, tools)
    if loaded.problems or loaded.validated is None:
        first = str(loaded.problems[0]) if loaded.problems else f"{path}: invalid plan"
        more = len(loaded.problems) - 1
        suffix = f" (and {more} more; run `forethought lint {path}`)" if more > 0 else ""
        raise PlanFileError(first + suffix, loaded.problems)
    return loaded.validated


def dump_plan(plan: Plan, fmt: Format = "yaml") -> str:
    """Plan → file text with defaults omitted; ``load(dump(plan)) == plan``."""
    data = plan.to_data()
    if fmt == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    import yaml_rs

    return str(yaml_rs.dumps(data)).removeprefix("---\n")


def write_plan(plan: Plan, path: str | Path) -> None:
    """Write atomically (temp file + rename) so a crash never leaves half a plan behind."""
    p = Path(path)
    fmt: Format = "json" if p.suffix.lower() == ".json" else "yaml"
    tmp = p.with_name(f".{p.name}.tmp")
    tmp.write_text(dump_plan(plan, fmt), encoding="utf-8")
    tmp.replace(p)
