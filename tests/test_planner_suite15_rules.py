"""The refinements added after suite 15: a tool's "time of day" names a time, not a date.

Over a made-up "ferry" tool set (a harbour's sailing timetable; none of the bench's suites).
Each rule is checked on and off (its ``Refinements`` switch).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from _planner_support import decided_steps
from forethought import tool
from forethought.planning.refinements import Refinements
from forethought.planning.tool_roles import param_kind


class Sailing(BaseModel):
    vessel: str
    quay: str
    departs: str
    passengers: int


@tool
def load_timetable(timetable_file: str) -> list[Sailing]:
    """Read a harbour's sailing timetable: each sailing's vessel, quay, departure and passengers."""
    return []


@tool
def leaving_after(sailings: list[Sailing], cutoff: str) -> list[Sailing]:
    """Only the sailings that leave at or after a time of day (HH:MM, 24-hour clock)."""
    return sailings


@tool
def of_vessel(sailings: list[Sailing], vessel: str) -> list[Sailing]:
    """Only the sailings of one vessel, by its name."""
    return sailings


@tool
def count_sailings(sailings: list[Sailing]) -> int:
    """How many sailings there are."""
    return len(sailings)


@tool
def sailing_lines(sailings: list[Sailing]) -> str:
    """The sailings as text, one per line."""
    return ""


@tool(effect="mutating", idempotent=True)
def save_note(note_file: str, note: str) -> str:
    """Write a note to a file; returns its path."""
    return note_file


SPECS = {
    t.spec.name: t.spec
    for t in (load_timetable, leaving_after, of_vessel, count_sailings, sailing_lines, save_note)
}
ON = Refinements()


def _steps(goal: str, refinements: Refinements = ON) -> list[tuple[str, dict[str, Any]]]:
    return decided_steps(goal, SPECS, refinements)


def test_a_time_of_day_is_a_time_not_a_date() -> None:
    spec = SPECS["leaving_after"]
    assert param_kind(spec, "cutoff", day_times=True) == "time"
    assert param_kind(spec, "cutoff") == "date"  # the switch off: "day" reads as a date's word


def test_a_time_in_words_goes_to_the_time_of_day_parameter() -> None:
    goal = "Count the sailings in harbour.txt that leave at 7 pm or later and put the count in late.txt"
    assert _steps(goal) == [
        ("load_timetable", {"timetable_file": "harbour.txt"}),
        ("leaving_after", {"sailings": "${s1}", "cutoff": "19:00"}),
        ("count_sailings", {"sailings": "${s2}"}),
        ("save_note", {"note_file": "late.txt", "note": "${s3}\n"}),
    ]
    # Off, "19:00" is no date: the cutoff is left for a model to fill (or a wrong word).
    off = _steps(goal, Refinements(day_times=False))
    assert ("leaving_after", {"sailings": "${s1}", "cutoff": "19:00"}) not in off


def test_a_day_is_still_no_value_of_a_time_of_day_parameter() -> None:
    # Failure path: a date the goal names is no time of day; the rule gives the cutoff no date.
    goal = "Count the sailings in harbour.txt on 3 May 2026 and put the count in may.txt"
    for _, args in _steps(goal):
        assert args.get("cutoff") != "2026-05-03"
