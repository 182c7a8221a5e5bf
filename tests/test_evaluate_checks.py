"""Checking a step's output against its Check: deterministic criteria and the critic hook."""

from __future__ import annotations

from typing import Any

import pytest

from forethought.oversight.checks import run_checks, run_deterministic_checks
from forethought.plan.model import Check, Step

STEP = Step(id="s", tool="t")


@pytest.mark.parametrize(
    ("check", "output", "criterion"),
    [
        ({"schema": {"type": "object", "required": ["a"]}}, {"b": 1}, "schema"),
        ({"schema": {"type": "array", "items": {"type": "integer"}}}, [1, "x"], "schema"),
        ({"regex": r"^ok\b"}, "not ok", "regex"),
        ({"regex": "("}, "x", "regex"),
        ({"exit_code": 0}, {"exit_code": 2}, "exit_code"),
        ({"exit_code": 0}, "no code", "exit_code"),
        ({"expr": "output['n'] > 3"}, {"n": 1}, "expr"),
        ({"expr": "output['missing'] > 3"}, {"n": 1}, "expr"),
        ({"schema": {"type": "nonsense"}}, 1, "schema"),
    ],
)
def test_failing_criteria(check: dict[str, Any], output: Any, criterion: str) -> None:
    failure = run_deterministic_checks(Check.model_validate(check), output)
    assert failure is not None and failure.criterion == criterion
    assert failure.detail and str(failure).startswith(f"check {criterion} failed")


@pytest.mark.parametrize(
    ("check", "output"),
    [
        ({"schema": {"type": "object", "required": ["a"]}}, {"a": 1}),
        ({"regex": r"\d+ files"}, {"summary": "12 files"}),
        ({"exit_code": 0}, {"exit_code": 0, "stdout": ""}),
        ({"expr": "output['n'] > 3"}, {"n": 4}),
        ({"schema": {"type": "object"}, "regex": "a", "exit_code": 0}, {"exit_code": 0, "a": 1}),
    ],
)
def test_passing_criteria(check: dict[str, Any], output: Any) -> None:
    assert run_deterministic_checks(Check.model_validate(check), output) is None


def test_schema_failure_names_the_path() -> None:
    f = run_deterministic_checks(
        Check.model_validate(
            {
                "schema": {
                    "type": "object",
                    "properties": {"items": {"type": "array", "items": {"type": "string"}}},
                }
            }
        ),
        {"items": ["a", 3]},
    )
    assert f is not None and "output.items[1]" in f.detail


async def test_critic_rubric() -> None:
    check = Check.model_validate({"critic": "is it polite?"})

    async def rude(step: Step, output: Any, rubric: str) -> tuple[bool, str]:
        return (False, f"not polite per {rubric!r}")

    async def fine(step: Step, output: Any, rubric: str) -> tuple[bool, str]:
        return (True, "")

    async def broken(step: Step, output: Any, rubric: str) -> tuple[bool, str]:
        raise RuntimeError("model down")

    assert (await run_checks(check, "hi", step=STEP, critic=fine)) is None
    f = await run_checks(check, "hi", step=STEP, critic=rude)
    assert f is not None and "is it polite" in f.detail
    f = await run_checks(check, "hi", step=STEP, critic=broken)
    assert f is not None and "model down" in f.detail
    f = await run_checks(check, "hi", step=STEP)  # fails closed without a critic
    assert f is not None and "no critic" in f.detail


async def test_deterministic_failure_short_circuits_critic() -> None:
    called = []

    async def critic(step: Step, output: Any, rubric: str) -> tuple[bool, str]:
        called.append(1)
        return (True, "")

    check = Check.model_validate({"regex": "^yes", "critic": "x"})
    f = await run_checks(check, "no", step=STEP, critic=critic)
    assert f is not None and f.criterion == "regex" and called == []
