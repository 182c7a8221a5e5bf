"""Hand-written reference plans for ``heldout14.py``: one per goal, keyed by the goal's text, each
a list of ``heldout.Call``. Plain data, read only by ``heldout14_selfcheck.py`` (never by the runner
or a planner).
"""

from __future__ import annotations

from heldout import Call  # on the path: imported by its self-check, which puts it there

LIBRARY = ("read_playlist", {"playlist_file": "library.txt"})
ROAD_TRIP = ("read_playlist", {"playlist_file": "road_trip.txt"})
CI = ("parse_build_log", {"log_path": "ci.log"})
RELEASE = ("parse_build_log", {"log_path": "release.log"})


def _save(output_name: str, content: str) -> Call:
    return ("save_to_file", {"output_name": output_name, "content": content})


def _artifact(artifact_path: str, payload: str) -> Call:
    return ("write_artifact", {"artifact_path": artifact_path, "payload": payload})


PLAYLIST_PLANS: dict[str, list[Call]] = {
    "How many tracks are on the playlist in library.txt? Write the number to track_count.txt": [
        LIBRARY,
        ("count_tracks", {"tracks": "${s1}"}),
        _save("track_count.txt", "${s2}\n"),
    ],
    "What is the total playing time of library.txt, in seconds? Save it to runtime.txt": [
        LIBRARY,
        ("playing_time", {"tracks": "${s1}"}),
        _save("runtime.txt", "${s2}\n"),
    ],
    "jazz.txt: every jazz track in library.txt, one per line": [
        LIBRARY,
        ("in_genre", {"tracks": "${s1}", "genre": "jazz"}),
        ("track_listing", {"tracks": "${s2}"}),
        _save("jazz.txt", "${s3}"),
    ],
    "List the songs by Steel Orchard from library.txt in steel_orchard.txt": [
        LIBRARY,
        ("by_artist", {"tracks": "${s1}", "artist": "Steel Orchard"}),
        ("track_listing", {"tracks": "${s2}"}),
        _save("steel_orchard.txt", "${s3}"),
    ],
    "Count the tracks rated four stars or more in library.txt and write the count to favourites_count.txt": [
        LIBRARY,
        ("rated_at_least", {"tracks": "${s1}", "stars": 4}),
        ("count_tracks", {"tracks": "${s2}"}),
        _save("favourites_count.txt", "${s3}\n"),
    ],
    "Which is the longest track in library.txt? Put its title in longest_title.txt": [
        LIBRARY,
        ("longest_track", {"tracks": "${s1}"}),
        _save("longest_title.txt", "${s2.title}\n"),
    ],
    "Who recorded the longest track in library.txt? Save the artist's name as longest_artist.txt": [
        LIBRARY,
        ("longest_track", {"tracks": "${s1}"}),
        _save("longest_artist.txt", "${s2.artist}\n"),
    ],
    "How many seconds of electronic music are there in library.txt? Answer in electronic_seconds.txt": [
        LIBRARY,
        ("in_genre", {"tracks": "${s1}", "genre": "electronic"}),
        ("playing_time", {"tracks": "${s2}"}),
        _save("electronic_seconds.txt", "${s3}\n"),
    ],
    "Write the length in seconds of the longest folk track in library.txt to longest_folk.txt": [
        LIBRARY,
        ("in_genre", {"tracks": "${s1}", "genre": "folk"}),
        ("longest_track", {"tracks": "${s2}"}),
        _save("longest_folk.txt", "${s3.seconds}\n"),
    ],
    "Which songs by The Tidewaters in library.txt have a rating of at least 4? List them in "
    "tidewaters_best.txt": [
        LIBRARY,
        ("by_artist", {"tracks": "${s1}", "artist": "The Tidewaters"}),
        ("rated_at_least", {"tracks": "${s2}", "stars": 4}),
        ("track_listing", {"tracks": "${s3}"}),
        _save("tidewaters_best.txt", "${s4}"),
    ],
    "Playing time in seconds of library.txt and of road_trip.txt: write library.txt's on the "
    "first line of runtimes.txt and road_trip.txt's on the second": [
        LIBRARY,
        ("playing_time", {"tracks": "${s1}"}),
        ROAD_TRIP,
        ("playing_time", {"tracks": "${s3}"}),
        _save("runtimes.txt", "${s2}\n${s4}\n"),
    ],
    "road_trip_count.txt should say how many tracks road_trip.txt has": [
        ROAD_TRIP,
        ("count_tracks", {"tracks": "${s1}"}),
        _save("road_trip_count.txt", "${s2}\n"),
    ],
    "Put the rock songs from road_trip.txt in road_rock.txt": [
        ROAD_TRIP,
        ("in_genre", {"tracks": "${s1}", "genre": "rock"}),
        ("track_listing", {"tracks": "${s2}"}),
        _save("road_rock.txt", "${s3}"),
    ],
    'Make a file now_playing.txt that says "Side B, track 3"': [
        _save("now_playing.txt", "Side B, track 3\n"),
    ],
    "Write all the five-star tracks of library.txt to five_stars.txt": [
        LIBRARY,
        ("rated_at_least", {"tracks": "${s1}", "stars": 5}),
        ("track_listing", {"tracks": "${s2}"}),
        _save("five_stars.txt", "${s3}"),
    ],
    "How long do Marcus Hale Trio's tracks in library.txt play altogether, in seconds? "
    "Save it as hale_seconds.txt": [
        LIBRARY,
        ("by_artist", {"tracks": "${s1}", "artist": "Marcus Hale Trio"}),
        ("playing_time", {"tracks": "${s2}"}),
        _save("hale_seconds.txt", "${s3}\n"),
    ],
}

BUILDS_PLANS: dict[str, list[Call]] = {
    "How many builds are in ci.log? Write the count to build_count.txt": [
        CI,
        ("count_builds", {"builds": "${s1}"}),
        _artifact("build_count.txt", "${s2}\n"),
    ],
    "What's the average build duration in ci.log, in seconds? Save it to avg_duration.txt": [
        CI,
        ("mean_duration", {"builds": "${s1}"}),
        _artifact("avg_duration.txt", "${s2}\n"),
    ],
    "failed.txt: the failed builds from ci.log, one per line": [
        CI,
        ("with_status", {"builds": "${s1}", "status": "failed"}),
        ("build_report", {"builds": "${s2}"}),
        _artifact("failed.txt", "${s3}"),
    ],
    "How many builds failed in ci.log? Put the number in failures.txt": [
        CI,
        ("with_status", {"builds": "${s1}", "status": "failed"}),
        ("count_builds", {"builds": "${s2}"}),
        _artifact("failures.txt", "${s3}\n"),
    ],
    "Which build in ci.log took the longest? Write its build number to slowest.txt": [
        CI,
        ("slowest_build", {"builds": "${s1}"}),
        _artifact("slowest.txt", "${s2.number}\n"),
    ],
    "Which pipeline did the slowest build in ci.log belong to? Save the name as slowest_pipeline.txt": [
        CI,
        ("slowest_build", {"builds": "${s1}"}),
        _artifact("slowest_pipeline.txt", "${s2.pipeline}\n"),
    ],
    "List the builds of the feature/login branch in ci.log in login_builds.txt": [
        CI,
        ("on_branch", {"builds": "${s1}", "branch": "feature/login"}),
        ("build_report", {"builds": "${s2}"}),
        _artifact("login_builds.txt", "${s3}"),
    ],
    "Count the builds in ci.log that started on or after the tenth of June 2026 and write the "
    "count to since_june10.txt": [
        CI,
        ("started_since", {"builds": "${s1}", "since_day": "2026-06-10"}),
        ("count_builds", {"builds": "${s2}"}),
        _artifact("since_june10.txt", "${s3}\n"),
    ],
    "Average duration of the passed builds in ci.log? Write it in seconds to passed_avg.txt": [
        CI,
        ("with_status", {"builds": "${s1}", "status": "passed"}),
        ("mean_duration", {"builds": "${s2}"}),
        _artifact("passed_avg.txt", "${s3}\n"),
    ],
    "How many builds on the main branch failed? Check ci.log and answer in main_failures.txt": [
        CI,
        ("on_branch", {"builds": "${s1}", "branch": "main"}),
        ("with_status", {"builds": "${s2}", "status": "failed"}),
        ("count_builds", {"builds": "${s3}"}),
        _artifact("main_failures.txt", "${s4}\n"),
    ],
    "On which day did the slowest feature/login build start? ci.log -> slowest_login_day.txt": [
        CI,
        ("on_branch", {"builds": "${s1}", "branch": "feature/login"}),
        ("slowest_build", {"builds": "${s2}"}),
        _artifact("slowest_login_day.txt", "${s3.date}\n"),
    ],
    "Write the passed builds since June 8, 2026 (ci.log) to recent_green.txt": [
        CI,
        ("started_since", {"builds": "${s1}", "since_day": "2026-06-08"}),
        ("with_status", {"builds": "${s2}", "status": "passed"}),
        ("build_report", {"builds": "${s3}"}),
        _artifact("recent_green.txt", "${s4}"),
    ],
    "Mean build time of ci.log against release.log: write ci.log's on the first line of "
    "durations.txt and release.log's on the second": [
        CI,
        ("mean_duration", {"builds": "${s1}"}),
        RELEASE,
        ("mean_duration", {"builds": "${s3}"}),
        _artifact("durations.txt", "${s2}\n${s4}\n"),
    ],
    "release_passed.txt: the number of builds in release.log that passed": [
        RELEASE,
        ("with_status", {"builds": "${s1}", "status": "passed"}),
        ("count_builds", {"builds": "${s2}"}),
        _artifact("release_passed.txt", "${s3}\n"),
    ],
    'Write "Deploy freeze starts Friday" to freeze.txt': [
        _artifact("freeze.txt", "Deploy freeze starts Friday\n"),
    ],
    "Show every build in release.log in release_report.txt": [
        RELEASE,
        ("build_report", {"builds": "${s1}"}),
        _artifact("release_report.txt", "${s2}"),
    ],
}

REFERENCE_PLANS: dict[str, dict[str, list[Call]]] = {
    "playlist": PLAYLIST_PLANS,
    "builds": BUILDS_PLANS,
}
