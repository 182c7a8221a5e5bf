"""Hand-written reference plans for ``heldout11.py``: one per goal, keyed by the goal's text, each
a list of ``heldout.Call``. Plain data, read only by ``heldout11_selfcheck.py`` (never by the runner
or a planner).
"""

from __future__ import annotations

from heldout import Call  # on the path: imported by its self-check, which puts it there

SAMPLES = ("open_register", {"register_path": "samples.tsv"})
ARCHIVE = ("open_register", {"register_path": "archive.tsv"})
CENTRAL = ("fetch_departures", {"board_file": "central.json"})
PARKWAY = ("fetch_departures", {"board_file": "parkway.json"})


def _export(destination: str, content: str) -> Call:
    return ("export_text", {"destination": destination, "content": content})


def _answer(answer_file: str, answer: str) -> Call:
    return ("record_answer", {"answer_file": answer_file, "answer": answer})


SAMPLES_PLANS: dict[str, list[Call]] = {
    "How many samples are logged in samples.tsv? Put the number in sample_count.txt": [
        SAMPLES,
        ("sample_count", {"samples": "${s1}"}),
        _export("sample_count.txt", "${s2}\n"),
    ],
    "What's the total volume, in mL, of everything in samples.tsv? Write it to total_volume.txt": [
        SAMPLES,
        ("total_volume_ml", {"samples": "${s1}"}),
        _export("total_volume.txt", "${s2}\n"),
    ],
    "List the IDs of the CARD-2 samples in samples.tsv and save them to card2_ids.txt": [
        SAMPLES,
        ("for_project", {"samples": "${s1}", "project_code": "CARD-2"}),
        ("list_sample_ids", {"samples": "${s2}"}),
        _export("card2_ids.txt", "${s3}"),
    ],
    "How many samples in samples.tsv are still waiting to be processed (status received)? "
    "Save the count to backlog.txt": [
        SAMPLES,
        ("with_status", {"samples": "${s1}", "status": "received"}),
        ("sample_count", {"samples": "${s2}"}),
        _export("backlog.txt", "${s3}\n"),
    ],
    "Write the IDs of all discarded samples from samples.tsv to discarded.txt": [
        SAMPLES,
        ("with_status", {"samples": "${s1}", "status": "discarded"}),
        ("list_sample_ids", {"samples": "${s2}"}),
        _export("discarded.txt", "${s3}"),
    ],
    "Which sample in samples.tsv has the largest volume? Write its ID to biggest.txt": [
        SAMPLES,
        ("largest_sample", {"samples": "${s1}"}),
        _export("biggest.txt", "${s2.sample_id}\n"),
    ],
    "Where is the biggest sample in samples.tsv kept? Put the name of its freezer in biggest_freezer.txt": [
        SAMPLES,
        ("largest_sample", {"samples": "${s1}"}),
        _export("biggest_freezer.txt", "${s2.freezer}\n"),
    ],
    "Count the samples collected since 1 March 2026 (samples.tsv) and write the figure to "
    "march_onwards.txt": [
        SAMPLES,
        ("collected_since", {"samples": "${s1}", "since": "2026-03-01"}),
        ("sample_count", {"samples": "${s2}"}),
        _export("march_onwards.txt", "${s3}\n"),
    ],
    "For project ONC-7, how much sample volume is there in total? Read samples.tsv and answer "
    "in onc7_volume.txt": [
        SAMPLES,
        ("for_project", {"samples": "${s1}", "project_code": "ONC-7"}),
        ("total_volume_ml", {"samples": "${s2}"}),
        _export("onc7_volume.txt", "${s3}\n"),
    ],
    "How many NEURO-1 samples have been discarded? samples.tsv -> neuro_discarded.txt": [
        SAMPLES,
        ("for_project", {"samples": "${s1}", "project_code": "NEURO-1"}),
        ("with_status", {"samples": "${s2}", "status": "discarded"}),
        ("sample_count", {"samples": "${s3}"}),
        _export("neuro_discarded.txt", "${s4}\n"),
    ],
    "archive_ids.txt should list every sample ID in archive.tsv": [
        ARCHIVE,
        ("list_sample_ids", {"samples": "${s1}"}),
        _export("archive_ids.txt", "${s2}"),
    ],
    "Write the number of samples in samples.tsv and in archive.tsv to both_counts.txt, one per line": [
        SAMPLES,
        ("sample_count", {"samples": "${s1}"}),
        ARCHIVE,
        ("sample_count", {"samples": "${s3}"}),
        _export("both_counts.txt", "${s2}\n${s4}\n"),
    ],
    'Make a file called freezer_note.txt that says "Defrost F2 on Friday"': [
        _export("freezer_note.txt", "Defrost F2 on Friday\n"),
    ],
    "Which CARD-2 samples have been received but not processed yet? Take them from samples.tsv "
    "and write their IDs to card2_pending.txt": [
        SAMPLES,
        ("for_project", {"samples": "${s1}", "project_code": "CARD-2"}),
        ("with_status", {"samples": "${s2}", "status": "received"}),
        ("list_sample_ids", {"samples": "${s3}"}),
        _export("card2_pending.txt", "${s4}"),
    ],
    "How many mL of processed samples does archive.tsv hold? Save the amount to archive_processed.txt": [
        ARCHIVE,
        ("with_status", {"samples": "${s1}", "status": "processed"}),
        ("total_volume_ml", {"samples": "${s2}"}),
        _export("archive_processed.txt", "${s3}\n"),
    ],
    "When was the largest ONC-7 sample collected? Look it up in samples.tsv and write the date to "
    "onc7_largest_date.txt": [
        SAMPLES,
        ("for_project", {"samples": "${s1}", "project_code": "ONC-7"}),
        ("largest_sample", {"samples": "${s2}"}),
        _export("onc7_largest_date.txt", "${s3.collected}\n"),
    ],
}

TRAINS_PLANS: dict[str, list[Call]] = {
    "How many departures are on the board in central.json? Write the number to departures.txt": [
        CENTRAL,
        ("count_departures", {"departures": "${s1}"}),
        _answer("departures.txt", "${s2}\n"),
    ],
    "Which trains go to York from Central? Save their timetable lines from central.json to york.txt": [
        CENTRAL,
        ("trains_to", {"departures": "${s1}", "destination": "York"}),
        ("timetable_text", {"departures": "${s2}"}),
        _answer("york.txt", "${s3}"),
    ],
    "What's the average delay, in minutes, on the central.json board? Put it in avg_delay.txt": [
        CENTRAL,
        ("mean_delay", {"departures": "${s1}"}),
        _answer("avg_delay.txt", "${s2}\n"),
    ],
    "Count the trains in central.json that leave between 7 and 9 am and write the count to "
    "morning_count.txt": [
        CENTRAL,
        ("leaving_between", {"departures": "${s1}", "earliest": "07:00", "latest": "09:00"}),
        ("count_departures", {"departures": "${s2}"}),
        _answer("morning_count.txt", "${s3}\n"),
    ],
    "Which is the first train of the day at Central (central.json)? Write its service number to "
    "first_train.txt": [
        CENTRAL,
        ("first_departure", {"departures": "${s1}"}),
        _answer("first_train.txt", "${s2.service}\n"),
    ],
    "first_platform.txt: the platform that the earliest departure in central.json leaves from": [
        CENTRAL,
        ("first_departure", {"departures": "${s1}"}),
        _answer("first_platform.txt", "${s2.platform}\n"),
    ],
    "How many Central departures are running at least 10 minutes late? Use central.json and answer "
    "in late10.txt": [
        CENTRAL,
        ("delayed_by", {"departures": "${s1}", "min_minutes": 10}),
        ("count_departures", {"departures": "${s2}"}),
        _answer("late10.txt", "${s3}\n"),
    ],
    "I need the departures to Bristol from central.json written out to bristol.txt": [
        CENTRAL,
        ("trains_to", {"departures": "${s1}", "destination": "Bristol"}),
        ("timetable_text", {"departures": "${s2}"}),
        _answer("bristol.txt", "${s3}"),
    ],
    "What time does the first Leeds train leave Central? Check central.json and put the time in "
    "first_leeds.txt": [
        CENTRAL,
        ("trains_to", {"departures": "${s1}", "destination": "Leeds"}),
        ("first_departure", {"departures": "${s2}"}),
        _answer("first_leeds.txt", "${s3.departs}\n"),
    ],
    "Average delay of the York trains on the central.json board? Save it as york_delay.txt": [
        CENTRAL,
        ("trains_to", {"departures": "${s1}", "destination": "York"}),
        ("mean_delay", {"departures": "${s2}"}),
        _answer("york_delay.txt", "${s3}\n"),
    ],
    "How many trains leave Parkway (parkway.json) for Leeds? Write the count to parkway_leeds.txt": [
        PARKWAY,
        ("trains_to", {"departures": "${s1}", "destination": "Leeds"}),
        ("count_departures", {"departures": "${s2}"}),
        _answer("parkway_leeds.txt", "${s3}\n"),
    ],
    "Write the number of departures on central.json and on parkway.json to boards.txt, one number per line": [
        CENTRAL,
        ("count_departures", {"departures": "${s1}"}),
        PARKWAY,
        ("count_departures", {"departures": "${s3}"}),
        _answer("boards.txt", "${s2}\n${s4}\n"),
    ],
    'Please create platform_notice.txt containing the text "Platform 3 closed after 22:00"': [
        _answer("platform_notice.txt", "Platform 3 closed after 22:00\n"),
    ],
    "Which trains leaving central.json between 12:00 and 18:00 are at least 5 minutes late? "
    "Put their timetable lines in afternoon_late.txt": [
        CENTRAL,
        ("leaving_between", {"departures": "${s1}", "earliest": "12:00", "latest": "18:00"}),
        ("delayed_by", {"departures": "${s2}", "min_minutes": 5}),
        ("timetable_text", {"departures": "${s3}"}),
        _answer("afternoon_late.txt", "${s4}"),
    ],
    "parkway.json: how many minutes late is the first train to York? Write the minutes to "
    "parkway_york_delay.txt": [
        PARKWAY,
        ("trains_to", {"departures": "${s1}", "destination": "York"}),
        ("first_departure", {"departures": "${s2}"}),
        _answer("parkway_york_delay.txt", "${s3.delay_min}\n"),
    ],
    "Show every departure on the Parkway board (parkway.json) in parkway_board.txt": [
        PARKWAY,
        ("timetable_text", {"departures": "${s1}"}),
        _answer("parkway_board.txt", "${s2}"),
    ],
}

REFERENCE_PLANS: dict[str, dict[str, list[Call]]] = {
    "samples": SAMPLES_PLANS,
    "trains": TRAINS_PLANS,
}
