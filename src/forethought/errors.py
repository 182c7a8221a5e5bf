"""Exceptions in two families under ``ForethoughtError``.

- ``UserError``: misuse or bad input (a malformed plan file, an unknown run id). The CLI prints the
  message as one line and exits 2; no traceback. Messages name the file/step/field and the fix.
- ``RunError``: something failed while running (a tool, a model, the store). Recorded as events.
"""

from __future__ import annotations


class ForethoughtError(Exception):
    """Base of every exception forethought raises on purpose."""


class UserError(ForethoughtError):
    """Bad input or misuse; the message is a complete one-line explanation with the fix."""

    exit_code = 2


class GoalNotPossible(UserError):
    """No available tool can do what the goal asks; the message names the missing capability."""

    exit_code = 1


class RunError(ForethoughtError):
    """A failure during a run."""


class ToolError(RunError):
    """A tool call failed. ``retryable`` is the tool's own opinion (e.g. HTTP 503 yes, 404 no)."""

    def __init__(self, message: str, *, retryable: bool = True) -> None:
        super().__init__(message)
        self.retryable = retryable


class ToolTimeout(ToolError):
    """A tool call overran its timeout and was cancelled (its process group killed)."""


class ModelError(RunError):
    """A model provider failed (unreachable, rate limited, malformed output)."""


class StoreError(RunError):
    """The run store failed (locked past the busy timeout, corrupted, migrated by a newer version)."""
