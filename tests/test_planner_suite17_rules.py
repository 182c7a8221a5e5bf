"""The refinements added after suite 17's failure classes (branch fix17).

Over a made-up tool set that appears in no bench suite: a fishing harbour's landing log, one
catch per line (boat, day, time landed, species, weight in kilograms, crabs in the pots), with
keepers by weight either way, by crabs and by the time of day landed, a count, the heaviest
catch as one record, the boats as a list, catches as lines, and a writer with its own parameter
names (``file_report(report_file, report_body)``). Each rule is checked on and off (its
``Refinements`` switch), failure paths included.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Callable

from pydantic import BaseModel

from _planner_support import decided_steps
from forethought import tool
from forethought.plan.coverage import check_coverage, goal_literals, goal_outputs
from forethought.plan.day_parts import day_part_times
from forethought.plan.model import Plan, Step
from forethought.plan.named_outputs import named_objects
from forethought.planning.bound_keepers import bounded_keepers, bounded_numbers, goal_bounds, keeper_way
from forethought.planning.decompose import _WHICH_PLURAL_RE, asked_plurals
from forethought.planning.field_phrases import of_heads, partitive_fields
from forethought.planning.goal_facts import goal_facts
from forethought.planning.refinements import Refinements
from forethought.planning.tool_roles import param_kind, range_params


class Catch(BaseModel):
    boat: str
    day: str
    landed: str
    catch: str  # the species
    weight_kg: float
    crabs: int


@tool
def read_landings(log_file: str) -> list[Catch]:
    """Read a harbour's landing log: one catch per line with the boat, the day, the time it was
    landed, the species caught, its weight in kilograms and the crabs in the pots."""
    return []


@tool
def heavier_catches(catches: list[Catch], kilos: float) -> list[Catch]:
    """Keep the catches that weighed more than kilos kilograms."""
    return catches


@tool
def lighter_catches(catches: list[Catch], kilos: float) -> list[Catch]:
    """Keep the catches that weighed less than kilos kilograms."""
    return catches


@tool
def crabs_over(catches: list[Catch], limit: int) -> list[Catch]:
    """Keep the catches that brought in more crabs than limit."""
    return catches


@tool
def landed_between(catches: list[Catch], start: str, end: str) -> list[Catch]:
    """Keep the catches landed from start to end, both included (HH:MM, 24-hour clock), on any
    day."""
    return catches


@tool
def count_catches(catches: list[Catch]) -> int:
    """How many catches there are."""
    return len(catches)


@tool
def heaviest_catch(catches: list[Catch]) -> Catch:
    """The single heaviest catch, with all its fields (boat, day, landed, catch, weight_kg, crabs)."""
    return catches[0]


@tool
def boats_listed(catches: list[Catch]) -> str:
    """The names of the different boats among the catches, one per line."""
    return ""


@tool
def catch_lines(catches: list[Catch]) -> str:
    """Catches as plain text, one line each: boat, day, time, species and weight."""
    return ""


@tool(effect="mutating", idempotent=True)
def file_report(report_file: str, report_body: str) -> str:
    """File a harbour report: report_body goes into report_file, replacing an older one."""
    return report_file


HARBOUR = {
    t.spec.name: t.spec
    for t in (
        read_landings,
        heavier_catches,
        lighter_catches,
        crabs_over,
        landed_between,
        count_catches,
        heaviest_catch,
        boats_listed,
        catch_lines,
        file_report,
    )
}
ON = Refinements()


def _off(**switches: bool) -> Refinements:
    return dataclasses.replace(ON, **switches)


# ------------------------------------------------------- quoted text to a file named as an object


def test_a_file_named_as_the_writing_verbs_object_is_the_output() -> None:
    for goal in (
        'File a report named storm.txt saying "Boats stay in port until Monday"',
        'Write a report gale.txt: "Boats stay in port until Monday"',
        'Post a note called storm.txt with "Boats stay in port until Monday"',
    ):
        name = "storm.txt" if "storm" in goal else "gale.txt"
        assert goal_facts(goal, ON).outputs == (name,), goal
        assert decided_steps(goal, HARBOUR, ON) == [
            ("file_report", {"report_file": name, "report_body": "Boats stay in port until Monday"})
        ], goal
    # Switched off, the file is one the goal reads: no plan writes the text.
    off = _off(named_outputs=False)
    assert goal_facts('File a report named storm.txt saying "Boats stay in port"', off).outputs == ()


def test_a_file_after_the_object_is_no_output_unless_named_or_followed_by_its_text() -> None:
    # "write the catches a.txt lists to b.txt": a.txt is read, the output is b.txt.
    goal = "Write the catches a.txt lists to b.txt"
    assert list(named_objects(goal, {goal.index("a.txt"): ("a.txt", goal.index("a.txt") + 5)})) == []
    assert goal_outputs(goal) == ("b.txt",)
    assert goal_facts(goal, ON).inputs == ("a.txt",)
    # "the total of a.txt": a preposition is no kind of text.
    goal = "Write the total of a.txt to b.txt"
    assert goal_outputs(goal) == ("b.txt",)
    # A reading verb names no output however its object is said.
    goal = "Read the report named a.txt and count its catches"
    assert goal_outputs(goal) == ()


def test_a_clause_opening_with_quoted_text_asks_for_no_action() -> None:
    goal = 'Write a report gale.txt: "Haul the nets in by six"'
    plan = Plan(
        goal=goal,
        steps=[
            Step(
                id="s1",
                tool="file_report",
                args={"report_file": "gale.txt", "report_body": "Haul the nets in by six"},
            )
        ],
    )
    assert check_coverage(plan, goal, HARBOUR).covered
    # Failure path: the same words as the goal's own clause are an action no tool does.
    unquoted = "Write a report to gale.txt. Haul the nets in by six"
    plan = Plan(
        goal=unquoted,
        steps=[Step(id="s1", tool="file_report", args={"report_file": "gale.txt", "report_body": "x"})],
    )
    assert any(f.kind == "missing_action" for f in check_coverage(plan, unquoted, HARBOUR).missing)


# ------------------------------------------------------------------ the field the goal names


def test_the_head_of_an_of_phrase_is_the_field_written() -> None:
    goal = "What is the weight of the heaviest catch in log.txt? Save it to w.txt"
    assert of_heads(goal) == frozenset({"weigh"})
    assert partitive_fields({"catch", "weight_kg"}, of_heads(goal)) == {"weight_kg"}
    assert decided_steps(goal, HARBOUR, ON)[-1] == (
        "file_report",
        {"report_file": "w.txt", "report_body": "${s2.weight_kg}\n"},
    )
    # Switched off, the record's own noun ("the heaviest *catch*") was the field written.
    off = decided_steps(goal, HARBOUR, _off(partitive_fields=False))
    assert off[-1][1]["report_body"] == "${s2.catch}"


def test_two_runs_write_the_field_of_each() -> None:
    goal = "Put the weights of a.txt's and b.txt's heaviest catches in w.txt, one per line (a.txt and b.txt)"
    steps = decided_steps(goal, HARBOUR, ON)
    assert steps[-1] == (
        "file_report",
        {"report_file": "w.txt", "report_body": "${s2.weight_kg}\n${s4.weight_kg}\n"},
    )


def test_quantifiers_and_quoted_or_file_words_are_no_heads() -> None:
    # "the number of", "most of" name no field; nor do a file's name or quoted text.
    assert of_heads("the number of catches and most of the boats") == frozenset()
    assert of_heads('write "weight of gold" to weight.of.txt') == frozenset()
    # Failure path: a question naming one field by no "of" phrase keeps the other rules.
    goal = "Which boat landed the heaviest catch in log.txt? Save it to b.txt"
    assert decided_steps(goal, HARBOUR, ON) == decided_steps(goal, HARBOUR, _off(partitive_fields=False))


# --------------------------------------------------------------------- a bound in words


def test_bounds_are_read_with_their_way_and_noun() -> None:
    assert goal_bounds("catches lighter than a kilogram, above five kilos, more than 10 crabs") == [
        ("below", "a", "kilogram"),
        ("above", "five", "kilos"),
        ("above", "10", "crabs"),
    ]
    assert keeper_way(HARBOUR["heavier_catches"]) == "above"
    assert keeper_way(HARBOUR["lighter_catches"]) == "below"
    assert keeper_way(HARBOUR["crabs_over"]) == "above"
    assert keeper_way(HARBOUR["count_catches"]) is None


def test_a_bound_picks_the_keeper_of_its_way_and_noun() -> None:
    assert bounded_keepers("catches under five kilograms", HARBOUR) == (
        ["lighter_catches"],
        ["heavier_catches", "crabs_over"],
    )
    assert bounded_keepers("more than ten crabs", HARBOUR)[0] == ["crabs_over"]
    # A noun no keeper says picks none (and leaves every keeper in).
    assert bounded_keepers("more than ten boats", HARBOUR) == ([], [])


def test_bound_numbers_in_words_are_written_in_digits_outside_quotes() -> None:
    assert bounded_numbers("catches lighter than a kilogram", HARBOUR) == "catches lighter than 1 kilogram"
    assert bounded_numbers("more than ten crabs", HARBOUR) == "more than 10 crabs"
    # Failure paths: quoted text, a noun no keeper says, a tool set without a keeper.
    quoted = 'write "more than ten crabs" to a.txt'
    assert bounded_numbers(quoted, HARBOUR) == quoted
    assert bounded_numbers("more than ten boats", HARBOUR) == "more than ten boats"
    assert (
        bounded_numbers("more than ten crabs", {"file_report": HARBOUR["file_report"]})
        == "more than ten crabs"
    )


def test_a_bound_in_words_leads_to_a_count() -> None:
    goal = "How many catches in log.txt weighed less than a kilogram? Write the count to light.txt"
    assert decided_steps(goal, HARBOUR, ON) == [
        ("read_landings", {"log_file": "log.txt"}),
        ("lighter_catches", {"catches": "${s1}", "kilos": 1}),
        ("count_catches", {"catches": "${s2}"}),
        ("file_report", {"report_file": "light.txt", "report_body": "${s3}\n"}),
    ]
    off = decided_steps(goal, HARBOUR, _off(bounded_keepers=False))
    assert ("lighter_catches", {"catches": "${s1}", "kilos": 1}) not in off


def test_the_keeper_of_the_other_way_is_not_put_in() -> None:
    goal = (
        "Find the catches in log.txt that go above five kilograms, then write how many there are to big.txt"
    )
    steps = decided_steps(goal, HARBOUR, ON)
    assert ("heavier_catches", {"catches": "${s1}", "kilos": 5}) in steps
    assert not any(name == "lighter_catches" for name, _ in steps)
    assert steps[-2][0] == "count_catches"
    goal = "Find the catches in log.txt that stay under five kilograms, then write how many to small.txt"
    steps = decided_steps(goal, HARBOUR, ON)
    assert ("lighter_catches", {"catches": "${s1}", "kilos": 5}) in steps
    assert not any(name == "heavier_catches" for name, _ in steps)


def test_an_indirect_question_is_no_text_to_write() -> None:
    # "write how many there are to a.txt": a value to work out, not the words "how many …".
    assert not [
        lit for lit in goal_literals("then write how many there are to a.txt") if lit.kind == "content"
    ]
    # Failure path: plain text after the verb is still the text written.
    assert [lit.text for lit in goal_literals("write nets mended to a.txt") if lit.kind == "content"] == [
        "nets mended"
    ]


def test_a_count_follows_a_keeper_whose_description_says_counted() -> None:
    goal = "Count the catches in log.txt that had more than five crabs, then write the count to crabby.txt"
    steps = decided_steps(goal, HARBOUR, ON)
    assert steps[1:] == [
        ("crabs_over", {"catches": "${s1}", "limit": 5}),
        ("count_catches", {"catches": "${s2}"}),
        ("file_report", {"report_file": "crabby.txt", "report_body": "${s3}\n"}),
    ]


# ---------------------------------------------------------------------- a part of the day


def test_parts_of_the_day_are_windows_of_the_clock() -> None:
    assert [t for _, _, t in day_part_times("the morning catches (before noon)")] == [
        "00:00",
        "11:59",
        "00:00",
        "11:59",
    ]
    assert [t for _, _, t in day_part_times("landed in the evening")] == ["18:00", "23:59"]
    assert [t for _, _, t in day_part_times("in the afternoon")] == ["12:00", "17:59"]
    # Failure paths: quoted text, and words that only contain a part of the day.
    assert day_part_times('write "good morning" to a.txt') == []
    assert day_part_times("the mornington boat") == []


def test_a_time_format_says_the_parameters_kind() -> None:
    spec = HARBOUR["landed_between"]
    # "(HH:MM, 24-hour clock), on any day": by the words alone, a day's; by the format, a time's.
    assert param_kind(spec, "start") == "date"
    assert param_kind(spec, "start", formats=True) == "time"
    assert range_params(spec, times=True, formats=True) == ("start", "end")


def test_the_morning_catches_are_kept_by_the_time_window() -> None:
    goal = "Write the morning catches (before noon) from log.txt to early.txt"
    assert decided_steps(goal, HARBOUR, ON)[1] == (
        "landed_between",
        {"catches": "${s1}", "start": "00:00", "end": "11:59"},
    )
    goal = "Write the catches landed in the evening from log.txt to late.txt"
    assert ("landed_between", {"catches": "${s1}", "start": "18:00", "end": "23:59"}) in decided_steps(
        goal, HARBOUR, ON
    )
    off = decided_steps("Write the morning catches from log.txt to early.txt", HARBOUR, _off(day_parts=False))
    assert not any(name == "landed_between" for name, _ in off)


# ------------------------------------------------------------------- "which" and a plural noun


def test_which_boats_is_answered_by_the_tool_named_for_boats() -> None:
    goal = "Which boats in log.txt landed a catch with more than ten crabs? List them in crabbers.txt"
    assert decided_steps(goal, HARBOUR, ON) == [
        ("read_landings", {"log_file": "log.txt"}),
        ("crabs_over", {"catches": "${s1}", "limit": 10}),
        ("boats_listed", {"catches": "${s2}"}),
        ("file_report", {"report_file": "crabbers.txt", "report_body": "${s3}"}),
    ]
    # Switched off, the boat of one catch was written: not the boats asked for.
    off = decided_steps(goal, HARBOUR, _off(which_nouns=False))
    assert not any(name == "boats_listed" for name, _ in off)
    # Failure paths: quoted text asks nothing; a singular "which boat" asks for one boat.
    assert asked_plurals('Write "which boats sail" to a.txt') == frozenset()
    assert asked_plurals("Which boats sail?") == frozenset({"boat"})
    goal = "Which boat landed the heaviest catch in log.txt? Write it to top.txt"
    assert not any(name == "boats_listed" for name, _ in decided_steps(goal, HARBOUR, ON))


# ------------------------------------------------------------------------ hostile goals


_FILE_RE = re.compile(r"[\w.-]{1,60}\.txt")


def test_the_new_readers_take_linear_time_on_a_hostile_goal() -> None:
    hostile = [
        "a" * 100_000,
        "more than " * 10_000,
        "more than ten crabs " * 5_000,
        '"x" more than ten crabs in the morning ' * 2_500,
        "write a " * 12_500,
        "write a memo a.txt: " * 5_000,
        "post a note named a.txt " * 4_000,
        "before noon " * 8_000,
        '"' * 100_000,
        "weight of " * 10_000,
        "which boats " * 8_000,
        ("x" * 40 + ".") * 2_400,
    ]
    Paths = dict[int, tuple[str, int]]
    readers: list[Callable[[str, Paths], object]] = [
        lambda goal, _: of_heads(goal),
        lambda goal, _: goal_bounds(goal),
        lambda goal, _: bounded_numbers(goal, HARBOUR),
        lambda goal, _: bounded_keepers(goal, HARBOUR),
        lambda goal, _: day_part_times(goal),
        lambda goal, paths: list(named_objects(goal, paths)),
        lambda goal, _: _WHICH_PLURAL_RE.findall(goal),
    ]
    for goal in hostile:
        paths = {m.start(): (m.group(0), m.end()) for m in _FILE_RE.finditer(goal)}
        for i, read in enumerate(readers):
            # The process's own CPU time: the machine's load is no reader's cost.
            start = time.process_time()
            read(goal, paths)
            assert time.process_time() - start <= 2.0, (i, goal[:30])
