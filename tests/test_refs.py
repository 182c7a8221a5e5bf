from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from forethought.plan import references as refs

OUT = {"s1": {"items": [{"path": "/a", "size": 3}], "n": 7, "name": "x y"}, "s2": [1, 2]}


def test_whole_value_reference_keeps_its_type() -> None:
    assert refs.resolve("${s1.items[0].size}", OUT) == 3
    assert refs.resolve("${s1.items}", OUT) == [{"path": "/a", "size": 3}]
    assert refs.resolve("${s2[-1]}", OUT) == 2
    assert refs.resolve({"a": ["${s1.n}"]}, OUT) == {"a": [7]}


def test_reference_inside_text_is_interpolated() -> None:
    assert refs.resolve("n=${s1.n}, items=${s2}", OUT) == "n=7, items=[1,2]"
    assert refs.resolve('${s1["name"]}!', OUT) == "x y!"


def test_output_is_never_rescanned() -> None:
    outputs = {"a": "${b}", "b": "secret"}
    assert refs.resolve("${a}", outputs) == "${b}"
    assert refs.resolve("got ${a}", outputs) == "got ${b}"


def test_escape_produces_literal_and_is_not_a_reference() -> None:
    assert refs.resolve("cost $${s1.n}", OUT) == "cost ${s1.n}"
    assert refs.find_references("$${s1}") == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("${s1.missing}", "no field 'missing'"),
        ("${s1.items[5]}", "out of range"),
        ("${s1.n.x}", "field 'x' of a int"),
        ("${nope}", "has no recorded output"),
    ],
)
def test_resolution_errors_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(refs.ReferenceResolutionError, match=message):
        refs.resolve(text, OUT)


def test_find_references_reports_locations() -> None:
    found = refs.find_references({"a": ["x ${s1.n}", {"b": "${s2}"}]}, ("args",))
    assert [(r.step_id, r.path, r.location, r.whole) for r in found] == [
        ("s1", ("n",), ("args", "a", 0), False),
        ("s2", (), ("args", "a", 1, "b"), True),
    ]


def test_malformed_references_are_found() -> None:
    bad = refs.find_malformed({"a": "${s1.}", "b": "${}", "c": "${ok}", "d": "${x"})
    assert sorted(loc for _, loc in bad) == [("a",), ("b",), ("d",)]


def test_import_of_seed_and_llmcompiler_styles() -> None:
    assert (
        refs.import_foreign("use {step_3_result} and $4 but not $5x or $${6}")
        == "use ${3} and ${4} but not $5x or $${6}"
    )
    assert refs.import_foreign({"k": ["$1"]}) == {"k": ["${1}"]}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=20,
)


@given(st.text(alphabet='${}[]"._-ab1 \\', max_size=40))
def test_reference_scanning_never_raises_on_arbitrary_text(text: str) -> None:
    refs.find_references(text)
    refs.find_malformed(text)
    with contextlib.suppress(refs.ReferenceResolutionError):
        refs.resolve(text, {"a": {"b": [1]}, "1": "x"})


@given(json_values)
def test_values_without_references_resolve_to_themselves(value: Any) -> None:
    if not refs.find_references(value) and "${" not in repr(value):
        assert refs.resolve(value, {}) == value


# ---------------------------------------------------------------- the `$${` escape


def test_an_escape_with_no_reference_reaches_the_tool_unescaped() -> None:
    import asyncio

    from _executor_helpers import FnTool
    from forethought.execution.executor import Executor
    from forethought.plan.model import Plan, Step

    seen: dict[str, dict[str, Any]] = {}

    async def echo(args: dict[str, Any], ctx: Any) -> Any:
        seen[ctx.step_id] = args
        return "ok"

    plan = Plan(
        goal="escapes",
        steps=[
            Step(id="s1", tool="echo", args={"value": "price $${amount}"}),  # no reference at all
            # A whole-value reference (the executor's fast path) beside an escaped literal.
            Step(id="s2", tool="echo", args={"value": "${s1}", "note": "$${s1} is literal"}),
            Step(id="s3", tool="echo", args={"value": ["$${x}", {"k": "$${y}"}]}),
        ],
    )
    state = asyncio.run(Executor(plan, {"echo": FnTool("echo", echo)}).run())
    assert state.status == "succeeded"
    assert seen["s1"] == {"value": "price ${amount}"}
    assert seen["s2"] == {"value": "ok", "note": "${s1} is literal"}
    assert seen["s3"] == {"value": ["${x}", {"k": "${y}"}]}


# Strings rich in the characters that matter, plus arbitrary text.
_TRICKY = st.text(alphabet=st.sampled_from('${}.s1a \\"'), max_size=30) | st.text(max_size=30)


@given(_TRICKY)
def test_escaping_then_resolving_round_trips_without_references(text: str) -> None:
    escaped = refs.escape(text)
    assert refs.find_references(escaped) == []
    assert refs.find_malformed(escaped) == []
    assert refs.resolve(escaped, OUT) == text
    assert refs.resolve({"a": [escaped]}, OUT) == {"a": [text]}


@given(_TRICKY, _TRICKY)
def test_escaping_then_resolving_round_trips_beside_references(before: str, after: str) -> None:
    # A separator before the reference: a literal `$` right before `${` would read as `$${`.
    template = refs.escape(before) + " ${s1.n} " + refs.escape(after)
    assert [r.step_id for r in refs.find_references(template)] == ["s1"]
    assert refs.resolve(template, OUT) == f"{before} 7 {after}"
    # A whole-value reference in one argument and an escaped literal in another.
    args = {"n": "${s1.n}", "text": refs.escape(before)}
    assert refs.resolve(args, OUT) == {"n": 7, "text": before}
