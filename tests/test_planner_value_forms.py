"""The refinements added after suite 8: irregular grades and units are no values, a possessive
is cut off a name, "who" asks for a person, and a lone colon label is the output.

Over a made-up "clubhouse" tool set (matches of players at venues; none of the bench's suites).
Each rule is checked on and off (``Refinements.value_forms``, ``who_person``, ``lone_label``),
and real values in the same places stay values.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from forethought import tool
from forethought.planning.goal_facts import goal_facts
from forethought.planning.planner import best_chain
from forethought.planning.refinements import Refinements
from forethought.planning.value_filters import value_docs, value_words
from forethought.planning.word_classes import regular_grades, strip_possessive


class Match(BaseModel):
    player: str
    venue: str
    points: int
    played: str


@tool
def load_matches(match_file: str) -> list[Match]:
    """Load the matches of a club's match file."""
    return []


@tool
def at_venue(matches: list[Match], venue: str) -> list[Match]:
    """Only the matches played at the given venue."""
    return matches


@tool
def by_player(matches: list[Match], player: str) -> list[Match]:
    """Only the matches of the given player."""
    return matches


@tool
def match_count(matches: list[Match]) -> int:
    """How many matches there are."""
    return len(matches)


@tool
def mean_points(matches: list[Match]) -> float:
    """The mean points of some matches."""
    return 0.0


@tool
def top_match(matches: list[Match]) -> Match:
    """The match with the highest points."""
    return matches[0]


@tool
def low_match(matches: list[Match]) -> Match:
    """The match with the lowest points."""
    return matches[0]


@tool
def player_names(matches: list[Match]) -> str:
    """The distinct players of some matches as text, one per line."""
    return ""


@tool
def venue_names(matches: list[Match]) -> str:
    """The distinct venues of some matches as text, one per line."""
    return ""


@tool
def points_at_least(matches: list[Match], minimum: float) -> list[Match]:
    """Only the matches with at least the given points."""
    return matches


@tool
def seat_cost(seats: float, price_per_seat: float) -> float:
    """What some seats cost at a price per seat."""
    return seats * price_per_seat


@tool(effect="mutating")
def save_file(out_file: str, body: str) -> str:
    """Write text to a file."""
    return out_file


_TOOLS = (
    load_matches,
    at_venue,
    by_player,
    match_count,
    mean_points,
    top_match,
    low_match,
    player_names,
    venue_names,
    points_at_least,
    seat_cost,
    save_file,
)
SPECS = {t.spec.name: t.spec for t in _TOOLS}
ON = Refinements()
# ``question_fields`` (after suite 9) also chooses the person's field for "who": off with them.
OFF = Refinements(value_forms=False, who_person=False, lone_label=False, question_fields=False)


def _values(goal: str, refinements: Refinements = ON) -> list[str]:
    docs = value_docs(SPECS, examples=refinements.example_values)
    return value_words(goal_facts(goal, refinements), docs, refinements)


def _plan(goal: str, refinements: Refinements = ON) -> list[tuple[str, dict[str, Any]]]:
    chosen = best_chain(goal, SPECS, True, refinements=refinements)
    assert chosen is not None, goal
    return [(s["tool"], s["args"]) for s in chosen.slots.first_plan()["steps"]]


def test_an_irregular_superlative_is_no_value_and_asks_for_the_highest() -> None:
    goal = "What were the best points in games.json? Write them to best.txt"
    assert _values(goal, OFF) == ["best"]
    assert _values(goal) == []
    assert [t for t, _ in _plan(goal)] == ["load_matches", "top_match", "save_file"]
    assert "worst lowest bottom" in regular_grades("the worst match")
    assert regular_grades("write it to best.txt or best_of.md") == "write it to best.txt or best_of.md"
    # A capitalized word is a name, not a grade.
    assert _values("Write the matches of Best in games.json to b.txt") == ["Best"]


def test_a_noun_after_a_number_is_a_unit_not_a_value() -> None:
    goal = "Count the matches of 30 laps or more in games.json and save the count to n.txt"
    assert _values(goal, OFF) == ["laps"]
    assert _values(goal) == []
    # A value word not after a number stays one.
    assert _values("Count the matches of lefty players in games.json and save it to n.txt") == ["lefty"]


def test_an_amount_with_a_unit_is_no_value_a_named_measure_is() -> None:
    assert _values("What do 12 seats cost over 600 km? Write it to c.txt", OFF) == ["600 km"]
    assert _values("What do 12 seats cost over 600 km? Write it to c.txt") == []
    assert _values("Write the matches of the 800 m in games.json to m.txt") == ["800 m"]


def test_a_possessive_is_cut_off_a_name() -> None:
    goal = "What are Ana Lopez's mean points in games.json? Write them to a.txt"
    assert _values(goal, OFF) == ["Ana Lopez's"]
    assert _values(goal) == ["Ana Lopez"]
    # The name reaches a filter whole (which of the two filters is another matter).
    assert "Ana Lopez" in [v for _, args in _plan(goal) for v in args.values()]
    assert strip_possessive("James'") == "James" and strip_possessive("Moreau") == "Moreau"


def test_who_asks_for_the_person_field_of_a_record() -> None:
    goal = "top.txt: who got the highest points in games.json?"
    assert _plan(goal)[-1][1]["body"].startswith("${s2.player}")
    assert _plan(goal, OFF)[-1][1]["body"].startswith("${s2.points}")
    # Without "who", the field the goal names is written.
    plan = _plan("top.txt: what are the highest points in games.json?")
    assert plan[-1][1]["body"].startswith("${s2.points}")


def test_who_prefers_a_tool_that_yields_people() -> None:
    goal = "Who got at least 20 in games.json? Put their names in w.txt"
    assert "player_names" in [t for t, _ in _plan(goal)]
    assert goal_facts(goal).asks_who and not goal_facts("Put the names in w.txt").asks_who
    # Naming the venues, no "who": the venues' tool.
    assert "venue_names" in [t for t, _ in _plan("Write the venue names of games.json to v.txt")]


def test_a_lone_colon_label_is_the_output() -> None:
    goal = "bill.txt: what do 12 seats cost at 4.5 per seat?"
    assert goal_facts(goal, ON).outputs == ("bill.txt",)
    assert goal_facts(goal, ON).inputs == ()
    assert goal_facts(goal, OFF).outputs == ()
    # A file named after "in" is still read when the label names another file.
    both = goal_facts("n.txt: how many matches are in games.json?", ON)
    assert both.outputs == ("n.txt",) and both.inputs == ("games.json",)
