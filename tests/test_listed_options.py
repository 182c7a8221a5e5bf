"""Options a tool lists for a text parameter ("units: ml, l, cup, gal"): the planner binds the
goal's options to the parameters they belong to, each a different one, and the coverage check
flags a plan that leaves a goal's option out ("convert 5 km to m" had both units bound to "m"
and reported success). Also: the clause's verb next to a parameter's noun is no value of it.

Over a made-up "pantry scales" tool set (none of the bench's suites)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from forethought import tool
from forethought.plan.coverage import check_coverage
from forethought.plan.model import Plan
from forethought.planning.listed_options import listed_options, option_words
from forethought.planning.planner import best_chain
from forethought.planning.refinements import Refinements


@tool
def convert_volume(amount: float, from_unit: str, to_unit: str) -> float:
    """Convert a volume between units: ml, l, cup, pint, gal."""
    return amount


@tool
def convert_span(size: float, unit: str, target: str) -> float:
    """Convert a length of fabric. Units: in, cm, yd."""
    return size


@tool
def label_jar(
    jar: str, colour: Annotated[str, Field(description="the lid's colour: red, green or blue")]
) -> str:
    """Print a label for a jar with a lid colour."""
    return jar


@tool
def shelf_report(shelf: str, sort: str) -> str:
    """A report of one shelf's jars with fields: name, weight or expiry; sorted by a field."""
    return shelf


@tool(effect="mutating")
def jot(note_file: str, words: str) -> str:
    """Write words to a note file."""
    return note_file


SPECS = {t.spec.name: t.spec for t in (convert_volume, convert_span, label_jar, shelf_report, jot)}
ON = Refinements()
OFF = Refinements(listed_options=False)


def test_a_list_belongs_to_the_parameters_it_names_or_describes() -> None:
    assert listed_options(SPECS["convert_volume"], "from_unit") == {"ml", "l", "cup", "pint", "gal"}
    assert listed_options(SPECS["convert_volume"], "to_unit") == {"ml", "l", "cup", "pint", "gal"}
    assert listed_options(SPECS["convert_volume"], "amount") == frozenset()
    assert listed_options(SPECS["label_jar"], "colour") == {"red", "green", "blue"}
    assert listed_options(SPECS["convert_span"], "unit") == {"in", "cm", "yd"}
    # "fields: name, weight or expiry" names no parameter: a list of fields, no options of "sort".
    assert listed_options(SPECS["shelf_report"], "sort") == frozenset()


def test_each_parameter_of_a_list_takes_a_different_option() -> None:
    spec = SPECS["convert_volume"]
    goal = "turn 2 gal into l"
    assert option_words(spec, "to_unit", goal, []) == ["l"]  # the word after "into"
    assert option_words(spec, "from_unit", goal, []) == ["gal"]  # "into l" is the target's
    # The option right after a number is the quantity's own: where a conversion starts.
    assert option_words(spec, "from_unit", "how many ml is 3 cup", [])[0] == "cup"
    assert option_words(spec, "to_unit", "how many ml is 3 cup", ["cup"]) == ["ml"]


def test_an_option_that_is_a_preposition_counts_only_as_a_unit() -> None:
    spec = SPECS["convert_span"]
    assert option_words(spec, "unit", "convert 12 in to cm", [])[0] == "in"
    assert option_words(spec, "unit", "convert 2 yd to in and save it in n.txt", []) == ["yd", "in"]
    assert "in" not in option_words(spec, "unit", "put 30 cm in n.txt", [])


def _plan(goal: str, refinements: Refinements) -> list[dict[str, Any]] | None:
    chosen = best_chain(goal, SPECS, True, refinements=refinements)
    return None if chosen is None else list(chosen.slots.first_plan()["steps"])


def test_the_planner_binds_both_units_without_a_model() -> None:
    goal = "convert 2 gal to l and write it to jug.txt"
    steps = _plan(goal, ON)
    assert steps is not None
    assert steps[0]["args"] == {"amount": 2.0, "from_unit": "gal", "to_unit": "l"}
    assert steps[-1]["args"]["note_file"] == "jug.txt"
    # Without the rule no model-free plan covers the goal: the units fall back to other words.
    off = _plan(goal, OFF)
    assert off is None or off[0]["args"] != steps[0]["args"]


def test_a_param_description_list_binds_its_value() -> None:
    steps = _plan("label the jar honey with a green lid", ON)
    assert steps is not None
    assert steps[0]["args"] == {"jar": "honey", "colour": "green"}


def _convert(goal: str, from_unit: str, to_unit: str) -> Plan:
    return Plan.model_validate(
        {
            "goal": goal,
            "steps": [
                {
                    "id": "s1",
                    "tool": "convert_volume",
                    "args": {"amount": 5, "from_unit": from_unit, "to_unit": to_unit},
                }
            ],
        }
    )


def test_coverage_flags_a_goal_option_no_argument_passes() -> None:
    goal = "convert 5 cup to ml"
    for wrong, left_out in ((("ml", "ml"), "cup"), (("cup", "cup"), "ml")):
        found = check_coverage(_convert(goal, *wrong), tools=SPECS)
        assert not found.covered
        assert [f.literal for f in found.missing] == [left_out]
        assert "convert_volume" in str(found.missing[0]) and "s1" in str(found.missing[0])
    assert check_coverage(_convert(goal, "cup", "ml"), tools=SPECS).covered


def test_coverage_asks_one_option_per_parameter_and_skips_negated_ones() -> None:
    def label(goal: str, colour: str) -> Plan:
        return Plan.model_validate(
            {
                "goal": goal,
                "steps": [{"id": "s1", "tool": "label_jar", "args": {"jar": "7", "colour": colour}}],
            },
        )

    # One parameter takes one option: naming a second ("not red") is no omission.
    found = check_coverage(label("label jar 7 green, not red", "green"), tools=SPECS)
    assert [f for f in found.missing if f.kind == "missing_literal"] == []
    # Only the options the goal says are asked for; the wrong one is still found.
    missing = check_coverage(label("label jar 7 green, not red", "blue"), tools=SPECS).missing
    assert {f.literal for f in missing if f.kind == "missing_literal"} == {"green"}


@tool(effect="mutating")
def reorder(code: str, amount: int) -> int:
    """Order more units of an item by its code."""
    return amount


def test_the_clauses_verb_next_to_a_parameters_noun_is_no_value() -> None:
    """ "reorder code B-200": the word before the parameter's name is the verb, not the code."""
    specs = {"reorder": reorder.spec}
    chosen = best_chain("reorder code B-200 with 5 units", specs, True)
    assert chosen is not None
    assert chosen.slots.first_plan()["steps"][0]["args"] == {"code": "B-200", "amount": 5}
