"""Self-check of ``heldout11.py`` (see ``heldout_selfcheck.py``): every goal's reference plan in
``heldout11_reference.py`` is valid, runs through the real ``Agent`` and passes the goal's check.

    PYTHONPATH=src .venv/bin/python bench/planning/heldout11_selfcheck.py            # expects 32/32
    PYTHONPATH=src .venv/bin/python bench/planning/heldout11_selfcheck.py --broken   # expects 30/32

``--broken`` swaps two reference plans for plans that run to completion but write a wrong answer
(the biggest sample's freezer instead of its ID; trains at least 5 minutes late instead of 10), to
show the checks reject wrong answers and not only accept right ones: it exits 0 when exactly those
two goals fail their check and every other goal is achieved.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from heldout11 import HELD_OUT_11
from heldout11_reference import REFERENCE_PLANS, Call, _answer, _export
from heldout_selfcheck import cli

BIGGEST = "Which sample in samples.tsv has the largest volume? Write its ID to biggest.txt"
LATE10 = (
    "How many Central departures are running at least 10 minutes late? Use central.json and answer "
    "in late10.txt"
)

WRONG_PLANS: dict[str, dict[str, list[Call]]] = {
    "samples": {
        BIGGEST: [
            ("open_register", {"register_path": "samples.tsv"}),
            ("largest_sample", {"samples": "${s1}"}),
            _export("biggest.txt", "${s2.freezer}\n"),
        ],
    },
    "trains": {
        LATE10: [
            ("fetch_departures", {"board_file": "central.json"}),
            ("delayed_by", {"departures": "${s1}", "min_minutes": 5}),
            ("count_departures", {"departures": "${s2}"}),
            _answer("late10.txt", "${s3}\n"),
        ],
    },
}


if __name__ == "__main__":
    cli(__doc__, HELD_OUT_11, REFERENCE_PLANS, WRONG_PLANS)
