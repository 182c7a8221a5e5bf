"""The refinements added after suite 10: label values, names opening a sentence, pronouns and
placeholder nouns, ordinal-graded head nouns, readers first, and the field the written phrase
names.

Over a made-up "aquarium" tool set (the stockings of a public aquarium's tanks; none of the
bench's suites). Each rule is checked on and off (its ``Refinements`` switch).
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel

from forethought import tool
from forethought.plan.dates import date_range, spelled_dates
from forethought.planning.decompose import skeletons
from forethought.planning.goal_facts import goal_facts
from forethought.planning.planner import best_chain
from forethought.planning.question_fields import written_fields, written_phrase
from forethought.planning.refinements import Refinements
from forethought.planning.slots import bind
from forethought.planning.value_filters import label_values, value_docs, value_words


class Stocking(BaseModel):
    # The field a rule must choose is never the first: without the rule, the first is offered first.
    tank: str
    keeper: str
    species: str
    strain: str
    added: str
    count: int


@tool
def load_stockings(stock_log: str) -> list[Stocking]:
    """Load the stockings of an aquarium's stock log (tank, keeper, species, strain, added (the
    stocking date) and count of fish)."""
    return []


@tool
def stockings_in_tank(stockings: list[Stocking], tank: str) -> list[Stocking]:
    """Only the stockings of one tank."""
    return stockings


@tool
def stockings_of_keeper(stockings: list[Stocking], keeper: str) -> list[Stocking]:
    """Only the stockings a keeper looks after."""
    return stockings


@tool
def oldest_stocking(stockings: list[Stocking]) -> Stocking:
    """The stocking that was added first (the earliest)."""
    return stockings[0]


@tool
def fish_total(stockings: list[Stocking]) -> int:
    """The number of fish in some stockings, added up."""
    return 0


@tool(effect="mutating")
def put_text(target: str, body: str) -> str:
    """Write text to a file."""
    return target


_TOOLS = (load_stockings, stockings_in_tank, stockings_of_keeper, oldest_stocking, fish_total, put_text)
SPECS = {t.spec.name: t.spec for t in _TOOLS}
ON = Refinements()


def _values(goal: str, refinements: Refinements = ON) -> list[str]:
    facts = goal_facts(goal, refinements)
    return value_words(facts, value_docs(SPECS, examples=True), refinements, SPECS)


def _plan(goal: str, refinements: Refinements = ON) -> list[dict[str, Any]]:
    chosen = best_chain(goal, SPECS, True, refinements=refinements)
    assert chosen is not None, goal
    steps: list[dict[str, Any]] = chosen.slots.first_plan()["steps"]
    return steps


def test_a_capital_letter_after_a_parameter_noun_is_its_value() -> None:
    goal = "How many fish swim in tank C? Use stock.json and write the number to c.txt"
    assert "C" in _values(goal)
    assert "C" not in _values(goal, Refinements(label_values=False))
    steps = _plan(goal)
    assert {k: steps[1][k] for k in ("tool", "args")} == {
        "tool": "stockings_in_tank",
        "args": {"stockings": "${s1}", "tank": "C"},
    }
    # Possessive, and a label of letter and digits; never "I", never after another noun.
    assert label_values("Tank B2's fish and tank D", SPECS) == ["B2", "D"]
    assert label_values("Then I counted the fish A", SPECS) == []


def test_capitalized_words_opening_a_sentence_are_a_name() -> None:
    goal = "Grace Hopper's stockings in stock.json: write the fish total to grace.txt"
    assert "Grace Hopper" in _values(goal)
    assert "Grace Hopper" not in _values(goal, Refinements(leading_names=False))
    # A command or a word a tool explains opens no name.
    assert not {"Write Tank", "Tank B"} & set(_values("Write Tank B's total from stock.json to b.txt"))


def test_a_pronoun_is_no_value() -> None:
    goal = "Grace Hopper: how many fish has she added, according to stock.json? Write it to g.txt"
    assert "she" in _values(goal, Refinements(pronouns=False))
    assert "she" not in _values(goal)
    assert _values(goal) == ["Grace Hopper"]


def test_the_noun_an_ordinal_grades_and_placeholder_nouns_are_no_values() -> None:
    off = Refinements(head_nouns=False)
    goal = "Write the date the first guppies were added (stock.json) to first.txt"
    assert "guppies" in _values(goal, off) and "guppies" not in _values(goal)
    goal = "What was the first thing added to stock.json? Save the species as first.txt"
    assert "thing" in _values(goal, off) and "thing" not in _values(goal)
    # A noun after a plain noun and before its verb stays a value ("the fish tom added").
    assert "tom" in _values("Count the fish tom added in stock.json and write it to t.txt")


def test_a_reader_a_later_clause_chose_goes_first() -> None:
    goal = "Which strain was added earliest? Read stock.json and put the strain in s.txt"
    on = [sk.tools for sk in skeletons(goal, SPECS, limit=32)]
    off = [sk.tools for sk in skeletons(goal, SPECS, limit=32, refinements=Refinements(readers_first=False))]
    assert all(chain[0] == "load_stockings" for chain in on)
    assert any(chain[0] != "load_stockings" for chain in off)


def _written(goal: str, refinements: Refinements = ON) -> Any:
    chain = ["load_stockings", "oldest_stocking", "put_text"]
    return bind(chain, goal, SPECS, refinements=refinements).steps[2][1]["body"]


def test_the_written_phrase_is_found_in_one_pass_over_the_goal() -> None:
    # Each mention of the output had split and searched the whole text before it: a goal naming
    # first.txt 8,000 times took two minutes. The sentence's own verb is still the one read.
    goal = "Read stock.json. " + ", into first.txt" * 8000 + ". Write the fish's species to first.txt"
    start = time.perf_counter()
    assert written_phrase(goal, ("first.txt",)) == "the fish's species"
    assert time.perf_counter() - start < 10.0
    assert written_phrase("Write it. Put the species into first.txt", ("first.txt",)) == "the species"
    assert written_phrase("Write it. The species into first.txt", ("first.txt",)) == ""


def test_the_phrase_a_writing_verb_takes_names_the_written_field() -> None:
    off = Refinements(written_fields=False)
    goal = "What was added first to stock.json? Write the fish's species to first.txt"
    assert written_phrase(goal, ("first.txt",)) == "the fish's species"
    assert _written(goal) == ["${s2.species}"]
    assert _written(goal, off) != ["${s2.species}"]
    # A date: the field a tool glosses as the date ("added (the stocking date)").
    goal = "Which tank was stocked earliest in stock.json? Write its stocking date to d.txt"
    assert _written(goal) == ["${s2.added}"]
    assert _written(goal, off) != ["${s2.added}"]
    # "Its name": the field the "which" noun names.
    goal = "Which species in tank B was added first? Check stock.json and write its name to n.txt"
    assert _written(goal) == ["${s2.species}"]
    assert _written(goal, off) != ["${s2.species}"]
    fields = {"tank": None, "strain": None}
    assert written_fields("Write the number to n.txt", ("n.txt",), fields, SPECS) == set()


@tool
def stocked_between(stockings: list[Stocking], firstDay: str, lastDay: str) -> list[Stocking]:
    """Only the stockings added from firstDay to lastDay, both included (YYYY-MM-DD)."""
    return stockings


@tool
def due_for_cleaning(stockings: list[Stocking], onDate: str) -> list[Stocking]:
    """Only the stockings whose tank is due for cleaning on a date (YYYY-MM-DD)."""
    return stockings


DATED = {**SPECS, **{t.spec.name: t.spec for t in (stocked_between, due_for_cleaning)}}


def _dated_plan(
    goal: str, refinements: Refinements = ON, tools: dict[str, Any] = DATED
) -> list[tuple[str, dict[str, Any]]]:
    chosen = best_chain(goal, tools, True, refinements=refinements)
    if chosen is None:
        return []
    return [(s["tool"], s["args"]) for s in chosen.slots.first_plan()["steps"]]


def test_spelled_dates_are_iso_values() -> None:
    found = spelled_dates("due on 1 April 2026, or April 3rd, 2026; in March 2025")
    assert [iso for _, _, iso in found] == ["2026-04-01", "2026-04-03", "2025-03"]
    assert found[0][:2] == (7, 19)
    assert spelled_dates("the 31 April 2026 or may 2026") == []  # no such day; a modal
    assert date_range(["2026-02"]) == ("2026-02-01", "2026-02-28")
    assert date_range(["2026-03-01", "2026-03-09"]) == ("2026-03-01", "2026-03-09")
    goal = "How many stockings in stock.json are due for cleaning on 1 April 2026? Write it to c.txt"
    assert "2026-04-01" in _values(goal)
    assert "2026-04-01" not in _values(goal, Refinements(spelled_dates=False))
    assert ("due_for_cleaning", {"stockings": "${s1}", "onDate": "2026-04-01"}) in _dated_plan(goal)


def test_a_month_or_two_days_fill_a_range_of_days() -> None:
    goal = "How many fish were added during March 2026, according to stock.json? Save it to m.txt"
    want = ("stocked_between", {"stockings": "${s1}", "firstDay": "2026-03-01", "lastDay": "2026-03-31"})
    assert want in _dated_plan(goal)
    assert want not in _dated_plan(goal, Refinements(spelled_dates=False))
    goal = "Count the fish added from 2026-03-02 to 2026-03-09 in stock.json and write it to w.txt"
    want = ("stocked_between", {"stockings": "${s1}", "firstDay": "2026-03-02", "lastDay": "2026-03-09"})
    assert want in _dated_plan(goal)
    assert want not in _dated_plan(goal, Refinements(spelled_dates=False))


def test_values_of_two_kinds_get_a_filter_each() -> None:
    goal = (
        "How many of Grace Hopper's stockings in stock.json are due for cleaning on 2026-04-02? "
        "Write it to g.txt"
    )
    # One filter by text (the keeper), one by date.
    specs = {n: s for n, s in DATED.items() if n != "stockings_in_tank"}
    tools = [name for name, _ in _dated_plan(goal, ON, specs)]
    assert {"stockings_of_keeper", "due_for_cleaning"} <= set(tools)
    off = [name for name, _ in _dated_plan(goal, Refinements(chained_filters=False), specs)]
    assert not {"stockings_of_keeper", "due_for_cleaning"} <= set(off)


def test_an_arrow_points_at_the_output() -> None:
    goal = "Count the fish added in stock.json -> fish.txt"
    assert goal_facts(goal, ON).outputs == ("fish.txt",)
    assert goal_facts(goal, Refinements(arrow_targets=False)).outputs != ("fish.txt",)


def test_a_step_runs_once_per_file_and_the_writer_takes_every_result() -> None:
    goal = "Write the fish totals of stock.json and stock_2025.json to both.txt, one per line"
    steps = _plan(goal)
    assert [s["tool"] for s in steps] == [
        "load_stockings",
        "fish_total",
        "load_stockings",
        "fish_total",
        "put_text",
    ]
    assert steps[-1]["args"]["body"] == "${s2}\n${s4}\n"
    off = best_chain(goal, SPECS, True, refinements=Refinements(per_file_results=False))
    assert off is None or off.slots.first_plan()["steps"][-1]["args"]["body"] != "${s2}\n${s4}\n"
