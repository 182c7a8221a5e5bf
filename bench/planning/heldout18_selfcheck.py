"""Self-check of ``heldout18.py`` (see ``heldout_selfcheck.py``): every goal's reference plan in
``heldout18_reference.py`` is valid, runs through the real ``Agent`` and passes the goal's check.

    PYTHONPATH=src .venv/bin/python bench/planning/heldout18_selfcheck.py            # expects 32/32
    PYTHONPATH=src .venv/bin/python bench/planning/heldout18_selfcheck.py --broken   # expects 28/32

``--broken`` swaps four reference plans for plans that run to completion but write a wrong answer
(Dr Mensah's fees for every appointment instead of the attended ones; the start of the most
expensive appointment of any dentist instead of Dr Okafor's; the flour of every batch instead of
the bread batches; the start of the biggest batch of any category instead of the biggest bread
batch), to show the checks reject wrong answers and not only accept right ones: it exits 0 when
exactly those four goals fail their check and every other goal is achieved.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from heldout import Call
from heldout18 import HELD_OUT_18
from heldout18_reference import BOOK, REFERENCE_PLANS, THURSDAY, _memo, _notice
from heldout_selfcheck import cli

MENSAH_FEES = (
    "What did Dr Mensah's attended appointments in appointments.txt bring in? Write the total of "
    "their fees to mensah_fees.txt"
)
OKAFOR_TOP_TIME = (
    "At what time does Dr Okafor's most expensive appointment in appointments.txt start? Put the "
    "time in okafor_top_time.txt"
)
BREAD_FLOUR = (
    "How many kilograms of flour did the bread batches in thursday.csv use? Write it to bread_flour.txt"
)
BREAD_PEAK_START = (
    "What time did the largest bread batch in thursday.csv go into the oven? Write the start time "
    "to bread_peak_start.txt"
)

WRONG_PLANS: dict[str, dict[str, list[Call]]] = {
    "dental": {
        MENSAH_FEES: [
            BOOK,
            ("for_dentist", {"appointments": "${s1}", "dentist": "Dr Mensah"}),
            ("total_fees", {"appointments": "${s2}"}),
            _memo("mensah_fees.txt", "${s3}\n"),
        ],
        OKAFOR_TOP_TIME: [
            BOOK,
            ("most_expensive", {"appointments": "${s1}"}),
            _memo("okafor_top_time.txt", "${s2.time}\n"),
        ],
    },
    "bakery": {
        BREAD_FLOUR: [
            THURSDAY,
            ("flour_used", {"batches": "${s1}"}),
            _notice("bread_flour.txt", "${s2}\n"),
        ],
        BREAD_PEAK_START: [
            THURSDAY,
            ("biggest_batch", {"batches": "${s1}"}),
            _notice("bread_peak_start.txt", "${s2.start}\n"),
        ],
    },
}


if __name__ == "__main__":
    cli(__doc__, HELD_OUT_18, REFERENCE_PLANS, WRONG_PLANS)
