"""The refinements added after suite 9: words that cannot be values are no fallback value of a
free text parameter, and the question word chooses the field of a record that is written.

Over a made-up "depot" tool set (shipments of a parcel depot; none of the bench's suites). Each
rule is checked on and off (``Refinements.fallback_classes``, ``question_fields``), and words or
fields that must stay as they were stay.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from forethought import tool
from forethought.planning.planner import best_chain
from forethought.planning.question_fields import asked_kind, is_date_field, is_person_field
from forethought.planning.refinements import Refinements
from forethought.planning.slots import bind
from forethought.planning.value_filters import no_value_words


class Shipment(BaseModel):
    # The field a rule must choose is never the first: without the rule, the first is offered first.
    depot: str
    weight: float
    dispatched: str
    courier: str
    consignee: str


@tool
def load_shipments(shipment_log: str) -> list[Shipment]:
    """Load the shipments of a depot's shipment log (dispatched date, consignee, courier, depot,
    weight in kg)."""
    return []


@tool
def shipments_from_depot(shipments: list[Shipment], depot: str) -> list[Shipment]:
    """Only the shipments leaving the given depot."""
    return shipments


@tool
def shipments_by_courier(shipments: list[Shipment], courier: str) -> list[Shipment]:
    """Only the shipments carried by the given courier (the person who drove them)."""
    return shipments


@tool
def heaviest_shipment(shipments: list[Shipment]) -> Shipment:
    """The shipment with the highest weight."""
    return shipments[0]


@tool
def first_shipment(shipments: list[Shipment]) -> Shipment:
    """The shipment that left the depot first."""
    return shipments[0]


@tool
def count_shipments(shipments: list[Shipment]) -> int:
    """How many shipments there are."""
    return len(shipments)


@tool(effect="mutating")
def put_text(target: str, body: str) -> str:
    """Write text to a file."""
    return target


_TOOLS = (
    load_shipments,
    shipments_from_depot,
    shipments_by_courier,
    heaviest_shipment,
    first_shipment,
    count_shipments,
    put_text,
)
SPECS = {t.spec.name: t.spec for t in _TOOLS}
ON = Refinements()
NO_FALLBACK_CLASSES = Refinements(fallback_classes=False)
NO_QUESTION_FIELDS = Refinements(question_fields=False)


def _written(goal: str, refinements: Refinements = ON) -> Any:
    """What the plan chosen without a model writes to the file."""
    chosen = best_chain(goal, SPECS, True, refinements=refinements)
    assert chosen is not None, goal
    return chosen.slots.first_plan()["steps"][-1]["args"]["body"]


def _depot_options(goal: str, refinements: Refinements = ON) -> list[Any]:
    chain = ["load_shipments", "shipments_from_depot", "count_shipments", "put_text"]
    args = dict(bind(chain, goal, SPECS, refinements=refinements).steps[1][1])
    options = args.get("depot", [])
    assert isinstance(options, list)
    return options


def test_a_superlative_or_a_verb_is_no_fallback_value() -> None:
    goal = "Count the biggest shipments in log.json and write the count to n.txt"
    assert "biggest" in _depot_options(goal, NO_FALLBACK_CLASSES)
    assert "biggest" not in _depot_options(goal)
    goal = "How many shipments went out in log.json? Write the count to n.txt"
    assert "went" in _depot_options(goal, NO_FALLBACK_CLASSES)
    assert "went" not in _depot_options(goal)
    # With nothing left to filter by, the filter's chain is no candidate.
    assert not bind(
        ["load_shipments", "shipments_from_depot", "count_shipments", "put_text"], goal, SPECS
    ).feasible


def test_nouns_in_est_and_adjectives_in_ed_stay_values() -> None:
    goal = "Count the forest shipments in log.json and write the count to n.txt"
    assert "forest" in _depot_options(goal)
    closed = no_value_words("Who opened the biggest ticket? I paid the closed test and the interest")
    assert {"opened", "biggest", "paid", "the"} <= closed
    assert not {"closed", "test", "interest", "ticket"} & closed
    # A word that may be a value somewhere in the goal is not closed ("the opened ones").
    assert "opened" not in no_value_words("Who opened them? Count the opened ones")
    # A capitalized word is a name.
    assert "went" in no_value_words("we went there") and "Went" not in no_value_words("we saw Went")


def test_who_as_the_doer_writes_the_person_who_acted() -> None:
    goal = "Who unloaded the heaviest shipment in log.json? Write it to who.txt"
    assert _written(goal).startswith("${s2.courier}")
    assert not _written(goal, NO_QUESTION_FIELDS).startswith("${s2.courier}")


def test_who_as_the_one_acted_on_writes_the_ee_field() -> None:
    goal = "Who did we send the heaviest shipment to, in log.json? Write it to to.txt"
    assert _written(goal).startswith("${s2.consignee}")
    assert not _written(goal, NO_QUESTION_FIELDS).startswith("${s2.consignee}")
    assert asked_kind("Whom did they pay?") == "patient" and asked_kind("Who paid?") == "person"


def test_how_much_writes_a_number_field() -> None:
    goal = "How much was the heaviest shipment in log.json? Put it in heavy.txt"
    assert _written(goal).startswith("${s2.weight}")
    assert not _written(goal, NO_QUESTION_FIELDS).startswith("${s2.weight}")


def test_when_writes_a_date_field() -> None:
    goal = "When did the first shipment in log.json leave? Write it to first.txt"
    assert _written(goal).startswith("${s2.dispatched}")
    assert not _written(goal, NO_QUESTION_FIELDS).startswith("${s2.dispatched}")
    # "When" inside a sentence joins clauses: no date is asked for.
    assert asked_kind("Write the count to n.txt when done") == ""


def test_a_field_named_by_the_goal_still_wins() -> None:
    goal = "Write the weight of the first shipment in log.json to w.txt"
    assert _written(goal).startswith("${s2.weight}")
    assert _written(goal, NO_QUESTION_FIELDS).startswith("${s2.weight}")


def test_person_and_date_fields_by_name_suffix_and_description() -> None:
    assert is_person_field("owner", SPECS) and is_person_field("payee", SPECS)
    assert is_person_field("courier", SPECS)  # a tool calls it a person
    assert not is_person_field("coffee", SPECS) and not is_person_field("depot", SPECS)
    assert not is_person_field("weight", SPECS)
    assert is_date_field("created_at", SPECS) and is_date_field("dispatched", SPECS)
    assert not is_date_field("depot", SPECS) and not is_date_field("consignee", SPECS)
