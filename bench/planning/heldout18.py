"""An eighteenth held-out planning suite: 32 goals over two tool sets the planner has never seen.

Written blind and committed before the planner ever ran on it. Its author read only the suite
framework (``heldout.py``: its helpers and checks), the sixteenth suite (``heldout16.py``, its
reference plans and self-check), the three file checks that the sixteenth imports from the eleventh
and fifteenth suites (``file_line_multiset``, ``file_numbers_per_line``, ``file_quantity``; this one
imports them too), the shared self-check (``heldout_selfcheck.py``), the runner (``heldout_run.py``),
``suites.py`` and ``replay_decided.py`` (only to register the suite). It did not read the planner
(``planning/``), any test, the planner's prompts, starter plans or memory, any other held-out
suite's goals (in particular not the seventeenth's), or any earlier result, log or report; it did not
run the planner or a model on these goals. Its first run is the held-out measurement; goals are not
edited after it. Every goal asks for a named file; every check reads the file the executed plan
wrote, and accepts a trailing newline, a number as ``160``, ``160.0`` or followed by its unit
(``160 min``, ``42.2 kg``), a sum of money with or without its pound sign or ``GBP``, a time of day
with or without its seconds, a name in any letter case and listing lines in any order.

``dental`` is a dental surgery's appointment book, one appointment per line as fields separated by
``|`` (``2026-03-02 08:30 | Dr Okafor | check-up | 30 min | Harriet Lowe | attended | £28.50``: date
and start time, the dentist, the treatment, how long it was booked for, the patient, the outcome
and the fee), read from a ``book_file`` into ``Appointment`` records. Filters by dentist (``dentist``,
with or without the "Dr"), by treatment, by outcome (attended, no-show, cancelled; goals write
"didn't turn up"), by a day range (``from_day`` to ``to_day``, inclusive; goals write "on the third
of March 2026"), by start time (``before``, strictly earlier; goals write "before noon") and by
length (``minutes``, strictly longer; goals write "longer than forty-five minutes") chain; the
number of appointments, the fees added up, the booked chair time in minutes, the number of
different patients, the most expensive appointment as one record whose field a plan has to take
(``${sN.patient}``, ``${sN.time}``, ``${sN.treatment}``) and appointments as lines. Next week's book
(``next_week.txt``) makes two-file goals. The writer is ``save_memo(memo_file, memo_text)``.
``bakery`` is a bakery's production sheet, a semicolon-separated export with a header row
(``batch;product;category;oven;start;units;flour_kg;baker;unsold``), one batch per row, read from a
``sheet_name`` into ``Batch`` records. Filters by product, by category (bread, pastry, cake), by oven
number (goals write "oven one"), by baker and to the batches with something left unsold (no
parameter) chain; the number of batches, the units baked, the flour used in kilograms, the units
left unsold, the different products as a list, the biggest batch (most units) as one record
(``${sN.product}``, ``${sN.baker}``, ``${sN.start}``) and batches as lines. Friday's sheet
(``friday.csv``) makes two-file goals. The writer is ``post_notice(notice_file, notice_text)``.

Each goal's hand-written reference plan is in ``heldout18_reference.py``;
``heldout18_selfcheck.py`` runs them through the real ``Agent`` (no model) and checks the files,
which shows every goal is achievable with these tools and every check accepts a right answer (and,
with ``--broken``, that the checks reject four wrong ones).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from pathlib import Path

from heldout import Check, Goal, ToolSet, _inside, _text, file_number, iso_day, read_text, same_text
from heldout11 import file_line_multiset as file_holds_lines
from heldout11 import file_numbers_per_line as file_numbers_by_line
from heldout15 import file_quantity
from pydantic import BaseModel

from forethought import ToolContext, tool
from forethought.errors import ToolError
from forethought.tools.python import PythonTool

# ------------------------------------------------------------------------------- the checks


def file_names(name: str, value: str) -> Check:
    """The file holds ``value`` but for surrounding blanks and letter case (``Grace Mill``,
    ``grace mill``)."""
    return lambda ws: (t := _text(ws, name)) is not None and same_text(t, value)


def file_clock(name: str, clock: str) -> Check:
    """The file holds the time of day ``clock`` (HH:MM), with or without seconds (``10:15:00``)."""

    def check(ws: Path) -> bool:
        text = _text(ws, name)
        return text is not None and text.strip() in (clock, clock + ":00")

    return check


def file_money(name: str, pounds: float) -> Check:
    """The file holds the sum ``pounds``, bare or with a pound sign, ``GBP`` or ``pounds``
    (``627.5``, ``£627.50``, ``627.50 GBP``)."""

    def check(ws: Path) -> bool:
        text = _text(ws, name)
        if text is None:
            return False
        amount = text.strip().removeprefix("£").strip()
        for unit in ("GBP", "pounds", "£"):
            if amount.lower().endswith(unit.lower()):
                amount = amount[: -len(unit)].strip()
                break
        try:
            return abs(float(amount) - pounds) < 1e-9
        except ValueError:
            return False

    return check


# --------------------------------------------------------------------------- tool set: dental

CLOCK = re.compile(r"([01]\d|2[0-3]):[0-5]\d")


def clock_time(value: str) -> str:
    """``value`` stripped when it is a 24-hour HH:MM time; else a ``ToolError`` saying the form."""
    if not CLOCK.fullmatch(value.strip()):
        raise ToolError(f"times are written HH:MM on the 24-hour clock, got {value!r}", retryable=False)
    return value.strip()


class Appointment(BaseModel):
    date: str
    time: str
    dentist: str
    treatment: str
    minutes: int
    patient: str
    outcome: str
    fee: float


OUTCOMES = ("attended", "no-show", "cancelled")
BOOK_WHEN = re.compile(r"(?P<date>\d{4}-\d{2}-\d{2})\s+(?P<time>\d{2}:\d{2})")
BOOK_LENGTH = re.compile(r"(?P<minutes>\d+)\s*min")
BOOK_FEE = re.compile(r"£?\s*(?P<fee>\d+(?:\.\d{1,2})?)")


def _letters(value: str) -> str:
    """Lower-case letters only: how outcomes compare (``no-show``, ``No show``, ``noshow``)."""
    return "".join(c for c in value.lower() if c.isalpha())


def _surname(dentist: str) -> str:
    """A dentist's name without its title (``Dr Okafor``, ``dr. okafor``, ``Okafor``: ``okafor``)."""
    name = dentist.strip().lower()
    for title in ("dr.", "dr "):
        if name.startswith(title):
            name = name[len(title) :]
    return name.strip()


def _appointment(book_file: str, number: int, line: str) -> Appointment:
    fields = [f.strip() for f in line.split("|")]
    if len(fields) != 7:
        raise ToolError(f"{book_file}:{number}: expected 7 fields separated by |: {line!r}", retryable=False)
    when, dentist, treatment, length, patient, outcome, fee = fields
    start = BOOK_WHEN.fullmatch(when)
    minutes = BOOK_LENGTH.fullmatch(length)
    charge = BOOK_FEE.fullmatch(fee)
    if start is None or minutes is None or charge is None:
        raise ToolError(f"{book_file}:{number}: not an appointment: {line!r}", retryable=False)
    if _letters(outcome) not in {_letters(o) for o in OUTCOMES}:
        raise ToolError(f"{book_file}:{number}: outcome must be one of {OUTCOMES}: {line!r}", retryable=False)
    return Appointment(
        date=iso_day(start["date"]),
        time=start["time"],
        dentist=dentist,
        treatment=treatment,
        minutes=int(minutes["minutes"]),
        patient=patient,
        outcome=outcome.lower(),
        fee=float(charge["fee"]),
    )


@tool
def read_appointment_book(ctx: ToolContext, book_file: str) -> list[Appointment]:
    """Read a dental surgery's appointment book. One appointment per line, fields separated by |:
    date and start time (YYYY-MM-DD HH:MM), dentist, treatment, booked length (e.g. 30 min),
    patient, outcome (attended, no-show or cancelled) and fee in pounds, e.g.
    2026-03-02 08:30 | Dr Okafor | check-up | 30 min | Harriet Lowe | attended | £28.50.
    Lines starting with # are comments."""
    appointments = []
    for number, raw in enumerate(read_text(ctx, book_file, "appointment book").splitlines(), start=1):
        line = raw.strip()
        if line and not line.startswith("#"):
            appointments.append(_appointment(book_file, number, line))
    return appointments


@tool
def for_dentist(appointments: list[Appointment], dentist: str) -> list[Appointment]:
    """Keep the appointments booked with one dentist (e.g. Dr Okafor, or just Okafor)."""
    return [a for a in appointments if _surname(a.dentist) == _surname(dentist)]


@tool
def of_treatment(appointments: list[Appointment], treatment: str) -> list[Appointment]:
    """Keep the appointments for one treatment, as written in the book (check-up, filling,
    extraction, root canal, crown fitting, scale and polish, whitening)."""
    return [a for a in appointments if same_text(a.treatment, treatment)]


@tool
def with_outcome(appointments: list[Appointment], outcome: str) -> list[Appointment]:
    """Keep the appointments with one outcome: attended, no-show (the patient did not come) or
    cancelled."""
    return [a for a in appointments if _letters(a.outcome) == _letters(outcome)]


@tool
def on_days(appointments: list[Appointment], from_day: str, to_day: str) -> list[Appointment]:
    """Keep the appointments dated from from_day to to_day, both days included (YYYY-MM-DD); the
    same day twice for a single day."""
    first, last = iso_day(from_day), iso_day(to_day)
    return [a for a in appointments if first <= a.date <= last]


@tool
def starting_before(appointments: list[Appointment], before: str) -> list[Appointment]:
    """Keep the appointments that start earlier than a time of day (HH:MM, 24-hour clock)."""
    limit = clock_time(before)
    return [a for a in appointments if a.time < limit]


@tool
def longer_than(appointments: list[Appointment], minutes: int) -> list[Appointment]:
    """Keep the appointments booked for more than this many minutes."""
    return [a for a in appointments if a.minutes > minutes]


@tool
def count_appointments(appointments: list[Appointment]) -> int:
    """How many appointments there are."""
    return len(appointments)


@tool
def total_fees(appointments: list[Appointment]) -> float:
    """The appointments' fees added up, in pounds (rounded to the penny)."""
    return round(sum(a.fee for a in appointments), 2)


@tool
def chair_minutes(appointments: list[Appointment]) -> int:
    """Total chair time booked: the appointments' lengths added up, in minutes."""
    return sum(a.minutes for a in appointments)


@tool
def patient_count(appointments: list[Appointment]) -> int:
    """How many different patients the appointments are for (a patient booked twice counts
    once)."""
    return len({a.patient.lower() for a in appointments})


@tool
def most_expensive(appointments: list[Appointment]) -> Appointment:
    """The single appointment with the highest fee, with all its fields (date, time, dentist,
    treatment, minutes, patient, outcome, fee)."""
    if not appointments:
        raise ToolError("no appointments given", retryable=False)
    return max(appointments, key=lambda a: a.fee)


def appointment_line(
    date: str, time: str, dentist: str, treatment: str, minutes: int, patient: str, outcome: str, fee: float
) -> str:
    """One appointment as a line (the tool's text and the checks' expectation)."""
    return f"{date} {time} | {dentist} | {treatment} | {minutes} min | {patient} | {outcome} | £{fee:.2f}"


@tool
def appointment_lines(appointments: list[Appointment]) -> str:
    """Appointments as text, one per line, in the appointment book's own format."""
    return "".join(
        appointment_line(a.date, a.time, a.dentist, a.treatment, a.minutes, a.patient, a.outcome, a.fee)
        + "\n"
        for a in appointments
    )


@tool(effect="mutating", idempotent=True)
def save_memo(ctx: ToolContext, memo_file: str, memo_text: str) -> str:
    """Save a memo for the surgery: memo_text is written to memo_file in the practice folder,
    replacing a memo of that name."""
    _inside(ctx, memo_file).write_text(memo_text, encoding="utf-8")
    return memo_file


DENTAL_TOOLS: list[PythonTool] = [
    read_appointment_book,
    for_dentist,
    of_treatment,
    with_outcome,
    on_days,
    starting_before,
    longer_than,
    count_appointments,
    total_fees,
    chair_minutes,
    patient_count,
    most_expensive,
    appointment_lines,
    save_memo,
]

# --------------------------------------------------------------------------- tool set: bakery


class Batch(BaseModel):
    batch: str
    product: str
    category: str
    oven: int
    start: str
    units: int
    flour_kg: float
    baker: str
    unsold: int


SHEET_COLUMNS = ["batch", "product", "category", "oven", "start", "units", "flour_kg", "baker", "unsold"]


def _batch(sheet_name: str, number: int, row: dict[str, str]) -> Batch:
    try:
        return Batch(
            batch=row["batch"].strip(),
            product=row["product"].strip(),
            category=row["category"].strip().lower(),
            oven=int(row["oven"]),
            start=clock_time(row["start"]),
            units=int(row["units"]),
            flour_kg=float(row["flour_kg"].replace(",", ".")),
            baker=row["baker"].strip(),
            unsold=int(row["unsold"]),
        )
    except (TypeError, ValueError, ToolError) as exc:
        raise ToolError(
            f"{sheet_name}, data row {number}: not a batch ({exc}): {row}", retryable=False
        ) from None


@tool
def read_production_sheet(ctx: ToolContext, sheet_name: str) -> list[Batch]:
    """Read a bakery production sheet: a semicolon-separated file whose header row is
    batch;product;category;oven;start;units;flour_kg;baker;unsold, one batch per row (category is
    bread, pastry or cake; start is when it went into the oven, HH:MM; units is how many were baked
    and unsold how many were left at closing). Lines starting with # are comments."""
    text = read_text(ctx, sheet_name, "production sheet")
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    reader = csv.DictReader(io.StringIO("\n".join(lines)), delimiter=";")
    if reader.fieldnames is None or [f.strip() for f in reader.fieldnames] != SHEET_COLUMNS:
        raise ToolError(f"{sheet_name}: the header row must be {';'.join(SHEET_COLUMNS)}", retryable=False)
    return [_batch(sheet_name, number, row) for number, row in enumerate(reader, start=1)]


@tool
def of_product(batches: list[Batch], product: str) -> list[Batch]:
    """Keep the batches of one product, named as on the sheet (e.g. sourdough loaf, croissant)."""
    return [b for b in batches if same_text(b.product, product)]


@tool
def in_category(batches: list[Batch], category: str) -> list[Batch]:
    """Keep the batches of one category: bread, pastry or cake."""
    return [b for b in batches if same_text(b.category, category)]


@tool
def from_oven(batches: list[Batch], oven: int) -> list[Batch]:
    """Keep the batches baked in one oven, given by its number (1, 2, 3)."""
    return [b for b in batches if b.oven == oven]


@tool
def by_baker(batches: list[Batch], baker: str) -> list[Batch]:
    """Keep the batches made by one baker (their first name, as on the sheet)."""
    return [b for b in batches if same_text(b.baker, baker)]


@tool
def with_leftovers(batches: list[Batch]) -> list[Batch]:
    """Keep the batches that had at least one unit left unsold at closing."""
    return [b for b in batches if b.unsold > 0]


@tool
def batch_count(batches: list[Batch]) -> int:
    """How many batches there are. Not the number of items baked: see units_baked."""
    return len(batches)


@tool
def units_baked(batches: list[Batch]) -> int:
    """Total number of items (loaves, pastries, cakes) baked: the batches' units added up."""
    return sum(b.units for b in batches)


@tool
def flour_used(batches: list[Batch]) -> float:
    """Flour the batches used, in kilograms (rounded to two decimals)."""
    return round(sum(b.flour_kg for b in batches), 2)


@tool
def leftover_units(batches: list[Batch]) -> int:
    """How many items were left unsold at closing, over all the batches."""
    return sum(b.unsold for b in batches)


@tool
def product_names(batches: list[Batch]) -> str:
    """The different products of the batches, one name per line, in alphabetical order."""
    return "".join(name + "\n" for name in sorted({b.product for b in batches}))


@tool
def biggest_batch(batches: list[Batch]) -> Batch:
    """The batch with the most units baked, with all its details (batch, product, category, oven,
    start, units, flour_kg, baker, unsold)."""
    if not batches:
        raise ToolError("no batches given", retryable=False)
    return max(batches, key=lambda b: b.units)


def batch_line(
    batch: str,
    product: str,
    category: str,
    oven: int,
    start: str,
    units: int,
    flour_kg: float,
    baker: str,
    unsold: int,
) -> str:
    """One batch as a line (the tool's text and the checks' expectation)."""
    return (
        f"{batch} {product} ({category}), oven {oven} at {start}: {units} baked, {unsold} unsold, "
        f"{flour_kg:g} kg flour, {baker}"
    )


@tool
def batch_lines(batches: list[Batch]) -> str:
    """Batches as readable text, one line per batch: batch, product, category, oven, start time,
    units baked and unsold, flour and baker."""
    return "".join(
        batch_line(b.batch, b.product, b.category, b.oven, b.start, b.units, b.flour_kg, b.baker, b.unsold)
        + "\n"
        for b in batches
    )


@tool(effect="mutating", idempotent=True)
def post_notice(ctx: ToolContext, notice_file: str, notice_text: str) -> str:
    """Post a notice for the bakery staff: notice_text goes into the file notice_file (an
    existing notice of that name is replaced)."""
    _inside(ctx, notice_file).write_text(notice_text, encoding="utf-8")
    return notice_file


BAKERY_TOOLS: list[PythonTool] = [
    read_production_sheet,
    of_product,
    in_category,
    from_oven,
    by_baker,
    with_leftovers,
    batch_count,
    units_baked,
    flour_used,
    leftover_units,
    product_names,
    biggest_batch,
    batch_lines,
    post_notice,
]

# ------------------------------------------------------------------------------- the goals

# date, time, dentist, treatment, minutes, patient, outcome, fee
AppointmentRow = tuple[str, str, str, str, int, str, str, float]

THIS_WEEK: list[AppointmentRow] = [
    ("2026-03-02", "08:30", "Dr Okafor", "check-up", 30, "Harriet Lowe", "attended", 28.50),
    ("2026-03-02", "09:00", "Dr Okafor", "filling", 45, "Tom Reyes", "attended", 74.00),
    ("2026-03-02", "10:00", "Dr Lindqvist", "scale and polish", 30, "Aisha Khan", "attended", 45.00),
    ("2026-03-02", "11:15", "Dr Lindqvist", "root canal", 90, "George Patel", "attended", 295.00),
    ("2026-03-02", "14:00", "Dr Mensah", "check-up", 30, "Lucy Ward", "no-show", 28.50),
    ("2026-03-03", "08:30", "Dr Okafor", "extraction", 40, "Paul Fenwick", "attended", 96.00),
    ("2026-03-03", "09:30", "Dr Okafor", "check-up", 30, "Nadia Rossi", "cancelled", 28.50),
    ("2026-03-03", "10:15", "Dr Okafor", "crown fitting", 60, "Harriet Lowe", "attended", 310.00),
    ("2026-03-03", "13:30", "Dr Mensah", "filling", 45, "Sam Oduya", "attended", 74.00),
    ("2026-03-03", "15:00", "Dr Okafor", "filling", 30, "Ivy Chen", "no-show", 62.00),
    ("2026-03-04", "08:45", "Dr Lindqvist", "check-up", 30, "Martin Cole", "attended", 28.50),
    ("2026-03-04", "09:30", "Dr Mensah", "whitening", 60, "Elena Sousa", "attended", 240.00),
    ("2026-03-04", "11:00", "Dr Lindqvist", "filling", 45, "Aisha Khan", "attended", 74.00),
    ("2026-03-04", "11:50", "Dr Okafor", "check-up", 30, "Ben Hart", "no-show", 28.50),
    ("2026-03-04", "14:30", "Dr Lindqvist", "extraction", 40, "Rosa Diaz", "cancelled", 96.00),
    ("2026-03-05", "09:00", "Dr Mensah", "root canal", 90, "Paul Fenwick", "attended", 285.00),
    ("2026-03-05", "10:45", "Dr Okafor", "scale and polish", 30, "Tom Reyes", "attended", 45.00),
    ("2026-03-05", "13:00", "Dr Lindqvist", "crown fitting", 60, "Grace Mill", "attended", 325.00),
    ("2026-03-06", "08:30", "Dr Mensah", "check-up", 30, "Owen Price", "attended", 28.50),
    ("2026-03-06", "09:15", "Dr Lindqvist", "filling", 45, "Lucy Ward", "no-show", 74.00),
    ("2026-03-06", "10:30", "Dr Okafor", "check-up", 30, "Sam Oduya", "attended", 28.50),
]
NEXT_WEEK: list[AppointmentRow] = [
    ("2026-03-09", "08:30", "Dr Okafor", "check-up", 30, "Nadia Rossi", "attended", 28.50),
    ("2026-03-09", "09:15", "Dr Mensah", "filling", 45, "Ivy Chen", "no-show", 74.00),
    ("2026-03-09", "11:00", "Dr Lindqvist", "whitening", 60, "Hannah Bloom", "attended", 240.00),
    ("2026-03-10", "08:45", "Dr Mensah", "extraction", 40, "Rosa Diaz", "attended", 96.00),
    ("2026-03-10", "10:00", "Dr Okafor", "root canal", 90, "Lucy Ward", "attended", 295.00),
    ("2026-03-10", "14:15", "Dr Lindqvist", "check-up", 30, "Kofi Asante", "no-show", 28.50),
    ("2026-03-11", "09:00", "Dr Lindqvist", "scale and polish", 30, "Ben Hart", "attended", 45.00),
    ("2026-03-11", "10:30", "Dr Okafor", "filling", 45, "Martin Cole", "cancelled", 74.00),
    ("2026-03-11", "13:45", "Dr Mensah", "check-up", 30, "Dev Sharma", "no-show", 28.50),
    ("2026-03-12", "09:30", "Dr Okafor", "crown fitting", 60, "Owen Price", "attended", 280.00),
    ("2026-03-12", "11:30", "Dr Mensah", "check-up", 30, "Alan Frost", "attended", 28.50),
    ("2026-03-12", "15:00", "Dr Lindqvist", "filling", 30, "Zara Quinn", "no-show", 62.00),
]


def _book(week: str, rows: list[AppointmentRow]) -> str:
    head = f"# Riverside Dental Practice - appointment book, week of {week}\n"
    head += "# date time | dentist | treatment | length | patient | outcome | fee\n"
    return head + "".join(appointment_line(*row) + "\n" for row in rows)


DENTAL_FILES = {
    "appointments.txt": _book("Monday 2 March 2026", THIS_WEEK),
    "next_week.txt": _book("Monday 9 March 2026", NEXT_WEEK),
}


def _appointments(
    keep: Callable[[AppointmentRow], bool], rows: list[AppointmentRow] = THIS_WEEK
) -> list[AppointmentRow]:
    return [a for a in rows if keep(a)]


def _with(dentist: str = "", outcome: str = "", treatment: str = "") -> Callable[[AppointmentRow], bool]:
    return lambda a: (
        (not dentist or a[2] == dentist)
        and (not outcome or a[6] == outcome)
        and (not treatment or a[3] == treatment)
    )


def _fees(rows: list[AppointmentRow]) -> float:
    return round(sum(a[7] for a in rows), 2)


def _minutes(rows: list[AppointmentRow]) -> int:
    return sum(a[4] for a in rows)


def _priciest(rows: list[AppointmentRow]) -> AppointmentRow:
    return max(rows, key=lambda a: a[7])


def _book_lines(rows: list[AppointmentRow]) -> list[str]:
    return [appointment_line(*a) for a in rows]


# batch, product, category, oven, start, units, flour_kg, baker, unsold
BatchRow = tuple[str, str, str, int, str, int, float, str, int]

THURSDAY: list[BatchRow] = [
    ("T01", "sourdough loaf", "bread", 1, "04:30", 24, 10.8, "Ines", 2),
    ("T02", "baguette", "bread", 2, "04:45", 40, 8.0, "Marta", 0),
    ("T03", "croissant", "pastry", 3, "05:00", 60, 4.5, "Ines", 5),
    ("T04", "rye loaf", "bread", 1, "05:20", 18, 7.2, "Tomasz", 3),
    ("T05", "pain au chocolat", "pastry", 3, "05:40", 48, 3.6, "Ines", 0),
    ("T06", "cinnamon bun", "pastry", 2, "06:10", 36, 4.0, "Marta", 7),
    ("T07", "carrot cake", "cake", 1, "07:00", 6, 2.4, "Tomasz", 1),
    ("T08", "baguette", "bread", 2, "07:30", 36, 7.2, "Marta", 4),
    ("T09", "croissant", "pastry", 3, "08:15", 48, 3.6, "Ines", 9),
    ("T10", "lemon tart", "cake", 2, "09:00", 12, 1.8, "Tomasz", 0),
    ("T11", "sourdough loaf", "bread", 1, "10:30", 20, 9.0, "Marta", 5),
    ("T12", "cinnamon bun", "pastry", 2, "11:00", 30, 3.3, "Ines", 2),
]
FRIDAY: list[BatchRow] = [
    ("F01", "sourdough loaf", "bread", 1, "04:30", 28, 12.6, "Tomasz", 1),
    ("F02", "baguette", "bread", 2, "04:45", 44, 8.8, "Marta", 2),
    ("F03", "croissant", "pastry", 3, "05:00", 42, 3.2, "Ines", 3),
    ("F04", "rye loaf", "bread", 1, "05:30", 18, 7.2, "Tomasz", 0),
    ("F05", "cinnamon bun", "pastry", 2, "06:00", 36, 4.0, "Marta", 6),
    ("F06", "carrot cake", "cake", 1, "07:15", 8, 3.2, "Ines", 1),
    ("F07", "pain au chocolat", "pastry", 3, "07:45", 40, 3.0, "Ines", 4),
    ("F08", "sourdough loaf", "bread", 1, "10:00", 24, 10.8, "Marta", 3),
]


def _sheet(day: str, rows: list[BatchRow]) -> str:
    head = f"# Crumb & Co. bakery - production sheet, {day}\n" + ";".join(SHEET_COLUMNS) + "\n"
    return head + "".join(";".join(str(v) for v in row) + "\n" for row in rows)


BAKERY_FILES = {
    "thursday.csv": _sheet("Thursday 2026-05-14", THURSDAY),
    "friday.csv": _sheet("Friday 2026-05-15", FRIDAY),
}


def _batches(keep: Callable[[BatchRow], bool], rows: list[BatchRow] = THURSDAY) -> list[BatchRow]:
    return [b for b in rows if keep(b)]


def _units(rows: list[BatchRow]) -> int:
    return sum(b[5] for b in rows)


def _flour(rows: list[BatchRow]) -> float:
    return round(sum(b[6] for b in rows), 2)


def _unsold(rows: list[BatchRow]) -> int:
    return sum(b[8] for b in rows)


def _biggest(rows: list[BatchRow]) -> BatchRow:
    return max(rows, key=lambda b: b[5])


def _sheet_lines(rows: list[BatchRow]) -> list[str]:
    return [batch_line(*b) for b in rows]


MINUTES = ("minutes", "mins", "min")
KG = ("kilograms", "kg")

DENTAL_SET = ToolSet(
    "dental",
    DENTAL_TOOLS,
    DENTAL_FILES,
    [
        Goal(
            "Count the appointments in appointments.txt and write the count to appointment_count.txt",
            file_number("appointment_count.txt", len(THIS_WEEK)),
        ),
        Goal(
            "How many patients didn't turn up for their appointment in appointments.txt? Save the number "
            "as no_shows.txt",
            file_number("no_shows.txt", len(_appointments(_with(outcome="no-show")))),
        ),
        Goal(
            "What did Dr Mensah's attended appointments in appointments.txt bring in? Write the total of "
            "their fees to mensah_fees.txt",
            file_money("mensah_fees.txt", _fees(_appointments(_with("Dr Mensah", "attended")))),
        ),
        Goal(
            "Which patient had the most expensive appointment in appointments.txt? Put their name in "
            "top_patient.txt",
            file_names("top_patient.txt", _priciest(THIS_WEEK)[5]),
        ),
        Goal(
            "fillings.txt: every filling in appointments.txt, one appointment per line",
            file_holds_lines("fillings.txt", _book_lines(_appointments(_with(treatment="filling")))),
        ),
        Goal(
            "How many minutes of appointments were booked with Dr Okafor on the third of March 2026 "
            "(appointments.txt)? Write the minutes to okafor_march_3.txt",
            file_quantity(
                "okafor_march_3.txt",
                _minutes(_appointments(lambda a: a[2] == "Dr Okafor" and a[0] == "2026-03-03")),
                MINUTES,
            ),
        ),
        Goal(
            "How many different patients does appointments.txt list? Answer in patient_count.txt",
            file_number("patient_count.txt", len({a[5] for a in THIS_WEEK})),
        ),
        Goal(
            "Write the cancelled appointments from appointments.txt to cancelled.txt",
            file_holds_lines("cancelled.txt", _book_lines(_appointments(_with(outcome="cancelled")))),
        ),
        Goal(
            "Find the appointments in appointments.txt that start before noon on Wednesday 4 March 2026, "
            "count them, then save the count to wednesday_morning.txt",
            file_number(
                "wednesday_morning.txt",
                len(_appointments(lambda a: a[0] == "2026-03-04" and a[1] < "12:00")),
            ),
        ),
        Goal(
            "Appointment counts of appointments.txt and next_week.txt: this week's on the first line of "
            "weekly_counts.txt, next week's on the second",
            file_numbers_by_line("weekly_counts.txt", [len(THIS_WEEK), len(NEXT_WEEK)]),
        ),
        Goal(
            'Make a memo closure.txt saying "Surgery closed Friday 13 March 2026 for staff training"',
            file_names("closure.txt", "Surgery closed Friday 13 March 2026 for staff training"),
        ),
        Goal(
            "What treatment was the most expensive appointment in next_week.txt for? Save it to "
            "next_week_top.txt",
            file_names("next_week_top.txt", _priciest(NEXT_WEEK)[3]),
        ),
        Goal(
            "Total the fees of all the check-ups in appointments.txt and write the sum to checkup_fees.txt",
            file_money("checkup_fees.txt", _fees(_appointments(_with(treatment="check-up")))),
        ),
        Goal(
            "At what time does Dr Okafor's most expensive appointment in appointments.txt start? Put the "
            "time in okafor_top_time.txt",
            file_clock("okafor_top_time.txt", _priciest(_appointments(_with("Dr Okafor")))[1]),
        ),
        Goal(
            "How many appointments in appointments.txt were booked for longer than forty-five minutes? "
            "Write it to long_appointments.txt",
            file_number("long_appointments.txt", len(_appointments(lambda a: a[4] > 45))),
        ),
        Goal(
            "How many no-shows did next_week.txt have between Monday the ninth and Wednesday the "
            "eleventh of March 2026? Save the number to early_no_shows.txt",
            file_number(
                "early_no_shows.txt",
                len(
                    _appointments(
                        lambda a: a[6] == "no-show" and "2026-03-09" <= a[0] <= "2026-03-11", NEXT_WEEK
                    )
                ),
            ),
        ),
    ],
)

BAKERY_SET = ToolSet(
    "bakery",
    BAKERY_TOOLS,
    BAKERY_FILES,
    [
        Goal(
            "How many batches are on thursday.csv's production sheet? Write the number to batch_count.txt",
            file_number("batch_count.txt", len(THURSDAY)),
        ),
        Goal(
            "How many items were baked altogether on Thursday? Use thursday.csv and save the total in "
            "thursday_units.txt",
            file_number("thursday_units.txt", _units(THURSDAY)),
        ),
        Goal(
            "How many kilograms of flour did the bread batches in thursday.csv use? Write it to "
            "bread_flour.txt",
            file_quantity("bread_flour.txt", _flour(_batches(lambda b: b[2] == "bread")), KG),
        ),
        Goal(
            "Which product had the biggest batch in thursday.csv? Write its name to biggest_batch.txt",
            file_names("biggest_batch.txt", _biggest(THURSDAY)[1]),
        ),
        Goal(
            "Count the unsold items from the croissant batches in thursday.csv and put the number in "
            "croissant_leftovers.txt",
            file_number("croissant_leftovers.txt", _unsold(_batches(lambda b: b[1] == "croissant"))),
        ),
        Goal(
            "oven2.txt: every batch that oven 2 baked according to thursday.csv, one per line",
            file_holds_lines("oven2.txt", _sheet_lines(_batches(lambda b: b[3] == 2))),
        ),
        Goal(
            "List the products made on Thursday (thursday.csv) and save the list as products.txt",
            file_holds_lines("products.txt", sorted({b[1] for b in THURSDAY})),
        ),
        Goal(
            "How many batches did Ines bake in thursday.csv? Answer in ines_batches.txt",
            file_number("ines_batches.txt", len(_batches(lambda b: b[7] == "Ines"))),
        ),
        Goal(
            "Write the batches from thursday.csv that had anything left unsold to leftovers.txt",
            file_holds_lines("leftovers.txt", _sheet_lines(_batches(lambda b: b[8] > 0))),
        ),
        Goal(
            "How many pastries went unsold in thursday.csv? Save the number to pastry_leftovers.txt",
            file_number("pastry_leftovers.txt", _unsold(_batches(lambda b: b[2] == "pastry"))),
        ),
        Goal(
            "Units baked in thursday.csv and friday.csv: Thursday's total on the first line of "
            "units_by_day.txt, Friday's on the second",
            file_numbers_by_line("units_by_day.txt", [_units(THURSDAY), _units(FRIDAY)]),
        ),
        Goal(
            'Post a notice oven3.txt that reads "Oven 3 out of service until Monday 18 May"',
            file_names("oven3.txt", "Oven 3 out of service until Monday 18 May"),
        ),
        Goal(
            "Who baked Friday's biggest batch (friday.csv)? Write the baker's name to friday_top_baker.txt",
            file_names("friday_top_baker.txt", _biggest(FRIDAY)[7]),
        ),
        Goal(
            "How much flour went into oven one's batches in friday.csv? Save the kilograms to "
            "oven1_flour.txt",
            file_quantity("oven1_flour.txt", _flour(_batches(lambda b: b[3] == 1, FRIDAY)), KG),
        ),
        Goal(
            "What time did the largest bread batch in thursday.csv go into the oven? Write the start time "
            "to bread_peak_start.txt",
            file_clock("bread_peak_start.txt", _biggest(_batches(lambda b: b[2] == "bread"))[4]),
        ),
        Goal(
            "Find the bread batches in thursday.csv that had leftovers, count them, then write the count "
            "to bread_leftover_batches.txt",
            file_number("bread_leftover_batches.txt", len(_batches(lambda b: b[2] == "bread" and b[8] > 0))),
        ),
    ],
)

HELD_OUT_18 = [DENTAL_SET, BAKERY_SET]

if __name__ == "__main__":
    print(json.dumps({s.name: len(s.goals) for s in HELD_OUT_18}))
