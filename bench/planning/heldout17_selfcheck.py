"""Self-check of ``heldout17.py`` (see ``heldout_selfcheck.py``): every goal's reference plan in
``heldout17_reference.py`` is valid, runs through the real ``Agent`` and passes the goal's check.

    PYTHONPATH=src .venv/bin/python bench/planning/heldout17_selfcheck.py            # expects 32/32
    PYTHONPATH=src .venv/bin/python bench/planning/heldout17_selfcheck.py --broken   # expects 28/32

``--broken`` swaps four reference plans for plans that run to completion but write a wrong answer
(every tide of the July table counted instead of those from the first to the third; the highest
tide of the whole month instead of the one between the 2nd and the 4th; the mean mite count of
every hive instead of Bramble's; all of Tom's inspections counted instead of those with more than
five mites), to show the checks reject wrong answers and not only accept right ones: it exits 0
when exactly those four goals fail their check and every other goal is achieved.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from heldout import Call
from heldout17 import HELD_OUT_17
from heldout17_reference import ASHCOMBE, JULY, REFERENCE_PLANS, _memo, _notice
from heldout_selfcheck import cli

FIRST_DAYS = (
    "How many tides are there from the first to the third of July 2026? Count them in july_tides.txt "
    "and save the count as first_days.txt"
)
MIDWEEK_PEAK = (
    "How high is the highest tide between the 2nd and the 4th of July 2026 (july_tides.txt)? Write "
    "it to midweek_peak.txt"
)
BRAMBLE_MITES = "What was Bramble's average mite count in ashcombe.txt? Write it to bramble_mites.txt"
TOM_MITES = (
    "Count Tom's inspections in ashcombe.txt that found more than five mites, then write the "
    "count to tom_mites.txt"
)

WRONG_PLANS: dict[str, dict[str, list[Call]]] = {
    "tides": {
        FIRST_DAYS: [
            JULY,
            ("count_tides", {"tides": "${s1}"}),
            _notice("first_days.txt", "${s2}\n"),
        ],
        MIDWEEK_PEAK: [
            JULY,
            ("highest_tide", {"tides": "${s1}"}),
            _notice("midweek_peak.txt", "${s2.height_m}\n"),
        ],
    },
    "apiary": {
        BRAMBLE_MITES: [
            ASHCOMBE,
            ("mean_mites", {"inspections": "${s1}"}),
            _memo("bramble_mites.txt", "${s2}\n"),
        ],
        TOM_MITES: [
            ASHCOMBE,
            ("inspected_by", {"inspections": "${s1}", "beekeeper": "Tom"}),
            ("inspection_count", {"inspections": "${s2}"}),
            _memo("tom_mites.txt", "${s3}\n"),
        ],
    },
}


if __name__ == "__main__":
    cli(__doc__, HELD_OUT_17, REFERENCE_PLANS, WRONG_PLANS)
