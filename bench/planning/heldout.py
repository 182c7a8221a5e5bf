"""The held-out planning suite: 32 goals over two tool sets the planner has never seen.

Written before any tuning of the decompose/fill planner and not tuned on since: neither tool
set, nor any goal's wording, appears in a prompt, a starter plan, a planner test or the dev suite
(``run.py: GOALS`` over ``tools.py``). Every goal asks for a file, and every check reads the
file the executed plan wrote (a number written as text may end with a newline).

``documents`` is text processing (plain-string outputs); ``ledger`` reads CSV sheets into a
structured output (fields ``columns``, ``rows``, ``csv``) that the other tools take whole or by
field, so a plan has to pick the right field and feed numbers into a text argument.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from forethought import ToolContext, tool
from forethought.errors import ToolError
from forethought.tools.python import PythonTool

R = TypeVar("R", bound=BaseModel)


ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def iso_day(value: str) -> str:
    """``value`` stripped when it is a YYYY-MM-DD date; else a ``ToolError`` saying the form."""
    if not ISO_DATE.fullmatch(value.strip()):
        raise ToolError(f"dates are written YYYY-MM-DD, got {value!r}", retryable=False)
    return value.strip()


def _inside(ctx: ToolContext, name: str) -> Path:
    root = (ctx.workspace or Path.cwd()).resolve()
    target = (root / name).resolve()
    if root != target and root not in target.parents:
        raise ToolError(f"{name!r} is outside the workspace", retryable=False)
    return target


def read_text(ctx: ToolContext, name: str, what: str) -> str:
    """The text of workspace file ``name``; a ``ToolError`` naming ``what`` when there is none."""
    target = _inside(ctx, name)
    if not target.is_file():
        raise ToolError(f"no such {what}: {name}", retryable=False)
    return target.read_text(encoding="utf-8")


def read_records(ctx: ToolContext, name: str, what: str, record: type[R], noun: str) -> list[R]:
    """The records of a JSON file holding a list of ``record`` objects (``what``: the file's
    kind, ``noun``: one record's, for the errors)."""
    text = read_text(ctx, name, what)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ToolError(f"{name} is not JSON: {exc}", retryable=False) from None
    if not isinstance(data, list):
        raise ToolError(f"{name} does not hold a list of {noun}s", retryable=False)
    try:
        return [record(**item) for item in data]
    except (TypeError, ValueError) as exc:
        raise ToolError(f"{name}: a record is not a {noun}: {exc}", retryable=False) from None


def read_lines(ctx: ToolContext, name: str, what: str) -> list[str]:
    """The non-blank lines of a text file, stripped."""
    return [line.strip() for line in read_text(ctx, name, what).splitlines() if line.strip()]


def same_text(a: str, b: str) -> bool:
    """Equal but for case and surrounding blanks (how the suites' filters compare names)."""
    return a.strip().lower() == b.strip().lower()


def _existing(ctx: ToolContext, name: str) -> Path:
    target = _inside(ctx, name)
    if not target.is_file():
        raise ToolError(f"no such document: {name}", retryable=False)
    return target


# ------------------------------------------------------------------------- tool set: documents


@tool
def load_document(ctx: ToolContext, filename: str) -> str:
    """Return the text stored in a document of the workspace."""
    return _existing(ctx, filename).read_text(encoding="utf-8")


@tool(effect="mutating", idempotent=True)
def store_document(ctx: ToolContext, filename: str, body: str) -> str:
    """Save text as a document in the workspace, replacing it if it exists."""
    _inside(ctx, filename).write_text(body, encoding="utf-8")
    return filename


@tool
def tally_words(passage: str) -> int:
    """Number of words in a passage."""
    return len(passage.split())


@tool
def shout(passage: str) -> str:
    """Return the passage in capital letters (upper case)."""
    return passage.upper()


@tool
def sort_lines(passage: str) -> str:
    """Sort the lines of a passage alphabetically."""
    return "\n".join(sorted(passage.splitlines())) + "\n"


@tool
def unique_lines(passage: str) -> str:
    """Remove repeated (duplicate) lines from a passage, keeping the first of each."""
    return "\n".join(dict.fromkeys(passage.splitlines())) + "\n"


@tool
def first_lines(passage: str, n: int) -> str:
    """The first n lines of a passage."""
    return "\n".join(passage.splitlines()[:n]) + "\n"


@tool
def lines_containing(passage: str, needle: str) -> str:
    """Keep only the lines of a passage that contain a search term."""
    return "\n".join(line for line in passage.splitlines() if needle in line) + "\n"


@tool
def concatenate(first: str, second: str) -> str:
    """Join two passages into one, the second after the first."""
    return first + second


DOCUMENT_TOOLS: list[PythonTool] = [
    load_document,
    store_document,
    tally_words,
    shout,
    sort_lines,
    unique_lines,
    first_lines,
    lines_containing,
    concatenate,
]

# --------------------------------------------------------------------------- tool set: ledger


class Sheet(BaseModel):
    columns: list[str]
    rows: list[list[str]]
    csv: str


def _column(sheet: Sheet, column: str) -> list[str]:
    if column not in sheet.columns:
        raise ToolError(f"no column {column!r}; the sheet has {sheet.columns}", retryable=False)
    i = sheet.columns.index(column)
    return [row[i] for row in sheet.rows]


def _numbers(sheet: Sheet, column: str) -> list[float]:
    try:
        return [float(v) for v in _column(sheet, column)]
    except ValueError as exc:
        raise ToolError(f"column {column!r} is not numeric: {exc}", retryable=False) from None


@tool
def open_sheet(ctx: ToolContext, sheet_path: str) -> Sheet:
    """Load a CSV spreadsheet: its column names, its data rows and its raw csv text."""
    text = _existing(ctx, sheet_path).read_text(encoding="utf-8")
    table = list(csv.reader(io.StringIO(text)))
    return Sheet(columns=table[0] if table else [], rows=table[1:], csv=text)


@tool
def row_total(sheet: Sheet) -> int:
    """How many data rows a sheet has."""
    return len(sheet.rows)


@tool
def column_sum(sheet: Sheet, column: str) -> float:
    """Add up the numbers in one column of a sheet (the total)."""
    return sum(_numbers(sheet, column))


@tool
def column_mean(sheet: Sheet, column: str) -> float:
    """The average (mean) of the numbers in one column of a sheet."""
    values = _numbers(sheet, column)
    return sum(values) / len(values) if values else 0.0


@tool
def column_max(sheet: Sheet, column: str) -> float:
    """The largest (highest, maximum) number in one column of a sheet."""
    return max(_numbers(sheet, column))


@tool
def pick_column(sheet: Sheet, column: str) -> list[str]:
    """The values of one column of a sheet, top to bottom."""
    return _column(sheet, column)


@tool
def bullet_list(items: list[str]) -> str:
    """Format items as a markdown bullet list, one per line."""
    return "".join(f"- {item}\n" for item in items)


@tool(effect="mutating", idempotent=True)
def publish_report(ctx: ToolContext, target_file: str, report_text: str) -> str:
    """Write a report text to a file in the workspace (created or replaced)."""
    _inside(ctx, target_file).write_text(report_text, encoding="utf-8")
    return target_file


LEDGER_TOOLS: list[PythonTool] = [
    open_sheet,
    row_total,
    column_sum,
    column_mean,
    column_max,
    pick_column,
    bullet_list,
    publish_report,
]

# ------------------------------------------------------------------------------- the goals

POEM = "roses are red\nviolets are blue\nsugar is sweet\nand so are you\n"
GUESTS = "zoe\nadam\nmia\nadam\nben\nzoe\n"
SERVER_LOG = "INFO start\nERROR disk full\nWARN slow reply\nINFO retry\nERROR timeout\n"
INTRO = "Welcome to the guide.\n"
OUTRO = "Thanks for reading this far.\n"
SALES = "region,amount\nnorth,12.5\nsouth,20\neast,31\n"
STOCK = "item,price,qty\nbolt,0.25,400\nnut,0.1,900\ngear,7.5,30\n"

DOCUMENT_FILES = {
    "poem.txt": POEM,
    "guests.txt": GUESTS,
    "server.log": SERVER_LOG,
    "intro.md": INTRO,
    "outro.md": OUTRO,
}
LEDGER_FILES = {"sales.csv": SALES, "stock.csv": STOCK}

Check = Callable[[Path], bool]


def _text(ws: Path, name: str) -> str | None:
    path = ws / name
    return path.read_text(encoding="utf-8") if path.is_file() else None


def file_is(name: str, content: str) -> Check:
    return lambda ws: _text(ws, name) == content


def file_lines(name: str, lines: list[str]) -> Check:
    """The file holds exactly these lines (a trailing newline or not)."""
    return lambda ws: (t := _text(ws, name)) is not None and t.splitlines() == lines


def file_number(name: str, value: float) -> Check:
    def check(ws: Path) -> bool:
        text = _text(ws, name)
        try:
            return text is not None and abs(float(text.strip()) - value) < 1e-9
        except ValueError:
            return False

    return check


def file_mentions_all(name: str, words: list[str]) -> Check:
    return lambda ws: (t := _text(ws, name)) is not None and all(w in t for w in words)


# A reference plan's step, as ``heldoutN_reference.py`` writes it: ``(tool, args)``; the i-th call
# becomes step ``s{i}``. ``${sN}`` takes step N's whole output, ``${sN.field}`` one field of it. A
# number goes into a text argument inside a longer string (``${s2}`` followed by a newline), which
# interpolates it as text: a whole-value ``${s2}`` keeps its type, and a number does not fit a
# string parameter. Reference plans show each goal is achievable; they are not the only right plans.
Call = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class Goal:
    text: str
    check: Check


@dataclass(frozen=True)
class ToolSet:
    name: str
    tools: list[PythonTool]
    files: dict[str, str]
    goals: list[Goal]


def _sorted(text: str) -> list[str]:
    return sorted(text.splitlines())


def _unique(text: str) -> list[str]:
    return list(dict.fromkeys(text.splitlines()))


def _col(text: str, name: str) -> list[str]:
    table = list(csv.reader(io.StringIO(text)))
    i = table[0].index(name)
    return [row[i] for row in table[1:]]


def _nums(text: str, name: str) -> list[float]:
    return [float(v) for v in _col(text, name)]


DOCUMENTS = ToolSet(
    "documents",
    DOCUMENT_TOOLS,
    DOCUMENT_FILES,
    [
        Goal(
            "Count the words in poem.txt and write the number to poem_count.txt",
            file_number("poem_count.txt", len(POEM.split())),
        ),
        Goal("Save poem.txt in capital letters as loud.txt", file_is("loud.txt", POEM.upper())),
        Goal(
            "Sort the lines of guests.txt and save the result to sorted_guests.txt",
            file_lines("sorted_guests.txt", _sorted(GUESTS)),
        ),
        Goal(
            "Remove duplicate lines from guests.txt and store them in unique_guests.txt",
            file_lines("unique_guests.txt", _unique(GUESTS)),
        ),
        Goal("Copy intro.md to intro_copy.md", file_is("intro_copy.md", INTRO)),
        Goal(
            "Write the first 2 lines of poem.txt to opening.txt",
            file_lines("opening.txt", POEM.splitlines()[:2]),
        ),
        Goal(
            'Keep only the lines of server.log that contain "ERROR" and save them to errors.txt',
            file_lines("errors.txt", [ln for ln in SERVER_LOG.splitlines() if "ERROR" in ln]),
        ),
        Goal("Join intro.md and outro.md into full.md", file_is("full.md", INTRO + OUTRO)),
        Goal('Create notes.md with the text "meeting at noon"', file_is("notes.md", "meeting at noon")),
        Goal(
            "Convert intro.md to upper case and write it to intro_upper.md",
            file_is("intro_upper.md", INTRO.upper()),
        ),
        Goal("Sort guests.txt alphabetically into roster.txt", file_lines("roster.txt", _sorted(GUESTS))),
        Goal(
            "How many words does outro.md have? Save the answer in outro_words.txt",
            file_number("outro_words.txt", len(OUTRO.split())),
        ),
        Goal(
            'Write the lines of server.log containing "WARN" to warnings.txt',
            file_lines("warnings.txt", [ln for ln in SERVER_LOG.splitlines() if "WARN" in ln]),
        ),
        Goal(
            "Put the first 3 lines of guests.txt in head.txt", file_lines("head.txt", GUESTS.splitlines()[:3])
        ),
        Goal('Store "draft one" in draft.txt', file_is("draft.txt", "draft one")),
        Goal("Uppercase outro.md and save it as shouted.md", file_is("shouted.md", OUTRO.upper())),
    ],
)

LEDGER = ToolSet(
    "ledger",
    LEDGER_TOOLS,
    LEDGER_FILES,
    [
        Goal(
            "Add up the amount column of sales.csv and write the total to total.txt",
            file_number("total.txt", sum(_nums(SALES, "amount"))),
        ),
        Goal(
            "Count the rows in sales.csv and save the count to rows.txt",
            file_number("rows.txt", len(_col(SALES, "amount"))),
        ),
        Goal(
            "What is the average price in stock.csv? Write it to avg_price.txt",
            file_number("avg_price.txt", sum(_nums(STOCK, "price")) / 3),
        ),
        Goal(
            "Find the largest amount in sales.csv and put it in max.txt",
            file_number("max.txt", max(_nums(SALES, "amount"))),
        ),
        Goal(
            "List the column names of stock.csv in columns.txt",
            file_mentions_all("columns.txt", ["item", "price", "qty"]),
        ),
        Goal(
            "Write the region column of sales.csv as a bullet list to regions.md",
            file_is("regions.md", "".join(f"- {r}\n" for r in _col(SALES, "region"))),
        ),
        Goal(
            "Sum the qty column of stock.csv and save it to qty_total.txt",
            file_number("qty_total.txt", sum(_nums(STOCK, "qty"))),
        ),
        Goal("Copy sales.csv to sales_backup.csv", file_is("sales_backup.csv", SALES)),
        Goal('Write "quarterly numbers" to title.txt', file_is("title.txt", "quarterly numbers")),
        Goal(
            "Compute the mean amount of sales.csv and store the result in mean.txt",
            file_number("mean.txt", sum(_nums(SALES, "amount")) / 3),
        ),
        Goal(
            "How many rows does stock.csv have? Save the number to stock_rows.txt",
            file_number("stock_rows.txt", 3),
        ),
        Goal(
            "Make a bullet list of the item column of stock.csv and save it as items.md",
            file_is("items.md", "".join(f"- {r}\n" for r in _col(STOCK, "item"))),
        ),
        Goal(
            "Get the highest price in stock.csv and write it to top_price.txt",
            file_number("top_price.txt", max(_nums(STOCK, "price"))),
        ),
        Goal(
            "Total the amount column in sales.csv, then write the total to sum.txt",
            file_number("sum.txt", sum(_nums(SALES, "amount"))),
        ),
        Goal(
            "Put the average qty of stock.csv into qty_avg.txt",
            file_number("qty_avg.txt", sum(_nums(STOCK, "qty")) / 3),
        ),
        Goal(
            "Export the item column of stock.csv to item_names.txt",
            file_mentions_all("item_names.txt", _col(STOCK, "item")),
        ),
    ],
)

HELD_OUT = [DOCUMENTS, LEDGER]


def describe() -> dict[str, Any]:
    """A summary of the suite for the report (tool names and goal counts)."""
    return {s.name: {"tools": [t.spec.name for t in s.tools], "goals": len(s.goals)} for s in HELD_OUT}


if __name__ == "__main__":
    print(json.dumps(describe(), indent=2))
