"""The compact step shape (``{TOOL: args}``, id by position) beside the classic one.

Property-tested: a plan written compactly, classically or mixed step by step parses to the same
Plan (same hash), and the streaming parser hands on the same steps as parsing the whole reply.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _planner_support import bench_like_specs
from _provider_schemas import anthropic_problems
from forethought import ToolSpec, tool
from forethought.models import ScriptedModel
from forethought.plan.model import Plan
from forethought.planning._json_stream import StepScanner
from forethought.planning.grammar import PlanSchemaBuilder, step_ids
from forethought.planning.memory import PlanMemory
from forethought.planning.planner import (
    PlannerOptions,
    build_planning_request,
    make_plan,
    parse_plan_text,
    replan,
)
from forethought.planning.prompt import SYSTEM, SYSTEM_COMPACT, plan_json_text
from forethought.planning.step_shape import (
    PositionalIds,
    classic_step,
    classic_steps,
    renumbered,
    shape_for,
    steps_json,
)
from forethought.planning.streaming import PlanDone, stream_plan

SPECS = bench_like_specs()
GOAL = "Count the words in notes.txt and write the count to count.txt"

# ----------------------------------------------------------------------- random plans


@st.composite
def classic_plans(draw: Any) -> list[dict[str, Any]]:
    """Valid classic step objects with positional ids: tools of SPECS, literal or reference
    arguments (references only to earlier steps), sometimes a ``depends_on``."""
    n = draw(st.integers(min_value=1, max_value=6))
    text = st.text(alphabet="abc xyz.,", min_size=1, max_size=8)
    out: list[dict[str, Any]] = []
    for k in range(n):
        sid = f"s{k + 1}"
        earlier = [s["id"] for s in out]
        texts = [s["id"] for s in out if s["tool"] != "count_words"]  # count_words gives a number
        ref = st.sampled_from([f"${{{e}}}" for e in texts]) if texts else st.nothing()
        name = draw(st.sampled_from(["read_file", "count_words", "summarize", "write_file"]))
        if name == "read_file":
            args: dict[str, Any] = {"path": draw(text)}
        elif name == "write_file":
            args = {"path": draw(text), "content": draw(text | ref)}
        else:
            args = {"text": draw(text | ref)}
        step: dict[str, Any] = {"id": sid, "tool": name, "args": args}
        if earlier and draw(st.booleans()):
            step["depends_on"] = draw(st.lists(st.sampled_from(earlier), min_size=1, max_size=2, unique=True))
        out.append(step)
    return out


def as_compact(step: dict[str, Any]) -> dict[str, Any]:
    rest = {k: v for k, v in step.items() if k not in ("id", "tool", "args")}
    return {step["tool"]: step["args"], **rest}


def reply(steps: list[dict[str, Any]], compact: list[bool], **extra: Any) -> str:
    body = [as_compact(s) if c else s for s, c in zip(steps, compact, strict=True)]
    return json.dumps({"steps": body, **extra})


def parsed(text: str, **kw: Any) -> Plan:
    plan, problems = parse_plan_text(text, GOAL, SPECS, **kw)
    assert plan is not None and not problems, problems
    return plan


@settings(max_examples=150, deadline=None)
@given(classic_plans(), st.data())
def test_compact_classic_and_mixed_replies_give_the_same_plan(steps: list[dict[str, Any]], data: Any) -> None:
    classic = parsed(reply(steps, [False] * len(steps)))
    compact = parsed(reply(steps, [True] * len(steps)))
    mixed = parsed(reply(steps, data.draw(st.lists(st.booleans(), min_size=len(steps), max_size=len(steps)))))
    assert compact == classic and mixed == classic
    assert compact.plan_hash() == classic.plan_hash() == mixed.plan_hash()
    # the compact text written back from a plan (an example, a coverage repair's turn) reads
    # as the same plan, when its ids are positional and nothing was left out (``depends_on``)
    positional = [s.id for s in classic.steps] == [f"s{k + 1}" for k in range(len(classic.steps))]
    if positional and not any("depends_on" in s for s in steps):
        assert parsed(plan_json_text(classic, "compact")) == classic


def stream_steps(text: str, cuts: list[int]) -> list[Any]:
    """What the streaming parser makes of ``text`` fed in pieces: each handed-on step in the
    classic shape (None for a malformed one)."""
    scanner = StepScanner()
    ids = PositionalIds()
    out: list[Any] = []
    bounds = sorted({0, len(text), *[c % (len(text) + 1) for c in cuts]})
    for a, b in itertools.pairwise(bounds):
        for found in scanner.feed(text[a:b]):
            if found.kind == "step":
                raw, problem = classic_step(found.value, found.index, ids)
                out.append(None if problem else raw)
    return out


@settings(max_examples=150, deadline=None)
@given(classic_plans(), st.data(), st.lists(st.integers(min_value=0, max_value=5_000), max_size=10))
def test_streaming_hands_on_the_steps_parsing_the_whole_reply_gives(
    steps: list[dict[str, Any]], data: Any, cuts: list[int]
) -> None:
    compact = data.draw(st.lists(st.booleans(), min_size=len(steps), max_size=len(steps)))
    text = reply(steps, compact, confidence=0.5)
    whole, problems = classic_steps(json.loads(text)["steps"])
    assert not problems
    assert stream_steps(text, cuts) == whole == steps


@settings(max_examples=60, deadline=None)
@given(classic_plans(), st.integers(min_value=1, max_value=9))
def test_stream_plan_and_make_plan_agree_on_a_compact_reply(steps: list[dict[str, Any]], chunk: int) -> None:
    text = reply(steps, [True] * len(steps))

    async def both() -> tuple[list[Any], Plan | None]:
        streamed = ScriptedModel([text], name="openai-compat:m", chunk_size=chunk)
        items = [i async for i in stream_plan(GOAL, SPECS, streamed)]
        planned = await make_plan(GOAL, SPECS, ScriptedModel([text], name="openai-compat:m"), max_repairs=0)
        return items, planned.plan

    items, plan = asyncio.run(both())
    done = items[-1]
    assert isinstance(done, PlanDone) and done.plan is not None and plan is not None, done
    assert done.plan.plan_hash() == plan.plan_hash()
    assert items[:-1] and all(s in done.plan.steps for s in items[:-1])  # early steps are final


# ----------------------------------------------------------------------- malformed replies


@pytest.mark.parametrize(
    ("step", "message"),
    [
        ({}, "step 's2': names no tool; write each step as {\"TOOL_NAME\": {ARGUMENTS}}"),
        (
            {"depends_on": ["s1"]},
            "step 's2': names no tool (it has only depends_on); write each step as",
        ),
        (
            {"count_words": {"text": "a"}, "summarize": {"text": "b"}},
            "step 's2': names 2 tools ('count_words', 'summarize') in one object; write one tool call",
        ),
        ({"count_words": "a b"}, "step 's2' args: the arguments of 'count_words' must be a JSON object"),
        (
            {"count_wrds": {"text": "a"}},
            "step 's2' tool: unknown tool 'count_wrds' (did you mean 'count_words'?)",
        ),
    ],
)
def test_a_malformed_compact_step_is_one_clear_line(step: dict[str, Any], message: str) -> None:
    text = json.dumps({"steps": [{"read_file": {"path": "notes.txt"}}, step]})
    plan, problems = parse_plan_text(text, GOAL, SPECS)
    assert plan is None or problems
    assert problems and str(problems[0]).startswith(message), [str(p) for p in problems]
    assert "\n" not in str(problems[0])


async def test_a_malformed_step_goes_back_to_the_model_and_the_repair_is_used() -> None:
    bad = json.dumps({"steps": [{"read_file": {"path": "notes.txt"}, "count_words": {"text": "${s1}"}}]})
    good = json.dumps({"steps": [{"read_file": {"path": "notes.txt"}}, {"count_words": {"text": "${s1}"}}]})
    model = ScriptedModel([bad, good], name="openai-compat:m")
    result = await make_plan(GOAL, SPECS, model, max_repairs=1)
    model.assert_all_used()
    assert result.ok and result.plan is not None
    assert [(s.id, s.tool) for s in result.plan.steps] == [("s1", "read_file"), ("s2", "count_words")]
    assert "names 2 tools" in model.requests[1].messages[-1].content


def test_streaming_skips_a_malformed_step_and_the_final_parse_reports_it() -> None:
    text = json.dumps(
        {"steps": [{"read_file": {"path": "a"}}, {"x": {}, "y": {}}, {"summarize": {"text": "t"}}]}
    )
    assert stream_steps(text, [5, 40]) == [
        {"id": "s1", "tool": "read_file", "args": {"path": "a"}},
        None,
        {"id": "s3", "tool": "summarize", "args": {"text": "t"}},
    ]


# ----------------------------------------------------------------------- the schema


def test_the_compact_schema_admits_compact_plans_only() -> None:
    schema = PlanSchemaBuilder(SPECS, shape="compact").plan_schema(step_ids(3))
    ok = {
        "steps": [{"read_file": {"path": "a.txt"}}, {"count_words": {"text": "${s1}"}, "depends_on": ["s1"]}]
    }
    jsonschema.validate(ok, schema)
    validator = jsonschema.Draft202012Validator(schema)
    classic = {"steps": [{"id": "s1", "tool": "read_file", "args": {"path": "a.txt"}}]}
    assert not validator.is_valid(classic)
    assert not validator.is_valid({"steps": [{"read_file": {"path": "a"}, "summarize": {"text": "b"}}]})
    assert not validator.is_valid({"steps": [{"count_words": {"text": "${s1}"}}]})  # no forward reference
    assert not validator.is_valid({"steps": [{"rm_rf": {}}]})
    # the default stays classic (the embedded model's slot grammars are written in it)
    assert PlanSchemaBuilder(SPECS).shape == "classic"
    jsonschema.validate(classic, PlanSchemaBuilder(SPECS).plan_schema(step_ids(3)))


def test_a_tool_named_like_a_step_field_keeps_the_classic_shape() -> None:
    @tool(name="description")
    def describe_it(text: str) -> str:
        """Describe a text."""
        return text

    specs: dict[str, ToolSpec] = {**SPECS, "description": describe_it.spec}
    assert shape_for(specs, "compact") == "classic"
    assert PlanSchemaBuilder(specs, shape="compact").shape == "classic"
    assert shape_for(SPECS, "compact") == "compact" and shape_for(SPECS, "classic") == "classic"
    # the planner's prompt follows the shape built
    messages, schemas, strict = build_planning_request(GOAL, specs, ScriptedModel([], name="openai:m"))
    assert messages[0].content.startswith(SYSTEM)
    assert "id" in schemas[strict]["$defs"]["step1"]["anyOf"][0]["properties"]


def test_a_tool_name_too_long_for_a_property_key_keeps_the_classic_shape() -> None:
    long_name = "x" * 65  # Anthropic refuses property keys over 64 characters
    specs = {**SPECS, long_name: SPECS["summarize"].model_copy(update={"name": long_name})}
    assert shape_for(specs, "compact") == "classic"
    assert shape_for({**SPECS, "y" * 64: SPECS["summarize"]}, "compact") == "compact"
    compact = PlanSchemaBuilder({"y" * 65: SPECS["summarize"]}, shape="compact")
    assert compact.shape == "classic"
    forced = {"type": "object", "properties": {"steps": {"type": "object", "properties": {"z" * 65: {}}}}}
    assert anthropic_problems(forced) == [
        f"#/properties/steps/properties: key {'z' * 65!r} does not match ^[a-zA-Z0-9_.-]{{1,64}}$"
    ]


def test_compact_steps_are_about_40_percent_shorter() -> None:
    steps = [{"id": f"s{k}", "tool": "read_file", "args": {"path": f"f{k}.txt"}} for k in range(1, 6)]
    compact, classic = steps_json(steps, "compact"), steps_json(steps, "classic")
    assert len(compact) < 0.65 * len(classic)
    assert json.loads(compact)["steps"][0] == {"read_file": {"path": "f1.txt"}}


# ----------------------------------------------------------------------- prompts and paths


def test_hosted_models_are_asked_for_compact_steps_and_the_embedded_model_is_not() -> None:
    hosted = ScriptedModel([], name="openai:gpt-4o-mini")
    messages, schemas, strict = build_planning_request(GOAL, SPECS, hosted)
    assert messages[0].content.startswith(SYSTEM_COMPACT)
    step1 = schemas[strict]["$defs"]["step1"]
    assert all("id" not in o["properties"] for o in step1["anyOf"])
    local = ScriptedModel([], name="local")
    messages, schemas, strict = build_planning_request(GOAL, SPECS, local, decompose=False)
    assert messages[0].content.startswith(SYSTEM)
    step1 = schemas[strict]["$defs"]["step1"]
    assert all(o["properties"]["id"] == {"const": "s1"} for o in step1.get("anyOf", [step1]))
    # and a hosted model can be asked for the classic shape
    forced = PlannerOptions(plan_shape="classic")
    messages, schemas, strict = build_planning_request(GOAL, SPECS, hosted, options=forced)
    assert messages[0].content.startswith(SYSTEM)
    assert "id" in schemas[strict]["$defs"]["step1"]["anyOf"][0]["properties"]


async def test_memory_examples_are_shown_compact_and_renumbered(tmp_path: Any) -> None:
    memory = PlanMemory(tmp_path / "m.db", starter=False)
    example = Plan.model_validate(
        {
            "goal": "Summarize notes.txt",
            "steps": [
                {"id": "read", "tool": "read_file", "args": {"path": "notes.txt"}},
                {"id": "sum", "tool": "summarize", "args": {"text": "${read}"}},
            ],
        }
    )
    memory.remember(example)
    messages, _, _ = build_planning_request(
        "Summarize report.txt", SPECS, ScriptedModel([], name="openai:m"), memory=memory
    )
    shown = [m.content for m in messages if m.role == "assistant"]
    assert '{"steps":[{"read_file":{"path":"notes.txt"}},{"summarize":{"text":"${s1}"}}]}' in shown
    assert parsed(shown[-1]).steps[1].args == {"text": "${s1}"}


def test_renumbering_follows_references_and_dependencies() -> None:
    steps = [
        {"id": "b", "tool": "read_file", "args": {"path": "x"}},
        {"id": "a", "tool": "summarize", "args": {"text": "${b}"}, "depends_on": ["b"]},
    ]
    assert renumbered(steps, ["s1"]) == [
        {"id": "s2", "tool": "read_file", "args": {"path": "x"}},
        {"id": "s3", "tool": "summarize", "args": {"text": "${s2}"}, "depends_on": ["s2"]},
    ]


async def test_replan_in_compact_numbers_new_steps_after_the_plan() -> None:
    old = Plan.model_validate(
        {
            "goal": GOAL,
            "steps": [
                {"id": "s1", "tool": "read_file", "args": {"path": "notes.txt"}},
                {"id": "s2", "tool": "count_words", "args": {"text": "${s1}"}},
            ],
        }
    )
    answer = json.dumps(
        {
            "steps": [
                {"summarize": {"text": "${s1}"}},
                {"write_file": {"path": "count.txt", "content": "${s3}"}},
            ]
        }
    )
    model = ScriptedModel([answer], name="openai-compat:m")
    new = await replan(GOAL, old, {"s1": "a b c"}, "s2 failed", SPECS, model)
    assert [(s.id, s.tool) for s in new.steps] == [
        ("s1", "read_file"),
        ("s3", "summarize"),
        ("s4", "write_file"),
    ]
    assert new.step("s4").args == {"path": "count.txt", "content": "${s3}"}
    request = model.requests[0]
    assert request.messages[0].content == SYSTEM_COMPACT
    assert "numbered s3, s4, ... in order" in request.messages[-1].content
    assert request.json_schema is not None
    jsonschema.validate(json.loads(answer), request.json_schema)
    # a classic answer (a recorded run's, a scripted test's) is still read
    classic = json.dumps({"steps": [{"id": "s3", "tool": "summarize", "args": {"text": "${s1}"}}]})
    again = await replan(GOAL, old, {"s1": "a b c"}, "s2 failed", SPECS, ScriptedModel([classic], name="m"))
    assert [s.id for s in again.steps] == ["s1", "s3"]
