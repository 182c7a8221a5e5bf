"""The refinements added after suite 11: place parameters, listed options, formatted values,
codes, file-named words, spelled times of day, negated values, named numbers, "every" asking
for a list, and one result per file on a line of its own.

Over a made-up "courier" tool set (a parcel depot's manifests; none of the bench's suites).
Each rule is checked on and off (its ``Refinements`` switch).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from _planner_support import decided_steps, goal_values
from forethought import tool
from forethought.plan.dates import spelled_times, time_range
from forethought.planning.answer_shapes import asks_every
from forethought.planning.goal_facts import goal_facts
from forethought.planning.planner import best_chain
from forethought.planning.refinements import Refinements
from forethought.planning.slots import bind
from forethought.planning.tool_roles import names_a_place, value_param
from forethought.planning.value_filters import enumerated_options


class Parcel(BaseModel):
    parcel_id: str
    client: str
    sent: str
    picked_up: str
    town: str
    weight_kg: int
    stage: str
    transit_min: int
    dispatched: str


@tool
def load_manifest(manifest_file: str) -> list[Parcel]:
    """Read a depot's parcel manifest: each parcel's ID, client code, dispatch date, pick-up
    time, town and weight in kg, and its delivery stage."""
    return []


@tool
def for_client(parcels: list[Parcel], client_code: str) -> list[Parcel]:
    """Keep the parcels of one client, given its code."""
    return parcels


@tool
def in_stage(parcels: list[Parcel], stage: str) -> list[Parcel]:
    """Keep the parcels at one delivery stage: booked (not yet picked up), moving or delivered."""
    return parcels


@tool
def sent_after(parcels: list[Parcel], day: str) -> list[Parcel]:
    """Keep the parcels sent on or after a day (YYYY-MM-DD)."""
    return parcels


@tool
def heading_to(parcels: list[Parcel], destination: str) -> list[Parcel]:
    """Only the parcels going to a given destination town."""
    return parcels


@tool
def picked_up_between(parcels: list[Parcel], earliest: str, latest: str) -> list[Parcel]:
    """Only the parcels picked up from earliest to latest, both included (24-hour HH:MM)."""
    return parcels


@tool
def heavier_than(parcels: list[Parcel], min_kg: int) -> list[Parcel]:
    """Only the parcels weighing at least min_kg."""
    return parcels


@tool
def parcel_count(parcels: list[Parcel]) -> int:
    """How many parcels there are."""
    return len(parcels)


@tool
def total_volume_l(parcels: list[Parcel]) -> float:
    """Combined volume of some parcels, in litres."""
    return 0.0


@tool
def lightest_parcel(parcels: list[Parcel]) -> Parcel:
    """The parcel that weighs least, with all its details."""
    return parcels[0]


@tool
def parcel_lines(parcels: list[Parcel]) -> str:
    """Parcels as printable lines, one line per parcel (ID, town, stage)."""
    return ""


@tool(effect="mutating")
def save_text(destination: str, body: str) -> str:
    """Save text to a file."""
    return destination


_TOOLS = (
    load_manifest,
    for_client,
    in_stage,
    sent_after,
    heading_to,
    picked_up_between,
    heavier_than,
    parcel_count,
    total_volume_l,
    lightest_parcel,
    parcel_lines,
    save_text,
)
SPECS = {t.spec.name: t.spec for t in _TOOLS}
ON = Refinements()


def _values(goal: str, refinements: Refinements = ON) -> list[str]:
    return goal_values(goal, SPECS, refinements)


def _steps(goal: str, refinements: Refinements = ON) -> list[tuple[str, dict[str, Any]]]:
    return decided_steps(goal, SPECS, refinements)


def _values_taken(goal: str, refinements: Refinements = ON) -> set[tuple[str, str]]:
    """(tool, value) for every literal text argument of the chosen chain but files'."""
    return {
        (tool, value)
        for tool, args in _steps(goal, refinements)
        for value in args.values()
        if isinstance(value, str) and "${" not in value and "." not in value
    }


def test_a_parameter_named_like_a_file_names_a_place_in_a_tool_taking_data() -> None:
    heading = SPECS["heading_to"]
    assert names_a_place(heading, "destination")
    assert not names_a_place(SPECS["save_text"], "destination")  # a writer's is a file
    assert value_param(heading, places=True) == "destination"
    assert value_param(heading) is None
    goal = "Which parcels go to Dundee? Read manifest.json and write their lines to dundee.txt"
    assert ("heading_to", {"parcels": "${s1}", "destination": "Dundee"}) in _steps(goal)
    assert "heading_to" not in [t for t, _ in _steps(goal, Refinements(place_params=False))]


def test_a_place_parameter_takes_the_value_after_to_first() -> None:
    goal = "Which parcels go from Perth to Dundee? Read manifest.json and write their lines to d.txt"
    slots = bind(["load_manifest", "heading_to", "parcel_lines", "save_text"], goal, SPECS, refinements=ON)
    assert slots.steps[1][1]["destination"] == ["Dundee"]


def test_a_listed_option_fits_only_the_parameter_that_lists_it() -> None:
    assert enumerated_options(SPECS["in_stage"], glossed=True) == {"booked", "moving", "delivered"}
    assert "delivered" not in enumerated_options(SPECS["in_stage"])  # the gloss hides the list
    goal = "How many KX-12 parcels have been delivered? manifest.json -> kx_done.txt"
    assert _values_taken(goal) == {("for_client", "KX-12"), ("in_stage", "delivered")}
    assert _values_taken(goal, Refinements(option_values=False)) != _values_taken(goal)
    # A code is no stage: the stage filter alone finds no value for it.
    slots = bind(["load_manifest", "in_stage", "parcel_count", "save_text"], goal, SPECS, refinements=ON)
    assert slots.steps[1][1]["stage"] == ["delivered"]
    lone = "How many KX-12 parcels are there? manifest.json -> kx.txt"
    assert not bind(["load_manifest", "in_stage", "parcel_count", "save_text"], lone, SPECS).feasible
    assert bind(
        ["load_manifest", "in_stage", "parcel_count", "save_text"],
        lone,
        SPECS,
        refinements=Refinements(option_values=False),
    ).feasible


def test_the_option_named_after_the_parameter_is_the_one() -> None:
    goal = "How many parcels are not yet picked up (stage booked)? Use manifest.json; write b.txt"
    chain = ["load_manifest", "in_stage", "parcel_count", "save_text"]
    assert bind(chain, goal, SPECS).steps[1][1]["stage"] == ["booked"]


def test_a_formatted_parameter_takes_only_values_of_its_shape() -> None:
    goal = "How many KX-12 parcels were sent? manifest.json -> sent.txt"
    chain = ["load_manifest", "sent_after", "parcel_count", "save_text"]
    assert not bind(chain, goal, SPECS).feasible  # "KX-12" is no day
    assert bind(chain, goal, SPECS, refinements=Refinements(shaped_values=False)).feasible


def test_a_code_is_a_value_wherever_it_stands() -> None:
    goal = "Count the parcels of client KX-12 in manifest.json; answer in kx.txt"
    assert "KX-12" in _values(goal)
    assert "KX-12" not in _values(goal, Refinements(code_values=False))
    assert _values_taken(goal) == {("for_client", "KX-12")}


def test_a_word_naming_an_input_file_is_no_value() -> None:
    goal = "How many parcels are on the Leith manifest (leith.json)? Write it to leith_count.txt"
    assert "Leith" not in _values(goal)
    # ``file_word_values`` (suite 12) drops any word of the file's name: both off here.
    both_off = Refinements(file_named_values=False, file_word_values=False)
    assert "Leith" in _values(goal, both_off)
    # Reading leith.json uses the name: the planner needs no model for the goal.
    assert [t for t, _ in _steps(goal)] == ["load_manifest", "parcel_count", "save_text"]
    assert [t for t, _ in _steps(goal, both_off)] != [
        "load_manifest",
        "parcel_count",
        "save_text",
    ]


def test_times_of_day_with_am_and_pm_are_24_hour_times() -> None:
    assert [t for _, _, t in spelled_times("between 7 and 9 am")] == ["07:00", "09:00"]
    assert [t for _, _, t in spelled_times("from 11 am to 1.30 pm")] == ["11:00", "13:30"]
    assert [t for _, _, t in spelled_times("at 12 pm, not 13 pm, and 5 amps")] == ["12:00"]
    assert time_range(["07:00", "2026-01-01", "09:00"]) == ("07:00", "09:00")
    goal = "Count the parcels in manifest.json picked up between 8 and 10 am; write the count to am.txt"
    assert ("picked_up_between", {"parcels": "${s1}", "earliest": "08:00", "latest": "10:00"}) in _steps(goal)
    off = _steps(goal, Refinements(spelled_times=False))
    assert "picked_up_between" not in [t for t, _ in off]


def test_two_clock_times_are_a_range() -> None:
    goal = (
        "Which parcels in manifest.json were picked up between 12:00 and 14:30? Write their lines to noon.txt"
    )
    steps = _steps(goal)
    assert ("picked_up_between", {"parcels": "${s1}", "earliest": "12:00", "latest": "14:30"}) in steps
    assert "picked_up_between" not in [t for t, _ in _steps(goal, Refinements(spelled_times=False))]


def test_a_negated_value_is_no_value() -> None:
    goal = "Which KX-12 parcels are booked but not delivered? Use manifest.json; their lines to kx.txt"
    assert "delivered" not in _values(goal)
    assert "delivered" in _values(goal, Refinements(negated_values=False))
    assert _values_taken(goal) == {("for_client", "KX-12"), ("in_stage", "booked")}


def test_the_number_the_goal_names_by_a_parameter_comes_before_a_computed_one() -> None:
    goal = "How many parcels in manifest.json weigh at least 5 kg? Write the count to heavy.txt"
    chain = ["load_manifest", "parcel_count", "heavier_than", "parcel_lines", "save_text"]
    assert bind(chain, goal, SPECS).steps[2][1]["min_kg"] == [5]
    assert bind(chain, goal, SPECS, refinements=Refinements(named_numbers_first=False)).steps[2][1][
        "min_kg"
    ] == ["${s2}"]


def test_every_item_asks_for_the_list() -> None:
    assert asks_every("Show every parcel on the board")
    assert not asks_every("How many of all the parcels are late?")
    assert not asks_every("the lightest of all parcels")
    for goal in (
        "Write every parcel weight from leith.json to weights.txt",
        "Show each parcel in leith.json with its weight in board.txt",
    ):
        assert [t for t, _ in _steps(goal)] == ["load_manifest", "parcel_lines", "save_text"]
        off = _steps(goal, Refinements(plural_lists=False))
        assert [t for t, _ in off] == ["load_manifest", "lightest_parcel", "save_text"]


def test_one_result_per_file_is_one_line_each() -> None:
    goal = "Write the number of parcels on leith.json and on perth.json to counts.txt, one number per line"
    steps = _steps(goal)
    assert [t for t, _ in steps] == [
        "load_manifest",
        "parcel_count",
        "load_manifest",
        "parcel_count",
        "save_text",
    ]
    assert steps[-1][1]["body"] == "${s2}\n${s4}\n"
    off = _steps(goal, Refinements(per_file_layout=False))
    assert [t for t, _ in off] != [t for t, _ in steps]


def test_a_clause_a_filter_answers_needs_no_tool_of_its_own() -> None:
    goal = "Which parcels go to Dundee? Read manifest.json and write their lines to dundee.txt"
    on = [t for t, _ in _steps(goal)]
    assert on == ["load_manifest", "heading_to", "parcel_lines", "save_text"]
    # Off (with ``which_nouns``, which also puts ``parcel_lines`` in for "Which parcels"), not so.
    assert [t for t, _ in _steps(goal, Refinements(filter_clauses=False, which_nouns=False))] != on


def test_a_spelled_time_is_used_as_its_24_hour_text() -> None:
    from forethought.plan.coverage import check_coverage
    from forethought.plan.model import Plan, Step

    goal = "Count the parcels in manifest.json picked up between 8 and 10 am; write the count to am.txt"
    steps = [
        Step(id="s1", tool="load_manifest", args={"manifest_file": "manifest.json"}),
        Step(
            id="s2",
            tool="picked_up_between",
            args={"parcels": "${s1}", "earliest": "08:00", "latest": "10:00"},
        ),
        Step(id="s3", tool="parcel_count", args={"parcels": "${s2}"}),
        Step(id="s4", tool="save_text", args={"destination": "am.txt", "body": "${s3}\n"}),
    ]
    assert not check_coverage(Plan(goal=goal, steps=steps), goal, SPECS).missing
    late = [
        *steps[:1],
        steps[1].model_copy(update={"args": {"parcels": "${s1}", "earliest": "08:00", "latest": "11:00"}}),
        *steps[2:],
    ]
    assert check_coverage(Plan(goal=goal, steps=late), goal, SPECS).missing


def test_when_asks_for_a_field_a_description_dates_by_a_word_of_its_stem() -> None:
    from forethought.planning.question_fields import is_date_field

    assert is_date_field("dispatched", SPECS, derived=True)  # "dispatch date"
    assert not is_date_field("dispatched", SPECS)
    assert not is_date_field("client", SPECS, derived=True)


def test_a_formatted_filter_explains_no_value_of_another_shape() -> None:
    from forethought.planning.decompose import skeletons

    goal = "How many KX-12 parcels were sent? manifest.json -> kx.txt"

    def prior(refinements: Refinements) -> float:
        chain = ("load_manifest", "sent_after", "parcel_count", "save_text")  # no day given
        return next(
            s.prior for s in skeletons(goal, SPECS, limit=64, refinements=refinements) if s.tools == chain
        )

    assert prior(ON) < prior(Refinements(shaped_values=False))


async def test_make_plan_takes_the_decided_chain_stream_plan_takes_without_a_model_call() -> None:
    from forethought.models import ScriptedModel
    from forethought.planning.planner import PlannerOptions, make_plan

    goal = "Which parcel of the day in leith.json weighs least? Write its ID number to light.txt"
    on = PlannerOptions(decompose=True, typed_flow=True, candidates=4)
    chosen = best_chain(goal, SPECS, True, refinements=ON)
    assert chosen is not None and chosen.slots.decided()
    result = await make_plan(goal, SPECS, ScriptedModel([]), options=on)  # any call would fail
    assert result.plan is not None and not result.calls and result.plan.metadata["covered"]
    assert tuple(s.tool for s in result.plan.steps) == chosen.steps_tools
    # Without the rule, chains the model fills rank before it.
    off = PlannerOptions(
        decompose=True, typed_flow=True, candidates=4, refinements=Refinements(decided_chain_first=False)
    )
    asked = await make_plan(goal, SPECS, ScriptedModel(['{"steps": []}'] * 8), options=off)
    assert asked.calls


def test_the_phrase_after_a_label_names_the_field_and_a_dash_labels_too() -> None:
    goal = "light.txt: the town that the lightest parcel in manifest.json goes to"
    assert _steps(goal)[-1] == ("save_text", {"destination": "light.txt", "body": "${s2.town}"})
    assert _steps(goal, Refinements(label_phrases=False))[-1][1]["body"] != "${s2.town}"
    dashed = "weight.txt - the heaviest parcels in leith.json, their lines"
    assert goal_facts(dashed, ON).outputs == ("weight.txt",)
    assert goal_facts(dashed, Refinements(label_phrases=False)).outputs != ("weight.txt",)


def test_a_listed_option_may_come_from_a_field_of_its_name_only() -> None:
    goal = "light.txt: the stage of the lightest parcel in manifest.json"
    chain = ["load_manifest", "lightest_parcel", "in_stage", "parcel_lines", "save_text"]
    no_sameness = Refinements(same_as_filters=False)  # any field reference offered
    assert bind(chain, goal, SPECS, refinements=no_sameness).steps[2][1]["stage"] == ["${s2.stage}"]
    goal = "light.txt: the ID of the lightest parcel in manifest.json"
    assert not bind(chain, goal, SPECS, refinements=no_sameness).feasible  # an ID is no stage
    options_off = Refinements(option_values=False, same_as_filters=False)
    assert bind(chain, goal, SPECS, refinements=options_off).feasible


def test_the_value_right_after_a_parameters_name_is_its_value() -> None:
    goal = "How many Dundee parcels (client KX-12) are there in manifest.json? Save the count in kx.txt"
    chain = ["load_manifest", "for_client", "parcel_count", "save_text"]
    assert bind(chain, goal, SPECS).steps[1][1]["client_code"] == ["KX-12"]
    off = bind(chain, goal, SPECS, refinements=Refinements(named_after_param=False))
    assert off.steps[1][1]["client_code"] == ["Dundee", "KX-12"]


def test_how_many_before_a_unit_asks_for_an_amount() -> None:
    from forethought.planning.word_classes import measured_amounts

    assert (
        measured_amounts("How many mL are left? how many samples?")
        == "total number mL are left? how many samples?"
    )
    goal = "How many L of booked parcels does manifest.json hold? Save the amount to litres.txt"
    assert "total_volume_l" in [t for t, _ in _steps(goal)]
    assert "total_volume_l" not in [t for t, _ in _steps(goal, Refinements(measure_units=False))]


def test_a_filter_by_a_field_of_a_picked_record_needs_a_word_of_sameness() -> None:
    chain = ["load_manifest", "lightest_parcel", "in_stage", "parcel_lines", "save_text"]
    goal = "light.txt: the stage of the lightest parcel in manifest.json"
    assert not bind(chain, goal, SPECS).feasible
    assert bind(chain, goal, SPECS, refinements=Refinements(same_as_filters=False)).feasible
    same = "light.txt: the stage of the lightest parcel in manifest.json and its like"
    assert bind(chain, same, SPECS).steps[2][1]["stage"] == ["${s2.stage}"]
    numeric = ["load_manifest", "lightest_parcel", "heavier_than", "parcel_lines", "save_text"]
    assert not bind(numeric, "light.txt: the weight of the lightest parcel in manifest.json", SPECS).feasible


def test_a_written_field_shortening_a_goal_word_is_named_by_it() -> None:
    from forethought.plan.coverage import check_coverage
    from forethought.plan.model import Plan, Step
    from forethought.planning.candidates import score_candidate

    goal = "How many minutes did the lightest parcel in manifest.json take on the road? Answer in t.txt"
    plan = Plan(
        goal=goal,
        steps=[
            Step(id="s1", tool="load_manifest", args={"manifest_file": "manifest.json"}),
            Step(id="s2", tool="lightest_parcel", args={"parcels": "${s1}"}),
            Step(id="s3", tool="save_text", args={"destination": "t.txt", "body": "${s2.transit_min}"}),
        ],
    )
    assert not check_coverage(plan, goal, SPECS, abbreviations=True).missing
    assert check_coverage(plan, goal, SPECS).missing  # "how many": no step counts
    assert score_candidate(plan, [], goal, SPECS, abbreviations=True).findings == 0
    assert score_candidate(plan, [], goal, SPECS).findings == 1


def test_a_label_is_read_when_another_file_is_written_to() -> None:
    goal = "leith.json: which parcel weighs least? Write its ID to light_id.txt"
    facts = goal_facts(goal, ON)
    assert (facts.inputs, facts.outputs) == (("leith.json",), ("light_id.txt",))
    off = goal_facts(goal, Refinements(label_sources=False))
    assert "leith.json" in off.outputs
    assert goal_facts("count.txt: how many parcels are in leith.json?", ON).outputs == ("count.txt",)


def test_the_date_written_is_a_field_a_description_dates_by_a_word_of_its_stem() -> None:
    goal = "The lightest parcel in manifest.json: put the date in d.txt"
    chain = ["load_manifest", "lightest_parcel", "save_text"]
    # "picked_up" is one by its own word ("pick-up time"), "dispatched" by "dispatch date".
    assert bind(chain, goal, SPECS).steps[2][1]["body"] == ["${s2.picked_up}", "${s2.dispatched}"]
    off = bind(chain, goal, SPECS, refinements=Refinements(derived_date_fields=False))
    assert off.steps[2][1]["body"] == ["${s2.picked_up}"]
