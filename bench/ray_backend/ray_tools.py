"""The sleep tool the Ray bench ships to Ray's workers by reference (this file's path)."""

from __future__ import annotations

import time

from forethought import tool


@tool
def nap(i: int, seconds: float) -> int:
    time.sleep(seconds)
    return i
