"""A fifteenth held-out planning suite: 32 goals over two tool sets the planner has never seen.

Written blind and committed before the planner ever ran on it. Its author read only the suite
framework (``heldout.py``), the fourteenth suite (``heldout14.py``, its reference plans and
self-check), the three file checks of the eleventh suite that the fourteenth imports (and that
this one imports too), the shared self-check (``heldout_selfcheck.py``), the runner
(``heldout_run.py``) and ``replay_decided.py`` (only to register the suite), the README's plan
syntax section and the plan model (``src/forethought/plan/model.py``). It did not read the
planner (``planning/``), any test, the planner's prompts, starter plans or memory, any other
held-out suite, or any earlier result, log or report; it did not run the planner or a model on
these goals. Its first run is the held-out measurement; goals are not edited after it. Every goal
asks for a named file; every check reads the file the executed plan wrote, and accepts a trailing
newline, a number as ``60.6`` or ``60.60``, a rain or temperature answer followed by its unit
(``60.6 mm``, ``10.8 °C``), a screen as ``2``, ``S2`` or ``Screen 2`` and listing lines in any order.

``cinema`` is a picture house's week of screenings, a line-based text format: a day header
(``[Sat 2026-09-05]``), then one screening per line (start time, screen ``S2``, the quoted film
title, its certificate, its length ``104min`` and ``sold=77/80`` tickets of seats), read from a
``programme_file`` into ``Screening`` records. Filters by film, by day (``day``, YYYY-MM-DD; goals
write "Sunday the sixth of September 2026" or "5 September 2026"), by start time (``earliest``,
24-hour HH:MM; goals write "8 pm or later") and by screen number chain; a count, the tickets
sold, the best-selling screening as one record whose field a plan has to take (``${sN.film}``,
``${sN.start}``, ``${sN.screen}``, ``${sN.date}``) and screenings as listing lines. Next week's
programme (``next_week.txt``) makes two-file goals. The writer is ``post_notice(notice_path,
wording)``.
``weather`` is a weather station's daily log in whitespace-aligned columns under a header line
(``date rain high low wind``: rain in mm, the day's high and low in degrees C, the prevailing
wind as a compass point), read from a ``log_file`` into ``Reading`` records. Filters by a date
range (``first_day`` to ``last_day``, inclusive; goals write "from the 6th to the 12th of March
2026"), by rain of at least some millimetres (goals write "five millimetres or more") and by
wind direction (goals write "from the west" or "south-westerly"; the tool takes ``W`` or ``SW``)
chain; a count of days, the rainfall total, the mean daily high, the wettest day as one record
(``${sN.date}``, ``${sN.rain_mm}``) and readings as report lines. A second station's log
(``valley.txt``) makes two-file goals. The writer is ``write_summary(summary_path,
summary_text)``.

Each goal's hand-written reference plan is in ``heldout15_reference.py``;
``heldout15_selfcheck.py`` runs them through the real ``Agent`` (no model) and checks the files,
which shows every goal is achievable with these tools and every check accepts a right answer (and,
with ``--broken``, that the checks reject three wrong ones).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from heldout import Check, Goal, ToolSet, _inside, _text, file_number, iso_day, read_text, same_text
from heldout11 import file_line_multiset as file_holds_lines
from heldout11 import file_numbers_per_line as file_numbers_by_line
from heldout11 import file_reads
from pydantic import BaseModel

from forethought import ToolContext, tool
from forethought.errors import ToolError
from forethought.tools.python import PythonTool

# ------------------------------------------------------------------------------- the checks


def file_screen(name: str, screen: int) -> Check:
    """The file names screen ``screen``, written ``2``, ``S2`` or ``Screen 2``."""

    def check(ws: Path) -> bool:
        text = _text(ws, name)
        if text is None:
            return False
        bare = text.strip().lower().removeprefix("screen").strip().removeprefix("s").strip()
        return bare == str(screen)

    return check


def file_quantity(name: str, value: float, units: tuple[str, ...]) -> Check:
    """The file holds the number ``value``, bare or followed by one of ``units`` (``60.6``,
    ``60.6 mm``)."""

    def check(ws: Path) -> bool:
        text = _text(ws, name)
        if text is None:
            return False
        number = text.strip()
        for unit in units:
            if number.lower().endswith(unit.lower()):
                number = number[: -len(unit)].strip()
                break
        try:
            return abs(float(number) - value) < 1e-9
        except ValueError:
            return False

    return check


# --------------------------------------------------------------------------- tool set: cinema


class Screening(BaseModel):
    film: str
    date: str
    start: str
    screen: int
    certificate: str
    minutes: int
    sold: int
    seats: int


CERTIFICATES = ("U", "PG", "12A", "15", "18")
DAY_HEADER = re.compile(r"\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?P<date>\d{4}-\d{2}-\d{2})\]")
SCREENING_LINE = re.compile(
    r"(?P<start>\d{2}:\d{2})\s+S(?P<screen>\d+)\s+\"(?P<film>[^\"]+)\"\s+(?P<certificate>\S+)"
    r"\s+(?P<minutes>\d+)min\s+sold=(?P<sold>\d+)/(?P<seats>\d+)"
)
CLOCK = re.compile(r"([01]\d|2[0-3]):[0-5]\d")


def clock_time(value: str) -> str:
    """``value`` stripped when it is a 24-hour HH:MM time; else a ``ToolError`` saying the form."""
    if not CLOCK.fullmatch(value.strip()):
        raise ToolError(f"times are written HH:MM on the 24-hour clock, got {value!r}", retryable=False)
    return value.strip()


def _screening(programme_file: str, number: int, line: str, date: str | None) -> Screening:
    found = SCREENING_LINE.fullmatch(line)
    if found is None:
        raise ToolError(f"{programme_file}:{number}: not a screening line: {line!r}", retryable=False)
    if date is None:
        raise ToolError(
            f"{programme_file}:{number}: a screening before any [Day YYYY-MM-DD] header", retryable=False
        )
    if found["certificate"] not in CERTIFICATES:
        raise ToolError(
            f"{programme_file}:{number}: certificate must be one of {', '.join(CERTIFICATES)}, "
            f"got {found['certificate']!r}",
            retryable=False,
        )
    return Screening(
        film=found["film"],
        date=date,
        start=found["start"],
        screen=int(found["screen"]),
        certificate=found["certificate"],
        minutes=int(found["minutes"]),
        sold=int(found["sold"]),
        seats=int(found["seats"]),
    )


@tool
def read_programme(ctx: ToolContext, programme_file: str) -> list[Screening]:
    """Read a cinema programme: a day header like [Sat 2026-09-05], then that day's screenings,
    one per line: start time, screen (S1, S2, ...), the film's title in quotes, its certificate
    (U, PG, 12A, 15, 18), its length in minutes and the tickets sold out of the seats
    (sold=77/80). Lines starting with # are comments."""
    screenings = []
    date: str | None = None
    for number, raw in enumerate(read_text(ctx, programme_file, "programme").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        header = DAY_HEADER.fullmatch(line)
        if header is not None:
            date = header["date"]
            continue
        screenings.append(_screening(programme_file, number, line, date))
    return screenings


@tool
def showings_of(screenings: list[Screening], film: str) -> list[Screening]:
    """Only the screenings of one film (its title as in the programme)."""
    return [s for s in screenings if same_text(s.film, film)]


@tool
def showing_on(screenings: list[Screening], day: str) -> list[Screening]:
    """Only the screenings on one day (YYYY-MM-DD)."""
    date = iso_day(day)
    return [s for s in screenings if s.date == date]


@tool
def starting_from(screenings: list[Screening], earliest: str) -> list[Screening]:
    """Only the screenings that start at or after a time of day (HH:MM, 24-hour clock)."""
    time = clock_time(earliest)
    return [s for s in screenings if s.start >= time]


@tool
def in_screen(screenings: list[Screening], screen: int) -> list[Screening]:
    """Only the screenings in one screen (auditorium), by its number."""
    return [s for s in screenings if s.screen == screen]


@tool
def count_screenings(screenings: list[Screening]) -> int:
    """How many screenings (showings) there are."""
    return len(screenings)


@tool
def tickets_sold(screenings: list[Screening]) -> int:
    """Total number of tickets sold for the screenings."""
    return sum(s.sold for s in screenings)


@tool
def best_seller(screenings: list[Screening]) -> Screening:
    """The screening that sold the most tickets, with all its details (film, date, start time,
    screen, certificate, minutes, tickets sold, seats)."""
    if not screenings:
        raise ToolError("no screenings given", retryable=False)
    return max(screenings, key=lambda s: s.sold)


def listing_line(
    film: str, date: str, start: str, screen: int, certificate: str, minutes: int, sold: int, seats: int
) -> str:
    """One screening as a line of a listing (the tool's text and the checks' expectation)."""
    return f"{date} {start} Screen {screen}: {film} ({certificate}, {minutes} min) - {sold}/{seats} sold"


@tool
def screening_listing(screenings: list[Screening]) -> str:
    """Screenings as readable text, one line each: date, start, screen, film (certificate,
    minutes) and tickets sold out of seats."""
    return "".join(
        listing_line(s.film, s.date, s.start, s.screen, s.certificate, s.minutes, s.sold, s.seats) + "\n"
        for s in screenings
    )


@tool(effect="mutating", idempotent=True)
def post_notice(ctx: ToolContext, notice_path: str, wording: str) -> str:
    """Put up a notice: write its wording to a file of the cinema's folder (a file of that name
    is replaced)."""
    _inside(ctx, notice_path).write_text(wording, encoding="utf-8")
    return notice_path


CINEMA_TOOLS: list[PythonTool] = [
    read_programme,
    showings_of,
    showing_on,
    starting_from,
    in_screen,
    count_screenings,
    tickets_sold,
    best_seller,
    screening_listing,
    post_notice,
]

# -------------------------------------------------------------------------- tool set: weather


class Reading(BaseModel):
    date: str
    rain_mm: float
    high_c: float
    low_c: float
    wind: str


COMPASS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
LOG_COLUMNS = ["date", "rain", "high", "low", "wind"]


def _reading(log_file: str, number: int, line: str) -> Reading:
    fields = line.split()
    if len(fields) != len(LOG_COLUMNS):
        raise ToolError(
            f"{log_file}:{number}: expected date rain high low wind, got {line!r}", retryable=False
        )
    date, rain, high, low, wind = fields
    if wind not in COMPASS:
        raise ToolError(f"{log_file}:{number}: wind must be a compass point, got {wind!r}", retryable=False)
    try:
        return Reading(
            date=iso_day(date), rain_mm=float(rain), high_c=float(high), low_c=float(low), wind=wind
        )
    except ValueError:
        raise ToolError(
            f"{log_file}:{number}: rain, high and low must be numbers: {line!r}", retryable=False
        ) from None


@tool
def read_station_log(ctx: ToolContext, log_file: str) -> list[Reading]:
    """Read a weather station's daily log: a header line "date rain high low wind", then one day
    per line in columns: the date (YYYY-MM-DD), rain in millimetres, the day's high and low
    temperature in degrees C and the prevailing wind as a compass point (N, NE, E, SE, S, SW, W,
    NW). Lines starting with # are comments."""
    readings = []
    header_seen = False
    for number, raw in enumerate(read_text(ctx, log_file, "station log").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if not header_seen:
            if line.lower().split() != LOG_COLUMNS:
                raise ToolError(
                    f"{log_file}:{number}: expected the header {' '.join(LOG_COLUMNS)!r}", retryable=False
                )
            header_seen = True
            continue
        readings.append(_reading(log_file, number, line))
    return readings


@tool
def between_dates(readings: list[Reading], first_day: str, last_day: str) -> list[Reading]:
    """Only the days from first_day to last_day, both included (YYYY-MM-DD)."""
    first, last = iso_day(first_day), iso_day(last_day)
    return [r for r in readings if first <= r.date <= last]


@tool
def rain_at_least(readings: list[Reading], millimetres: float) -> list[Reading]:
    """Only the days on which at least this much rain fell, in millimetres."""
    return [r for r in readings if r.rain_mm >= millimetres]


@tool
def wind_from(readings: list[Reading], direction: str) -> list[Reading]:
    """Only the days whose prevailing wind came from a direction, as a compass point: N, NE, E,
    SE, S, SW, W or NW."""
    point = direction.strip().upper()
    if point not in COMPASS:
        raise ToolError(
            f"directions are compass points ({', '.join(COMPASS)}), got {direction!r}", retryable=False
        )
    return [r for r in readings if r.wind == point]


@tool
def count_days(readings: list[Reading]) -> int:
    """How many days (daily readings) there are."""
    return len(readings)


@tool
def total_rainfall(readings: list[Reading]) -> float:
    """Total rain over the days, in millimetres (to a tenth of a millimetre)."""
    return round(sum(r.rain_mm for r in readings), 1)


@tool
def mean_high(readings: list[Reading]) -> float:
    """Average (mean) of the days' high (maximum) temperatures, in degrees C, to a tenth of a
    degree."""
    if not readings:
        raise ToolError("no readings given", retryable=False)
    return round(sum(r.high_c for r in readings) / len(readings), 1)


@tool
def wettest_day(readings: list[Reading]) -> Reading:
    """The day with the most rain, with all its readings (date, rain in mm, high and low in
    degrees C, wind)."""
    if not readings:
        raise ToolError("no readings given", retryable=False)
    return max(readings, key=lambda r: r.rain_mm)


def reading_line(date: str, rain_mm: float, high_c: float, low_c: float, wind: str) -> str:
    """One day as a report line (the tool's text and the checks' expectation)."""
    return f"{date}: {rain_mm:.1f} mm rain, high {high_c:.1f} C, low {low_c:.1f} C, wind {wind}"


@tool
def reading_lines(readings: list[Reading]) -> str:
    """Daily readings as report text, one line per day (date, rain, high, low, wind)."""
    return "".join(reading_line(r.date, r.rain_mm, r.high_c, r.low_c, r.wind) + "\n" for r in readings)


@tool(effect="mutating", idempotent=True)
def write_summary(ctx: ToolContext, summary_path: str, summary_text: str) -> str:
    """Write a summary text to a file in the station's folder (created, or replaced if it
    exists)."""
    _inside(ctx, summary_path).write_text(summary_text, encoding="utf-8")
    return summary_path


WEATHER_TOOLS: list[PythonTool] = [
    read_station_log,
    between_dates,
    rain_at_least,
    wind_from,
    count_days,
    total_rainfall,
    mean_high,
    wettest_day,
    reading_lines,
    write_summary,
]

# ------------------------------------------------------------------------------- the goals

# film, date, start, screen, certificate, minutes, sold, seats
ScreeningRow = tuple[str, str, str, int, str, int, int, int]

ORCHARD = ("The Quiet Orchard", "12A", 104)
SIGNAL = ("Northern Signal", "15", 132)
SALT = ("Salt Road", "15", 121)
MOONS = ("Paper Moons", "U", 88)
LADDER = ("A Ladder of Clouds", "PG", 97)
LANTERN = ("The Lantern Keeper", "12A", 110)
SEATS = {1: 120, 2: 80, 3: 60}


def _show(film: tuple[str, str, int], date: str, start: str, screen: int, sold: int) -> ScreeningRow:
    title, certificate, minutes = film
    return (title, date, start, screen, certificate, minutes, sold, SEATS[screen])


THIS_WEEK: list[ScreeningRow] = [
    _show(MOONS, "2026-09-04", "14:00", 2, 41),
    _show(ORCHARD, "2026-09-04", "18:00", 1, 63),
    _show(SIGNAL, "2026-09-04", "20:30", 1, 97),
    _show(SALT, "2026-09-04", "21:00", 2, 74),
    _show(MOONS, "2026-09-05", "11:00", 2, 72),
    _show(LADDER, "2026-09-05", "15:30", 1, 88),
    _show(ORCHARD, "2026-09-05", "18:15", 3, 39),
    _show(SIGNAL, "2026-09-05", "20:00", 1, 118),
    _show(SALT, "2026-09-05", "20:45", 2, 58),
    _show(LADDER, "2026-09-06", "13:00", 1, 74),
    _show(MOONS, "2026-09-06", "16:00", 3, 58),
    _show(ORCHARD, "2026-09-06", "19:00", 2, 77),
    _show(SIGNAL, "2026-09-06", "20:30", 1, 91),
    _show(SALT, "2026-09-07", "19:30", 3, 22),
    _show(ORCHARD, "2026-09-07", "20:15", 1, 35),
]
NEXT_WEEK: list[ScreeningRow] = [
    _show(SIGNAL, "2026-09-11", "18:00", 1, 84),
    _show(LANTERN, "2026-09-11", "20:00", 2, 71),
    _show(MOONS, "2026-09-12", "14:00", 3, 45),
    _show(LANTERN, "2026-09-12", "17:30", 1, 102),
    _show(SALT, "2026-09-12", "20:30", 2, 60),
    _show(LADDER, "2026-09-13", "15:00", 1, 66),
]
WEEKDAYS = {"2026-09-04": "Fri", "2026-09-05": "Sat", "2026-09-06": "Sun", "2026-09-07": "Mon"}
WEEKDAYS |= {"2026-09-11": "Fri", "2026-09-12": "Sat", "2026-09-13": "Sun"}


def _programme(title: str, rows: list[ScreeningRow]) -> str:
    lines = [f"# Regent Picture House - {title}", "# start  screen  film  certificate  length  tickets"]
    day = ""
    for film, date, start, screen, certificate, minutes, sold, seats in rows:
        if date != day:
            lines.append(f"[{WEEKDAYS[date]} {date}]")
            day = date
        lines.append(f'{start}  S{screen}  "{film}"  {certificate}  {minutes}min  sold={sold}/{seats}')
    return "\n".join(lines) + "\n"


CINEMA_FILES = {
    "programme.txt": _programme("programme, 4 to 7 September 2026", THIS_WEEK),
    "next_week.txt": _programme("programme, 11 to 13 September 2026", NEXT_WEEK),
}


def _screenings(
    keep: Callable[[ScreeningRow], bool], rows: list[ScreeningRow] = THIS_WEEK
) -> list[ScreeningRow]:
    return [s for s in rows if keep(s)]


def _film(title: str) -> Callable[[ScreeningRow], bool]:
    return lambda s: s[0] == title


def _on(date: str) -> Callable[[ScreeningRow], bool]:
    return lambda s: s[1] == date


def _sold(rows: list[ScreeningRow]) -> int:
    return sum(s[6] for s in rows)


def _best(rows: list[ScreeningRow]) -> ScreeningRow:
    return max(rows, key=lambda s: s[6])


def _listing(rows: list[ScreeningRow]) -> list[str]:
    return [listing_line(*s) for s in rows]


ReadingRow = tuple[str, float, float, float, str]  # date, rain mm, high C, low C, wind

HILLTOP: list[ReadingRow] = [
    ("2026-03-01", 0.0, 11.2, 2.4, "SW"),
    ("2026-03-02", 12.6, 9.8, 4.1, "W"),
    ("2026-03-03", 4.2, 8.5, 1.9, "W"),
    ("2026-03-04", 0.0, 10.1, -1.5, "N"),
    ("2026-03-05", 0.3, 12.4, 0.2, "NE"),
    ("2026-03-06", 7.8, 9.3, 3.6, "SW"),
    ("2026-03-07", 18.4, 8.1, 5.0, "SW"),
    ("2026-03-08", 2.1, 10.6, 3.3, "W"),
    ("2026-03-09", 0.0, 13.9, 1.1, "S"),
    ("2026-03-10", 0.0, 14.6, 2.8, "S"),
    ("2026-03-11", 5.5, 11.0, 4.4, "SW"),
    ("2026-03-12", 9.1, 9.7, 3.9, "W"),
    ("2026-03-13", 0.6, 10.4, -0.8, "SW"),
    ("2026-03-14", 0.0, 12.2, -2.3, "N"),
]
VALLEY: list[ReadingRow] = [
    ("2026-03-01", 0.0, 12.8, 4.0, "SW"),
    ("2026-03-02", 16.3, 11.1, 5.2, "W"),
    ("2026-03-03", 3.0, 10.2, 3.5, "W"),
    ("2026-03-04", 0.0, 11.9, 0.4, "N"),
    ("2026-03-05", 0.0, 13.7, 1.8, "NE"),
    ("2026-03-06", 5.2, 10.8, 4.9, "SW"),
    ("2026-03-07", 11.9, 9.6, 6.1, "SW"),
]


def _station_log(name: str, rows: list[ReadingRow]) -> str:
    head = f"# {name} weather station, March 2026\n# rain in mm, high and low in degrees C\n"
    head += f"{'date':<12}{'rain':>6}{'high':>7}{'low':>7}  wind\n"
    return head + "".join(
        f"{date:<12}{rain:>6.1f}{high:>7.1f}{low:>7.1f}  {wind}\n" for date, rain, high, low, wind in rows
    )


WEATHER_FILES = {
    "hilltop.txt": _station_log("Hilltop", HILLTOP),
    "valley.txt": _station_log("Valley", VALLEY),
}


def _days(keep: Callable[[ReadingRow], bool], rows: list[ReadingRow] = HILLTOP) -> list[ReadingRow]:
    return [r for r in rows if keep(r)]


def _between(first: str, last: str) -> Callable[[ReadingRow], bool]:
    return lambda r: first <= r[0] <= last


def _rain(rows: list[ReadingRow]) -> float:
    return round(sum(r[1] for r in rows), 1)


def _mean_high(rows: list[ReadingRow]) -> float:
    return round(sum(r[2] for r in rows) / len(rows), 1)


def _wettest(rows: list[ReadingRow]) -> ReadingRow:
    return max(rows, key=lambda r: r[1])


def _report(rows: list[ReadingRow]) -> list[str]:
    return [reading_line(*r) for r in rows]


MM = ("mm", "millimetres", "millimeters")
DEGREES = ("degrees C", "degrees", "°C", "C")

CINEMA_SET = ToolSet(
    "cinema",
    CINEMA_TOOLS,
    CINEMA_FILES,
    [
        Goal(
            "How many screenings are in programme.txt? Write the number to screening_count.txt",
            file_number("screening_count.txt", len(THIS_WEEK)),
        ),
        Goal(
            "Total tickets sold across programme.txt - save the figure as tickets_total.txt",
            file_number("tickets_total.txt", _sold(THIS_WEEK)),
        ),
        Goal(
            "salt_road.txt: every screening of Salt Road in programme.txt, one per line",
            file_holds_lines("salt_road.txt", _listing(_screenings(_film("Salt Road")))),
        ),
        Goal(
            "Which screening in programme.txt sold the most tickets? Write the film's title to "
            "busiest_film.txt",
            file_reads("busiest_film.txt", _best(THIS_WEEK)[0]),
        ),
        Goal(
            "What time does the best-selling screening on Sunday the sixth of September 2026 start? "
            "programme.txt -> sunday_peak.txt",
            file_reads("sunday_peak.txt", _best(_screenings(_on("2026-09-06")))[2]),
        ),
        Goal(
            "How many tickets did Paper Moons sell in programme.txt? Answer in paper_moons_tickets.txt",
            file_number("paper_moons_tickets.txt", _sold(_screenings(_film("Paper Moons")))),
        ),
        Goal(
            "List everything showing on 5 September 2026 in programme.txt and save it as saturday.txt",
            file_holds_lines("saturday.txt", _listing(_screenings(_on("2026-09-05")))),
        ),
        Goal(
            "Count the screenings in programme.txt that start at 8 pm or later and put the count in "
            "late_shows.txt",
            file_number("late_shows.txt", len(_screenings(lambda s: s[2] >= "20:00"))),
        ),
        Goal(
            "How many seats were sold for Screen 3 in programme.txt? Save it to screen3_sold.txt",
            file_number("screen3_sold.txt", _sold(_screenings(lambda s: s[3] == 3))),
        ),
        Goal(
            "Which screen hosted the best-attended showing of The Quiet Orchard? Look in programme.txt "
            "and write the screen number to orchard_screen.txt",
            file_screen("orchard_screen.txt", _best(_screenings(_film("The Quiet Orchard")))[3]),
        ),
        Goal(
            "Tickets sold in programme.txt and in next_week.txt: put this week's total on the first "
            "line of ticket_totals.txt and next week's on the second",
            file_numbers_by_line("ticket_totals.txt", [_sold(THIS_WEEK), _sold(NEXT_WEEK)]),
        ),
        Goal(
            "next_week_count.txt should hold the number of screenings in next_week.txt",
            file_number("next_week_count.txt", len(NEXT_WEEK)),
        ),
        Goal(
            'Create closed.txt saying "Screen 2 closed for repairs on Tuesday"',
            file_reads("closed.txt", "Screen 2 closed for repairs on Tuesday"),
        ),
        Goal(
            "Write the evening screenings of next_week.txt, the ones from 6 pm on, to next_week_evenings.txt",
            file_holds_lines(
                "next_week_evenings.txt", _listing(_screenings(lambda s: s[2] >= "18:00", NEXT_WEEK))
            ),
        ),
        Goal(
            "How many tickets were sold for Screen 1 on Saturday, September 5th 2026? Use programme.txt "
            "and write the answer to sat_screen1.txt",
            file_number("sat_screen1.txt", _sold(_screenings(lambda s: s[1] == "2026-09-05" and s[3] == 1))),
        ),
        Goal(
            "On which date was the best-selling Salt Road screening in programme.txt? Save it to "
            "salt_road_day.txt",
            file_reads("salt_road_day.txt", _best(_screenings(_film("Salt Road")))[1]),
        ),
    ],
)

WEATHER_SET = ToolSet(
    "weather",
    WEATHER_TOOLS,
    WEATHER_FILES,
    [
        Goal(
            "How much rain fell at the Hilltop station in total? The log is hilltop.txt; write the "
            "millimetres to hilltop_rain.txt",
            file_quantity("hilltop_rain.txt", _rain(HILLTOP), MM),
        ),
        Goal(
            "How many days does hilltop.txt cover? Save the count in hilltop_days.txt",
            file_number("hilltop_days.txt", len(HILLTOP)),
        ),
        Goal(
            "What was the average daily high temperature in hilltop.txt? Write it to avg_high.txt",
            file_quantity("avg_high.txt", _mean_high(HILLTOP), DEGREES),
        ),
        Goal(
            "Which day was the wettest in hilltop.txt? Put its date in wettest_day.txt",
            file_reads("wettest_day.txt", _wettest(HILLTOP)[0]),
        ),
        Goal(
            "How much rain fell on the wettest day of hilltop.txt? Answer in wettest_mm.txt",
            file_quantity("wettest_mm.txt", _wettest(HILLTOP)[1], MM),
        ),
        Goal(
            "Count the days in hilltop.txt with five millimetres of rain or more and write the count "
            "to heavy_days.txt",
            file_number("heavy_days.txt", len(_days(lambda r: r[1] >= 5))),
        ),
        Goal(
            "west_wind.txt: the days in hilltop.txt when the wind came from the west, one per line",
            file_holds_lines("west_wind.txt", _report(_days(lambda r: r[4] == "W"))),
        ),
        Goal(
            "Total rainfall in hilltop.txt from the 6th to the 12th of March 2026? Save it as week_rain.txt",
            file_quantity("week_rain.txt", _rain(_days(_between("2026-03-06", "2026-03-12"))), MM),
        ),
        Goal(
            "Write the hilltop.txt readings from March 1 to March 4, 2026 to first_days.txt",
            file_holds_lines("first_days.txt", _report(_days(_between("2026-03-01", "2026-03-04")))),
        ),
        Goal(
            "How many days with a south-westerly wind did hilltop.txt record? Write the number to "
            "sw_days.txt",
            file_number("sw_days.txt", len(_days(lambda r: r[4] == "SW"))),
        ),
        Goal(
            "wet_day_high.txt: the mean high temperature of the hilltop.txt days that had at least 5 mm "
            "of rain",
            file_quantity("wet_day_high.txt", _mean_high(_days(lambda r: r[1] >= 5)), DEGREES),
        ),
        Goal(
            "Rain totals for hilltop.txt and valley.txt: Hilltop's on the first line of rain_compare.txt, "
            "the valley's on the second",
            file_numbers_by_line("rain_compare.txt", [_rain(HILLTOP), _rain(VALLEY)]),
        ),
        Goal(
            "valley_wettest.txt: the date of the wettest day in valley.txt",
            file_reads("valley_wettest.txt", _wettest(VALLEY)[0]),
        ),
        Goal(
            'Write "Rain gauge cleaned on 15 March" to maintenance.txt',
            file_reads("maintenance.txt", "Rain gauge cleaned on 15 March"),
        ),
        Goal(
            "What was the mean daily high at the valley station (valley.txt) over the first four days "
            "of March 2026? Save it to valley_early_high.txt",
            file_quantity(
                "valley_early_high.txt",
                _mean_high(_days(_between("2026-03-01", "2026-03-04"), VALLEY)),
                DEGREES,
            ),
        ),
        Goal(
            "How many days between the 8th and the 14th of March 2026 had at least one millimetre of "
            "rain in hilltop.txt? Write it to late_wet_days.txt",
            file_number(
                "late_wet_days.txt", len(_days(lambda r: "2026-03-08" <= r[0] <= "2026-03-14" and r[1] >= 1))
            ),
        ),
    ],
)

HELD_OUT_15 = [CINEMA_SET, WEATHER_SET]

if __name__ == "__main__":
    print(json.dumps({s.name: len(s.goals) for s in HELD_OUT_15}))
