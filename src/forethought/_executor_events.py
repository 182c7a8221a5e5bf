"""Ordered fan-out of a run's events to any number of subscribers, each at its own pace.

The scheduler appends synchronously (no await on the hot path); each subscriber has its own queue
and wakes on a shared future, so a slow subscriber only lags — it never blocks the scheduler and
never sees events out of order.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from typing import Any

from forethought.events import Event


class EventLog:
    """Events of one execution. ``keep=False`` keeps no history (subscribers see only new ones)."""

    def __init__(self, *, keep: bool = True) -> None:
        self.history: list[Event] | None = [] if keep else None
        self._subs: list[deque[Event]] = []
        self._news: asyncio.Future[None] | None = None
        self._closed = False

    def push(self, event: Any) -> None:
        if self.history is not None:
            self.history.append(event)
        for queue in self._subs:
            queue.append(event)
        self._wake()

    def close(self) -> None:
        """No more events: subscribers finish once they have drained their queues."""
        self._closed = True
        self._wake()

    def _wake(self) -> None:
        news = self._news
        if news is not None:
            self._news = None
            if not news.done():
                news.set_result(None)

    async def stream(self) -> AsyncIterator[Event]:
        """Every event (the kept history first), in order, until the log is closed."""
        queue: deque[Event] = deque(self.history or ())
        self._subs.append(queue)
        try:
            while True:
                while queue:
                    yield queue.popleft()
                if self._closed:
                    return
                if self._news is None:
                    self._news = asyncio.get_running_loop().create_future()
                # shield: a cancelled subscriber must not cancel the future the others wait on
                await asyncio.shield(self._news)
        finally:
            self._subs.remove(queue)
