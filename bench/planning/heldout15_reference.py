"""Hand-written reference plans for ``heldout15.py``: one per goal, keyed by the goal's text, each
a list of ``heldout.Call``. Plain data, read only by ``heldout15_selfcheck.py`` (never by the runner
or a planner).
"""

from __future__ import annotations

from heldout import Call  # on the path: imported by its self-check, which puts it there

PROGRAMME = ("read_programme", {"programme_file": "programme.txt"})
NEXT_WEEK = ("read_programme", {"programme_file": "next_week.txt"})
HILLTOP = ("read_station_log", {"log_file": "hilltop.txt"})
VALLEY = ("read_station_log", {"log_file": "valley.txt"})


def _notice(notice_path: str, wording: str) -> Call:
    return ("post_notice", {"notice_path": notice_path, "wording": wording})


def _summary(summary_path: str, summary_text: str) -> Call:
    return ("write_summary", {"summary_path": summary_path, "summary_text": summary_text})


CINEMA_PLANS: dict[str, list[Call]] = {
    "How many screenings are in programme.txt? Write the number to screening_count.txt": [
        PROGRAMME,
        ("count_screenings", {"screenings": "${s1}"}),
        _notice("screening_count.txt", "${s2}\n"),
    ],
    "Total tickets sold across programme.txt - save the figure as tickets_total.txt": [
        PROGRAMME,
        ("tickets_sold", {"screenings": "${s1}"}),
        _notice("tickets_total.txt", "${s2}\n"),
    ],
    "salt_road.txt: every screening of Salt Road in programme.txt, one per line": [
        PROGRAMME,
        ("showings_of", {"screenings": "${s1}", "film": "Salt Road"}),
        ("screening_listing", {"screenings": "${s2}"}),
        _notice("salt_road.txt", "${s3}"),
    ],
    "Which screening in programme.txt sold the most tickets? Write the film's title to busiest_film.txt": [
        PROGRAMME,
        ("best_seller", {"screenings": "${s1}"}),
        _notice("busiest_film.txt", "${s2.film}\n"),
    ],
    "What time does the best-selling screening on Sunday the sixth of September 2026 start? "
    "programme.txt -> sunday_peak.txt": [
        PROGRAMME,
        ("showing_on", {"screenings": "${s1}", "day": "2026-09-06"}),
        ("best_seller", {"screenings": "${s2}"}),
        _notice("sunday_peak.txt", "${s3.start}\n"),
    ],
    "How many tickets did Paper Moons sell in programme.txt? Answer in paper_moons_tickets.txt": [
        PROGRAMME,
        ("showings_of", {"screenings": "${s1}", "film": "Paper Moons"}),
        ("tickets_sold", {"screenings": "${s2}"}),
        _notice("paper_moons_tickets.txt", "${s3}\n"),
    ],
    "List everything showing on 5 September 2026 in programme.txt and save it as saturday.txt": [
        PROGRAMME,
        ("showing_on", {"screenings": "${s1}", "day": "2026-09-05"}),
        ("screening_listing", {"screenings": "${s2}"}),
        _notice("saturday.txt", "${s3}"),
    ],
    "Count the screenings in programme.txt that start at 8 pm or later and put the count in late_shows.txt": [
        PROGRAMME,
        ("starting_from", {"screenings": "${s1}", "earliest": "20:00"}),
        ("count_screenings", {"screenings": "${s2}"}),
        _notice("late_shows.txt", "${s3}\n"),
    ],
    "How many seats were sold for Screen 3 in programme.txt? Save it to screen3_sold.txt": [
        PROGRAMME,
        ("in_screen", {"screenings": "${s1}", "screen": 3}),
        ("tickets_sold", {"screenings": "${s2}"}),
        _notice("screen3_sold.txt", "${s3}\n"),
    ],
    "Which screen hosted the best-attended showing of The Quiet Orchard? Look in programme.txt "
    "and write the screen number to orchard_screen.txt": [
        PROGRAMME,
        ("showings_of", {"screenings": "${s1}", "film": "The Quiet Orchard"}),
        ("best_seller", {"screenings": "${s2}"}),
        _notice("orchard_screen.txt", "${s3.screen}\n"),
    ],
    "Tickets sold in programme.txt and in next_week.txt: put this week's total on the first "
    "line of ticket_totals.txt and next week's on the second": [
        PROGRAMME,
        ("tickets_sold", {"screenings": "${s1}"}),
        NEXT_WEEK,
        ("tickets_sold", {"screenings": "${s3}"}),
        _notice("ticket_totals.txt", "${s2}\n${s4}\n"),
    ],
    "next_week_count.txt should hold the number of screenings in next_week.txt": [
        NEXT_WEEK,
        ("count_screenings", {"screenings": "${s1}"}),
        _notice("next_week_count.txt", "${s2}\n"),
    ],
    'Create closed.txt saying "Screen 2 closed for repairs on Tuesday"': [
        _notice("closed.txt", "Screen 2 closed for repairs on Tuesday\n"),
    ],
    "Write the evening screenings of next_week.txt, the ones from 6 pm on, to next_week_evenings.txt": [
        NEXT_WEEK,
        ("starting_from", {"screenings": "${s1}", "earliest": "18:00"}),
        ("screening_listing", {"screenings": "${s2}"}),
        _notice("next_week_evenings.txt", "${s3}"),
    ],
    "How many tickets were sold for Screen 1 on Saturday, September 5th 2026? Use programme.txt "
    "and write the answer to sat_screen1.txt": [
        PROGRAMME,
        ("showing_on", {"screenings": "${s1}", "day": "2026-09-05"}),
        ("in_screen", {"screenings": "${s2}", "screen": 1}),
        ("tickets_sold", {"screenings": "${s3}"}),
        _notice("sat_screen1.txt", "${s4}\n"),
    ],
    "On which date was the best-selling Salt Road screening in programme.txt? Save it to salt_road_day.txt": [
        PROGRAMME,
        ("showings_of", {"screenings": "${s1}", "film": "Salt Road"}),
        ("best_seller", {"screenings": "${s2}"}),
        _notice("salt_road_day.txt", "${s3.date}\n"),
    ],
}

WEATHER_PLANS: dict[str, list[Call]] = {
    "How much rain fell at the Hilltop station in total? The log is hilltop.txt; write the "
    "millimetres to hilltop_rain.txt": [
        HILLTOP,
        ("total_rainfall", {"readings": "${s1}"}),
        _summary("hilltop_rain.txt", "${s2}\n"),
    ],
    "How many days does hilltop.txt cover? Save the count in hilltop_days.txt": [
        HILLTOP,
        ("count_days", {"readings": "${s1}"}),
        _summary("hilltop_days.txt", "${s2}\n"),
    ],
    "What was the average daily high temperature in hilltop.txt? Write it to avg_high.txt": [
        HILLTOP,
        ("mean_high", {"readings": "${s1}"}),
        _summary("avg_high.txt", "${s2}\n"),
    ],
    "Which day was the wettest in hilltop.txt? Put its date in wettest_day.txt": [
        HILLTOP,
        ("wettest_day", {"readings": "${s1}"}),
        _summary("wettest_day.txt", "${s2.date}\n"),
    ],
    "How much rain fell on the wettest day of hilltop.txt? Answer in wettest_mm.txt": [
        HILLTOP,
        ("wettest_day", {"readings": "${s1}"}),
        _summary("wettest_mm.txt", "${s2.rain_mm} mm\n"),
    ],
    "Count the days in hilltop.txt with five millimetres of rain or more and write the count "
    "to heavy_days.txt": [
        HILLTOP,
        ("rain_at_least", {"readings": "${s1}", "millimetres": 5}),
        ("count_days", {"readings": "${s2}"}),
        _summary("heavy_days.txt", "${s3}\n"),
    ],
    "west_wind.txt: the days in hilltop.txt when the wind came from the west, one per line": [
        HILLTOP,
        ("wind_from", {"readings": "${s1}", "direction": "W"}),
        ("reading_lines", {"readings": "${s2}"}),
        _summary("west_wind.txt", "${s3}"),
    ],
    "Total rainfall in hilltop.txt from the 6th to the 12th of March 2026? Save it as week_rain.txt": [
        HILLTOP,
        ("between_dates", {"readings": "${s1}", "first_day": "2026-03-06", "last_day": "2026-03-12"}),
        ("total_rainfall", {"readings": "${s2}"}),
        _summary("week_rain.txt", "${s3}\n"),
    ],
    "Write the hilltop.txt readings from March 1 to March 4, 2026 to first_days.txt": [
        HILLTOP,
        ("between_dates", {"readings": "${s1}", "first_day": "2026-03-01", "last_day": "2026-03-04"}),
        ("reading_lines", {"readings": "${s2}"}),
        _summary("first_days.txt", "${s3}"),
    ],
    "How many days with a south-westerly wind did hilltop.txt record? Write the number to sw_days.txt": [
        HILLTOP,
        ("wind_from", {"readings": "${s1}", "direction": "SW"}),
        ("count_days", {"readings": "${s2}"}),
        _summary("sw_days.txt", "${s3}\n"),
    ],
    "wet_day_high.txt: the mean high temperature of the hilltop.txt days that had at least 5 mm of rain": [
        HILLTOP,
        ("rain_at_least", {"readings": "${s1}", "millimetres": 5}),
        ("mean_high", {"readings": "${s2}"}),
        _summary("wet_day_high.txt", "${s3}\n"),
    ],
    "Rain totals for hilltop.txt and valley.txt: Hilltop's on the first line of rain_compare.txt, "
    "the valley's on the second": [
        HILLTOP,
        ("total_rainfall", {"readings": "${s1}"}),
        VALLEY,
        ("total_rainfall", {"readings": "${s3}"}),
        _summary("rain_compare.txt", "${s2}\n${s4}\n"),
    ],
    "valley_wettest.txt: the date of the wettest day in valley.txt": [
        VALLEY,
        ("wettest_day", {"readings": "${s1}"}),
        _summary("valley_wettest.txt", "${s2.date}\n"),
    ],
    'Write "Rain gauge cleaned on 15 March" to maintenance.txt': [
        _summary("maintenance.txt", "Rain gauge cleaned on 15 March\n"),
    ],
    "What was the mean daily high at the valley station (valley.txt) over the first four days "
    "of March 2026? Save it to valley_early_high.txt": [
        VALLEY,
        ("between_dates", {"readings": "${s1}", "first_day": "2026-03-01", "last_day": "2026-03-04"}),
        ("mean_high", {"readings": "${s2}"}),
        _summary("valley_early_high.txt", "${s3}\n"),
    ],
    "How many days between the 8th and the 14th of March 2026 had at least one millimetre of "
    "rain in hilltop.txt? Write it to late_wet_days.txt": [
        HILLTOP,
        ("between_dates", {"readings": "${s1}", "first_day": "2026-03-08", "last_day": "2026-03-14"}),
        ("rain_at_least", {"readings": "${s2}", "millimetres": 1}),
        ("count_days", {"readings": "${s3}"}),
        _summary("late_wet_days.txt", "${s4}\n"),
    ],
}

REFERENCE_PLANS: dict[str, dict[str, list[Call]]] = {
    "cinema": CINEMA_PLANS,
    "weather": WEATHER_PLANS,
}
