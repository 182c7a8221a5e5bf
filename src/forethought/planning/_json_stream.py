"""Complete step objects from a JSON plan document while it streams in.

The parsing is pydantic-core's (``from_json(..., allow_partial=True)``): a feed that could make a
step ready (one containing a brace or bracket) re-reads the text received so far and gets back
everything already there, with unfinished strings left out. A partial read cannot say whether
the *last* element of an array is finished (``{"a": 1`` reads the same as ``{"a": 1}``, and ``1``
may still become ``12``), so a step is handed on only once something follows it: the next
element, a later top-level key, or the end of the document. Elements before the last are
complete by construction, so the steps equal those of parsing the whole document at once,
whatever the chunking. The end of the document (which may be followed by a closing code fence)
is found with the standard library's ``JSONDecoder.raw_decode``.

Re-reading makes a stream O(length²): about 0.1 s of CPU over a 200-step (16 kB) plan fed in
4-character chunks, spread over the minutes a model takes to write it, and of the same order as
the per-step admissibility checks ``streaming`` already runs. Accepts ``{"steps": [...]}``
(optionally with ``"goal"``) or a bare ``[...]``, with leading prose or a code fence before the
JSON (unconstrained models add those).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic_core import from_json

from forethought.errors import ModelError


class PlanParseError(ModelError):
    """The streamed answer is not a well-formed plan document."""


@dataclass(frozen=True)
class Found:
    kind: str  # "step" | "goal"
    value: Any
    index: int = -1  # a step's position in the steps array (its id, in the compact shape)


_DECODER = json.JSONDecoder()


class StepScanner:
    """Feed text chunks; get back each step (and the goal) once it is complete."""

    def __init__(self) -> None:
        self._text = ""  # everything received (plans are small; re-read on each feed)
        self._start = -1  # index of the document's first `{` or `[`
        self._done = False
        self._whole: Any = None
        self._steps_sent = 0
        self._steps_closed = False
        self._goal_sent = False

    def feed(self, chunk: str) -> list[Found]:
        if self._done or not chunk:
            return []
        self._text += chunk
        if self._start < 0:
            starts = [i for i in (self._text.find("{"), self._text.find("[")) if i >= 0]
            if not starts:
                return []
            self._start = min(starts)
        closes = "}" in chunk or "]" in chunk
        if closes and self._try_finish():
            return self._found(self._whole, complete=True)
        if not closes and "{" not in chunk:
            return []  # a new step starts with `{`: nothing else can make one ready
        try:
            partial = from_json(self._text[self._start :], allow_partial=True)
        except ValueError as exc:
            raise PlanParseError(f"malformed plan JSON: unexpected input ({exc})") from None
        return self._found(partial, complete=False)

    def _try_finish(self) -> bool:
        """Has the document ended? (Then ``_whole`` holds it.)"""
        try:
            self._whole, _ = _DECODER.raw_decode(self._text, self._start)
        except (json.JSONDecodeError, RecursionError):
            return False  # not complete yet (or malformed: the partial read reports it)
        self._done = True
        return True

    def _found(self, doc: Any, *, complete: bool) -> list[Found]:
        found: list[Found] = []
        steps: Any = doc
        if isinstance(doc, dict):
            goal = doc.get("goal")
            if isinstance(goal, str) and not self._goal_sent:
                self._goal_sent = True  # a string is only present once its closing quote is in
                found.append(Found("goal", goal))
            steps = doc.get("steps")
            keys = list(doc)
            if "steps" in doc and keys.index("steps") < len(keys) - 1:
                self._steps_closed = True  # a later key has started: the array is finished
        if not isinstance(steps, list):
            return found
        ready = len(steps) if complete or self._steps_closed else len(steps) - 1
        for index in range(self._steps_sent, ready):
            if isinstance(steps[index], dict):
                found.append(Found("step", steps[index], index))
        self._steps_sent = max(self._steps_sent, ready)
        return found

    def close(self) -> Any:
        """The whole document, parsed; raises PlanParseError if it is missing or truncated."""
        if self._start < 0:
            raise PlanParseError("the answer contains no JSON plan")
        if not self._done:
            raise PlanParseError("the plan JSON ended early (truncated answer; raise max_tokens)")
        return self._whole
