"""A sixth held-out planning suite: 32 goals over two tool sets the planner has never seen.

Written blind and committed before the planner ever ran on it. Its author read only the suite
framework (``heldout.py``), the file format of ``heldout5.py``, the runner (``heldout_run.py``),
the README's section on declaring tools and the public plan model (``src/forethought/plan/``,
to build the self-check's reference plans). It did not read the planner (``planning/``), the
model layer (``models/``), the planner's tests, ``run.py``/``tools.py``/``rows.py`` or any earlier
result or report. Its first run is the held-out measurement; goals are not edited after it.
Every goal asks for a named file; every check reads the file the executed plan wrote.

``catalogue`` is a library catalogue: a JSON list of ``Book`` records (title, author, year,
genre, pages) plus a reading list (one title per line). Two tools return one ``Book`` whose
field a plan has to take (``${sN.title}``, ``${sN.year}``), one tool combines two inputs (a
reading list and a catalogue), and several tools share words (``books_by_author``,
``books_in_genre``; ``count_books``, ``count_titles``; ``list_titles``, ``read_title_list``).
``timesheet`` parses a line-based text format ("date person project hours" per line, ``#``
comments) into ``Entry`` records and computes over them: totals, averages, a cost from hours and
a rate, rounding, and a ``DayTotal`` record (date, hours) for the busiest day.

Each goal's hand-written reference plan is in ``heldout6_reference.py``; ``heldout6_selfcheck.py``
runs them through the real ``Agent`` (no model) and checks the files, which shows every goal is
achievable with these tools and every check accepts a right answer.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from heldout import (
    Check,
    Goal,
    ToolSet,
    _inside,
    _text,
    file_is,
    file_lines,
    file_number,
    read_lines,
    read_records,
    read_text,
)
from pydantic import BaseModel

from forethought import ToolContext, tool
from forethought.errors import ToolError
from forethought.tools.python import PythonTool

# ------------------------------------------------------------------------- tool set: catalogue


class Book(BaseModel):
    title: str
    author: str
    year: int
    genre: str
    pages: int


@tool
def read_catalogue(ctx: ToolContext, catalogue_file: str) -> list[Book]:
    """Read the books (title, author, year, genre, pages) of a library catalogue JSON file."""
    return read_records(ctx, catalogue_file, "catalogue", Book, "book")


@tool
def read_title_list(ctx: ToolContext, list_file: str) -> list[str]:
    """Read a list of book titles from a text file, one title per line."""
    return read_lines(ctx, list_file, "title list")


@tool
def books_by_author(books: list[Book], author: str) -> list[Book]:
    """Only the books written by the given author."""
    return [b for b in books if b.author.lower() == author.strip().lower()]


@tool
def books_in_genre(books: list[Book], genre: str) -> list[Book]:
    """Only the books of the given genre (for example fantasy or science fiction)."""
    return [b for b in books if b.genre.lower() == genre.strip().lower()]


@tool
def published_after(books: list[Book], year: int) -> list[Book]:
    """Only the books published later than the given year."""
    return [b for b in books if b.year > year]


@tool
def count_books(books: list[Book]) -> int:
    """How many books there are."""
    return len(books)


@tool
def count_titles(titles: list[str]) -> int:
    """How many titles a list of titles has."""
    return len(titles)


@tool
def total_pages(books: list[Book]) -> int:
    """The number of pages of some books added together."""
    return sum(b.pages for b in books)


def _some(books: list[Book]) -> list[Book]:
    if not books:
        raise ToolError("no books given", retryable=False)
    return books


@tool
def oldest_book(books: list[Book]) -> Book:
    """The book published first (the earliest year)."""
    return min(_some(books), key=lambda b: b.year)


@tool
def longest_book(books: list[Book]) -> Book:
    """The book with the most pages."""
    return max(_some(books), key=lambda b: b.pages)


@tool
def list_titles(books: list[Book]) -> str:
    """The titles of some books as text, one title per line."""
    return "".join(f"{b.title}\n" for b in books)


@tool
def author_names(books: list[Book]) -> list[str]:
    """The distinct authors of some books, in alphabetical order."""
    return sorted({b.author for b in books})


@tool
def missing_titles(wanted: list[str], books: list[Book]) -> str:
    """The titles of a wanted list that are not among the books, one per line (what to order)."""
    held = {b.title.lower() for b in books}
    return "".join(f"{t}\n" for t in wanted if t.lower() not in held)


@tool
def lines_of(items: list[str]) -> str:
    """Format a list of strings as text with one item on each line."""
    return "".join(f"{i}\n" for i in items)


@tool(effect="mutating", idempotent=True)
def write_text_file(ctx: ToolContext, file_name: str, text: str) -> str:
    """Write text to a file in the workspace, replacing the file if it exists."""
    _inside(ctx, file_name).write_text(text, encoding="utf-8")
    return file_name


CATALOGUE_TOOLS: list[PythonTool] = [
    read_catalogue,
    read_title_list,
    books_by_author,
    books_in_genre,
    published_after,
    count_books,
    count_titles,
    total_pages,
    oldest_book,
    longest_book,
    list_titles,
    author_names,
    missing_titles,
    lines_of,
    write_text_file,
]

# ------------------------------------------------------------------------- tool set: timesheet


class Entry(BaseModel):
    date: str
    person: str
    project: str
    hours: float


class DayTotal(BaseModel):
    date: str
    hours: float


@tool
def load_timesheet(ctx: ToolContext, sheet_file: str) -> list[Entry]:
    """Parse a timesheet file: one "date person project hours" entry per line, # starts a comment."""
    text = read_text(ctx, sheet_file, "timesheet")
    entries = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 4:
            raise ToolError(
                f"{sheet_file}:{number}: expected 'date person project hours', got {line!r}",
                retryable=False,
            )
        try:
            hours = float(parts[3])
        except ValueError:
            raise ToolError(
                f"{sheet_file}:{number}: hours {parts[3]!r} is not a number", retryable=False
            ) from None
        entries.append(Entry(date=parts[0], person=parts[1], project=parts[2], hours=hours))
    return entries


@tool
def entries_for_person(entries: list[Entry], person: str) -> list[Entry]:
    """Only the timesheet entries logged by the given person."""
    return [e for e in entries if e.person.lower() == person.strip().lower()]


@tool
def entries_for_project(entries: list[Entry], project: str) -> list[Entry]:
    """Only the timesheet entries booked on the given project."""
    return [e for e in entries if e.project.lower() == project.strip().lower()]


@tool
def entries_on_date(entries: list[Entry], date: str) -> list[Entry]:
    """Only the timesheet entries of one date (YYYY-MM-DD)."""
    return [e for e in entries if e.date == date.strip()]


@tool
def entry_count(entries: list[Entry]) -> int:
    """How many timesheet entries there are."""
    return len(entries)


@tool
def hours_total(entries: list[Entry]) -> float:
    """The hours of some timesheet entries added up."""
    return sum(e.hours for e in entries)


@tool
def hours_average(entries: list[Entry]) -> float:
    """The mean number of hours per timesheet entry."""
    if not entries:
        raise ToolError("no timesheet entries", retryable=False)
    return sum(e.hours for e in entries) / len(entries)


@tool
def busiest_day(entries: list[Entry]) -> DayTotal:
    """The date with the most hours logged, and those hours."""
    if not entries:
        raise ToolError("no timesheet entries", retryable=False)
    per_day: dict[str, float] = {}
    for e in entries:
        per_day[e.date] = per_day.get(e.date, 0.0) + e.hours
    date = max(per_day, key=lambda d: per_day[d])
    return DayTotal(date=date, hours=per_day[date])


@tool
def project_names(entries: list[Entry]) -> list[str]:
    """The distinct projects of some timesheet entries, in order of first appearance."""
    return list(dict.fromkeys(e.project for e in entries))


@tool
def people(entries: list[Entry]) -> list[str]:
    """The distinct people who logged the entries, in order of first appearance."""
    return list(dict.fromkeys(e.person for e in entries))


@tool
def hourly_cost(hours: float, rate: float) -> float:
    """What a number of hours costs at an hourly rate (hours times rate)."""
    if hours < 0 or rate < 0:
        raise ToolError("hours and rate must not be negative", retryable=False)
    return hours * rate


@tool
def round_to(value: float, places: int) -> float:
    """Round a number to the given number of decimal places."""
    if places < 0:
        raise ToolError("places must be 0 or more", retryable=False)
    return round(value, places)


@tool
def as_lines(entries: list[Entry]) -> str:
    """Timesheet entries as text, one "date person project hours" line each."""
    return "".join(f"{e.date} {e.person} {e.project} {e.hours:g}\n" for e in entries)


@tool
def text_lines(items: list[str]) -> str:
    """Join a list of strings into text, one per line."""
    return "".join(f"{i}\n" for i in items)


@tool(effect="mutating", idempotent=True)
def save_text(ctx: ToolContext, path: str, text: str) -> str:
    """Save text as a file in the workspace (created or overwritten)."""
    _inside(ctx, path).write_text(text, encoding="utf-8")
    return path


TIMESHEET_TOOLS: list[PythonTool] = [
    load_timesheet,
    entries_for_person,
    entries_for_project,
    entries_on_date,
    entry_count,
    hours_total,
    hours_average,
    busiest_day,
    project_names,
    people,
    hourly_cost,
    round_to,
    as_lines,
    text_lines,
    save_text,
]

# ------------------------------------------------------------------------------- the goals

CATALOGUE = [
    {
        "title": "A Wizard of Earthsea",
        "author": "Ursula K. Le Guin",
        "year": 1968,
        "genre": "fantasy",
        "pages": 183,
    },
    {
        "title": "The Left Hand of Darkness",
        "author": "Ursula K. Le Guin",
        "year": 1969,
        "genre": "science fiction",
        "pages": 304,
    },
    {"title": "The Hobbit", "author": "J. R. R. Tolkien", "year": 1937, "genre": "fantasy", "pages": 310},
    {"title": "Dune", "author": "Frank Herbert", "year": 1965, "genre": "science fiction", "pages": 412},
    {
        "title": "Neuromancer",
        "author": "William Gibson",
        "year": 1984,
        "genre": "science fiction",
        "pages": 271,
    },
    {"title": "Piranesi", "author": "Susanna Clarke", "year": 2020, "genre": "fantasy", "pages": 272},
    {
        "title": "Station Eleven",
        "author": "Emily St. John Mandel",
        "year": 2014,
        "genre": "literary",
        "pages": 333,
    },
    {
        "title": "The Remains of the Day",
        "author": "Kazuo Ishiguro",
        "year": 1989,
        "genre": "literary",
        "pages": 245,
    },
    {
        "title": "Klara and the Sun",
        "author": "Kazuo Ishiguro",
        "year": 2021,
        "genre": "literary",
        "pages": 303,
    },
]
ANNEX = [
    {"title": "Middlemarch", "author": "George Eliot", "year": 1871, "genre": "literary", "pages": 880},
    {"title": "Foundation", "author": "Isaac Asimov", "year": 1951, "genre": "science fiction", "pages": 255},
    {
        "title": "Kindred",
        "author": "Octavia E. Butler",
        "year": 1979,
        "genre": "science fiction",
        "pages": 264,
    },
]
READING_LIST = ["Dune", "Middlemarch", "Piranesi", "Beloved", "The Hobbit"]

NOVEMBER = """\
# date person project hours
2026-11-02 alice apollo 3.5
2026-11-02 bob zeus 6
2026-11-03 alice zeus 2
2026-11-03 carol apollo 4.5
2026-11-03 bob apollo 3.5
2026-11-04 alice apollo 5
2026-11-04 carol hermes 2.5
2026-11-05 carol apollo 1.5
2026-11-05 bob hermes 4
"""
DECEMBER = """\
2026-12-01 bob zeus 7
2026-12-01 dave zeus 1.25
2026-12-02 bob hermes 2.5
2026-12-02 alice zeus 4
2026-12-03 dave apollo 3
2026-12-03 bob zeus 2
2026-12-03 alice apollo 5.5
"""

CATALOGUE_FILES = {
    "catalogue.json": json.dumps(CATALOGUE, indent=2),
    "annex.json": json.dumps(ANNEX, indent=2),
    "reading_list.txt": "".join(f"{t}\n" for t in READING_LIST),
}
TIMESHEET_FILES = {"november.txt": NOVEMBER, "december.txt": DECEMBER}


def file_mentions_only(name: str, wanted: list[str], unwanted: list[str]) -> Check:
    """The file mentions every wanted word and none of the unwanted ones."""

    def check(ws: Path) -> bool:
        text = _text(ws, name)
        return text is not None and all(w in text for w in wanted) and not any(u in text for u in unwanted)

    return check


Record = dict[str, object]
Row = tuple[str, str, str, float]


def _titles(books: list[Record], keep: Callable[[Record], bool] | None = None) -> list[str]:
    return [str(b["title"]) for b in books if keep is None or keep(b)]


def _field(book: Record, name: str) -> str:
    return str(book[name])


def _pages(books: list[Record]) -> int:
    return sum(int(str(b["pages"])) for b in books)


def _year(book: Record) -> int:
    return int(str(book["year"]))


OLDEST = min(CATALOGUE, key=_year)
LONGEST = max(CATALOGUE, key=lambda b: int(str(b["pages"])))
HELD = {t.lower() for t in _titles(CATALOGUE)}


def _entries(sheet: str) -> list[Row]:
    rows = []
    for line in sheet.splitlines():
        if line.strip() and not line.startswith("#"):
            date, person, project, hours = line.split()
            rows.append((date, person, project, float(hours)))
    return rows


NOV = _entries(NOVEMBER)
DEC = _entries(DECEMBER)


def _hours(rows: list[Row], person: str = "", project: str = "") -> float:
    return sum(h for _, p, j, h in rows if person in ("", p) and project in ("", j))


def _busiest(rows: list[Row]) -> tuple[str, float]:
    per_day: dict[str, float] = {}
    for date, _, _, h in rows:
        per_day[date] = per_day.get(date, 0.0) + h
    date = max(per_day, key=lambda d: per_day[d])
    return date, per_day[date]


def _lines(rows: list[Row], keep: Callable[[Row], bool]) -> list[str]:
    return [f"{d} {p} {j} {h:g}" for d, p, j, h in rows if keep((d, p, j, h))]


CATALOGUE_SET = ToolSet(
    "catalogue",
    CATALOGUE_TOOLS,
    CATALOGUE_FILES,
    [
        Goal(
            "How many books are in catalogue.json? Write the number to book_count.txt",
            file_number("book_count.txt", len(CATALOGUE)),
        ),
        Goal(
            "Write the titles of the books by Ursula K. Le Guin in catalogue.json to le_guin.txt",
            file_lines("le_guin.txt", _titles(CATALOGUE, lambda b: b["author"] == "Ursula K. Le Guin")),
        ),
        Goal(
            "Save the titles of all fantasy books in catalogue.json as fantasy.txt",
            file_lines("fantasy.txt", _titles(CATALOGUE, lambda b: b["genre"] == "fantasy")),
        ),
        Goal(
            "Into pages.txt, write the total number of pages of the books in catalogue.json",
            file_number("pages.txt", _pages(CATALOGUE)),
        ),
        Goal(
            "What is the title of the oldest book in catalogue.json? Put it in oldest.txt",
            file_mentions_only(
                "oldest.txt", [_field(OLDEST, "title")], [_field(OLDEST, "author"), _field(OLDEST, "year")]
            ),
        ),
        Goal(
            "In which year was the oldest book in catalogue.json published? "
            "Write the year to oldest_year.txt",
            file_number("oldest_year.txt", _year(OLDEST)),
        ),
        Goal(
            "Find the longest book in catalogue.json and write its title to longest.txt",
            file_mentions_only(
                "longest.txt",
                [_field(LONGEST, "title")],
                [_field(LONGEST, "author"), _field(LONGEST, "pages")],
            ),
        ),
        Goal(
            "List the authors in catalogue.json, one per line, in authors.txt",
            file_lines("authors.txt", sorted({str(b["author"]) for b in CATALOGUE})),
        ),
        Goal(
            "Which books on reading_list.txt does catalogue.json not have? Write them to to_order.txt",
            file_lines("to_order.txt", [t for t in READING_LIST if t.lower() not in HELD]),
        ),
        Goal(
            "Count the books published after 2000 in catalogue.json and save the count to recent_count.txt",
            file_number("recent_count.txt", len(_titles(CATALOGUE, lambda b: _year(b) > 2000))),
        ),
        Goal(
            'Write "library closed on monday" to notice.txt',
            file_is("notice.txt", "library closed on monday"),
        ),
        Goal(
            "How many titles are on reading_list.txt? Save the answer in list_size.txt",
            file_number("list_size.txt", len(READING_LIST)),
        ),
        Goal(
            "pages_scifi.txt should hold the total pages of the science fiction books in catalogue.json",
            file_number("pages_scifi.txt", _pages([b for b in CATALOGUE if b["genre"] == "science fiction"])),
        ),
        Goal(
            "How many books does annex.json hold? Write the count to annex_count.txt",
            file_number("annex_count.txt", len(ANNEX)),
        ),
        Goal(
            "Copy the titles of the books in annex.json to annex_titles.txt",
            file_lines("annex_titles.txt", _titles(ANNEX)),
        ),
        Goal(
            "Please write the titles of the catalogue.json books published after 2000 to recent.txt",
            file_lines("recent.txt", _titles(CATALOGUE, lambda b: _year(b) > 2000)),
        ),
    ],
)

DEC_BUSIEST = _busiest(DEC)

TIMESHEET_SET = ToolSet(
    "timesheet",
    TIMESHEET_TOOLS,
    TIMESHEET_FILES,
    [
        Goal(
            "How many hours were logged in november.txt in total? Write the total to total_hours.txt",
            file_number("total_hours.txt", _hours(NOV)),
        ),
        Goal(
            "Count the entries in december.txt and save the count to entry_count.txt",
            file_number("entry_count.txt", len(DEC)),
        ),
        Goal(
            "Write the hours alice worked in november.txt to alice_hours.txt",
            file_number("alice_hours.txt", _hours(NOV, person="alice")),
        ),
        Goal(
            "How many hours went into the apollo project in november.txt? Save the number to apollo.txt",
            file_number("apollo.txt", _hours(NOV, project="apollo")),
        ),
        Goal(
            "Which day in november.txt had the most hours? Write the date to busiest.txt",
            file_mentions_only("busiest.txt", [_busiest(NOV)[0]], ["2026-11-02", "2026-11-04", "2026-11-05"]),
        ),
        Goal(
            "Save how many hours were worked on the busiest day of december.txt to peak_hours.txt",
            file_number("peak_hours.txt", DEC_BUSIEST[1]),
        ),
        Goal(
            "List the projects in november.txt, one per line, in projects.txt",
            file_lines("projects.txt", list(dict.fromkeys(j for _, _, j, _ in NOV))),
        ),
        Goal(
            "Who logged time in december.txt? Write the names to people.txt",
            file_mentions_only("people.txt", sorted({p for _, p, _, _ in DEC}), ["carol"]),
        ),
        Goal(
            "Work out the cost of all hours in november.txt at 80 per hour and write it to cost.txt",
            file_number("cost.txt", _hours(NOV) * 80),
        ),
        Goal(
            "What is the average length of an entry in december.txt, rounded to 2 decimals? "
            "Save it in avg_entry.txt",
            file_number("avg_entry.txt", round(_hours(DEC) / len(DEC), 2)),
        ),
        Goal(
            "Write the entries of november.txt for 2026-11-03 to nov3.txt",
            file_lines("nov3.txt", _lines(NOV, lambda e: e[0] == "2026-11-03")),
        ),
        Goal(
            'Create status.txt containing "timesheet approved"', file_is("status.txt", "timesheet approved")
        ),
        Goal(
            "Put bob's entries from december.txt into bob.txt",
            file_lines("bob.txt", _lines(DEC, lambda e: e[1] == "bob")),
        ),
        Goal(
            "Into zeus_hours.txt, write the total hours of the zeus project in december.txt",
            file_number("zeus_hours.txt", _hours(DEC, project="zeus")),
        ),
        Goal(
            "How many entries does november.txt have for carol? Save the count to carol_entries.txt",
            file_number("carol_entries.txt", len([e for e in NOV if e[1] == "carol"])),
        ),
        Goal(
            "Bill 12.5 hours at a rate of 64 and write the amount to invoice.txt",
            file_number("invoice.txt", 800),
        ),
    ],
)

HELD_OUT_6 = [CATALOGUE_SET, TIMESHEET_SET]

if __name__ == "__main__":
    print(json.dumps({s.name: len(s.goals) for s in HELD_OUT_6}))
