"""The suite-7 refinement: closed word classes are never values to filter by.

Uses the made-up "playlist" tool set of ``test_planner_values`` (none of the bench's suites).
Each rule has negative cases: the same places with a real value still give it.
"""

from __future__ import annotations

from forethought import tool
from forethought.planning.goal_facts import goal_facts
from forethought.planning.planner import best_chain
from forethought.planning.refinements import Refinements
from forethought.planning.value_filters import value_docs, value_words
from forethought.planning.word_classes import is_superlative, never_value
from test_planner_values import SPECS, _plan

ON = Refinements()
OFF = Refinements(value_classes=False)


def _values(goal: str, refinements: Refinements = ON) -> list[str]:
    docs = value_docs(SPECS, examples=refinements.example_values)
    return value_words(goal_facts(goal, refinements), docs, refinements)


def test_closed_classes() -> None:
    for word in ("different", "total", "several", "each", "fewer", "most", "cost", "say", "runs", "said"):
        assert never_value(word), word
    assert never_value("expensive", before="most")
    assert never_value("cheaper", after="than")
    assert never_value("hold", before="should")
    assert is_superlative("fastest") and is_superlative("priciest")
    # Not closed: nouns that end like a superlative or comparative, values, capitalized names.
    for word in ("request", "interest", "forest", "jazz", "mingus"):
        assert not is_superlative(word) and not never_value(word), word
    for word in ("still", "already", "yet", "never", "again"):
        assert never_value(word), word
    assert not never_value("Still")  # a capitalized word is a name
    assert not never_value("folder", after="of")
    assert not never_value("Most")  # a capitalized word is a name
    assert not never_value("Say", before="should")


def test_quantifiers_comparatives_and_verbs_are_no_values() -> None:
    for goal in (
        "How many different tracks does mix.json list? Save the count to n.txt",
        "Write the total seconds of mix.json to t.txt",
        "How many tracks in mix.json have fewer seconds than 200? Save it to n.txt",
        "Write the title of the longest track in mix.json to t.txt",
        "Write the title of the most popular track in mix.json to t.txt",
        "What does the studio cost for 12 minutes at a rate of 3? Write it to c.txt",
        "n.txt should say how many tracks mix.json has",
        "How many tracks does mix.json still list? Save the count to n.txt",
        "How many tracks in mix.json are already over 200 seconds? Save it to n.txt",
    ):
        assert _values(goal) == [], goal
    # Off: the words were taken for values (what suite 7 showed).
    assert _values("How many different tracks does mix.json list? Save the count to n.txt", OFF) == [
        "different"
    ]
    goal = "How many different tracks does mix.json list? Save the count to n.txt"
    assert [t for t, _ in _plan(goal)] == ["load_tracks", "track_total", "store_text"]


def test_real_values_in_the_same_places_stay_values() -> None:
    assert _values("How many jazz tracks does mix.json list? Save the count to n.txt") == ["jazz"]
    assert _values("How many tracks does mix.json have for mingus? Save the count to n.txt") == ["mingus"]
    assert _values("Write the titles of the tracks by Nina K. De Vries in mix.json to dv.txt") == [
        "Nina K. De Vries"
    ]


@tool
def minutes_text(seconds: float) -> str:
    """Write a number of seconds as minutes and seconds (m:ss)."""
    return ""


WITH_CONVERTER = {**SPECS, "minutes_text": minutes_text.spec}


def test_a_converter_is_added_only_for_a_format_the_goal_asks_for() -> None:
    def chain(goal: str, refinements: Refinements = ON) -> list[str]:
        chosen = best_chain(goal, WITH_CONVERTER, True, refinements=refinements)
        assert chosen is not None, goal
        return [s["tool"] for s in chosen.slots.first_plan()["steps"]]

    goal = "Add up the seconds of mix.json and write the sum to s.txt"
    assert chain(goal) == ["load_tracks", "play_seconds", "store_text"]
    # Asked for: the converter's own words ("minutes") are the goal's.
    assert "minutes_text" in chain("Write the seconds of mix.json as minutes to m.txt")


def test_a_file_labelling_the_goal_is_the_output_and_see_marks_an_input() -> None:
    facts = goal_facts("n.txt: how many tracks does mix.json list?", ON)
    assert (facts.outputs, facts.inputs) == (("n.txt",), ("mix.json",))
    facts = goal_facts("n.txt should say how many tracks there are (see mix.json)", ON)
    assert (facts.outputs, facts.inputs) == (("n.txt",), ("mix.json",))
    # No label, no "see": the order decides as before; a colon mid-sentence labels nothing.
    assert goal_facts("Copy a.txt to b.txt", ON).outputs == ("b.txt",)
    assert goal_facts("Note: copy a.txt to b.txt", ON).outputs == ("b.txt",)
    off = Refinements(output_position=False)
    assert goal_facts("n.txt: how many tracks does mix.json list?", off).outputs != ("n.txt",)


def test_a_number_with_a_unit_symbol_is_one_value() -> None:
    assert _values("Write the titles of the 45 s tracks in mix.json to short.txt") == ["45 s"]
    assert _values("Write the titles of the 2.5 min tracks in mix.json to m.txt") == ["2.5 min"]
    # A number without a unit's symbol, or with a unit spelt out, is no such value.
    assert _values("Bill 12.5 minutes at a rate of 3 and write the amount to bill.txt") == []
    assert _values("Write the titles of the 45 s tracks in mix.json to short.txt", OFF) != ["45 s"]


def test_a_name_joined_by_an_ampersand_is_one_name() -> None:
    assert _values("Write the titles of the tracks by Simon & Garfunkel in mix.json to sg.txt") == [
        "Simon & Garfunkel"
    ]
    # "and" joins two names, not one.
    assert "Simon and Garfunkel" not in _values(
        "Write the titles of the tracks by Simon and Garfunkel in mix.json to sg.txt"
    )
