"""The suite-6 refinements of decompose-then-fill: whole values, example values, layout apart,
the output's position, numbers named by their parameter, and files that are no numbers.

The tools are made up for these tests (a "playlist" set); none is in the bench's suites. Each
rule has a case where it must add nothing.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from forethought import tool
from forethought.plan.layout import split_layout
from forethought.planning.goal_facts import goal_facts, output_files
from forethought.planning.grammar import goal_literals
from forethought.planning.planner import best_chain
from forethought.planning.refinements import Refinements
from forethought.planning.value_filters import example_terms, value_docs, value_words
from forethought.tools.builtin import builtin_tools


class Track(BaseModel):
    title: str
    artist: str
    style: str
    released: str
    seconds: int


@tool
def load_tracks(track_file: str) -> list[Track]:
    """Load the tracks of a playlist file."""
    return []


@tool
def by_artist(tracks: list[Track], artist: str) -> list[Track]:
    """Only the tracks recorded by the given artist."""
    return tracks


@tool
def in_style(tracks: list[Track], style: str) -> list[Track]:
    """Only the tracks of the given style (for example jazz or hip hop)."""
    return tracks


@tool
def released_on(tracks: list[Track], day: str) -> list[Track]:
    """Only the tracks released on one date (YYYY-MM-DD)."""
    return tracks


@tool
def track_total(tracks: list[Track]) -> int:
    """How many tracks there are."""
    return len(tracks)


@tool
def play_seconds(tracks: list[Track]) -> int:
    """The seconds of some tracks added together."""
    return 0


@tool
def artist_names(tracks: list[Track]) -> list[str]:
    """The distinct artists of some tracks, in alphabetical order."""
    return []


@tool
def titles_text(tracks: list[Track]) -> str:
    """The titles of some tracks as text, one title per line."""
    return ""


@tool
def lines_from(items: list[str]) -> str:
    """Format a list of strings as text with one item on each line."""
    return ""


@tool
def studio_fee(minutes: float, rate: float) -> float:
    """What some minutes in the studio cost at a rate per minute."""
    return minutes * rate


@tool(effect="mutating")
def store_text(target_file: str, body: str) -> str:
    """Store a body of text in a file, replacing it."""
    return target_file


_TOOLS = (
    load_tracks,
    by_artist,
    in_style,
    released_on,
    track_total,
    play_seconds,
    artist_names,
    titles_text,
    lines_from,
    studio_fee,
    store_text,
)
SPECS = {t.spec.name: t.spec for t in _TOOLS}
ON = Refinements()
# The suite-5 refinements only: what the suite-6 ones are measured against.
SUITE5 = Refinements(whole_values=False, example_values=False, layout_apart=False, output_position=False)


def _plan(goal: str, refinements: Refinements = ON) -> list[tuple[str, dict[str, Any]]]:
    chosen = best_chain(goal, SPECS, True, refinements=refinements)
    assert chosen is not None, goal
    return [(s["tool"], s["args"]) for s in chosen.slots.first_plan()["steps"]]


def _values(goal: str, refinements: Refinements = ON) -> list[str]:
    docs = value_docs(SPECS, examples=refinements.example_values)
    return value_words(goal_facts(goal, refinements), docs, refinements)


def test_a_date_is_one_value_and_no_numbers() -> None:
    goal = "Write the titles of mix.json for 2026-11-03 to day.txt"
    assert goal_literals(goal).numbers == ()
    assert goal_literals("at 10:30 on 03/11/2026, -5 and 7.5").numbers == (-5.0, 7.5)
    assert _values(goal) == ["2026-11-03"]
    steps = _plan(goal)
    assert ("released_on", {"tracks": "${s1}", "day": "2026-11-03"}) in steps
    # A name goes to no date's parameter, and a goal without a value gets no filter.
    assert "released_on" not in [
        t for t, _ in _plan("How many tracks does mix.json have for mingus? Save it to n.txt")
    ]
    assert [t for t, _ in _plan("Count the tracks in mix.json and save the count to n.txt")] == [
        "load_tracks",
        "track_total",
        "store_text",
    ]


def test_a_number_with_a_point_is_no_file() -> None:
    facts = goal_facts("Bill 12.5 minutes at a rate of 3 and write the amount to bill.txt", ON)
    assert facts.inputs == ()
    assert facts.outputs == ("bill.txt",)
    assert goal_facts("Copy v2.txt to v3.txt").inputs == ("v2.txt",)


def test_numbers_go_to_the_parameter_the_goal_names_them_by() -> None:
    goal = "Bill 12.5 minutes at a rate of 3 and write the amount to bill.txt"
    assert _plan(goal) == [
        ("studio_fee", {"minutes": 12.5, "rate": 3}),
        ("store_text", {"target_file": "bill.txt", "body": "${s1}\n"}),
    ]
    # Named by neither parameter: both numbers stay open (the model fills them).
    chosen = best_chain("Bill 12.5 at 3 and write the amount to bill.txt", SPECS, True, refinements=ON)
    assert chosen is None or not chosen.slots.decided()


def test_a_multi_word_name_is_one_value() -> None:
    goal = "Write the titles of the tracks by Nina K. De Vries in mix.json to dv.txt"
    assert _values(goal) == ["Nina K. De Vries"]
    assert ("by_artist", {"tracks": "${s1}", "artist": "Nina K. De Vries"}) in _plan(goal)
    # A capitalized first word of a sentence is no name.
    assert _values("Count the tracks in mix.json. Write the count to n.txt") == []
    # Off: the name is taken apart.
    assert "Nina K. De Vries" not in _values(goal, SUITE5)


def test_a_value_after_for_or_between_its_noun_and_a_past_tense_verb() -> None:
    assert _values("How many tracks does mix.json have for mingus? Save the count to n.txt") == ["mingus"]
    assert _values("Write the seconds mingus recorded in mix.json to s.txt") == ["mingus"]
    goal = "Write the seconds mingus recorded in mix.json to s.txt"
    assert [t for t, _ in _plan(goal)] == ["load_tracks", "by_artist", "play_seconds", "store_text"]
    # Nothing where the goal names no value.
    for goal in (
        "Write the seconds of the tracks in mix.json to s.txt",
        "How many tracks does mix.json have? Save the count to n.txt",
        "Add up the seconds recorded in mix.json and save them to s.txt",
    ):
        assert _values(goal) == [], goal
    assert _values("How many tracks does mix.json have for mingus? Save the count to n.txt", SUITE5) == []


def test_function_verbs_are_never_values() -> None:
    for goal in (
        "How many seconds were played in mix.json in total? Write the total to t.txt",
        "t.txt should hold the number of tracks in mix.json",
        "How many tracks has mix.json got? Save it to n.txt",
    ):
        assert _values(goal) == [], goal
    # No filter step takes a function verb for a value.
    goal = "How many seconds were played in mix.json in total? Write the total to t.txt"
    assert not {"by_artist", "in_style", "released_on"} & {t for t, _ in _plan(goal)}


def test_a_value_a_description_gives_as_an_example_is_still_a_value() -> None:
    assert example_terms(SPECS["in_style"]) == {"jazz", "hip", "hop"}
    assert example_terms(SPECS["by_artist"]) == set()
    assert _values("Save the titles of all jazz tracks in mix.json as jazz.txt") == ["jazz"]
    assert _values("Save the titles of the hip hop tracks in mix.json as hh.txt") == ["hip hop"]
    assert ("in_style", {"tracks": "${s1}", "style": "hip hop"}) in _plan(
        "Save the titles of the hip hop tracks in mix.json as hh.txt"
    )
    # Off: the tool "explains" the word, so it is no value.
    assert _values("Save the titles of all jazz tracks in mix.json as jazz.txt", SUITE5) == []
    assert _values("Save the titles of the tracks in mix.json as all.txt") == []


def test_layout_words_add_a_formatter_but_do_not_choose_the_tool() -> None:
    assert split_layout("List the artists in mix.json, one per line, in a.txt") == (
        "the artists in mix.json,  , in a.txt",
        "List one per line",
    )
    assert split_layout("Join them into a comma separated list")[1] == "into a comma separated list"
    assert split_layout("Count the lines of mix.json") == ("Count the lines of mix.json", "")
    assert split_layout("Make a bullet list of the artists") == ("Make a bullet list of the artists", "")
    goal = "List the artists in mix.json, one per line, in artists.txt"
    assert [t for t, _ in _plan(goal)] == ["load_tracks", "artist_names", "lines_from", "store_text"]
    assert [t for t, _ in _plan(goal, SUITE5)] == ["load_tracks", "titles_text", "store_text"]
    # Without layout words the titles tool still wins where the goal asks for titles.
    assert [t for t, _ in _plan("Write the titles of mix.json to t.txt")] == [
        "load_tracks",
        "titles_text",
        "store_text",
    ]


def test_the_output_named_first_is_the_output() -> None:
    for goal in (
        "Into n.txt, write the number of tracks in mix.json",
        "n.txt should hold the number of tracks in mix.json",
    ):
        facts = goal_facts(goal, ON)
        assert (facts.outputs, facts.inputs) == (("n.txt",), ("mix.json",)), goal
        assert _plan(goal)[-1] == ("store_text", {"target_file": "n.txt", "body": "${s2}\n"})
    assert goal_facts("n.txt should hold the number of tracks in mix.json", SUITE5).outputs == ("mix.json",)
    # Nothing changes where the structure does not say, or says it already.
    assert output_files("Copy a.txt to b.txt", ["a.txt", "b.txt"]) is None
    assert goal_facts("Write the tracks of mix.json to out.txt", ON).outputs == ("out.txt",)
    assert goal_facts("Sort a.txt into b.txt", ON).outputs == ("b.txt",)
    assert goal_facts("Count the tracks in mix.json", ON).outputs == ()


def test_coverage_reads_a_target_named_before_the_verb_as_the_output() -> None:
    from forethought.plan.coverage import goal_outputs

    assert goal_outputs("Into n.txt, write the number of tracks in mix.json") == ("n.txt",)
    # Unchanged: a target after the verb, an "in" target of its own sentence.
    assert goal_outputs("Write the tracks in mix.json to n.txt") == ("n.txt",)
    assert goal_outputs("Read a.txt. Write the names in b.txt") == ("b.txt",)
    assert goal_outputs("Save the sum to a.txt. Write the names in b.txt") == ("a.txt", "b.txt")
    assert goal_outputs("Count the people according to a.json and store it in b.txt") == ("b.txt",)


def test_an_initial_does_not_end_a_sentence() -> None:
    from forethought.plan.verbs import clause_actions
    from forethought.planning.clauses import split_clauses

    goal = "Write the tracks by Nina K. De Vries to dv.txt. Count them"
    assert split_clauses(goal) == ["Write the tracks by Nina K. De Vries to dv.txt", "Count them"]
    assert [v for v, _ in clause_actions(goal)] == ["write", "count"]


def test_a_long_run_of_value_words_is_read_once() -> None:
    # A run of words that might be a value, not before a word a tool explains, was read again
    # from each of its words (and each word searched the text before it): 3 KB took a minute,
    # 6 KB ten. The bound is loose on purpose: quadratic time misses it by far, load does not.
    specs = {t.spec.name: t.spec for t in builtin_tools(Path("/tmp"))}
    goal = "how many " + "big red " * 800 + "sentences are in notes.txt"
    facts = goal_facts(goal, Refinements())
    start = time.perf_counter()
    words = value_words(facts, value_docs(specs, examples=True), Refinements(), specs)
    assert time.perf_counter() - start < 10.0
    assert "big" not in words and "red" not in words  # no value of a filter: there is none


def test_a_value_said_thousands_of_times_is_checked_for_negation_once() -> None:
    # Each of its mentions had searched the whole goal for a negation before it: 100 KB took
    # most of a minute. What a negation excludes is still no value.
    specs = {t.spec.name: t.spec for t in builtin_tools(Path("/tmp"))}
    goal = "from half past " * 6000 + "ten"
    start = time.perf_counter()
    value_words(goal_facts(goal, Refinements()), value_docs(specs, examples=True), Refinements(), specs)
    assert time.perf_counter() - start < 10.0
