"""An eighth held-out planning suite: 32 goals over two tool sets the planner has never seen.

Written blind and committed before the planner ever ran on it. Its author read only the suite
framework (``heldout.py``), the previous suite's structure (``heldout7.py``, its reference plans
and self-check), the shared self-check (``heldout_selfcheck.py``) and the runner
(``heldout_run.py``). It did not read the planner (``planning/``), the model layer (``models/``),
``plan/coverage.py`` or ``plan/verbs.py``, the planner's tests, ``run.py``/``tools.py``/``rows.py``/
``replay_decided.py``, the README's paragraph on what the embedded model can do, or any earlier
result, log or report. Its first run is the held-out measurement; goals are not edited after it.
Every goal asks for a named file; every check reads the file the executed plan wrote.

``gradebook`` is a school's marks: JSON lists of ``Grade`` records (student, course, score, term)
plus a class roster (one student name per line). ``top_grade`` and ``lowest_grade`` return one
``Grade`` whose field a plan has to take (``${sN.student}``, ``${sN.score}``, ``${sN.course}``);
``missing_students`` combines two inputs (a roster and the grades); names share words
(``grades_in_course``, ``grades_in_term``, ``grades_for_student``, ``grades_at_least``,
``count_grades``); values have several words ("Ines Moreau", "2026 spring").
``triplog`` parses a line-based fuel log ("date; car; km; litres" per line, ``#`` comments) into
``Trip`` records and computes over them: totals, the longest trip, the trip that took most fuel,
consumption per 100 km from two numbers, a fuel bill, rounding.

Each goal's hand-written reference plan is in ``heldout8_reference.py``; ``heldout8_selfcheck.py``
runs them through the real ``Agent`` (no model) and checks the files, which shows every goal is
achievable with these tools and every check accepts a right answer.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from heldout import (
    Check,
    Goal,
    ToolSet,
    _inside,
    _text,
    file_lines,
    file_number,
    read_lines,
    read_records,
    read_text,
    same_text,
)
from pydantic import BaseModel

from forethought import ToolContext, tool
from forethought.errors import ToolError
from forethought.tools.python import PythonTool

# ------------------------------------------------------------------------- tool set: gradebook


class Grade(BaseModel):
    student: str
    course: str
    score: float
    term: str


@tool
def load_grades(ctx: ToolContext, grades_file: str) -> list[Grade]:
    """Read the grades (student, course, score, term) of a gradebook JSON file."""
    return read_records(ctx, grades_file, "gradebook", Grade, "grade")


@tool
def load_roster(ctx: ToolContext, roster_file: str) -> list[str]:
    """Read the student names of a class roster file, one name per line."""
    return read_lines(ctx, roster_file, "roster")


@tool
def grades_in_course(grades: list[Grade], course: str) -> list[Grade]:
    """Only the grades of the given course (for example Chemistry)."""
    return [g for g in grades if same_text(g.course, course)]


@tool
def grades_in_term(grades: list[Grade], term: str) -> list[Grade]:
    """Only the grades of the given term (for example 2025 autumn)."""
    return [g for g in grades if same_text(g.term, term)]


@tool
def grades_for_student(grades: list[Grade], student: str) -> list[Grade]:
    """Only the grades of the given student."""
    return [g for g in grades if same_text(g.student, student)]


@tool
def grades_at_least(grades: list[Grade], minimum: float) -> list[Grade]:
    """Only the grades whose score is the given number or more."""
    return [g for g in grades if g.score >= minimum]


@tool
def count_grades(grades: list[Grade]) -> int:
    """How many grades (gradebook records) there are."""
    return len(grades)


def _some_grades(grades: list[Grade]) -> list[Grade]:
    if not grades:
        raise ToolError("no grades given", retryable=False)
    return grades


@tool
def average_score(grades: list[Grade]) -> float:
    """The mean score of some grades."""
    return sum(g.score for g in _some_grades(grades)) / len(grades)


@tool
def top_grade(grades: list[Grade]) -> Grade:
    """The grade with the highest score."""
    return max(_some_grades(grades), key=lambda g: g.score)


@tool
def lowest_grade(grades: list[Grade]) -> Grade:
    """The grade with the lowest score."""
    return min(_some_grades(grades), key=lambda g: g.score)


@tool
def student_names(grades: list[Grade]) -> str:
    """The distinct students of some grades as text, one per line, in order of first appearance."""
    return "".join(f"{s}\n" for s in dict.fromkeys(g.student for g in grades))


@tool
def course_names(grades: list[Grade]) -> str:
    """The distinct courses of some grades as text, one per line, in alphabetical order."""
    return "".join(f"{c}\n" for c in sorted({g.course for g in grades}))


@tool
def missing_students(roster: list[str], grades: list[Grade]) -> str:
    """The roster names that have no grade at all, one per line."""
    graded = {g.student.lower() for g in grades}
    return "".join(f"{name}\n" for name in roster if name.lower() not in graded)


@tool
def round_score(score: float, places: int) -> float:
    """Round a score to the given number of decimal places."""
    if places < 0:
        raise ToolError("places must be 0 or more", retryable=False)
    return round(score, places)


@tool(effect="mutating", idempotent=True)
def write_report(ctx: ToolContext, report_file: str, text: str) -> str:
    """Write text into a report file of the workspace, replacing it if it exists."""
    _inside(ctx, report_file).write_text(text, encoding="utf-8")
    return report_file


GRADEBOOK_TOOLS: list[PythonTool] = [
    load_grades,
    load_roster,
    grades_in_course,
    grades_in_term,
    grades_for_student,
    grades_at_least,
    count_grades,
    average_score,
    top_grade,
    lowest_grade,
    student_names,
    course_names,
    missing_students,
    round_score,
    write_report,
]

# --------------------------------------------------------------------------- tool set: triplog


class Trip(BaseModel):
    date: str
    car: str
    km: float
    litres: float


@tool
def read_trips(ctx: ToolContext, log_file: str) -> list[Trip]:
    """Parse a fuel log: one "date; car; km; litres" line per trip, # starts a comment."""
    text = read_text(ctx, log_file, "fuel log")
    trips = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = [f.strip() for f in line.split(";")]
        if len(fields) != 4:
            raise ToolError(
                f"{log_file}:{number}: expected 'date; car; km; litres', got {line!r}", retryable=False
            )
        date, car, km, litres = fields
        try:
            trips.append(Trip(date=date, car=car, km=float(km), litres=float(litres)))
        except ValueError:
            raise ToolError(
                f"{log_file}:{number}: km and litres must be numbers, got {km!r} and {litres!r}",
                retryable=False,
            ) from None
    return trips


@tool
def trips_by_car(trips: list[Trip], car: str) -> list[Trip]:
    """Only the trips made with the given car."""
    return [t for t in trips if same_text(t.car, car)]


@tool
def trips_in_month(trips: list[Trip], month: str) -> list[Trip]:
    """Only the trips of one month (YYYY-MM)."""
    return [t for t in trips if t.date.startswith(month.strip() + "-")]


@tool
def trips_longer_than(trips: list[Trip], km: float) -> list[Trip]:
    """Only the trips longer than the given distance in kilometres."""
    return [t for t in trips if t.km > km]


@tool
def count_trips(trips: list[Trip]) -> int:
    """How many trips there are."""
    return len(trips)


@tool
def total_km(trips: list[Trip]) -> float:
    """The kilometres of some trips added up."""
    return sum(t.km for t in trips)


@tool
def total_litres(trips: list[Trip]) -> float:
    """The litres of fuel of some trips added up."""
    return sum(t.litres for t in trips)


def _some_trips(trips: list[Trip]) -> list[Trip]:
    if not trips:
        raise ToolError("no trips given", retryable=False)
    return trips


@tool
def longest_trip(trips: list[Trip]) -> Trip:
    """The trip with the most kilometres."""
    return max(_some_trips(trips), key=lambda t: t.km)


@tool
def thirstiest_trip(trips: list[Trip]) -> Trip:
    """The trip that used the most litres of fuel."""
    return max(_some_trips(trips), key=lambda t: t.litres)


@tool
def consumption(litres: float, km: float) -> float:
    """Fuel consumption in litres per 100 km of a distance driven on the given litres."""
    if km <= 0 or litres < 0:
        raise ToolError("km must be positive and litres not negative", retryable=False)
    return litres / km * 100


@tool
def fuel_cost(litres: float, price_per_litre: float) -> float:
    """What the given litres of fuel cost at the given price per litre."""
    if litres < 0 or price_per_litre < 0:
        raise ToolError("litres and price must not be negative", retryable=False)
    return litres * price_per_litre


@tool
def car_names(trips: list[Trip]) -> str:
    """The distinct cars of some trips as text, one per line, in order of first appearance."""
    return "".join(f"{c}\n" for c in dict.fromkeys(t.car for t in trips))


@tool
def trips_as_lines(trips: list[Trip]) -> str:
    """Trips as text, one "date; car; km; litres" line each."""
    return "".join(f"{t.date}; {t.car}; {t.km:g}; {t.litres:g}\n" for t in trips)


@tool
def round_to(value: float, places: int) -> float:
    """Round a number to the given number of decimal places."""
    if places < 0:
        raise ToolError("places must be 0 or more", retryable=False)
    return round(value, places)


@tool(effect="mutating", idempotent=True)
def store_text(ctx: ToolContext, path: str, text: str) -> str:
    """Store text in a file of the workspace (created or overwritten)."""
    _inside(ctx, path).write_text(text, encoding="utf-8")
    return path


TRIPLOG_TOOLS: list[PythonTool] = [
    read_trips,
    trips_by_car,
    trips_in_month,
    trips_longer_than,
    count_trips,
    total_km,
    total_litres,
    longest_trip,
    thirstiest_trip,
    consumption,
    fuel_cost,
    car_names,
    trips_as_lines,
    round_to,
    store_text,
]

# ------------------------------------------------------------------------------- the goals

GradeRow = tuple[str, str, float, str]

GRADES: list[GradeRow] = [
    ("Ines Moreau", "Chemistry", 78.5, "2025 autumn"),
    ("Ines Moreau", "History", 91.0, "2025 autumn"),
    ("Karl Lund", "Chemistry", 64.0, "2025 autumn"),
    ("Karl Lund", "Mathematics", 88.5, "2025 autumn"),
    ("Priya Shah", "History", 72.5, "2025 autumn"),
    ("Priya Shah", "Chemistry", 95.0, "2026 spring"),
    ("Ines Moreau", "Mathematics", 83.0, "2026 spring"),
    ("Tomas Novak", "History", 57.5, "2026 spring"),
    ("Tomas Novak", "Biology", 68.0, "2026 spring"),
    ("Karl Lund", "Biology", 90.0, "2026 spring"),
    ("Ines Moreau", "Biology", 80.0, "2026 spring"),
]
RESITS: list[GradeRow] = [
    ("Tomas Novak", "History", 66.0, "2026 summer"),
    ("Karl Lund", "Chemistry", 71.5, "2026 summer"),
    ("Ada Brennan", "Mathematics", 59.0, "2026 summer"),
]
ROSTER = ["Ines Moreau", "Ada Brennan", "Karl Lund", "Priya Shah", "Oskar Wiik", "Tomas Novak"]


def _records(rows: list[GradeRow]) -> str:
    keys = ("student", "course", "score", "term")
    return json.dumps([dict(zip(keys, row, strict=True)) for row in rows], indent=2)


GRADEBOOK_FILES = {
    "grades.json": _records(GRADES),
    "resits.json": _records(RESITS),
    "roster.txt": "".join(f"{n}\n" for n in ROSTER),
}


def _grades(keep: Callable[[GradeRow], bool], rows: list[GradeRow] = GRADES) -> list[GradeRow]:
    return [g for g in rows if keep(g)]


def _mean_score(rows: list[GradeRow]) -> float:
    return sum(g[2] for g in rows) / len(rows)


def _students(rows: list[GradeRow]) -> list[str]:
    return list(dict.fromkeys(g[0] for g in rows))


TOP = max(GRADES, key=lambda g: g[2])
LOWEST = min(GRADES, key=lambda g: g[2])

TripRow = tuple[str, str, float, float]

TRIPS: list[TripRow] = [
    ("2026-03-02", "Volvo V70", 412.5, 44.6),
    ("2026-03-09", "Skoda Octavia", 188.0, 11.4),
    ("2026-03-15", "Fiat Panda", 96.3, 5.94),
    ("2026-03-28", "Volvo V70", 655.0, 40.2),
    ("2026-04-04", "Skoda Octavia", 320.4, 19.1),
    ("2026-04-11", "Fiat Panda", 142.0, 8.6),
    ("2026-04-19", "Volvo V70", 298.7, 24.3),
    ("2026-04-26", "Skoda Octavia", 540.2, 30.6),
    ("2026-05-03", "Volvo V70", 77.9, 7.1),
]
VAN_TRIPS: list[TripRow] = [
    ("2026-05-06", "Ford Transit", 233.0, 26.4),
    ("2026-05-13", "Ford Transit", 418.6, 45.9),
    ("2026-05-20", "Ford Transit", 121.4, 14.2),
    ("2026-05-27", "Ford Transit", 305.0, 33.7),
]


def _trip_line(t: TripRow) -> str:
    return f"{t[0]}; {t[1]}; {t[2]:g}; {t[3]:g}"


TRIPLOG_FILES = {
    "trips.txt": "# date; car; km; litres\n" + "".join(f"{_trip_line(t)}\n" for t in TRIPS),
    "van_log.txt": "".join(f"{_trip_line(t)}\n" for t in VAN_TRIPS),
}


def _trips(keep: Callable[[TripRow], bool]) -> list[TripRow]:
    return [t for t in TRIPS if keep(t)]


LONGEST = max(TRIPS, key=lambda t: t[2])
THIRSTIEST = max(TRIPS, key=lambda t: t[3])


def file_says(name: str, value: str) -> Check:
    """The file holds exactly this value, give or take surrounding whitespace."""
    return lambda ws: (t := _text(ws, name)) is not None and t.strip() == value


GRADEBOOK_SET = ToolSet(
    "gradebook",
    GRADEBOOK_TOOLS,
    GRADEBOOK_FILES,
    [
        Goal(
            "How many grades are recorded in grades.json? Put the number in grade_count.txt",
            file_number("grade_count.txt", len(GRADES)),
        ),
        Goal(
            "Write the average score of grades.json, rounded to 1 decimal, to average.txt",
            file_number("average.txt", round(_mean_score(GRADES), 1)),
        ),
        Goal(
            "Which students took Chemistry according to grades.json? List their names in chemistry.txt",
            file_lines("chemistry.txt", _students(_grades(lambda g: g[1] == "Chemistry"))),
        ),
        Goal(
            "top_student.txt: who got the highest score in grades.json?",
            file_says("top_student.txt", TOP[0]),
        ),
        Goal(
            "What was the best score anyone got in grades.json? Write it to best_score.txt",
            file_number("best_score.txt", TOP[2]),
        ),
        Goal(
            "Save the course of the lowest grade in grades.json to weakest_course.txt",
            file_says("weakest_course.txt", LOWEST[1]),
        ),
        Goal(
            "Which students on roster.txt have no grades at all in grades.json? Write them to ungraded.txt",
            file_lines("ungraded.txt", [n for n in ROSTER if n not in {g[0] for g in GRADES}]),
        ),
        Goal(
            "Into history_mean.txt, write the mean History score from grades.json",
            file_number("history_mean.txt", _mean_score(_grades(lambda g: g[1] == "History"))),
        ),
        Goal(
            "List the different courses that appear in grades.json in courses.txt",
            file_lines("courses.txt", sorted({g[1] for g in GRADES})),
        ),
        Goal(
            "Count the grades of 80 points or more in grades.json and save the count to honours.txt",
            file_number("honours.txt", len(_grades(lambda g: g[2] >= 80))),
        ),
        Goal(
            "What is Ines Moreau's average score in grades.json? Answer in ines_average.txt",
            file_number("ines_average.txt", _mean_score(_grades(lambda g: g[0] == "Ines Moreau"))),
        ),
        Goal(
            "spring_count.txt should hold the number of grades given in the 2026 spring term (grades.json)",
            file_number("spring_count.txt", len(_grades(lambda g: g[3] == "2026 spring"))),
        ),
        Goal(
            "resit_count.txt: how many entries does resits.json have?",
            file_number("resit_count.txt", len(RESITS)),
        ),
        Goal(
            "Write the name of the student with the lowest score in resits.json to lowest_resit.txt",
            file_says("lowest_resit.txt", min(RESITS, key=lambda g: g[2])[0]),
        ),
        Goal(
            'Create a file named grades_notice.txt saying "grades are final on 30 June"',
            file_says("grades_notice.txt", "grades are final on 30 June"),
        ),
        Goal(
            "Who scored at least 90 in grades.json? Put their names in high_scorers.txt",
            file_lines("high_scorers.txt", _students(_grades(lambda g: g[2] >= 90))),
        ),
    ],
)

TRIPLOG_SET = ToolSet(
    "triplog",
    TRIPLOG_TOOLS,
    TRIPLOG_FILES,
    [
        Goal(
            "How many trips are logged in trips.txt? Write the count to trip_count.txt",
            file_number("trip_count.txt", len(TRIPS)),
        ),
        Goal(
            "total_km.txt: how many kilometres were driven altogether according to trips.txt?",
            file_number("total_km.txt", sum(t[2] for t in TRIPS)),
        ),
        Goal(
            "Write the total litres of fuel in trips.txt to litres.txt, rounded to 1 decimal place",
            file_number("litres.txt", round(sum(t[3] for t in TRIPS), 1)),
        ),
        Goal(
            "Put the trips made with the Skoda Octavia from trips.txt into skoda.txt",
            file_lines("skoda.txt", [_trip_line(t) for t in _trips(lambda t: t[1] == "Skoda Octavia")]),
        ),
        Goal(
            "Which car drove the longest trip in trips.txt? Save the car to longest_car.txt",
            file_says("longest_car.txt", LONGEST[1]),
        ),
        Goal(
            "On what date was the longest trip in trips.txt? Answer in longest_date.txt",
            file_says("longest_date.txt", LONGEST[0]),
        ),
        Goal(
            "How many km was the trip in trips.txt that used the most fuel? Write it to thirsty_km.txt",
            file_number("thirsty_km.txt", THIRSTIEST[2]),
        ),
        Goal(
            "List the different cars in trips.txt in cars.txt",
            file_lines("cars.txt", list(dict.fromkeys(t[1] for t in TRIPS))),
        ),
        Goal(
            "Write every trip from April 2026 (2026-04) in trips.txt to april.txt",
            file_lines("april.txt", [_trip_line(t) for t in _trips(lambda t: t[0].startswith("2026-04-"))]),
        ),
        Goal(
            "Count the trips in trips.txt longer than 300 km and write the number to long_trips.txt",
            file_number("long_trips.txt", len(_trips(lambda t: t[2] > 300))),
        ),
        Goal(
            "What is the consumption in litres per 100 km of 42 litres over 600 km? "
            "Write it to consumption.txt",
            file_number("consumption.txt", 42 / 600 * 100),
        ),
        Goal(
            "fuel_bill.txt: what do 38.5 litres of fuel cost at 1.9 per litre?",
            file_number("fuel_bill.txt", 38.5 * 1.9),
        ),
        Goal(
            "How many kilometres did the Volvo V70 cover in trips.txt? Put the total in volvo_km.txt",
            file_number("volvo_km.txt", sum(t[2] for t in TRIPS if t[1] == "Volvo V70")),
        ),
        Goal(
            "van_trips.txt: how many trips does van_log.txt record?",
            file_number("van_trips.txt", len(VAN_TRIPS)),
        ),
        Goal(
            "Into van_litres.txt write how many litres of fuel the trips in van_log.txt used in total",
            file_number("van_litres.txt", sum(t[3] for t in VAN_TRIPS)),
        ),
        Goal(
            'Write "odometer checked on 2026-05-01" to car_note.txt',
            file_says("car_note.txt", "odometer checked on 2026-05-01"),
        ),
    ],
)

HELD_OUT_8 = [GRADEBOOK_SET, TRIPLOG_SET]

if __name__ == "__main__":
    print(json.dumps({s.name: len(s.goals) for s in HELD_OUT_8}))
