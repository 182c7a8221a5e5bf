"""A thirteenth held-out planning suite: 32 goals over two tool sets the planner has never seen.

Written blind and committed before the planner ever ran on it. Its author read only the suite
framework (``heldout.py``), the eleventh suite (``heldout11.py``, its reference plans and
self-check), the shared self-check (``heldout_selfcheck.py``), the runner (``heldout_run.py``) and
``replay_decided.py`` (only to register the suite), the README's plan syntax section and the plan
model (``src/forethought/plan/model.py``). It did not read the planner (``planning/``), any test,
the planner's prompts, starter plans or memory, any other held-out suite (``heldout12.py``
included), or any earlier result, log or report; it did not run the planner or a model on these
goals. Its first run is the held-out measurement; goals are not edited after it. Every goal asks
for a named file; every check reads the file the executed plan wrote.

``hotel`` is a small hotel's room reservations, a CSV file (booking_ref, guest, room_type,
check_in, nights, paid) read into ``Reservation`` records from a ``bookings_csv``. Filters by room
type (single / double / suite), by arrival date (``first_day`` to ``last_day``, YYYY-MM-DD, both
included; goals write them as "the 1st and the 10th of May 2026" or "May 15 and May 25, 2026") and
by a yes/no flag (``paid``: goals say "not yet paid") chain; nights are added up; the longest stay
is one record whose field a plan has to take (``${sN.guest}``, ``${sN.booking_ref}``,
``${sN.check_in}``). The annex's reservations (``annex.csv``) make two-file goals. The writer is
``save_note(note_path, note_text)``.
``fuel`` is a delivery fleet's fuel log for April, JSON lines (vehicle, date, litres, odometer_km,
station) read from a ``log_file``: filters by vehicle, by date (on or before ``until_date``) and by
a litres range (``at_least``/``at_most``, which goals give in words: "between thirty and fifty
litres"), a count, a mean, the largest fill-up as one record, and fill-ups as report lines.
March's log (``march_log.jsonl``) makes two-file goals. The writer is
``write_summary(summary_file, summary)``.

Each goal's hand-written reference plan is in ``heldout13_reference.py``;
``heldout13_selfcheck.py`` runs them through the real ``Agent`` (no model) and checks the files,
which shows every goal is achievable with these tools and every check accepts a right answer (and,
with ``--broken``, that the checks reject two wrong ones).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable

from heldout import Goal, ToolSet, _inside, file_number, iso_day, read_text, same_text
from heldout11 import file_line_multiset, file_numbers_per_line, file_reads
from pydantic import BaseModel, ValidationError

from forethought import ToolContext, tool
from forethought.errors import ToolError
from forethought.tools.python import PythonTool

# ---------------------------------------------------------------------------- tool set: hotel


class Reservation(BaseModel):
    booking_ref: str
    guest: str
    room_type: str
    check_in: str
    nights: int
    paid: bool


RESERVATION_COLUMNS = ("booking_ref", "guest", "room_type", "check_in", "nights", "paid")
ROOM_TYPES = ("single", "double", "suite")
YES_NO = {"yes": True, "no": False}


@tool
def load_reservations(ctx: ToolContext, bookings_csv: str) -> list[Reservation]:
    """Read the hotel's reservations from a CSV file: one booking per row (booking reference,
    guest name, room type, check-in date, number of nights, paid yes/no)."""
    text = read_text(ctx, bookings_csv, "reservations file")
    reader = csv.DictReader(io.StringIO(text))
    if tuple(reader.fieldnames or ()) != RESERVATION_COLUMNS:
        raise ToolError(
            f"{bookings_csv}: expected the columns {', '.join(RESERVATION_COLUMNS)}, got {reader.fieldnames}",
            retryable=False,
        )
    reservations = []
    for number, row in enumerate(reader, start=2):
        paid = YES_NO.get(row["paid"].strip().lower())
        if paid is None:
            raise ToolError(
                f"{bookings_csv}:{number}: paid must be yes or no, got {row['paid']!r}", retryable=False
            )
        try:
            reservations.append(Reservation(**{**row, "paid": paid}))
        except ValidationError:
            raise ToolError(
                f"{bookings_csv}:{number}: nights must be a whole number, got {row['nights']!r}",
                retryable=False,
            ) from None
    return reservations


@tool
def by_room_type(reservations: list[Reservation], room_type: str) -> list[Reservation]:
    """Keep the reservations for one kind of room: single, double or suite."""
    if room_type.strip().lower() not in ROOM_TYPES:
        raise ToolError(
            f"room_type must be one of {', '.join(ROOM_TYPES)}, got {room_type!r}", retryable=False
        )
    return [r for r in reservations if same_text(r.room_type, room_type)]


@tool
def arriving_between(reservations: list[Reservation], first_day: str, last_day: str) -> list[Reservation]:
    """Keep the reservations whose check-in date is from first_day to last_day, both days
    included (YYYY-MM-DD)."""
    start, end = iso_day(first_day), iso_day(last_day)
    return [r for r in reservations if start <= r.check_in <= end]


@tool
def with_payment(reservations: list[Reservation], paid: bool) -> list[Reservation]:
    """Keep the reservations that are paid (paid=true) or the ones not paid yet (paid=false)."""
    return [r for r in reservations if r.paid == paid]


@tool
def count_reservations(reservations: list[Reservation]) -> int:
    """How many reservations (bookings) there are."""
    return len(reservations)


@tool
def total_nights(reservations: list[Reservation]) -> int:
    """The number of nights booked, added up over the reservations."""
    return sum(r.nights for r in reservations)


@tool
def longest_stay(reservations: list[Reservation]) -> Reservation:
    """The reservation with the most nights, with all its details."""
    if not reservations:
        raise ToolError("no reservations given", retryable=False)
    return max(reservations, key=lambda r: r.nights)


def booking_line(booking_ref: str, guest: str, room_type: str, check_in: str, nights: int) -> str:
    """One reservation as a line of the guest list (the tool's text and the checks' expectation)."""
    return f"{booking_ref} {guest}: {room_type}, {nights} night{'s' if nights != 1 else ''} from {check_in}"


@tool
def guest_list(reservations: list[Reservation]) -> str:
    """Reservations as readable text, one line per booking (reference, guest, room type, nights,
    check-in date)."""
    return "".join(
        booking_line(r.booking_ref, r.guest, r.room_type, r.check_in, r.nights) + "\n" for r in reservations
    )


@tool(effect="mutating", idempotent=True)
def save_note(ctx: ToolContext, note_path: str, note_text: str) -> str:
    """Save a note as a text file in the front-desk workspace (a file of that name is replaced)."""
    _inside(ctx, note_path).write_text(note_text, encoding="utf-8")
    return note_path


HOTEL_TOOLS: list[PythonTool] = [
    load_reservations,
    by_room_type,
    arriving_between,
    with_payment,
    count_reservations,
    total_nights,
    longest_stay,
    guest_list,
    save_note,
]

# ----------------------------------------------------------------------------- tool set: fuel


class FillUp(BaseModel):
    vehicle: str
    date: str
    litres: float
    odometer_km: int
    station: str


@tool
def read_fuel_log(ctx: ToolContext, log_file: str) -> list[FillUp]:
    """Read a fleet fuel log (JSON lines, one fill-up per line: vehicle ID, date, litres,
    odometer reading in km, filling station)."""
    fill_ups = []
    for number, line in enumerate(read_text(ctx, log_file, "fuel log").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            fill_ups.append(FillUp(**json.loads(line)))
        except json.JSONDecodeError as exc:
            raise ToolError(f"{log_file}:{number}: not JSON: {exc}", retryable=False) from None
        except (TypeError, ValidationError) as exc:
            raise ToolError(f"{log_file}:{number}: not a fill-up: {exc}", retryable=False) from None
    return fill_ups


@tool
def for_vehicle(fill_ups: list[FillUp], vehicle_id: str) -> list[FillUp]:
    """Only the fill-ups of one vehicle, given its fleet ID (e.g. VAN-01)."""
    return [f for f in fill_ups if same_text(f.vehicle, vehicle_id)]


@tool
def filled_until(fill_ups: list[FillUp], until_date: str) -> list[FillUp]:
    """Only the fill-ups made on or before a date (YYYY-MM-DD)."""
    day = iso_day(until_date)
    return [f for f in fill_ups if f.date <= day]


@tool
def litres_between(fill_ups: list[FillUp], at_least: float, at_most: float) -> list[FillUp]:
    """Only the fill-ups of at_least to at_most litres, both limits included."""
    return [f for f in fill_ups if at_least <= f.litres <= at_most]


@tool
def count_fill_ups(fill_ups: list[FillUp]) -> int:
    """Number of fill-ups (refuelling stops)."""
    return len(fill_ups)


@tool
def average_litres(fill_ups: list[FillUp]) -> float:
    """Mean amount of fuel per fill-up, in litres."""
    if not fill_ups:
        raise ToolError("no fill-ups given", retryable=False)
    return sum(f.litres for f in fill_ups) / len(fill_ups)


@tool
def largest_fill_up(fill_ups: list[FillUp]) -> FillUp:
    """The fill-up with the most litres, with all its details."""
    if not fill_ups:
        raise ToolError("no fill-ups given", retryable=False)
    return max(fill_ups, key=lambda f: f.litres)


def fill_up_line(vehicle: str, date: str, litres: float, station: str) -> str:
    """One fill-up as a report line (the tool's text and the checks' expectation)."""
    return f"{date} {vehicle}: {litres:.1f} L at {station}"


@tool
def fill_up_lines(fill_ups: list[FillUp]) -> str:
    """Fill-ups as report text, one line each (date, vehicle, litres, station)."""
    return "".join(fill_up_line(f.vehicle, f.date, f.litres, f.station) + "\n" for f in fill_ups)


@tool(effect="mutating", idempotent=True)
def write_summary(ctx: ToolContext, summary_file: str, summary: str) -> str:
    """Write a summary into a text file in the fleet office workspace (created or overwritten)."""
    _inside(ctx, summary_file).write_text(summary, encoding="utf-8")
    return summary_file


FUEL_TOOLS: list[PythonTool] = [
    read_fuel_log,
    for_vehicle,
    filled_until,
    litres_between,
    count_fill_ups,
    average_litres,
    largest_fill_up,
    fill_up_lines,
    write_summary,
]

# ------------------------------------------------------------------------------- the goals

ReservationRow = tuple[str, str, str, str, int, str]  # booking_ref, guest, room_type, check_in, nights, paid

RESERVATIONS: list[ReservationRow] = [
    ("HR-201", "Ana Costa", "double", "2026-05-02", 3, "yes"),
    ("HR-202", "Ben Okafor", "single", "2026-05-03", 1, "no"),
    ("HR-203", "Chloe Martin", "suite", "2026-05-05", 4, "yes"),
    ("HR-204", "Daniel Weiss", "double", "2026-05-08", 2, "no"),
    ("HR-205", "Elena Petrova", "single", "2026-05-09", 5, "yes"),
    ("HR-206", "Farid Haddad", "suite", "2026-05-12", 2, "no"),
    ("HR-207", "Grace Liu", "double", "2026-05-14", 6, "yes"),
    ("HR-208", "Hugo Blanc", "single", "2026-05-16", 2, "no"),
    ("HR-209", "Isla Brown", "double", "2026-05-19", 1, "yes"),
    ("HR-210", "Jonas Berg", "suite", "2026-05-22", 3, "no"),
    ("HR-211", "Kira Sato", "double", "2026-05-27", 4, "no"),
    ("HR-212", "Luca Romano", "single", "2026-05-30", 3, "yes"),
]
ANNEX: list[ReservationRow] = [
    ("HA-301", "Mona Aziz", "single", "2026-05-04", 2, "yes"),
    ("HA-302", "Noah Fischer", "double", "2026-05-10", 5, "no"),
    ("HA-303", "Olga Ivanova", "double", "2026-05-16", 1, "no"),
    ("HA-304", "Pedro Alves", "suite", "2026-05-21", 3, "yes"),
    ("HA-305", "Quinn Murphy", "single", "2026-05-28", 2, "no"),
]


def _bookings_csv(rows: list[ReservationRow]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(RESERVATION_COLUMNS)
    writer.writerows(rows)
    return out.getvalue()


HOTEL_FILES = {"reservations.csv": _bookings_csv(RESERVATIONS), "annex.csv": _bookings_csv(ANNEX)}


def _bookings(
    keep: Callable[[ReservationRow], bool], rows: list[ReservationRow] = RESERVATIONS
) -> list[ReservationRow]:
    return [r for r in rows if keep(r)]


def _room(kind: str) -> Callable[[ReservationRow], bool]:
    return lambda r: r[2] == kind


def _unpaid(r: ReservationRow) -> bool:
    return r[5] == "no"


def _nights(rows: list[ReservationRow]) -> int:
    return sum(r[4] for r in rows)


def _longest(rows: list[ReservationRow]) -> ReservationRow:
    return max(rows, key=lambda r: r[4])


def _booking_lines(rows: list[ReservationRow]) -> list[str]:
    return [booking_line(*r[:5]) for r in rows]


FillUpRow = tuple[str, str, float, int, str]  # vehicle, date, litres, odometer_km, station

APRIL: list[FillUpRow] = [
    ("VAN-01", "2026-04-01", 52.0, 48210, "Ringway North"),
    ("VAN-02", "2026-04-02", 38.5, 31544, "Harbour Road"),
    ("TRK-07", "2026-04-03", 110.0, 120877, "Depot pump"),
    ("VAN-01", "2026-04-06", 47.5, 48795, "Ringway North"),
    ("CAR-04", "2026-04-08", 31.2, 22310, "Market Street"),
    ("TRK-07", "2026-04-09", 96.4, 121630, "Depot pump"),
    ("VAN-02", "2026-04-13", 41.0, 32102, "Ringway North"),
    ("CAR-04", "2026-04-15", 28.8, 22768, "Harbour Road"),
    ("VAN-01", "2026-04-17", 55.3, 49460, "Market Street"),
    ("TRK-07", "2026-04-20", 118.6, 122489, "Harbour Road"),
    ("VAN-02", "2026-04-22", 36.9, 32611, "Depot pump"),
    ("CAR-04", "2026-04-24", 33.3, 23204, "Ringway North"),
    ("VAN-01", "2026-04-27", 49.9, 50102, "Depot pump"),
    ("TRK-07", "2026-04-29", 102.7, 123301, "Depot pump"),
]
MARCH: list[FillUpRow] = [
    ("VAN-01", "2026-03-04", 50.1, 46950, "Ringway North"),
    ("TRK-07", "2026-03-10", 105.2, 118402, "Depot pump"),
    ("CAR-04", "2026-03-18", 30.0, 21455, "Market Street"),
    ("VAN-02", "2026-03-25", 44.7, 30870, "Harbour Road"),
]


def _log(rows: list[FillUpRow]) -> str:
    keys = ("vehicle", "date", "litres", "odometer_km", "station")
    return "".join(json.dumps(dict(zip(keys, row, strict=True))) + "\n" for row in rows)


FUEL_FILES = {"fuel_log.jsonl": _log(APRIL), "march_log.jsonl": _log(MARCH)}


def _fills(keep: Callable[[FillUpRow], bool], rows: list[FillUpRow] = APRIL) -> list[FillUpRow]:
    return [f for f in rows if keep(f)]


def _vehicle(vehicle_id: str) -> Callable[[FillUpRow], bool]:
    return lambda f: f[0] == vehicle_id


def _mean_litres(rows: list[FillUpRow]) -> float:
    return sum(f[2] for f in rows) / len(rows)


def _biggest(rows: list[FillUpRow]) -> FillUpRow:
    return max(rows, key=lambda f: f[2])


def _fill_lines(rows: list[FillUpRow]) -> list[str]:
    return [fill_up_line(f[0], f[1], f[2], f[4]) for f in rows]


HOTEL_SET = ToolSet(
    "hotel",
    HOTEL_TOOLS,
    HOTEL_FILES,
    [
        Goal(
            "How many reservations are there in reservations.csv? Save the answer to bookings_count.txt",
            file_number("bookings_count.txt", len(RESERVATIONS)),
        ),
        Goal(
            "Add up all the nights booked in reservations.csv and write the total to nights_total.txt",
            file_number("nights_total.txt", _nights(RESERVATIONS)),
        ),
        Goal(
            "suites.txt: the guest list lines for every suite booking in reservations.csv",
            file_line_multiset("suites.txt", _booking_lines(_bookings(_room("suite")))),
        ),
        Goal(
            "Which bookings in reservations.csv are not yet paid? Put them in unpaid.txt, one per line",
            file_line_multiset("unpaid.txt", _booking_lines(_bookings(_unpaid))),
        ),
        Goal(
            "How many single rooms have been booked? Count them in reservations.csv and write the number "
            "to singles.txt",
            file_number("singles.txt", len(_bookings(_room("single")))),
        ),
        Goal(
            "Who is staying the longest? Look in reservations.csv and write the guest's name to "
            "longest_guest.txt",
            file_reads("longest_guest.txt", _longest(RESERVATIONS)[1]),
        ),
        Goal(
            "Give me the booking reference of the longest suite stay in reservations.csv, saved in "
            "long_suite_ref.txt",
            file_reads("long_suite_ref.txt", _longest(_bookings(_room("suite")))[0]),
        ),
        Goal(
            "Count the guests arriving between the 1st and the 10th of May 2026 (reservations.csv) and "
            "save the count to early_may.txt",
            file_number("early_may.txt", len(_bookings(lambda r: "2026-05-01" <= r[3] <= "2026-05-10"))),
        ),
        Goal(
            "How many nights are booked in double rooms? reservations.csv -> double_nights.txt",
            file_number("double_nights.txt", _nights(_bookings(_room("double")))),
        ),
        Goal(
            "Of the reservations in reservations.csv that haven't been paid, how many nights do they add "
            "up to? Write it in unpaid_nights.txt",
            file_number("unpaid_nights.txt", _nights(_bookings(_unpaid))),
        ),
        Goal(
            "Among the unpaid bookings in reservations.csv, find the longest stay and write its check-in "
            "date to chase_first.txt",
            file_reads("chase_first.txt", _longest(_bookings(_unpaid))[3]),
        ),
        Goal(
            "List the reservations arriving between May 15 and May 25, 2026 that are still unpaid "
            "(reservations.csv) in mid_may_unpaid.txt",
            file_line_multiset(
                "mid_may_unpaid.txt",
                _booking_lines(_bookings(lambda r: "2026-05-15" <= r[3] <= "2026-05-25" and _unpaid(r))),
            ),
        ),
        Goal(
            "Compare nights booked in the main building (reservations.csv) and the annex (annex.csv): "
            "write the main building's total on the first line of nights_compare.txt and the annex's on "
            "the second",
            file_numbers_per_line("nights_compare.txt", [_nights(RESERVATIONS), _nights(ANNEX)]),
        ),
        Goal(
            "annex_unpaid.txt: the number of bookings in annex.csv that have not been paid",
            file_number("annex_unpaid.txt", len(_bookings(_unpaid, ANNEX))),
        ),
        Goal(
            'Create a file called breakfast.txt saying "Breakfast is served from 7 to 10"',
            file_reads("breakfast.txt", "Breakfast is served from 7 to 10"),
        ),
        Goal(
            "Show the double-room bookings of the annex (annex.csv) in annex_doubles.txt",
            file_line_multiset("annex_doubles.txt", _booking_lines(_bookings(_room("double"), ANNEX))),
        ),
    ],
)

FUEL_SET = ToolSet(
    "fuel",
    FUEL_TOOLS,
    FUEL_FILES,
    [
        Goal(
            "How many fill-ups are recorded in fuel_log.jsonl? Save the answer to fillups.txt",
            file_number("fillups.txt", len(APRIL)),
        ),
        Goal(
            "What's the average fill-up in litres in fuel_log.jsonl? Write it to avg_litres.txt",
            file_number("avg_litres.txt", _mean_litres(APRIL)),
        ),
        Goal(
            "List every fill-up of VAN-02 from fuel_log.jsonl in van02.txt",
            file_line_multiset("van02.txt", _fill_lines(_fills(_vehicle("VAN-02")))),
        ),
        Goal(
            "How many times did TRK-07 refuel? Use fuel_log.jsonl and put the number in trk07_count.txt",
            file_number("trk07_count.txt", len(_fills(_vehicle("TRK-07")))),
        ),
        Goal(
            "Which vehicle had the biggest fill-up in fuel_log.jsonl? Write its ID to biggest_vehicle.txt",
            file_reads("biggest_vehicle.txt", _biggest(APRIL)[0]),
        ),
        Goal(
            "biggest_station.txt: the name of the station where the largest fill-up in fuel_log.jsonl "
            "was made",
            file_reads("biggest_station.txt", _biggest(APRIL)[4]),
        ),
        Goal(
            "Count the fill-ups of between thirty and fifty litres in fuel_log.jsonl and put the count "
            "in mid_size.txt",
            file_number("mid_size.txt", len(_fills(lambda f: 30 <= f[2] <= 50))),
        ),
        Goal(
            "How many fill-ups were logged on or before 10 April 2026? Check fuel_log.jsonl and answer in "
            "early_april.txt",
            file_number("early_april.txt", len(_fills(lambda f: f[1] <= "2026-04-10"))),
        ),
        Goal(
            "Average litres per fill-up for CAR-04 (fuel_log.jsonl)? Save it as car04_avg.txt",
            file_number("car04_avg.txt", _mean_litres(_fills(_vehicle("CAR-04")))),
        ),
        Goal(
            "What was VAN-01's largest single fill-up, in litres? Look in fuel_log.jsonl and write the "
            "litres to van01_max.txt",
            file_number("van01_max.txt", _biggest(_fills(_vehicle("VAN-01")))[2]),
        ),
        Goal(
            "Write VAN-01's fill-ups up to and including April 15th, 2026 from fuel_log.jsonl to "
            "van01_first_half.txt",
            file_line_multiset(
                "van01_first_half.txt",
                _fill_lines(_fills(lambda f: f[0] == "VAN-01" and f[1] <= "2026-04-15")),
            ),
        ),
        Goal(
            "What was the mean fill-up, in litres, over the fill-ups logged through the 20th of April 2026? "
            "fuel_log.jsonl -> avg_to_20th.txt",
            file_number("avg_to_20th.txt", _mean_litres(_fills(lambda f: f[1] <= "2026-04-20"))),
        ),
        Goal(
            "Average fill-up in March (march_log.jsonl) against April (fuel_log.jsonl): write both averages "
            "to compare_avg.txt, March first, one per line",
            file_numbers_per_line("compare_avg.txt", [_mean_litres(MARCH), _mean_litres(APRIL)]),
        ),
        Goal(
            "Write all the fill-ups in march_log.jsonl to march_report.txt",
            file_line_multiset("march_report.txt", _fill_lines(MARCH)),
        ),
        Goal(
            'create a file named reminder.txt that says "Service TRK-07 before May"',
            file_reads("reminder.txt", "Service TRK-07 before May"),
        ),
        Goal(
            "How many of VAN-02's fill-ups were under forty litres? fuel_log.jsonl, answer in "
            "van02_small.txt",
            file_number("van02_small.txt", len(_fills(lambda f: f[0] == "VAN-02" and f[2] < 40))),
        ),
    ],
)

HELD_OUT_13 = [HOTEL_SET, FUEL_SET]

if __name__ == "__main__":
    print(json.dumps({s.name: len(s.goals) for s in HELD_OUT_13}))
