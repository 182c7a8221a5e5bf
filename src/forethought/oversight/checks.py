"""Step checks: did a step that *ran* actually do what it should?

Run time, one step's output: ``run_checks`` checks a step's output against the criteria of its
``Check``. (Static checks of a whole plan before it runs are ``plan.validation.validate_plan``.)

A step's ``check`` lists criteria that must all hold for its output. The deterministic ones
(JSON Schema, regex over the text form, a safe expression, an expected ``exit_code``) are pure
functions of the output, so a replayed run reaches the same verdict. The ``critic`` rubric needs a
model and goes through an injected async critic; with none configured it fails closed, because a
criterion nobody checked must not read as passed.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from forethought.plan.model import Check, Step, canonical_dumps
from forethought.plan.references import as_text

Critic = Callable[[Step, Any, str], Awaitable[tuple[bool, str]]]
"""``async (step, output, rubric) -> (ok, reason)``."""

_MAX_DETAIL = 300


@dataclass(frozen=True)
class CheckFailure:
    """The first criterion that did not hold; ``criterion`` names it, ``detail`` says why."""

    criterion: str
    detail: str

    def __str__(self) -> str:
        return f"check {self.criterion} failed: {self.detail}"


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_DETAIL else text[: _MAX_DETAIL - 1] + "…"


@lru_cache(maxsize=256)
def _validator(schema_json: str) -> Any:
    import json

    # Imported with the first schema check (``prepare_check``, when the executor takes the
    # step), not with the package: most plans have none, and it is a sixth of a CLI's start-up.
    import jsonschema

    schema = json.loads(schema_json)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def prepare_check(check: Check) -> None:
    """Import and compile what ``check`` needs now, when its step is added to a run, so that
    nothing is loaded or compiled on the run's critical path (errors are reported when it runs)."""
    if check.output_schema is not None:
        with contextlib.suppress(Exception):  # an invalid schema fails the check when it runs
            _validator(canonical_dumps(check.output_schema))
    if check.regex is not None:
        with contextlib.suppress(re.error):
            re.compile(check.regex)


def _check_schema(schema: Mapping[str, Any], output: Any) -> CheckFailure | None:
    from jsonschema.exceptions import SchemaError, best_match

    try:
        validator = _validator(canonical_dumps(schema))
    except SchemaError as exc:
        return CheckFailure("schema", _short(f"the check's schema is invalid: {exc.message}"))
    error = best_match(validator.iter_errors(output))
    if error is None:
        return None
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    return CheckFailure("schema", _short(f"output{where}: {error.message}"))


def _check_regex(pattern: str, output: Any) -> CheckFailure | None:
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        return CheckFailure("regex", f"invalid regex {pattern!r}: {exc}")
    if compiled.search(as_text(output)) is None:
        return CheckFailure("regex", _short(f"output does not match /{pattern}/: {as_text(output)[:120]!r}"))
    return None


def _check_expr(expression: str, output: Any) -> CheckFailure | None:
    try:
        from forethought.plan.expressions import safe_eval
    except ImportError:
        return CheckFailure(
            "expr", "expression checks need forethought.plan.expressions, which this installation lacks"
        )
    try:
        value = safe_eval(expression, {"output": output})
    except ValueError as exc:  # ExprError subclasses ValueError
        return CheckFailure("expr", _short(f"{expression!r} could not be evaluated: {exc}"))
    if not value:
        return CheckFailure("expr", _short(f"{expression!r} is {value!r}"))
    return None


def _check_exit_code(expected: int, output: Any) -> CheckFailure | None:
    if not isinstance(output, Mapping) or "exit_code" not in output:
        return CheckFailure(
            "exit_code", f"expected exit_code {expected}, but the output has no `exit_code` field"
        )
    actual = output["exit_code"]
    if actual != expected:
        return CheckFailure("exit_code", f"expected exit_code {expected}, got {actual!r}")
    return None


def run_deterministic_checks(check: Check, output: Any) -> CheckFailure | None:
    """Check ``output`` against the deterministic criteria of ``check``, in a fixed order.

    Returns the first failure, or None when they all hold (the critic rubric is not looked at).
    """
    if check.exit_code is not None and (f := _check_exit_code(check.exit_code, output)):
        return f
    if check.output_schema is not None and (f := _check_schema(check.output_schema, output)):
        return f
    if check.regex is not None and (f := _check_regex(check.regex, output)):
        return f
    if check.expr is not None and (f := _check_expr(check.expr, output)):
        return f
    return None


async def run_checks(
    check: Check, output: Any, *, step: Step, critic: Critic | None = None
) -> CheckFailure | None:
    """Check ``step``'s ``output`` against every criterion of ``check``; the first failure or None.

    Deterministic criteria first (cheap), then the critic rubric (fails closed without a critic).
    """
    failure = run_deterministic_checks(check, output)
    if failure is not None or check.critic is None:
        return failure
    if critic is None:
        return CheckFailure(
            "critic",
            "the step has a critic rubric but no critic model is "
            "configured; configure one or remove `check.critic`",
        )
    try:
        ok, reason = await critic(step, output, check.critic)
    except Exception as exc:
        return CheckFailure("critic", _short(f"the critic failed: {type(exc).__name__}: {exc}"))
    return None if ok else CheckFailure("critic", _short(reason or "rejected by the critic"))
