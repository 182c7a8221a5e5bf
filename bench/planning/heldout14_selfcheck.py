"""Self-check of ``heldout14.py`` (see ``heldout_selfcheck.py``): every goal's reference plan in
``heldout14_reference.py`` is valid, runs through the real ``Agent`` and passes the goal's check.

    PYTHONPATH=src .venv/bin/python bench/planning/heldout14_selfcheck.py            # expects 32/32
    PYTHONPATH=src .venv/bin/python bench/planning/heldout14_selfcheck.py --broken   # expects 30/32

``--broken`` swaps two reference plans for plans that run to completion but write a wrong answer
(the longest folk track found without keeping the folk tracks first, so the longest track of the
whole library; the failed builds counted over every branch instead of main's alone), to show the
checks reject wrong answers and not only accept right ones: it exits 0 when exactly those two
goals fail their check and every other goal is achieved.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from heldout14 import HELD_OUT_14
from heldout14_reference import REFERENCE_PLANS, Call, _artifact, _save
from heldout_selfcheck import cli

LONGEST_FOLK = "Write the length in seconds of the longest folk track in library.txt to longest_folk.txt"
MAIN_FAILURES = "How many builds on the main branch failed? Check ci.log and answer in main_failures.txt"

WRONG_PLANS: dict[str, dict[str, list[Call]]] = {
    "playlist": {
        LONGEST_FOLK: [
            ("read_playlist", {"playlist_file": "library.txt"}),
            ("longest_track", {"tracks": "${s1}"}),
            _save("longest_folk.txt", "${s2.seconds}\n"),
        ],
    },
    "builds": {
        MAIN_FAILURES: [
            ("parse_build_log", {"log_path": "ci.log"}),
            ("with_status", {"builds": "${s1}", "status": "failed"}),
            ("count_builds", {"builds": "${s2}"}),
            _artifact("main_failures.txt", "${s3}\n"),
        ],
    },
}


if __name__ == "__main__":
    cli(__doc__, HELD_OUT_14, REFERENCE_PLANS, WRONG_PLANS)
