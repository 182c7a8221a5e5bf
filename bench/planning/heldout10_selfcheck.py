"""Self-check of ``heldout10.py`` (see ``heldout_selfcheck.py``): every goal's reference plan in
``heldout10_reference.py`` is valid, runs through the real ``Agent`` and passes the goal's check.

    PYTHONPATH=src .venv/bin/python bench/planning/heldout10_selfcheck.py
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from heldout10 import HELD_OUT_10
from heldout10_reference import REFERENCE_PLANS
from heldout_selfcheck import main

if __name__ == "__main__":
    sys.exit(asyncio.run(main(HELD_OUT_10, REFERENCE_PLANS)))
