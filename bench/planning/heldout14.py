"""A fourteenth held-out planning suite: 32 goals over two tool sets the planner has never seen.

Written blind and committed before the planner ever ran on it. Its author read only the suite
framework (``heldout.py``), the thirteenth suite (``heldout13.py``, its reference plans and
self-check), the shared self-check (``heldout_selfcheck.py``), the runner (``heldout_run.py``) and
``replay_decided.py`` (only to register the suite), the README's plan syntax section and the plan
model (``src/forethought/plan/model.py``). It did not read the planner (``planning/``), any test,
the planner's prompts, starter plans or memory, any other held-out suite (``heldout2.py`` to
``heldout12.py``; hence it wrote its own file checks rather than use the eleventh suite's), or
any earlier result, log or report; it did not run the planner or a model on these goals. Its
first run is the held-out measurement; goals are not edited after it. After that run, three of
its checks, the same as the eleventh suite's line for line in what they accept, were replaced
by imports of those (self-check 32/32 and ``--broken`` as before). Every goal asks for a named file;
every check reads the file the executed plan wrote.

``playlist`` is a music library kept as a pipe-separated text file, one track per line (``title |
artist | genre | m:ss | rating``, ``#`` lines are comments), read into ``Track`` records (length
in ``seconds``) from a ``playlist_file``. Filters by artist, by genre and by a star rating
(``stars``: at least that many, out of 5; goals say "four stars or more") chain; playing time is
added up in seconds; the longest track is one record whose field a plan has to take
(``${sN.title}``, ``${sN.artist}``, ``${sN.seconds}``). A second playlist (``road_trip.txt``)
makes two-file goals. The writer is ``save_to_file(output_name, content)``.
``builds`` is a CI server's build log, a line-based text format (start date and time, ``#N``,
then ``key=value`` fields: pipeline, branch, status, duration) read from a ``log_path`` into
``Build`` records: filters by branch, by status (passed / failed / cancelled) and by start day
(on or after ``since_day``, YYYY-MM-DD; goals write "the tenth of June 2026" or "June 8, 2026"),
a count, a mean duration, the slowest build as one record (``${sN.number}``, ``${sN.pipeline}``,
``${sN.date}``) and builds as report lines. The release pipeline's log (``release.log``) makes
two-file goals. The writer is ``write_artifact(artifact_path, payload)``.

Each goal's hand-written reference plan is in ``heldout14_reference.py``;
``heldout14_selfcheck.py`` runs them through the real ``Agent`` (no model) and checks the files,
which shows every goal is achievable with these tools and every check accepts a right answer (and,
with ``--broken``, that the checks reject two wrong ones).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from heldout import Check, Goal, ToolSet, _inside, _text, file_number, iso_day, read_text, same_text
from heldout11 import file_line_multiset as file_holds_lines
from heldout11 import file_numbers_per_line as file_numbers_by_line
from heldout11 import file_reads
from pydantic import BaseModel, ValidationError

from forethought import ToolContext, tool
from forethought.errors import ToolError
from forethought.tools.python import PythonTool

# ------------------------------------------------------------------------------- the checks


def file_build_number(name: str, number: int) -> Check:
    """The file names build ``number``, written ``413`` or ``#413``."""
    return lambda ws: (t := _text(ws, name)) is not None and t.strip().removeprefix("#") == str(number)


# ------------------------------------------------------------------------- tool set: playlist


class Track(BaseModel):
    title: str
    artist: str
    genre: str
    seconds: int
    rating: int


LENGTH = re.compile(r"(\d+):([0-5]\d)")


def _track(playlist_file: str, number: int, line: str) -> Track:
    fields = [f.strip() for f in line.split("|")]
    if len(fields) != 5:
        raise ToolError(
            f"{playlist_file}:{number}: expected title | artist | genre | m:ss | rating, got {line!r}",
            retryable=False,
        )
    title, artist, genre, length, rating = fields
    minutes_seconds = LENGTH.fullmatch(length)
    if minutes_seconds is None:
        raise ToolError(f"{playlist_file}:{number}: length must be m:ss, got {length!r}", retryable=False)
    if rating not in {"1", "2", "3", "4", "5"}:
        raise ToolError(f"{playlist_file}:{number}: rating must be 1 to 5, got {rating!r}", retryable=False)
    seconds = 60 * int(minutes_seconds[1]) + int(minutes_seconds[2])
    return Track(title=title, artist=artist, genre=genre, seconds=seconds, rating=int(rating))


@tool
def read_playlist(ctx: ToolContext, playlist_file: str) -> list[Track]:
    """Read a playlist file: one track per line as "title | artist | genre | m:ss | rating"
    (rating: 1 to 5 stars; lines starting with # are comments). Each track's length comes out in
    seconds."""
    tracks = []
    for number, line in enumerate(read_text(ctx, playlist_file, "playlist").splitlines(), start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            tracks.append(_track(playlist_file, number, line))
    return tracks


@tool
def by_artist(tracks: list[Track], artist: str) -> list[Track]:
    """Only the tracks by one artist or band (its name as on the playlist)."""
    return [t for t in tracks if same_text(t.artist, artist)]


@tool
def in_genre(tracks: list[Track], genre: str) -> list[Track]:
    """Only the tracks of one genre (e.g. rock, jazz, folk, pop, electronic)."""
    return [t for t in tracks if same_text(t.genre, genre)]


@tool
def rated_at_least(tracks: list[Track], stars: int) -> list[Track]:
    """Only the tracks rated at least the given number of stars (ratings go from 1 to 5 stars)."""
    if not 1 <= stars <= 5:
        raise ToolError(f"stars must be 1 to 5, got {stars}", retryable=False)
    return [t for t in tracks if t.rating >= stars]


@tool
def count_tracks(tracks: list[Track]) -> int:
    """How many tracks (songs) there are."""
    return len(tracks)


@tool
def playing_time(tracks: list[Track]) -> int:
    """Total playing time of the tracks, in seconds."""
    return sum(t.seconds for t in tracks)


@tool
def longest_track(tracks: list[Track]) -> Track:
    """The longest track, with all its details (title, artist, genre, length in seconds, rating)."""
    if not tracks:
        raise ToolError("no tracks given", retryable=False)
    return max(tracks, key=lambda t: t.seconds)


def track_line(title: str, artist: str, genre: str, seconds: int, rating: int) -> str:
    """One track as a line of a listing (the tool's text and the checks' expectation)."""
    return f"{artist} - {title} [{genre}, {seconds // 60}:{seconds % 60:02d}, {rating}/5]"


@tool
def track_listing(tracks: list[Track]) -> str:
    """Tracks as readable text, one line per track: artist - title [genre, m:ss, rating/5]."""
    return "".join(track_line(t.title, t.artist, t.genre, t.seconds, t.rating) + "\n" for t in tracks)


@tool(effect="mutating", idempotent=True)
def save_to_file(ctx: ToolContext, output_name: str, content: str) -> str:
    """Save text into a file of the music folder (an existing file of that name is replaced)."""
    _inside(ctx, output_name).write_text(content, encoding="utf-8")
    return output_name


PLAYLIST_TOOLS: list[PythonTool] = [
    read_playlist,
    by_artist,
    in_genre,
    rated_at_least,
    count_tracks,
    playing_time,
    longest_track,
    track_listing,
    save_to_file,
]

# --------------------------------------------------------------------------- tool set: builds


class Build(BaseModel):
    number: int
    date: str
    time: str
    pipeline: str
    branch: str
    status: str
    duration_s: int


STATUSES = ("passed", "failed", "cancelled")
BUILD_LINE = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2}) (?P<time>\d{2}:\d{2}) #(?P<number>\d+)"
    r" pipeline=(?P<pipeline>\S+) branch=(?P<branch>\S+) status=(?P<status>\S+) duration=(?P<duration>\d+)s"
)


@tool
def parse_build_log(ctx: ToolContext, log_path: str) -> list[Build]:
    """Read a CI build log: one build per line, its start date and time, its build number (#N),
    then pipeline=, branch=, status= (passed, failed or cancelled) and duration= (seconds, e.g.
    312s)."""
    builds = []
    for number, line in enumerate(read_text(ctx, log_path, "build log").splitlines(), start=1):
        if not line.strip():
            continue
        found = BUILD_LINE.fullmatch(line.strip())
        if found is None:
            raise ToolError(f"{log_path}:{number}: not a build line: {line!r}", retryable=False)
        fields = found.groupdict()
        duration = fields.pop("duration")
        try:
            builds.append(Build(**fields, duration_s=int(duration)))
        except ValidationError as exc:
            raise ToolError(f"{log_path}:{number}: not a build: {exc}", retryable=False) from None
    return builds


@tool
def on_branch(builds: list[Build], branch: str) -> list[Build]:
    """Only the builds of one git branch (e.g. main)."""
    return [b for b in builds if b.branch == branch.strip()]


@tool
def with_status(builds: list[Build], status: str) -> list[Build]:
    """Only the builds that ended with a status: passed, failed or cancelled."""
    if status.strip().lower() not in STATUSES:
        raise ToolError(f"status must be one of {', '.join(STATUSES)}, got {status!r}", retryable=False)
    return [b for b in builds if same_text(b.status, status)]


@tool
def started_since(builds: list[Build], since_day: str) -> list[Build]:
    """Only the builds started on or after a day (YYYY-MM-DD)."""
    day = iso_day(since_day)
    return [b for b in builds if b.date >= day]


@tool
def count_builds(builds: list[Build]) -> int:
    """Number of builds."""
    return len(builds)


@tool
def mean_duration(builds: list[Build]) -> float:
    """Average (mean) build duration, in seconds."""
    if not builds:
        raise ToolError("no builds given", retryable=False)
    return sum(b.duration_s for b in builds) / len(builds)


@tool
def slowest_build(builds: list[Build]) -> Build:
    """The build that took longest, with all its details (number, date, time, pipeline, branch,
    status, duration in seconds)."""
    if not builds:
        raise ToolError("no builds given", retryable=False)
    return max(builds, key=lambda b: b.duration_s)


def report_line(
    number: int, date: str, time: str, pipeline: str, branch: str, status: str, duration: int
) -> str:
    """One build as a report line (the tool's text and the checks' expectation)."""
    return f"#{number} {pipeline}@{branch} {status} in {duration} s ({date} {time})"


@tool
def build_report(builds: list[Build]) -> str:
    """Builds as report text, one line each (number, pipeline@branch, status, duration, start)."""
    return "".join(
        report_line(b.number, b.date, b.time, b.pipeline, b.branch, b.status, b.duration_s) + "\n"
        for b in builds
    )


@tool(effect="mutating", idempotent=True)
def write_artifact(ctx: ToolContext, artifact_path: str, payload: str) -> str:
    """Store text as a build artifact: a file at artifact_path in the workspace (created or
    overwritten)."""
    _inside(ctx, artifact_path).write_text(payload, encoding="utf-8")
    return artifact_path


BUILD_TOOLS: list[PythonTool] = [
    parse_build_log,
    on_branch,
    with_status,
    started_since,
    count_builds,
    mean_duration,
    slowest_build,
    build_report,
    write_artifact,
]

# ------------------------------------------------------------------------------- the goals

TrackRow = tuple[str, str, str, str, int]  # title, artist, genre, m:ss, rating

LIBRARY: list[TrackRow] = [
    ("Harbour Lights", "The Tidewaters", "folk", "3:42", 4),
    ("Neon Avenue", "Kira Vale", "electronic", "5:18", 3),
    ("Blue in Green Street", "Marcus Hale Trio", "jazz", "6:05", 5),
    ("Paper Kites", "The Tidewaters", "folk", "2:58", 3),
    ("Overdrive", "Steel Orchard", "rock", "4:21", 4),
    ("Slow Orbit", "Kira Vale", "electronic", "7:02", 5),
    ("Late Tram", "Marcus Hale Trio", "jazz", "4:47", 4),
    ("Copper Sky", "Steel Orchard", "rock", "3:33", 2),
    ("Little Lantern", "June Arden", "pop", "3:05", 4),
    ("Static Hearts", "June Arden", "pop", "3:27", 2),
    ("Night Ferry", "The Tidewaters", "folk", "4:10", 5),
    ("Basement Club", "Marcus Hale Trio", "jazz", "5:36", 3),
    ("Rust and Rain", "Steel Orchard", "rock", "5:02", 5),
    ("Glass Tide", "Kira Vale", "electronic", "6:14", 4),
]
ROAD_TRIP: list[TrackRow] = [
    ("Open Road", "Steel Orchard", "rock", "3:51", 4),
    ("Harbour Lights", "The Tidewaters", "folk", "3:42", 4),
    ("Sun Visor", "June Arden", "pop", "2:49", 3),
    ("Mile Marker", "Dust Radio", "rock", "4:38", 5),
    ("Desert Static", "Kira Vale", "electronic", "5:55", 3),
    ("Wide Awake", "Dust Radio", "rock", "3:14", 2),
]


def _playlist(name: str, rows: list[TrackRow]) -> str:
    head = f"# {name}\n# title | artist | genre | length | rating\n"
    return head + "".join(" | ".join(str(v) for v in row) + "\n" for row in rows)


PLAYLIST_FILES = {
    "library.txt": _playlist("Home library", LIBRARY),
    "road_trip.txt": _playlist("Road trip", ROAD_TRIP),
}


def _seconds(row: TrackRow) -> int:
    minutes, seconds = row[3].split(":")
    return 60 * int(minutes) + int(seconds)


def _tracks(keep: Callable[[TrackRow], bool], rows: list[TrackRow] = LIBRARY) -> list[TrackRow]:
    return [t for t in rows if keep(t)]


def _genre(genre: str) -> Callable[[TrackRow], bool]:
    return lambda t: t[2] == genre


def _artist(artist: str) -> Callable[[TrackRow], bool]:
    return lambda t: t[1] == artist


def _total_seconds(rows: list[TrackRow]) -> int:
    return sum(_seconds(t) for t in rows)


def _longest(rows: list[TrackRow]) -> TrackRow:
    return max(rows, key=_seconds)


def _track_lines(rows: list[TrackRow]) -> list[str]:
    return [track_line(t[0], t[1], t[2], _seconds(t), t[4]) for t in rows]


BuildRow = tuple[int, str, str, str, str, str, int]  # number, date, time, pipeline, branch, status, s

CI: list[BuildRow] = [
    (401, "2026-06-01", "09:12", "api", "main", "passed", 312),
    (402, "2026-06-01", "11:40", "web", "feature/login", "failed", 95),
    (403, "2026-06-02", "08:05", "api", "main", "passed", 298),
    (404, "2026-06-03", "16:22", "worker", "main", "failed", 141),
    (405, "2026-06-04", "10:30", "web", "main", "passed", 455),
    (406, "2026-06-05", "13:17", "api", "feature/login", "passed", 330),
    (407, "2026-06-08", "09:02", "worker", "main", "cancelled", 20),
    (408, "2026-06-09", "14:45", "web", "main", "failed", 210),
    (409, "2026-06-10", "10:11", "api", "main", "passed", 305),
    (410, "2026-06-11", "15:36", "web", "feature/login", "passed", 470),
    (411, "2026-06-12", "09:55", "worker", "main", "passed", 188),
    (412, "2026-06-15", "11:08", "api", "main", "failed", 122),
    (413, "2026-06-16", "17:20", "web", "main", "passed", 498),
    (414, "2026-06-17", "08:47", "api", "feature/login", "cancelled", 15),
]
RELEASE: list[BuildRow] = [
    (90, "2026-06-05", "18:00", "web", "release", "passed", 612),
    (91, "2026-06-12", "18:00", "api", "release", "failed", 240),
    (92, "2026-06-12", "19:10", "api", "release", "passed", 580),
    (93, "2026-06-19", "18:00", "web", "release", "passed", 645),
    (94, "2026-06-19", "18:30", "worker", "release", "passed", 402),
]


def _log(rows: list[BuildRow]) -> str:
    return "".join(
        f"{date} {time} #{n} pipeline={pipeline} branch={branch} status={status} duration={s}s\n"
        for n, date, time, pipeline, branch, status, s in rows
    )


BUILD_FILES = {"ci.log": _log(CI), "release.log": _log(RELEASE)}


def _builds(keep: Callable[[BuildRow], bool], rows: list[BuildRow] = CI) -> list[BuildRow]:
    return [b for b in rows if keep(b)]


def _status(status: str) -> Callable[[BuildRow], bool]:
    return lambda b: b[5] == status


def _branch(branch: str) -> Callable[[BuildRow], bool]:
    return lambda b: b[4] == branch


def _mean_s(rows: list[BuildRow]) -> float:
    return sum(b[6] for b in rows) / len(rows)


def _slowest(rows: list[BuildRow]) -> BuildRow:
    return max(rows, key=lambda b: b[6])


def _report_lines(rows: list[BuildRow]) -> list[str]:
    return [report_line(*b) for b in rows]


PLAYLIST_SET = ToolSet(
    "playlist",
    PLAYLIST_TOOLS,
    PLAYLIST_FILES,
    [
        Goal(
            "How many tracks are on the playlist in library.txt? Write the number to track_count.txt",
            file_number("track_count.txt", len(LIBRARY)),
        ),
        Goal(
            "What is the total playing time of library.txt, in seconds? Save it to runtime.txt",
            file_number("runtime.txt", _total_seconds(LIBRARY)),
        ),
        Goal(
            "jazz.txt: every jazz track in library.txt, one per line",
            file_holds_lines("jazz.txt", _track_lines(_tracks(_genre("jazz")))),
        ),
        Goal(
            "List the songs by Steel Orchard from library.txt in steel_orchard.txt",
            file_holds_lines("steel_orchard.txt", _track_lines(_tracks(_artist("Steel Orchard")))),
        ),
        Goal(
            "Count the tracks rated four stars or more in library.txt and write the count to "
            "favourites_count.txt",
            file_number("favourites_count.txt", len(_tracks(lambda t: t[4] >= 4))),
        ),
        Goal(
            "Which is the longest track in library.txt? Put its title in longest_title.txt",
            file_reads("longest_title.txt", _longest(LIBRARY)[0]),
        ),
        Goal(
            "Who recorded the longest track in library.txt? Save the artist's name as longest_artist.txt",
            file_reads("longest_artist.txt", _longest(LIBRARY)[1]),
        ),
        Goal(
            "How many seconds of electronic music are there in library.txt? Answer in electronic_seconds.txt",
            file_number("electronic_seconds.txt", _total_seconds(_tracks(_genre("electronic")))),
        ),
        Goal(
            "Write the length in seconds of the longest folk track in library.txt to longest_folk.txt",
            file_number("longest_folk.txt", _seconds(_longest(_tracks(_genre("folk"))))),
        ),
        Goal(
            "Which songs by The Tidewaters in library.txt have a rating of at least 4? List them in "
            "tidewaters_best.txt",
            file_holds_lines(
                "tidewaters_best.txt",
                _track_lines(_tracks(lambda t: t[1] == "The Tidewaters" and t[4] >= 4)),
            ),
        ),
        Goal(
            "Playing time in seconds of library.txt and of road_trip.txt: write library.txt's on the "
            "first line of runtimes.txt and road_trip.txt's on the second",
            file_numbers_by_line("runtimes.txt", [_total_seconds(LIBRARY), _total_seconds(ROAD_TRIP)]),
        ),
        Goal(
            "road_trip_count.txt should say how many tracks road_trip.txt has",
            file_number("road_trip_count.txt", len(ROAD_TRIP)),
        ),
        Goal(
            "Put the rock songs from road_trip.txt in road_rock.txt",
            file_holds_lines("road_rock.txt", _track_lines(_tracks(_genre("rock"), ROAD_TRIP))),
        ),
        Goal(
            'Make a file now_playing.txt that says "Side B, track 3"',
            file_reads("now_playing.txt", "Side B, track 3"),
        ),
        Goal(
            "Write all the five-star tracks of library.txt to five_stars.txt",
            file_holds_lines("five_stars.txt", _track_lines(_tracks(lambda t: t[4] == 5))),
        ),
        Goal(
            "How long do Marcus Hale Trio's tracks in library.txt play altogether, in seconds? "
            "Save it as hale_seconds.txt",
            file_number("hale_seconds.txt", _total_seconds(_tracks(_artist("Marcus Hale Trio")))),
        ),
    ],
)

BUILDS_SET = ToolSet(
    "builds",
    BUILD_TOOLS,
    BUILD_FILES,
    [
        Goal(
            "How many builds are in ci.log? Write the count to build_count.txt",
            file_number("build_count.txt", len(CI)),
        ),
        Goal(
            "What's the average build duration in ci.log, in seconds? Save it to avg_duration.txt",
            file_number("avg_duration.txt", _mean_s(CI)),
        ),
        Goal(
            "failed.txt: the failed builds from ci.log, one per line",
            file_holds_lines("failed.txt", _report_lines(_builds(_status("failed")))),
        ),
        Goal(
            "How many builds failed in ci.log? Put the number in failures.txt",
            file_number("failures.txt", len(_builds(_status("failed")))),
        ),
        Goal(
            "Which build in ci.log took the longest? Write its build number to slowest.txt",
            file_build_number("slowest.txt", _slowest(CI)[0]),
        ),
        Goal(
            "Which pipeline did the slowest build in ci.log belong to? Save the name as slowest_pipeline.txt",
            file_reads("slowest_pipeline.txt", _slowest(CI)[3]),
        ),
        Goal(
            "List the builds of the feature/login branch in ci.log in login_builds.txt",
            file_holds_lines("login_builds.txt", _report_lines(_builds(_branch("feature/login")))),
        ),
        Goal(
            "Count the builds in ci.log that started on or after the tenth of June 2026 and write the "
            "count to since_june10.txt",
            file_number("since_june10.txt", len(_builds(lambda b: b[1] >= "2026-06-10"))),
        ),
        Goal(
            "Average duration of the passed builds in ci.log? Write it in seconds to passed_avg.txt",
            file_number("passed_avg.txt", _mean_s(_builds(_status("passed")))),
        ),
        Goal(
            "How many builds on the main branch failed? Check ci.log and answer in main_failures.txt",
            file_number("main_failures.txt", len(_builds(lambda b: b[4] == "main" and b[5] == "failed"))),
        ),
        Goal(
            "On which day did the slowest feature/login build start? ci.log -> slowest_login_day.txt",
            file_reads("slowest_login_day.txt", _slowest(_builds(_branch("feature/login")))[1]),
        ),
        Goal(
            "Write the passed builds since June 8, 2026 (ci.log) to recent_green.txt",
            file_holds_lines(
                "recent_green.txt",
                _report_lines(_builds(lambda b: b[1] >= "2026-06-08" and b[5] == "passed")),
            ),
        ),
        Goal(
            "Mean build time of ci.log against release.log: write ci.log's on the first line of "
            "durations.txt and release.log's on the second",
            file_numbers_by_line("durations.txt", [_mean_s(CI), _mean_s(RELEASE)]),
        ),
        Goal(
            "release_passed.txt: the number of builds in release.log that passed",
            file_number("release_passed.txt", len(_builds(_status("passed"), RELEASE))),
        ),
        Goal(
            'Write "Deploy freeze starts Friday" to freeze.txt',
            file_reads("freeze.txt", "Deploy freeze starts Friday"),
        ),
        Goal(
            "Show every build in release.log in release_report.txt",
            file_holds_lines("release_report.txt", _report_lines(RELEASE)),
        ),
    ],
)

HELD_OUT_14 = [PLAYLIST_SET, BUILDS_SET]

if __name__ == "__main__":
    print(json.dumps({s.name: len(s.goals) for s in HELD_OUT_14}))
