"""The sleep tool of profile_ray.py: it answers when it started and ended on the worker (the
system-wide monotonic clock, the one the driver reads too)."""

from __future__ import annotations

import time

from forethought import tool


@tool
def nap(i: int, seconds: float) -> list[float]:
    t0 = time.monotonic()
    time.sleep(seconds)
    return [float(i), t0, time.monotonic()]
