"""A third held-out planning suite: 32 goals over two more tool sets the planner has never seen.

Written and committed after the first and only run of ``heldout2.py`` and *before* any planner
change made in answer to that run's failures, so that the changes can be measured on goals they
were not made for. Neither tool set, nor any goal's wording, appears in a prompt, a starter plan,
a planner test, the dev suite, ``heldout.py`` or ``heldout2.py``. Every goal asks for a file;
every check reads the file the executed plan wrote.

``agenda`` reads a calendar file into structured meetings (``Meeting``: title, day, hours) that
the other tools take as a list, filter by day, total or turn into text. ``numbers`` works on a
file of numbers, one per line, read into a list of floats.
"""

from __future__ import annotations

import json

from heldout import Goal, ToolSet, _inside, file_is, file_lines, file_mentions_all, file_number
from pydantic import BaseModel

from forethought import ToolContext, tool
from forethought.errors import ToolError
from forethought.tools.python import PythonTool

# ---------------------------------------------------------------------------- tool set: agenda


class Meeting(BaseModel):
    title: str
    day: str
    hours: float


@tool
def read_calendar(ctx: ToolContext, calendar: str) -> list[Meeting]:
    """Read the meetings (title, day, hours) stored in a calendar JSON file."""
    target = _inside(ctx, calendar)
    if not target.is_file():
        raise ToolError(f"no such calendar: {calendar}", retryable=False)
    return [Meeting(**m) for m in json.loads(target.read_text(encoding="utf-8"))]


@tool
def meetings_on(meetings: list[Meeting], day: str) -> list[Meeting]:
    """Only the meetings held on the given day of the week."""
    return [m for m in meetings if m.day.lower() == day.lower()]


@tool
def meeting_count(meetings: list[Meeting]) -> int:
    """How many meetings there are."""
    return len(meetings)


@tool
def total_hours(meetings: list[Meeting]) -> float:
    """The total time of the meetings, in hours."""
    return sum(m.hours for m in meetings)


@tool
def titles(meetings: list[Meeting]) -> list[str]:
    """The title of each meeting."""
    return [m.title for m in meetings]


@tool
def longest_meeting(meetings: list[Meeting]) -> str:
    """The title of the meeting that takes the most hours."""
    if not meetings:
        raise ToolError("no meetings", retryable=False)
    return max(meetings, key=lambda m: m.hours).title


@tool
def semicolon_list(entries: list[str]) -> str:
    """Join entries into one line separated by semicolons."""
    return "; ".join(entries)


@tool(effect="mutating", idempotent=True)
def save_summary(ctx: ToolContext, summary_file: str, contents: str) -> str:
    """Save a summary as a file in the workspace, replacing it if present."""
    _inside(ctx, summary_file).write_text(contents, encoding="utf-8")
    return summary_file


AGENDA_TOOLS: list[PythonTool] = [
    read_calendar,
    meetings_on,
    meeting_count,
    total_hours,
    titles,
    longest_meeting,
    semicolon_list,
    save_summary,
]

# ---------------------------------------------------------------------------- tool set: numbers


@tool
def read_numbers(ctx: ToolContext, data_file: str) -> list[float]:
    """Read a file holding one number per line."""
    target = _inside(ctx, data_file)
    if not target.is_file():
        raise ToolError(f"no such file: {data_file}", retryable=False)
    return [float(x) for x in target.read_text(encoding="utf-8").split()]


@tool
def smallest(values: list[float]) -> float:
    """The smallest (minimum, lowest) of some numbers."""
    return min(values)


@tool
def biggest(values: list[float]) -> float:
    """The biggest (maximum, highest) of some numbers."""
    return max(values)


@tool
def median_of(values: list[float]) -> float:
    """The median (middle value) of some numbers."""
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


@tool
def add_all(values: list[float]) -> float:
    """The sum of some numbers, all added together."""
    return sum(values)


@tool
def ascending(values: list[float]) -> list[float]:
    """The numbers sorted from smallest to largest."""
    return sorted(values)


@tool
def above(values: list[float], threshold: float) -> list[float]:
    """Only the numbers greater than a threshold."""
    return [v for v in values if v > threshold]


@tool
def format_numbers(values: list[float]) -> str:
    """Format numbers as text, one per line."""
    return "".join(f"{v:g}\n" for v in values)


@tool(effect="mutating", idempotent=True)
def put_file(ctx: ToolContext, filename: str, data: str) -> str:
    """Store text in a workspace file (created or overwritten)."""
    _inside(ctx, filename).write_text(data, encoding="utf-8")
    return filename


NUMBER_TOOLS: list[PythonTool] = [
    read_numbers,
    smallest,
    biggest,
    median_of,
    add_all,
    ascending,
    above,
    format_numbers,
    put_file,
]

# ------------------------------------------------------------------------------- the goals

MEETINGS = [
    {"title": "standup", "day": "Monday", "hours": 0.25},
    {"title": "planning", "day": "Monday", "hours": 2},
    {"title": "review", "day": "Wednesday", "hours": 1.5},
    {"title": "retro", "day": "Friday", "hours": 1},
    {"title": "demo", "day": "Friday", "hours": 0.5},
]
READINGS = [4.0, 17.5, 9.0, 23.0, 12.0, 6.5]
SCORES = [71.0, 88.0, 93.0, 64.0]

AGENDA_FILES = {"week.json": json.dumps(MEETINGS, indent=2)}
NUMBER_FILES = {
    "readings.txt": "".join(f"{v:g}\n" for v in READINGS),
    "scores.txt": "".join(f"{v:g}\n" for v in SCORES),
}


def _titles(day: str | None = None) -> list[str]:
    return [str(m["title"]) for m in MEETINGS if day is None or m["day"] == day]


def _hours(day: str | None = None) -> float:
    return sum(float(m["hours"]) for m in MEETINGS if day is None or m["day"] == day)


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


AGENDA = ToolSet(
    "agenda",
    AGENDA_TOOLS,
    AGENDA_FILES,
    [
        Goal(
            "Count the meetings in week.json and save the number to meeting_count.txt",
            file_number("meeting_count.txt", len(MEETINGS)),
        ),
        Goal(
            "How many hours of meetings are in week.json? Write the total to hours.txt",
            file_number("hours.txt", _hours()),
        ),
        Goal(
            "Write the titles of the meetings in week.json to titles.txt",
            file_mentions_all("titles.txt", _titles()),
        ),
        Goal(
            "Which meetings in week.json are on Friday? Save their titles to friday.txt",
            file_mentions_all("friday.txt", _titles("Friday")),
        ),
        Goal(
            "How many meetings does week.json have on Monday? Put the count in monday_count.txt",
            file_number("monday_count.txt", len(_titles("Monday"))),
        ),
        Goal(
            "Total the hours of Monday's meetings in week.json and write it to monday_hours.txt",
            file_number("monday_hours.txt", _hours("Monday")),
        ),
        Goal(
            "Find the longest meeting in week.json and save its title to longest.txt",
            file_is("longest.txt", "planning"),
        ),
        Goal(
            "List the meeting titles of week.json separated by semicolons in agenda.txt",
            file_is("agenda.txt", "; ".join(_titles())),
        ),
        Goal(
            'Save the summary "no meetings on Tuesday" to tuesday.txt',
            file_is("tuesday.txt", "no meetings on Tuesday"),
        ),
        Goal(
            "Write the number of meetings in week.json to count.md",
            file_number("count.md", len(MEETINGS)),
        ),
        Goal(
            "Put the titles of Wednesday's meetings from week.json into wednesday.txt",
            file_mentions_all("wednesday.txt", _titles("Wednesday")),
        ),
        Goal(
            "Sum the meeting hours in week.json and store the sum in total_hours.txt",
            file_number("total_hours.txt", _hours()),
        ),
        Goal(
            "What is the longest meeting in week.json? Write the answer to answer.txt",
            file_is("answer.txt", "planning"),
        ),
        Goal(
            "Join the titles of the Friday meetings in week.json with semicolons into friday_line.txt",
            file_is("friday_line.txt", "; ".join(_titles("Friday"))),
        ),
        Goal(
            "Count the Friday meetings in week.json and write the count to friday_count.txt",
            file_number("friday_count.txt", len(_titles("Friday"))),
        ),
        Goal('Create week_note.txt with the words "busy week"', file_is("week_note.txt", "busy week")),
    ],
)

NUMBERS = ToolSet(
    "numbers",
    NUMBER_TOOLS,
    NUMBER_FILES,
    [
        Goal(
            "Find the smallest number in readings.txt and write it to min.txt",
            file_number("min.txt", min(READINGS)),
        ),
        Goal(
            "What is the biggest value in readings.txt? Save it to max.txt",
            file_number("max.txt", max(READINGS)),
        ),
        Goal(
            "Compute the median of scores.txt and store it in median.txt",
            file_number("median.txt", _median(SCORES)),
        ),
        Goal(
            "Add up all the numbers in readings.txt and write the sum to sum.txt",
            file_number("sum.txt", sum(READINGS)),
        ),
        Goal(
            "Sort the numbers in scores.txt from smallest to largest and save them to sorted.txt",
            file_lines("sorted.txt", [f"{v:g}" for v in sorted(SCORES)]),
        ),
        Goal(
            "Write the numbers in readings.txt greater than 10 to high.txt",
            file_lines("high.txt", [f"{v:g}" for v in READINGS if v > 10]),
        ),
        Goal("Copy scores.txt to scores_copy.txt", file_lines("scores_copy.txt", [f"{v:g}" for v in SCORES])),
        Goal(
            "What is the lowest score in scores.txt? Put it in lowest.txt",
            file_number("lowest.txt", min(SCORES)),
        ),
        Goal(
            "Save the highest reading of readings.txt to peak.txt",
            file_number("peak.txt", max(READINGS)),
        ),
        Goal(
            "Put the median value of readings.txt in readings_median.txt",
            file_number("readings_median.txt", _median(READINGS)),
        ),
        Goal(
            "Sum scores.txt and save the total to score_total.txt",
            file_number("score_total.txt", sum(SCORES)),
        ),
        Goal(
            "Keep the scores above 80 from scores.txt and write them to good.txt",
            file_lines("good.txt", [f"{v:g}" for v in SCORES if v > 80]),
        ),
        Goal(
            "Order readings.txt ascending and write the result to ordered.txt",
            file_lines("ordered.txt", [f"{v:g}" for v in sorted(READINGS)]),
        ),
        Goal('Store "no data yet" in pending.txt', file_is("pending.txt", "no data yet")),
        Goal(
            "Find the maximum of scores.txt and write it to best.txt",
            file_number("best.txt", max(SCORES)),
        ),
        Goal(
            "Write the minimum of readings.txt to floor.txt",
            file_number("floor.txt", min(READINGS)),
        ),
    ],
)

HELD_OUT_3 = [AGENDA, NUMBERS]

if __name__ == "__main__":
    print(json.dumps({s.name: len(s.goals) for s in HELD_OUT_3}))
