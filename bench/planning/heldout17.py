"""A seventeenth held-out planning suite: 32 goals over two tool sets the planner has never seen.

Written blind and committed before the planner ever ran on it. Its author read only the suite
framework (``heldout.py``: its helpers and checks), the sixteenth suite (``heldout16.py``, its
reference plans and self-check), the three file checks of the eleventh and fifteenth suites that
the sixteenth imports (and that this one imports too), the shared self-check
(``heldout_selfcheck.py``), the runner (``heldout_run.py``), ``suites.py`` and
``replay_decided.py`` (only to register the suite). It did not read the planner (``planning/``),
any test, the planner's prompts, starter plans or memory, any other held-out suite's goals, or any
earlier result, log or report; it did not run the planner or a model on these goals. Its first run
is the held-out measurement; goals are not edited after it. Every goal asks for a named file;
every check reads the file the executed plan wrote, and accepts a trailing newline, a number as
``5``, ``5.0`` or followed by its unit (``5.1 m``, ``25.5 kg``), a time of day with or without
seconds, a name or a date in any letter case and listing lines in any order.

``tides`` is a harbour's tide table, one predicted high or low water per line (``2026-07-01
03:42  HW  4.9``: date, local time, HW or LW, height in metres above chart datum), read from a
``table_file`` into ``Tide`` records. Filters keep the high waters or the low waters (no
parameter), a date range (``first_day`` to ``last_day``, inclusive; goals write "on the third of
July 2026" or "from the first to the third of July 2026"), heights strictly above or below ``metres``
(goals write "higher than four and a half metres", "lower than a metre") and a time-of-day window
(``earliest`` to ``latest``, inclusive, HH:MM; goals write "in the morning (before noon)"); they
chain. Aggregates: the number of tides, their mean height, the tidal range (highest minus
lowest), the highest tide as one record whose field a plan has to take (``${sN.height_m}``,
``${sN.date}``, ``${sN.time}``) and tides as lines. August's table (``august_tides.txt``) makes
two-file goals. The writer is ``post_notice(notice_file, wording)``.
``apiary`` is a beekeeper's inspection book, one block of ``key: value`` lines per hive
inspection (hive, date, inspector, queen seen, brood frames, mites, honey kg), blocks separated by
blank lines, read from a ``book_path`` into ``Inspection`` records. Filters by hive (goals use the
hive's name, sometimes as a possessive: "Bramble's"), by inspector (full or first name), by a date
range (``since`` to ``until``, inclusive), by inspections where the queen was not seen (no
parameter) and by mite count (strictly more than ``threshold``) chain; the number of inspections,
the honey taken (kg), the mean mite count, the hives as a list, the inspection with the most brood
frames as one record (``${sN.hive}``, ``${sN.date}``, ``${sN.inspector}``) and inspections as
lines. A second apiary's book (``millbrook.txt``) makes two-file goals. The writer is
``write_memo(memo_file, memo_text)``.

Each goal's hand-written reference plan is in ``heldout17_reference.py``;
``heldout17_selfcheck.py`` runs them through the real ``Agent`` (no model) and checks the files,
which shows every goal is achievable with these tools and every check accepts a right answer (and,
with ``--broken``, that the checks reject four wrong ones).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from heldout import Check, Goal, ToolSet, _inside, _text, file_number, iso_day, read_text, same_text
from heldout11 import file_numbers_per_line as file_numbers_by_line
from heldout15 import file_quantity
from pydantic import BaseModel

from forethought import ToolContext, tool
from forethought.errors import ToolError
from forethought.tools.python import PythonTool

# ------------------------------------------------------------------------------- the checks


def file_says(name: str, value: str) -> Check:
    """The file holds ``value`` but for surrounding blanks and letter case (``Foxglove``,
    ``foxglove``; ``Ada Mensah``)."""
    return lambda ws: (t := _text(ws, name)) is not None and same_text(t, value)


def file_time_of_day(name: str, clock: str) -> Check:
    """The file holds the time of day ``clock`` (HH:MM), with or without ``:00`` seconds."""

    def check(ws: Path) -> bool:
        text = _text(ws, name)
        return text is not None and text.strip() in (clock, clock + ":00")

    return check


def file_listing(name: str, lines: list[str]) -> Check:
    """The file's non-blank lines, stripped, are ``lines`` in any order and any letter case (a
    list the goal did not ask to be sorted)."""

    def check(ws: Path) -> bool:
        text = _text(ws, name)
        if text is None:
            return False
        got = sorted(ln.strip().lower() for ln in text.splitlines() if ln.strip())
        return got == sorted(ln.lower() for ln in lines)

    return check


# ---------------------------------------------------------------------------- tool set: tides


class Tide(BaseModel):
    date: str
    time: str
    tide: str  # "high" or "low"
    height_m: float


TIDE_KINDS = {"HW": "high", "LW": "low"}
CLOCK = re.compile(r"([01]\d|2[0-3]):[0-5]\d")


def time_of_day(value: str) -> str:
    """``value`` stripped when it is a 24-hour HH:MM time; else a ``ToolError`` saying the form."""
    if not CLOCK.fullmatch(value.strip()):
        raise ToolError(f"times of day are written HH:MM (24-hour clock), got {value!r}", retryable=False)
    return value.strip()


def _tide(table_file: str, number: int, line: str) -> Tide:
    fields = line.split()
    if len(fields) != 4 or fields[2].upper() not in TIDE_KINDS or not CLOCK.fullmatch(fields[1]):
        raise ToolError(
            f"{table_file}:{number}: expected 'YYYY-MM-DD HH:MM HW|LW height', got {line!r}",
            retryable=False,
        )
    try:
        height = float(fields[3])
    except ValueError:
        raise ToolError(f"{table_file}:{number}: height is not a number: {line!r}", retryable=False) from None
    return Tide(date=iso_day(fields[0]), time=fields[1], tide=TIDE_KINDS[fields[2].upper()], height_m=height)


@tool
def read_tide_table(ctx: ToolContext, table_file: str) -> list[Tide]:
    """Read a tide table: one predicted tide per line with the date (YYYY-MM-DD), the local time
    (HH:MM), HW for high water or LW for low water, and the height in metres above chart datum,
    e.g. 2026-07-01  03:42  HW  4.9. Lines starting with # are comments."""
    tides = []
    for number, raw in enumerate(read_text(ctx, table_file, "tide table").splitlines(), start=1):
        line = raw.strip()
        if line and not line.startswith("#"):
            tides.append(_tide(table_file, number, line))
    return tides


@tool
def high_waters(tides: list[Tide]) -> list[Tide]:
    """Keep only the high tides (high water, HW)."""
    return [t for t in tides if t.tide == "high"]


@tool
def low_waters(tides: list[Tide]) -> list[Tide]:
    """Keep only the low tides (low water, LW)."""
    return [t for t in tides if t.tide == "low"]


@tool
def on_dates(tides: list[Tide], first_day: str, last_day: str) -> list[Tide]:
    """Keep the tides dated from first_day to last_day, both included (YYYY-MM-DD); give the same
    day twice for a single day."""
    first, last = iso_day(first_day), iso_day(last_day)
    return [t for t in tides if first <= t.date <= last]


@tool
def higher_than(tides: list[Tide], metres: float) -> list[Tide]:
    """Keep the tides whose height is more than the given number of metres."""
    return [t for t in tides if t.height_m > metres]


@tool
def lower_than(tides: list[Tide], metres: float) -> list[Tide]:
    """Keep the tides whose height is less than the given number of metres."""
    return [t for t in tides if t.height_m < metres]


@tool
def between_times(tides: list[Tide], earliest: str, latest: str) -> list[Tide]:
    """Keep the tides whose time of day is from earliest to latest, both included (HH:MM, 24-hour
    clock, local time), on any date."""
    start, end = time_of_day(earliest), time_of_day(latest)
    return [t for t in tides if start <= t.time <= end]


@tool
def count_tides(tides: list[Tide]) -> int:
    """How many tides there are."""
    return len(tides)


@tool
def average_height(tides: list[Tide]) -> float:
    """Mean height of the tides in metres, rounded to two decimals."""
    if not tides:
        raise ToolError("no tides given", retryable=False)
    return round(sum(t.height_m for t in tides) / len(tides), 2)


@tool
def tidal_range(tides: list[Tide]) -> float:
    """The difference in metres between the highest and the lowest of the tides, rounded to two
    decimals."""
    if not tides:
        raise ToolError("no tides given", retryable=False)
    heights = [t.height_m for t in tides]
    return round(max(heights) - min(heights), 2)


@tool
def highest_tide(tides: list[Tide]) -> Tide:
    """The single tide that reaches highest, with all its fields (date, time, tide, height_m)."""
    if not tides:
        raise ToolError("no tides given", retryable=False)
    return max(tides, key=lambda t: t.height_m)


def tide_line(date: str, time: str, tide: str, height_m: float) -> str:
    """One tide as a line (the tool's text and the checks' expectation)."""
    return f"{date} {time} {tide} water {height_m:.1f} m"


@tool
def tide_lines(tides: list[Tide]) -> str:
    """Tides as plain text, one line each: date, time, high or low water and height."""
    return "".join(tide_line(t.date, t.time, t.tide, t.height_m) + "\n" for t in tides)


@tool(effect="mutating", idempotent=True)
def post_notice(ctx: ToolContext, notice_file: str, wording: str) -> str:
    """Post a harbour notice: write the wording to notice_file in the harbour office folder,
    replacing an older notice of that name."""
    _inside(ctx, notice_file).write_text(wording, encoding="utf-8")
    return notice_file


TIDES_TOOLS: list[PythonTool] = [
    read_tide_table,
    high_waters,
    low_waters,
    on_dates,
    higher_than,
    lower_than,
    between_times,
    count_tides,
    average_height,
    tidal_range,
    highest_tide,
    tide_lines,
    post_notice,
]

# --------------------------------------------------------------------------- tool set: apiary


class Inspection(BaseModel):
    hive: str
    date: str
    inspector: str
    queen_seen: bool
    brood_frames: int
    mites: int
    honey_kg: float


BOOK_KEYS = ("hive", "date", "inspector", "queen seen", "brood frames", "mites", "honey kg")


def _inspection(book_path: str, number: int, block: dict[str, str]) -> Inspection:
    missing = [key for key in BOOK_KEYS if not block.get(key)]
    if missing:
        raise ToolError(
            f"{book_path}: inspection ending at line {number} lacks {', '.join(missing)}", retryable=False
        )
    if block["queen seen"].lower() not in ("yes", "no"):
        raise ToolError(f"{book_path}:{number}: 'queen seen' must be yes or no", retryable=False)
    try:
        return Inspection(
            hive=block["hive"],
            date=iso_day(block["date"]),
            inspector=block["inspector"],
            queen_seen=block["queen seen"].lower() == "yes",
            brood_frames=int(block["brood frames"]),
            mites=int(block["mites"]),
            honey_kg=float(block["honey kg"]),
        )
    except ValueError:
        raise ToolError(
            f"{book_path}:{number}: brood frames and mites must be whole numbers, honey kg a number",
            retryable=False,
        ) from None


@tool
def read_inspection_book(ctx: ToolContext, book_path: str) -> list[Inspection]:
    """Read a beekeeping inspection book: one block of 'key: value' lines per hive inspection
    (hive, date as YYYY-MM-DD, inspector, queen seen: yes/no, brood frames, mites = varroa mites
    counted, honey kg = honey taken off), blocks separated by blank lines. Lines starting with #
    are comments."""
    inspections: list[Inspection] = []
    block: dict[str, str] = {}
    lines = read_text(ctx, book_path, "inspection book").splitlines()
    for number, raw in enumerate([*lines, ""], start=1):
        line = raw.strip()
        if line.startswith("#"):
            continue
        if not line:
            if block:
                inspections.append(_inspection(book_path, number - 1, block))
                block = {}
            continue
        key, colon, value = line.partition(":")
        if not colon:
            raise ToolError(f"{book_path}:{number}: expected 'key: value', got {line!r}", retryable=False)
        block[key.strip().lower()] = value.strip()
    return inspections


@tool
def for_hive(inspections: list[Inspection], hive: str) -> list[Inspection]:
    """Keep the inspections of one hive, given by its name (e.g. Bramble)."""
    return [i for i in inspections if same_text(i.hive, hive)]


@tool
def inspected_by(inspections: list[Inspection], beekeeper: str) -> list[Inspection]:
    """Keep the inspections done by one beekeeper, given by full name or first name."""
    return [
        i
        for i in inspections
        if same_text(i.inspector, beekeeper) or same_text(i.inspector.split()[0], beekeeper)
    ]


@tool
def inspected_between(inspections: list[Inspection], since: str, until: str) -> list[Inspection]:
    """Keep the inspections dated from since to until, both days included (YYYY-MM-DD)."""
    first, last = iso_day(since), iso_day(until)
    return [i for i in inspections if first <= i.date <= last]


@tool
def queen_missing(inspections: list[Inspection]) -> list[Inspection]:
    """Keep the inspections at which the queen was not seen."""
    return [i for i in inspections if not i.queen_seen]


@tool
def mites_above(inspections: list[Inspection], threshold: int) -> list[Inspection]:
    """Keep the inspections that counted more varroa mites than threshold."""
    return [i for i in inspections if i.mites > threshold]


@tool
def inspection_count(inspections: list[Inspection]) -> int:
    """How many inspections there are."""
    return len(inspections)


@tool
def honey_total(inspections: list[Inspection]) -> float:
    """Kilograms of honey taken off at the inspections, added up (rounded to one decimal)."""
    return round(sum(i.honey_kg for i in inspections), 1)


@tool
def mean_mites(inspections: list[Inspection]) -> float:
    """Average number of varroa mites counted per inspection, rounded to one decimal."""
    if not inspections:
        raise ToolError("no inspections given", retryable=False)
    return round(sum(i.mites for i in inspections) / len(inspections), 1)


@tool
def hives_seen(inspections: list[Inspection]) -> str:
    """The names of the different hives among the inspections, one per line, alphabetical."""
    return "".join(name + "\n" for name in sorted({i.hive for i in inspections}))


@tool
def strongest_colony(inspections: list[Inspection]) -> Inspection:
    """The inspection that found the most brood frames, with all its details (hive, date,
    inspector, queen_seen, brood_frames, mites, honey_kg)."""
    if not inspections:
        raise ToolError("no inspections given", retryable=False)
    return max(inspections, key=lambda i: i.brood_frames)


def inspection_line(
    hive: str, date: str, inspector: str, queen_seen: bool, brood_frames: int, mites: int, honey_kg: float
) -> str:
    """One inspection as a line (the tool's text and the checks' expectation)."""
    queen = "queen seen" if queen_seen else "queen not seen"
    return (
        f"{date} {hive}: {queen}, {brood_frames} brood frames, {mites} mites, {honey_kg:.1f} kg ({inspector})"
    )


@tool
def inspection_lines(inspections: list[Inspection]) -> str:
    """Inspections as plain text, one line each: date, hive, queen, brood, mites, honey and who
    inspected."""
    return "".join(
        inspection_line(i.hive, i.date, i.inspector, i.queen_seen, i.brood_frames, i.mites, i.honey_kg) + "\n"
        for i in inspections
    )


@tool(effect="mutating", idempotent=True)
def write_memo(ctx: ToolContext, memo_file: str, memo_text: str) -> str:
    """Write a memo for the apiary: memo_text goes into memo_file (an existing memo of that name
    is replaced)."""
    _inside(ctx, memo_file).write_text(memo_text, encoding="utf-8")
    return memo_file


APIARY_TOOLS: list[PythonTool] = [
    read_inspection_book,
    for_hive,
    inspected_by,
    inspected_between,
    queen_missing,
    mites_above,
    inspection_count,
    honey_total,
    mean_mites,
    hives_seen,
    strongest_colony,
    inspection_lines,
    write_memo,
]

# ------------------------------------------------------------------------------- the goals

# date, time, HW or LW, height in metres
TideRow = tuple[str, str, str, float]

JULY: list[TideRow] = [
    ("2026-07-01", "03:42", "HW", 4.9),
    ("2026-07-01", "09:57", "LW", 0.7),
    ("2026-07-01", "16:07", "HW", 5.1),
    ("2026-07-01", "22:17", "LW", 0.6),
    ("2026-07-02", "04:32", "HW", 5.0),
    ("2026-07-02", "10:42", "LW", 0.8),
    ("2026-07-02", "16:52", "HW", 4.8),
    ("2026-07-02", "23:07", "LW", 0.7),
    ("2026-07-03", "05:17", "HW", 4.9),
    ("2026-07-03", "11:27", "LW", 0.8),
    ("2026-07-03", "17:42", "HW", 4.7),
    ("2026-07-03", "23:52", "LW", 0.8),
    ("2026-07-04", "06:02", "HW", 4.8),
    ("2026-07-04", "12:17", "LW", 0.9),
    ("2026-07-04", "18:27", "HW", 4.5),
    ("2026-07-05", "00:37", "LW", 1.0),
    ("2026-07-05", "06:52", "HW", 4.6),
    ("2026-07-05", "13:02", "LW", 1.0),
    ("2026-07-05", "19:12", "HW", 4.3),
    ("2026-07-06", "01:27", "LW", 1.2),
    ("2026-07-06", "07:37", "HW", 4.4),
    ("2026-07-06", "13:47", "LW", 1.1),
    ("2026-07-06", "20:02", "HW", 4.2),
]
AUGUST: list[TideRow] = [
    ("2026-08-01", "05:08", "HW", 4.6),
    ("2026-08-01", "11:23", "LW", 1.1),
    ("2026-08-01", "17:33", "HW", 4.8),
    ("2026-08-01", "23:43", "LW", 0.9),
    ("2026-08-02", "05:58", "HW", 4.7),
    ("2026-08-02", "12:08", "LW", 1.0),
    ("2026-08-02", "18:18", "HW", 4.9),
    ("2026-08-03", "00:33", "LW", 0.8),
    ("2026-08-03", "06:43", "HW", 4.8),
    ("2026-08-03", "12:53", "LW", 0.9),
    ("2026-08-03", "19:08", "HW", 5.2),
    ("2026-08-04", "01:18", "LW", 0.7),
    ("2026-08-04", "07:28", "HW", 5.0),
    ("2026-08-04", "13:43", "LW", 0.8),
    ("2026-08-04", "19:53", "HW", 5.1),
]


def _tide_table(month: str, rows: list[TideRow]) -> str:
    head = f"# Port Carrow - tide predictions, {month}\n"
    head += "# times are local (BST); heights in metres above chart datum\n"
    head += "# date       time   tide  height\n"
    return head + "".join(f"{date}  {time}  {kind}    {height:.1f}\n" for date, time, kind, height in rows)


TIDES_FILES = {
    "july_tides.txt": _tide_table("July 2026", JULY),
    "august_tides.txt": _tide_table("August 2026", AUGUST),
}


def _tides(keep: Callable[[TideRow], bool], rows: list[TideRow] = JULY) -> list[TideRow]:
    return [t for t in rows if keep(t)]


def _high(t: TideRow) -> bool:
    return t[2] == "HW"


def _low(t: TideRow) -> bool:
    return t[2] == "LW"


def _mean_height(rows: list[TideRow]) -> float:
    return round(sum(t[3] for t in rows) / len(rows), 2)


def _highest(rows: list[TideRow]) -> TideRow:
    return max(rows, key=lambda t: t[3])


def _tide_report(rows: list[TideRow]) -> list[str]:
    return [tide_line(d, tm, TIDE_KINDS[k], h) for d, tm, k, h in rows]


# hive, date, inspector, queen seen, brood frames, mites, honey kg
InspectionRow = tuple[str, str, str, bool, int, int, float]

PRIYA, TOM, ADA = "Priya Shah", "Tom Reilly", "Ada Mensah"
ASHCOMBE: list[InspectionRow] = [
    ("Bramble", "2026-05-03", PRIYA, True, 6, 4, 0.0),
    ("Clover", "2026-05-03", PRIYA, True, 5, 2, 0.0),
    ("Heather", "2026-05-03", TOM, False, 4, 9, 0.0),
    ("Foxglove", "2026-05-03", TOM, True, 7, 3, 0.0),
    ("Bramble", "2026-05-10", ADA, True, 7, 6, 2.5),
    ("Clover", "2026-05-10", ADA, True, 6, 3, 0.0),
    ("Heather", "2026-05-10", TOM, True, 4, 12, 0.0),
    ("Foxglove", "2026-05-10", PRIYA, True, 8, 5, 3.0),
    ("Bramble", "2026-05-17", PRIYA, False, 7, 8, 0.0),
    ("Clover", "2026-05-17", TOM, True, 8, 4, 2.0),
    ("Heather", "2026-05-17", TOM, False, 3, 15, 0.0),
    ("Foxglove", "2026-05-17", ADA, True, 9, 6, 4.5),
    ("Bramble", "2026-05-24", PRIYA, True, 8, 7, 3.5),
    ("Clover", "2026-05-24", ADA, True, 7, 5, 0.0),
    ("Heather", "2026-05-24", PRIYA, True, 5, 11, 1.0),
    ("Foxglove", "2026-05-24", TOM, True, 10, 4, 0.0),
    ("Bramble", "2026-05-31", ADA, True, 9, 11, 0.0),
    ("Clover", "2026-05-31", PRIYA, False, 6, 3, 4.0),
    ("Heather", "2026-05-31", TOM, True, 5, 8, 0.0),
    ("Foxglove", "2026-05-31", PRIYA, True, 9, 7, 5.0),
]
MILLBROOK: list[InspectionRow] = [
    ("Orchard", "2026-05-06", ADA, True, 6, 5, 0.0),
    ("Willow", "2026-05-06", ADA, True, 8, 2, 2.0),
    ("Sorrel", "2026-05-06", TOM, False, 3, 7, 0.0),
    ("Orchard", "2026-05-20", TOM, True, 7, 6, 3.0),
    ("Willow", "2026-05-20", ADA, True, 9, 4, 4.5),
    ("Sorrel", "2026-05-20", TOM, True, 4, 10, 0.0),
]


def _inspection_book(apiary: str, rows: list[InspectionRow]) -> str:
    head = f"# {apiary} apiary - inspection book, May 2026\n"
    head += "# mites: varroa mites counted on the board; honey kg: honey taken off that day\n"
    return head + "".join(
        f"\nhive: {hive}\ndate: {date}\ninspector: {who}\nqueen seen: {'yes' if queen else 'no'}\n"
        f"brood frames: {brood}\nmites: {mites}\nhoney kg: {honey:.1f}\n"
        for hive, date, who, queen, brood, mites, honey in rows
    )


APIARY_FILES = {
    "ashcombe.txt": _inspection_book("Ashcombe Lane", ASHCOMBE),
    "millbrook.txt": _inspection_book("Millbrook Farm", MILLBROOK),
}


def _inspections(
    keep: Callable[[InspectionRow], bool], rows: list[InspectionRow] = ASHCOMBE
) -> list[InspectionRow]:
    return [i for i in rows if keep(i)]


def _hive(name: str) -> Callable[[InspectionRow], bool]:
    return lambda i: i[0] == name


def _honey(rows: list[InspectionRow]) -> float:
    return round(sum(i[6] for i in rows), 1)


def _mites(rows: list[InspectionRow]) -> float:
    return round(sum(i[5] for i in rows) / len(rows), 1)


def _strongest(rows: list[InspectionRow]) -> InspectionRow:
    return max(rows, key=lambda i: i[4])


def _book_lines(rows: list[InspectionRow]) -> list[str]:
    return [inspection_line(*i) for i in rows]


METRES = ("metres", "meters", "m")
KILOS = ("kilograms", "kilos", "kg")

TIDES_SET = ToolSet(
    "tides",
    TIDES_TOOLS,
    TIDES_FILES,
    [
        Goal(
            "How many high waters does july_tides.txt list? Write the number to high_waters.txt",
            file_number("high_waters.txt", len(_tides(_high))),
        ),
        Goal(
            "What is the height of the highest tide in july_tides.txt? Save it to july_peak.txt",
            file_quantity("july_peak.txt", _highest(JULY)[3], METRES),
        ),
        Goal(
            "On which day does the highest tide in july_tides.txt fall? Write the date to peak_day.txt",
            file_says("peak_day.txt", _highest(JULY)[0]),
        ),
        Goal(
            "At what time is the highest tide on the third of July 2026? Check july_tides.txt and put the "
            "time in third_peak_time.txt",
            file_time_of_day("third_peak_time.txt", _highest(_tides(lambda t: t[0] == "2026-07-03"))[1]),
        ),
        Goal(
            "Work out the average height of the low waters in july_tides.txt and write it to low_mean.txt",
            file_quantity("low_mean.txt", _mean_height(_tides(_low)), METRES),
        ),
        Goal(
            "Which tides in july_tides.txt are higher than four and a half metres? List them in "
            "big_tides.txt",
            file_listing("big_tides.txt", _tide_report(_tides(lambda t: t[3] > 4.5))),
        ),
        Goal(
            "How many tides are there from the first to the third of July 2026? Count them in july_tides.txt "
            "and save the count as first_days.txt",
            file_number("first_days.txt", len(_tides(lambda t: "2026-07-01" <= t[0] <= "2026-07-03"))),
        ),
        Goal(
            "What is the tidal range in july_tides.txt, the difference between its highest and lowest "
            "water? Write it to july_range.txt",
            file_quantity(
                "july_range.txt", round(max(t[3] for t in JULY) - min(t[3] for t in JULY), 2), METRES
            ),
        ),
        Goal(
            "Write the morning high waters (before noon) from july_tides.txt to morning_highs.txt",
            file_listing("morning_highs.txt", _tide_report(_tides(lambda t: _high(t) and t[1] < "12:00"))),
        ),
        Goal(
            "Put the heights of July's and August's highest tides in peaks.txt, one per line, July "
            "first (july_tides.txt and august_tides.txt)",
            file_numbers_by_line("peaks.txt", [_highest(JULY)[3], _highest(AUGUST)[3]]),
        ),
        Goal(
            'Post a notice named slipway.txt saying "Slipway closed two hours either side of low water"',
            file_says("slipway.txt", "Slipway closed two hours either side of low water"),
        ),
        Goal(
            "How many low tides in august_tides.txt are lower than a metre? Write the count to "
            "shallow_august.txt",
            file_number("shallow_august.txt", len(_tides(lambda t: _low(t) and t[3] < 1.0, AUGUST))),
        ),
        Goal(
            "What's the mean height of high water in august_tides.txt? mean_high_august.txt should hold it",
            file_quantity("mean_high_august.txt", _mean_height(_tides(_high, AUGUST)), METRES),
        ),
        Goal(
            "List the tides on the 4th of July 2026 from july_tides.txt in july_fourth.txt",
            file_listing("july_fourth.txt", _tide_report(_tides(lambda t: t[0] == "2026-07-04"))),
        ),
        Goal(
            "How high is the highest tide between the 2nd and the 4th of July 2026 (july_tides.txt)? Write "
            "it to midweek_peak.txt",
            file_quantity(
                "midweek_peak.txt",
                _highest(_tides(lambda t: "2026-07-02" <= t[0] <= "2026-07-04"))[3],
                METRES,
            ),
        ),
        Goal(
            "Find the high tides in august_tides.txt that go above five metres, then write how many "
            "there are to august_over_five.txt",
            file_number("august_over_five.txt", len(_tides(lambda t: _high(t) and t[3] > 5.0, AUGUST))),
        ),
    ],
)

APIARY_SET = ToolSet(
    "apiary",
    APIARY_TOOLS,
    APIARY_FILES,
    [
        Goal(
            "How many inspections are recorded in ashcombe.txt? Write the number to inspections.txt",
            file_number("inspections.txt", len(ASHCOMBE)),
        ),
        Goal(
            "How much honey was taken off the hives in ashcombe.txt altogether? Save the kilos in "
            "honey_total.txt",
            file_quantity("honey_total.txt", _honey(ASHCOMBE), KILOS),
        ),
        Goal(
            "What was Bramble's average mite count in ashcombe.txt? Write it to bramble_mites.txt",
            file_quantity("bramble_mites.txt", _mites(_inspections(_hive("Bramble"))), ("mites",)),
        ),
        Goal(
            "Which inspections in ashcombe.txt did not find the queen? List them in queenless.txt",
            file_listing("queenless.txt", _book_lines(_inspections(lambda i: not i[3]))),
        ),
        Goal(
            "Which hive had the most brood frames at a single inspection in ashcombe.txt? Put its name "
            "in strongest.txt",
            file_says("strongest.txt", _strongest(ASHCOMBE)[0]),
        ),
        Goal(
            "How many inspections did Priya carry out in ashcombe.txt? Save the count to priya.txt",
            file_number("priya.txt", len(_inspections(lambda i: i[2] == PRIYA))),
        ),
        Goal(
            "Which hives in ashcombe.txt had more than ten mites at an inspection? List them in "
            "high_mites.txt",
            file_listing("high_mites.txt", sorted({i[0] for i in _inspections(lambda i: i[5] > 10)})),
        ),
        Goal(
            "How many kilograms of honey came off in ashcombe.txt between the 10th and the 24th of May "
            "2026? Write it to mid_may_honey.txt",
            file_quantity(
                "mid_may_honey.txt",
                _honey(_inspections(lambda i: "2026-05-10" <= i[1] <= "2026-05-24")),
                KILOS,
            ),
        ),
        Goal(
            "Foxglove's honey: add up what it gave in ashcombe.txt and write the total to foxglove_honey.txt",
            file_quantity("foxglove_honey.txt", _honey(_inspections(_hive("Foxglove"))), KILOS),
        ),
        Goal(
            "On what date did Clover have the most brood frames? Look in ashcombe.txt and save the date "
            "to clover_best.txt",
            file_says("clover_best.txt", _strongest(_inspections(_hive("Clover")))[1]),
        ),
        Goal(
            "Honey totals of ashcombe.txt and millbrook.txt, one per line in honey_by_apiary.txt, "
            "Ashcombe first",
            file_numbers_by_line("honey_by_apiary.txt", [_honey(ASHCOMBE), _honey(MILLBROOK)]),
        ),
        Goal(
            'Write a memo feed_clover.txt: "Feed Clover two litres of syrup on Saturday"',
            file_says("feed_clover.txt", "Feed Clover two litres of syrup on Saturday"),
        ),
        Goal(
            "Which hives are kept at Millbrook? Read millbrook.txt and write their names to "
            "millbrook_hives.txt",
            file_listing("millbrook_hives.txt", sorted({i[0] for i in MILLBROOK})),
        ),
        Goal(
            "Count Tom's inspections in ashcombe.txt that found more than five mites, then write the "
            "count to tom_mites.txt",
            file_number("tom_mites.txt", len(_inspections(lambda i: i[2] == TOM and i[5] > 5))),
        ),
        Goal(
            "Who inspected the strongest colony in millbrook.txt? Write the inspector's name to "
            "millbrook_inspector.txt",
            file_says("millbrook_inspector.txt", _strongest(MILLBROOK)[2]),
        ),
        Goal(
            "What was the average mite count in ashcombe.txt from the first to the fifteenth of May "
            "2026? Write it to early_may_mites.txt",
            file_quantity(
                "early_may_mites.txt",
                _mites(_inspections(lambda i: "2026-05-01" <= i[1] <= "2026-05-15")),
                ("mites",),
            ),
        ),
    ],
)

HELD_OUT_17 = [TIDES_SET, APIARY_SET]

if __name__ == "__main__":
    print(json.dumps({s.name: len(s.goals) for s in HELD_OUT_17}))
