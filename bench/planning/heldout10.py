"""A tenth held-out planning suite: 32 goals over two tool sets the planner has never seen.

Written blind and committed before the planner ever ran on it. Its author read only the suite
framework (``heldout.py``), the previous suite (``heldout9.py``, its reference plans and
self-check), the shared self-check (``heldout_selfcheck.py``) and the runner
(``heldout_run.py``). It did not read the planner (``planning/``), the planner's tests, its
prompts, starter plans or memory, or any earlier result, log or report. Its first run is the
held-out measurement; goals are not edited after it. Every goal asks for a named file; every
check reads the file the executed plan wrote.

``loans`` is a public library's loans desk: JSON exports of ``Loan`` records (barcode, title,
author, borrower, due date, returned). Two filters (by borrower, and overdue on a given day, a
camelCase ``asOf`` date in YYYY-MM-DD that goals sometimes write as "1 April 2026") chain; the
writer is ``save_note`` with a ``noteFile`` parameter; a second branch's export
(``north_branch.json``) makes two-file goals.
``garden`` is an allotment's planting log, a CSV ("bed,plant,variety,sown,count") read into
``Planting`` records from a ``csvFile``: filters by bed and by a sowing date range
(``fromDate``/``toDate``, which goals sometimes give as a month), the number of plants added up,
the earliest sowing as one record whose field a plan has to take (``${sN.plant}``,
``${sN.variety}``, ``${sN.sown}``, ``${sN.count}``), last year's log (``plantings_2025.csv``)
for two-file goals. The writer is ``write_file(path, contents)``.

Each goal's hand-written reference plan is in ``heldout10_reference.py``;
``heldout10_selfcheck.py`` runs them through the real ``Agent`` (no model) and checks the files,
which shows every goal is achievable with these tools and every check accepts a right answer.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable

from heldout import (
    Goal,
    ToolSet,
    _inside,
    file_number,
    read_records,
    read_text,
    same_text,
)
from heldout9 import file_counts, file_line_set, file_says
from pydantic import BaseModel

from forethought import ToolContext, tool
from forethought.errors import ToolError
from forethought.tools.python import PythonTool

ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _iso(value: str) -> str:
    """``value`` stripped, when it is a YYYY-MM-DD date; a ``ToolError`` saying the format if not."""
    if not ISO_DATE.fullmatch(value.strip()):
        raise ToolError(f"dates are written YYYY-MM-DD, got {value!r}", retryable=False)
    return value.strip()


# ----------------------------------------------------------------------------- tool set: loans


class Loan(BaseModel):
    barcode: str
    title: str
    author: str
    borrower: str
    due: str
    returned: bool


@tool
def load_loans(ctx: ToolContext, loans_json: str) -> list[Loan]:
    """Read the loans of a library's JSON export (barcode, title, author, borrower, due date,
    whether the book has been returned)."""
    return read_records(ctx, loans_json, "loans export", Loan, "loan")


@tool
def loans_for_borrower(loans: list[Loan], borrower: str) -> list[Loan]:
    """Only the loans of one library member (the borrower's name)."""
    return [loan for loan in loans if same_text(loan.borrower, borrower)]


@tool
def overdue_loans(loans: list[Loan], asOf: str) -> list[Loan]:
    """Only the loans that were overdue on the day asOf (YYYY-MM-DD): not returned and due
    before that day."""
    day = _iso(asOf)
    return [loan for loan in loans if not loan.returned and loan.due < day]


@tool
def count_loans(loans: list[Loan]) -> int:
    """How many loans there are."""
    return len(loans)


@tool
def loan_titles(loans: list[Loan]) -> str:
    """The titles of the books on some loans, as text, one title per line."""
    return "".join(f"{loan.title}\n" for loan in loans)


@tool(effect="mutating", idempotent=True)
def save_note(ctx: ToolContext, noteFile: str, text: str) -> str:
    """Save text as a note file in the workspace (created, or replaced if it exists)."""
    _inside(ctx, noteFile).write_text(text, encoding="utf-8")
    return noteFile


LOANS_TOOLS: list[PythonTool] = [
    load_loans,
    loans_for_borrower,
    overdue_loans,
    count_loans,
    loan_titles,
    save_note,
]

# ---------------------------------------------------------------------------- tool set: garden


class Planting(BaseModel):
    bed: str
    plant: str
    variety: str
    sown: str
    count: int


PLANTING_COLUMNS = ("bed", "plant", "variety", "sown", "count")


@tool
def read_plantings(ctx: ToolContext, csvFile: str) -> list[Planting]:
    """Read a garden's planting log, a CSV with the columns bed, plant, variety, sown (the
    sowing date) and count (how many plants)."""
    text = read_text(ctx, csvFile, "planting log")
    reader = csv.DictReader(io.StringIO(text))
    if tuple(reader.fieldnames or ()) != PLANTING_COLUMNS:
        raise ToolError(
            f"{csvFile}: expected the header 'bed,plant,variety,sown,count', got {reader.fieldnames}",
            retryable=False,
        )
    plantings = []
    for number, row in enumerate(reader, start=2):
        try:
            plantings.append(
                Planting(
                    bed=row["bed"],
                    plant=row["plant"],
                    variety=row["variety"],
                    sown=row["sown"],
                    count=int(row["count"]),
                )
            )
        except (TypeError, ValueError):
            raise ToolError(
                f"{csvFile}:{number}: count must be a whole number, got {row['count']!r}", retryable=False
            ) from None
    return plantings


@tool
def plantings_in_bed(plantings: list[Planting], bed: str) -> list[Planting]:
    """Only the plantings in one bed of the garden (beds are lettered: A, B, C...)."""
    return [p for p in plantings if same_text(p.bed, bed)]


@tool
def sown_between(plantings: list[Planting], fromDate: str, toDate: str) -> list[Planting]:
    """Only the plantings sown from fromDate to toDate, both days included (YYYY-MM-DD)."""
    start, end = _iso(fromDate), _iso(toDate)
    return [p for p in plantings if start <= p.sown <= end]


@tool
def count_plants(plantings: list[Planting]) -> int:
    """The number of plants in some plantings, added up (each planting's count)."""
    return sum(p.count for p in plantings)


@tool
def earliest_sowing(plantings: list[Planting]) -> Planting:
    """The planting that was sown first (earliest sowing date)."""
    if not plantings:
        raise ToolError("no plantings given", retryable=False)
    return min(plantings, key=lambda p: p.sown)


@tool(effect="mutating", idempotent=True)
def write_file(ctx: ToolContext, path: str, contents: str) -> str:
    """Write contents to a file of the workspace (created or overwritten)."""
    _inside(ctx, path).write_text(contents, encoding="utf-8")
    return path


GARDEN_TOOLS: list[PythonTool] = [
    read_plantings,
    plantings_in_bed,
    sown_between,
    count_plants,
    earliest_sowing,
    write_file,
]

# ------------------------------------------------------------------------------- the goals

LoanRow = tuple[str, str, str, str, str, bool]  # barcode, title, author, borrower, due, returned

LOANS: list[LoanRow] = [
    ("31001", "The Hobbit", "J. R. R. Tolkien", "Nora Quinn", "2026-04-02", False),
    ("31002", "Dune", "Frank Herbert", "Leo Marsh", "2026-03-20", False),
    ("31003", "Middlemarch", "George Eliot", "Nora Quinn", "2026-03-15", True),
    ("31004", "Beloved", "Toni Morrison", "Priya Shah", "2026-03-28", False),
    ("31005", "The Road", "Cormac McCarthy", "Leo Marsh", "2026-04-10", False),
    ("31006", "Emma", "Jane Austen", "Tom Okafor", "2026-03-18", False),
    ("31007", "Kindred", "Octavia E. Butler", "Priya Shah", "2026-03-30", True),
    ("31008", "Ulysses", "James Joyce", "Nora Quinn", "2026-03-25", False),
    ("31009", "Persuasion", "Jane Austen", "Tom Okafor", "2026-04-05", False),
    ("31010", "Solaris", "Stanisław Lem", "Leo Marsh", "2026-03-12", False),
]
NORTH: list[LoanRow] = [
    ("52001", "Rebecca", "Daphne du Maurier", "Ada Brennan", "2026-03-19", False),
    ("52002", "Small Island", "Andrea Levy", "Leo Marsh", "2026-03-27", True),
    ("52003", "Wolf Hall", "Hilary Mantel", "Ada Brennan", "2026-04-08", False),
    ("52004", "Brick Lane", "Monica Ali", "Sam Reid", "2026-03-22", False),
]


def _export(rows: list[LoanRow]) -> str:
    keys = ("barcode", "title", "author", "borrower", "due", "returned")
    return json.dumps([dict(zip(keys, row, strict=True)) for row in rows], indent=2, ensure_ascii=False)


LOANS_FILES = {"loans.json": _export(LOANS), "north_branch.json": _export(NORTH)}


def _loans(keep: Callable[[LoanRow], bool], rows: list[LoanRow] = LOANS) -> list[LoanRow]:
    return [loan for loan in rows if keep(loan)]


def _overdue(day: str) -> Callable[[LoanRow], bool]:
    return lambda loan: not loan[5] and loan[4] < day


def _titles(rows: list[LoanRow]) -> list[str]:
    return [loan[1] for loan in rows]


PlantingRow = tuple[str, str, str, str, int]  # bed, plant, variety, sown, count

PLANTINGS: list[PlantingRow] = [
    ("A", "tomato", "Gardener's Delight", "2026-03-14", 6),
    ("A", "basil", "Genovese", "2026-04-02", 12),
    ("B", "carrot", "Nantes", "2026-03-28", 40),
    ("B", "beetroot", "Boltardy", "2026-04-06", 25),
    ("C", "pea", "Kelvedon Wonder", "2026-03-07", 30),
    ("C", "broad bean", "Aquadulce", "2026-02-21", 18),
    ("A", "pepper", "California Wonder", "2026-02-28", 4),
    ("D", "lettuce", "Little Gem", "2026-04-11", 16),
    ("D", "radish", "French Breakfast", "2026-03-21", 50),
    ("B", "parsnip", "Tender and True", "2026-03-10", 20),
]
LAST_YEAR: list[PlantingRow] = [
    ("A", "courgette", "Defender", "2025-04-20", 3),
    ("B", "onion", "Sturon", "2025-03-15", 60),
    ("C", "kale", "Nero di Toscana", "2025-05-02", 8),
]


def _log(rows: list[PlantingRow]) -> str:
    return "bed,plant,variety,sown,count\n" + "".join(f"{b},{p},{v},{s},{c}\n" for b, p, v, s, c in rows)


GARDEN_FILES = {"plantings.csv": _log(PLANTINGS), "plantings_2025.csv": _log(LAST_YEAR)}


def _sown(keep: Callable[[PlantingRow], bool], rows: list[PlantingRow] = PLANTINGS) -> list[PlantingRow]:
    return [p for p in rows if keep(p)]


def _plants(rows: list[PlantingRow]) -> int:
    return sum(p[4] for p in rows)


def _first(rows: list[PlantingRow]) -> PlantingRow:
    return min(rows, key=lambda p: p[3])


def _in_bed(bed: str) -> Callable[[PlantingRow], bool]:
    return lambda p: p[0] == bed


FIRST = _first(PLANTINGS)

LOANS_SET = ToolSet(
    "loans",
    LOANS_TOOLS,
    LOANS_FILES,
    [
        Goal(
            "How many loans are in loans.json? Write the number to loan_count.txt",
            file_number("loan_count.txt", len(LOANS)),
        ),
        Goal(
            "Which books has Nora Quinn borrowed? List the titles from loans.json in nora.txt",
            file_line_set("nora.txt", _titles(_loans(lambda loan: loan[3] == "Nora Quinn"))),
        ),
        Goal(
            "Count the loans in loans.json that were overdue on 2026-03-26 and save the count as "
            "overdue_count.txt",
            file_number("overdue_count.txt", len(_loans(_overdue("2026-03-26")))),
        ),
        Goal(
            "overdue.txt: the titles of the books in loans.json that were overdue as of 2026-03-26",
            file_line_set("overdue.txt", _titles(_loans(_overdue("2026-03-26")))),
        ),
        Goal(
            "How many books has Leo Marsh borrowed according to loans.json? Put the answer in leo.txt",
            file_number("leo.txt", len(_loans(lambda loan: loan[3] == "Leo Marsh"))),
        ),
        Goal(
            "How many of Leo Marsh's loans in loans.json were overdue on 1 April 2026? "
            "Write the number to leo_late.txt",
            file_number(
                "leo_late.txt",
                len(_loans(lambda loan: loan[3] == "Leo Marsh" and _overdue("2026-04-01")(loan))),
            ),
        ),
        Goal(
            "List every title in loans.json in titles.txt",
            file_line_set("titles.txt", _titles(LOANS)),
        ),
        Goal(
            "Write the titles of the books on loan at the north branch (north_branch.json) to "
            "north_titles.txt",
            file_line_set("north_titles.txt", _titles(NORTH)),
        ),
        Goal(
            "Tom Okafor's loans in loans.json: save their titles to tom.txt",
            file_line_set("tom.txt", _titles(_loans(lambda loan: loan[3] == "Tom Okafor"))),
        ),
        Goal(
            "How many loans does north_branch.json hold? Answer in north_count.txt",
            file_number("north_count.txt", len(NORTH)),
        ),
        Goal(
            'Create reminder.txt with the text "Overdue notices go out on Monday"',
            file_says("reminder.txt", "Overdue notices go out on Monday"),
        ),
        Goal(
            "Write the number of loans in loans.json and in north_branch.json to counts.txt, "
            "one number per line",
            file_counts("counts.txt", [len(LOANS), len(NORTH)]),
        ),
        Goal(
            "How many loans in north_branch.json were overdue on 2026-03-26? Save the count to "
            "north_overdue.txt",
            file_number("north_overdue.txt", len(_loans(_overdue("2026-03-26"), NORTH))),
        ),
        Goal(
            "Priya Shah: how many books has she borrowed, according to loans.json? Write the count "
            "to priya.txt",
            file_number("priya.txt", len(_loans(lambda loan: loan[3] == "Priya Shah"))),
        ),
        Goal(
            "Which of Nora Quinn's books in loans.json were overdue on 2026-03-30? Write the titles "
            "to nora_late.txt",
            file_line_set(
                "nora_late.txt",
                _titles(_loans(lambda loan: loan[3] == "Nora Quinn" and _overdue("2026-03-30")(loan))),
            ),
        ),
        Goal(
            "Save the titles of loans.json's overdue books as of 2026-04-06 to late_april.txt",
            file_line_set("late_april.txt", _titles(_loans(_overdue("2026-04-06")))),
        ),
    ],
)

GARDEN_SET = ToolSet(
    "garden",
    GARDEN_TOOLS,
    GARDEN_FILES,
    [
        Goal(
            "How many plants are in plantings.csv altogether? Write the number to plant_total.txt",
            file_number("plant_total.txt", _plants(PLANTINGS)),
        ),
        Goal(
            "How many plants are growing in bed B? Use plantings.csv and save the total in bed_b.txt",
            file_number("bed_b.txt", _plants(_sown(_in_bed("B")))),
        ),
        Goal(
            "What was sown first in plantings.csv? Write the plant's name to first_sown.txt",
            file_says("first_sown.txt", FIRST[1]),
        ),
        Goal(
            "Write the date the first seeds were sown (plantings.csv) to first_date.txt",
            file_says("first_date.txt", FIRST[3]),
        ),
        Goal(
            "Which variety was sown earliest in bed A? Read plantings.csv and put the variety in "
            "bed_a_first.txt",
            file_says("bed_a_first.txt", _first(_sown(_in_bed("A")))[2]),
        ),
        Goal(
            "Count the plants sown between 2026-03-01 and 2026-03-31 in plantings.csv -> march_plants.txt",
            file_number("march_plants.txt", _plants(_sown(lambda p: "2026-03-01" <= p[3] <= "2026-03-31"))),
        ),
        Goal(
            "bed_d.txt: the number of plants in bed D of plantings.csv",
            file_number("bed_d.txt", _plants(_sown(_in_bed("D")))),
        ),
        Goal(
            "How many plants went in during April 2026, according to plantings.csv? Save the figure "
            "to april.txt",
            file_number("april.txt", _plants(_sown(lambda p: p[3].startswith("2026-04")))),
        ),
        Goal(
            "Total plants in plantings_2025.csv? Write it to last_year.txt",
            file_number("last_year.txt", _plants(LAST_YEAR)),
        ),
        Goal(
            "What was the first thing sown in plantings_2025.csv? Save the plant name as first_2025.txt",
            file_says("first_2025.txt", _first(LAST_YEAR)[1]),
        ),
        Goal(
            "Write the plant totals of plantings.csv and plantings_2025.csv to compare.txt, one per line",
            file_counts("compare.txt", [_plants(PLANTINGS), _plants(LAST_YEAR)]),
        ),
        Goal(
            'Create garden_note.txt saying "water the seedlings at 7 pm"',
            file_says("garden_note.txt", "water the seedlings at 7 pm"),
        ),
        Goal(
            "In bed C, how many plants were sown from 2026-03-01 to 2026-04-30? Use plantings.csv "
            "and answer in bed_c_spring.txt",
            file_number(
                "bed_c_spring.txt",
                _plants(_sown(lambda p: p[0] == "C" and "2026-03-01" <= p[3] <= "2026-04-30")),
            ),
        ),
        Goal(
            "Bed A's earliest sowing in plantings.csv: write its sowing date to bed_a_date.txt",
            file_says("bed_a_date.txt", _first(_sown(_in_bed("A")))[3]),
        ),
        Goal(
            "Which plant in bed B was sown first? Check plantings.csv and write its name to bed_b_first.txt",
            file_says("bed_b_first.txt", _first(_sown(_in_bed("B")))[1]),
        ),
        Goal(
            "How many plants were in the earliest sowing of plantings.csv? Write the number to "
            "first_count.txt",
            file_number("first_count.txt", FIRST[4]),
        ),
    ],
)

HELD_OUT_10 = [LOANS_SET, GARDEN_SET]

if __name__ == "__main__":
    print(json.dumps({s.name: len(s.goals) for s in HELD_OUT_10}))
