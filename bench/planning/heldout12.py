"""A twelfth held-out planning suite: 32 goals over two tool sets the planner has never seen.

Written blind and committed before the planner ever ran on it. Its author read only the suite
framework (``heldout.py``), the previous suite (``heldout11.py``, its reference plans and
self-check), the shared self-check (``heldout_selfcheck.py``), the runner (``heldout_run.py``),
the README's plan syntax and the plan model (``plan/model.py``). It did not read the planner
(``planning/``), the planner's tests, its prompts, starter plans or memory, any other held-out
suite, or any earlier result, log or report. Its first run is the held-out measurement; goals are
not edited after it. Every goal asks for a named file; every check reads the file the executed
plan wrote.

``gym`` is a fitness club's class bookings, a CSV export (booking_id, member, class_name,
class_date, starts, fee_paid, attended as yes/no) read into ``Booking`` records from a
``bookings_csv``. Filters by class (spin / yoga / pilates / boxfit), by a range of class dates
(``first_day``/``last_day``, YYYY-MM-DD, both included, which goals sometimes spell out as "the
eighth to the twenty-first of March 2026") and by attendance (a boolean ``showed_up``: false keeps
the no-shows) chain; fees in pounds are added up; the first class booked is one record whose field
a plan has to take (``${sN.member}``, ``${sN.booking_id}``); the class roster is text, one line per
booking. February's export (``february_bookings.csv``) makes two-file goals. The writer is
``save_note(note_path, note_text)``.
``parcels`` is a warehouse depot's shipping manifest in JSON Lines (tracking, carrier, city,
dispatched as YYYY-MM-DD, weight_kg) read from a ``manifest_file``: filters by carrier, by dispatch
day and by a weight band (``min_kg``/``max_kg``, both included, which one goal gives in words as
"between two and five kilos"), a count, a mean weight, the heaviest parcel as one record, and the
parcels as shipping-label text. A second depot's manifest (``south_depot.jsonl``) makes two-file
goals. The writer is ``file_report(report_name, report_body)``.

Each goal's hand-written reference plan is in ``heldout12_reference.py``;
``heldout12_selfcheck.py`` runs them through the real ``Agent`` (no model) and checks the files,
which shows every goal is achievable with these tools and every check accepts a right answer (and,
with ``--broken``, that the checks reject two wrong ones).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable

from heldout import Goal, ToolSet, _inside, file_number, read_text, same_text
from heldout11 import ISO_DATE, _formatted, file_line_multiset, file_numbers_per_line, file_reads
from pydantic import BaseModel

from forethought import ToolContext, tool
from forethought.errors import ToolError
from forethought.tools.python import PythonTool

# ------------------------------------------------------------------------------ tool set: gym


class Booking(BaseModel):
    booking_id: str
    member: str
    class_name: str
    class_date: str
    starts: str
    fee_paid: float
    attended: bool


BOOKING_COLUMNS = ("booking_id", "member", "class_name", "class_date", "starts", "fee_paid", "attended")
ATTENDED = {"yes": True, "no": False}


def roster_line(class_date: str, starts: str, class_name: str, member: str) -> str:
    """One booking as a roster line (the tool's text and the checks' expectation)."""
    return f"{class_date} {starts} {class_name}: {member}"


@tool
def load_bookings(ctx: ToolContext, bookings_csv: str) -> list[Booking]:
    """Read the gym's class bookings from a CSV export: booking ID, member name, class, class
    date, start time, fee paid (pounds) and whether the member turned up."""
    text = read_text(ctx, bookings_csv, "bookings export")
    reader = csv.DictReader(io.StringIO(text))
    if tuple(reader.fieldnames or ()) != BOOKING_COLUMNS:
        raise ToolError(
            f"{bookings_csv}: expected the columns {', '.join(BOOKING_COLUMNS)}, got {reader.fieldnames}",
            retryable=False,
        )
    bookings = []
    for number, row in enumerate(reader, start=2):
        attended = ATTENDED.get(row["attended"].strip().lower())
        if attended is None:
            raise ToolError(
                f"{bookings_csv}:{number}: attended must be yes or no, got {row['attended']!r}",
                retryable=False,
            )
        try:
            bookings.append(Booking(**{**row, "attended": attended}))
        except (TypeError, ValueError):
            raise ToolError(
                f"{bookings_csv}:{number}: fee_paid must be a number, got {row['fee_paid']!r}",
                retryable=False,
            ) from None
    return bookings


@tool
def for_class(bookings: list[Booking], class_name: str) -> list[Booking]:
    """Keep the bookings for one kind of class (spin, yoga, pilates or boxfit)."""
    return [b for b in bookings if same_text(b.class_name, class_name)]


@tool
def booked_between(bookings: list[Booking], first_day: str, last_day: str) -> list[Booking]:
    """Keep the bookings for classes held from first_day to last_day, both days included
    (YYYY-MM-DD)."""
    start = _formatted(first_day, ISO_DATE, "YYYY-MM-DD", "dates")
    end = _formatted(last_day, ISO_DATE, "YYYY-MM-DD", "dates")
    return [b for b in bookings if start <= b.class_date <= end]


@tool
def by_attendance(bookings: list[Booking], showed_up: bool) -> list[Booking]:
    """Keep the bookings where the member came to the class (showed_up true) or, with
    showed_up false, the no-shows."""
    return [b for b in bookings if b.attended == showed_up]


@tool
def count_bookings(bookings: list[Booking]) -> int:
    """How many bookings there are."""
    return len(bookings)


@tool
def fees_collected(bookings: list[Booking]) -> float:
    """The total of the fees paid for some bookings, in pounds."""
    return sum(b.fee_paid for b in bookings)


@tool
def first_booking(bookings: list[Booking]) -> Booking:
    """The booking for the earliest class (by date, then start time), with all its details."""
    if not bookings:
        raise ToolError("no bookings given", retryable=False)
    return min(bookings, key=lambda b: (b.class_date, b.starts))


@tool
def roster_text(bookings: list[Booking]) -> str:
    """Bookings as a class roster, one line per booking: date, start time, class and member."""
    return "".join(roster_line(b.class_date, b.starts, b.class_name, b.member) + "\n" for b in bookings)


@tool(effect="mutating", idempotent=True)
def save_note(ctx: ToolContext, note_path: str, note_text: str) -> str:
    """Save a note as a text file in the gym's workspace, replacing any file of that name."""
    _inside(ctx, note_path).write_text(note_text, encoding="utf-8")
    return note_path


GYM_TOOLS: list[PythonTool] = [
    load_bookings,
    for_class,
    booked_between,
    by_attendance,
    count_bookings,
    fees_collected,
    first_booking,
    roster_text,
    save_note,
]

# -------------------------------------------------------------------------- tool set: parcels


class Parcel(BaseModel):
    tracking: str
    carrier: str
    city: str
    dispatched: str
    weight_kg: float


def label_line(tracking: str, carrier: str, city: str, dispatched: str, weight_kg: float) -> str:
    """One parcel as a shipping-label line (the tool's text and the checks' expectation)."""
    return f"{tracking} {carrier} to {city}, {weight_kg:g} kg, sent {dispatched}"


@tool
def read_manifest(ctx: ToolContext, manifest_file: str) -> list[Parcel]:
    """Read a depot's shipping manifest, a JSON Lines file with one parcel per line: tracking
    number, carrier, destination city, dispatch date and weight in kilograms."""
    parcels = []
    for number, line in enumerate(read_text(ctx, manifest_file, "manifest").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            parcels.append(Parcel(**json.loads(line)))
        except json.JSONDecodeError as exc:
            raise ToolError(f"{manifest_file}:{number}: not JSON: {exc}", retryable=False) from None
        except (TypeError, ValueError) as exc:
            raise ToolError(f"{manifest_file}:{number}: not a parcel: {exc}", retryable=False) from None
    return parcels


@tool
def by_carrier(parcels: list[Parcel], carrier: str) -> list[Parcel]:
    """Only the parcels handed to one carrier (courier company)."""
    return [p for p in parcels if same_text(p.carrier, carrier)]


@tool
def dispatched_on(parcels: list[Parcel], day: str) -> list[Parcel]:
    """Only the parcels that left the depot on one day (YYYY-MM-DD)."""
    wanted = _formatted(day, ISO_DATE, "YYYY-MM-DD", "dates")
    return [p for p in parcels if p.dispatched == wanted]


@tool
def weighing_between(parcels: list[Parcel], min_kg: float, max_kg: float) -> list[Parcel]:
    """Only the parcels whose weight is from min_kg to max_kg kilograms, both included."""
    return [p for p in parcels if min_kg <= p.weight_kg <= max_kg]


@tool
def parcel_count(parcels: list[Parcel]) -> int:
    """Number of parcels."""
    return len(parcels)


@tool
def mean_weight_kg(parcels: list[Parcel]) -> float:
    """The average weight of some parcels, in kilograms."""
    if not parcels:
        raise ToolError("no parcels given", retryable=False)
    return sum(p.weight_kg for p in parcels) / len(parcels)


@tool
def heaviest_parcel(parcels: list[Parcel]) -> Parcel:
    """The parcel that weighs the most, with all its details."""
    if not parcels:
        raise ToolError("no parcels given", retryable=False)
    return max(parcels, key=lambda p: p.weight_kg)


@tool
def shipping_labels(parcels: list[Parcel]) -> str:
    """Parcels as shipping-label text, one line per parcel: tracking number, carrier, city,
    weight and dispatch date."""
    return "".join(
        label_line(p.tracking, p.carrier, p.city, p.dispatched, p.weight_kg) + "\n" for p in parcels
    )


@tool(effect="mutating", idempotent=True)
def file_report(ctx: ToolContext, report_name: str, report_body: str) -> str:
    """File a report: write its text to a file in the depot's workspace (created or replaced)."""
    _inside(ctx, report_name).write_text(report_body, encoding="utf-8")
    return report_name


PARCEL_TOOLS: list[PythonTool] = [
    read_manifest,
    by_carrier,
    dispatched_on,
    weighing_between,
    parcel_count,
    mean_weight_kg,
    heaviest_parcel,
    shipping_labels,
    file_report,
]

# ------------------------------------------------------------------------------- the goals

BookingRow = tuple[str, str, str, str, str, float, str]  # id, member, class, date, starts, fee, attended

MARCH: list[BookingRow] = [
    ("B-301", "Priya Shah", "spin", "2026-03-02", "07:00", 9.5, "yes"),
    ("B-302", "Tom Reilly", "yoga", "2026-03-02", "18:30", 8.0, "yes"),
    ("B-303", "Ana Costa", "pilates", "2026-03-04", "12:15", 11.0, "no"),
    ("B-304", "Priya Shah", "boxfit", "2026-03-05", "19:00", 10.0, "yes"),
    ("B-305", "Jon Berg", "spin", "2026-03-07", "09:00", 9.5, "no"),
    ("B-306", "Mei Lin", "yoga", "2026-03-09", "18:30", 8.0, "yes"),
    ("B-307", "Ana Costa", "spin", "2026-03-11", "07:00", 9.5, "yes"),
    ("B-308", "Tom Reilly", "boxfit", "2026-03-12", "19:00", 10.0, "no"),
    ("B-309", "Mei Lin", "pilates", "2026-03-16", "12:15", 11.0, "yes"),
    ("B-310", "Jon Berg", "spin", "2026-03-18", "07:00", 9.5, "yes"),
    ("B-311", "Priya Shah", "yoga", "2026-03-20", "18:30", 8.0, "no"),
    ("B-312", "Sam Okafor", "spin", "2026-03-23", "18:00", 12.0, "yes"),
    ("B-313", "Tom Reilly", "pilates", "2026-03-25", "12:15", 11.0, "yes"),
    ("B-314", "Sam Okafor", "boxfit", "2026-03-28", "19:00", 10.0, "no"),
    ("B-315", "Ana Costa", "yoga", "2026-03-30", "07:30", 8.0, "yes"),
]
FEBRUARY: list[BookingRow] = [
    ("B-281", "Mei Lin", "spin", "2026-02-03", "07:00", 9.5, "yes"),
    ("B-282", "Jon Berg", "yoga", "2026-02-05", "18:30", 8.0, "no"),
    ("B-283", "Priya Shah", "spin", "2026-02-10", "07:00", 9.5, "yes"),
    ("B-284", "Ana Costa", "pilates", "2026-02-12", "12:15", 11.0, "yes"),
    ("B-285", "Sam Okafor", "boxfit", "2026-02-14", "19:00", 10.0, "yes"),
    ("B-286", "Tom Reilly", "spin", "2026-02-19", "18:00", 12.0, "no"),
    ("B-287", "Mei Lin", "yoga", "2026-02-24", "18:30", 8.0, "yes"),
    ("B-288", "Jon Berg", "boxfit", "2026-02-26", "19:00", 10.0, "no"),
]


def _export(rows: list[BookingRow]) -> str:
    return ",".join(BOOKING_COLUMNS) + "\n" + "".join(",".join(str(v) for v in row) + "\n" for row in rows)


GYM_FILES = {"march_bookings.csv": _export(MARCH), "february_bookings.csv": _export(FEBRUARY)}


def _bookings(keep: Callable[[BookingRow], bool], rows: list[BookingRow] = MARCH) -> list[BookingRow]:
    return [b for b in rows if keep(b)]


def _class(name: str) -> Callable[[BookingRow], bool]:
    return lambda b: b[2] == name


def _came(b: BookingRow) -> bool:
    return b[6] == "yes"


def _fees(rows: list[BookingRow]) -> float:
    return sum(b[5] for b in rows)


def _first_booking(rows: list[BookingRow]) -> BookingRow:
    return min(rows, key=lambda b: (b[3], b[4]))


def _roster(rows: list[BookingRow]) -> list[str]:
    return [roster_line(b[3], b[4], b[2], b[1]) for b in rows]


ParcelRow = tuple[str, str, str, str, float]  # tracking, carrier, city, dispatched, weight_kg

NORTH: list[ParcelRow] = [
    ("PX-4401", "Swiftpost", "Glasgow", "2026-04-01", 2.5),
    ("PX-4402", "Northway", "Cardiff", "2026-04-01", 0.75),
    ("PX-4403", "ParcelLine", "Norwich", "2026-04-01", 5.5),
    ("PX-4404", "Swiftpost", "Belfast", "2026-04-02", 1.25),
    ("PX-4405", "Northway", "Exeter", "2026-04-02", 7.25),
    ("PX-4406", "Swiftpost", "Cardiff", "2026-04-02", 3.0),
    ("PX-4407", "ParcelLine", "Glasgow", "2026-04-03", 0.5),
    ("PX-4408", "Northway", "Norwich", "2026-04-03", 4.75),
    ("PX-4409", "Swiftpost", "Exeter", "2026-04-03", 9.0),
    ("PX-4410", "ParcelLine", "Belfast", "2026-04-06", 2.25),
    ("PX-4411", "Northway", "Glasgow", "2026-04-06", 1.5),
    ("PX-4412", "Swiftpost", "Norwich", "2026-04-06", 6.25),
    ("PX-4413", "ParcelLine", "Cardiff", "2026-04-07", 14.75),
    ("PX-4414", "Northway", "Belfast", "2026-04-07", 0.25),
]
SOUTH: list[ParcelRow] = [
    ("PS-7701", "Northway", "Exeter", "2026-04-01", 3.5),
    ("PS-7702", "Swiftpost", "Cardiff", "2026-04-01", 1.75),
    ("PS-7703", "Swiftpost", "Belfast", "2026-04-02", 6.5),
    ("PS-7704", "ParcelLine", "Norwich", "2026-04-03", 8.25),
    ("PS-7705", "Swiftpost", "Glasgow", "2026-04-06", 2.25),
    ("PS-7706", "Northway", "Cardiff", "2026-04-07", 0.5),
]


def _manifest(rows: list[ParcelRow]) -> str:
    keys = ("tracking", "carrier", "city", "dispatched", "weight_kg")
    return "".join(json.dumps(dict(zip(keys, row, strict=True))) + "\n" for row in rows)


PARCEL_FILES = {"north_depot.jsonl": _manifest(NORTH), "south_depot.jsonl": _manifest(SOUTH)}


def _parcels(keep: Callable[[ParcelRow], bool], rows: list[ParcelRow] = NORTH) -> list[ParcelRow]:
    return [p for p in rows if keep(p)]


def _carrier(name: str) -> Callable[[ParcelRow], bool]:
    return lambda p: p[1] == name


def _mean_weight(rows: list[ParcelRow]) -> float:
    return sum(p[4] for p in rows) / len(rows)


def _heaviest(rows: list[ParcelRow]) -> ParcelRow:
    return max(rows, key=lambda p: p[4])


def _labels(rows: list[ParcelRow]) -> list[str]:
    return [label_line(*p) for p in rows]


GYM_SET = ToolSet(
    "gym",
    GYM_TOOLS,
    GYM_FILES,
    [
        Goal(
            "How many class bookings are there in march_bookings.csv? Save the answer to bookings_total.txt",
            file_number("bookings_total.txt", len(MARCH)),
        ),
        Goal(
            "How much did the gym take in class fees in March? Add up the fees in march_bookings.csv "
            "and put the total in march_fees.txt",
            file_number("march_fees.txt", _fees(MARCH)),
        ),
        Goal(
            "How many spin bookings were there in March (march_bookings.csv)? Write the number to "
            "spin_count.txt",
            file_number("spin_count.txt", len(_bookings(_class("spin")))),
        ),
        Goal(
            "Who didn't turn up for a class they booked? Write the roster lines of the no-shows in "
            "march_bookings.csv to no_shows.txt",
            file_line_multiset("no_shows.txt", _roster(_bookings(lambda b: not _came(b)))),
        ),
        Goal(
            "Put the total fees paid for yoga classes in march_bookings.csv into yoga_fees.txt",
            file_number("yoga_fees.txt", _fees(_bookings(_class("yoga")))),
        ),
        Goal(
            "Who booked the first class of the month? Look in march_bookings.csv and write the "
            "member's name to first_member.txt",
            file_reads("first_member.txt", _first_booking(MARCH)[1]),
        ),
        Goal(
            "How many bookings in march_bookings.csv are for classes from the eighth to the "
            "twenty-first of March 2026? Answer in mid_march.txt",
            file_number("mid_march.txt", len(_bookings(lambda b: "2026-03-08" <= b[3] <= "2026-03-21"))),
        ),
        Goal(
            "Write the class roster for the pilates bookings in march_bookings.csv to pilates_roster.txt",
            file_line_multiset("pilates_roster.txt", _roster(_bookings(_class("pilates")))),
        ),
        Goal(
            "How many boxfit bookings in march_bookings.csv ended up as no-shows? Save the figure to "
            "boxfit_no_shows.txt",
            file_number(
                "boxfit_no_shows.txt", len(_bookings(lambda b: _class("boxfit")(b) and not _came(b)))
            ),
        ),
        Goal(
            "What did the spin classes people actually came to bring in? Sum the fees of the attended "
            "spin bookings in march_bookings.csv and write it to spin_attended_fees.txt",
            file_number("spin_attended_fees.txt", _fees(_bookings(lambda b: _class("spin")(b) and _came(b)))),
        ),
        Goal(
            "Find the first yoga booking of the month in march_bookings.csv and write its booking ID "
            "to first_yoga.txt",
            file_reads("first_yoga.txt", _first_booking(_bookings(_class("yoga")))[0]),
        ),
        Goal(
            "Write the number of bookings in february_bookings.csv and in march_bookings.csv to "
            "monthly_counts.txt, one per line, February first",
            file_numbers_per_line("monthly_counts.txt", [len(FEBRUARY), len(MARCH)]),
        ),
        Goal(
            "How many February bookings were no-shows? Check february_bookings.csv and save the count "
            "to february_no_shows.txt",
            file_number("february_no_shows.txt", len(_bookings(lambda b: not _came(b), FEBRUARY))),
        ),
        Goal(
            'Create gym_notice.txt with the text "Sauna closed for repairs on Sunday"',
            file_reads("gym_notice.txt", "Sauna closed for repairs on Sunday"),
        ),
        Goal(
            "Spin fees for February and for March: total them from february_bookings.csv and "
            "march_bookings.csv and write the two totals to spin_fees_by_month.txt, one per line, "
            "February first",
            file_numbers_per_line(
                "spin_fees_by_month.txt",
                [_fees(_bookings(_class("spin"), FEBRUARY)), _fees(_bookings(_class("spin")))],
            ),
        ),
        Goal(
            "Write the roster lines of the bookings people attended between 23 and 31 March 2026 "
            "(march_bookings.csv) to last_week.txt",
            file_line_multiset(
                "last_week.txt",
                _roster(_bookings(lambda b: "2026-03-23" <= b[3] <= "2026-03-31" and _came(b))),
            ),
        ),
    ],
)

PARCELS_SET = ToolSet(
    "parcels",
    PARCEL_TOOLS,
    PARCEL_FILES,
    [
        Goal(
            "How many parcels are on the north depot's manifest (north_depot.jsonl)? Save the answer "
            "to north_count.txt",
            file_number("north_count.txt", len(NORTH)),
        ),
        Goal(
            "What's the average parcel weight in north_depot.jsonl? Write it, in kilograms, to "
            "avg_weight.txt",
            file_number("avg_weight.txt", _mean_weight(NORTH)),
        ),
        Goal(
            "How many Swiftpost parcels went out from the north depot? Count them in north_depot.jsonl "
            "and write the number to swiftpost.txt",
            file_number("swiftpost.txt", len(_parcels(_carrier("Swiftpost")))),
        ),
        Goal(
            "Print shipping labels for every Northway parcel in north_depot.jsonl into northway_labels.txt",
            file_line_multiset("northway_labels.txt", _labels(_parcels(_carrier("Northway")))),
        ),
        Goal(
            "Which parcel in north_depot.jsonl is the heaviest? Put its tracking number in heaviest.txt",
            file_reads("heaviest.txt", _heaviest(NORTH)[0]),
        ),
        Goal(
            "Where is the heaviest parcel in north_depot.jsonl going? Write the destination city to "
            "heaviest_city.txt",
            file_reads("heaviest_city.txt", _heaviest(NORTH)[2]),
        ),
        Goal(
            "How many parcels left the north depot on the 2nd of April 2026? Use north_depot.jsonl "
            "and save the count to april2.txt",
            file_number("april2.txt", len(_parcels(lambda p: p[3] == "2026-04-02"))),
        ),
        Goal(
            "Count the parcels in north_depot.jsonl that weigh between two and five kilos and write "
            "the count to medium_parcels.txt",
            file_number("medium_parcels.txt", len(_parcels(lambda p: 2 <= p[4] <= 5))),
        ),
        Goal(
            "What is the mean weight of the ParcelLine parcels in north_depot.jsonl? Save it to "
            "parcelline_mean.txt",
            file_number("parcelline_mean.txt", _mean_weight(_parcels(_carrier("ParcelLine")))),
        ),
        Goal(
            "Labels for the parcels dispatched on 6 April 2026 from north_depot.jsonl, please: write "
            "them to april6_labels.txt",
            file_line_multiset("april6_labels.txt", _labels(_parcels(lambda p: p[3] == "2026-04-06"))),
        ),
        Goal(
            "Which Swiftpost parcel in north_depot.jsonl is the heaviest? Write its tracking number to "
            "swiftpost_heaviest.txt",
            file_reads("swiftpost_heaviest.txt", _heaviest(_parcels(_carrier("Swiftpost")))[0]),
        ),
        Goal(
            "How many Northway parcels of at most one kilogram are on north_depot.jsonl? Answer in "
            "light_northway.txt",
            file_number("light_northway.txt", len(_parcels(lambda p: _carrier("Northway")(p) and p[4] <= 1))),
        ),
        Goal(
            "Write the number of parcels on north_depot.jsonl and on south_depot.jsonl to "
            "depot_counts.txt, one per line",
            file_numbers_per_line("depot_counts.txt", [len(NORTH), len(SOUTH)]),
        ),
        Goal(
            'Make a file dock_memo.txt saying "Loading bay 2 shut until Monday"',
            file_reads("dock_memo.txt", "Loading bay 2 shut until Monday"),
        ),
        Goal(
            "What does the heaviest parcel at the south depot (south_depot.jsonl) weigh? Write its "
            "weight in kg to south_heaviest_kg.txt",
            file_number("south_heaviest_kg.txt", _heaviest(SOUTH)[4]),
        ),
        Goal(
            "Average weight of the Swiftpost parcels at each depot: read north_depot.jsonl and "
            "south_depot.jsonl and write the two means to swiftpost_means.txt, one per line, north first",
            file_numbers_per_line(
                "swiftpost_means.txt",
                [
                    _mean_weight(_parcels(_carrier("Swiftpost"))),
                    _mean_weight(_parcels(_carrier("Swiftpost"), SOUTH)),
                ],
            ),
        ),
    ],
)

HELD_OUT_12 = [GYM_SET, PARCELS_SET]

if __name__ == "__main__":
    print(json.dumps({s.name: len(s.goals) for s in HELD_OUT_12}))
