"""Capability check: a destructive or outbound verb starting an instruction needs a
side-effecting tool that mentions it, even when its object is no literal."""

from __future__ import annotations

import pytest

from forethought.plan.tool_spec import ToolSpec
from forethought.planning.capability import missing_capabilities


def spec(name: str, description: str, effect: str = "mutating") -> ToolSpec:
    return ToolSpec(name=name, description=description, effect=effect)  # type: ignore[arg-type]


READ_ONLY = {
    "read_board": spec("read_board", "Read the memos on the board; can also delete nothing", "read_only"),
    "pin_note": spec("pin_note", "Pin a note on the board"),
}


@pytest.mark.parametrize(
    ("goal", "verb", "target"),
    [
        ("erase all memos", "erase", "all memos"),
        ("delete the memo titled inventory day", "delete", "the memo titled inventory day"),
        ("read the board and then delete the old memos", "delete", "the old memos"),
        ("pin a note, then email the board", "email", "the board"),
        ("move sku B-200 to warehouse 2", "move", "sku B-200"),
    ],
)
def test_an_instruction_verb_without_a_tool_is_missing(goal: str, verb: str, target: str) -> None:
    missing = missing_capabilities(goal, READ_ONLY)
    assert [(m.verb, m.target) for m in missing] == [(verb, target)]
    assert str(missing[0]).startswith(f'no tool can {verb} "{target}"; available: pin_note, read_board')


@pytest.mark.parametrize(
    "goal",
    [
        "remove duplicates from the memo titles and print them",  # a transformation, not a deletion
        "read the board and tell me which memo mentions delete",  # the verb is not an instruction
        "pin a note saying we will move on monday",
    ],
)
def test_verbs_that_are_no_instruction_are_not_held_against_the_goal(goal: str) -> None:
    assert missing_capabilities(goal, READ_ONLY) == []


def test_a_side_effecting_tool_that_mentions_the_verb_is_enough() -> None:
    tools = {**READ_ONLY, "purge": spec("purge", "Erase memos from the board")}
    assert missing_capabilities("erase all memos", tools) == []
    # A read-only tool mentioning the verb does not count (read_board's description says delete).
    assert missing_capabilities("delete the old memos", READ_ONLY) != []


# ------------------------------------------------------------------ values of the moment
# "write today's date to date.txt" on the built-ins wrote "today's date", then "date"; then
# (that caught) waited for the model to plan what no tool can know. It is named impossible now.


@pytest.mark.parametrize(
    ("goal", "target"),
    [
        ("pin today's date on the board", "today's date"),
        ("pin the current time in the corner", "the current time"),
        ("Pin the current time.", "the current time"),
        ("pin tomorrow's weather on the board", "tomorrow's weather"),
    ],
)
def test_a_value_of_the_moment_no_tool_mentions_is_missing(goal: str, target: str) -> None:
    missing = missing_capabilities(goal, READ_ONLY)
    assert [(m.verb, m.target) for m in missing] == [("give", target)]
    assert str(missing[0]) == f'no tool can give "{target}"; available: pin_note, read_board'


@pytest.mark.parametrize(
    "goal",
    [
        "what is the current value of x in a.txt",  # a value of something the goal names
        "pin the latest memo of the board to b.txt",
        "copy today's notes.txt to b.txt",  # a file's name
        "write the current directory listing to ls.txt",  # a listing tool: see below
    ],
)
def test_a_value_the_goal_names_the_source_of_is_not_of_the_moment(goal: str) -> None:
    tools = {**READ_ONLY, "list_board": spec("list_board", "List the board's memos", "read_only")}
    assert [m for m in missing_capabilities(goal, tools) if m.verb == "give"] == []


def test_a_tool_naming_the_kind_of_moment_can_give_it() -> None:
    clock = {**READ_ONLY, "clock_now": spec("clock_now", "What time it is now, as ISO text", "read_only")}
    # "now" and "time" name the date's kind of value too: the clock may give it.
    assert missing_capabilities("pin today's date on the board", clock) == []
    assert missing_capabilities("pin tomorrow's weather on the board", clock) != []
