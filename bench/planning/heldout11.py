"""An eleventh held-out planning suite: 32 goals over two tool sets the planner has never seen.

Written blind and committed before the planner ever ran on it. Its author read only the suite
framework (``heldout.py``), the previous suite (``heldout10.py``, its reference plans and
self-check), the shared self-check (``heldout_selfcheck.py``), the runner (``heldout_run.py``)
and the README's plan syntax. It did not read the planner (``planning/``), the planner's tests,
its prompts, starter plans or memory, any other held-out suite, or any earlier result, log or
report. Its first run is the held-out measurement; goals are not edited after it. Every goal asks
for a named file; every check reads the file the executed plan wrote.

``samples`` is a laboratory's sample register, a tab-separated file (sample_id, project,
collected, freezer, volume_ml, status) read into ``Sample`` records from a ``register_path``.
Filters by project code, by status (received / processed / discarded) and by collection date
(on or after ``since``, YYYY-MM-DD, which goals sometimes write as "1 March 2026") chain; volumes
are decimal millilitres added up; the largest sample is one record whose field a plan has to take
(``${sN.sample_id}``, ``${sN.freezer}``, ``${sN.collected}``); last year's register
(``archive.tsv``) makes two-file goals. The writer is ``export_text(destination, content)``.
``trains`` is a station departure board saved as JSON (service, destination, departs as HH:MM,
platform, delay_min) read from a ``board_file``: filters by destination, by a departure window
(``earliest``/``latest``, HH:MM, which one goal gives as "7 and 9 am") and by a minimum delay (an
integer ``min_minutes``), a count, a mean delay, the first departure as one record, and the
departures as timetable text. A second station's board (``parkway.json``) makes two-file goals.
The writer is ``record_answer(answer_file, answer)``.

Each goal's hand-written reference plan is in ``heldout11_reference.py``;
``heldout11_selfcheck.py`` runs them through the real ``Agent`` (no model) and checks the files,
which shows every goal is achievable with these tools and every check accepts a right answer (and,
with ``--broken``, that the checks reject two wrong ones).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from pathlib import Path

from heldout import (
    Check,
    Goal,
    ToolSet,
    _inside,
    _text,
    file_number,
    read_records,
    read_text,
    same_text,
)
from pydantic import BaseModel

from forethought import ToolContext, tool
from forethought.errors import ToolError
from forethought.tools.python import PythonTool

ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
CLOCK_TIME = re.compile(r"\d{2}:\d{2}")


def _formatted(value: str, pattern: re.Pattern[str], form: str, what: str) -> str:
    """``value`` stripped when it matches ``pattern``; else a ``ToolError`` naming the form."""
    if not pattern.fullmatch(value.strip()):
        raise ToolError(f"{what} are written {form}, got {value!r}", retryable=False)
    return value.strip()


# --------------------------------------------------------------------------- tool set: samples


class Sample(BaseModel):
    sample_id: str
    project: str
    collected: str
    freezer: str
    volume_ml: float
    status: str


SAMPLE_COLUMNS = ("sample_id", "project", "collected", "freezer", "volume_ml", "status")
STATUSES = ("received", "processed", "discarded")


@tool
def open_register(ctx: ToolContext, register_path: str) -> list[Sample]:
    """Load a lab sample register: a tab-separated file with one sample per row (sample ID,
    project code, collection date, freezer, volume in mL, status)."""
    text = read_text(ctx, register_path, "sample register")
    reader = csv.DictReader(io.StringIO(text), delimiter="\t")
    if tuple(reader.fieldnames or ()) != SAMPLE_COLUMNS:
        raise ToolError(
            f"{register_path}: expected the columns {', '.join(SAMPLE_COLUMNS)}, got {reader.fieldnames}",
            retryable=False,
        )
    samples = []
    for number, row in enumerate(reader, start=2):
        try:
            samples.append(Sample(**{key: row[key] for key in SAMPLE_COLUMNS}))
        except (TypeError, ValueError):
            raise ToolError(
                f"{register_path}:{number}: volume_ml must be a number, got {row['volume_ml']!r}",
                retryable=False,
            ) from None
    return samples


@tool
def for_project(samples: list[Sample], project_code: str) -> list[Sample]:
    """Keep the samples that belong to one research project, given its code (e.g. ONC-7)."""
    return [s for s in samples if same_text(s.project, project_code)]


@tool
def with_status(samples: list[Sample], status: str) -> list[Sample]:
    """Keep the samples in one processing state: received (waiting to be processed), processed
    or discarded."""
    if status.strip().lower() not in STATUSES:
        raise ToolError(f"status must be one of {', '.join(STATUSES)}, got {status!r}", retryable=False)
    return [s for s in samples if same_text(s.status, status)]


@tool
def collected_since(samples: list[Sample], since: str) -> list[Sample]:
    """Keep the samples collected on or after a date (YYYY-MM-DD)."""
    day = _formatted(since, ISO_DATE, "YYYY-MM-DD", "dates")
    return [s for s in samples if s.collected >= day]


@tool
def sample_count(samples: list[Sample]) -> int:
    """Number of samples."""
    return len(samples)


@tool
def total_volume_ml(samples: list[Sample]) -> float:
    """Combined volume of some samples, in millilitres."""
    return sum(s.volume_ml for s in samples)


@tool
def largest_sample(samples: list[Sample]) -> Sample:
    """The sample with the greatest volume, with all its details."""
    if not samples:
        raise ToolError("no samples given", retryable=False)
    return max(samples, key=lambda s: s.volume_ml)


@tool
def list_sample_ids(samples: list[Sample]) -> str:
    """The IDs of some samples as plain text, one ID per line."""
    return "".join(f"{s.sample_id}\n" for s in samples)


@tool(effect="mutating", idempotent=True)
def export_text(ctx: ToolContext, destination: str, content: str) -> str:
    """Export text to a file in the lab workspace; an existing file of that name is replaced."""
    _inside(ctx, destination).write_text(content, encoding="utf-8")
    return destination


SAMPLES_TOOLS: list[PythonTool] = [
    open_register,
    for_project,
    with_status,
    collected_since,
    sample_count,
    total_volume_ml,
    largest_sample,
    list_sample_ids,
    export_text,
]

# ---------------------------------------------------------------------------- tool set: trains


class Departure(BaseModel):
    service: str
    destination: str
    departs: str
    platform: str
    delay_min: int


def board_line(service: str, destination: str, departs: str, platform: str, delay_min: int) -> str:
    """One departure as a timetable line (the tool's text and the checks' expectation)."""
    late = f", {delay_min} min late" if delay_min else ""
    return f"{departs} {service} to {destination}, platform {platform}{late}"


@tool
def fetch_departures(ctx: ToolContext, board_file: str) -> list[Departure]:
    """Read a station's departure board from a JSON file: each train's service number,
    destination, departure time (HH:MM), platform and current delay in minutes."""
    return read_records(ctx, board_file, "departure board", Departure, "departure")


@tool
def trains_to(departures: list[Departure], destination: str) -> list[Departure]:
    """Only the departures heading for a given destination town."""
    return [d for d in departures if same_text(d.destination, destination)]


@tool
def leaving_between(departures: list[Departure], earliest: str, latest: str) -> list[Departure]:
    """Only the trains that leave from earliest to latest, both times included (24-hour HH:MM)."""
    start = _formatted(earliest, CLOCK_TIME, "HH:MM (24-hour)", "times")
    end = _formatted(latest, CLOCK_TIME, "HH:MM (24-hour)", "times")
    return [d for d in departures if start <= d.departs <= end]


@tool
def delayed_by(departures: list[Departure], min_minutes: int) -> list[Departure]:
    """Only the trains running at least min_minutes late."""
    return [d for d in departures if d.delay_min >= min_minutes]


@tool
def count_departures(departures: list[Departure]) -> int:
    """How many departures (trains) are in a list."""
    return len(departures)


@tool
def mean_delay(departures: list[Departure]) -> float:
    """Average delay of some trains in minutes (on-time trains count as 0)."""
    if not departures:
        raise ToolError("no departures given", retryable=False)
    return sum(d.delay_min for d in departures) / len(departures)


@tool
def first_departure(departures: list[Departure]) -> Departure:
    """The train that leaves earliest in the day."""
    if not departures:
        raise ToolError("no departures given", retryable=False)
    return min(departures, key=lambda d: d.departs)


@tool
def timetable_text(departures: list[Departure]) -> str:
    """Departures formatted as a printable timetable, one line per train (time, service,
    destination, platform, delay)."""
    return "".join(
        board_line(d.service, d.destination, d.departs, d.platform, d.delay_min) + "\n" for d in departures
    )


@tool(effect="mutating", idempotent=True)
def record_answer(ctx: ToolContext, answer_file: str, answer: str) -> str:
    """Write an answer into a text file in the workspace (created, or overwritten if present)."""
    _inside(ctx, answer_file).write_text(answer, encoding="utf-8")
    return answer_file


TRAINS_TOOLS: list[PythonTool] = [
    fetch_departures,
    trains_to,
    leaving_between,
    delayed_by,
    count_departures,
    mean_delay,
    first_departure,
    timetable_text,
    record_answer,
]

# --------------------------------------------------------------------------- the file checks


def file_reads(name: str, text: str) -> Check:
    """The file holds ``text``, but for surrounding blanks (a trailing newline, say)."""
    return lambda ws: (t := _text(ws, name)) is not None and t.strip() == text


def file_line_multiset(name: str, lines: list[str]) -> Check:
    """The file's non-blank lines, stripped, are ``lines`` in any order (a list the goal did not
    ask to be sorted)."""
    return lambda ws: (
        (t := _text(ws, name)) is not None
        and sorted(ln.strip() for ln in t.splitlines() if ln.strip()) == sorted(lines)
    )


def file_numbers_per_line(name: str, values: list[float]) -> Check:
    """The file's non-blank lines are these numbers, in this order."""

    def check(ws: Path) -> bool:
        text = _text(ws, name)
        if text is None:
            return False
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        try:
            return len(lines) == len(values) and all(
                abs(float(ln) - v) < 1e-9 for ln, v in zip(lines, values, strict=True)
            )
        except ValueError:
            return False

    return check


# ------------------------------------------------------------------------------- the goals

SampleRow = tuple[str, str, str, str, float, str]  # sample_id, project, collected, freezer, mL, status

SAMPLES: list[SampleRow] = [
    ("S-1001", "ONC-7", "2026-02-03", "F1", 2.5, "processed"),
    ("S-1002", "ONC-7", "2026-02-10", "F2", 1.0, "received"),
    ("S-1003", "CARD-2", "2026-02-11", "F1", 4.0, "received"),
    ("S-1004", "NEURO-1", "2026-02-17", "F3", 0.5, "discarded"),
    ("S-1005", "CARD-2", "2026-02-24", "F2", 3.5, "discarded"),
    ("S-1006", "ONC-7", "2026-03-02", "F3", 2.0, "received"),
    ("S-1007", "NEURO-1", "2026-03-05", "F1", 1.5, "received"),
    ("S-1008", "CARD-2", "2026-03-09", "F3", 5.0, "received"),
    ("S-1009", "ONC-7", "2026-03-16", "F1", 0.75, "processed"),
    ("S-1010", "NEURO-1", "2026-03-20", "F2", 2.25, "discarded"),
    ("S-1011", "CARD-2", "2026-03-27", "F1", 1.25, "received"),
]
ARCHIVE: list[SampleRow] = [
    ("A-0901", "ONC-7", "2025-11-04", "F2", 3.0, "processed"),
    ("A-0902", "CARD-2", "2025-11-19", "F3", 1.5, "discarded"),
    ("A-0903", "ONC-7", "2025-12-01", "F1", 2.0, "processed"),
    ("A-0904", "NEURO-1", "2025-12-15", "F2", 0.5, "received"),
]


def _register(rows: list[SampleRow]) -> str:
    header = "\t".join(SAMPLE_COLUMNS) + "\n"
    return header + "".join("\t".join(str(v) for v in row) + "\n" for row in rows)


SAMPLES_FILES = {"samples.tsv": _register(SAMPLES), "archive.tsv": _register(ARCHIVE)}


def _samples(keep: Callable[[SampleRow], bool], rows: list[SampleRow] = SAMPLES) -> list[SampleRow]:
    return [s for s in rows if keep(s)]


def _ids(rows: list[SampleRow]) -> list[str]:
    return [s[0] for s in rows]


def _volume(rows: list[SampleRow]) -> float:
    return sum(s[4] for s in rows)


def _largest(rows: list[SampleRow]) -> SampleRow:
    return max(rows, key=lambda s: s[4])


def _project(code: str) -> Callable[[SampleRow], bool]:
    return lambda s: s[1] == code


def _status(state: str) -> Callable[[SampleRow], bool]:
    return lambda s: s[5] == state


DepartureRow = tuple[str, str, str, str, int]  # service, destination, departs, platform, delay_min

CENTRAL: list[DepartureRow] = [
    ("NL 201", "York", "06:45", "2", 0),
    ("XC 330", "Bristol", "07:10", "5", 4),
    ("NL 205", "Leeds", "07:32", "1", 0),
    ("TP 118", "York", "08:05", "3", 12),
    ("NL 209", "Hull", "08:20", "2", 0),
    ("XC 334", "Bristol", "08:55", "5", 7),
    ("TP 122", "York", "09:40", "3", 0),
    ("NL 213", "Leeds", "10:15", "1", 25),
    ("XC 338", "Plymouth", "11:30", "4", 0),
    ("TP 126", "York", "12:05", "3", 6),
    ("NL 217", "Leeds", "13:50", "1", 0),
    ("XC 342", "Bristol", "17:25", "5", 15),
]
PARKWAY: list[DepartureRow] = [
    ("NL 301", "Leeds", "07:05", "A", 0),
    ("TP 140", "York", "07:50", "B", 9),
    ("NL 305", "Hull", "09:12", "A", 2),
    ("TP 144", "York", "16:40", "B", 0),
    ("NL 309", "Leeds", "18:20", "A", 6),
]


def _board(rows: list[DepartureRow]) -> str:
    keys = ("service", "destination", "departs", "platform", "delay_min")
    return json.dumps([dict(zip(keys, row, strict=True)) for row in rows], indent=2)


TRAINS_FILES = {"central.json": _board(CENTRAL), "parkway.json": _board(PARKWAY)}


def _trains(keep: Callable[[DepartureRow], bool], rows: list[DepartureRow] = CENTRAL) -> list[DepartureRow]:
    return [d for d in rows if keep(d)]


def _to(town: str) -> Callable[[DepartureRow], bool]:
    return lambda d: d[1] == town


def _lines(rows: list[DepartureRow]) -> list[str]:
    return [board_line(*d) for d in rows]


def _mean_delay(rows: list[DepartureRow]) -> float:
    return sum(d[4] for d in rows) / len(rows)


def _first(rows: list[DepartureRow]) -> DepartureRow:
    return min(rows, key=lambda d: d[2])


SAMPLES_SET = ToolSet(
    "samples",
    SAMPLES_TOOLS,
    SAMPLES_FILES,
    [
        Goal(
            "How many samples are logged in samples.tsv? Put the number in sample_count.txt",
            file_number("sample_count.txt", len(SAMPLES)),
        ),
        Goal(
            "What's the total volume, in mL, of everything in samples.tsv? Write it to total_volume.txt",
            file_number("total_volume.txt", _volume(SAMPLES)),
        ),
        Goal(
            "List the IDs of the CARD-2 samples in samples.tsv and save them to card2_ids.txt",
            file_line_multiset("card2_ids.txt", _ids(_samples(_project("CARD-2")))),
        ),
        Goal(
            "How many samples in samples.tsv are still waiting to be processed (status received)? "
            "Save the count to backlog.txt",
            file_number("backlog.txt", len(_samples(_status("received")))),
        ),
        Goal(
            "Write the IDs of all discarded samples from samples.tsv to discarded.txt",
            file_line_multiset("discarded.txt", _ids(_samples(_status("discarded")))),
        ),
        Goal(
            "Which sample in samples.tsv has the largest volume? Write its ID to biggest.txt",
            file_reads("biggest.txt", _largest(SAMPLES)[0]),
        ),
        Goal(
            "Where is the biggest sample in samples.tsv kept? Put the name of its freezer in "
            "biggest_freezer.txt",
            file_reads("biggest_freezer.txt", _largest(SAMPLES)[3]),
        ),
        Goal(
            "Count the samples collected since 1 March 2026 (samples.tsv) and write the figure to "
            "march_onwards.txt",
            file_number("march_onwards.txt", len(_samples(lambda s: s[2] >= "2026-03-01"))),
        ),
        Goal(
            "For project ONC-7, how much sample volume is there in total? Read samples.tsv and answer "
            "in onc7_volume.txt",
            file_number("onc7_volume.txt", _volume(_samples(_project("ONC-7")))),
        ),
        Goal(
            "How many NEURO-1 samples have been discarded? samples.tsv -> neuro_discarded.txt",
            file_number(
                "neuro_discarded.txt",
                len(_samples(lambda s: _project("NEURO-1")(s) and _status("discarded")(s))),
            ),
        ),
        Goal(
            "archive_ids.txt should list every sample ID in archive.tsv",
            file_line_multiset("archive_ids.txt", _ids(ARCHIVE)),
        ),
        Goal(
            "Write the number of samples in samples.tsv and in archive.tsv to both_counts.txt, one per line",
            file_numbers_per_line("both_counts.txt", [len(SAMPLES), len(ARCHIVE)]),
        ),
        Goal(
            'Make a file called freezer_note.txt that says "Defrost F2 on Friday"',
            file_reads("freezer_note.txt", "Defrost F2 on Friday"),
        ),
        Goal(
            "Which CARD-2 samples have been received but not processed yet? Take them from "
            "samples.tsv and write their IDs to card2_pending.txt",
            file_line_multiset(
                "card2_pending.txt",
                _ids(_samples(lambda s: _project("CARD-2")(s) and _status("received")(s))),
            ),
        ),
        Goal(
            "How many mL of processed samples does archive.tsv hold? Save the amount to "
            "archive_processed.txt",
            file_number("archive_processed.txt", _volume(_samples(_status("processed"), ARCHIVE))),
        ),
        Goal(
            "When was the largest ONC-7 sample collected? Look it up in samples.tsv and write the "
            "date to onc7_largest_date.txt",
            file_reads("onc7_largest_date.txt", _largest(_samples(_project("ONC-7")))[2]),
        ),
    ],
)

TRAINS_SET = ToolSet(
    "trains",
    TRAINS_TOOLS,
    TRAINS_FILES,
    [
        Goal(
            "How many departures are on the board in central.json? Write the number to departures.txt",
            file_number("departures.txt", len(CENTRAL)),
        ),
        Goal(
            "Which trains go to York from Central? Save their timetable lines from central.json to york.txt",
            file_line_multiset("york.txt", _lines(_trains(_to("York")))),
        ),
        Goal(
            "What's the average delay, in minutes, on the central.json board? Put it in avg_delay.txt",
            file_number("avg_delay.txt", _mean_delay(CENTRAL)),
        ),
        Goal(
            "Count the trains in central.json that leave between 7 and 9 am and write the count to "
            "morning_count.txt",
            file_number("morning_count.txt", len(_trains(lambda d: "07:00" <= d[2] <= "09:00"))),
        ),
        Goal(
            "Which is the first train of the day at Central (central.json)? Write its service number "
            "to first_train.txt",
            file_reads("first_train.txt", _first(CENTRAL)[0]),
        ),
        Goal(
            "first_platform.txt: the platform that the earliest departure in central.json leaves from",
            file_reads("first_platform.txt", _first(CENTRAL)[3]),
        ),
        Goal(
            "How many Central departures are running at least 10 minutes late? Use central.json and "
            "answer in late10.txt",
            file_number("late10.txt", len(_trains(lambda d: d[4] >= 10))),
        ),
        Goal(
            "I need the departures to Bristol from central.json written out to bristol.txt",
            file_line_multiset("bristol.txt", _lines(_trains(_to("Bristol")))),
        ),
        Goal(
            "What time does the first Leeds train leave Central? Check central.json and put the time "
            "in first_leeds.txt",
            file_reads("first_leeds.txt", _first(_trains(_to("Leeds")))[2]),
        ),
        Goal(
            "Average delay of the York trains on the central.json board? Save it as york_delay.txt",
            file_number("york_delay.txt", _mean_delay(_trains(_to("York")))),
        ),
        Goal(
            "How many trains leave Parkway (parkway.json) for Leeds? Write the count to parkway_leeds.txt",
            file_number("parkway_leeds.txt", len(_trains(_to("Leeds"), PARKWAY))),
        ),
        Goal(
            "Write the number of departures on central.json and on parkway.json to boards.txt, "
            "one number per line",
            file_numbers_per_line("boards.txt", [len(CENTRAL), len(PARKWAY)]),
        ),
        Goal(
            'Please create platform_notice.txt containing the text "Platform 3 closed after 22:00"',
            file_reads("platform_notice.txt", "Platform 3 closed after 22:00"),
        ),
        Goal(
            "Which trains leaving central.json between 12:00 and 18:00 are at least 5 minutes late? "
            "Put their timetable lines in afternoon_late.txt",
            file_line_multiset(
                "afternoon_late.txt", _lines(_trains(lambda d: "12:00" <= d[2] <= "18:00" and d[4] >= 5))
            ),
        ),
        Goal(
            "parkway.json: how many minutes late is the first train to York? Write the minutes to "
            "parkway_york_delay.txt",
            file_number("parkway_york_delay.txt", _first(_trains(_to("York"), PARKWAY))[4]),
        ),
        Goal(
            "Show every departure on the Parkway board (parkway.json) in parkway_board.txt",
            file_line_multiset("parkway_board.txt", _lines(PARKWAY)),
        ),
    ],
)

HELD_OUT_11 = [SAMPLES_SET, TRAINS_SET]

if __name__ == "__main__":
    print(json.dumps({s.name: len(s.goals) for s in HELD_OUT_11}))
