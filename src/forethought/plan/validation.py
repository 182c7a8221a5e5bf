"""Static checks of a plan: every problem at once, each located by step id and field path.

An invalid plan never starts. The checks here are the ones that need no I/O: graph shape (ids,
dependencies, cycles), tool names, arguments against each tool's input schema, and the typed data
flow between steps (a reference into a field the producing tool's output schema does not have is
caught here, before anything runs). Schema walking lives in ``_schema``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from dataclasses import field as dataclass_field
from typing import Any

from pydantic import ValidationError

from forethought.plan import references as refs
from forethought.plan._schema import (
    Unsupported,
    compatible,
    compile_quick,
    fits,
    item_types,
    schema_at,
    types_of,
)
from forethought.plan.model import Plan, Step
from forethought.plan.secret_shapes import SecretDetector
from forethought.plan.tool_spec import ToolSpec

FieldPath = tuple[str | int, ...]
_LITERAL_HINT = (
    "holds what looks like a secret ({kind}); plans are stored and shown, so reference it "
    'instead: "${{env.NAME}}", read at call time (allow NAME with FORETHOUGHT_SECRETS=NAME)'
)
MAX_CYCLES_REPORTED = 20


@dataclass(frozen=True)
class Problem:
    """One located problem. ``str()`` is the one line a user sees."""

    code: str
    message: str
    step_id: str | None = None
    field: FieldPath = ()
    in_rollback: bool = False
    file: str | None = None
    line: int | None = None
    data_path: FieldPath = dataclass_field(default=(), compare=False)

    def field_parts(self) -> FieldPath:
        return self.field

    def field_text(self) -> str:
        return _format_field(self.field)

    def with_location(self, *, file: str | None, line: int | None) -> Problem:
        return replace(self, file=file, line=line)

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = f"{self.file}:{self.line}: " if self.line else f"{self.file}: "
        subject = ""
        if self.step_id is not None:
            kind = "rollback step" if self.in_rollback else "step"
            subject = f"{kind} {self.step_id!r}"
            if self.field:
                subject += f" {self.field_text()}"
            subject += ": "
        elif self.field:
            subject = f"{self.field_text()}: "
        return f"{where}{subject}{self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "step_id": self.step_id,
            "field": self.field_text() or None,
            "file": self.file,
            "line": self.line,
            "text": str(self),
        }


def _format_field(path: Iterable[str | int]) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + part
    return out


# ------------------------------------------------------------------ structural (pydantic) errors


def problems_from_validation_error(exc: ValidationError, data: Any) -> list[Problem]:
    """Turn pydantic's errors into located problems (step id instead of list index when known)."""
    problems: list[Problem] = []
    for err in exc.errors(include_url=False):
        loc = tuple(err["loc"])
        step_id: str | None = None
        in_rollback = False
        rest: FieldPath = loc
        if len(loc) >= 2 and loc[0] in ("steps", "rollback") and isinstance(loc[1], int):
            in_rollback = loc[0] == "rollback"
            items = data.get(loc[0]) if isinstance(data, Mapping) else None
            raw = items[loc[1]] if isinstance(items, list) and loc[1] < len(items) else None
            if isinstance(raw, Mapping) and isinstance(raw.get("id"), (str, int)):
                step_id = str(raw["id"])
                rest = tuple(loc[2:])
            else:
                rest = (f"{loc[0]}[{loc[1]}]", *loc[2:])
        rest = tuple(p for p in rest if not (isinstance(p, str) and p.startswith("function-")))
        problems.append(
            Problem(
                code="structure",
                message=_pydantic_message(err),
                step_id=step_id,
                field=tuple(str(p) if not isinstance(p, int) else p for p in rest),
                in_rollback=in_rollback,
                data_path=loc,
            )
        )
    return problems


def _pydantic_message(err: Any) -> str:
    kind = err["type"]
    if kind == "extra_forbidden":
        return "unknown field; remove it or check its spelling against `forethought schema`"
    if kind == "missing":
        return "required field is missing"
    if kind == "string_pattern_mismatch":
        return "invalid id: use letters, digits, `_` and `-` (at most 128 characters, no spaces or dots)"
    msg = str(err["msg"])
    msg = msg.removeprefix("Value error, ")
    got = err.get("input")
    if kind.endswith("_type") and not isinstance(got, (dict, list)):
        msg += f" (got {type(got).__name__} {str(got)[:40]!r})"
    return msg


# ------------------------------------------------------------------ semantic checks


class _Placeholder:
    """Stands in for a referenced value during schema checks: unknown until run time."""

    __slots__ = ("ref",)

    def __init__(self, ref: str) -> None:
        self.ref = ref


def _with_placeholders(value: Any) -> Any:
    if isinstance(value, str):
        if "${" in value and (refs.find_references(value) or refs.find_env_references(value)):
            return _Placeholder(value)
        return value
    if isinstance(value, dict):
        return {k: _with_placeholders(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_with_placeholders(v) for v in value]
    return value


class _Validators:
    """Compiled JSON Schema validators, one per tool, built on first use."""

    def __init__(self) -> None:
        self._cache: dict[str, Any] = {}
        self._quick: dict[str, Any] = {}

    def quick(self, spec: ToolSpec) -> Any:
        """A fast validity predicate for the tool's input schema, or None if unsupported."""
        if spec.name not in self._quick:
            try:
                self._quick[spec.name] = compile_quick(spec.input_schema, spec.input_schema, _Placeholder)
            except (Unsupported, TypeError, AttributeError):
                self._quick[spec.name] = None
        return self._quick[spec.name]

    def get(self, spec: ToolSpec) -> Any:
        import jsonschema  # only when the fast path is unsure: keeps lint start-up light

        key = spec.name
        if key not in self._cache:
            schema = spec.input_schema
            try:
                cls = jsonschema.validators.validator_for(schema)
                cls.check_schema(schema)
                self._cache[key] = cls(schema)
            except jsonschema.SchemaError:
                self._cache[key] = None
        return self._cache[key]


@dataclass(frozen=True, eq=False)
class Validated:
    """A plan ``validate_plan`` found valid against ``tools`` — so the caller that checked it
    (``forethought exec``, which reports problems with file and line) can hand it on and the
    agent need not check it again. Plans are immutable: the finding holds for as long as it is
    asked about the same plan object and equal tool specs (``holds_for``)."""

    plan: Plan
    tools: Mapping[str, ToolSpec] | None

    def holds_for(self, plan: Plan, tools: Mapping[str, ToolSpec] | None) -> bool:
        return plan is self.plan and (None if tools is None else dict(tools)) == self.tools


def check_plan(
    plan: Plan, tools: Mapping[str, ToolSpec] | None = None
) -> tuple[list[Problem], Validated | None]:
    """``validate_plan``, and a ``Validated`` receipt when the plan has no problem."""
    problems = _Checker(plan, tools).run()
    receipt = None if problems else Validated(plan, None if tools is None else dict(tools))
    return problems, receipt


def validate_plan(
    plan: Plan | Mapping[str, Any], tools: Mapping[str, ToolSpec] | None = None
) -> list[Problem]:
    """Every problem in ``plan`` at once; ``tools`` enables tool/argument/data-flow checks.

    Accepts raw data too (then structural problems are returned) and never raises on any JSON.
    """
    if not isinstance(plan, Plan):
        try:
            plan = Plan.model_validate(plan)
        except ValidationError as exc:
            return problems_from_validation_error(exc, plan)
    return _Checker(plan, tools).run()


class _Checker:
    def __init__(self, plan: Plan, tools: Mapping[str, ToolSpec] | None) -> None:
        self.plan = plan
        self.tools = tools
        self.problems: list[Problem] = []
        self.main_ids = {s.id for s in plan.steps}
        self.by_id = plan.step_map()
        self.validators = _Validators()
        # Plans repeat the same (tool, path) pairs thousands of times; walk each schema once.
        self._path_cache: dict[tuple[str, tuple[str | int, ...]], tuple[Any, int | None]] = {}
        self._flow_cache: dict[tuple[str, tuple[str | int, ...], str, FieldPath], str | None] = {}
        self.secrets = SecretDetector()
        # Where each step object sits in the plan, so a problem of the second of two steps that
        # share an id is located at that step (its `id:` line, its `${nope}`), not the first.
        self._where: dict[int, tuple[str, int]] = {
            id(s): (group, i)
            for group, steps in (("steps", plan.steps), ("rollback", plan.rollback))
            for i, s in enumerate(steps)
        }

    def add(
        self, code: str, message: str, step: Step | None = None, field: FieldPath = (), rollback: bool = False
    ) -> None:
        where = self._where.get(id(step)) if step is not None else None
        data_path = (*where, *field) if where is not None else ()
        self.problems.append(
            Problem(code, message, step.id if step else None, field, rollback, data_path=data_path)
        )

    def run(self) -> list[Problem]:
        if not self.plan.steps:
            self.add("empty", "the plan has no steps", field=("steps",))
        for loc, kind in self.secrets.find(self.plan.metadata, ("metadata",)):
            self.add("literal_secret", _LITERAL_HINT.format(kind=kind), field=loc)
        self._check_ids()
        self._check_dependencies()
        self._check_cycles()
        for step in self.plan.steps:
            self._check_step(step, rollback=False)
        for i, step in enumerate(self.plan.rollback):
            self._check_step(step, rollback=True, rollback_index=i)
        return self.problems

    # -- graph shape ---------------------------------------------------------------------------

    def _check_ids(self) -> None:
        seen: dict[str, str] = {}
        for group, steps in (("steps", self.plan.steps), ("rollback", self.plan.rollback)):
            for s in steps:
                if s.id in seen:
                    self.add(
                        "duplicate_id",
                        f"duplicate step id (also used in {seen[s.id]}); give each step a unique id",
                        s,
                        ("id",),
                        group == "rollback",
                    )
                else:
                    seen[s.id] = group

    def _check_dependencies(self) -> None:
        for s in self.plan.steps:
            for i, dep in enumerate(s.depends_on):
                if dep not in self.main_ids:
                    self.add(
                        "unknown_dependency",
                        f"depends on unknown step {dep!r}{_suggest(dep, self.main_ids)}",
                        s,
                        ("depends_on", i),
                    )

    def _check_cycles(self) -> None:
        graph = {s.id: [d for d in s.all_dependencies() if d in self.main_ids] for s in self.plan.steps}
        reported: set[frozenset[str]] = set()
        color: dict[str, int] = {}  # 1 = on the DFS stack, 2 = done
        for root in graph:
            if root in color:
                continue
            stack: list[tuple[str, int]] = [(root, 0)]
            path: list[str] = [root]
            color[root] = 1
            while stack:
                node, idx = stack[-1]
                deps = graph[node]
                if idx < len(deps):
                    stack[-1] = (node, idx + 1)
                    nxt = deps[idx]
                    state = color.get(nxt)
                    if state is None:
                        color[nxt] = 1
                        stack.append((nxt, 0))
                        path.append(nxt)
                    elif state == 1:
                        cycle = path[path.index(nxt) :]
                        key = frozenset(cycle)
                        if key not in reported and len(reported) < MAX_CYCLES_REPORTED:
                            reported.add(key)
                            self._report_cycle(cycle)
                else:
                    color[node] = 2
                    stack.pop()
                    path.pop()

    def _report_cycle(self, cycle: list[str]) -> None:
        text = " → ".join([*cycle, cycle[0]])
        first = self.by_id[cycle[0]]
        nxt = cycle[1] if len(cycle) > 1 else cycle[0]
        via = "" if nxt in first.depends_on else f" (via a reference to ${{{nxt}}} in args)"
        self.add(
            "cycle",
            f"dependency cycle: {text}{via} — each step waits for the next; remove one of these dependencies",
            first,
            ("depends_on",),
        )

    # -- per step ------------------------------------------------------------------------------

    def _check_step(self, step: Step, *, rollback: bool, rollback_index: int = 0) -> None:
        if step.id == refs.ENV_ROOT:
            self.add(
                "reserved_id",
                f"step id {refs.ENV_ROOT!r} is reserved for ${{env.NAME}} references; rename the step",
                step,
                ("id",),
                rollback,
            )
        self._check_secrets(step, rollback)
        for text, loc in refs.find_malformed(step.args, ("args",)):
            self.add(
                "bad_reference",
                f"malformed reference {text!r}; write ${{step_id}} or ${{step_id.field[0]}}",
                step,
                loc,
                rollback,
            )
        allowed = self._referable(step, rollback, rollback_index)
        for ref in step.arg_references:
            self._check_reference(step, ref, allowed, rollback)
        if step.tool is not None:
            self._check_tool_call(
                step, step.tool, step.args, ("tool",), ("args",), rollback, step.arg_references
            )
        if step.phase is not None and self.tools is not None:
            for i, name in enumerate(step.phase.tools):
                if name not in self.tools:
                    self.add(
                        "unknown_tool",
                        f"phase tool {name!r} is not a known tool{_suggest(name, self.tools)}",
                        step,
                        ("phase", "tools", i),
                        rollback,
                    )
        if step.compensate is not None:
            self._check_compensate(step, rollback)
        if step.check is not None:
            self._check_check(step, rollback)

    def _check_secrets(self, step: Step, rollback: bool) -> None:
        """No literal secret in what is stored and shown; ``${env.NAME}`` only for allowed names.

        A valid plan is thereby one the redactor leaves unchanged: the plan that is stored,
        hashed and approved is the plan that runs.
        """
        texts: list[tuple[FieldPath, Any]] = [(("args",), step.args), (("description",), step.description)]
        if step.agent is not None:
            texts.append((("agent",), step.agent))
        if step.compensate is not None:
            texts.append((("compensate", "args"), step.compensate.args))
        if step.check is not None:
            texts.append((("check",), step.check.model_dump(mode="json", exclude_defaults=True)))
        # One screen over the step's text (``str`` of a container is one C call): most steps
        # hold neither a secret-looking anchor nor ``${env``, and then nothing is walked.
        blob = "\n".join(v if isinstance(v, str) else str(v) for _, v in texts)
        if self.secrets.might_contain(blob):
            for where, value in texts:
                for loc, kind in self.secrets.find(value, where):
                    self.add("literal_secret", _LITERAL_HINT.format(kind=kind), step, loc, rollback)
        if "${env" not in blob:
            return
        for where, value in texts:
            if where == ("description",):
                continue
            for ref in refs.find_env_references(value, where):
                if ref.name is None:
                    message = f"malformed reference {ref.text!r}; write ${{env.NAME}} with one variable name"
                else:
                    message = refs.env_problem(ref.name) or ""
                if message:
                    self.add("bad_env_reference", message, step, ref.location, rollback)

    def _referable(self, step: Step, rollback: bool, rollback_index: int) -> set[str]:
        if not rollback:
            return self.main_ids  # references become dependencies; cycles are reported above
        earlier = {s.id for s in self.plan.rollback[:rollback_index]}
        return self.main_ids | earlier

    def _check_reference(self, step: Step, ref: refs.Reference, allowed: set[str], rollback: bool) -> None:
        if ref.step_id not in allowed:
            later = {s.id for s in self.plan.rollback}
            why = (
                "is a later rollback step"
                if ref.step_id in later
                else f"is not a step{_suggest(ref.step_id, allowed)}"
            )
            self.add("unknown_reference", f"reference {ref.text()} {why}", step, ref.location, rollback)
            return
        self._check_ref_path(step, ref, rollback)

    def _producer_output_schema(self, step_id: str) -> dict[str, Any] | None:
        producer = self.by_id.get(step_id)
        if producer is None or producer.tool is None or self.tools is None:
            return None
        spec = self.tools.get(producer.tool)
        return spec.output_schema if spec is not None else None

    def _output_at(self, step_id: str, path: tuple[str | int, ...]) -> tuple[Any, int | None]:
        """(sub-schema, failing index) of ``path`` in a producer's output; (None, None) unknown."""
        producer = self.by_id.get(step_id)
        if producer is None or producer.tool is None:
            return None, None
        key = (producer.tool, path)
        if key not in self._path_cache:
            schema = self._producer_output_schema(step_id)
            self._path_cache[key] = schema_at(schema, path) if schema is not None else (None, None)
        return self._path_cache[key]

    def _check_ref_path(self, step: Step, ref: refs.Reference, rollback: bool) -> None:
        if not ref.path:
            return
        _, failed_at = self._output_at(ref.step_id, ref.path)
        if failed_at is not None:
            producer = self.by_id[ref.step_id]
            bad = refs.format_path(ref.path[: failed_at + 1])
            schema = self._producer_output_schema(ref.step_id) or {}
            self.add(
                "unknown_output_field",
                f"reference {ref.text()}: tool {producer.tool!r} output has no "
                f"{bad.lstrip('.')!r}{_output_fields_hint(schema, ref.path[:failed_at])}",
                step,
                ref.location,
                rollback,
            )

    def _check_tool_call(
        self,
        step: Step,
        tool: str,
        args: Mapping[str, Any],
        tool_field: FieldPath,
        args_field: FieldPath,
        rollback: bool,
        found: Iterable[refs.Reference] | None = None,
    ) -> None:
        if self.tools is None:
            return
        spec = self.tools.get(tool)
        if spec is None:
            self.add(
                "unknown_tool",
                f"unknown tool {tool!r}{_suggest(tool, self.tools)}; see `forethought tools`",
                step,
                tool_field,
                rollback,
            )
            return
        instance = _with_placeholders(dict(args))
        quick = self.validators.quick(spec)
        fast_ok = bool(quick(instance)) if quick is not None else False
        # The full validator (and jsonschema with it) only when the compiled predicate is unsure.
        validator = None if fast_ok else self.validators.get(spec)
        if validator is not None:
            errors = sorted(validator.iter_errors(instance), key=lambda e: [str(p) for p in e.absolute_path])
            for err in errors:
                if isinstance(err.instance, _Placeholder):
                    continue
                loc = (*args_field, *err.absolute_path)
                self.add("bad_argument", _schema_message(err, spec), step, loc, rollback)
        if found is None:
            found = refs.find_references(args, args_field)
        self._check_typed_flow(step, spec, found, args_field, rollback)

    def _check_typed_flow(
        self,
        step: Step,
        spec: ToolSpec,
        found: Iterable[refs.Reference],
        args_field: FieldPath,
        rollback: bool,
    ) -> None:
        """A whole-value reference must produce a type the parameter accepts."""
        for ref in found:
            if not ref.whole:
                continue
            producer = self.by_id.get(ref.step_id)
            if producer is None or producer.tool is None:
                continue
            key = (producer.tool, ref.path, spec.name, ref.location[len(args_field) :])
            if key not in self._flow_cache:
                self._flow_cache[key] = self._flow_mismatch(ref, spec, args_field)
            message = self._flow_cache[key]
            if message is not None:
                self.add("type_mismatch", f"{ref.text()} {message}", step, ref.location, rollback)

    def _flow_mismatch(self, ref: refs.Reference, spec: ToolSpec, args_field: FieldPath) -> str | None:
        source = self._producer_output_schema(ref.step_id)
        if source is None:
            return None
        produced, failed = self._output_at(ref.step_id, ref.path)
        if failed is not None or produced is None:
            return None
        expected, bad = schema_at(spec.input_schema, ref.location[len(args_field) :])
        if bad is not None or expected is None:
            return None
        have, want = types_of(produced, source), types_of(expected, spec.input_schema)
        if not compatible(have, want):
            return (
                f"produces {'/'.join(sorted(have or ()))} but {spec.name!r} expects "
                f"{'/'.join(sorted(want or ()))}"
            )
        have_items, want_items = item_types(produced, source), item_types(expected, spec.input_schema)
        if fits(have, have_items, want, want_items):
            return None
        return (
            f"produces a list of {'/'.join(sorted(have_items or ()))} but {spec.name!r} expects a list "
            f"of {'/'.join(sorted(want_items or ()))}"
        )

    def _check_compensate(self, step: Step, rollback: bool) -> None:
        assert step.compensate is not None
        comp = step.compensate
        self._check_tool_call(
            step, comp.tool, comp.args, ("compensate", "tool"), ("compensate", "args"), rollback
        )
        ancestors = self._ancestors(step.id) | {step.id}
        for ref in refs.find_references(comp.args, ("compensate", "args")):
            if ref.step_id not in ancestors:
                self.add(
                    "non_ancestor_reference",
                    f"compensation references {ref.text()}, which is neither this step nor "
                    "one it depends on; its output may not exist when undoing",
                    step,
                    ref.location,
                    rollback,
                )
            else:
                self._check_ref_path(step, ref, rollback)

    def _ancestors(self, step_id: str) -> set[str]:
        seen: set[str] = set()
        todo = [step_id]
        while todo:
            s = self.by_id.get(todo.pop())
            if s is None:
                continue
            for d in s.all_dependencies():
                if d not in seen and d in self.by_id:
                    seen.add(d)
                    todo.append(d)
        return seen

    def _check_check(self, step: Step, rollback: bool) -> None:
        check = step.check
        assert check is not None
        if check.output_schema is not None:
            import jsonschema

            try:
                jsonschema.validators.validator_for(check.output_schema).check_schema(check.output_schema)
            except jsonschema.SchemaError as exc:
                self.add(
                    "bad_check",
                    f"not a valid JSON Schema: {exc.message}",
                    step,
                    ("check", "schema"),
                    rollback,
                )
        if check.regex is not None:
            try:
                re.compile(check.regex)
            except re.error as exc:
                self.add(
                    "bad_check", f"invalid regular expression: {exc}", step, ("check", "regex"), rollback
                )
        if check.expr is not None:
            self._check_expr(step, check.expr, rollback)

    def _check_expr(self, step: Step, expression: str, rollback: bool) -> None:
        try:
            from forethought.plan.expressions import ExprError, parse_expression
        except ImportError:  # pragma: no cover - expr ships with the package
            return
        try:
            parse_expression(expression)
        except ExprError as exc:
            self.add("bad_check", f"invalid expression: {exc}", step, ("check", "expr"), rollback)


def _schema_message(err: Any, spec: ToolSpec) -> str:
    if err.validator == "required":
        return f"{err.message} (required by tool {spec.name!r})"
    if err.validator == "additionalProperties":
        props = sorted((spec.input_schema.get("properties") or {}).keys())
        return f"{err.message}; {spec.name!r} accepts: {', '.join(props) or 'no arguments'}"
    message = str(err.message)
    return message if len(message) <= 200 else message[:200] + "…"


def _output_fields_hint(schema: Mapping[str, Any], path: tuple[str | int, ...]) -> str:
    sub, _ = schema_at(schema, path)
    props = (sub or {}).get("properties") if isinstance(sub, Mapping) else None
    if isinstance(props, Mapping) and props:
        return f" (it has: {', '.join(sorted(props)[:12])})"
    return ""


def _suggest(name: str, candidates: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.7)
    return f" (did you mean {close[0]!r}?)" if close else ""
