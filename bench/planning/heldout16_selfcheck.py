"""Self-check of ``heldout16.py`` (see ``heldout_selfcheck.py``): every goal's reference plan in
``heldout16_reference.py`` is valid, runs through the real ``Agent`` and passes the goal's check.

    PYTHONPATH=src .venv/bin/python bench/planning/heldout16_selfcheck.py            # expects 32/32
    PYTHONPATH=src .venv/bin/python bench/planning/heldout16_selfcheck.py --broken   # expects 28/32

``--broken`` swaps four reference plans for plans that run to completion but write a wrong answer
(the API requests counted over the whole log instead of between 9 and 10; the mean response time
of every request instead of the /api/checkout ones; every bird on the April sheet added up instead
of the Lapwing alone; the date of the largest flock of any species instead of the largest Teal
count), to show the checks reject wrong answers and not only accept right ones: it exits 0 when
exactly those four goals fail their check and every other goal is achieved.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from heldout import Call
from heldout16 import HELD_OUT_16
from heldout16_reference import ACCESS, APRIL, REFERENCE_PLANS, _note, _report
from heldout_selfcheck import cli

API_MORNING = (
    "How many API requests (paths starting with /api/) came in between 9 and 10 in the "
    "morning? Use access.log and write the count to api_morning.txt"
)
CHECKOUT_MS = (
    "What is the mean response time of the /api/checkout requests in access.log? Write it to checkout_ms.txt"
)
LAPWING_TOTAL = "How many Lapwing were counted in april.txt in total? Put the number in lapwing_total.txt"
TEAL_PEAK_DAY = "On what date was the biggest Teal count in april.txt? Save it in teal_peak_day.txt"

WRONG_PLANS: dict[str, dict[str, list[Call]]] = {
    "weblog": {
        API_MORNING: [
            ACCESS,
            ("path_prefix", {"requests": "${s1}", "prefix": "/api/"}),
            ("request_count", {"requests": "${s2}"}),
            _report("api_morning.txt", "${s3}\n"),
        ],
        CHECKOUT_MS: [
            ACCESS,
            ("mean_duration", {"requests": "${s1}"}),
            _report("checkout_ms.txt", "${s2}\n"),
        ],
    },
    "birdcount": {
        LAPWING_TOTAL: [
            APRIL,
            ("birds_counted", {"sightings": "${s1}"}),
            _note("lapwing_total.txt", "${s2}\n"),
        ],
        TEAL_PEAK_DAY: [
            APRIL,
            ("largest_flock", {"sightings": "${s1}"}),
            _note("teal_peak_day.txt", "${s2.date}\n"),
        ],
    },
}


if __name__ == "__main__":
    cli(__doc__, HELD_OUT_16, REFERENCE_PLANS, WRONG_PLANS)
