"""A count of a kind of item no tool knows is named impossible before planning.

"how many sentences are in story.txt" over the built-ins had been planned as ``text_stats`` and
reported its lines (or its whole record) as "succeeded"; "how big is report.md in kilobytes?"
wrote the file's text. Tested over a made-up choir's tools and the built-ins, with the goals the
rule must leave alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from _planner_support import decided_steps
from forethought.plan.counted import counted_nouns
from forethought.plan.tool_spec import ToolSpec
from forethought.planning.capability import missing_capabilities, missing_counts
from forethought.planning.refinements import Refinements
from forethought.tools.base import ToolRegistry
from forethought.tools.builtin import builtin_tools


def _spec(
    name: str, description: str, params: dict[str, Any], output: dict[str, Any] | None = None
) -> ToolSpec:
    return ToolSpec(
        name=name,
        description=description,
        input_schema={"type": "object", "properties": params, "required": list(params)},
        output_schema=output,
        effect="read_only",
    )


_TEXT = {"type": "string"}
CHOIR = {
    "open_hymnal": _spec("open_hymnal", "Open a hymnal file and give its text.", {"hymnal_path": _TEXT}),
    "hymn_parts": _spec(
        "hymn_parts",
        "Tell a hymn's verses and refrains apart.",
        {"text": _TEXT},
        {"type": "object", "properties": {"verses": {"type": "integer"}, "refrains": {"type": "integer"}}},
    ),
    "post_rota": ToolSpec(
        name="post_rota",
        description="Post the choir rota",
        input_schema={"type": "object", "properties": {"rota_file": _TEXT, "rota": _TEXT}},
        effect="mutating",
    ),
}


@pytest.mark.parametrize(
    ("goal", "nouns"),
    [
        ("how many sentences are in story.txt", ["sentences"]),
        ("count the paragraphs in report.md and write the count to p.txt", ["paragraphs"]),
        ("How many API requests (paths starting with /api/) came in?", ["requests"]),
        ("count all the red placards", ["placards"]),
        ("the number of tides in july.txt", ["tides"]),
        # how it is counted, or no noun of the count's
        ("how many times does alice appear in names.txt", []),
        ("how many of the lines mention TODO", []),
        ("the count goes in reorder_count.txt", []),
        ("How many km was the trip in trips.txt?", []),
    ],
)
def test_the_noun_a_count_is_of(goal: str, nouns: list[str]) -> None:
    assert counted_nouns(goal) == nouns


def test_a_kind_no_tool_names_is_missing() -> None:
    missing = missing_counts("how many choruses are in hymn.txt? write it to c.txt", CHOIR)
    assert [(m.verb, m.target) for m in missing] == [("count", "choruses")]
    assert str(missing[0]).startswith(
        'no tool can count "choruses"; available: hymn_parts, open_hymnal, post_rota'
    )


@pytest.mark.parametrize(
    "goal",
    [
        "how many verses are in hymn.txt? write it to v.txt",  # an output field counts them
        "count the refrains of hymn.txt",
        "how many lines does hymn.txt have",  # words of any text: every reader is about them
        "how many minutes does hymn.txt last",  # a unit: arithmetic may give it
        "how many days are left before the concert",
        "post the rota to rota.txt; the count goes nowhere",
    ],
)
def test_counts_a_tool_knows_or_no_kind_at_all_are_left_alone(goal: str) -> None:
    assert missing_counts(goal, CHOIR) == []


def test_a_tool_named_for_counting_counts_whatever_the_goal_calls_the_items() -> None:
    counter = _spec("count_hymns", "How many hymns a list holds.", {"hymns": {"type": "array"}})
    assert missing_counts("how many choruses are in hymn.txt", {**CHOIR, "count_hymns": counter}) == []


@pytest.fixture(scope="module")
def builtins() -> dict[str, ToolSpec]:
    return dict(ToolRegistry(builtin_tools(Path("/tmp"))).specs())


@pytest.mark.parametrize(
    ("goal", "noun"),
    [
        ("how many sentences are in story.txt", "sentences"),
        ("count the paragraphs in report.md and write the count to p.txt", "paragraphs"),
    ],
)
def test_on_the_builtins_a_count_of_sentences_ends_before_planning(
    goal: str, noun: str, builtins: dict[str, ToolSpec]
) -> None:
    assert [str(m).split(";")[0] for m in missing_capabilities(goal, builtins)] == [
        f'no tool can count "{noun}"'
    ]


@pytest.mark.parametrize(
    "goal",
    ["how many words are in notes.txt", "count the lines in data.csv and save the number to lines.txt"],
)
def test_on_the_builtins_counts_they_give_are_not_missing(goal: str, builtins: dict[str, ToolSpec]) -> None:
    assert missing_capabilities(goal, builtins) == []


@pytest.mark.parametrize(
    "goal", ["how big is report.md in kilobytes? write it to kb.txt", "how large is data.csv?"]
)
def test_a_size_asked_is_no_copy_of_the_text(goal: str, builtins: dict[str, ToolSpec]) -> None:
    steps = decided_steps(goal, builtins, Refinements())
    # It had been decided as read_file then write_file of the text; now no decided plan hands
    # the text on as the answer.
    assert not any(args.get("content") == "${s1.content}" for _, args in steps)
    assert [tool for tool, _ in steps] != ["read_file", "write_file"]


@pytest.mark.parametrize(
    ("goal", "phrase"),
    [
        ("how many unique words are in notes.txt", "unique words"),
        ("how many distinct words does notes.txt have? write it to u.txt", "distinct words"),
        ("count the blank lines in notes.txt", "blank lines"),
    ],
)
def test_on_the_builtins_a_count_of_items_picked_by_a_word_ends_before_planning(
    goal: str, phrase: str, builtins: dict[str, ToolSpec]
) -> None:
    # "unique words" had run as text_stats and shown every word's count, "succeeded".
    missing = missing_capabilities(goal, builtins)
    assert [str(m).split(";")[0] for m in missing] == [f'no tool can pick "{phrase}"']


def test_a_tool_of_the_same_sense_can_pick_them() -> None:
    goal = "how many unique verses are in hymn.txt"
    assert [str(m).split(";")[0] for m in missing_capabilities(goal, CHOIR)] == [
        'no tool can pick "unique verses"'
    ]
    distinct = _spec("distinct_verses", "The different verses of a hymn.", {"text": _TEXT})
    assert missing_capabilities(goal, {**CHOIR, "distinct_verses": distinct}) == []


@pytest.mark.parametrize(
    "goal", ["what percentage of the lines in notes.txt are empty", "what proportion of notes.txt is words"]
)
def test_a_share_asked_is_not_answered_by_the_counts(goal: str, builtins: dict[str, ToolSpec]) -> None:
    # It had been decided as text_stats alone, its record shown as the answer.
    assert decided_steps(goal, builtins, Refinements()) == []
