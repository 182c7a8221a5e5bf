"""The refinements added after suite 13: a negated flag's filter, a year shared by two dates,
numbers inside dates, files told apart by labels, superlatives by sense, and a formatter's text
as no filter value; and the coverage rules beside them ("count" and "add up" ask for a number, a
bound spelled as a word is the goal's number, a possessive opens no content, "including" asks
for no action).

Over a made-up "bike hire" tool set (a shop's bike rentals; none of the bench's suites). Each
rule is checked on and off (its ``Refinements`` switch) where it has one.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from _planner_support import decided_steps, goal_values
from forethought import tool
from forethought.plan.coverage import check_coverage, goal_literals
from forethought.plan.dates import date_numbers, spelled_dates
from forethought.plan.model import Plan
from forethought.plan.verbs import asked_quantities, clause_actions
from forethought.planning.bm25 import stem
from forethought.planning.decompose import _query
from forethought.planning.goal_facts import goal_facts
from forethought.planning.refinements import NO_REFINEMENTS, Refinements
from forethought.planning.slots import bind
from test_planner_suite12_rules import SPECS as KENNEL


class Rental(BaseModel):
    rental_id: str
    customer: str
    bike: str
    started: str
    hours: int
    returned: bool


@tool
def load_rentals(rentals_file: str) -> list[Rental]:
    """Read the bike shop's rentals: rental ID, customer, bike, start date, hours hired and
    whether the bike came back."""
    return []


@tool
def of_bike(rentals: list[Rental], bike: str) -> list[Rental]:
    """Keep the rentals of one bike, by its shop code."""
    return rentals


@tool
def started_between(rentals: list[Rental], first_day: str, last_day: str) -> list[Rental]:
    """Keep the rentals that started from first_day to last_day, both included (YYYY-MM-DD)."""
    return rentals


@tool
def by_return(rentals: list[Rental], returned: bool) -> list[Rental]:
    """Keep the rentals whose bike is back (returned=true) or still out (returned=false)."""
    return rentals


@tool
def hours_within(rentals: list[Rental], min_hours: float, max_hours: float) -> list[Rental]:
    """Keep the rentals of min_hours to max_hours hours, both included."""
    return rentals


@tool
def count_rentals(rentals: list[Rental]) -> int:
    """How many rentals there are."""
    return 0


@tool
def total_hours(rentals: list[Rental]) -> int:
    """The hours hired, added up over the rentals."""
    return 0


@tool
def mean_hours(rentals: list[Rental]) -> float:
    """The average number of hours per rental."""
    return 0.0


@tool
def largest_rental(rentals: list[Rental]) -> Rental:
    """The rental with the most hours, with all its details."""
    return Rental(rental_id="", customer="", bike="", started="", hours=0, returned=True)


@tool
def rental_lines(rentals: list[Rental]) -> str:
    """Rentals as readable text, one line per rental."""
    return ""


@tool(effect="mutating")
def save_text(destination: str, body: str) -> str:
    """Save text to a file."""
    return destination


_TOOLS = (
    load_rentals,
    of_bike,
    started_between,
    by_return,
    hours_within,
    count_rentals,
    total_hours,
    mean_hours,
    largest_rental,
    rental_lines,
    save_text,
)
SPECS = {t.spec.name: t.spec for t in _TOOLS}
ON = Refinements()


def _values(goal: str, refinements: Refinements = ON) -> list[str]:
    return goal_values(goal, SPECS, refinements)


def _steps(goal: str, refinements: Refinements = ON) -> list[tuple[str, dict[str, Any]]]:
    return decided_steps(goal, SPECS, refinements)


def _plan(goal: str, steps: list[tuple[str, dict[str, Any]]]) -> Plan:
    return Plan.model_validate(
        {"goal": goal, "steps": [{"id": f"s{i}", "tool": t, "args": a} for i, (t, a) in enumerate(steps, 1)]}
    )


def test_a_negated_flag_puts_its_filter_in_set_false() -> None:
    goals = (
        "Of the rentals in rentals.csv that haven't been returned, how many hours do they add up to? "
        "Write it to out_hours.txt",
        "Among the unreturned rentals in rentals.csv, find the largest one and write its customer "
        "to chase.txt",
    )
    for goal in goals:
        assert ("by_return", {"rentals": "${s1}", "returned": False}) in _steps(goal), goal
    # Off, "unreturned" is no word of the filter's: the chain goes without it.
    assert "by_return" not in [t for t, _ in _steps(goals[1], Refinements(negated_flags=False))]
    assert [t for t, _ in _steps(goals[0])] == ["load_rentals", "by_return", "total_hours", "save_text"]
    # The prefixed word is the flag's, no value to filter a bike by.
    assert "unreturned" not in [v.lower() for v in _values(goals[1])]
    assert "unreturned" in [v.lower() for v in _values(goals[1], Refinements(negated_flags=False))]


def test_a_flag_the_goal_does_not_negate_adds_no_filter() -> None:
    # "not" negates nothing the filter keeps: no returned=false filter is put in.
    goal = "How many rentals are in rentals.csv? Do not round. Save the answer to n.txt"
    assert [t for t, _ in _steps(goal)] == ["load_rentals", "count_rentals", "save_text"]


def test_two_days_share_the_year_written_after_them() -> None:
    text = "between June 2 and June 9, 2026"
    assert [d for _, _, d in spelled_dates(text, shared_year=True)] == ["2026-06-02", "2026-06-09"]
    assert [d for _, _, d in spelled_dates("from 28 June to 3 July 2026", shared_year=True)] == [
        "2026-06-28",
        "2026-07-03",
    ]
    assert [d for _, _, d in spelled_dates(text)] == ["2026-06-09"]
    # No 31 June: only the second day is a date.
    assert [d for _, _, d in spelled_dates("between June 31 and July 2, 2026", shared_year=True)] == [
        "2026-07-02"
    ]
    goal = f"List the rentals started {text} that are still unreturned (rentals.csv) in mid_june.txt"
    args = {"rentals": "${s2}", "first_day": "2026-06-02", "last_day": "2026-06-09"}
    steps = _steps(goal)
    assert ("started_between", args) in steps
    assert ("by_return", {"rentals": "${s1}", "returned": False}) in steps
    assert not any(t == "started_between" for t, _ in _steps(goal, Refinements(shared_years=False)))


def test_a_year_is_no_number_for_a_numeric_parameter() -> None:
    assert date_numbers("up to and including June 15th, 2026", ordinals=True) == {2026.0}
    assert date_numbers("5 rentals on 5 June 2026", ordinals=True) == {2026.0}  # 5 stands alone too
    goal = "Write bike B7's rentals up to and including June 15th, 2026 from rentals.csv to b7.txt"
    chain = ("load_rentals", "hours_within", "rental_lines", "save_text")
    assert not bind(chain, goal, SPECS, refinements=ON).feasible
    assert bind(chain, goal, SPECS, refinements=Refinements(date_numbers=False)).feasible


def test_files_told_apart_by_labels_run_the_same_steps_each() -> None:
    goal = (
        "Average hours in June (june.csv) against July (rentals.csv): write both averages to "
        "cmp.txt, June first, one per line"
    )
    assert _values(goal) == []
    assert "July" in _values(goal, Refinements(labelled_files=False))
    assert _steps(goal) == [
        ("load_rentals", {"rentals_file": "june.csv"}),
        ("mean_hours", {"rentals": "${s1}"}),
        ("load_rentals", {"rentals_file": "rentals.csv"}),
        ("mean_hours", {"rentals": "${s3}"}),
        ("save_text", {"destination": "cmp.txt", "body": "${s2}\n${s4}\n"}),
    ]
    # One file in parentheses is a source note: the word before it stays a value.
    assert "B7" in _values("Mean hours for bike B7 (rentals.csv)? Save it to b7.txt")


def test_a_superlative_ranks_by_its_sense() -> None:
    goal = "Which customer had the biggest rental in rentals.csv? Write their name to big.txt"
    facts = goal_facts(goal, ON)
    assert stem("largest") in _query(facts.clauses[0], facts, frozenset({"biggest"}))
    assert stem("largest") not in _query(facts.clauses[0], facts)
    assert _steps(goal) == [
        ("load_rentals", {"rentals_file": "rentals.csv"}),
        ("largest_rental", {"rentals": "${s1}"}),
        ("save_text", {"destination": "big.txt", "body": "${s2.customer}"}),
    ]


def test_a_superlative_a_tool_says_keeps_to_that_tool() -> None:
    # "from fewest to most hours" says "most": a tool saying the goal's own word is its answer,
    # and a sorting tool's "longest" is not read as "largest" there.
    @tool
    def longest_first(rentals: list[Rental]) -> list[Rental]:
        """The rentals sorted from the longest to the shortest."""
        return rentals

    specs = {**SPECS, "longest_first": longest_first.spec}
    goal = "Which customer had the largest rental in rentals.csv? Write their name to big.txt"
    assert _steps(goal) == decided_steps(goal, specs, ON)
    assert [t for t, _ in decided_steps(goal, specs, ON)] == ["load_rentals", "largest_rental", "save_text"]


def test_a_formatters_text_is_no_filter_value() -> None:
    goal = "Which bike had the biggest rental in rentals.csv? Write its code to code.txt"
    chain = ("load_rentals", "rental_lines", "of_bike", "save_text")
    assert not bind(chain, goal, SPECS, refinements=ON).feasible
    assert bind(chain, goal, SPECS, refinements=Refinements(laid_out_values=False)).feasible


def test_count_and_add_up_ask_for_a_computed_number() -> None:
    assert asked_quantities("count the rentals and save the count") == ["count"]
    assert asked_quantities("how many hours do they add up to") == ["how many", "add up"]
    assert asked_quantities("the hours added up") == ["add up"]
    goal = (
        "Count the rentals started between the 2nd and the 9th of June 2026 (rentals.csv) and save "
        "the count to n.txt"
    )
    dates = {"first_day": "2026-06-02", "last_day": "2026-06-09"}
    listed = [
        ("load_rentals", {"rentals_file": "rentals.csv"}),
        ("started_between", {"rentals": "${s1}", **dates}),
        ("rental_lines", {"rentals": "${s2}"}),
        ("save_text", {"destination": "n.txt", "body": "${s3}"}),
    ]
    coverage = check_coverage(_plan(goal, listed), goal, SPECS)
    assert [f.literal for f in coverage.missing] == ["count"]
    counted = [
        *listed[:2],
        ("count_rentals", {"rentals": "${s2}"}),
        ("save_text", {"destination": "n.txt", "body": "${s3}\n"}),
    ]
    assert check_coverage(_plan(goal, counted), goal, SPECS).covered
    assert [t for t, _ in _steps(goal)] == ["load_rentals", "started_between", "count_rentals", "save_text"]


def test_a_keeper_a_clause_put_after_the_count_goes_before_it() -> None:
    # Suite 12's kennel: the clause chose the count, then the weights' keeper after it.
    goal = "Count the dogs in east_wing.csv whose weight is between three and seven kg; write it to mid.txt"
    kept_then_counted = [
        ("load_stays", {"stays_file": "east_wing.csv"}),
        ("within_weights", {"stays": "${s1}", "min_kg": 3.0, "max_kg": 7.0}),
        ("stay_count", {"stays": "${s2}"}),
        ("save_text", {"destination": "mid.txt", "body": "${s3}\n"}),
    ]
    assert decided_steps(goal, KENNEL, ON) == kept_then_counted
    assert decided_steps(goal, KENNEL, Refinements(keepers_first=False)) != kept_then_counted


def test_a_bound_spelled_as_a_word_is_the_goals_number() -> None:
    goal = "How many of bike B7's rentals were under forty hours? rentals.csv, answer in short.txt"
    unbounded = [
        ("load_rentals", {"rentals_file": "rentals.csv"}),
        ("of_bike", {"rentals": "${s1}", "bike": "B7"}),
        ("count_rentals", {"rentals": "${s2}"}),
        ("save_text", {"destination": "short.txt", "body": "${s3}\n"}),
    ]
    coverage = check_coverage(_plan(goal, unbounded), goal, SPECS)
    assert [f.literal for f in coverage.missing] == ["40"]
    # The open side has no bound the tool allows: no decided plan guesses one.
    assert _steps(goal) == []


def test_a_possessive_opens_no_content_and_including_is_no_action() -> None:
    goal = "Write B7's rentals up to and including June 15th, 2026 from rentals.csv to b7.txt"
    assert not [lit for lit in goal_literals(goal) if lit.kind == "content"]
    assert "including" not in [verb for verb, _ in clause_actions(goal)]
    # "2026 that …": a relative pronoun is no noun of the number.
    literals = goal_literals("rentals between June 2 and June 9, 2026 that are out")
    assert not [lit for lit in literals if lit.kind == "noun"]


def test_the_new_switches_are_off_without_refinements() -> None:
    names = (
        "negated_flags",
        "shared_years",
        "date_numbers",
        "labelled_files",
        "superlative_synonyms",
        "laid_out_values",
        "keepers_first",
    )
    assert not any(getattr(NO_REFINEMENTS, n) for n in names)
    assert all(getattr(ON, n) for n in names)
