"""Capability check: a destructive or outbound verb starting an instruction needs a
side-effecting tool that mentions it, even when its object is no literal."""

from __future__ import annotations

from pathlib import Path

import pytest

from _planner_support import decided_steps
from forethought.plan.coverage import check_coverage, goal_outputs
from forethought.plan.model import Plan
from forethought.plan.tool_spec import ToolSpec
from forethought.planning.capability import missing_capabilities
from forethought.planning.refinements import Refinements
from forethought.tools.base import ToolRegistry
from forethought.tools.builtin import builtin_tools


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


# ------------------------------------------- verbs as nouns, worked-out values, selections
# Found replaying every planning suite through the user's path: 21 of 480 achievable goals were
# called impossible before planning ("write the email addresses … to emails.txt": no tool can
# email; "list the clubs …", "compute the average of …", "convert intro.md to upper case",
# "remove the blank lines from notes.txt and write the result to compact.txt"). And three
# impossible goals on the built-ins waited minutes for the model instead of being named.


def kennel_spec(name: str, description: str, params: dict[str, str], effect: str = "read_only") -> ToolSpec:
    schema = {
        "type": "object",
        "properties": {p: {"type": t} for p, t in params.items()},
        "required": list(params),
    }
    return ToolSpec(name=name, description=description, input_schema=schema, effect=effect)  # type: ignore[arg-type]


KENNEL = {
    "kennel_register": kennel_spec(
        "kennel_register",
        "The dogs of a kennel register file, with their owners' email addresses",
        {"path": "string"},
    ),
    "mean_weight": kennel_spec("mean_weight", "The mean weight of some dogs", {"dogs": "array"}),
    "pounds_in_kilos": kennel_spec(
        "pounds_in_kilos", "A weight in pounds as kilograms", {"pounds": "number"}
    ),
    "without_puppies": kennel_spec(
        "without_puppies", "The dogs older than a year (no puppies)", {"dogs": "array"}
    ),
    "jot": kennel_spec(
        "jot", "Write words into a file", {"jot_path": "string", "words": "string"}, "mutating"
    ),
}


@pytest.mark.parametrize(
    "goal",
    [
        "write the email addresses of the owners in dogs.json to emails.txt",
        "Save the emails of dogs.json to owners.txt",
        "compute the mean weight of the dogs in dogs.json and write it to weight.txt",
        "convert 12 pounds to kilograms and jot it into kg.txt",
        "remove the puppies from dogs.json and write the rest to adults.txt",
        "list the dogs in dogs.json in dogs.txt",  # a generic verb: no tool need be named for it
    ],
)
def test_a_noun_or_a_worked_out_value_is_no_missing_capability(goal: str) -> None:
    assert missing_capabilities(goal, KENNEL) == []


@pytest.mark.parametrize(
    ("goal", "verb"),
    [
        ("email the owners of dogs.json to vet@example.com", "email"),
        ("translate dogs.json into French", "translate"),
        ("convert dogs.json to XML", "convert"),
        ("remove the puppies from the register", "remove"),  # no result written: a removal
        ("remove dogs.json and write done to log.txt", "remove"),  # a file removed
    ],
)
def test_an_effect_or_a_verb_no_tool_does_is_still_missing(goal: str, verb: str) -> None:
    assert [m.verb for m in missing_capabilities(goal, KENNEL)] == [verb]


LINES = {
    "register_lines": kennel_spec(
        "register_lines", "The lines of a kennel register file", {"path": "string"}
    ),
    "line_count": kennel_spec("line_count", "How many lines a text has", {"text": "string"}),
    "jot": KENNEL["jot"],
}


@pytest.mark.parametrize(
    ("goal", "verb", "target"),
    [
        ("write the poodle lines of dogs.txt to poodles.txt", "pick", "poodle lines"),
        (
            "write the lines of dogs.txt that start with Rex to rex.txt",
            "pick",
            "lines that start with Rex",
        ),
        (
            "how many times does Rex appear in dogs.txt? jot it into rex.txt",
            "count the occurrences of",
            "Rex",
        ),
    ],
)
def test_items_picked_by_a_word_no_tool_can_be_given_are_missing(goal: str, verb: str, target: str) -> None:
    missing = missing_capabilities(goal, LINES)
    assert [(m.verb, m.target) for m in missing] == [(verb, target)]
    assert str(missing[0]).startswith(f'no tool can {verb} "{target}"; available: jot, line_count')


def test_a_tool_taking_a_word_or_named_for_the_items_can_pick_them() -> None:
    goals = [
        "write the poodle lines of dogs.txt to poodles.txt",
        "how many times does Rex appear in dogs.txt? jot it into rex.txt",
    ]
    with_word = {
        **LINES,
        "lines_with": kennel_spec(
            "lines_with", "The lines holding a word", {"text": "string", "word": "string"}
        ),
    }
    assert [missing_capabilities(g, with_word) for g in goals] == [[], []]
    named = {
        **LINES,
        "poodle_lines": kennel_spec("poodle_lines", "The poodles of a register", {"text": "string"}),
    }
    assert missing_capabilities(goals[0], named) == []
    assert missing_capabilities(goals[1], named) != []  # a poodle tool counts no Rex
    # A folder the goal names says where the items are, not which.
    listing = {
        **LINES,
        "kennel_files": kennel_spec("kennel_files", "The files in a folder", {"folder": "string"}),
    }
    assert missing_capabilities("write the names of the files that are in kennels to f.txt", listing) == []


def test_on_the_builtins_picking_lines_by_a_word_is_named_impossible(tmp_path: Path) -> None:
    specs = ToolRegistry(builtin_tools(tmp_path)).specs()
    for goal, said in [
        ("write the TODO lines of notes.txt to todo.txt", 'no tool can pick "TODO lines"'),
        ("how many times does alpha appear in notes.txt?", 'no tool can count the occurrences of "alpha"'),
    ]:
        assert [str(m).split(";")[0] for m in missing_capabilities(goal, specs)] == [said]
    for achievable in ["count the lines of every file in docs", "write the file names in docs to names.txt"]:
        assert missing_capabilities(achievable, specs) == []


# From suite 16's first run: "How many bytes did the server send in total according to
# access.log?" was called impossible (no tool can send "access.log"), and "Create a note
# scrape_level.txt reading "…"" was left to the model (the file after "a note" was no output).


@pytest.mark.parametrize(
    "goal",
    [
        "How many bytes did the kennel send in total according to dogs.json? Jot it into b.txt",
        "how many emails did the owners send to vet@example.com? jot the number into e.txt",
    ],
)
def test_a_verb_a_question_asks_about_is_no_effect(goal: str) -> None:
    assert missing_capabilities(goal, KENNEL) == []
    assert [m.verb for m in missing_capabilities("send dogs.json to vet@example.com", KENNEL)] == ["send"]


def test_a_file_named_after_its_kind_is_where_the_text_goes() -> None:
    goal = 'Create a note walks.txt reading "walk at six"'
    assert decided_steps(goal, KENNEL, Refinements()) == [
        ("jot", {"jot_path": "walks.txt", "words": "walk at six"})
    ]
    # "a summary *of* a.txt" names what is read, not a file to make.
    assert "dogs.json" not in goal_outputs("create a summary of dogs.json and jot it into sum.txt")
    assert goal_outputs("create a note walks.txt") == ("walks.txt",)


# Found as a new user: "write notes.txt in upper case to up.txt" copied the file and said
# succeeded on the built-ins; the verb form ("uppercase notes.txt") had been named impossible.


@pytest.mark.parametrize(
    ("goal", "verb"),
    [
        ("write dogs.json in upper case to up.txt", "uppercase"),
        ("jot dogs.json into low.txt in lower case", "lowercase"),
        ("write the lines of dogs.json in reverse order to r.txt", "reverse"),
        ("write dogs.json in capital letters to caps.txt", "uppercase"),
    ],
)
def test_a_change_of_case_or_order_said_as_a_manner_needs_a_tool(goal: str, verb: str) -> None:
    missing = missing_capabilities(goal, KENNEL)
    assert [(m.verb, m.target) for m in missing] == [(verb, "dogs.json")]
    shouting = {
        **KENNEL,
        "shout": kennel_spec("shout", "A text in capital letters (upper case)", {"text": "string"}),
    }
    if verb == "uppercase":
        assert missing_capabilities(goal, shouting) == []
        # The coverage check still wants the tool used: a copy is no upper-case text.
        copy = Plan.model_validate(
            {
                "goal": goal,
                "steps": [
                    {"id": "s1", "tool": "kennel_register", "args": {"path": "dogs.json"}},
                    {"id": "s2", "tool": "jot", "args": {"jot_path": goal.split()[-1], "words": "${s1}"}},
                ],
            }
        )
        assert "uppercase" in {f.literal for f in check_coverage(copy, tools=shouting).missing}
    assert missing_capabilities("write dogs.json to up.txt, keeping the upper bound", KENNEL) == []


def _file_tool(name: str, description: str, effect: str) -> ToolSpec:
    props = {"report_file": {"type": "string"}, "report_body": {"type": "string"}}
    schema = {"type": "object", "properties": props, "required": list(props)}
    return ToolSpec(name=name, description=description, input_schema=schema, effect=effect)  # type: ignore[arg-type]


def test_a_mutating_tool_given_a_file_name_and_a_text_can_save_whatever_its_words() -> None:
    # "File a harbour report" says no "write" or "save"; it had made "save it to w.txt" impossible.
    filer = _file_tool("file_report", "File a harbour report: report_body goes into report_file.", "mutating")
    missing = missing_capabilities(
        "count the catches in log.txt and save it to w.txt", {"file_report": filer}
    )
    assert [m for m in missing if m.verb == "save"] == []


def test_a_destructive_tool_given_a_file_name_saves_nothing() -> None:
    shredder = _file_tool("shred_report", "Shred a harbour report and its body.", "destructive")
    missing = missing_capabilities(
        "count the catches in log.txt and save it to w.txt", {"shred_report": shredder}
    )
    assert [(m.verb, m.target) for m in missing if m.verb == "save"] == [("save", "w.txt")]
