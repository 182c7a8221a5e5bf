"""The refinements added after suite 16's failure classes (branch fix16).

Over made-up tool sets that appear in no bench suite: a kayak club's paddling log (trips with a
duration in seconds and a load in grams) and a file archive's manifest (entries with a storage
key, a path from the root, and a size). Each rule is checked on and off (its ``Refinements``
switch), failure paths included.
"""

from __future__ import annotations

import dataclasses

from pydantic import BaseModel

from _planner_support import decided_steps
from forethought import tool
from forethought.plan.coverage import check_coverage
from forethought.plan.model import Plan, Step
from forethought.plan.unit_quantities import converted_numbers, converted_units, goal_quantities, param_unit
from forethought.planning.goal_facts import goal_facts
from forethought.planning.refinements import Refinements
from forethought.planning.tool_roles import is_path_param, takes_prefix
from forethought.planning.value_filters import value_docs, value_words


class Trip(BaseModel):
    paddler: str
    seconds: int
    load_g: int


@tool
def load_trips(trips_file: str) -> list[Trip]:
    """Read a kayak club's paddling log: each trip's paddler, its duration and its load."""
    return []


@tool
def lasting_over(trips: list[Trip], max_seconds: int) -> list[Trip]:
    """Only the trips that lasted longer than max_seconds."""
    return trips


@tool
def heavier_than(trips: list[Trip], load: int) -> list[Trip]:
    """Only the trips whose boat carried more than load grams."""
    return trips


@tool
def count_trips(trips: list[Trip]) -> int:
    """How many trips there are."""
    return len(trips)


@tool(effect="mutating", idempotent=True)
def jot(jot_file: str, words: str) -> str:
    """Write words to a text file."""
    return jot_file


class Entry(BaseModel):
    key: str
    path: str
    size: int


@tool
def open_manifest(manifest_file: str) -> list[Entry]:
    """Read an archive manifest: each stored entry's key, its path from the archive's root and
    its size."""
    return []


@tool
def keyed_from(entries: list[Entry], stem: str) -> list[Entry]:
    """Only the entries whose path starts with stem, e.g. /photos/."""
    return entries


@tool
def biggest_entry(entries: list[Entry]) -> Entry:
    """The single largest entry, with all its fields (key, path, size)."""
    return entries[0]


@tool
def entry_total(entries: list[Entry]) -> int:
    """Total size of the entries."""
    return sum(e.size for e in entries)


@tool(effect="mutating", idempotent=True)
def record_text(out_file: str, body: str) -> str:
    """Save body to a text file."""
    return out_file


class Found(BaseModel):
    path: str
    lines: int


@tool
def locate(listing_file: str) -> Found:
    """Read a listing file and give the file it names, with its path and line count."""
    return Found(path="", lines=0)


KAYAK = {t.spec.name: t.spec for t in (load_trips, lasting_over, heavier_than, count_trips, jot)}
ARCHIVE = {t.spec.name: t.spec for t in (open_manifest, keyed_from, biggest_entry, entry_total, record_text)}
ON = Refinements()


def _off(**switches: bool) -> Refinements:
    return dataclasses.replace(ON, **switches)


# ----------------------------------------------------------------- a bound in another unit


def test_a_parameter_gives_its_unit_by_its_name_or_its_description() -> None:
    assert param_unit(KAYAK["lasting_over"], "max_seconds").name == "seconds"  # type: ignore[union-attr]
    assert param_unit(KAYAK["heavier_than"], "load").name == "grams"  # type: ignore[union-attr]
    # Failure path: a number the tool says nothing of the unit of has none.
    assert param_unit(ARCHIVE["entry_total"], "entries") is None


def test_quantities_in_words_and_fractions() -> None:
    said = {
        "longer than a minute": 1.0,
        "a quarter of an hour": 0.25,
        "half a minute": 0.5,
        "two and a half hours": 2.5,
        "an hour and a half": 1.5,
        "three quarters of an hour": 0.75,
        "over 1.5 kg": 1.5,
    }
    for text, amount in said.items():
        assert [q.amount for q in goal_quantities(text)] == [amount], text
    # Failure path: "a second" before a noun is the ordinal, no length of time.
    assert goal_quantities("Write a second copy to b.txt") == []


def test_a_bound_in_minutes_goes_to_a_parameter_in_seconds() -> None:
    goal = "How many trips in log.txt lasted longer than two and a half minutes? Write it to long.txt"
    assert converted_units(goal, KAYAK).startswith(
        "How many trips in log.txt lasted longer than 150 seconds?"
    )
    assert decided_steps(goal, KAYAK, ON) == [
        ("load_trips", {"trips_file": "log.txt"}),
        ("lasting_over", {"trips": "${s1}", "max_seconds": 150}),
        ("count_trips", {"trips": "${s2}"}),
        ("jot", {"jot_file": "long.txt", "words": "${s3}\n"}),
    ]
    # Off, 150 is no number of the goal's: the filter is not decided that way.
    off = decided_steps(goal, KAYAK, _off(converted_units=False))
    assert ("lasting_over", {"trips": "${s1}", "max_seconds": 150}) not in off


def test_a_bound_in_kilos_goes_to_a_parameter_in_grams() -> None:
    goal = "How many trips in log.txt carried more than half a kilo? Save it to heavy.txt"
    steps = decided_steps(goal, KAYAK, ON)
    assert ("heavier_than", {"trips": "${s1}", "load": 500}) in steps


def test_a_quantity_in_the_parameters_unit_in_digits_is_left_alone() -> None:
    goal = "How many trips lasted longer than 90 seconds?"
    assert converted_units(goal, KAYAK) == goal
    # Nor is a quantity of a dimension no parameter is counted in.
    assert converted_units("trips longer than 3 km", KAYAK) == "trips longer than 3 km"


def test_quoted_text_and_file_names_are_never_converted() -> None:
    # Found on review: the given text and a file's name had been rewritten like prose.
    goal = (
        'Jot "back in half an hour" into note.txt, then count the trips of 2kg.txt longer than half an hour'
    )
    said = converted_units(goal, KAYAK)
    assert '"back in half an hour"' in said and "2kg.txt" in said
    assert said.endswith("longer than 1800 seconds")
    assert [q.amount for q in goal_quantities(goal)] == [0.5]


def test_parameters_in_two_units_of_a_dimension_convert_nothing() -> None:
    @tool
    def shorter_than(trips: list[Trip], minutes: int) -> list[Trip]:
        """Only the trips that lasted less than this many minutes."""
        return trips

    both = {**KAYAK, "shorter_than": shorter_than.spec}
    goal = "trips longer than half an hour"
    assert converted_units(goal, both) == goal
    assert converted_units(goal, KAYAK) == "trips longer than 1800 seconds"


def test_the_coverage_check_takes_the_converted_number_as_the_goals() -> None:
    goal = "Write the number of trips in log.txt longer than a quarter of an hour to n.txt"
    assert 900.0 in converted_numbers(goal)
    plan = Plan(
        goal=goal,
        steps=[
            Step(id="s1", tool="load_trips", args={"trips_file": "log.txt"}),
            Step(id="s2", tool="lasting_over", args={"trips": "${s1}", "max_seconds": 900}),
            Step(id="s3", tool="count_trips", args={"trips": "${s2}"}),
            Step(id="s4", tool="jot", args={"jot_file": "n.txt", "words": "${s3}"}),
        ],
    )
    assert not check_coverage(plan, goal, KAYAK).of_kind("invented_argument")
    # Failure path: a number the goal's quantity does not come to is still invented.
    wrong = plan.model_copy(
        update={
            "steps": [
                *plan.steps[:1],
                Step(id="s2", tool="lasting_over", args={"trips": "${s1}", "max_seconds": 901}),
                *plan.steps[2:],
            ]
        }
    )
    assert check_coverage(wrong, goal, KAYAK).of_kind("invented_argument")


# ------------------------------------------------------------- a prefix said as a path


def test_a_parameter_described_as_a_start_takes_a_prefix_and_no_file() -> None:
    spec = ARCHIVE["keyed_from"]
    assert takes_prefix(spec, "stem")
    assert is_path_param(spec, "stem", places=False)  # the tool speaks of paths
    assert not is_path_param(spec, "stem", places=True)
    # Failure path: a reader's file parameter is none.
    assert not takes_prefix(ARCHIVE["open_manifest"], "manifest_file")


def test_a_path_from_the_root_filters_by_its_start() -> None:
    goal = "What is the total size of the entries under /photos/2025/ in manifest.txt? Write it to size.txt"
    assert decided_steps(goal, ARCHIVE, ON) == [
        ("open_manifest", {"manifest_file": "manifest.txt"}),
        ("keyed_from", {"entries": "${s1}", "stem": "/photos/2025/"}),
        ("entry_total", {"entries": "${s2}"}),
        ("record_text", {"out_file": "size.txt", "body": "${s3}\n"}),
    ]
    off = decided_steps(goal, ARCHIVE, _off(prefix_values=False))
    assert ("keyed_from", {"entries": "${s1}", "stem": "/photos/2025/"}) not in off


def test_a_path_said_beside_a_plain_word_still_goes_whole() -> None:
    goal = "Total size of the scans (paths under /scans/) in manifest.txt, written to scans.txt"
    steps = decided_steps(goal, ARCHIVE, ON)
    assert ("keyed_from", {"entries": "${s1}", "stem": "/scans/"}) in steps


def test_a_rooted_file_name_is_no_prefix_value() -> None:
    goal = "Copy /docs/readme.md from the entries under /docs/ in manifest.txt to out.txt"
    facts = goal_facts(goal, ON)
    found = value_words(facts, value_docs(ARCHIVE, examples=True), ON, ARCHIVE)
    assert "/docs/" in found
    assert "/docs/readme.md" not in found
    # And a tool set with no prefix parameter takes no rooted path as a value.
    assert "/docs/" not in value_words(goal_facts(goal, ON), value_docs(KAYAK, examples=True), ON, KAYAK)


# ------------------------------------------------------ a record's field named like a path


def test_a_records_path_field_is_written_when_the_question_names_it() -> None:
    goal = "Which path does the biggest entry in manifest.txt have? Write it to big.txt"
    steps = decided_steps(goal, ARCHIVE, ON)
    assert steps[-1] == ("record_text", {"out_file": "big.txt", "body": "${s2.path}"})
    off = decided_steps(goal, ARCHIVE, _off(record_paths=False))
    assert not off or off[-1][1].get("body") != "${s2.path}"


def test_a_reader_s_path_field_still_only_feeds_a_file_parameter() -> None:
    # Failure path: a tool that opens a file returns a path that is a file's name.
    tools = {"locate": locate.spec, "record_text": ARCHIVE["record_text"]}
    steps = decided_steps("Which path does listing.txt give? Write it to where.txt", tools, ON)
    assert all(args.get("body") != "${s1.path}" for _, args in steps)


def test_a_plain_goal_word_is_no_prefix() -> None:
    # Failure path: "photo" is no start said as one (no path from the root, no "starting with").
    goal = "Write the total size of the photo entries in manifest.txt to p.txt"
    steps = decided_steps(goal, ARCHIVE, ON)
    assert all(args.get("stem") != "photo" for _, args in steps)
    said = decided_steps(
        "Total size of the entries in manifest.txt starting with /raw, to raw.txt", ARCHIVE, ON
    )
    assert ("keyed_from", {"entries": "${s1}", "stem": "/raw"}) in said
