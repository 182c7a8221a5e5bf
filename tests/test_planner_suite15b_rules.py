"""The refinements added after suite 15's failure classes (branch fix15b).

Over made-up tool sets that appear in no bench suite: a bakery's market sales (loaves sold per
stall and day) and a leisure centre's class timetable (classes by weekday code). Each rule is
checked on and off (its ``Refinements`` switch), failure paths included.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pydantic import BaseModel

from _planner_support import decided_steps
from forethought import tool
from forethought.plan.abbreviations import abbreviation_of
from forethought.plan.coverage import check_coverage, goal_literals
from forethought.plan.dates import spelled_dates
from forethought.plan.model import Plan, Step
from forethought.planning.abbreviated_options import abbreviated_options
from forethought.planning.decompose import _counted_keeper
from forethought.planning.goal_facts import goal_facts
from forethought.planning.refinements import Refinements
from forethought.planning.summed_amounts import summed_counts


class Sale(BaseModel):
    product: str
    day: str
    stall: int
    loaves: int


@tool
def load_sales(sales_file: str) -> list[Sale]:
    """Read a bakery's market sales: each sale's product, day, stall and loaves."""
    return []


@tool
def of_product(sales: list[Sale], product: str) -> list[Sale]:
    """Only the sales of one product, by its name."""
    return sales


@tool
def sold_on(sales: list[Sale], day: str) -> list[Sale]:
    """Only the sales made on one day (YYYY-MM-DD)."""
    return sales


@tool
def sold_between(sales: list[Sale], from_day: str, to_day: str) -> list[Sale]:
    """Only the sales from from_day to to_day, both included (YYYY-MM-DD)."""
    return sales


@tool
def at_stall(sales: list[Sale], stall: int) -> list[Sale]:
    """Only the sales made at one market stall, by its number."""
    return sales


@tool
def loaves_at_least(sales: list[Sale], loaves: int) -> list[Sale]:
    """Only the sales of at least this many loaves."""
    return sales


@tool
def count_sales(sales: list[Sale]) -> int:
    """How many sales there are, over all the market's stalls."""
    return len(sales)


@tool
def loaves_sold(sales: list[Sale]) -> int:
    """Total number of loaves sold in the sales, over all stalls."""
    return sum(s.loaves for s in sales)


@tool
def sale_lines(sales: list[Sale]) -> str:
    """The sales as text, one per line: product, day, stall and loaves."""
    return ""


@tool(effect="mutating", idempotent=True)
def save_note(note_file: str, note: str) -> str:
    """Write a note to a file; returns its path."""
    return note_file


BAKERY = {
    t.spec.name: t.spec
    for t in (
        load_sales,
        of_product,
        sold_on,
        sold_between,
        at_stall,
        loaves_at_least,
        count_sales,
        loaves_sold,
        sale_lines,
        save_note,
    )
}


class Session(BaseModel):
    activity: str
    weekday: str
    places: int


@tool
def load_classes(timetable_file: str) -> list[Session]:
    """Read a leisure centre's class timetable: each class's activity, weekday and places."""
    return []


@tool
def held_on(classes: list[Session], weekday: str) -> list[Session]:
    """Only the classes held on one weekday, one of Mon, Tue, Wed, Thu, Fri, Sat or Sun."""
    return classes


@tool
def count_classes(classes: list[Session]) -> int:
    """How many classes there are."""
    return len(classes)


@tool(effect="mutating", idempotent=True)
def put_text(text_file: str, text: str) -> str:
    """Write text to a file; returns its path."""
    return text_file


CENTRE = {t.spec.name: t.spec for t in (load_classes, held_on, count_classes, put_text)}
DAYS = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"}
ON = Refinements()


def _off(**switches: bool) -> Refinements:
    return dataclasses.replace(ON, **switches)


def _bakery(goal: str, refinements: Refinements = ON) -> list[tuple[str, dict[str, Any]]]:
    return decided_steps(goal, BAKERY, refinements)


# -------------------------------------------------------------------- how many … sold: a total


def test_how_many_of_a_summed_noun_asks_for_the_total() -> None:
    goal = "How many loaves did the Rye Sourdough sell in sales.txt? Answer in rye.txt"
    assert _bakery(goal) == [
        ("load_sales", {"sales_file": "sales.txt"}),
        ("of_product", {"sales": "${s1}", "product": "Rye Sourdough"}),
        ("loaves_sold", {"sales": "${s2}"}),
        ("save_note", {"note_file": "rye.txt", "note": "${s3}\n"}),
    ]
    assert "loaves_sold" not in [t for t, _ in _bakery(goal, _off(summed_counts=False))]


def test_how_many_beside_a_verb_naming_the_summing_tool_asks_for_the_total() -> None:
    # "units" is no word of the summing tool's; "sold" is its name's.
    said = summed_counts("How many units were sold at the fair?", BAKERY)
    assert said.startswith("total number units")


def test_how_many_of_a_counted_noun_stays_a_count() -> None:
    # Failure path: the noun is what a counting tool counts ("How many sales there are").
    goal = "How many sales of Rye Sourdough are in sales.txt? Answer in rye_sales.txt"
    assert summed_counts(goal, BAKERY) == goal
    assert [t for t, _ in _bakery(goal)] == ["load_sales", "of_product", "count_sales", "save_note"]
    # And a tool set with no summing tool leaves every "how many" alone.
    assert summed_counts("How many classes ran?", CENTRE) == "How many classes ran?"


# ----------------------------------------------------------------- a noun with its number after


def test_a_numbered_noun_binds_the_numeric_parameter_it_names() -> None:
    goal = "How many loaves were sold at Stall 4 in sales.txt? Write it to stall4.txt"
    assert _bakery(goal) == [
        ("load_sales", {"sales_file": "sales.txt"}),
        ("at_stall", {"sales": "${s1}", "stall": 4}),
        ("loaves_sold", {"sales": "${s2}"}),
        ("save_note", {"note_file": "stall4.txt", "note": "${s3}\n"}),
    ]
    # Off, "Stall 4" is no number of the stall parameter's: only the tool's words can choose it.
    assert _counted_keeper(BAKERY["at_stall"], goal, numbered_names=True)
    assert not _counted_keeper(BAKERY["at_stall"], goal, numbered_names=False)


def test_a_number_after_a_noun_no_parameter_names_adds_no_filter() -> None:
    # Failure path: "Table 4" names no parameter: no stall filter is put in for it.
    goal = "How many loaves were sold in sales.txt? Write it to Table 4 of totals.txt"
    assert "at_stall" not in [t for t, _ in _bakery(goal)]
    assert not _counted_keeper(BAKERY["at_stall"], goal, numbered_names=True)


# ---------------------------------------------------------------- a weekday beside its date


def test_a_weekday_before_a_date_is_part_of_the_date() -> None:
    goal = "How many loaves were sold on Tuesday the third of March 2026 in sales.txt? Write it to tue.txt"
    assert _bakery(goal) == [
        ("load_sales", {"sales_file": "sales.txt"}),
        ("sold_on", {"sales": "${s1}", "day": "2026-03-03"}),
        ("loaves_sold", {"sales": "${s2}"}),
        ("save_note", {"note_file": "tue.txt", "note": "${s3}\n"}),
    ]
    off = _bakery(goal, _off(dated_weekdays=False))
    assert off != _bakery(goal)  # "Tuesday" is a product to filter by, or the chain is undecided


def test_a_weekday_with_a_comma_before_a_date_is_part_of_it_too() -> None:
    goal = "How many loaves were sold on Friday, March 6th 2026 in sales.txt? Write it to fri.txt"
    steps = _bakery(goal)
    assert ("sold_on", {"sales": "${s1}", "day": "2026-03-06"}) in steps
    assert not any(args.get("product") == "Friday" for _, args in steps)


def test_a_weekday_on_its_own_is_still_a_value() -> None:
    # Failure path: no date beside it, so the rule keeps "Tuesday" (here a listed option).
    goal = "How many classes are held on Tue in classes.txt? Write it to tue_count.txt"
    assert ("held_on", {"classes": "${s1}", "weekday": "Tue"}) in decided_steps(goal, CENTRE, ON)


# ----------------------------------------------------------- an option named by its abbreviation


def test_compass_words_abbreviate_to_listed_points() -> None:
    points = {"n", "ne", "e", "se", "s", "sw", "w", "nw"}
    assert abbreviation_of("west", points) == "w"
    assert abbreviation_of("south-westerly", points) == "sw"
    assert abbreviation_of("Northeast", points) == "ne"
    assert abbreviation_of("southern", points) == "s"
    # Failure paths: a word that merely starts with an option's letter, a point not listed.
    assert abbreviation_of("with", points) is None
    assert abbreviation_of("north-north-east", points) is None


def test_a_prefix_abbreviates_only_when_one_option_fits() -> None:
    assert abbreviation_of("Thursday", DAYS) == "thu"
    assert abbreviation_of("tue", DAYS) is None  # said as the option already
    assert abbreviation_of("Sunny", {"sun", "sunn"}) is None  # two options fit: ambiguous


def test_a_weekday_in_full_goes_to_the_listed_weekday_code() -> None:
    goal = "How many classes are held on Thursday in classes.txt? Write it to thu.txt"
    assert abbreviated_options(goal, CENTRE, DAYS) == goal.replace("Thursday", "Thu")
    assert decided_steps(goal, CENTRE, ON) == [
        ("load_classes", {"timetable_file": "classes.txt"}),
        ("held_on", {"classes": "${s1}", "weekday": "Thu"}),
        ("count_classes", {"classes": "${s2}"}),
        ("put_text", {"text_file": "thu.txt", "text": "${s3}\n"}),
    ]
    off = decided_steps(goal, CENTRE, _off(abbreviated_options=False))
    assert ("held_on", {"classes": "${s1}", "weekday": "Thu"}) not in off


def test_the_coverage_check_takes_the_option_for_the_goal_word() -> None:
    # No file name says "thu" here: the plan's "Thu" is the goal's "Thursday", not invented.
    goal = "How many classes are held on Thursday in classes.txt? Write it to weekly.txt"
    steps = decided_steps(goal, CENTRE, ON)
    assert ("held_on", {"classes": "${s1}", "weekday": "Thu"}) in steps
    plan = Plan(goal=goal, steps=[Step(id=f"s{i}", tool=t, args=a) for i, (t, a) in enumerate(steps, 1)])
    assert check_coverage(plan, goal, CENTRE).covered
    # Failure path: a code the goal says nothing like is still invented.
    wrong = [Step(id=s.id, tool=s.tool, args={**s.args, "weekday": "Fri"}) for s in plan.steps]
    assert not check_coverage(Plan(goal=goal, steps=wrong), goal, CENTRE).covered


def test_an_inflection_or_a_lower_case_option_is_no_abbreviation() -> None:
    # Failure paths: "opened" is a form of the option "open", not an abbreviation of it; and a
    # tool writing its options in lower case lists words, not abbreviations.
    assert abbreviation_of("opened", {"open", "closed"}) is None
    goal = "Who ran the Wednesday sessions?"
    assert abbreviated_options(goal, CENTRE, {"wed"}) == goal.replace("Wednesday", "Wed")
    assert abbreviated_options(goal, BAKERY, {"wed"}) == goal  # no tool writes "Wed"


def test_a_file_name_is_never_abbreviated() -> None:
    # Failure path: "thursday_count.txt" keeps its name though "thursday" abbreviates.
    goal = "thursday_count.txt: how many classes are held on Thursday in classes.txt"
    assert "thursday_count.txt" in abbreviated_options(goal, CENTRE, DAYS)


def test_quoted_text_is_never_abbreviated() -> None:
    # Found on review: "write "Thursday yoga moved" to note.txt" had its given text rewritten.
    goal = 'Write "Thursday yoga moved" to note.txt, then count the classes held on Thursday'
    said = abbreviated_options(goal, CENTRE, DAYS)
    assert '"Thursday yoga moved"' in said and said.endswith("held on Thu")


# ------------------------------------------------------------ the first N days of a month


def test_the_first_days_of_a_month_are_a_range() -> None:
    text = "over the first four days of March 2026"
    assert [iso for _, _, iso in spelled_dates(text, month_runs=True)] == ["2026-03-01", "2026-03-04"]
    assert [iso for _, _, iso in spelled_dates("the last 2 days of February 2026", month_runs=True)] == [
        "2026-02-27",
        "2026-02-28",
    ]
    assert [iso for _, _, iso in spelled_dates(text)] == ["2026-03"]  # off: the whole month
    # Failure path: more days than the month has is no range.
    assert [iso for _, _, iso in spelled_dates("the first 40 days of March 2026", month_runs=True)] == [
        "2026-03"
    ]


def test_the_first_days_of_a_month_bind_a_two_day_filter() -> None:
    goal = "How many loaves were sold over the first three days of May 2026 in sales.txt? Save it to may.txt"
    assert ("sold_between", {"sales": "${s1}", "from_day": "2026-05-01", "to_day": "2026-05-03"}) in _bakery(
        goal
    )
    off = _bakery(goal, _off(month_runs=False))
    assert ("sold_between", {"sales": "${s1}", "from_day": "2026-05-01", "to_day": "2026-05-03"}) not in off


# ------------------------------------------------------- a possessive's result on a line


def test_a_possessive_on_a_line_of_a_file_names_the_output() -> None:
    goal = (
        "Loaf totals for north.txt and south.txt: North's on the first line of both.txt, "
        "South's on the second"
    )
    facts = goal_facts(goal, ON)
    assert facts.outputs == ("both.txt",)
    assert "both.txt" not in facts.inputs
    assert "both.txt" in goal_facts(goal, _off(possessive_lines=False)).inputs


def test_a_line_of_a_file_read_is_no_output() -> None:
    # Failure path: no possessive before "on the first line of": the file is read.
    goal = "Count the loaves mentioned on the first line of north.txt and write it to n.txt"
    assert "north.txt" in goal_facts(goal, ON).inputs


# ------------------------------------------------ a keeper by a counted number keeps, then counts


def test_a_keeper_by_a_number_of_its_unit_comes_before_the_count() -> None:
    goal = (
        "How many sales between the 2nd and the 9th of May 2026 had at least twelve loaves in "
        "sales.txt? Write it to big_sales.txt"
    )
    assert _bakery(goal) == [
        ("load_sales", {"sales_file": "sales.txt"}),
        ("sold_between", {"sales": "${s1}", "from_day": "2026-05-02", "to_day": "2026-05-09"}),
        ("loaves_at_least", {"sales": "${s2}", "loaves": 12}),
        ("count_sales", {"sales": "${s3}"}),
        ("save_note", {"note_file": "big_sales.txt", "note": "${s4}\n"}),
    ]
    # Off, the clause's order stands (the count before the keeper): no decided chain keeps first.
    off = _bakery(goal, _off(counted_keepers_first=False))
    assert off != _bakery(goal)


def test_an_auxiliary_after_a_year_is_no_literal_of_the_goal() -> None:
    # "… May 2026 had …": "had" is no noun of the number 2026 a plan would have to use.
    goal = "How many sales between the 2nd and the 9th of May 2026 had rain? Write it to r.txt"
    assert "had" not in [lit.text for lit in goal_literals(goal)]
    assert "kg" in [lit.text for lit in goal_literals("Write the parcels over 5 kg to heavy.txt")]
