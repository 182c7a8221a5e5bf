"""Hand-written reference plans for ``heldout16.py``: one per goal, keyed by the goal's text, each
a list of ``heldout.Call``. Plain data, read only by ``heldout16_selfcheck.py`` (never by the runner
or a planner).
"""

from __future__ import annotations

from heldout import Call  # on the path: imported by its self-check, which puts it there

ACCESS = ("read_access_log", {"log_path": "access.log"})
PREVIOUS = ("read_access_log", {"log_path": "previous.log"})
APRIL = ("load_sightings", {"sheet_file": "april.txt"})
MAY = ("load_sightings", {"sheet_file": "may.txt"})


def _report(report_path: str, contents: str) -> Call:
    return ("save_report", {"report_path": report_path, "contents": contents})


def _note(note_file: str, text: str) -> Call:
    return ("write_note", {"note_file": note_file, "text": text})


WEBLOG_PLANS: dict[str, list[Call]] = {
    "How many requests are logged in access.log? Write the number to request_count.txt": [
        ACCESS,
        ("request_count", {"requests": "${s1}"}),
        _report("request_count.txt", "${s2}\n"),
    ],
    "What was the average response time in access.log in milliseconds? Save it to avg_ms.txt": [
        ACCESS,
        ("mean_duration", {"requests": "${s1}"}),
        _report("avg_ms.txt", "${s2}\n"),
    ],
    "Count the 404 responses in access.log and put the count in not_found.txt": [
        ACCESS,
        ("with_status", {"requests": "${s1}", "status": 404}),
        ("request_count", {"requests": "${s2}"}),
        _report("not_found.txt", "${s3}\n"),
    ],
    "Which path did the slowest request in access.log ask for? Write it to slowest_path.txt": [
        ACCESS,
        ("slowest", {"requests": "${s1}"}),
        _report("slowest_path.txt", "${s2.path}\n"),
    ],
    "slow.txt: every request in access.log that took longer than a second, one per line": [
        ACCESS,
        ("slower_than", {"requests": "${s1}", "ms": 1000}),
        ("format_requests", {"requests": "${s2}"}),
        _report("slow.txt", "${s3}"),
    ],
    "How many requests in access.log failed with a server error (any 5xx status)? Answer in "
    "server_errors.txt": [
        ACCESS,
        ("server_errors", {"requests": "${s1}"}),
        ("request_count", {"requests": "${s2}"}),
        _report("server_errors.txt", "${s3}\n"),
    ],
    "How many bytes did the server send in total according to access.log? Save the figure as "
    "bytes_total.txt": [
        ACCESS,
        ("bytes_served", {"requests": "${s1}"}),
        _report("bytes_total.txt", "${s2} bytes\n"),
    ],
    "What is the mean response time of the /api/checkout requests in access.log? Write it to "
    "checkout_ms.txt": [
        ACCESS,
        ("path_prefix", {"requests": "${s1}", "prefix": "/api/checkout"}),
        ("mean_duration", {"requests": "${s2}"}),
        _report("checkout_ms.txt", "${s3} ms\n"),
    ],
    "How many API requests (paths starting with /api/) came in between 9 and 10 in the "
    "morning? Use access.log and write the count to api_morning.txt": [
        ACCESS,
        ("path_prefix", {"requests": "${s1}", "prefix": "/api/"}),
        ("logged_between", {"requests": "${s2}", "from_time": "09:00", "to_time": "10:00"}),
        ("request_count", {"requests": "${s3}"}),
        _report("api_morning.txt", "${s4}\n"),
    ],
    "At what time was the slowest request in access.log logged? Put it in slowest_time.txt": [
        ACCESS,
        ("slowest", {"requests": "${s1}"}),
        _report("slowest_time.txt", "${s2.time}\n"),
    ],
    "Write the requests access.log recorded from half past ten to eleven to half_hour.txt": [
        ACCESS,
        ("logged_between", {"requests": "${s1}", "from_time": "10:30", "to_time": "11:00"}),
        ("format_requests", {"requests": "${s2}"}),
        _report("half_hour.txt", "${s3}"),
    ],
    "Request counts of access.log and previous.log: today's on the first line of counts.txt, "
    "the day before's on the second": [
        ACCESS,
        ("request_count", {"requests": "${s1}"}),
        PREVIOUS,
        ("request_count", {"requests": "${s3}"}),
        _report("counts.txt", "${s2}\n${s4}\n"),
    ],
    "In previous.log, how many requests took more than a quarter of a second? Save the number "
    "to previous_slow.txt": [
        PREVIOUS,
        ("slower_than", {"requests": "${s1}", "ms": 250}),
        ("request_count", {"requests": "${s2}"}),
        _report("previous_slow.txt", "${s3}\n"),
    ],
    'Save a report called incident.txt that says "Checkout outage 09:15-10:10 UTC, payment '
    'provider timeout"': [
        _report("incident.txt", "Checkout outage 09:15-10:10 UTC, payment provider timeout\n"),
    ],
    "How many bytes went out for images (paths under /images/) in access.log? Write the total "
    "to image_bytes.txt": [
        ACCESS,
        ("path_prefix", {"requests": "${s1}", "prefix": "/images/"}),
        ("bytes_served", {"requests": "${s2}"}),
        _report("image_bytes.txt", "${s3}\n"),
    ],
    "What status code did the slowest request in previous.log get? previous_slowest_status.txt "
    "should hold it": [
        PREVIOUS,
        ("slowest", {"requests": "${s1}"}),
        _report("previous_slowest_status.txt", "${s2.status}\n"),
    ],
}

BIRDCOUNT_PLANS: dict[str, list[Call]] = {
    "How many sightings are on the april.txt tally sheet? Write the number to april_sightings.txt": [
        APRIL,
        ("number_of_sightings", {"sightings": "${s1}"}),
        _note("april_sightings.txt", "${s2}\n"),
    ],
    "How many birds were counted altogether in april.txt? Save the total as april_birds.txt": [
        APRIL,
        ("birds_counted", {"sightings": "${s1}"}),
        _note("april_birds.txt", "${s2}\n"),
    ],
    "How many Lapwing were counted in april.txt in total? Put the number in lapwing_total.txt": [
        APRIL,
        ("of_species", {"sightings": "${s1}", "species": "Lapwing"}),
        ("birds_counted", {"sightings": "${s2}"}),
        _note("lapwing_total.txt", "${s3}\n"),
    ],
    "reed_warblers.txt: every Reed Warbler sighting in april.txt, one line each": [
        APRIL,
        ("of_species", {"sightings": "${s1}", "species": "Reed Warbler"}),
        ("sighting_lines", {"sightings": "${s2}"}),
        _note("reed_warblers.txt", "${s3}"),
    ],
    "Which species was seen in the largest flock in april.txt? Write its name to biggest_flock.txt": [
        APRIL,
        ("largest_flock", {"sightings": "${s1}"}),
        _note("biggest_flock.txt", "${s2.species}\n"),
    ],
    "How many different species were recorded in april.txt? Answer in species_count.txt": [
        APRIL,
        ("species_tally", {"sightings": "${s1}"}),
        _note("species_count.txt", "${s2}\n"),
    ],
    "List the species seen at the Wet Meadow in april.txt and save the list as wet_meadow_species.txt": [
        APRIL,
        ("at_site", {"sightings": "${s1}", "site": "Wet Meadow"}),
        ("species_list", {"sightings": "${s2}"}),
        _note("wet_meadow_species.txt", "${s3}"),
    ],
    "How many sightings did observer MB log in april.txt? Write the count to mb_sightings.txt": [
        APRIL,
        ("logged_by", {"sightings": "${s1}", "initials": "MB"}),
        ("number_of_sightings", {"sightings": "${s2}"}),
        _note("mb_sightings.txt", "${s3}\n"),
    ],
    "Count the birds seen at North Pool between the 10th and the 20th of April 2026 (april.txt) "
    "and write the total to north_pool_mid.txt": [
        APRIL,
        ("at_site", {"sightings": "${s1}", "site": "North Pool"}),
        ("seen_between", {"sightings": "${s2}", "first_date": "2026-04-10", "last_date": "2026-04-20"}),
        ("birds_counted", {"sightings": "${s3}"}),
        _note("north_pool_mid.txt", "${s4}\n"),
    ],
    "On what date was the biggest Teal count in april.txt? Save it in teal_peak_day.txt": [
        APRIL,
        ("of_species", {"sightings": "${s1}", "species": "Teal"}),
        ("largest_flock", {"sightings": "${s2}"}),
        _note("teal_peak_day.txt", "${s3.date}\n"),
    ],
    "Write the sightings from april.txt made on the twenty-fifth of April 2026 to april_25.txt": [
        APRIL,
        ("seen_between", {"sightings": "${s1}", "first_date": "2026-04-25", "last_date": "2026-04-25"}),
        ("sighting_lines", {"sightings": "${s2}"}),
        _note("april_25.txt", "${s3}"),
    ],
    "Birds counted in april.txt and in may.txt: April's total on the first line of "
    "monthly_totals.txt, May's on the second": [
        APRIL,
        ("birds_counted", {"sightings": "${s1}"}),
        MAY,
        ("birds_counted", {"sightings": "${s3}"}),
        _note("monthly_totals.txt", "${s2}\n${s4}\n"),
    ],
    "may_species.txt should hold the number of different species in may.txt": [
        MAY,
        ("species_tally", {"sightings": "${s1}"}),
        _note("may_species.txt", "${s2}\n"),
    ],
    'Create a note scrape_level.txt reading "Scrape water level low on 25 April"': [
        _note("scrape_level.txt", "Scrape water level low on 25 April\n"),
    ],
    "What was the largest single count of any bird at the Scrape in april.txt? Write the number "
    "to scrape_max.txt": [
        APRIL,
        ("at_site", {"sightings": "${s1}", "site": "Scrape"}),
        ("largest_flock", {"sightings": "${s2}"}),
        _note("scrape_max.txt", "${s3.birds}\n"),
    ],
    "Who logged the biggest flock in may.txt? Write the observer's initials to may_top_observer.txt": [
        MAY,
        ("largest_flock", {"sightings": "${s1}"}),
        _note("may_top_observer.txt", "${s2.observer}\n"),
    ],
}

REFERENCE_PLANS: dict[str, dict[str, list[Call]]] = {
    "weblog": WEBLOG_PLANS,
    "birdcount": BIRDCOUNT_PLANS,
}
