from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from forethought import tool
from forethought.plan.files import check_data, dump_plan, load_plan, write_plan
from forethought.plan.model import Plan
from forethought.plan.validation import validate_plan
from forethought.tools.base import ToolSpec

FIXTURES = Path(__file__).parent / "fixtures" / "plans"

TOOLS = {
    "read": ToolSpec(
        name="read",
        input_schema={
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
            "additionalProperties": False,
        },
        output_schema={
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "lines": {"type": "integer"},
                "meta": {"$ref": "#/$defs/Meta"},
            },
            "$defs": {"Meta": {"type": "object", "properties": {"size": {"type": "integer"}}}},
        },
    ),
    "count": ToolSpec(
        name="count",
        input_schema={
            "type": "object",
            "properties": {"n": {"type": "integer"}, "items": {"type": "array"}},
            "required": ["n"],
        },
        output_schema={"type": "integer"},
    ),
    "write": ToolSpec(
        name="write",
        effect="mutating",
        input_schema={
            "type": "object",
            "properties": {"path": {"type": "string"}, "text": {"type": "string"}},
            "required": ["path", "text"],
        },
    ),
}


def problems(steps: list[dict[str, Any]], **plan: Any) -> list[tuple[str, str | None, str]]:
    found = validate_plan({"goal": "g", "steps": steps, **plan}, TOOLS)
    return [(p.code, p.step_id, p.field_text()) for p in found]


def test_a_clean_plan_has_no_problems() -> None:
    assert (
        problems(
            [
                {"id": "r", "tool": "read", "args": {"path": "a.txt"}},
                {"id": "c", "tool": "count", "args": {"n": "${r.lines}", "items": []}},
                {"id": "w", "tool": "write", "args": {"path": "out", "text": "size ${r.meta.size}: ${c}"}},
            ]
        )
        == []
    )


def test_duplicate_ids_including_rollback() -> None:
    assert problems(
        [
            {"id": "a", "tool": "read", "args": {"path": "x"}},
            {"id": "a", "tool": "read", "args": {"path": "y"}},
        ],
        rollback=[{"id": "a", "tool": "write", "args": {"path": "p", "text": "t"}}],
    ) == [("duplicate_id", "a", "id"), ("duplicate_id", "a", "id")]


def test_unknown_dependency_suggests_close_name() -> None:
    found = validate_plan(
        {
            "goal": "g",
            "steps": [
                {"id": "fetch", "tool": "read", "args": {"path": "x"}},
                {"id": "b", "tool": "read", "args": {"path": "x"}, "depends_on": ["fetc"]},
            ],
        },
        TOOLS,
    )
    assert [str(p) for p in found] == [
        "step 'b' depends_on[0]: depends on unknown step 'fetc' (did you mean 'fetch'?)"
    ]


def test_cycles_are_named_including_self_loops_and_reference_edges() -> None:
    found = validate_plan(
        {
            "goal": "g",
            "steps": [
                {"id": "a", "tool": "read", "args": {"path": "${c.text}"}},
                {"id": "b", "tool": "read", "args": {"path": "x"}, "depends_on": ["a"]},
                {"id": "c", "tool": "read", "args": {"path": "x"}, "depends_on": ["b"]},
                {"id": "d", "tool": "read", "args": {"path": "x"}, "depends_on": ["d"]},
            ],
        },
        TOOLS,
    )
    messages = [p.message for p in found if p.code == "cycle"]
    assert len(messages) == 2
    assert "a → c → b → a (via a reference to ${c} in args)" in messages[0]
    assert "d → d" in messages[1]


def test_deep_chain_does_not_hit_recursion_limits() -> None:
    steps = [
        {"id": f"s{i}", "tool": "read", "args": {"path": "x"}, "depends_on": [f"s{i - 1}"] if i else []}
        for i in range(5000)
    ]
    steps[0]["depends_on"] = ["s4999"]
    codes = [c for c, _, _ in problems(steps)]
    assert codes == ["cycle"]


def test_unknown_tool_and_argument_schema_violations() -> None:
    assert problems(
        [
            {"id": "a", "tool": "reed", "args": {"path": "x"}},
            {"id": "b", "tool": "read", "args": {"path": 3, "extra": True}},
            {"id": "c", "tool": "count", "args": {}},
        ]
    ) == [
        ("unknown_tool", "a", "tool"),
        ("bad_argument", "b", "args"),
        ("bad_argument", "b", "args.path"),
        ("bad_argument", "c", "args"),
    ]


def test_references_to_unknown_steps_and_missing_output_fields() -> None:
    found = problems(
        [
            {"id": "r", "tool": "read", "args": {"path": "x"}},
            {"id": "a", "tool": "read", "args": {"path": "${nope}"}},
            {"id": "b", "tool": "read", "args": {"path": "${r.txt}"}},
            {"id": "c", "tool": "read", "args": {"path": "${r.meta.mtime}"}},
            {"id": "d", "tool": "read", "args": {"path": "${r.text[0]}"}},
            {"id": "e", "tool": "read", "args": {"path": "${r.text}"}},
        ]
    )
    assert found == [
        ("unknown_reference", "a", "args.path"),
        ("unknown_output_field", "b", "args.path"),
        ("unknown_output_field", "c", "args.path"),
        ("unknown_output_field", "d", "args.path"),
    ]


def test_typed_data_flow_mismatch() -> None:
    found = validate_plan(
        {
            "goal": "g",
            "steps": [
                {"id": "r", "tool": "read", "args": {"path": "x"}},
                {"id": "c", "tool": "count", "args": {"n": "${r.text}"}},
                {"id": "ok", "tool": "count", "args": {"n": "${r.lines}"}},
            ],
        },
        TOOLS,
    )
    assert [str(p) for p in found] == [
        "step 'c' args.n: ${r.text} produces string but 'count' expects integer"
    ]


class _Person(BaseModel):
    name: str


@tool
def _people() -> list[_Person]:
    return []


@tool
def _numbers() -> list[int]:
    return []


@tool
def _join(values: list[str]) -> str:
    return ",".join(values)


@tool
def _total(values: list[float]) -> float:
    return sum(values)


def test_a_list_of_records_is_not_a_list_of_strings() -> None:
    # Both are JSON arrays; only the items tell them apart (a list of people fed to a tool that
    # joins strings would fail at run time, or worse, print the records' reprs).
    specs = {t.spec.name.strip("_"): t.spec for t in (_people, _numbers, _join, _total)}
    found = validate_plan(
        {
            "goal": "g",
            "steps": [
                {"id": "p", "tool": "people", "args": {}},
                {"id": "n", "tool": "numbers", "args": {}},
                {"id": "bad", "tool": "join", "args": {"values": "${p}"}},
                {"id": "ok", "tool": "total", "args": {"values": "${n}"}},  # integers are numbers
                {"id": "bad2", "tool": "join", "args": {"values": "${n}"}},
            ],
        },
        specs,
    )
    assert [str(p) for p in found] == [
        "step 'bad' args.values: ${p} produces a list of object but '_join' expects a list of string",
        "step 'bad2' args.values: ${n} produces a list of integer but '_join' expects a list of string",
    ]


def test_rollback_and_compensation_references() -> None:
    found = problems(
        [
            {"id": "r", "tool": "read", "args": {"path": "x"}},
            {"id": "other", "tool": "read", "args": {"path": "x"}},
            {
                "id": "w",
                "tool": "write",
                "args": {"path": "p", "text": "${r.text}"},
                "compensate": {"tool": "write", "args": {"path": "${other.text}", "text": "${w}"}},
            },
        ],
        rollback=[
            {"id": "rb1", "tool": "write", "args": {"path": "${rb2}", "text": "${r.text}"}},
            {"id": "rb2", "tool": "write", "args": {"path": "${rb1}", "text": "t"}},
        ],
    )
    assert found == [
        ("non_ancestor_reference", "w", "compensate.args.path"),
        ("unknown_reference", "rb1", "args.path"),
    ]


def test_malformed_reference_and_bad_checks() -> None:
    assert problems(
        [
            {
                "id": "a",
                "tool": "read",
                "args": {"path": "${a.}"},
                "check": {"regex": "(", "schema": {"type": 5}},
            }
        ]
    ) == [
        ("bad_reference", "a", "args.path"),
        ("bad_check", "a", "check.schema"),
        ("bad_check", "a", "check.regex"),
    ]


def test_structural_problems_are_all_reported_with_step_ids() -> None:
    found = check_data(
        {
            "goal": "g",
            "steps": [
                {"id": "a", "tool": "read", "on_failure": "explode"},
                {"id": "b"},
                {"tool": "read"},
            ],
        }
    )[1]
    assert [(p.step_id, p.field_text()) for p in found] == [
        ("a", "on_failure"),
        ("b", ""),
        (None, "steps[2].id"),
    ]


def test_acceptance_five_located_problems_and_exit_2() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "forethought",
            "lint",
            str(FIXTURES / "five_problems.yaml"),
            "--tools",
            str(FIXTURES / "tools.py"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2, result.stderr
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 5
    assert all(line.startswith(str(FIXTURES / "five_problems.yaml") + ":") for line in lines)
    joined = "\n".join(lines)
    for needle in (
        "dependency cycle: backup → migrate → backup",
        "depends on unknown step 'verify_data'",
        "unknown tool 'send_slack'",
        "args.compress: 'yes please' is not of type 'boolean'",
        "output has no 'revision' (it has: tables, version)",
    ):
        assert needle in joined
    assert "Traceback" not in result.stderr


# ------------------------------------------------------------------------- property tests


@st.composite
def plans(draw: st.DrawFn) -> Plan:
    n = draw(st.integers(min_value=1, max_value=12))
    steps = []
    # Plain text only: "${" opens a reference, and a malformed one is rightly refused on load.
    text = st.text(max_size=8).filter(lambda s: "${" not in s)
    scalar = st.none() | st.booleans() | st.integers(-5, 5) | text
    for i in range(n):
        earlier = [f"s{j}" for j in range(i)]
        deps = draw(st.lists(st.sampled_from(earlier), max_size=3)) if earlier else []
        args: dict[str, Any] = draw(st.dictionaries(st.sampled_from(["a", "b", "c"]), scalar, max_size=3))
        if earlier and draw(st.booleans()):
            args["ref"] = "${" + draw(st.sampled_from(earlier)) + ".x[0]}"
        step: dict[str, Any] = {
            "id": f"s{i}",
            "args": args,
            "depends_on": deps,
            "on_failure": draw(st.sampled_from(["abort", "continue", "replan", "rollback"])),
        }
        if draw(st.booleans()):
            step["tool"] = draw(st.sampled_from(["read", "count", "write"]))
        else:
            step["agent"] = draw(st.text(min_size=1, max_size=20))
        if draw(st.booleans()):
            step["retry"] = {"attempts": draw(st.integers(1, 5)), "backoff_s": draw(st.floats(0, 10))}
        if draw(st.booleans()):
            step["timeout_s"] = draw(st.floats(0.5, 100))
        steps.append(step)
    return Plan.model_validate(
        {
            "goal": draw(st.text(max_size=30)),
            "steps": steps,
            "version": draw(st.integers(1, 5)),
            "metadata": {"k": draw(scalar)},
        }
    )


@settings(max_examples=60, deadline=None)
@given(plan=plans(), name=st.sampled_from(["p.yaml", "p.json"]))
def test_load_dump_round_trip_preserves_plan_and_hash(
    plan: Plan, name: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = tmp_path_factory.mktemp("rt") / name
    write_plan(plan, path)
    again = load_plan(path)
    assert again == plan
    assert again.plan_hash() == plan.plan_hash()
    assert dump_plan(again, "json") == dump_plan(plan, "json")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda c: (
        st.lists(c, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "goal",
                    "steps",
                    "id",
                    "tool",
                    "agent",
                    "args",
                    "depends_on",
                    "rollback",
                    "check",
                    "retry",
                    "x",
                    "action",
                    "params",
                    "input",
                ]
            )
            | st.text(max_size=4),
            c,
            max_size=5,
        )
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_validator_never_raises_on_arbitrary_json(data: Any) -> None:
    plan, found = check_data(data, TOOLS)
    assert plan is not None or found
    validate_plan(data if isinstance(data, dict) else {"goal": "g", "steps": data}, TOOLS)
    json.dumps([p.to_dict() for p in found])


@settings(max_examples=100, deadline=None)
@given(plans())
def test_generated_plans_validate_without_crashing(plan: Plan) -> None:
    for problem in validate_plan(plan, TOOLS):
        assert problem.step_id is None or problem.step_id in {s.id for s in plan.steps}
        assert "\n" not in str(problem)
