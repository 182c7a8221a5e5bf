"""The refinements added after suite 12: words of an input file's name, bare contents, a
required boolean decided by negation, CamelCase names, ordinal days and ranges of days, and a
tool's pair of numeric bounds.

Over a made-up "kennel" tool set (dogs boarding at a kennel; none of the bench's suites). Each
rule is checked on and off (its ``Refinements`` switch).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from _planner_support import decided_steps, goal_values
from forethought import tool
from forethought.plan.coverage import goal_literals
from forethought.plan.dates import spelled_dates
from forethought.plan.number_words import range_bounds
from forethought.planning.refinements import NO_REFINEMENTS, Refinements


class Stay(BaseModel):
    stay_id: str
    dog: str
    breed: str
    arrived: str
    weight_kg: float
    was_walked: bool


@tool
def load_stays(stays_file: str) -> list[Stay]:
    """Read the kennel's log of stays: stay ID, dog, breed, arrival date, the dog's weight in kg
    and whether it was taken for a walk."""
    return []


@tool
def of_breed(stays: list[Stay], breed: str) -> list[Stay]:
    """Keep the stays of dogs of one breed."""
    return stays


@tool
def by_walks(stays: list[Stay], was_walked: bool) -> list[Stay]:
    """Keep the stays where the dog went out (was_walked true) or, with was_walked false, the
    housebound ones."""
    return stays


@tool
def arrived_between(stays: list[Stay], first_day: str, last_day: str) -> list[Stay]:
    """Keep the stays of dogs that arrived from first_day to last_day, both included (YYYY-MM-DD)."""
    return stays


@tool
def within_weights(stays: list[Stay], min_kg: float, max_kg: float) -> list[Stay]:
    """Keep the stays of dogs whose weight is from min_kg to max_kg kilograms, both included."""
    return stays


@tool
def stay_count(stays: list[Stay]) -> int:
    """Number of stays."""
    return 0


@tool
def mean_weight(stays: list[Stay]) -> float:
    """The average weight of the dogs of some stays, in kg."""
    return 0.0


@tool(effect="mutating")
def save_text(destination: str, body: str) -> str:
    """Save text to a file."""
    return destination


_TOOLS = (load_stays, of_breed, by_walks, arrived_between, within_weights, stay_count, mean_weight, save_text)
SPECS = {t.spec.name: t.spec for t in _TOOLS}
ON = Refinements()


def _values(goal: str, refinements: Refinements = ON) -> list[str]:
    return goal_values(goal, SPECS, refinements)


def _steps(goal: str, refinements: Refinements = ON) -> list[tuple[str, dict[str, Any]]]:
    return decided_steps(goal, SPECS, refinements)


def test_a_word_of_an_input_files_name_is_no_value() -> None:
    goal = "How many stays are in the east wing's log (east_wing.csv)? Save the answer to east.txt"
    assert _values(goal) == []
    assert _values(goal, Refinements(file_word_values=False)) == ["wing"]
    assert [t for t, _ in _steps(goal)] == ["load_stays", "stay_count", "save_text"]


def test_a_determiner_with_its_comma_is_no_content() -> None:
    goal = "What is the mean weight in east_wing.csv? Write it, in kilograms, to mean.txt"
    assert not [lit for lit in goal_literals(goal) if lit.kind == "content"]
    assert [t for t, _ in _steps(goal)] == ["load_stays", "mean_weight", "save_text"]


def test_an_unquoted_word_to_write_is_a_value_without_its_comma() -> None:
    goal = "Write Biscuit, in capitals, to name.txt"
    assert "Biscuit" in _values(goal)
    assert "Biscuit," in _values(goal, Refinements(bare_contents=False))


def test_a_negated_or_false_named_flag_is_false() -> None:
    cases = {
        "Which dogs weren't walked? Save the count of such stays in east_wing.csv to idle.txt": False,
        "How many stays in east_wing.csv were housebound? Save the figure to idle.txt": False,
        "How many dogs in east_wing.csv went out for a walk? Save the count to walked.txt": True,
    }
    negated = next(iter(cases))
    assert "weren" not in _values(negated)  # the verb "weren't", cut at its apostrophe
    assert "weren" in _values(negated, Refinements(negated_values=False))
    for goal, walked in cases.items():
        steps = _steps(goal)
        assert ("by_walks", {"stays": "${s1}", "was_walked": walked}) in steps, goal
        off = _steps(goal, Refinements(boolean_polarity=False))
        assert "by_walks" not in [t for t, _ in off], goal


def test_a_camel_case_word_is_a_name() -> None:
    goal = "What is the mean weight of the WeightWise stays in east_wing.csv? Save it to mean.txt"
    assert "WeightWise" in _values(goal)
    assert "WeightWise" not in _values(goal, Refinements(camel_case_names=False))
    assert ("of_breed", {"stays": "${s1}", "breed": "WeightWise"}) in _steps(goal)


def test_ordinal_days_and_a_range_of_days_in_one_month() -> None:
    text = "from the third to the twelfth of May 2026"
    assert [d for _, _, d in spelled_dates(text, ordinals=True)] == ["2026-05-03", "2026-05-12"]
    assert [d for _, _, d in spelled_dates("between 23 and 31 May 2026", ordinals=True)] == [
        "2026-05-23",
        "2026-05-31",
    ]
    assert [d for _, _, d in spelled_dates("the twenty-first of May 2026", ordinals=True)] == ["2026-05-21"]
    assert [d for _, _, d in spelled_dates(text)] == ["2026-05"]
    goal = f"How many dogs in east_wing.csv arrived {text}? Answer in may.txt"
    args = {"stays": "${s1}", "first_day": "2026-05-03", "last_day": "2026-05-12"}
    assert ("arrived_between", args) in _steps(goal)
    assert ("arrived_between", args) not in _steps(goal, Refinements(spelled_ordinals=False))


def test_a_range_of_numbers_fills_a_tools_bounds() -> None:
    assert range_bounds("between two and five kilos") == (2, 5)
    assert range_bounds("of at most 4 kg") == (None, 4)
    assert range_bounds("at least three") == (3, None)
    # Past twenty, the tens and their compounds (suite 13: "between thirty and fifty litres").
    assert range_bounds("between thirty and fifty litres") == (30, 50)
    assert range_bounds("under forty-five litres") == (None, 45)
    assert range_bounds("over a hundred km") == (100, None)
    goal = "Count the dogs in east_wing.csv whose weight is between three and seven kg; write it to mid.txt"
    assert ("within_weights", {"stays": "${s1}", "min_kg": 3.0, "max_kg": 7.0}) in _steps(goal)
    off = _steps(goal, Refinements(number_ranges=False))
    assert ("within_weights", {"stays": "${s1}", "min_kg": 3.0, "max_kg": 7.0}) not in off


def test_the_new_switches_are_off_without_refinements() -> None:
    names = ("file_word_values", "bare_contents", "boolean_polarity", "camel_case_names")
    assert not any(getattr(NO_REFINEMENTS, n) for n in (*names, "spelled_ordinals", "number_ranges"))
