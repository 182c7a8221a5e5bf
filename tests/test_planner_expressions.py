"""An arithmetic expression the goal writes out is one value (``Refinements.expression_literals``):
a tool's expression or formula parameter takes it whole, and that tool alone, or into the writer
when the goal names an output file, is a chain decided without a model.

Over a made-up tool set (a formula evaluator, a word counter, a notes reader, a text writer;
none of the bench's) with the rule on and off, once with the built-in tools (``calculate``,
``write_file``), and a property test of the expression extractor.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from forethought import tool
from forethought.plan.coverage import check_coverage
from forethought.planning.decompose import skeletons
from forethought.planning.goal_expressions import (
    expression_param,
    expression_positions,
    expression_spans,
    spelled_arithmetic,
)
from forethought.planning.planner import best_chain, parse_plan_text
from forethought.planning.refinements import Refinements
from forethought.planning.slots import plan_text
from forethought.tools.base import ToolRegistry, ToolSpec
from forethought.tools.builtin import builtin_tools


class Outcome(BaseModel):
    result: float


@tool
def evaluate_formula(formula: str) -> Outcome:
    """Evaluate a formula of numbers and operators and give its result."""
    return Outcome(result=0)


@tool
def word_count(text: str) -> int:
    """Count the words of a text."""
    return len(text.split())


@tool
def load_notes(notes_file: str) -> str:
    """Load the text of a notes file."""
    return ""


@tool(effect="mutating")
def put_text(target: str, body: str) -> str:
    """Write text to a file."""
    return target


@tool
def work_out(sum_text: str) -> float:
    """Work out a sum."""
    return 0.0


@tool
def shout(words: str, volume: str) -> str:
    """Say the words louder: the arithmetic of volume."""
    return words


SPECS = {t.spec.name: t.spec for t in (load_notes, word_count, evaluate_formula, put_text)}
ON = Refinements()
OFF = Refinements(expression_literals=False)


def _plan(
    goal: str, refinements: Refinements = ON, specs: Mapping[str, ToolSpec] = SPECS
) -> dict[str, Any] | None:
    chosen = best_chain(goal, specs, True, refinements=refinements)
    return None if chosen is None else chosen.slots.first_plan()


# ------------------------------------------------------------------------------- extractor


def test_the_longest_arithmetic_span_is_taken_as_written() -> None:
    assert expression_spans("what is 17 * 23? save it to math.txt") == ["17 * 23"]
    assert expression_spans("what is (12 + 8) * 3") == ["(12 + 8) * 3"]
    assert expression_spans("what is 2 ** 10") == ["2 ** 10"]
    assert expression_spans("compute max(4, 9) - 1, then stop") == ["max(4, 9) - 1"]
    assert expression_spans("(what is 3 * 4)") == ["3 * 4"]
    assert expression_spans("what is 17*23") == ["17*23"]


def test_numbers_dates_ranges_and_names_are_no_expressions() -> None:
    for goal in (
        "write 42 to a.txt",
        "the entries of 2026-11-03",
        "pages 10-12 of the book",
        "due 11/03/2026",
        "version v1.2.3 + 4",
        "a balance of -4",
        "1,000 + 2 visitors",
        "10 % of the rows",
        "summarise math2.txt",
    ):
        assert expression_spans(goal) == [], goal


def test_an_expression_parameter_is_found_by_name_or_description() -> None:
    assert expression_param(evaluate_formula.spec) == "formula"
    assert expression_param(work_out.spec) is None  # "sum" is no word for an expression
    assert expression_param(word_count.spec) is None
    assert expression_param(put_text.spec) is None  # a writer stores its text

    @tool
    def solve(text: str) -> float:
        """Give the value of an arithmetic expression."""
        return 0.0

    run_it = ToolSpec(
        name="run_it",
        description="Run it.",
        effect="read_only",
        input_schema={
            "type": "object",
            "properties": {
                "code": {"type": "string", "description": "the equation to evaluate"},
                "mode": {"type": "string"},
            },
            "required": ["code", "mode"],
        },
    )

    assert expression_param(solve.spec) == "text"  # its only parameter, described by the tool
    assert expression_param(run_it) == "code"  # described by its own description
    # A tool's description alone does not make one of two text parameters its expression.
    assert expression_param(shout.spec) is None


# ------------------------------------------------------------------------------ chains


def test_an_expression_with_an_output_file_is_evaluated_then_written() -> None:
    goal = "what is (12 + 8) * 3? put it in answer.txt"
    assert _plan(goal) == {
        "steps": [
            {"id": "s1", "tool": "evaluate_formula", "args": {"formula": "(12 + 8) * 3"}},
            # The record has one field: its value is written, not the record as JSON.
            {"id": "s2", "tool": "put_text", "args": {"target": "answer.txt", "body": "${s1.result}\n"}},
        ]
    }
    assert _plan(goal, OFF) is None


def test_an_expression_alone_is_one_step_whose_answer_is_printed() -> None:
    assert _plan("what is 2 ** 10") == {
        "steps": [{"id": "s1", "tool": "evaluate_formula", "args": {"formula": "2 ** 10"}}]
    }
    assert _plan("what is 2 ** 10", OFF) is None


def test_the_evaluating_chain_outranks_a_writer_of_a_goal_word() -> None:
    goal = "compute 144 / 12 and write the result to result.txt"
    assert skeletons(goal, SPECS, refinements=ON)[0].tools == ("evaluate_formula", "put_text")
    assert _plan(goal) == {
        "steps": [
            {"id": "s1", "tool": "evaluate_formula", "args": {"formula": "144 / 12"}},
            {"id": "s2", "tool": "put_text", "args": {"target": "result.txt", "body": "${s1.result}\n"}},
        ]
    }
    # Without the rule the formula has no value: the writer alone writes a goal word.
    off = _plan(goal, OFF)
    assert off is None or [s["tool"] for s in off["steps"]] == ["put_text"]


def test_goals_without_an_expression_are_planned_as_before() -> None:
    goal = "count the words in notes.txt and write the count to n.txt"
    assert _plan(goal) == _plan(goal, OFF)
    assert [s.tools for s in skeletons(goal, SPECS, refinements=ON)] == [
        s.tools for s in skeletons(goal, SPECS, refinements=OFF)
    ]


def test_the_built_in_calculator_computes_and_the_plan_covers_the_goal(tmp_path: Path) -> None:
    specs = ToolRegistry(builtin_tools(tmp_path)).specs()
    goal = "what is 17 * 23? save it to math.txt"
    plan = _plan(goal, specs=specs)
    assert plan == {
        "steps": [
            {"id": "s1", "tool": "calculate", "args": {"expression": "17 * 23"}},
            # ``value`` has no declared type (a number here): the writer's text takes it as text.
            {"id": "s2", "tool": "write_file", "args": {"path": "math.txt", "content": "${s1.value}\n"}},
        ]
    }
    parsed, problems = parse_plan_text(plan_text(plan), goal, specs)
    assert parsed is not None and problems == []
    assert check_coverage(parsed, tools=specs).covered
    assert _plan(goal, OFF, specs=specs) is None


# ---------------------------------------------------------------------------- property

_PIECES = st.sampled_from(
    ["1", "23", "4.5", "0", " ", "  ", "+", "-", "*", "**", "/", "//", "%", "(", ")", ",", ".", "x", "v",
     "max(", "min(", "round(", "?", "a.txt", "-", "2026-11-03", "10-12", "is "]
)  # fmt: skip
_NUMBER_CHAR = re.compile(r"[\d.]")


@given(st.lists(_PIECES, max_size=14).map("".join))
def test_spans_are_substrings_and_never_split_a_number(goal: str) -> None:
    for start, end in expression_positions(goal):
        span = goal[start:end]
        assert span and span in goal
        assert span == span.strip()
        # Neither end cuts through a number: a digit at an end has no digit or dot beside it
        # outside the span ("12.5": not "2.5", not "12.").
        if span[0].isdigit() and start > 0:
            assert not _NUMBER_CHAR.match(goal[start - 1])
        if span[-1].isdigit() and end < len(goal):
            assert not goal[end].isdigit()
            assert not (goal[end] == "." and goal[end + 1 : end + 2].isdigit())
    for span in expression_spans(goal):
        assert span in goal


# ------------------------------------------------------------------- said in words


@pytest.mark.parametrize(
    ("goal", "expression"),
    [
        ("what is 2 to the power of 10? save it to p.txt", "2 ** 10"),
        ("write the sum of 17 and 25 to s.txt", "17 + 25"),
        ("the difference between 10 and 3.5, please", "10 - 3.5"),
        ("17 plus 25 times 2", "17 + 25 * 2"),
        ("what is 12 squared", "12 ** 2"),
        ("100 divided by 8 into d.txt", "100 / 8"),
        ("what is 15% of 240? save it to pct.txt", "15 / 100 * 240"),
        ("12.5 percent of 80", "12.5 / 100 * 80"),
    ],
)
def test_arithmetic_said_in_words_is_an_expression(goal: str, expression: str) -> None:
    assert spelled_arithmetic(goal) != goal
    assert expression_spans(goal) == [expression]


@pytest.mark.parametrize(
    "goal",
    [
        "write 3 apples and 4 pears to fruit.txt",
        "the sum of the prices in a.csv",
        "add 5 lines to notes.txt",
        "the plus side of 2026",
        "copy times.txt to 2 places",
        "write 15% to a.txt",
        "the percent of 240 in b.txt",
    ],
)
def test_words_that_are_no_arithmetic_between_numbers_stay_words(goal: str) -> None:
    assert spelled_arithmetic(goal) == goal
    assert expression_spans(goal) == []


def test_the_built_in_calculator_takes_arithmetic_said_in_words(tmp_path: Path) -> None:
    specs = ToolRegistry(builtin_tools(tmp_path)).specs()
    goal = "what is 2 to the power of 10? save it to p.txt"
    plan = _plan(goal, specs=specs)
    assert plan is not None and plan["steps"][0] == {
        "id": "s1",
        "tool": "calculate",
        "args": {"expression": "2 ** 10"},
    }
    parsed, problems = parse_plan_text(plan_text(plan), goal, specs)
    assert parsed is not None and problems == []
    assert check_coverage(parsed, tools=specs).covered


def test_a_percentage_of_a_number_is_computed_and_covered(tmp_path: Path) -> None:
    # "what is 15% of 240? save it to pct.txt" was left to the model (four minutes on a loaded
    # machine) and waited: the 100 of the percentage was a number the goal did not say.
    specs = ToolRegistry(builtin_tools(tmp_path)).specs()
    goal = "what is 15% of 240? save it to pct.txt"
    plan = _plan(goal, specs=specs)
    assert plan is not None and plan["steps"][0]["args"] == {"expression": "15 / 100 * 240"}
    parsed, problems = parse_plan_text(plan_text(plan), goal, specs)
    assert parsed is not None and problems == [] and check_coverage(parsed, tools=specs).covered
    # A hundred the goal does not imply is still made up.
    unsaid = parsed.model_copy(update={"goal": "what is 15 of 240? save it to pct.txt"})
    assert not check_coverage(unsaid, tools=specs).covered


def test_an_expression_parameter_takes_no_files_text(tmp_path: Path) -> None:
    # "find the largest qty in data.csv" handed read_file's text to calculate, which failed on
    # the CSV: without an expression in the goal, an expression parameter has no value.
    specs = ToolRegistry(builtin_tools(tmp_path)).specs()
    steps = _plan("find the largest qty in data.csv and write it to max.txt", specs=specs)
    assert steps is None or "calculate" not in [s["tool"] for s in steps["steps"]]


@pytest.mark.parametrize("goal", ["what is " + "1 + " * 4000 + "1", "what is " + "1 plus " * 4000 + "1"])
def test_a_run_of_thousands_of_operators_is_no_expression_and_no_stall(goal: str) -> None:
    # ast.parse raised RecursionError out of the planner on such a goal, after parsing ~n²
    # stretches of it.
    assert expression_spans(goal) == []


def test_an_expression_too_deep_to_parse_is_none() -> None:
    from forethought.planning.goal_expressions import _is_arithmetic

    assert not _is_arithmetic("1 + " * 5000 + "1")  # RecursionError in ast construction
    assert expression_spans("what is " + "1 + " * 20 + "1") == ["1 + " * 20 + "1"]
