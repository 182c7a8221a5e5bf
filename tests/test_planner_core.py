"""make_plan / replan with ScriptedModel, and the generated output schema."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from _planner_support import bench_like_specs
from forethought.errors import ModelError
from forethought.models import ModelRequest, ScriptedModel
from forethought.plan.model import Plan
from forethought.planning.grammar import (
    PlanSchemaBuilder,
    goal_literals,
    min_steps_hint,
    plan_json_schema,
    rank_tools,
)
from forethought.planning.memory import PlanMemory
from forethought.planning.planner import (
    PlannerOptions,
    PlanningError,
    drop_duplicate_steps,
    make_plan,
    parse_plan_text,
    replan,
)

SPECS = bench_like_specs()
GOOD = json.dumps(
    {
        "steps": [
            {"id": "s1", "tool": "read_file", "args": {"path": "notes.txt"}},
            {"id": "s2", "tool": "count_words", "args": {"text": "${s1}"}},
        ]
    }
)


GOOD_COMPACT = json.dumps(
    {"steps": [{"read_file": {"path": "notes.txt"}}, {"count_words": {"text": "${s1}"}}]}
)


def steps(*items: tuple[str, dict[str, Any]]) -> str:
    return json.dumps(
        {"steps": [{"id": f"s{i + 1}", "tool": t, "args": a} for i, (t, a) in enumerate(items)]}
    )


async def test_valid_plan_first_try_and_schema_from_tools() -> None:
    model = ScriptedModel([GOOD])
    result = await make_plan("Count the words in notes.txt", SPECS, model)
    model.assert_all_used()
    assert result.ok and result.plan is not None
    assert [s.tool for s in result.plan.steps] == ["read_file", "count_words"]
    assert result.plan.goal == "Count the words in notes.txt"
    request = model.requests[0]
    schema = request.json_schema
    assert schema is not None
    # The right answer is admitted in the compact shape asked of a hosted model (the classic
    # GOOD above was read all the same) …
    jsonschema.validate(json.loads(GOOD_COMPACT), schema)
    bad = {"steps": [{"rm_rf": {}}]}
    with pytest.raises(jsonschema.ValidationError):  # … an unknown tool is not
        jsonschema.validate(bad, schema)
    prompt = "\n".join(m.content for m in request.messages)
    assert "read_file(path: string) -> string" in prompt and '"notes.txt"' in prompt
    assert result.usage.total_tokens > 0 and len(result.calls) == 1


async def test_repair_round_shows_located_problems() -> None:
    broken = steps(("read_file", {"path": "a.txt"}), ("count_words", {"txt": "${s1}"}))
    model = ScriptedModel([broken, GOOD])
    result = await make_plan("Count the words in a.txt", SPECS, model, max_repairs=1)
    model.assert_all_used()
    assert result.ok and len(result.calls) == 2
    repair = model.requests[1].messages[-1].content
    assert "step 's2'" in repair and "txt" in repair
    assert model.requests[1].messages[-2].content == broken  # the model sees its own answer


async def test_gives_up_after_bounded_repairs() -> None:
    model = ScriptedModel(["not json", '{"steps": "nope"}', "still nothing"])
    result = await make_plan("Count the words in a.txt", SPECS, model, max_repairs=2)
    model.assert_all_used()
    assert not result.ok and result.problems
    with pytest.raises(PlanningError, match="no valid plan"):
        result.require()
    with pytest.raises(ModelError):  # one more call than scripted would be a bug
        await model.complete(ModelRequest.of(None, "x"))


async def test_model_errors_propagate_and_no_tools_is_an_error() -> None:
    with pytest.raises(ModelError, match="down"):
        await make_plan("x", SPECS, ScriptedModel([ModelError("down")]))
    with pytest.raises(PlanningError, match="no tools"):
        await make_plan("x", {}, ScriptedModel([]))


async def test_memory_examples_are_offered_as_chat_turns(tmp_path: Any) -> None:
    memory = PlanMemory(tmp_path / "m.sqlite", starter=False)
    memory.remember(
        Plan.model_validate({"goal": "How many words are in essay.txt?", "steps": json.loads(GOOD)["steps"]})
    )
    model = ScriptedModel([GOOD])
    await make_plan("Count the words in notes.txt", SPECS, model, memory=memory)
    roles = [m.role for m in model.requests[0].messages]
    assert roles == ["system", "user", "assistant", "user"]
    assert "essay.txt" in model.requests[0].messages[1].content


def test_strict_literals_type_directed() -> None:
    lits = goal_literals('Write "hello world" to out.txt and count 3 words in notes.md')
    assert lits.strings == ("hello world", "out.txt", "notes.md") and lits.numbers == (3.0,)
    builder = PlanSchemaBuilder(SPECS, literals=lits)
    schema = builder.plan_schema(["s1", "s2"])
    ok = {
        "steps": [{"id": "s1", "tool": "write_file", "args": {"path": "out.txt", "content": "hello world"}}]
    }
    jsonschema.validate(ok, schema)
    for bad_args in (
        {"path": "hello world", "content": "x"},  # not a file name
        {"path": "out.txt", "content": "${s2}"},
    ):  # forward reference
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"steps": [{"id": "s1", "tool": "write_file", "args": bad_args}]}, schema)
    # count_words(text=...) has no fitting literal at step 1: only a reference would do.
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(
            {"steps": [{"id": "s1", "tool": "count_words", "args": {"text": "notes.md"}}]}, schema
        )
    jsonschema.validate(
        {
            "steps": [
                {"id": "s1", "tool": "read_file", "args": {"path": "notes.md"}},
                {"id": "s2", "tool": "count_words", "args": {"text": "${s1}"}},
            ]
        },
        schema,
    )


def test_free_schema_forbids_dollar_but_allows_refs() -> None:
    schema = plan_json_schema(SPECS, max_steps=3)
    jsonschema.validate(
        {
            "steps": [
                {"id": "s1", "tool": "read_file", "args": {"path": "x"}},
                {"id": "s2", "tool": "summarize", "args": {"text": "${s1}"}},
            ]
        },
        schema,
    )
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"steps": [{"id": "s1", "tool": "read_file", "args": {"path": "${s1}"}}]}, schema)
    with pytest.raises(jsonschema.ValidationError):  # at most max_steps
        jsonschema.validate(
            {"steps": [{"id": f"s{i}", "tool": "read_file", "args": {"path": "x"}} for i in range(1, 5)]},
            schema,
        )


def test_ranking_and_min_steps() -> None:
    assert next(iter(rank_tools("count the words in notes.txt", SPECS))) == "count_words"
    assert min_steps_hint("Count the words in notes.txt", SPECS) == 2
    assert min_steps_hint("hello", SPECS) == 1


def test_duplicates_dropped_and_references_rewritten() -> None:
    raw = [
        {"id": "s1", "tool": "read_file", "args": {"path": "a"}},
        {"id": "s2", "tool": "read_file", "args": {"path": "a"}},
        {"id": "s3", "tool": "count_words", "args": {"text": "${s2}"}, "depends_on": ["s2"]},
        {"id": "s4", "tool": "write_file", "args": {"path": "o", "content": "x"}},
        {"id": "s5", "tool": "write_file", "args": {"path": "o", "content": "x"}},
    ]
    out = drop_duplicate_steps(raw, SPECS)
    assert [s["id"] for s in out] == ["s1", "s3", "s4", "s5"]  # side effects are kept
    assert out[1]["args"] == {"text": "${s1}"} and out[1]["depends_on"] == ["s1"]


def test_parse_plan_text_tolerates_fences_and_never_raises() -> None:
    plan, problems = parse_plan_text("Sure!\n```json\n" + GOOD + "\n```", "g", SPECS)
    assert plan is not None and not problems
    for junk in ("", "[]", "{", '{"steps": [1]}', "null", '{"steps": [{"id": "s1"}]}'):
        plan, problems = parse_plan_text(junk, "g", SPECS)
        assert problems, junk


async def test_replan_keeps_completed_steps_verbatim() -> None:
    old = Plan.model_validate(
        {
            "goal": "g",
            "version": 2,
            "steps": [
                {"id": "read", "tool": "read_file", "args": {"path": "a.txt"}, "description": "orig"},
                {"id": "sum", "tool": "summarize", "args": {"text": "${read}"}},
                {"id": "save", "tool": "write_file", "args": {"path": "o.txt", "content": "${sum}"}},
            ],
        }
    )
    # The model tries to rewrite the completed step; it must be ignored.
    answer = json.dumps(
        {
            "steps": [
                {"id": "read", "tool": "read_file", "args": {"path": "EVIL.txt"}},
                {"id": "s1", "tool": "summarize", "args": {"text": "${read}"}},
                {"id": "s2", "tool": "write_file", "args": {"path": "o.txt", "content": "${s1}"}},
            ]
        }
    )
    model = ScriptedModel(["garbage", answer])
    calls: list[Any] = []
    new = await replan("g", old, {"read": "text " * 200}, "summarize timed out", SPECS, model, calls=calls)
    model.assert_all_used()
    assert new.version == 3 and new.parent_version == 2
    assert new.step("read") == old.step("read")
    assert [s.id for s in new.steps] == ["read", "s1", "s2"]
    prompt = model.requests[0].messages[-1].content
    assert "summarize timed out" in prompt and "chars)" in prompt  # output was summarized
    assert len(calls) == 2 and calls[0].role == "replanner"
    schema = model.requests[0].json_schema
    # New steps are numbered after the plan's ids, never reusing "read": compact steps by
    # position (the prompt says which ids they get), classic ones by their id's const.
    assert schema is not None and "id" not in schema["$defs"]["step1"]["anyOf"][0]["properties"]
    assert "numbered s1, s2, ... in order" in prompt
    classic_model = ScriptedModel([answer])
    shape = PlannerOptions(plan_shape="classic")
    classic = await replan(
        "g", old, {"read": "text"}, "summarize timed out", SPECS, classic_model, options=shape
    )
    assert classic == new
    schema = classic_model.requests[0].json_schema
    assert schema is not None and schema["$defs"]["step1"]["anyOf"][0]["properties"]["id"] == {"const": "s1"}


async def test_replan_failure_is_bounded() -> None:
    old = Plan.model_validate(
        {"goal": "g", "steps": [{"id": "s1", "tool": "read_file", "args": {"path": "a"}}]}
    )
    with pytest.raises(PlanningError, match="replan of version 1 failed"):
        await replan("g", old, {}, "x", SPECS, ScriptedModel(["no", "no"]), max_repairs=1)
    with pytest.raises(PlanningError, match="not in plan"):
        await replan("g", old, {"zz": 1}, "x", SPECS, ScriptedModel([]))


async def test_unconstrained_option_sends_no_schema() -> None:
    model = ScriptedModel([GOOD])
    await make_plan("g", SPECS, model, options=PlannerOptions(constrained=False))
    assert model.requests[0].json_schema is None


async def test_invalid_tail_is_pruned_for_the_embedded_model() -> None:
    answer = steps(
        ("read_file", {"path": "notes.txt"}),
        ("count_words", {"text": "${s1}"}),
        ("count_words", {"text": "${s2}"}),
    )  # int into a text argument
    model = ScriptedModel([answer], name="local")
    # The whole-plan path (decompose-then-fill would plan this goal without the model).
    whole = PlannerOptions(decompose=False)
    result = await make_plan("Count the words in notes.txt", SPECS, model, options=whole)
    model.assert_all_used()  # no repair call: pruning sufficed
    assert result.ok and result.plan is not None
    assert [s.id for s in result.plan.steps] == ["s1", "s2"]
    assert result.plan.metadata["pruned"] == ["s3"]
    # Other models get a repair round first; pruning is the last resort.
    other = ScriptedModel([answer, answer], name="openai:gpt-4o-mini")
    result = await make_plan("Count the words in notes.txt", SPECS, other, max_repairs=1)
    other.assert_all_used()
    assert result.ok and result.plan is not None and len(result.plan.steps) == 2


def test_prune_gives_up_when_nothing_valid_remains() -> None:
    from forethought.plan.validation import Problem
    from forethought.planning.planner import prune_invalid_steps

    bad_plan = Plan.model_validate(
        {"goal": "g", "steps": [{"id": "s1", "tool": "count_words", "args": {"text": 3}}]}
    )
    assert prune_invalid_steps(bad_plan, [Problem("x", "m", "s1")], SPECS) is None
    assert prune_invalid_steps(bad_plan, [Problem("x", "m", None)], SPECS) is None


def test_goal_literals_find_directories() -> None:
    from forethought.planning.grammar import goal_literals

    assert goal_literals("list the files in docs and save them to report.txt").directories == ("docs",)
    assert goal_literals("list the files in the workspace").directories == (".",)
    assert goal_literals("list the files in this directory").directories == (".",)
    assert goal_literals("list files under src/app").directories == ("src/app",)
    assert goal_literals("count the words in notes.txt").directories == ()
