"""Retries with exponential backoff for transient model failures.

Providers fail in two ways: transiently (rate limit, 5xx, dropped connection) and for good (bad
key, bad request). Only the first kind is retried; the adapter decides which by raising
``TransientModelError``. The final failure is always a one-line ``ModelError`` telling the user
what to do, never a provider SDK traceback.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import TypeVar

from forethought.errors import ModelError

T = TypeVar("T")


class TransientModelError(ModelError):
    """A failure worth retrying. ``retry_after`` is the server's own hint, if it gave one."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


async def with_retries(
    call: Callable[[], Awaitable[T]],
    *,
    attempts: int = 4,
    base_delay_s: float = 0.5,
    max_delay_s: float = 20.0,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> T:
    """Call ``call`` until it succeeds, retrying ``TransientModelError`` with jittered backoff."""
    for attempt in range(1, attempts + 1):
        try:
            return await call()
        except TransientModelError as exc:
            if attempt == attempts:
                raise ModelError(f"{exc} (gave up after {attempts} attempts)") from None
            delay = min(base_delay_s * 2 ** (attempt - 1), max_delay_s)
            if exc.retry_after is not None:
                delay = min(max(delay, exc.retry_after), max_delay_s)
            # Jitter so parallel steps that hit the same rate limit do not retry in lockstep.
            await sleep(delay * (0.5 + random.random() / 2))  # noqa: S311 - not crypto
    raise AssertionError("unreachable")  # pragma: no cover
