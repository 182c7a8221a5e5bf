"""Hand-written reference plans for ``heldout12.py``: one per goal, keyed by the goal's text, each
a list of ``heldout.Call``. Plain data, read only by ``heldout12_selfcheck.py`` (never by the runner
or a planner).
"""

from __future__ import annotations

from heldout import Call  # on the path: imported by its self-check, which puts it there

MARCH = ("load_bookings", {"bookings_csv": "march_bookings.csv"})
FEBRUARY = ("load_bookings", {"bookings_csv": "february_bookings.csv"})
NORTH = ("read_manifest", {"manifest_file": "north_depot.jsonl"})
SOUTH = ("read_manifest", {"manifest_file": "south_depot.jsonl"})


def _note(note_path: str, note_text: str) -> Call:
    return ("save_note", {"note_path": note_path, "note_text": note_text})


def _report(report_name: str, report_body: str) -> Call:
    return ("file_report", {"report_name": report_name, "report_body": report_body})


GYM_PLANS: dict[str, list[Call]] = {
    "How many class bookings are there in march_bookings.csv? Save the answer to bookings_total.txt": [
        MARCH,
        ("count_bookings", {"bookings": "${s1}"}),
        _note("bookings_total.txt", "${s2}\n"),
    ],
    "How much did the gym take in class fees in March? Add up the fees in march_bookings.csv "
    "and put the total in march_fees.txt": [
        MARCH,
        ("fees_collected", {"bookings": "${s1}"}),
        _note("march_fees.txt", "${s2}\n"),
    ],
    "How many spin bookings were there in March (march_bookings.csv)? Write the number to spin_count.txt": [
        MARCH,
        ("for_class", {"bookings": "${s1}", "class_name": "spin"}),
        ("count_bookings", {"bookings": "${s2}"}),
        _note("spin_count.txt", "${s3}\n"),
    ],
    "Who didn't turn up for a class they booked? Write the roster lines of the no-shows in "
    "march_bookings.csv to no_shows.txt": [
        MARCH,
        ("by_attendance", {"bookings": "${s1}", "showed_up": False}),
        ("roster_text", {"bookings": "${s2}"}),
        _note("no_shows.txt", "${s3}"),
    ],
    "Put the total fees paid for yoga classes in march_bookings.csv into yoga_fees.txt": [
        MARCH,
        ("for_class", {"bookings": "${s1}", "class_name": "yoga"}),
        ("fees_collected", {"bookings": "${s2}"}),
        _note("yoga_fees.txt", "${s3}\n"),
    ],
    "Who booked the first class of the month? Look in march_bookings.csv and write the member's "
    "name to first_member.txt": [
        MARCH,
        ("first_booking", {"bookings": "${s1}"}),
        _note("first_member.txt", "${s2.member}\n"),
    ],
    "How many bookings in march_bookings.csv are for classes from the eighth to the twenty-first "
    "of March 2026? Answer in mid_march.txt": [
        MARCH,
        ("booked_between", {"bookings": "${s1}", "first_day": "2026-03-08", "last_day": "2026-03-21"}),
        ("count_bookings", {"bookings": "${s2}"}),
        _note("mid_march.txt", "${s3}\n"),
    ],
    "Write the class roster for the pilates bookings in march_bookings.csv to pilates_roster.txt": [
        MARCH,
        ("for_class", {"bookings": "${s1}", "class_name": "pilates"}),
        ("roster_text", {"bookings": "${s2}"}),
        _note("pilates_roster.txt", "${s3}"),
    ],
    "How many boxfit bookings in march_bookings.csv ended up as no-shows? Save the figure to "
    "boxfit_no_shows.txt": [
        MARCH,
        ("for_class", {"bookings": "${s1}", "class_name": "boxfit"}),
        ("by_attendance", {"bookings": "${s2}", "showed_up": False}),
        ("count_bookings", {"bookings": "${s3}"}),
        _note("boxfit_no_shows.txt", "${s4}\n"),
    ],
    "What did the spin classes people actually came to bring in? Sum the fees of the attended spin "
    "bookings in march_bookings.csv and write it to spin_attended_fees.txt": [
        MARCH,
        ("for_class", {"bookings": "${s1}", "class_name": "spin"}),
        ("by_attendance", {"bookings": "${s2}", "showed_up": True}),
        ("fees_collected", {"bookings": "${s3}"}),
        _note("spin_attended_fees.txt", "${s4}\n"),
    ],
    "Find the first yoga booking of the month in march_bookings.csv and write its booking ID to "
    "first_yoga.txt": [
        MARCH,
        ("for_class", {"bookings": "${s1}", "class_name": "yoga"}),
        ("first_booking", {"bookings": "${s2}"}),
        _note("first_yoga.txt", "${s3.booking_id}\n"),
    ],
    "Write the number of bookings in february_bookings.csv and in march_bookings.csv to "
    "monthly_counts.txt, one per line, February first": [
        FEBRUARY,
        ("count_bookings", {"bookings": "${s1}"}),
        MARCH,
        ("count_bookings", {"bookings": "${s3}"}),
        _note("monthly_counts.txt", "${s2}\n${s4}\n"),
    ],
    "How many February bookings were no-shows? Check february_bookings.csv and save the count to "
    "february_no_shows.txt": [
        FEBRUARY,
        ("by_attendance", {"bookings": "${s1}", "showed_up": False}),
        ("count_bookings", {"bookings": "${s2}"}),
        _note("february_no_shows.txt", "${s3}\n"),
    ],
    'Create gym_notice.txt with the text "Sauna closed for repairs on Sunday"': [
        _note("gym_notice.txt", "Sauna closed for repairs on Sunday\n"),
    ],
    "Spin fees for February and for March: total them from february_bookings.csv and "
    "march_bookings.csv and write the two totals to spin_fees_by_month.txt, one per line, "
    "February first": [
        FEBRUARY,
        ("for_class", {"bookings": "${s1}", "class_name": "spin"}),
        ("fees_collected", {"bookings": "${s2}"}),
        MARCH,
        ("for_class", {"bookings": "${s4}", "class_name": "spin"}),
        ("fees_collected", {"bookings": "${s5}"}),
        _note("spin_fees_by_month.txt", "${s3}\n${s6}\n"),
    ],
    "Write the roster lines of the bookings people attended between 23 and 31 March 2026 "
    "(march_bookings.csv) to last_week.txt": [
        MARCH,
        ("booked_between", {"bookings": "${s1}", "first_day": "2026-03-23", "last_day": "2026-03-31"}),
        ("by_attendance", {"bookings": "${s2}", "showed_up": True}),
        ("roster_text", {"bookings": "${s3}"}),
        _note("last_week.txt", "${s4}"),
    ],
}

PARCELS_PLANS: dict[str, list[Call]] = {
    "How many parcels are on the north depot's manifest (north_depot.jsonl)? Save the answer to "
    "north_count.txt": [
        NORTH,
        ("parcel_count", {"parcels": "${s1}"}),
        _report("north_count.txt", "${s2}\n"),
    ],
    "What's the average parcel weight in north_depot.jsonl? Write it, in kilograms, to avg_weight.txt": [
        NORTH,
        ("mean_weight_kg", {"parcels": "${s1}"}),
        _report("avg_weight.txt", "${s2}\n"),
    ],
    "How many Swiftpost parcels went out from the north depot? Count them in north_depot.jsonl and "
    "write the number to swiftpost.txt": [
        NORTH,
        ("by_carrier", {"parcels": "${s1}", "carrier": "Swiftpost"}),
        ("parcel_count", {"parcels": "${s2}"}),
        _report("swiftpost.txt", "${s3}\n"),
    ],
    "Print shipping labels for every Northway parcel in north_depot.jsonl into northway_labels.txt": [
        NORTH,
        ("by_carrier", {"parcels": "${s1}", "carrier": "Northway"}),
        ("shipping_labels", {"parcels": "${s2}"}),
        _report("northway_labels.txt", "${s3}"),
    ],
    "Which parcel in north_depot.jsonl is the heaviest? Put its tracking number in heaviest.txt": [
        NORTH,
        ("heaviest_parcel", {"parcels": "${s1}"}),
        _report("heaviest.txt", "${s2.tracking}\n"),
    ],
    "Where is the heaviest parcel in north_depot.jsonl going? Write the destination city to "
    "heaviest_city.txt": [
        NORTH,
        ("heaviest_parcel", {"parcels": "${s1}"}),
        _report("heaviest_city.txt", "${s2.city}\n"),
    ],
    "How many parcels left the north depot on the 2nd of April 2026? Use north_depot.jsonl and save "
    "the count to april2.txt": [
        NORTH,
        ("dispatched_on", {"parcels": "${s1}", "day": "2026-04-02"}),
        ("parcel_count", {"parcels": "${s2}"}),
        _report("april2.txt", "${s3}\n"),
    ],
    "Count the parcels in north_depot.jsonl that weigh between two and five kilos and write the "
    "count to medium_parcels.txt": [
        NORTH,
        ("weighing_between", {"parcels": "${s1}", "min_kg": 2, "max_kg": 5}),
        ("parcel_count", {"parcels": "${s2}"}),
        _report("medium_parcels.txt", "${s3}\n"),
    ],
    "What is the mean weight of the ParcelLine parcels in north_depot.jsonl? Save it to "
    "parcelline_mean.txt": [
        NORTH,
        ("by_carrier", {"parcels": "${s1}", "carrier": "ParcelLine"}),
        ("mean_weight_kg", {"parcels": "${s2}"}),
        _report("parcelline_mean.txt", "${s3}\n"),
    ],
    "Labels for the parcels dispatched on 6 April 2026 from north_depot.jsonl, please: write them "
    "to april6_labels.txt": [
        NORTH,
        ("dispatched_on", {"parcels": "${s1}", "day": "2026-04-06"}),
        ("shipping_labels", {"parcels": "${s2}"}),
        _report("april6_labels.txt", "${s3}"),
    ],
    "Which Swiftpost parcel in north_depot.jsonl is the heaviest? Write its tracking number to "
    "swiftpost_heaviest.txt": [
        NORTH,
        ("by_carrier", {"parcels": "${s1}", "carrier": "Swiftpost"}),
        ("heaviest_parcel", {"parcels": "${s2}"}),
        _report("swiftpost_heaviest.txt", "${s3.tracking}\n"),
    ],
    "How many Northway parcels of at most one kilogram are on north_depot.jsonl? Answer in "
    "light_northway.txt": [
        NORTH,
        ("by_carrier", {"parcels": "${s1}", "carrier": "Northway"}),
        ("weighing_between", {"parcels": "${s2}", "min_kg": 0, "max_kg": 1}),
        ("parcel_count", {"parcels": "${s3}"}),
        _report("light_northway.txt", "${s4}\n"),
    ],
    "Write the number of parcels on north_depot.jsonl and on south_depot.jsonl to depot_counts.txt, "
    "one per line": [
        NORTH,
        ("parcel_count", {"parcels": "${s1}"}),
        SOUTH,
        ("parcel_count", {"parcels": "${s3}"}),
        _report("depot_counts.txt", "${s2}\n${s4}\n"),
    ],
    'Make a file dock_memo.txt saying "Loading bay 2 shut until Monday"': [
        _report("dock_memo.txt", "Loading bay 2 shut until Monday\n"),
    ],
    "What does the heaviest parcel at the south depot (south_depot.jsonl) weigh? Write its weight in "
    "kg to south_heaviest_kg.txt": [
        SOUTH,
        ("heaviest_parcel", {"parcels": "${s1}"}),
        _report("south_heaviest_kg.txt", "${s2.weight_kg}\n"),
    ],
    "Average weight of the Swiftpost parcels at each depot: read north_depot.jsonl and "
    "south_depot.jsonl and write the two means to swiftpost_means.txt, one per line, north first": [
        NORTH,
        ("by_carrier", {"parcels": "${s1}", "carrier": "Swiftpost"}),
        ("mean_weight_kg", {"parcels": "${s2}"}),
        SOUTH,
        ("by_carrier", {"parcels": "${s4}", "carrier": "Swiftpost"}),
        ("mean_weight_kg", {"parcels": "${s5}"}),
        _report("swiftpost_means.txt", "${s3}\n${s6}\n"),
    ],
}

REFERENCE_PLANS: dict[str, dict[str, list[Call]]] = {
    "gym": GYM_PLANS,
    "parcels": PARCELS_PLANS,
}
