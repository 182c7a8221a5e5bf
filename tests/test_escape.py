"""The ``$${`` escape: a literal ``${`` in an argument reaches the tool as ``${``.

Whether or not the same string (or the same step) also holds a reference, and whichever way the
step's arguments are filled in (the executor's whole-reference fast path or the general resolver),
through the in-memory executor and through ``forethought exec`` with ``def`` and ``async def`` tools.
"""

from __future__ import annotations

import asyncio
import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from forethought.execution._steps import resolve_args
from forethought.execution.executor import Executor
from forethought.interfaces.cli.exec_cmd import exec_command
from forethought.plan import references as refs
from forethought.plan.model import Plan, Step
from forethought.plan.validation import validate_plan
from forethought.tools.python import PythonTool

OUT: dict[str, Any] = {"s1": {"n": 7, "name": "x y"}}

# Strings rich in the characters that matter ("$", "{", "}", a step id), plus arbitrary text.
_TRICKY = st.text(alphabet=st.sampled_from('${}.s1env \\"'), max_size=40) | st.text(max_size=40)


# ---------------------------------------------------------------- unit: the resolver


@pytest.mark.parametrize(
    ("arg", "expected"),
    [
        ("$${amount}", "${amount}"),  # the whole value, no reference anywhere
        ("price $${amount} each", "price ${amount} each"),
        ("$${s1}", "${s1}"),  # escaped reference to a real step: still a literal
        ("$${env.HOME}", "${env.HOME}"),  # escaped env reference: not read, not an error
        # "$" + "$${" (the escape) + "s1.n}": the escape is the leftmost match, so no reference.
        ("$$${s1.n}", "$${s1.n}"),
        ("a $ b $$ c", "a $ b $$ c"),  # dollars without a brace are untouched
        ("$${}", "${}"),
        ("$${a} and $${b}", "${a} and ${b}"),
    ],
)
def test_an_escape_without_a_reference_is_unescaped(arg: str, expected: str) -> None:
    assert refs.resolve(arg, OUT) == expected
    assert refs.resolve({"k": [arg, {"deep": arg}]}, OUT) == {"k": [expected, {"deep": expected}]}


def test_escapes_are_not_references_nor_malformed() -> None:
    args = {"a": "$${s1}", "b": ["$${env.X}", "$${}"]}
    assert refs.find_references(args) == []
    assert refs.find_env_references(args) == []
    assert refs.find_malformed(args) == []


def test_resolve_args_unescapes_on_every_path() -> None:
    # No reference at all (arg_bindings would otherwise be the empty fast path).
    lone = Step(id="a", tool="t", args={"v": "$${x}", "n": 1})
    assert resolve_args(lone, {}) == {"v": "${x}", "n": 1}
    # A whole top-level reference (the fast path) beside an escaped literal.
    mixed = Step(id="b", tool="t", args={"v": "${s1.n}", "note": "$${s1} stays"})
    assert resolve_args(mixed, OUT) == {"v": 7, "note": "${s1} stays"}
    # Escape and reference in one string.
    both = Step(id="c", tool="t", args={"v": "$${s1} is ${s1.n}"})
    assert resolve_args(both, OUT) == {"v": "${s1} is 7"}


def test_a_plan_with_escapes_only_depends_on_nothing_and_is_valid() -> None:
    plan = Plan(goal="escapes", steps=[Step(id="a", tool="t", args={"v": "$${b}"})])
    assert plan.steps[0].all_dependencies() == ()
    problems = validate_plan(plan)
    assert problems == []


# ---------------------------------------------------------------- property: escape ∘ resolve = id


@given(_TRICKY)
def test_escape_then_resolve_gives_the_string_back(text: str) -> None:
    escaped = refs.escape(text)
    assert refs.find_references(escaped) == []
    assert refs.find_env_references(escaped) == []
    assert refs.find_malformed(escaped) == []
    assert refs.resolve(escaped, {}) == text
    assert refs.resolve({"a": [escaped, {"b": escaped}]}, {}) == {"a": [text, {"b": text}]}


@given(_TRICKY, _TRICKY)
def test_escape_then_resolve_through_a_step(text: str, other: str) -> None:
    # Through the executor's own argument filling: no reference, and beside a whole reference.
    alone = Step(id="a", tool="t", args={"v": refs.escape(text)})
    assert resolve_args(alone, {}) == {"v": text}
    assert alone.all_dependencies() == ()
    beside = Step(id="b", tool="t", args={"n": "${s1.n}", "v": refs.escape(other)})
    assert resolve_args(beside, OUT) == {"n": 7, "v": other}


# ---------------------------------------------------------------- through the executor


def test_executor_hands_unescaped_arguments_to_sync_and_async_tools() -> None:
    seen: dict[str, Any] = {}

    def sync_echo(value: Any) -> str:
        seen["sync"] = value
        return "ok"

    async def async_echo(value: Any) -> str:
        seen["async"] = value
        return "ok"

    tools = {"sync_echo": PythonTool(sync_echo), "async_echo": PythonTool(async_echo)}
    plan = Plan(
        goal="escapes",
        steps=[
            Step(id="s", tool="sync_echo", args={"value": "price $${amount}"}),
            Step(id="a", tool="async_echo", args={"value": ["$${x}", {"k": "$${s}"}]}),
        ],
    )
    state = asyncio.run(Executor(plan, tools).run())
    assert state.status == "succeeded"
    assert seen == {"sync": "price ${amount}", "async": ["${x}", {"k": "${s}"}]}


# ---------------------------------------------------------------- through `forethought exec`

TOOLS = textwrap.dedent("""
    from typing import Any

    from forethought import tool

    @tool
    def echo(value: Any) -> Any:
        "Returns its argument (a plain def: runs on a worker thread)."
        return value

    @tool
    async def aecho(value: Any) -> Any:
        "Returns its argument."
        return value
""")

PLAN = textwrap.dedent("""
    goal: literal dollar-braces reach the tools
    steps:
      - id: s1
        tool: echo
        args: {value: "price $${amount}"}
      - id: s2
        tool: aecho
        args: {value: ["$${x}", {k: "$${s1}"}]}
      - id: s3
        tool: echo
        args: {value: "${s1} / $${s1}"}
""")


def test_exec_hands_unescaped_arguments_to_the_tools(tmp_path: Path) -> None:
    (tmp_path / "tools.py").write_text(TOOLS)
    (tmp_path / "plan.yaml").write_text(PLAN)
    result = CliRunner().invoke(
        exec_command,
        [str(tmp_path / "plan.yaml"), "--tools", str(tmp_path / "tools.py"), "--json", "--yes-all"],
        standalone_mode=False,
    )
    assert result.exception is None, result.output
    assert result.return_value == 0
    steps = json.loads(result.stdout)["steps"]
    assert steps["s1"]["output"] == "price ${amount}"
    assert steps["s2"]["output"] == ["${x}", {"k": "${s1}"}]
    assert steps["s3"]["output"] == "price ${amount} / ${s1}"


def test_exec_still_refuses_a_malformed_reference_next_to_an_escape(tmp_path: Path) -> None:
    (tmp_path / "tools.py").write_text(TOOLS)
    (tmp_path / "plan.yaml").write_text(PLAN.replace('"price $${amount}"', '"$${ok} ${s1.}"'))
    result = CliRunner().invoke(
        exec_command,
        [str(tmp_path / "plan.yaml"), "--tools", str(tmp_path / "tools.py"), "--json", "--yes-all"],
        standalone_mode=False,
    )
    assert result.exception is not None
    assert "${s1.}" in str(result.exception)


# ---------------------------------------------------------------- the scanners' fast path

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TRICKY,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12,
)


@given(_JSON)
def test_the_fast_screen_never_hides_a_reference_escape_or_env(value: object) -> None:
    # ``_may_hold`` False must mean the full walk finds nothing, whatever the nesting.
    walked = list(refs._walk_strings(value, ()))
    if not refs._may_hold(value):
        assert walked == []
    assert bool(refs.find_references(value)) == any(
        m.group(1) != refs.ENV_ROOT for text, _ in walked for m in refs._REF_RE.finditer(text)
    )
    assert refs.has_escapes(value) == any("$${" in text for text, _ in walked)
    assert refs.has_env_references(value) == any(
        m.group(1) == refs.ENV_ROOT for text, _ in walked for m in refs._REF_RE.finditer(text)
    )
