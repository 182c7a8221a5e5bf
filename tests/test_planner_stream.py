"""The incremental step scanner (property-tested) and stream_plan."""

from __future__ import annotations

import contextlib
import itertools
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _planner_support import bench_like_specs
from forethought.models import ScriptedModel
from forethought.plan.model import Step
from forethought.planning.streaming import PlanDone, PlanParseError, StepScanner, stream_plan

SPECS = bench_like_specs()

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=8)
    | st.floats(allow_nan=False, allow_infinity=False)
)
json_values = st.recursive(
    json_scalars,
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3),
    max_leaves=8,
)
step_objects = st.dictionaries(st.text(max_size=6), json_values, max_size=4)


@st.composite
def documents(draw: Any) -> tuple[str, list[Any], Any]:
    steps = draw(st.lists(step_objects, max_size=5))
    extra = draw(
        st.dictionaries(
            st.text(max_size=5).filter(lambda k: k not in ("steps", "goal")), json_values, max_size=2
        )
    )
    goal = draw(st.none() | st.text(max_size=10))
    doc: Any = {**extra, "steps": steps} if draw(st.booleans()) else {"steps": steps, **extra}
    if goal is not None:
        doc["goal"] = goal
    if draw(st.booleans()):
        doc = steps  # a bare list is accepted too
    indent = draw(st.sampled_from([None, 0, 2]))
    text = json.dumps(doc, indent=indent, ensure_ascii=draw(st.booleans()))
    prefix = draw(st.sampled_from(["", "Here is the plan:\n```json\n", "  "]))
    return prefix + text, steps, doc


def scan(text: str, cuts: list[int]) -> tuple[list[Any], list[str], Any]:
    scanner = StepScanner()
    found_steps: list[Any] = []
    goals: list[str] = []
    bounds = sorted({0, len(text), *[c % (len(text) + 1) for c in cuts]})
    for a, b in itertools.pairwise(bounds):
        for f in scanner.feed(text[a:b]):
            (found_steps if f.kind == "step" else goals).append(f.value)  # type: ignore[arg-type]
    return found_steps, goals, scanner.close()


@settings(max_examples=300, deadline=None)
@given(documents(), st.lists(st.integers(min_value=0, max_value=10_000), max_size=12))
def test_any_split_yields_the_same_steps_as_parsing_whole(doc: Any, cuts: list[int]) -> None:
    text, steps, parsed = doc
    found, goals, whole = scan(text, cuts)
    assert found == steps
    assert whole == parsed
    if isinstance(parsed, dict) and "goal" in parsed:
        assert goals == [parsed["goal"]]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80), st.lists(st.integers(min_value=0, max_value=100), max_size=5))
def test_arbitrary_text_raises_only_parse_errors(text: str, cuts: list[int]) -> None:
    with contextlib.suppress(PlanParseError):
        scan(text, cuts)


def test_truncated_and_mismatched() -> None:
    s = StepScanner()
    assert [f.value for f in s.feed('{"steps":[{"id":"s1"},{"id"')] == [{"id": "s1"}]
    with pytest.raises(PlanParseError, match="ended early"):
        s.close()
    with pytest.raises(PlanParseError, match="unexpected"):
        StepScanner().feed('{"steps":[}')
    with pytest.raises(PlanParseError, match="no JSON"):
        StepScanner().close()


GOOD = json.dumps(
    {
        "steps": [
            {"id": "s1", "tool": "read_file", "args": {"path": "notes.txt"}},
            {"id": "s2", "tool": "count_words", "args": {"text": "${s1}"}},
            {"id": "s3", "tool": "count_words", "args": {"text": "${s9}"}},
            {"id": "s4", "tool": "read_file", "args": {"path": "notes.txt"}},
        ]
    }
)


async def test_stream_plan_yields_admissible_steps_then_done() -> None:
    model = ScriptedModel([GOOD], chunk_size=5)
    items = [i async for i in stream_plan("Count the words in notes.txt", SPECS, model)]
    model.assert_all_used()
    streamed = [i for i in items if isinstance(i, Step)]
    done = items[-1]
    assert isinstance(done, PlanDone)
    # s3 references a step that never appears: held back; s4 duplicates s1: dropped.
    assert [s.id for s in streamed] == ["s1", "s2"] and done.streamed == ("s1", "s2")
    assert done.plan is not None and not done.ok
    assert any(p.step_id == "s3" for p in done.problems)
    assert done.first_step_s is not None and done.first_step_s <= done.total_s
    assert all(done.plan.step(s.id) == s for s in streamed)


async def test_stream_plan_garbage_ends_with_problem() -> None:
    items = [i async for i in stream_plan("g", SPECS, ScriptedModel(["{]]] nope"]))]
    assert len(items) == 1 and isinstance(items[0], PlanDone)
    assert not items[0].ok and items[0].plan is None and items[0].problems


async def test_a_decided_chain_streams_without_a_model_call(tmp_path: Any) -> None:
    """Every slot of the best chain decided: the plan streams at once, the same plan
    ``make_plan`` returns, and the model is never asked (it has no answer to give)."""
    from forethought.planning.planner import PlannerOptions, make_plan
    from forethought.tools.base import ToolRegistry
    from forethought.tools.builtin import builtin_tools

    specs = ToolRegistry(builtin_tools(tmp_path)).specs()
    options = PlannerOptions(decompose=True)
    goal = "count the words in notes.txt"
    model = ScriptedModel([])
    items = [item async for item in stream_plan(goal, specs, model, options=options)]
    *steps, done = items
    assert isinstance(done, PlanDone) and done.ok and done.plan is not None
    assert done.calls == [] and model.requests == []
    assert [s.tool for s in steps if isinstance(s, Step)] == ["read_file", "text_stats"]
    assert done.streamed == tuple(s.id for s in done.plan.steps)
    planned = await make_plan(goal, specs, ScriptedModel([]), options=options)
    assert planned.plan is not None and planned.plan.steps == done.plan.steps


async def test_an_undecided_chain_still_asks_the_model(tmp_path: Any) -> None:
    from forethought.errors import ModelError
    from forethought.planning.planner import PlannerOptions
    from forethought.tools.base import ToolRegistry
    from forethought.tools.builtin import builtin_tools

    specs = ToolRegistry(builtin_tools(tmp_path)).specs()
    model = ScriptedModel([])
    with pytest.raises(ModelError):
        # No file named, nothing to bind a path to: the model would have to choose.
        _ = [
            item
            async for item in stream_plan(
                "tidy up my notes", specs, model, options=PlannerOptions(decompose=True)
            )
        ]
    assert len(model.requests) == 1
