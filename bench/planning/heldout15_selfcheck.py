"""Self-check of ``heldout15.py`` (see ``heldout_selfcheck.py``): every goal's reference plan in
``heldout15_reference.py`` is valid, runs through the real ``Agent`` and passes the goal's check.

    PYTHONPATH=src .venv/bin/python bench/planning/heldout15_selfcheck.py            # expects 32/32
    PYTHONPATH=src .venv/bin/python bench/planning/heldout15_selfcheck.py --broken   # expects 29/32

``--broken`` swaps three reference plans for plans that run to completion but write a wrong answer
(Screen 1's tickets summed over the whole programme instead of Saturday's alone; the date of the
best-selling screening of any film instead of Salt Road's; the Hilltop rain added up over the whole
log instead of the 6th to the 12th of March), to show the checks reject wrong answers and not only
accept right ones: it exits 0 when exactly those three goals fail their check and every other goal
is achieved.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from heldout import Call
from heldout15 import HELD_OUT_15
from heldout15_reference import REFERENCE_PLANS, _notice, _summary
from heldout_selfcheck import cli

SAT_SCREEN_1 = (
    "How many tickets were sold for Screen 1 on Saturday, September 5th 2026? Use programme.txt "
    "and write the answer to sat_screen1.txt"
)
SALT_ROAD_DAY = (
    "On which date was the best-selling Salt Road screening in programme.txt? Save it to salt_road_day.txt"
)
WEEK_RAIN = "Total rainfall in hilltop.txt from the 6th to the 12th of March 2026? Save it as week_rain.txt"

WRONG_PLANS: dict[str, dict[str, list[Call]]] = {
    "cinema": {
        SAT_SCREEN_1: [
            ("read_programme", {"programme_file": "programme.txt"}),
            ("in_screen", {"screenings": "${s1}", "screen": 1}),
            ("tickets_sold", {"screenings": "${s2}"}),
            _notice("sat_screen1.txt", "${s3}\n"),
        ],
        SALT_ROAD_DAY: [
            ("read_programme", {"programme_file": "programme.txt"}),
            ("best_seller", {"screenings": "${s1}"}),
            _notice("salt_road_day.txt", "${s2.date}\n"),
        ],
    },
    "weather": {
        WEEK_RAIN: [
            ("read_station_log", {"log_file": "hilltop.txt"}),
            ("total_rainfall", {"readings": "${s1}"}),
            _summary("week_rain.txt", "${s2}\n"),
        ],
    },
}


if __name__ == "__main__":
    cli(__doc__, HELD_OUT_15, REFERENCE_PLANS, WRONG_PLANS)
