"""The refinements of suite 9's second round: a word a tool enumerates as a parameter's option
is a value wherever the goal says it, and a goal word is explained by a tool only if the tool
says that word, not one sharing its 5-letter stem.

Over a made-up "kennel" tool set (dogs of a boarding kennel; none of the bench's suites). Each
rule is checked on and off (``Refinements.enumerated_values``, ``whole_word_terms``), and words
that must stay explained stay.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from forethought import tool
from forethought.planning.goal_facts import goal_facts
from forethought.planning.planner import best_chain
from forethought.planning.refinements import Refinements
from forethought.planning.value_filters import (
    enumerated_options,
    same_word,
    value_docs,
    value_words,
)


class Dog(BaseModel):
    name: str
    size: str
    stay: str
    kennel: str


@tool
def load_dogs(kennel_register: str) -> list[Dog]:
    """Load the dogs of a kennel register file."""
    return []


@tool
def dogs_in_stay(dogs: list[Dog], stay: str) -> list[Dog]:
    """Only the dogs whose stay is in the given state: booked, boarding or departed."""
    return dogs


@tool
def dogs_of_kennel(dogs: list[Dog], kennel: str) -> list[Dog]:
    """Only the dogs housed in the given kennel."""
    return dogs


@tool
def count_transfers(dogs: list[Dog]) -> int:
    """How many transfers between kennels the dogs had."""
    return 0


@tool
def count_dogs(dogs: list[Dog]) -> int:
    """How many dogs there are."""
    return len(dogs)


@tool(effect="mutating")
def put_text(target: str, body: str) -> str:
    """Write text to a file."""
    return target


_TOOLS = (load_dogs, dogs_in_stay, dogs_of_kennel, count_transfers, count_dogs, put_text)
SPECS = {t.spec.name: t.spec for t in _TOOLS}
ON = Refinements()
NO_ENUMERATED = Refinements(enumerated_values=False)
NO_WHOLE_WORDS = Refinements(whole_word_terms=False)


def _values(goal: str, refinements: Refinements = ON) -> list[str]:
    docs = value_docs(SPECS, examples=refinements.example_values)
    return value_words(goal_facts(goal, refinements), docs, refinements, SPECS)


def _plan(goal: str, refinements: Refinements = ON) -> list[tuple[str, dict[str, Any]]]:
    chosen = best_chain(goal, SPECS, True, refinements=refinements)
    assert chosen is not None, goal
    return [(s["tool"], s["args"]) for s in chosen.slots.first_plan()["steps"]]


def test_enumerated_options_from_descriptions_and_schemas() -> None:
    assert enumerated_options(SPECS["dogs_in_stay"]) == {"booked", "boarding", "departed"}
    assert enumerated_options(SPECS["dogs_of_kennel"]) == set()

    @tool
    def by_size(dogs: list[Dog], size: str) -> list[Dog]:
        """Only the dogs of one size (one of small, medium, large)."""
        return dogs

    assert enumerated_options(by_size.spec) == {"small", "medium", "large"}
    # A list joined by "and" names fields, not options.

    @tool
    def describe(dogs: list[Dog]) -> str:
        """Describe the dogs: name, size and kennel."""
        return ""

    assert enumerated_options(describe.spec) == set()


def test_an_enumerated_option_is_a_value_where_it_stands() -> None:
    goal = "How many dogs in register.json are still boarding? Write the count to n.txt"
    assert "boarding" not in _values(goal, NO_ENUMERATED)
    assert "boarding" in _values(goal)
    steps = _plan(goal)
    assert ("dogs_in_stay", {"dogs": "${s1}", "stay": "boarding"}) in steps


def test_a_word_sharing_a_stem_is_not_explained() -> None:
    # "transport" shares "trans" with "transfers" but is another word: a kennel's name here.
    goal = "How many dogs are in the transport kennel in register.json? Write the count to n.txt"
    assert "transport" not in _values(goal, NO_WHOLE_WORDS)
    assert "transport" in _values(goal)


def test_inflected_forms_stay_explained() -> None:
    assert same_word("transfer", "transfer") and same_word("board", "boarding")
    assert same_word("categorie", "category")
    assert not same_word("transport", "transfer")
    # "kennels" is the tools' "kennel": no value.
    goal = "How many dogs are in the kennels of register.json? Write the count to n.txt"
    assert "kennels" not in _values(goal)
