"""Hand-written reference plans for ``heldout13.py``: one per goal, keyed by the goal's text, each
a list of ``heldout.Call``. Plain data, read only by ``heldout13_selfcheck.py`` (never by the runner
or a planner).
"""

from __future__ import annotations

from heldout import Call  # on the path: imported by its self-check, which puts it there

MAIN = ("load_reservations", {"bookings_csv": "reservations.csv"})
ANNEX = ("load_reservations", {"bookings_csv": "annex.csv"})
APRIL = ("read_fuel_log", {"log_file": "fuel_log.jsonl"})
MARCH = ("read_fuel_log", {"log_file": "march_log.jsonl"})


def _note(note_path: str, note_text: str) -> Call:
    return ("save_note", {"note_path": note_path, "note_text": note_text})


def _summary(summary_file: str, summary: str) -> Call:
    return ("write_summary", {"summary_file": summary_file, "summary": summary})


HOTEL_PLANS: dict[str, list[Call]] = {
    "How many reservations are there in reservations.csv? Save the answer to bookings_count.txt": [
        MAIN,
        ("count_reservations", {"reservations": "${s1}"}),
        _note("bookings_count.txt", "${s2}\n"),
    ],
    "Add up all the nights booked in reservations.csv and write the total to nights_total.txt": [
        MAIN,
        ("total_nights", {"reservations": "${s1}"}),
        _note("nights_total.txt", "${s2}\n"),
    ],
    "suites.txt: the guest list lines for every suite booking in reservations.csv": [
        MAIN,
        ("by_room_type", {"reservations": "${s1}", "room_type": "suite"}),
        ("guest_list", {"reservations": "${s2}"}),
        _note("suites.txt", "${s3}"),
    ],
    "Which bookings in reservations.csv are not yet paid? Put them in unpaid.txt, one per line": [
        MAIN,
        ("with_payment", {"reservations": "${s1}", "paid": False}),
        ("guest_list", {"reservations": "${s2}"}),
        _note("unpaid.txt", "${s3}"),
    ],
    "How many single rooms have been booked? Count them in reservations.csv and write the number "
    "to singles.txt": [
        MAIN,
        ("by_room_type", {"reservations": "${s1}", "room_type": "single"}),
        ("count_reservations", {"reservations": "${s2}"}),
        _note("singles.txt", "${s3}\n"),
    ],
    "Who is staying the longest? Look in reservations.csv and write the guest's name to longest_guest.txt": [
        MAIN,
        ("longest_stay", {"reservations": "${s1}"}),
        _note("longest_guest.txt", "${s2.guest}\n"),
    ],
    "Give me the booking reference of the longest suite stay in reservations.csv, saved in "
    "long_suite_ref.txt": [
        MAIN,
        ("by_room_type", {"reservations": "${s1}", "room_type": "suite"}),
        ("longest_stay", {"reservations": "${s2}"}),
        _note("long_suite_ref.txt", "${s3.booking_ref}\n"),
    ],
    "Count the guests arriving between the 1st and the 10th of May 2026 (reservations.csv) and "
    "save the count to early_may.txt": [
        MAIN,
        ("arriving_between", {"reservations": "${s1}", "first_day": "2026-05-01", "last_day": "2026-05-10"}),
        ("count_reservations", {"reservations": "${s2}"}),
        _note("early_may.txt", "${s3}\n"),
    ],
    "How many nights are booked in double rooms? reservations.csv -> double_nights.txt": [
        MAIN,
        ("by_room_type", {"reservations": "${s1}", "room_type": "double"}),
        ("total_nights", {"reservations": "${s2}"}),
        _note("double_nights.txt", "${s3}\n"),
    ],
    "Of the reservations in reservations.csv that haven't been paid, how many nights do they add "
    "up to? Write it in unpaid_nights.txt": [
        MAIN,
        ("with_payment", {"reservations": "${s1}", "paid": False}),
        ("total_nights", {"reservations": "${s2}"}),
        _note("unpaid_nights.txt", "${s3}\n"),
    ],
    "Among the unpaid bookings in reservations.csv, find the longest stay and write its check-in "
    "date to chase_first.txt": [
        MAIN,
        ("with_payment", {"reservations": "${s1}", "paid": False}),
        ("longest_stay", {"reservations": "${s2}"}),
        _note("chase_first.txt", "${s3.check_in}\n"),
    ],
    "List the reservations arriving between May 15 and May 25, 2026 that are still unpaid "
    "(reservations.csv) in mid_may_unpaid.txt": [
        MAIN,
        ("arriving_between", {"reservations": "${s1}", "first_day": "2026-05-15", "last_day": "2026-05-25"}),
        ("with_payment", {"reservations": "${s2}", "paid": False}),
        ("guest_list", {"reservations": "${s3}"}),
        _note("mid_may_unpaid.txt", "${s4}"),
    ],
    "Compare nights booked in the main building (reservations.csv) and the annex (annex.csv): "
    "write the main building's total on the first line of nights_compare.txt and the annex's on "
    "the second": [
        MAIN,
        ("total_nights", {"reservations": "${s1}"}),
        ANNEX,
        ("total_nights", {"reservations": "${s3}"}),
        _note("nights_compare.txt", "${s2}\n${s4}\n"),
    ],
    "annex_unpaid.txt: the number of bookings in annex.csv that have not been paid": [
        ANNEX,
        ("with_payment", {"reservations": "${s1}", "paid": False}),
        ("count_reservations", {"reservations": "${s2}"}),
        _note("annex_unpaid.txt", "${s3}\n"),
    ],
    'Create a file called breakfast.txt saying "Breakfast is served from 7 to 10"': [
        _note("breakfast.txt", "Breakfast is served from 7 to 10\n"),
    ],
    "Show the double-room bookings of the annex (annex.csv) in annex_doubles.txt": [
        ANNEX,
        ("by_room_type", {"reservations": "${s1}", "room_type": "double"}),
        ("guest_list", {"reservations": "${s2}"}),
        _note("annex_doubles.txt", "${s3}"),
    ],
}

FUEL_PLANS: dict[str, list[Call]] = {
    "How many fill-ups are recorded in fuel_log.jsonl? Save the answer to fillups.txt": [
        APRIL,
        ("count_fill_ups", {"fill_ups": "${s1}"}),
        _summary("fillups.txt", "${s2}\n"),
    ],
    "What's the average fill-up in litres in fuel_log.jsonl? Write it to avg_litres.txt": [
        APRIL,
        ("average_litres", {"fill_ups": "${s1}"}),
        _summary("avg_litres.txt", "${s2}\n"),
    ],
    "List every fill-up of VAN-02 from fuel_log.jsonl in van02.txt": [
        APRIL,
        ("for_vehicle", {"fill_ups": "${s1}", "vehicle_id": "VAN-02"}),
        ("fill_up_lines", {"fill_ups": "${s2}"}),
        _summary("van02.txt", "${s3}"),
    ],
    "How many times did TRK-07 refuel? Use fuel_log.jsonl and put the number in trk07_count.txt": [
        APRIL,
        ("for_vehicle", {"fill_ups": "${s1}", "vehicle_id": "TRK-07"}),
        ("count_fill_ups", {"fill_ups": "${s2}"}),
        _summary("trk07_count.txt", "${s3}\n"),
    ],
    "Which vehicle had the biggest fill-up in fuel_log.jsonl? Write its ID to biggest_vehicle.txt": [
        APRIL,
        ("largest_fill_up", {"fill_ups": "${s1}"}),
        _summary("biggest_vehicle.txt", "${s2.vehicle}\n"),
    ],
    "biggest_station.txt: the name of the station where the largest fill-up in fuel_log.jsonl was made": [
        APRIL,
        ("largest_fill_up", {"fill_ups": "${s1}"}),
        _summary("biggest_station.txt", "${s2.station}\n"),
    ],
    "Count the fill-ups of between thirty and fifty litres in fuel_log.jsonl and put the count "
    "in mid_size.txt": [
        APRIL,
        ("litres_between", {"fill_ups": "${s1}", "at_least": 30, "at_most": 50}),
        ("count_fill_ups", {"fill_ups": "${s2}"}),
        _summary("mid_size.txt", "${s3}\n"),
    ],
    "How many fill-ups were logged on or before 10 April 2026? Check fuel_log.jsonl and answer in "
    "early_april.txt": [
        APRIL,
        ("filled_until", {"fill_ups": "${s1}", "until_date": "2026-04-10"}),
        ("count_fill_ups", {"fill_ups": "${s2}"}),
        _summary("early_april.txt", "${s3}\n"),
    ],
    "Average litres per fill-up for CAR-04 (fuel_log.jsonl)? Save it as car04_avg.txt": [
        APRIL,
        ("for_vehicle", {"fill_ups": "${s1}", "vehicle_id": "CAR-04"}),
        ("average_litres", {"fill_ups": "${s2}"}),
        _summary("car04_avg.txt", "${s3}\n"),
    ],
    "What was VAN-01's largest single fill-up, in litres? Look in fuel_log.jsonl and write the "
    "litres to van01_max.txt": [
        APRIL,
        ("for_vehicle", {"fill_ups": "${s1}", "vehicle_id": "VAN-01"}),
        ("largest_fill_up", {"fill_ups": "${s2}"}),
        _summary("van01_max.txt", "${s3.litres}\n"),
    ],
    "Write VAN-01's fill-ups up to and including April 15th, 2026 from fuel_log.jsonl to "
    "van01_first_half.txt": [
        APRIL,
        ("for_vehicle", {"fill_ups": "${s1}", "vehicle_id": "VAN-01"}),
        ("filled_until", {"fill_ups": "${s2}", "until_date": "2026-04-15"}),
        ("fill_up_lines", {"fill_ups": "${s3}"}),
        _summary("van01_first_half.txt", "${s4}"),
    ],
    "What was the mean fill-up, in litres, over the fill-ups logged through the 20th of April 2026? "
    "fuel_log.jsonl -> avg_to_20th.txt": [
        APRIL,
        ("filled_until", {"fill_ups": "${s1}", "until_date": "2026-04-20"}),
        ("average_litres", {"fill_ups": "${s2}"}),
        _summary("avg_to_20th.txt", "${s3}\n"),
    ],
    "Average fill-up in March (march_log.jsonl) against April (fuel_log.jsonl): write both averages "
    "to compare_avg.txt, March first, one per line": [
        MARCH,
        ("average_litres", {"fill_ups": "${s1}"}),
        APRIL,
        ("average_litres", {"fill_ups": "${s3}"}),
        _summary("compare_avg.txt", "${s2}\n${s4}\n"),
    ],
    "Write all the fill-ups in march_log.jsonl to march_report.txt": [
        MARCH,
        ("fill_up_lines", {"fill_ups": "${s1}"}),
        _summary("march_report.txt", "${s2}"),
    ],
    'create a file named reminder.txt that says "Service TRK-07 before May"': [
        _summary("reminder.txt", "Service TRK-07 before May\n"),
    ],
    "How many of VAN-02's fill-ups were under forty litres? fuel_log.jsonl, answer in van02_small.txt": [
        APRIL,
        ("for_vehicle", {"fill_ups": "${s1}", "vehicle_id": "VAN-02"}),
        ("litres_between", {"fill_ups": "${s2}", "at_least": 0, "at_most": 39.9}),
        ("count_fill_ups", {"fill_ups": "${s3}"}),
        _summary("van02_small.txt", "${s4}\n"),
    ],
}

REFERENCE_PLANS: dict[str, dict[str, list[Call]]] = {
    "hotel": HOTEL_PLANS,
    "fuel": FUEL_PLANS,
}
