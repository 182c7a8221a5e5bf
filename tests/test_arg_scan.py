"""The one-walk scan of a step's arguments equals the general scanners it replaces.

``refs.scan`` (and ``Step.arg_scan`` / ``arg_bindings`` / ``all_dependencies`` / ``uses_env``
built on it) must say exactly what ``find_references``, ``find_env_references``,
``find_malformed`` and ``has_escapes`` say of the same value, in the same order, for any
argument: nested mappings, lists and tuples, ``$${`` escapes, references inside longer strings,
field paths, quoted keys holding ``}``, ``${env...}``, malformed attempts. The validator's
placeholder instance and its cycle search (peeling ready steps before the depth-first search)
are checked against their general forms the same way.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forethought.plan import references as refs
from forethought.plan import validation as validation_module
from forethought.plan.model import Plan, Step
from forethought.plan.tool_spec import ToolSpec
from forethought.plan.validation import _instance, _Placeholder, _with_placeholders, validate_plan

_IDS = st.sampled_from(["s1", "s2", "a-b", "_x", "env", "9"])
_PATHS = st.lists(
    st.sampled_from([".items", ".n", "[0]", "[-1]", '["a key"]', '["}"]', '["q\\"x"]', ".env"]), max_size=3
).map("".join)
_REFERENCE = st.builds(lambda i, p: "${" + i + p + "}", _IDS, _PATHS)
_PIECES = st.one_of(
    _REFERENCE,
    _REFERENCE.map(lambda r: "$" + r),  # an escape of a reference
    st.sampled_from(
        [
            "${env.TOKEN}",
            "${env.A.B}",
            "${env}",
            "${}",
            "${s1.}",
            "${s1",
            "$${",
            "${",
            "}",
            "$",
            "{",
            '"]',
            "[0]",
            " ",
            "text",
            "\n",
            "ü",
        ]
    ),
)
_STRINGS = st.lists(_PIECES, max_size=5).map("".join)
_KEYS = st.one_of(st.text(max_size=4), _STRINGS)
_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
_VALUES = st.recursive(
    _SCALARS | _STRINGS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(_KEYS, inner, max_size=4)
    ),
    max_leaves=14,
)
_ARGS = st.dictionaries(_KEYS, _VALUES, max_size=5)
_FLAT_ARGS = st.dictionaries(_KEYS, _SCALARS | _STRINGS | _REFERENCE, max_size=6)


def _general(value: Any, location: tuple[refs.PathPart, ...]) -> refs.ArgScan:
    return refs.ArgScan(
        tuple(refs.find_references(value, location)),
        tuple(refs.find_env_references(value, location)),
        tuple(refs.find_malformed(value, location)),
        refs.has_escapes(value),
    )


@settings(max_examples=400)
@given(st.one_of(_VALUES, _ARGS, _FLAT_ARGS))
def test_scan_equals_the_general_scanners(value: Any) -> None:
    assert refs.scan(value, ("args",)) == _general(value, ("args",))
    assert refs.scan(value) == _general(value, ())


@pytest.mark.parametrize(
    "text",
    [
        "${s1}",
        "${s1.items[0]}",
        '${s1["}"]}',
        '${s1["a}b"].c}',
        "${s1}}",
        "${env.TOKEN}",
        "${env}",
        "${s1}$${s2}",
    ],
)
def test_scan_of_the_edge_shapes_of_one_string(text: str) -> None:
    # A quoted key holding ``}`` is a whole reference and also a malformed attempt (``${s1["}``),
    # as the general scanners say: the one-``}`` fast path must not take it.
    for value in (text, {"x": text}, {"x": [text]}):
        assert refs.scan(value, ("args",)) == _general(value, ("args",))


def _old_bindings(args: dict[str, Any]) -> tuple[tuple[str, str, refs.Reference | None], ...] | None:
    # ``Step.arg_bindings`` as it was written before the scan: the general path.
    if refs.has_escapes(args):
        return None
    out = []
    for ref in refs.find_references(args, ("args",)):
        if not ref.whole or len(ref.location) != 2:
            return None
        out.append((str(ref.location[1]), ref.step_id, ref if ref.path else None))
    return tuple(out)


@settings(max_examples=300)
@given(st.one_of(_ARGS, _FLAT_ARGS), st.lists(_IDS, max_size=3))
def test_a_steps_facts_equal_their_general_definitions(args: dict[str, Any], depends_on: list[str]) -> None:
    step = Step(id="me", tool="t", args=args, depends_on=depends_on)
    referenced = {r.step_id for r in refs.find_references(step.args, ("args",))}
    implied = sorted(referenced - set(step.depends_on))
    assert step.all_dependencies() == (*step.depends_on, *implied)
    assert step.referenced_steps() == referenced
    assert step.arg_references == tuple(refs.find_references(step.args, ("args",)))
    assert step.arg_bindings == _old_bindings(step.args)
    assert step.uses_env == refs.has_env_references(step.args)
    # A copy is a new object: its facts are its own, equal to the source's.
    copied = step.model_copy(update={"args": {"z": "${s2}"}})
    assert copied.all_dependencies() == (*step.depends_on, *(["s2"] if "s2" not in step.depends_on else []))


def _shown(value: Any) -> Any:
    # Placeholders compared by the text they stand for.
    if isinstance(value, _Placeholder):
        return ("placeholder", value.ref)
    if isinstance(value, dict):
        return {k: _shown(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shown(v) for v in value]
    return value


@settings(max_examples=300)
@given(st.one_of(_ARGS, _FLAT_ARGS))
def test_the_schema_checks_instance_equals_the_general_placeholders(args: dict[str, Any]) -> None:
    for location in (("args",), ("compensate", "args")):
        found = refs.scan(args, location)
        assert _shown(_instance(args, found, len(location))) == _shown(_with_placeholders(dict(args)))


_GRAPHS = st.lists(
    st.tuples(
        st.sampled_from(["a", "b", "c", "d", "e"]), st.lists(st.sampled_from(["a", "b", "c", "d", "e", "zz"]))
    ),
    min_size=1,
    max_size=7,
)


@settings(max_examples=300)
@given(_GRAPHS, st.booleans())
def test_cycle_problems_are_the_same_with_and_without_the_peeling_pass(
    graph: list[tuple[str, list[str]]], by_reference: bool
) -> None:
    # Duplicate ids, dangling dependencies, self-loops and cycles through references included.
    steps = []
    for sid, deps in graph:
        if by_reference:
            steps.append(Step(id=sid, tool="t", args={f"in{i}": "${" + d + "}" for i, d in enumerate(deps)}))
        else:
            steps.append(Step(id=sid, tool="t", depends_on=deps))
    plan = Plan(goal="g", steps=steps)
    tools = {"t": ToolSpec(name="t")}
    fast = validate_plan(plan, tools)
    checker = validation_module._Checker(Plan(goal="g", steps=steps), tools)
    checker._acyclic = lambda: None  # type: ignore[method-assign]  # the general search only
    assert [str(p) for p in fast] == [str(p) for p in checker.run()]
    assert any(p.code == "cycle" for p in fast) == _has_cycle(plan)


def _has_cycle(plan: Plan) -> bool:
    ids = {s.id for s in plan.steps}
    graph = {s.id: [d for d in s.all_dependencies() if d in ids] for s in plan.steps}
    for s in plan.steps:  # last step with each id wins, as in the checker's graph
        graph[s.id] = [d for d in s.all_dependencies() if d in ids]
    seen: dict[str, int] = {}

    def visit(node: str) -> bool:
        seen[node] = 1
        for d in graph[node]:
            if seen.get(d) == 1 or (d not in seen and visit(d)):
                return True
        seen[node] = 2
        return False

    return any(node not in seen and visit(node) for node in graph)
