"""Self-check of ``heldout12.py`` (see ``heldout_selfcheck.py``): every goal's reference plan in
``heldout12_reference.py`` is valid, runs through the real ``Agent`` and passes the goal's check.

    PYTHONPATH=src .venv/bin/python bench/planning/heldout12_selfcheck.py            # expects 32/32
    PYTHONPATH=src .venv/bin/python bench/planning/heldout12_selfcheck.py --broken   # expects 30/32

``--broken`` swaps two reference plans for plans that run to completion but write a wrong answer
(the fees of every spin booking instead of only the attended ones; the heaviest parcel of all
carriers instead of the heaviest Swiftpost one), to show the checks reject wrong answers and not
only accept right ones: it exits 0 when exactly those two goals fail their check and every other
goal is achieved.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from heldout12 import HELD_OUT_12
from heldout12_reference import REFERENCE_PLANS, Call, _note, _report
from heldout_selfcheck import cli

SPIN_ATTENDED = (
    "What did the spin classes people actually came to bring in? Sum the fees of the attended spin "
    "bookings in march_bookings.csv and write it to spin_attended_fees.txt"
)
SWIFTPOST_HEAVIEST = (
    "Which Swiftpost parcel in north_depot.jsonl is the heaviest? Write its tracking number to "
    "swiftpost_heaviest.txt"
)

WRONG_PLANS: dict[str, dict[str, list[Call]]] = {
    "gym": {
        SPIN_ATTENDED: [
            ("load_bookings", {"bookings_csv": "march_bookings.csv"}),
            ("for_class", {"bookings": "${s1}", "class_name": "spin"}),
            ("fees_collected", {"bookings": "${s2}"}),
            _note("spin_attended_fees.txt", "${s3}\n"),
        ],
    },
    "parcels": {
        SWIFTPOST_HEAVIEST: [
            ("read_manifest", {"manifest_file": "north_depot.jsonl"}),
            ("heaviest_parcel", {"parcels": "${s1}"}),
            _report("swiftpost_heaviest.txt", "${s2.tracking}\n"),
        ],
    },
}


if __name__ == "__main__":
    cli(__doc__, HELD_OUT_12, REFERENCE_PLANS, WRONG_PLANS)
