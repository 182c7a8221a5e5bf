"""Self-check of ``heldout13.py`` (see ``heldout_selfcheck.py``): every goal's reference plan in
``heldout13_reference.py`` is valid, runs through the real ``Agent`` and passes the goal's check.

    PYTHONPATH=src .venv/bin/python bench/planning/heldout13_selfcheck.py            # expects 32/32
    PYTHONPATH=src .venv/bin/python bench/planning/heldout13_selfcheck.py --broken   # expects 30/32

``--broken`` swaps two reference plans for plans that run to completion but write a wrong answer
(the longest stay's booking reference instead of its guest's name; fill-ups of thirty to sixty
litres instead of thirty to fifty), to show the checks reject wrong answers and not only accept
right ones: it exits 0 when exactly those two goals fail their check and every other goal is
achieved.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from heldout13 import HELD_OUT_13
from heldout13_reference import REFERENCE_PLANS, Call, _note, _summary
from heldout_selfcheck import cli

LONGEST_GUEST = (
    "Who is staying the longest? Look in reservations.csv and write the guest's name to longest_guest.txt"
)
MID_SIZE = (
    "Count the fill-ups of between thirty and fifty litres in fuel_log.jsonl and put the count "
    "in mid_size.txt"
)

WRONG_PLANS: dict[str, dict[str, list[Call]]] = {
    "hotel": {
        LONGEST_GUEST: [
            ("load_reservations", {"bookings_csv": "reservations.csv"}),
            ("longest_stay", {"reservations": "${s1}"}),
            _note("longest_guest.txt", "${s2.booking_ref}\n"),
        ],
    },
    "fuel": {
        MID_SIZE: [
            ("read_fuel_log", {"log_file": "fuel_log.jsonl"}),
            ("litres_between", {"fill_ups": "${s1}", "at_least": 30, "at_most": 60}),
            ("count_fill_ups", {"fill_ups": "${s2}"}),
            _summary("mid_size.txt", "${s3}\n"),
        ],
    },
}


if __name__ == "__main__":
    cli(__doc__, HELD_OUT_13, REFERENCE_PLANS, WRONG_PLANS)
