"""What an attempt ends in, as tagged values instead of ``None | tuple | float``.

An attempt either succeeded, failed for good, or will be retried after a delay; a step either
succeeded or failed. Callers tell them apart by class (``match`` or ``isinstance``), never by
asking whether a value happens to be a tuple or a float. Success carries nothing and happens
once per step on the hot path, so it is one preallocated instance (``SUCCEEDED``); the classes
are frozen with ``__slots__`` so a failure or a retry costs one small allocation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from forethought.events.kinds import FailureClass


@dataclass(frozen=True, slots=True)
class Succeeded:
    """The step (or attempt) succeeded; its output is in the recorded ``step_succeeded``."""


SUCCEEDED: Final = Succeeded()
"""The only ``Succeeded`` the executor creates: the hot path compares by identity."""


@dataclass(frozen=True, slots=True)
class Failed:
    """An attempt failed (already classified; for a step, already recorded as final)."""

    failure_class: FailureClass
    message: str
    retryable: bool


@dataclass(frozen=True, slots=True)
class Retry:
    """An attempt failed and the retry policy allows another one after ``delay_s`` seconds."""

    delay_s: float


Outcome = Succeeded | Failed
"""How a step ended (after all its attempts)."""

AttemptOutcome = Succeeded | Failed | Retry
"""How one attempt ended."""
