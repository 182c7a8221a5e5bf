"""A second held-out planning suite: 32 goals over two more tool sets the planner has never seen.

Written and committed after the decompose/fill planner was frozen (issue 17's final planning
code) and before it was ever run on these goals, so that its figures are a held-out measurement
— the first suite (``heldout.py``) was looked at and fixed against once. Neither tool set, nor any
goal's wording, appears in a prompt, a starter plan, a planner test, the dev suite or
``heldout.py``. Every goal asks for a file; every check reads the file the executed plan wrote.

``textkit`` transforms plain text (string outputs, one tool with two text parameters besides the
passage). ``contacts`` reads a JSON file of people into structured records (``Person``: name,
email, city) that the other tools take as a list, filter, or turn into strings.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from heldout import Goal, ToolSet, _inside, file_is, file_lines, file_mentions_all, file_number
from pydantic import BaseModel

from forethought import ToolContext, tool
from forethought.errors import ToolError
from forethought.tools.python import PythonTool

# --------------------------------------------------------------------------- tool set: textkit


@tool
def fetch_text(ctx: ToolContext, location: str) -> str:
    """Read a text file from the workspace and return its contents."""
    target = _inside(ctx, location)
    if not target.is_file():
        raise ToolError(f"no such file: {location}", retryable=False)
    return target.read_text(encoding="utf-8")


@tool(effect="mutating", idempotent=True)
def write_out(ctx: ToolContext, destination: str, text: str) -> str:
    """Write text to a file in the workspace (created or overwritten)."""
    _inside(ctx, destination).write_text(text, encoding="utf-8")
    return destination


@tool
def reverse_lines(text: str) -> str:
    """The lines of a text in reverse order, last line first."""
    return "\n".join(reversed(text.splitlines())) + "\n"


@tool
def strip_blank_lines(text: str) -> str:
    """Drop the empty (blank) lines of a text."""
    return "\n".join(line for line in text.splitlines() if line.strip()) + "\n"


@tool
def count_characters(text: str) -> int:
    """The number of characters in a text."""
    return len(text)


@tool
def replace_word(text: str, old: str, new: str) -> str:
    """Replace every occurrence of a word in a text with another word."""
    return text.replace(old, new)


@tool
def lower_case(text: str) -> str:
    """Return a text in small letters (lower case)."""
    return text.lower()


@tool
def last_lines(text: str, count: int) -> str:
    """The last lines of a text, as many as count."""
    return "\n".join(text.splitlines()[-count:]) + "\n"


@tool
def number_lines(text: str) -> str:
    """Prefix each line of a text with its line number ("1. ", "2. ", ...)."""
    return "".join(f"{i}. {line}\n" for i, line in enumerate(text.splitlines(), 1))


TEXTKIT_TOOLS: list[PythonTool] = [
    fetch_text,
    write_out,
    reverse_lines,
    strip_blank_lines,
    count_characters,
    replace_word,
    lower_case,
    last_lines,
    number_lines,
]

# -------------------------------------------------------------------------- tool set: contacts


class Person(BaseModel):
    name: str
    email: str
    city: str


@tool
def load_people(ctx: ToolContext, source: str) -> list[Person]:
    """Load the people (name, email, city) listed in a JSON file of the workspace."""
    target = _inside(ctx, source)
    if not target.is_file():
        raise ToolError(f"no such file: {source}", retryable=False)
    return [Person(**p) for p in json.loads(target.read_text(encoding="utf-8"))]


@tool
def how_many(entries: list[Person]) -> int:
    """The number of people in a list of people."""
    return len(entries)


@tool
def living_in(entries: list[Person], city: str) -> list[Person]:
    """Only the people who live in the given city."""
    return [p for p in entries if p.city.lower() == city.lower()]


@tool
def email_addresses(entries: list[Person]) -> list[str]:
    """The email address of each person."""
    return [p.email for p in entries]


@tool
def person_names(entries: list[Person]) -> list[str]:
    """The name of each person."""
    return [p.name for p in entries]


@tool
def lines_of(values: list[str]) -> str:
    """Put each value on its own line."""
    return "".join(f"{v}\n" for v in values)


@tool
def comma_joined(values: list[str]) -> str:
    """Join values into one line, separated by commas."""
    return ",".join(values)


@tool(effect="mutating", idempotent=True)
def record_note(ctx: ToolContext, note_file: str, note: str) -> str:
    """Save a note as a file in the workspace (created or replaced)."""
    _inside(ctx, note_file).write_text(note, encoding="utf-8")
    return note_file


CONTACTS_TOOLS: list[PythonTool] = [
    load_people,
    how_many,
    living_in,
    email_addresses,
    person_names,
    lines_of,
    comma_joined,
    record_note,
]

# ------------------------------------------------------------------------------- the goals

STORY = "The cat sat on the mat.\nThe cat was happy.\nThen it rained.\nThe end.\n"
TODO = "buy bread\nfix the bike\ncall mum\nwater plants\n"
NOTES = "first point\n\nsecond point\n\n\nthird point\n"
NAMES = "Ada\nGrace\nLinus\n"
README = "# Project Atlas\nRun It With Care.\n"
PEOPLE = [
    {"name": "Ines", "email": "ines@example.org", "city": "Lima"},
    {"name": "Ole", "email": "ole@example.org", "city": "Oslo"},
    {"name": "Kari", "email": "kari@example.org", "city": "Oslo"},
    {"name": "Tomas", "email": "tomas@example.org", "city": "Lima"},
    {"name": "Mei", "email": "mei@example.org", "city": "Taipei"},
]

TEXT_FILES = {
    "story.txt": STORY,
    "todo.txt": TODO,
    "notes.txt": NOTES,
    "names.txt": NAMES,
    "readme.md": README,
}
CONTACT_FILES = {"people.json": json.dumps(PEOPLE, indent=2)}


def _lines(text: str) -> list[str]:
    return text.splitlines()


def _emails(city: str | None = None) -> list[str]:
    return [p["email"] for p in PEOPLE if city is None or p["city"] == city]


def _names(city: str | None = None) -> list[str]:
    return [p["name"] for p in PEOPLE if city is None or p["city"] == city]


def file_csv(name: str, values: list[str]) -> Any:
    """The file holds these values separated by commas (spaces and a trailing newline allowed)."""

    def check(ws: Path) -> bool:
        path = ws / name
        if not path.is_file():
            return False
        return [v.strip() for v in path.read_text(encoding="utf-8").strip().split(",")] == values

    return check


TEXTKIT = ToolSet(
    "textkit",
    TEXTKIT_TOOLS,
    TEXT_FILES,
    [
        Goal(
            "Reverse the order of the lines in todo.txt and save it to todo_reversed.txt",
            file_lines("todo_reversed.txt", _lines(TODO)[::-1]),
        ),
        Goal(
            "Remove the blank lines from notes.txt and write the result to compact.txt",
            file_lines("compact.txt", [ln for ln in _lines(NOTES) if ln]),
        ),
        Goal(
            "How many characters are in story.txt? Write the count to chars.txt",
            file_number("chars.txt", len(STORY)),
        ),
        Goal(
            'Replace the word "cat" with "dog" in story.txt and save the new text as dog_story.txt',
            file_is("dog_story.txt", STORY.replace("cat", "dog")),
        ),
        Goal("Write story.txt in lower case to quiet.txt", file_is("quiet.txt", STORY.lower())),
        Goal("Save the last 2 lines of todo.txt to recent.txt", file_lines("recent.txt", _lines(TODO)[-2:])),
        Goal(
            "Number the lines of names.txt and store the result in numbered.txt",
            file_lines("numbered.txt", [f"{i}. {n}" for i, n in enumerate(_lines(NAMES), 1)]),
        ),
        Goal("Duplicate readme.md as readme_old.md", file_is("readme_old.md", README)),
        Goal('Create hello.txt containing "hi there"', file_is("hello.txt", "hi there")),
        Goal(
            "Count the characters of names.txt and put the number in name_chars.txt",
            file_number("name_chars.txt", len(NAMES)),
        ),
        Goal(
            "Make a lower-case copy of readme.md called readme_lower.md",
            file_is("readme_lower.md", README.lower()),
        ),
        Goal(
            "Take the last 3 lines of story.txt and write them to ending.txt",
            file_lines("ending.txt", _lines(STORY)[-3:]),
        ),
        Goal(
            "Write the lines of todo.txt in reverse order to backwards.txt",
            file_lines("backwards.txt", _lines(TODO)[::-1]),
        ),
        Goal(
            'In story.txt replace "sat" with "slept" and write it to story2.txt',
            file_is("story2.txt", STORY.replace("sat", "slept")),
        ),
        Goal(
            "Drop empty lines from notes.txt, then save as notes_clean.txt",
            file_lines("notes_clean.txt", [ln for ln in _lines(NOTES) if ln]),
        ),
        Goal(
            "Add line numbers to todo.txt and save it as todo_numbered.txt",
            file_lines("todo_numbered.txt", [f"{i}. {t}" for i, t in enumerate(_lines(TODO), 1)]),
        ),
    ],
)

CONTACTS = ToolSet(
    "contacts",
    CONTACTS_TOOLS,
    CONTACT_FILES,
    [
        Goal(
            "Count the people in people.json and write the number to people_count.txt",
            file_number("people_count.txt", len(PEOPLE)),
        ),
        Goal(
            "Write the email addresses from people.json to emails.txt, one per line",
            file_lines("emails.txt", _emails()),
        ),
        Goal(
            "List the names of the people in people.json in names.txt",
            file_mentions_all("names.txt", _names()),
        ),
        Goal(
            "How many people in people.json live in Oslo? Save the answer to oslo_count.txt",
            file_number("oslo_count.txt", len(_names("Oslo"))),
        ),
        Goal(
            "Write the names of everyone in people.json who lives in Lima to lima.txt",
            file_mentions_all("lima.txt", _names("Lima")),
        ),
        Goal(
            "Save the emails of people living in Oslo (people.json) to oslo_emails.txt",
            file_mentions_all("oslo_emails.txt", _emails("Oslo")),
        ),
        Goal(
            "Put the names from people.json, separated by commas, in roster.csv",
            file_csv("roster.csv", _names()),
        ),
        Goal(
            'Record the note "call back tomorrow" in reminder.txt',
            file_is("reminder.txt", "call back tomorrow"),
        ),
        Goal(
            "Copy the email list of people.json to mailing.txt", file_mentions_all("mailing.txt", _emails())
        ),
        Goal(
            "Count how many people live in Lima according to people.json and store it in lima_count.txt",
            file_number("lima_count.txt", len(_names("Lima"))),
        ),
        Goal(
            "Export everyone's name from people.json to everyone.txt, one name per line",
            file_lines("everyone.txt", _names()),
        ),
        Goal(
            "Join the email addresses in people.json with commas and write them to to_field.txt",
            file_csv("to_field.txt", _emails()),
        ),
        Goal(
            "Write the number of entries in people.json to entries.txt",
            file_number("entries.txt", len(PEOPLE)),
        ),
        Goal(
            "Which people in people.json live in Oslo? Write their names to oslo_names.txt",
            file_mentions_all("oslo_names.txt", _names("Oslo")),
        ),
        Goal('Create status.txt with the text "all good"', file_is("status.txt", "all good")),
        Goal(
            "Collect the emails of people.json into a comma separated list in emails.csv",
            file_csv("emails.csv", _emails()),
        ),
    ],
)

HELD_OUT_2 = [TEXTKIT, CONTACTS]

if __name__ == "__main__":
    print(
        json.dumps(
            {s.name: {"tools": [t.spec.name for t in s.tools], "goals": len(s.goals)} for s in HELD_OUT_2}
        )
    )
