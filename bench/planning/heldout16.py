"""A sixteenth held-out planning suite: 32 goals over two tool sets the planner has never seen.

Written blind and committed before the planner ever ran on it. Its author read only the suite
framework (``heldout.py``: its helpers and checks), the fifteenth suite (``heldout15.py``, its
reference plans and self-check), the three file checks of the eleventh suite that the fifteenth
imports (and that this one imports too), the shared self-check (``heldout_selfcheck.py``), the
runner (``heldout_run.py``) and ``replay_decided.py`` (only to register the suite). It did not read
the planner (``planning/``), any test, the planner's prompts, starter plans or memory, any other
held-out suite's goals, or any earlier result, log or report; it did not run the planner or a model
on these goals. Its first run is the held-out measurement; goals are not edited after it. Every
goal asks for a named file; every check reads the file the executed plan wrote, and accepts a
trailing newline, a number as ``1478``, ``1478.0`` or followed by its unit (``1478 ms``,
``245760 bytes``), a time of day with or without its seconds, a name in any letter case and
listing lines in any order.

``weblog`` is a web shop's access log in logfmt, one request per line as ``key=value`` pairs
(``ts=2026-10-14T09:01:17Z method=GET path=/api/products status=200 dur_ms=138 bytes=18240``),
read from a ``log_path`` into ``Request`` records. Filters by HTTP status (``status``), by server
errors (any 5xx; no parameter), by URL path prefix (``prefix``: goals write "paths under
/images/"), by slowness (``ms``, strictly longer; goals write "longer than a second" or "more
than a quarter of a second") and by a time window (``from_time`` included to ``to_time`` excluded,
HH:MM; goals write "between 9 and 10 in the morning" or "from half past ten to eleven") chain; a
count, the mean response time, the bytes served, the slowest request as one record whose field a
plan has to take (``${sN.path}``, ``${sN.time}``, ``${sN.status}``) and requests as report lines.
The previous day's log (``previous.log``) makes two-file goals. The writer is
``save_report(report_path, contents)``.
``birdcount`` is a nature reserve's bird survey tally sheet, one sighting per line (``2026-04-11
07:00 North Pool: 22 x Teal [AL]``: date, time, site, how many birds, species, the observer's
initials), read from a ``sheet_file`` into ``Sighting`` records. Filters by species, by site, by a
date range (``first_date`` to ``last_date``, inclusive; goals write "between the 10th and the
20th of April 2026" or "on the twenty-fifth of April 2026") and by observer (``initials``) chain;
the number of sightings, the number of birds (the counts added up), the number of different
species, the species as a list, the largest single count as one record (``${sN.species}``,
``${sN.date}``, ``${sN.birds}``, ``${sN.observer}``) and sightings as lines. May's sheet
(``may.txt``) makes two-file goals. The writer is ``write_note(note_file, text)``.

Each goal's hand-written reference plan is in ``heldout16_reference.py``;
``heldout16_selfcheck.py`` runs them through the real ``Agent`` (no model) and checks the files,
which shows every goal is achievable with these tools and every check accepts a right answer (and,
with ``--broken``, that the checks reject four wrong ones).
"""

from __future__ import annotations

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
    """The file holds ``value`` but for surrounding blanks and letter case (``Black-tailed
    Godwit``, ``black-tailed godwit``)."""
    return lambda ws: (t := _text(ws, name)) is not None and same_text(t, value)


def file_clock(name: str, clock: str) -> Check:
    """The file holds the time of day ``clock`` (HH:MM:SS), with or without its seconds."""

    def check(ws: Path) -> bool:
        text = _text(ws, name)
        return text is not None and text.strip() in (clock, clock[:5])

    return check


# --------------------------------------------------------------------------- tool set: weblog


class Request(BaseModel):
    date: str
    time: str
    method: str
    path: str
    status: int
    duration_ms: int
    bytes: int


LOGFMT_KEYS = ("ts", "method", "path", "status", "dur_ms", "bytes")
TIMESTAMP = re.compile(r"(?P<date>\d{4}-\d{2}-\d{2})T(?P<time>\d{2}:\d{2}:\d{2})Z")
CLOCK = re.compile(r"([01]\d|2[0-3]):[0-5]\d")


def clock_time(value: str) -> str:
    """``value`` stripped when it is a 24-hour HH:MM time; else a ``ToolError`` saying the form."""
    if not CLOCK.fullmatch(value.strip()):
        raise ToolError(f"times are written HH:MM on the 24-hour clock, got {value!r}", retryable=False)
    return value.strip()


def _request(log_path: str, number: int, line: str) -> Request:
    pairs = dict(field.partition("=")[::2] for field in line.split())
    missing = [key for key in LOGFMT_KEYS if not pairs.get(key)]
    if missing:
        raise ToolError(f"{log_path}:{number}: missing {', '.join(missing)} in {line!r}", retryable=False)
    stamp = TIMESTAMP.fullmatch(pairs["ts"])
    if stamp is None:
        raise ToolError(
            f"{log_path}:{number}: ts must look like 2026-10-14T09:01:17Z, got {pairs['ts']!r}",
            retryable=False,
        )
    try:
        return Request(
            date=stamp["date"],
            time=stamp["time"],
            method=pairs["method"].upper(),
            path=pairs["path"],
            status=int(pairs["status"]),
            duration_ms=int(pairs["dur_ms"]),
            bytes=int(pairs["bytes"]),
        )
    except ValueError:
        raise ToolError(
            f"{log_path}:{number}: status, dur_ms and bytes must be whole numbers: {line!r}",
            retryable=False,
        ) from None


@tool
def read_access_log(ctx: ToolContext, log_path: str) -> list[Request]:
    """Parse a web server access log written in logfmt: one request per line as key=value pairs,
    ts (UTC timestamp, e.g. 2026-10-14T09:01:17Z), method, path, status (the HTTP status code),
    dur_ms (how long the response took, in milliseconds) and bytes (size of the response body).
    Lines starting with # are comments."""
    requests = []
    for number, raw in enumerate(read_text(ctx, log_path, "access log").splitlines(), start=1):
        line = raw.strip()
        if line and not line.startswith("#"):
            requests.append(_request(log_path, number, line))
    return requests


@tool
def with_status(requests: list[Request], status: int) -> list[Request]:
    """Keep the requests that were answered with this HTTP status code (200, 201, 404, 500...)."""
    return [r for r in requests if r.status == status]


@tool
def server_errors(requests: list[Request]) -> list[Request]:
    """Keep the requests that failed on the server side (any 5xx status: 500, 502, 503...)."""
    return [r for r in requests if 500 <= r.status <= 599]


@tool
def path_prefix(requests: list[Request], prefix: str) -> list[Request]:
    """Keep the requests whose URL path starts with prefix, e.g. /api/ or /images/."""
    return [r for r in requests if r.path.startswith(prefix.strip())]


@tool
def slower_than(requests: list[Request], ms: int) -> list[Request]:
    """Keep the requests that took longer than ms milliseconds to answer."""
    return [r for r in requests if r.duration_ms > ms]


@tool
def logged_between(requests: list[Request], from_time: str, to_time: str) -> list[Request]:
    """Keep the requests logged from from_time up to, not including, to_time (times of day,
    HH:MM on the 24-hour clock, UTC)."""
    start, end = clock_time(from_time) + ":00", clock_time(to_time) + ":00"
    return [r for r in requests if start <= r.time < end]


@tool
def request_count(requests: list[Request]) -> int:
    """Number of requests."""
    return len(requests)


@tool
def mean_duration(requests: list[Request]) -> float:
    """Average response time of the requests, in milliseconds, rounded to one decimal."""
    if not requests:
        raise ToolError("no requests given", retryable=False)
    return round(sum(r.duration_ms for r in requests) / len(requests), 1)


@tool
def bytes_served(requests: list[Request]) -> int:
    """Total size of the responses sent for the requests, in bytes."""
    return sum(r.bytes for r in requests)


@tool
def slowest(requests: list[Request]) -> Request:
    """The single request that took longest to answer, with all its fields (date, time, method,
    path, status, duration_ms, bytes)."""
    if not requests:
        raise ToolError("no requests given", retryable=False)
    return max(requests, key=lambda r: r.duration_ms)


def request_line(
    date: str, time: str, method: str, path: str, status: int, duration_ms: int, size: int
) -> str:
    """One request as a report line (the tool's text and the checks' expectation)."""
    return f"{date} {time} {method} {path} -> {status} in {duration_ms} ms, {size} bytes"


@tool
def format_requests(requests: list[Request]) -> str:
    """Render requests as plain text for a report, one line per request: date, time, method,
    path, status, duration and size."""
    return "".join(
        request_line(r.date, r.time, r.method, r.path, r.status, r.duration_ms, r.bytes) + "\n"
        for r in requests
    )


@tool(effect="mutating", idempotent=True)
def save_report(ctx: ToolContext, report_path: str, contents: str) -> str:
    """Save a report: write contents to a file in the working folder, replacing any file with
    that name."""
    _inside(ctx, report_path).write_text(contents, encoding="utf-8")
    return report_path


WEBLOG_TOOLS: list[PythonTool] = [
    read_access_log,
    with_status,
    server_errors,
    path_prefix,
    slower_than,
    logged_between,
    request_count,
    mean_duration,
    bytes_served,
    slowest,
    format_requests,
    save_report,
]

# ------------------------------------------------------------------------ tool set: birdcount


class Sighting(BaseModel):
    date: str
    time: str
    site: str
    birds: int
    species: str
    observer: str


SIGHTING_LINE = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})\s+(?P<time>\d{2}:\d{2})\s+(?P<site>[^:]+?)\s*:\s*"
    r"(?P<birds>\d+)\s*x\s+(?P<species>.+?)\s+\[(?P<observer>[A-Za-z]+)\]"
)


@tool
def load_sightings(ctx: ToolContext, sheet_file: str) -> list[Sighting]:
    """Load a bird survey tally sheet. One sighting per line: date (YYYY-MM-DD), time (HH:MM),
    the site, a colon, the number of birds, x, the species and the observer's initials in
    brackets, e.g. 2026-04-11 07:00 North Pool: 22 x Teal [AL]. Lines starting with # are
    comments."""
    sightings = []
    for number, raw in enumerate(read_text(ctx, sheet_file, "tally sheet").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        found = SIGHTING_LINE.fullmatch(line)
        if found is None:
            raise ToolError(f"{sheet_file}:{number}: not a sighting: {line!r}", retryable=False)
        sightings.append(
            Sighting(
                date=iso_day(found["date"]),
                time=found["time"],
                site=found["site"],
                birds=int(found["birds"]),
                species=found["species"],
                observer=found["observer"].upper(),
            )
        )
    return sightings


@tool
def of_species(sightings: list[Sighting], species: str) -> list[Sighting]:
    """Sightings of one species only (its common name as on the sheet, e.g. Grey Heron)."""
    return [s for s in sightings if same_text(s.species, species)]


@tool
def at_site(sightings: list[Sighting], site: str) -> list[Sighting]:
    """Sightings made at one site of the reserve (its name as on the sheet)."""
    return [s for s in sightings if same_text(s.site, site)]


@tool
def seen_between(sightings: list[Sighting], first_date: str, last_date: str) -> list[Sighting]:
    """Sightings dated from first_date to last_date, both days included (YYYY-MM-DD)."""
    first, last = iso_day(first_date), iso_day(last_date)
    return [s for s in sightings if first <= s.date <= last]


@tool
def logged_by(sightings: list[Sighting], initials: str) -> list[Sighting]:
    """Sightings recorded by one observer, given by their initials (e.g. JK)."""
    return [s for s in sightings if same_text(s.observer, initials)]


@tool
def number_of_sightings(sightings: list[Sighting]) -> int:
    """How many sightings (lines of the sheet) there are. Not the number of birds: see
    birds_counted."""
    return len(sightings)


@tool
def birds_counted(sightings: list[Sighting]) -> int:
    """Total number of birds: every sighting's count added up."""
    return sum(s.birds for s in sightings)


@tool
def species_tally(sightings: list[Sighting]) -> int:
    """How many different species the sightings cover."""
    return len({s.species.lower() for s in sightings})


@tool
def species_list(sightings: list[Sighting]) -> str:
    """The different species in the sightings, one name per line, in alphabetical order."""
    return "".join(name + "\n" for name in sorted({s.species for s in sightings}))


@tool
def largest_flock(sightings: list[Sighting]) -> Sighting:
    """The sighting with the most birds, with all its details (date, time, site, birds, species,
    observer)."""
    if not sightings:
        raise ToolError("no sightings given", retryable=False)
    return max(sightings, key=lambda s: s.birds)


def sighting_line(date: str, time: str, site: str, birds: int, species: str, observer: str) -> str:
    """One sighting as a line (the tool's text and the checks' expectation)."""
    return f"{date} {time} {site}: {birds} x {species} [{observer}]"


@tool
def sighting_lines(sightings: list[Sighting]) -> str:
    """Sightings as text, one per line, in the tally sheet's own format."""
    return "".join(
        sighting_line(s.date, s.time, s.site, s.birds, s.species, s.observer) + "\n" for s in sightings
    )


@tool(effect="mutating", idempotent=True)
def write_note(ctx: ToolContext, note_file: str, text: str) -> str:
    """Write a survey note: text goes into note_file in the survey folder (an existing note of
    that name is overwritten)."""
    _inside(ctx, note_file).write_text(text, encoding="utf-8")
    return note_file


BIRDCOUNT_TOOLS: list[PythonTool] = [
    load_sightings,
    of_species,
    at_site,
    seen_between,
    logged_by,
    number_of_sightings,
    birds_counted,
    species_tally,
    species_list,
    largest_flock,
    sighting_lines,
    write_note,
]

# ------------------------------------------------------------------------------- the goals

# time, method, path, status, duration in ms, bytes
RequestRow = tuple[str, str, str, int, int, int]

TODAY = "2026-10-14"
ACCESS: list[RequestRow] = [
    ("08:58:03", "GET", "/", 200, 42, 5120),
    ("09:01:17", "GET", "/api/products", 200, 138, 18240),
    ("09:03:45", "POST", "/api/cart", 201, 212, 640),
    ("09:07:09", "GET", "/api/products/118", 200, 95, 2304),
    ("09:12:30", "GET", "/images/logo.png", 200, 12, 40960),
    ("09:15:02", "POST", "/api/checkout", 500, 1840, 120),
    ("09:21:44", "GET", "/api/products", 200, 151, 18240),
    ("09:26:10", "GET", "/favicon.ico", 404, 8, 0),
    ("09:33:58", "POST", "/api/checkout", 201, 760, 880),
    ("09:41:27", "GET", "/api/orders/5521", 200, 310, 1536),
    ("09:48:05", "GET", "/old-catalogue", 404, 15, 0),
    ("10:02:19", "GET", "/api/products", 200, 142, 18240),
    ("10:09:40", "POST", "/api/checkout", 503, 2600, 96),
    ("10:17:33", "GET", "/images/banner.jpg", 200, 31, 204800),
    ("10:25:06", "GET", "/api/orders/5522", 200, 284, 1536),
    ("10:36:51", "POST", "/api/cart", 201, 198, 640),
    ("10:44:12", "GET", "/api/search", 200, 620, 9216),
    ("10:52:47", "GET", "/robots.txt", 404, 6, 0),
    ("11:05:20", "POST", "/api/checkout", 201, 712, 880),
    ("11:18:09", "GET", "/api/products", 502, 30, 150),
]
YESTERDAY = "2026-10-13"
PREVIOUS: list[RequestRow] = [
    ("14:02:11", "GET", "/", 200, 40, 5120),
    ("14:10:36", "GET", "/api/products", 200, 129, 18240),
    ("14:18:54", "POST", "/api/cart", 201, 205, 640),
    ("14:27:03", "POST", "/api/checkout", 201, 690, 880),
    ("14:39:41", "GET", "/favicon.ico", 404, 7, 0),
    ("14:51:15", "GET", "/api/orders/5519", 200, 295, 1536),
    ("15:04:28", "POST", "/api/checkout", 500, 1710, 120),
    ("15:16:02", "GET", "/api/products", 200, 133, 18240),
]


def _access_log(date: str, rows: list[RequestRow]) -> str:
    head = f"# shop-web access log, {date} (UTC)\n"
    return head + "".join(
        f"ts={date}T{time}Z method={method} path={path} status={status} dur_ms={ms} bytes={size}\n"
        for time, method, path, status, ms, size in rows
    )


WEBLOG_FILES = {
    "access.log": _access_log(TODAY, ACCESS),
    "previous.log": _access_log(YESTERDAY, PREVIOUS),
}


def _requests(keep: Callable[[RequestRow], bool], rows: list[RequestRow] = ACCESS) -> list[RequestRow]:
    return [r for r in rows if keep(r)]


def _under(prefix: str) -> Callable[[RequestRow], bool]:
    return lambda r: r[2].startswith(prefix)


def _mean_ms(rows: list[RequestRow]) -> float:
    return round(sum(r[4] for r in rows) / len(rows), 1)


def _bytes(rows: list[RequestRow]) -> int:
    return sum(r[5] for r in rows)


def _slowest(rows: list[RequestRow]) -> RequestRow:
    return max(rows, key=lambda r: r[4])


def _report(rows: list[RequestRow], date: str = TODAY) -> list[str]:
    return [request_line(date, *r) for r in rows]


# date, time, site, birds, species, observer
SightingRow = tuple[str, str, str, int, str, str]

APRIL: list[SightingRow] = [
    ("2026-04-04", "06:50", "North Pool", 3, "Grey Heron", "JK"),
    ("2026-04-04", "07:05", "North Pool", 14, "Teal", "JK"),
    ("2026-04-04", "07:30", "Reedbed", 2, "Reed Warbler", "JK"),
    ("2026-04-04", "08:10", "Scrape", 6, "Lapwing", "AL"),
    ("2026-04-11", "06:45", "Scrape", 9, "Lapwing", "AL"),
    ("2026-04-11", "07:00", "North Pool", 22, "Teal", "AL"),
    ("2026-04-11", "07:20", "Wet Meadow", 1, "Marsh Harrier", "MB"),
    ("2026-04-11", "07:55", "Reedbed", 4, "Reed Warbler", "MB"),
    ("2026-04-11", "08:30", "Reedbed", 1, "Bittern", "MB"),
    ("2026-04-18", "06:40", "North Pool", 2, "Grey Heron", "JK"),
    ("2026-04-18", "07:10", "Scrape", 11, "Lapwing", "JK"),
    ("2026-04-18", "07:45", "Wet Meadow", 35, "Black-tailed Godwit", "AL"),
    ("2026-04-18", "08:05", "North Pool", 17, "Teal", "AL"),
    ("2026-04-25", "06:55", "Reedbed", 6, "Reed Warbler", "MB"),
    ("2026-04-25", "07:25", "Wet Meadow", 2, "Marsh Harrier", "MB"),
    ("2026-04-25", "07:50", "Scrape", 4, "Lapwing", "JK"),
    ("2026-04-25", "08:20", "North Pool", 1, "Grey Heron", "JK"),
    ("2026-04-25", "08:45", "Wet Meadow", 28, "Black-tailed Godwit", "AL"),
]
MAY: list[SightingRow] = [
    ("2026-05-02", "06:35", "North Pool", 9, "Teal", "JK"),
    ("2026-05-02", "07:00", "Reedbed", 8, "Reed Warbler", "MB"),
    ("2026-05-02", "07:40", "Scrape", 5, "Lapwing", "AL"),
    ("2026-05-09", "06:30", "Wet Meadow", 3, "Marsh Harrier", "MB"),
    ("2026-05-09", "07:15", "Reedbed", 2, "Cuckoo", "JK"),
    ("2026-05-09", "07:50", "North Pool", 11, "Teal", "AL"),
    ("2026-05-16", "06:40", "Scrape", 12, "Avocet", "AL"),
    ("2026-05-16", "07:30", "Reedbed", 7, "Reed Warbler", "MB"),
]


def _tally_sheet(month: str, rows: list[SightingRow]) -> str:
    head = f"# Heron Marsh reserve - breeding bird survey, {month}\n"
    head += "# date  time  site: count x species [observer]\n"
    return head + "".join(
        f"{date} {time} {site}: {birds} x {species} [{observer}]\n"
        for date, time, site, birds, species, observer in rows
    )


BIRDCOUNT_FILES = {
    "april.txt": _tally_sheet("April 2026", APRIL),
    "may.txt": _tally_sheet("May 2026", MAY),
}


def _sightings(keep: Callable[[SightingRow], bool], rows: list[SightingRow] = APRIL) -> list[SightingRow]:
    return [s for s in rows if keep(s)]


def _species(name: str) -> Callable[[SightingRow], bool]:
    return lambda s: s[4] == name


def _site(name: str) -> Callable[[SightingRow], bool]:
    return lambda s: s[2] == name


def _birds(rows: list[SightingRow]) -> int:
    return sum(s[3] for s in rows)


def _kinds(rows: list[SightingRow]) -> list[str]:
    return sorted({s[4] for s in rows})


def _largest(rows: list[SightingRow]) -> SightingRow:
    return max(rows, key=lambda s: s[3])


def _lines(rows: list[SightingRow]) -> list[str]:
    return [sighting_line(*s) for s in rows]


MS = ("ms", "milliseconds")
BYTES = ("bytes", "B")

WEBLOG_SET = ToolSet(
    "weblog",
    WEBLOG_TOOLS,
    WEBLOG_FILES,
    [
        Goal(
            "How many requests are logged in access.log? Write the number to request_count.txt",
            file_number("request_count.txt", len(ACCESS)),
        ),
        Goal(
            "What was the average response time in access.log in milliseconds? Save it to avg_ms.txt",
            file_quantity("avg_ms.txt", _mean_ms(ACCESS), MS),
        ),
        Goal(
            "Count the 404 responses in access.log and put the count in not_found.txt",
            file_number("not_found.txt", len(_requests(lambda r: r[3] == 404))),
        ),
        Goal(
            "Which path did the slowest request in access.log ask for? Write it to slowest_path.txt",
            file_names("slowest_path.txt", _slowest(ACCESS)[2]),
        ),
        Goal(
            "slow.txt: every request in access.log that took longer than a second, one per line",
            file_holds_lines("slow.txt", _report(_requests(lambda r: r[4] > 1000))),
        ),
        Goal(
            "How many requests in access.log failed with a server error (any 5xx status)? Answer in "
            "server_errors.txt",
            file_number("server_errors.txt", len(_requests(lambda r: r[3] >= 500))),
        ),
        Goal(
            "How many bytes did the server send in total according to access.log? Save the figure as "
            "bytes_total.txt",
            file_quantity("bytes_total.txt", _bytes(ACCESS), BYTES),
        ),
        Goal(
            "What is the mean response time of the /api/checkout requests in access.log? Write it to "
            "checkout_ms.txt",
            file_quantity("checkout_ms.txt", _mean_ms(_requests(_under("/api/checkout"))), MS),
        ),
        Goal(
            "How many API requests (paths starting with /api/) came in between 9 and 10 in the "
            "morning? Use access.log and write the count to api_morning.txt",
            file_number(
                "api_morning.txt",
                len(_requests(lambda r: r[2].startswith("/api/") and "09:00" <= r[0] < "10:00")),
            ),
        ),
        Goal(
            "At what time was the slowest request in access.log logged? Put it in slowest_time.txt",
            file_clock("slowest_time.txt", _slowest(ACCESS)[0]),
        ),
        Goal(
            "Write the requests access.log recorded from half past ten to eleven to half_hour.txt",
            file_holds_lines("half_hour.txt", _report(_requests(lambda r: "10:30" <= r[0] < "11:00"))),
        ),
        Goal(
            "Request counts of access.log and previous.log: today's on the first line of counts.txt, "
            "the day before's on the second",
            file_numbers_by_line("counts.txt", [len(ACCESS), len(PREVIOUS)]),
        ),
        Goal(
            "In previous.log, how many requests took more than a quarter of a second? Save the number "
            "to previous_slow.txt",
            file_number("previous_slow.txt", len(_requests(lambda r: r[4] > 250, PREVIOUS))),
        ),
        Goal(
            'Save a report called incident.txt that says "Checkout outage 09:15-10:10 UTC, payment '
            'provider timeout"',
            file_names("incident.txt", "Checkout outage 09:15-10:10 UTC, payment provider timeout"),
        ),
        Goal(
            "How many bytes went out for images (paths under /images/) in access.log? Write the total "
            "to image_bytes.txt",
            file_quantity("image_bytes.txt", _bytes(_requests(_under("/images/"))), BYTES),
        ),
        Goal(
            "What status code did the slowest request in previous.log get? previous_slowest_status.txt "
            "should hold it",
            file_number("previous_slowest_status.txt", _slowest(PREVIOUS)[3]),
        ),
    ],
)

BIRDCOUNT_SET = ToolSet(
    "birdcount",
    BIRDCOUNT_TOOLS,
    BIRDCOUNT_FILES,
    [
        Goal(
            "How many sightings are on the april.txt tally sheet? Write the number to april_sightings.txt",
            file_number("april_sightings.txt", len(APRIL)),
        ),
        Goal(
            "How many birds were counted altogether in april.txt? Save the total as april_birds.txt",
            file_number("april_birds.txt", _birds(APRIL)),
        ),
        Goal(
            "How many Lapwing were counted in april.txt in total? Put the number in lapwing_total.txt",
            file_number("lapwing_total.txt", _birds(_sightings(_species("Lapwing")))),
        ),
        Goal(
            "reed_warblers.txt: every Reed Warbler sighting in april.txt, one line each",
            file_holds_lines("reed_warblers.txt", _lines(_sightings(_species("Reed Warbler")))),
        ),
        Goal(
            "Which species was seen in the largest flock in april.txt? Write its name to biggest_flock.txt",
            file_names("biggest_flock.txt", _largest(APRIL)[4]),
        ),
        Goal(
            "How many different species were recorded in april.txt? Answer in species_count.txt",
            file_number("species_count.txt", len(_kinds(APRIL))),
        ),
        Goal(
            "List the species seen at the Wet Meadow in april.txt and save the list as "
            "wet_meadow_species.txt",
            file_holds_lines("wet_meadow_species.txt", _kinds(_sightings(_site("Wet Meadow")))),
        ),
        Goal(
            "How many sightings did observer MB log in april.txt? Write the count to mb_sightings.txt",
            file_number("mb_sightings.txt", len(_sightings(lambda s: s[5] == "MB"))),
        ),
        Goal(
            "Count the birds seen at North Pool between the 10th and the 20th of April 2026 (april.txt) "
            "and write the total to north_pool_mid.txt",
            file_number(
                "north_pool_mid.txt",
                _birds(_sightings(lambda s: s[2] == "North Pool" and "2026-04-10" <= s[0] <= "2026-04-20")),
            ),
        ),
        Goal(
            "On what date was the biggest Teal count in april.txt? Save it in teal_peak_day.txt",
            file_names("teal_peak_day.txt", _largest(_sightings(_species("Teal")))[0]),
        ),
        Goal(
            "Write the sightings from april.txt made on the twenty-fifth of April 2026 to april_25.txt",
            file_holds_lines("april_25.txt", _lines(_sightings(lambda s: s[0] == "2026-04-25"))),
        ),
        Goal(
            "Birds counted in april.txt and in may.txt: April's total on the first line of "
            "monthly_totals.txt, May's on the second",
            file_numbers_by_line("monthly_totals.txt", [_birds(APRIL), _birds(MAY)]),
        ),
        Goal(
            "may_species.txt should hold the number of different species in may.txt",
            file_number("may_species.txt", len(_kinds(MAY))),
        ),
        Goal(
            'Create a note scrape_level.txt reading "Scrape water level low on 25 April"',
            file_names("scrape_level.txt", "Scrape water level low on 25 April"),
        ),
        Goal(
            "What was the largest single count of any bird at the Scrape in april.txt? Write the number "
            "to scrape_max.txt",
            file_number("scrape_max.txt", _largest(_sightings(_site("Scrape")))[3]),
        ),
        Goal(
            "Who logged the biggest flock in may.txt? Write the observer's initials to may_top_observer.txt",
            file_names("may_top_observer.txt", _largest(MAY)[5]),
        ),
    ],
)

HELD_OUT_16 = [WEBLOG_SET, BIRDCOUNT_SET]

if __name__ == "__main__":
    print(json.dumps({s.name: len(s.goals) for s in HELD_OUT_16}))
