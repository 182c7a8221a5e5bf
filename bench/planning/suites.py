"""Every held-out planning suite's tool sets, in order: the one list the runner, the replays and
the capability sweep share (add a new suite here)."""

from __future__ import annotations

from heldout import HELD_OUT, ToolSet
from heldout2 import HELD_OUT_2
from heldout3 import HELD_OUT_3
from heldout4 import HELD_OUT_4
from heldout5 import HELD_OUT_5
from heldout6 import HELD_OUT_6
from heldout7 import HELD_OUT_7
from heldout8 import HELD_OUT_8
from heldout9 import HELD_OUT_9
from heldout10 import HELD_OUT_10
from heldout11 import HELD_OUT_11
from heldout12 import HELD_OUT_12
from heldout13 import HELD_OUT_13
from heldout14 import HELD_OUT_14
from heldout15 import HELD_OUT_15
from heldout16 import HELD_OUT_16
from heldout17 import HELD_OUT_17
from heldout18 import HELD_OUT_18


def every_suite() -> list[ToolSet]:
    """Every held-out suite's tool sets, suite 1 first."""
    return [
        *HELD_OUT,
        *HELD_OUT_2,
        *HELD_OUT_3,
        *HELD_OUT_4,
        *HELD_OUT_5,
        *HELD_OUT_6,
        *HELD_OUT_7,
        *HELD_OUT_8,
        *HELD_OUT_9,
        *HELD_OUT_10,
        *HELD_OUT_11,
        *HELD_OUT_12,
        *HELD_OUT_13,
        *HELD_OUT_14,
        *HELD_OUT_15,
        *HELD_OUT_16,
        *HELD_OUT_17,
        *HELD_OUT_18,
    ]
