"""Hand-written reference plans for ``heldout17.py``: one per goal, keyed by the goal's text, each
a list of ``heldout.Call``. Plain data, read only by ``heldout17_selfcheck.py`` (never by the runner
or a planner).
"""

from __future__ import annotations

from heldout import Call  # on the path: imported by its self-check, which puts it there

JULY = ("read_tide_table", {"table_file": "july_tides.txt"})
AUGUST = ("read_tide_table", {"table_file": "august_tides.txt"})
ASHCOMBE = ("read_inspection_book", {"book_path": "ashcombe.txt"})
MILLBROOK = ("read_inspection_book", {"book_path": "millbrook.txt"})


def _notice(notice_file: str, wording: str) -> Call:
    return ("post_notice", {"notice_file": notice_file, "wording": wording})


def _memo(memo_file: str, memo_text: str) -> Call:
    return ("write_memo", {"memo_file": memo_file, "memo_text": memo_text})


TIDES_PLANS: dict[str, list[Call]] = {
    "How many high waters does july_tides.txt list? Write the number to high_waters.txt": [
        JULY,
        ("high_waters", {"tides": "${s1}"}),
        ("count_tides", {"tides": "${s2}"}),
        _notice("high_waters.txt", "${s3}\n"),
    ],
    "What is the height of the highest tide in july_tides.txt? Save it to july_peak.txt": [
        JULY,
        ("highest_tide", {"tides": "${s1}"}),
        _notice("july_peak.txt", "${s2.height_m} m\n"),
    ],
    "On which day does the highest tide in july_tides.txt fall? Write the date to peak_day.txt": [
        JULY,
        ("highest_tide", {"tides": "${s1}"}),
        _notice("peak_day.txt", "${s2.date}\n"),
    ],
    "At what time is the highest tide on the third of July 2026? Check july_tides.txt and put the "
    "time in third_peak_time.txt": [
        JULY,
        ("on_dates", {"tides": "${s1}", "first_day": "2026-07-03", "last_day": "2026-07-03"}),
        ("highest_tide", {"tides": "${s2}"}),
        _notice("third_peak_time.txt", "${s3.time}\n"),
    ],
    "Work out the average height of the low waters in july_tides.txt and write it to low_mean.txt": [
        JULY,
        ("low_waters", {"tides": "${s1}"}),
        ("average_height", {"tides": "${s2}"}),
        _notice("low_mean.txt", "${s3}\n"),
    ],
    "Which tides in july_tides.txt are higher than four and a half metres? List them in big_tides.txt": [
        JULY,
        ("higher_than", {"tides": "${s1}", "metres": 4.5}),
        ("tide_lines", {"tides": "${s2}"}),
        _notice("big_tides.txt", "${s3}"),
    ],
    "How many tides are there from the first to the third of July 2026? Count them in july_tides.txt "
    "and save the count as first_days.txt": [
        JULY,
        ("on_dates", {"tides": "${s1}", "first_day": "2026-07-01", "last_day": "2026-07-03"}),
        ("count_tides", {"tides": "${s2}"}),
        _notice("first_days.txt", "${s3}\n"),
    ],
    "What is the tidal range in july_tides.txt, the difference between its highest and lowest "
    "water? Write it to july_range.txt": [
        JULY,
        ("tidal_range", {"tides": "${s1}"}),
        _notice("july_range.txt", "${s2} metres\n"),
    ],
    "Write the morning high waters (before noon) from july_tides.txt to morning_highs.txt": [
        JULY,
        ("high_waters", {"tides": "${s1}"}),
        ("between_times", {"tides": "${s2}", "earliest": "00:00", "latest": "11:59"}),
        ("tide_lines", {"tides": "${s3}"}),
        _notice("morning_highs.txt", "${s4}"),
    ],
    "Put the heights of July's and August's highest tides in peaks.txt, one per line, July "
    "first (july_tides.txt and august_tides.txt)": [
        JULY,
        ("highest_tide", {"tides": "${s1}"}),
        AUGUST,
        ("highest_tide", {"tides": "${s3}"}),
        _notice("peaks.txt", "${s2.height_m}\n${s4.height_m}\n"),
    ],
    'Post a notice named slipway.txt saying "Slipway closed two hours either side of low water"': [
        _notice("slipway.txt", "Slipway closed two hours either side of low water\n"),
    ],
    "How many low tides in august_tides.txt are lower than a metre? Write the count to shallow_august.txt": [
        AUGUST,
        ("low_waters", {"tides": "${s1}"}),
        ("lower_than", {"tides": "${s2}", "metres": 1.0}),
        ("count_tides", {"tides": "${s3}"}),
        _notice("shallow_august.txt", "${s4}\n"),
    ],
    "What's the mean height of high water in august_tides.txt? mean_high_august.txt should hold it": [
        AUGUST,
        ("high_waters", {"tides": "${s1}"}),
        ("average_height", {"tides": "${s2}"}),
        _notice("mean_high_august.txt", "${s3}\n"),
    ],
    "List the tides on the 4th of July 2026 from july_tides.txt in july_fourth.txt": [
        JULY,
        ("on_dates", {"tides": "${s1}", "first_day": "2026-07-04", "last_day": "2026-07-04"}),
        ("tide_lines", {"tides": "${s2}"}),
        _notice("july_fourth.txt", "${s3}"),
    ],
    "How high is the highest tide between the 2nd and the 4th of July 2026 (july_tides.txt)? Write "
    "it to midweek_peak.txt": [
        JULY,
        ("on_dates", {"tides": "${s1}", "first_day": "2026-07-02", "last_day": "2026-07-04"}),
        ("highest_tide", {"tides": "${s2}"}),
        _notice("midweek_peak.txt", "${s3.height_m}\n"),
    ],
    "Find the high tides in august_tides.txt that go above five metres, then write how many "
    "there are to august_over_five.txt": [
        AUGUST,
        ("high_waters", {"tides": "${s1}"}),
        ("higher_than", {"tides": "${s2}", "metres": 5}),
        ("count_tides", {"tides": "${s3}"}),
        _notice("august_over_five.txt", "${s4}\n"),
    ],
}

APIARY_PLANS: dict[str, list[Call]] = {
    "How many inspections are recorded in ashcombe.txt? Write the number to inspections.txt": [
        ASHCOMBE,
        ("inspection_count", {"inspections": "${s1}"}),
        _memo("inspections.txt", "${s2}\n"),
    ],
    "How much honey was taken off the hives in ashcombe.txt altogether? Save the kilos in honey_total.txt": [
        ASHCOMBE,
        ("honey_total", {"inspections": "${s1}"}),
        _memo("honey_total.txt", "${s2} kg\n"),
    ],
    "What was Bramble's average mite count in ashcombe.txt? Write it to bramble_mites.txt": [
        ASHCOMBE,
        ("for_hive", {"inspections": "${s1}", "hive": "Bramble"}),
        ("mean_mites", {"inspections": "${s2}"}),
        _memo("bramble_mites.txt", "${s3}\n"),
    ],
    "Which inspections in ashcombe.txt did not find the queen? List them in queenless.txt": [
        ASHCOMBE,
        ("queen_missing", {"inspections": "${s1}"}),
        ("inspection_lines", {"inspections": "${s2}"}),
        _memo("queenless.txt", "${s3}"),
    ],
    "Which hive had the most brood frames at a single inspection in ashcombe.txt? Put its name "
    "in strongest.txt": [
        ASHCOMBE,
        ("strongest_colony", {"inspections": "${s1}"}),
        _memo("strongest.txt", "${s2.hive}\n"),
    ],
    "How many inspections did Priya carry out in ashcombe.txt? Save the count to priya.txt": [
        ASHCOMBE,
        ("inspected_by", {"inspections": "${s1}", "beekeeper": "Priya"}),
        ("inspection_count", {"inspections": "${s2}"}),
        _memo("priya.txt", "${s3}\n"),
    ],
    "Which hives in ashcombe.txt had more than ten mites at an inspection? List them in high_mites.txt": [
        ASHCOMBE,
        ("mites_above", {"inspections": "${s1}", "threshold": 10}),
        ("hives_seen", {"inspections": "${s2}"}),
        _memo("high_mites.txt", "${s3}"),
    ],
    "How many kilograms of honey came off in ashcombe.txt between the 10th and the 24th of May "
    "2026? Write it to mid_may_honey.txt": [
        ASHCOMBE,
        ("inspected_between", {"inspections": "${s1}", "since": "2026-05-10", "until": "2026-05-24"}),
        ("honey_total", {"inspections": "${s2}"}),
        _memo("mid_may_honey.txt", "${s3}\n"),
    ],
    "Foxglove's honey: add up what it gave in ashcombe.txt and write the total to foxglove_honey.txt": [
        ASHCOMBE,
        ("for_hive", {"inspections": "${s1}", "hive": "Foxglove"}),
        ("honey_total", {"inspections": "${s2}"}),
        _memo("foxglove_honey.txt", "${s3} kilograms\n"),
    ],
    "On what date did Clover have the most brood frames? Look in ashcombe.txt and save the date "
    "to clover_best.txt": [
        ASHCOMBE,
        ("for_hive", {"inspections": "${s1}", "hive": "Clover"}),
        ("strongest_colony", {"inspections": "${s2}"}),
        _memo("clover_best.txt", "${s3.date}\n"),
    ],
    "Honey totals of ashcombe.txt and millbrook.txt, one per line in honey_by_apiary.txt, Ashcombe first": [
        ASHCOMBE,
        ("honey_total", {"inspections": "${s1}"}),
        MILLBROOK,
        ("honey_total", {"inspections": "${s3}"}),
        _memo("honey_by_apiary.txt", "${s2}\n${s4}\n"),
    ],
    'Write a memo feed_clover.txt: "Feed Clover two litres of syrup on Saturday"': [
        _memo("feed_clover.txt", "Feed Clover two litres of syrup on Saturday\n"),
    ],
    "Which hives are kept at Millbrook? Read millbrook.txt and write their names to millbrook_hives.txt": [
        MILLBROOK,
        ("hives_seen", {"inspections": "${s1}"}),
        _memo("millbrook_hives.txt", "${s2}"),
    ],
    "Count Tom's inspections in ashcombe.txt that found more than five mites, then write the "
    "count to tom_mites.txt": [
        ASHCOMBE,
        ("inspected_by", {"inspections": "${s1}", "beekeeper": "Tom"}),
        ("mites_above", {"inspections": "${s2}", "threshold": 5}),
        ("inspection_count", {"inspections": "${s3}"}),
        _memo("tom_mites.txt", "${s4}\n"),
    ],
    "Who inspected the strongest colony in millbrook.txt? Write the inspector's name to "
    "millbrook_inspector.txt": [
        MILLBROOK,
        ("strongest_colony", {"inspections": "${s1}"}),
        _memo("millbrook_inspector.txt", "${s2.inspector}\n"),
    ],
    "What was the average mite count in ashcombe.txt from the first to the fifteenth of May "
    "2026? Write it to early_may_mites.txt": [
        ASHCOMBE,
        ("inspected_between", {"inspections": "${s1}", "since": "2026-05-01", "until": "2026-05-15"}),
        ("mean_mites", {"inspections": "${s2}"}),
        _memo("early_may_mites.txt", "${s3} mites\n"),
    ],
}

REFERENCE_PLANS: dict[str, dict[str, list[Call]]] = {
    "tides": TIDES_PLANS,
    "apiary": APIARY_PLANS,
}
