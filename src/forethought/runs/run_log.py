"""Standard ``logging`` records for the key moments of a run, derived from its events.

Everything that happens is an event, so the log lines come from the event stream (the agent adds
``log_event`` to every run's sinks) rather than from calls sprinkled through the executor. Logger
``forethought.run``: INFO for a run's start and finish, a replan, an approval wait and a pause;
WARNING for a step failure (retried ones at INFO) and an exceeded budget. Library code never
configures handlers; an application (or ``forethought -v``) does.
"""

from __future__ import annotations

import logging
from typing import Any

from forethought.events.kinds import Event
from forethought.oversight.redaction import redact_text

logger = logging.getLogger("forethought.run")


def _line(event: Event) -> tuple[int, str] | None:
    e: Any = event
    kind = e.kind
    run = e.run_id
    if kind == "run_created":
        return logging.INFO, f"run {run} started: {e.goal}"
    elif kind == "run_finished":
        level = logging.INFO if e.status == "succeeded" else logging.WARNING
        return level, f"run {run} finished: {e.status}" + (f" ({e.reason})" if e.reason else "")
    elif kind == "step_failed":
        if e.final:
            return logging.WARNING, f"run {run} step {e.step_id} failed ({e.failure_class}): {e.error}"
        else:
            return (
                logging.INFO,
                f"run {run} step {e.step_id} attempt {e.attempt} failed, will retry: {e.error}",
            )
    elif kind == "replan_requested":
        after = f" after step {e.step_id}" if e.step_id else ""
        return logging.INFO, f"run {run} replanning{after}: {e.reason}"
    elif kind == "approval_requested":
        return logging.INFO, f"run {run} waiting for approval: {e.reason}"
    elif kind == "run_paused":
        return logging.INFO, f"run {run} paused: {e.reason}"
    elif kind == "execution_started":
        return logging.INFO, f"run {run} executing"
    elif kind == "run_resumed":
        return logging.INFO, f"run {run} resumed" + (f": {e.reason}" if e.reason else "")
    elif kind == "budget_exceeded":
        return (
            logging.WARNING,
            f"run {run} exceeded its {e.budget} budget ({e.used} of {e.limit}): {e.action}",
        )
    return None


def run_logging_enabled() -> bool:
    """Whether an application asked for these records (so a run need not deliver events here)."""
    return logger.isEnabledFor(logging.INFO)


async def log_event(event: Event) -> None:
    """An event sink (``Callable[[Event], Awaitable[None]]``). Never raises: a sink that raised
    would fail the run, and a log line is not worth that."""
    try:
        line = _line(event)
    except Exception:  # an event shape this module does not know yet
        logger.debug("cannot describe event %s", event.kind, exc_info=True)
        return
    if line is not None and logger.isEnabledFor(line[0]):
        # Goals and errors can carry secrets; the log gets what the screen gets.
        logger.log(line[0], "%s", redact_text(line[1]))  # logging reports its own handler errors
