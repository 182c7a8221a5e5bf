"""What a count is of: false successes found as a new user on the built-in tools.

- "how many times does alice appear in names.txt? answer in alice.txt": the embedded model
  planned read_file → text_stats → write ``${s2.words}``; the file's word count (4) was written
  and the run said succeeded. The goal names what to count and no step was given it.
- "write the TODO lines of notes.txt to todo.txt": decided without a model as read_file →
  text_stats → write ``${s2.lines}``: "5" was written and the run said succeeded. The goal asks
  for no number, but text_stats is no tool *named* for counting (only its description opens
  with "Count"), so the unasked-count rule did not see it.

The tool set is made up here (a ship's deck log).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from _planner_support import decided_steps
from forethought import tool
from forethought.agent import Agent
from forethought.models.scripted import ScriptedModel
from forethought.plan.counted import counted_terms, described_items, narrowing_words
from forethought.plan.coverage import check_coverage
from forethought.plan.model import Plan
from forethought.planning.refinements import Refinements
from forethought.tools.base import ToolRegistry
from forethought.tools.builtin import builtin_tools


class LogTally(BaseModel):
    entries: int
    words: int


@tool
def deck_log(log_name: str) -> str:
    """The text of a ship's deck log."""
    return ""


@tool
def log_tally(text: str) -> LogTally:
    """Count the entries and words of a deck log's text."""
    return LogTally(entries=0, words=0)


@tool
def entries_mentioning(text: str, term: str) -> str:
    """The entries of a deck log's text that mention a term, one per line."""
    return ""


@tool
def storm_entries(text: str) -> str:
    """The entries of a deck log's text that record a storm, one per line."""
    return ""


@tool
def entries_with_wind(text: str, knots: int) -> str:
    """The entries of a deck log's text with a wind of at least so many knots, one per line."""
    return ""


@tool
def entry_at(text: str, number: int) -> str:
    """One entry of a deck log's text, by its number (1 is the first)."""
    return ""


@tool
def log_entries(log_name: str) -> list[str]:
    """The entries of a ship's deck log, one string each."""
    return []


@tool
def mean_knots(entries: list[str]) -> float:
    """The mean wind speed, in knots, of some deck log entries."""
    return 0.0


@tool
def windy_entries(entries: list[str], knots: float) -> list[str]:
    """Only the entries with a wind of at least so many knots."""
    return entries


@tool(effect="mutating")
def post_bulletin(board: str, message: str) -> str:
    """Post a message on a bulletin board (a file), replacing what it said."""
    return board


SPECS = {
    t.spec.name: t.spec
    for t in (
        deck_log,
        log_tally,
        entries_mentioning,
        storm_entries,
        entries_with_wind,
        entry_at,
        log_entries,
        mean_knots,
        windy_entries,
        post_bulletin,
    )
}


def plan(goal: str, *steps: tuple[str, dict[str, Any]]) -> Plan:
    return Plan.model_validate(
        {"goal": goal, "steps": [{"id": f"s{i}", "tool": t, "args": a} for i, (t, a) in enumerate(steps, 1)]}
    )


def tallied(goal: str, field: str, *middle: tuple[str, dict[str, Any]]) -> Plan:
    """deck.log read, (``middle``), tallied, and the tally's ``field`` posted to board.txt."""
    source = f"${{s{len(middle) + 1}}}"
    return plan(
        goal,
        ("deck_log", {"log_name": "deck.log"}),
        *middle,
        ("log_tally", {"text": source}),
        ("post_bulletin", {"board": "board.txt", "message": f"${{s{len(middle) + 2}.{field}}}"}),
    )


def findings(p: Plan) -> list[tuple[str, str | None]]:
    return [(f.kind, f.literal) for f in check_coverage(p, tools=SPECS).missing]


# ------------------------------------------------------------------------- the goal's text


@pytest.mark.parametrize(
    ("goal", "terms"),
    [
        ("how many times does alice appear in names.txt? answer in alice.txt", ["alice"]),
        ("How often is the word error mentioned in log.txt", ["error"]),
        ("How many times the name Carol appears in names.txt", ["Carol"]),
        ("count the occurrences of 'bob' in a.txt", ["bob"]),
        ("write the number of mentions of albatross in deck.log to n.txt", ["albatross"]),
        ("how many lines does data.csv have", []),
        ("how many words are in notes.txt", []),
        ("how many times did it happen", []),
    ],
)
def test_the_term_a_count_of_occurrences_is_of(goal: str, terms: list[str]) -> None:
    assert counted_terms(goal) == terms


@pytest.mark.parametrize(
    ("goal", "noun", "words"),
    [
        ("how many TODO lines are in notes.txt", "lines", ["todo"]),
        ("Count the non-empty lines in a.txt", "lines", ["empty"]),
        ("how many total words are in a.txt", "words", []),
        ("how many words are in notes.txt", "words", []),
        ("the number of words and lines of a.txt", "lines", []),  # two counts, neither narrowed
        ("how many Saturday entries", "entries", []),  # a day: a filter takes it as a date
        ("how many five entries", "entries", []),
        ("how many lines", "ln", []),  # too short a field to find in a goal
    ],
)
def test_the_words_narrowing_a_counted_field(goal: str, noun: str, words: list[str]) -> None:
    assert narrowing_words(goal, noun) == words


@pytest.mark.parametrize(
    ("goal", "words"),
    [
        ("write the TODO lines of notes.txt to todo.txt", [["todo"]]),
        ("write the lines of notes.txt that start with TODO to t.txt", [["todo"]]),
        ("the entries that mention the word gale, to g.txt", [["gale"]]),
        ("the entries in deck.log that haven't been signed", [["signed"]]),
        ("list the entries that appear in deck_2.log in e.txt", []),  # where, not which
        # A day is what a filter takes; a verb the clause says cannot be told from a word of
        # the items (a step filtering by a value of its own may stand for it, see below).
        ("the entries that were made after the tenth of May", [["made"]]),
        ("the number of entries", []),
        ("the entries by the bosun", []),
        ("post the storm entries and the calm entries to b.txt", [["storm"], ["calm"]]),
        ("how many entries in deck.log mention gales? post it", [["gales"]]),  # no "that"
        ("count the unique entries of deck.log", [["unique"]]),
        ("post the entries that start with a to b.txt", [["a"]]),  # a letter, not an article
        ("post the entries of deck.log when the wind came from the north", [["wind", "came", "north"]]),
        ("how many entries with a gale warning are in deck.log?", [["gale", "warning"]]),
        ("post the entries that end with a question mark", [["question", "mark"]]),
    ],
)
def test_the_words_that_say_which_items(goal: str, words: list[list[str]]) -> None:
    assert [w for _, w in described_items(goal)] == words


@given(st.text(max_size=120))
def test_reading_any_goal_never_raises(goal: str) -> None:
    for term in counted_terms(goal):
        assert term and term == term.strip()
    assert all(w.isalnum() for w in narrowing_words(goal, "lines"))
    assert all(words and all(w.isalnum() for w in words) for _, words in described_items(goal))


# ------------------------------------------------------------------------------ the check

TIMES = "how many times does albatross appear in deck.log? post it to board.txt"


def test_a_count_of_a_term_no_step_is_given_is_not_covered() -> None:
    # Every word of the log counted: the albatross's count it is not.
    assert ("missing_action", "albatross") in findings(tallied(TIMES, "entries"))
    # The entries mentioning it, tallied: covered.
    narrowed = tallied(TIMES, "entries", ("entries_mentioning", {"text": "${s1}", "term": "albatross"}))
    assert findings(narrowed) == []


def test_a_quoted_term_is_said_once_as_an_unused_literal() -> None:
    goal = "count the occurrences of 'albatross' in deck.log and post it to board.txt"
    assert [k for k, lit in findings(tallied(goal, "entries")) if lit == "albatross"] == ["missing_literal"]


def test_a_counted_field_narrowed_by_words_no_step_takes_is_not_covered() -> None:
    goal = "how many storm entries are in deck.log? post it to board.txt"
    missing = check_coverage(tallied(goal, "entries"), tools=SPECS).missing
    assert [(f.kind, f.literal, f.step_id) for f in missing] == [("missing_action", "storm", "s3")]
    assert "a count of all entries" in str(missing[0])
    # Narrowed by a tool named for the word: covered.
    assert findings(tallied(goal, "entries", ("storm_entries", {"text": "${s1}"}))) == []
    # By an argument holding it: covered.
    term = tallied(goal, "entries", ("entries_mentioning", {"text": "${s1}", "term": "storm"}))
    assert findings(term) == []
    # Not narrowed at all: nothing to find.
    assert findings(tallied("how many entries are in deck.log? post it to board.txt", "entries")) == []


def test_a_count_from_a_tool_whose_description_counts_is_no_listing() -> None:
    goal = "post the storm entries of deck.log to board.txt"
    missing = findings(tallied(goal, "entries"))
    assert ("missing_action", "count") in missing
    # The whole tally record is no count of one thing, and a listing is what was asked.
    listing = plan(
        goal,
        ("deck_log", {"log_name": "deck.log"}),
        ("storm_entries", {"text": "${s1}"}),
        ("post_bulletin", {"board": "board.txt", "message": "${s2}"}),
    )
    assert findings(listing) == []
    # An adjective a value stands for: a step filtering by a value of the goal may be it.
    rough = "post the rough entries of deck.log, those with winds of 30 knots or more, to board.txt"
    by_value = plan(
        rough,
        ("deck_log", {"log_name": "deck.log"}),
        ("entries_with_wind", {"text": "${s1}", "knots": 30}),
        ("post_bulletin", {"board": "board.txt", "message": "${s2}"}),
    )
    assert findings(by_value) == []
    copied = plan(
        rough,
        ("deck_log", {"log_name": "deck.log"}),
        ("post_bulletin", {"board": "board.txt", "message": "${s1}"}),
    )
    assert ("missing_action", "rough") in findings(copied)
    # Asked for a number, the same count is no finding of this rule.
    asked = tallied("post the number of entries of deck.log to board.txt", "entries")
    assert ("missing_action", "count") not in findings(asked)


def test_a_count_of_an_item_asked_by_its_place_is_taken_of_that_item() -> None:
    # On the built-ins "how many words does the second line of notes.txt have?" wrote the
    # file's line count (5): the count asked is of words, the line count no answer about a line;
    # and the file's word count (13) is no count of the second line's words.
    goal = "how many words does the second entry of deck.log have? post it to board.txt"
    assert ("missing_action", "second entry") in findings(tallied(goal, "entries"))
    assert ("missing_action", "second entry") in findings(tallied(goal, "words"))
    picked = tallied(goal, "words", ("entry_at", {"text": "${s1}", "number": 2}))
    assert findings(picked) == []
    # Counting the items themselves is asked: their count is no stand-in for one of them.
    asked = "count the entries of deck.log, the first entry included, and post the count to board.txt"
    messages = [str(f) for f in check_coverage(tallied(asked, "entries"), tools=SPECS).missing]
    assert not [m for m in messages if "a count of entries" in m]
    assert [m for m in messages if "a count of entries" in m] != [
        str(f)
        for f in check_coverage(tallied(goal, "entries"), tools=SPECS).missing
        if "a count of entries" in str(f)
    ]


def test_a_computed_number_is_no_bound_unless_the_goal_compares_with_it() -> None:
    # Suite 15's first run: "How much rain fell … in total?" was planned as the total, then a
    # filter keeping the days with at least that much rain, and called covered.
    def bounded(goal: str) -> Plan:
        return plan(
            goal,
            ("log_entries", {"log_name": "deck.log"}),
            ("mean_knots", {"entries": "${s1}"}),
            ("windy_entries", {"entries": "${s1}", "knots": "${s2}"}),
            ("post_bulletin", {"board": "board.txt", "message": "${s3}\n"}),
        )

    missing = check_coverage(bounded("post the windy entries of deck.log to board.txt"), tools=SPECS).missing
    assert ("invented_argument", ("args", "knots")) in [(f.kind, f.field) for f in missing]
    for compared in (
        "post the entries of deck.log windier than the average to board.txt",
        "post the entries of deck.log with at least the mean wind to board.txt",
    ):
        missing = check_coverage(bounded(compared), tools=SPECS).missing
        assert ("args", "knots") not in [f.field for f in missing]
    # A computed number handed on as data, not as a bound beside a list, is no finding.
    handed = plan(
        "post the mean wind of deck.log to board.txt",
        ("log_entries", {"log_name": "deck.log"}),
        ("mean_knots", {"entries": "${s1}"}),
        ("entry_at", {"text": "x", "number": "${s2}"}),
        ("post_bulletin", {"board": "board.txt", "message": "${s2}\n"}),
    )
    assert ("args", "number") not in [f.field for f in check_coverage(handed, tools=SPECS).missing]


# -------------------------------------------------------------------- runs on the built-ins

NAMES = "Carol\nalice\nBob\nalice\n"
NOTES = "alpha beta\nTODO: fix the roof\nzeta\nTODO: call mom\n"


def test_a_word_of_the_same_sense_says_it() -> None:
    # "count the unique names" on the built-ins wrote the line count (4 of 3 names).
    goal = "how many unique entries are in deck.log? post it to board.txt"
    assert ("missing_action", "unique") in findings(tallied(goal, "entries"))
    distinct = tallied(goal, "entries", ("entries_mentioning", {"text": "${s1}", "term": "distinct"}))
    assert ("missing_action", "unique") not in findings(distinct)


def test_a_whole_record_is_no_answer_for_one_field_the_goal_names() -> None:
    # "write the word count of a.txt and of b.txt to counts.txt, one per line" wrote text_stats'
    # whole records and said succeeded.
    goal = "post the word count of deck.log to board.txt, one per line"
    whole = plan(
        goal,
        ("deck_log", {"log_name": "deck.log"}),
        ("log_tally", {"text": "${s1}"}),
        ("post_bulletin", {"board": "board.txt", "message": "${s2}"}),
    )
    missing = check_coverage(whole, tools=SPECS).missing
    assert [(f.kind, f.literal) for f in missing] == [("missing_action", "words")]
    assert "given all of s2 (entries, words)" in str(missing[0])
    assert findings(tallied(goal, "words")) == []
    # Both fields named, or none: the record is the answer.
    for asked in (
        "post the number of entries and words of deck.log to board.txt",
        "post the tally of deck.log to board.txt",
    ):
        assert [
            f for f in check_coverage(whole.model_copy(update={"goal": asked}), tools=SPECS).missing
        ] == []


def test_per_file_runs_write_the_one_field_the_goal_names(tmp_path: Path) -> None:
    specs = ToolRegistry(builtin_tools(tmp_path)).specs()
    goal = "write the word count of a.txt and of b.txt to counts.txt, one per line"
    steps = decided_steps(goal, specs, Refinements())
    assert steps[-1] == ("write_file", {"path": "counts.txt", "content": "${s2.words}\n${s4.words}\n"})
    # Without the switch the records were written whole, which the check no longer accepts.
    assert decided_steps(goal, specs, dataclasses.replace(Refinements(), per_file_fields=False)) == []


@pytest.mark.parametrize(
    "goal",
    [
        "write the average word count of a.txt and b.txt to avg.txt",
        "write the difference between the line counts of a.txt and b.txt to diff.txt",
        "write the total line count of a.txt and b.txt to sum.txt",
    ],
)
def test_one_value_of_two_files_is_no_field_of_each(goal: str, tmp_path: Path) -> None:
    # Decided on the built-ins: each file's count written, one per line, and called covered.
    specs = ToolRegistry(builtin_tools(tmp_path)).specs()
    field = "words" if "word" in goal else "lines"
    each = plan(
        goal,
        ("read_file", {"path": "a.txt"}),
        ("text_stats", {"text": "${s1.content}"}),
        ("read_file", {"path": "b.txt"}),
        ("text_stats", {"text": "${s3.content}"}),
        ("write_file", {"path": "out.txt", "content": f"${{s2.{field}}}\n${{s4.{field}}}\n"}),
    )
    assert "missing_action" in [f.kind for f in check_coverage(each, tools=specs).missing]
    assert decided_steps(goal, specs, Refinements()) == []
    # A count per file is what "how many words are in a.txt and b.txt" may ask: not judged
    # (the words written: the lines would be another field than the one it names).
    per_file = plan(
        "how many words are in a.txt and b.txt? write them to out.txt",
        *[(s.tool or "", dict(s.args)) for s in each.steps[:4]],
        ("write_file", {"path": "out.txt", "content": "${s2.words}\n${s4.words}\n"}),
    )
    assert "missing_action" not in [f.kind for f in check_coverage(per_file, tools=specs).missing]


def test_a_folder_is_no_text(tmp_path: Path) -> None:
    # "count the lines of every file in docs and save them to counts.txt" was decided as
    # text_stats(text="docs"): the word's one line was written, and the run said succeeded.
    specs = ToolRegistry(builtin_tools(tmp_path)).specs()
    goal = "count the lines of every file in docs and save them to counts.txt"
    worded = plan(
        goal,
        ("text_stats", {"text": "docs"}),
        ("write_file", {"path": "counts.txt", "content": "${s1.lines}\n"}),
    )
    missing = check_coverage(worded, tools=specs).missing
    assert ("invented_argument", ("args", "text")) in [(f.kind, f.field) for f in missing]
    assert decided_steps(goal, specs, Refinements()) == []
    # Where a parameter says it takes a place, the folder is its value.
    listed = plan(
        "list the files in docs and write them to l.txt",
        ("list_dir", {"path": "docs"}),
        ("write_file", {"path": "l.txt", "content": "${s1}\n"}),
    )
    assert "invented_argument" not in [f.kind for f in check_coverage(listed, tools=specs).missing]


async def test_on_the_builtins_a_count_of_every_word_is_not_a_count_of_alice(tmp_path: Path) -> None:
    (tmp_path / "names.txt").write_text(NAMES)
    words = (
        '{"steps": [{"id": "s1", "tool": "read_file", "args": {"path": "names.txt"}},'
        ' {"id": "s2", "tool": "text_stats", "args": {"text": "${s1.content}"}},'
        ' {"id": "s3", "tool": "write_file", "args": {"path": "alice.txt", "content": "${s2.words}"}}]}'
    )
    agent = Agent(ToolRegistry(builtin_tools(tmp_path)), model=ScriptedModel([words] * 6), record=False)
    result = await agent.run(
        "how many times does alice appear in names.txt? answer in alice.txt", approve="all"
    )
    assert result.status != "succeeded"
    assert not (tmp_path / "alice.txt").exists()


def copied(goal: str, source: str, target: str) -> Plan:
    """``source`` read and written whole to ``target`` with the built-in file tools."""
    return plan(
        goal,
        ("read_file", {"path": source}),
        ("write_file", {"path": target, "content": "${s1.content}"}),
    )


def test_a_copy_is_no_answer_for_items_a_relative_clause_picks(tmp_path: Path) -> None:
    # On the built-ins "write the lines of notes.txt that start with TODO to todo2.txt" copied
    # the whole file and said succeeded.
    specs = ToolRegistry(builtin_tools(tmp_path)).specs()
    goal = "write the lines of notes.txt that start with TODO to todo2.txt"
    missing = check_coverage(copied(goal, "notes.txt", "todo2.txt"), tools=specs).missing
    assert [(f.kind, f.literal) for f in missing] == [("missing_action", "todo")]


def test_a_letter_is_said_only_as_a_value_of_its_own(tmp_path: Path) -> None:
    # "write the names in names.txt that start with a to a_names.txt" copied every name.
    specs = ToolRegistry(builtin_tools(tmp_path)).specs()
    goal = "write the names in names.txt that start with a to a_names.txt"
    missing = check_coverage(copied(goal, "names.txt", "a_names.txt"), tools=specs).missing
    assert ("missing_action", "a") in [(f.kind, f.literal) for f in missing]
    given = plan(
        "post the entries of deck.log that start with a to board.txt",
        ("deck_log", {"log_name": "deck.log"}),
        ("entries_mentioning", {"text": "${s1}", "term": "a"}),
        ("post_bulletin", {"board": "board.txt", "message": "${s2}"}),
    )
    assert findings(given) == []


async def test_on_the_builtins_the_todo_lines_are_not_their_count(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text(NOTES)
    # Decided without a model, the plan was the line count, then (with that caught) a copy of
    # the whole file; neither is decided now, and the model's copy is not run as "succeeded".
    copy = (
        '{"steps": [{"id": "s1", "tool": "read_file", "args": {"path": "notes.txt"}},'
        ' {"id": "s2", "tool": "write_file", "args": {"path": "todo.txt", "content": "${s1.content}"}}]}'
    )
    model = ScriptedModel([copy] * 6, name="local:scripted")  # the embedded model's path
    agent = Agent(ToolRegistry(builtin_tools(tmp_path)), model=model, record=False)
    result = await agent.run("write the TODO lines of notes.txt to todo.txt", approve="all")
    assert result.status != "succeeded"
    assert not (tmp_path / "todo.txt").exists()
