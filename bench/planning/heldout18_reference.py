"""Hand-written reference plans for ``heldout18.py``: one per goal, keyed by the goal's text, each
a list of ``heldout.Call``. Plain data, read only by ``heldout18_selfcheck.py`` (never by the runner
or a planner).
"""

from __future__ import annotations

from heldout import Call  # on the path: imported by its self-check, which puts it there

BOOK = ("read_appointment_book", {"book_file": "appointments.txt"})
NEXT_BOOK = ("read_appointment_book", {"book_file": "next_week.txt"})
THURSDAY = ("read_production_sheet", {"sheet_name": "thursday.csv"})
FRIDAY = ("read_production_sheet", {"sheet_name": "friday.csv"})


def _memo(memo_file: str, memo_text: str) -> Call:
    return ("save_memo", {"memo_file": memo_file, "memo_text": memo_text})


def _notice(notice_file: str, notice_text: str) -> Call:
    return ("post_notice", {"notice_file": notice_file, "notice_text": notice_text})


DENTAL_PLANS: dict[str, list[Call]] = {
    "Count the appointments in appointments.txt and write the count to appointment_count.txt": [
        BOOK,
        ("count_appointments", {"appointments": "${s1}"}),
        _memo("appointment_count.txt", "${s2}\n"),
    ],
    "How many patients didn't turn up for their appointment in appointments.txt? Save the number "
    "as no_shows.txt": [
        BOOK,
        ("with_outcome", {"appointments": "${s1}", "outcome": "no-show"}),
        ("count_appointments", {"appointments": "${s2}"}),
        _memo("no_shows.txt", "${s3}\n"),
    ],
    "What did Dr Mensah's attended appointments in appointments.txt bring in? Write the total of "
    "their fees to mensah_fees.txt": [
        BOOK,
        ("for_dentist", {"appointments": "${s1}", "dentist": "Dr Mensah"}),
        ("with_outcome", {"appointments": "${s2}", "outcome": "attended"}),
        ("total_fees", {"appointments": "${s3}"}),
        _memo("mensah_fees.txt", "£${s4}\n"),
    ],
    "Which patient had the most expensive appointment in appointments.txt? Put their name in "
    "top_patient.txt": [
        BOOK,
        ("most_expensive", {"appointments": "${s1}"}),
        _memo("top_patient.txt", "${s2.patient}\n"),
    ],
    "fillings.txt: every filling in appointments.txt, one appointment per line": [
        BOOK,
        ("of_treatment", {"appointments": "${s1}", "treatment": "filling"}),
        ("appointment_lines", {"appointments": "${s2}"}),
        _memo("fillings.txt", "${s3}"),
    ],
    "How many minutes of appointments were booked with Dr Okafor on the third of March 2026 "
    "(appointments.txt)? Write the minutes to okafor_march_3.txt": [
        BOOK,
        ("for_dentist", {"appointments": "${s1}", "dentist": "Okafor"}),
        ("on_days", {"appointments": "${s2}", "from_day": "2026-03-03", "to_day": "2026-03-03"}),
        ("chair_minutes", {"appointments": "${s3}"}),
        _memo("okafor_march_3.txt", "${s4} min\n"),
    ],
    "How many different patients does appointments.txt list? Answer in patient_count.txt": [
        BOOK,
        ("patient_count", {"appointments": "${s1}"}),
        _memo("patient_count.txt", "${s2}\n"),
    ],
    "Write the cancelled appointments from appointments.txt to cancelled.txt": [
        BOOK,
        ("with_outcome", {"appointments": "${s1}", "outcome": "cancelled"}),
        ("appointment_lines", {"appointments": "${s2}"}),
        _memo("cancelled.txt", "${s3}"),
    ],
    "Find the appointments in appointments.txt that start before noon on Wednesday 4 March 2026, "
    "count them, then save the count to wednesday_morning.txt": [
        BOOK,
        ("on_days", {"appointments": "${s1}", "from_day": "2026-03-04", "to_day": "2026-03-04"}),
        ("starting_before", {"appointments": "${s2}", "before": "12:00"}),
        ("count_appointments", {"appointments": "${s3}"}),
        _memo("wednesday_morning.txt", "${s4}\n"),
    ],
    "Appointment counts of appointments.txt and next_week.txt: this week's on the first line of "
    "weekly_counts.txt, next week's on the second": [
        BOOK,
        ("count_appointments", {"appointments": "${s1}"}),
        NEXT_BOOK,
        ("count_appointments", {"appointments": "${s3}"}),
        _memo("weekly_counts.txt", "${s2}\n${s4}\n"),
    ],
    'Make a memo closure.txt saying "Surgery closed Friday 13 March 2026 for staff training"': [
        _memo("closure.txt", "Surgery closed Friday 13 March 2026 for staff training\n"),
    ],
    "What treatment was the most expensive appointment in next_week.txt for? Save it to next_week_top.txt": [
        NEXT_BOOK,
        ("most_expensive", {"appointments": "${s1}"}),
        _memo("next_week_top.txt", "${s2.treatment}\n"),
    ],
    "Total the fees of all the check-ups in appointments.txt and write the sum to checkup_fees.txt": [
        BOOK,
        ("of_treatment", {"appointments": "${s1}", "treatment": "check-up"}),
        ("total_fees", {"appointments": "${s2}"}),
        _memo("checkup_fees.txt", "${s3}\n"),
    ],
    "At what time does Dr Okafor's most expensive appointment in appointments.txt start? Put the "
    "time in okafor_top_time.txt": [
        BOOK,
        ("for_dentist", {"appointments": "${s1}", "dentist": "Dr Okafor"}),
        ("most_expensive", {"appointments": "${s2}"}),
        _memo("okafor_top_time.txt", "${s3.time}\n"),
    ],
    "How many appointments in appointments.txt were booked for longer than forty-five minutes? "
    "Write it to long_appointments.txt": [
        BOOK,
        ("longer_than", {"appointments": "${s1}", "minutes": 45}),
        ("count_appointments", {"appointments": "${s2}"}),
        _memo("long_appointments.txt", "${s3}\n"),
    ],
    "How many no-shows did next_week.txt have between Monday the ninth and Wednesday the "
    "eleventh of March 2026? Save the number to early_no_shows.txt": [
        NEXT_BOOK,
        ("on_days", {"appointments": "${s1}", "from_day": "2026-03-09", "to_day": "2026-03-11"}),
        ("with_outcome", {"appointments": "${s2}", "outcome": "no-show"}),
        ("count_appointments", {"appointments": "${s3}"}),
        _memo("early_no_shows.txt", "${s4}\n"),
    ],
}

BAKERY_PLANS: dict[str, list[Call]] = {
    "How many batches are on thursday.csv's production sheet? Write the number to batch_count.txt": [
        THURSDAY,
        ("batch_count", {"batches": "${s1}"}),
        _notice("batch_count.txt", "${s2}\n"),
    ],
    "How many items were baked altogether on Thursday? Use thursday.csv and save the total in "
    "thursday_units.txt": [
        THURSDAY,
        ("units_baked", {"batches": "${s1}"}),
        _notice("thursday_units.txt", "${s2}\n"),
    ],
    "How many kilograms of flour did the bread batches in thursday.csv use? Write it to bread_flour.txt": [
        THURSDAY,
        ("in_category", {"batches": "${s1}", "category": "bread"}),
        ("flour_used", {"batches": "${s2}"}),
        _notice("bread_flour.txt", "${s3} kg\n"),
    ],
    "Which product had the biggest batch in thursday.csv? Write its name to biggest_batch.txt": [
        THURSDAY,
        ("biggest_batch", {"batches": "${s1}"}),
        _notice("biggest_batch.txt", "${s2.product}\n"),
    ],
    "Count the unsold items from the croissant batches in thursday.csv and put the number in "
    "croissant_leftovers.txt": [
        THURSDAY,
        ("of_product", {"batches": "${s1}", "product": "croissant"}),
        ("leftover_units", {"batches": "${s2}"}),
        _notice("croissant_leftovers.txt", "${s3}\n"),
    ],
    "oven2.txt: every batch that oven 2 baked according to thursday.csv, one per line": [
        THURSDAY,
        ("from_oven", {"batches": "${s1}", "oven": 2}),
        ("batch_lines", {"batches": "${s2}"}),
        _notice("oven2.txt", "${s3}"),
    ],
    "List the products made on Thursday (thursday.csv) and save the list as products.txt": [
        THURSDAY,
        ("product_names", {"batches": "${s1}"}),
        _notice("products.txt", "${s2}"),
    ],
    "How many batches did Ines bake in thursday.csv? Answer in ines_batches.txt": [
        THURSDAY,
        ("by_baker", {"batches": "${s1}", "baker": "Ines"}),
        ("batch_count", {"batches": "${s2}"}),
        _notice("ines_batches.txt", "${s3}\n"),
    ],
    "Write the batches from thursday.csv that had anything left unsold to leftovers.txt": [
        THURSDAY,
        ("with_leftovers", {"batches": "${s1}"}),
        ("batch_lines", {"batches": "${s2}"}),
        _notice("leftovers.txt", "${s3}"),
    ],
    "How many pastries went unsold in thursday.csv? Save the number to pastry_leftovers.txt": [
        THURSDAY,
        ("in_category", {"batches": "${s1}", "category": "pastry"}),
        ("leftover_units", {"batches": "${s2}"}),
        _notice("pastry_leftovers.txt", "${s3}\n"),
    ],
    "Units baked in thursday.csv and friday.csv: Thursday's total on the first line of "
    "units_by_day.txt, Friday's on the second": [
        THURSDAY,
        ("units_baked", {"batches": "${s1}"}),
        FRIDAY,
        ("units_baked", {"batches": "${s3}"}),
        _notice("units_by_day.txt", "${s2}\n${s4}\n"),
    ],
    'Post a notice oven3.txt that reads "Oven 3 out of service until Monday 18 May"': [
        _notice("oven3.txt", "Oven 3 out of service until Monday 18 May\n"),
    ],
    "Who baked Friday's biggest batch (friday.csv)? Write the baker's name to friday_top_baker.txt": [
        FRIDAY,
        ("biggest_batch", {"batches": "${s1}"}),
        _notice("friday_top_baker.txt", "${s2.baker}\n"),
    ],
    "How much flour went into oven one's batches in friday.csv? Save the kilograms to oven1_flour.txt": [
        FRIDAY,
        ("from_oven", {"batches": "${s1}", "oven": 1}),
        ("flour_used", {"batches": "${s2}"}),
        _notice("oven1_flour.txt", "${s3}\n"),
    ],
    "What time did the largest bread batch in thursday.csv go into the oven? Write the start time "
    "to bread_peak_start.txt": [
        THURSDAY,
        ("in_category", {"batches": "${s1}", "category": "bread"}),
        ("biggest_batch", {"batches": "${s2}"}),
        _notice("bread_peak_start.txt", "${s3.start}\n"),
    ],
    "Find the bread batches in thursday.csv that had leftovers, count them, then write the count "
    "to bread_leftover_batches.txt": [
        THURSDAY,
        ("in_category", {"batches": "${s1}", "category": "bread"}),
        ("with_leftovers", {"batches": "${s2}"}),
        ("batch_count", {"batches": "${s3}"}),
        _notice("bread_leftover_batches.txt", "${s4}\n"),
    ],
}

REFERENCE_PLANS: dict[str, dict[str, list[Call]]] = {
    "dental": DENTAL_PLANS,
    "bakery": BAKERY_PLANS,
}
