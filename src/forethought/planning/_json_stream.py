"""An incremental scanner that finds complete step objects in a JSON document as it streams in.

It does not build a parse tree: it tracks string/escape state and the container stack, notes
where each element of the top-level ``"steps"`` array starts, and hands exactly that substring to
``json.loads`` when the element's closing brace arrives. Whatever the chunking, the same
substrings are produced, so the steps equal those of parsing the whole document at once.
Accepts ``{"steps": [...]}`` (optionally with ``"goal"``) or a bare ``[...]``, with leading prose
or a code fence before the JSON (unconstrained models add those).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from forethought.errors import ModelError


class PlanParseError(ModelError):
    """The streamed answer is not a well-formed plan document."""


@dataclass(frozen=True)
class Found:
    kind: str  # "step" | "goal"
    value: Any


_CLOSER = {"}": "{", "]": "["}


class StepScanner:
    def __init__(self) -> None:
        self._buf: list[str] = []
        self._pos = 0  # absolute index of the next character
        self._text = ""  # everything received (plans are small; kept for the final parse)
        self._stack: list[str] = []
        self._in_string = False
        self._escape = False
        self._string_start = -1
        self._started = False
        self._done = False
        self._doc_start = -1
        self._doc_end = -1
        self._expect_key = False
        self._top_key: str | None = None
        self._steps_depth: int | None = None
        self._item_start = -1

    def feed(self, chunk: str) -> list[Found]:
        found: list[Found] = []
        base = len(self._text)
        self._text += chunk
        for offset, ch in enumerate(chunk):
            i = base + offset
            if self._done:
                break
            if not self._started:
                if ch in "{[":
                    self._started = True
                    self._doc_start = i
                else:
                    continue
            if self._in_string:
                if self._escape:
                    self._escape = False
                elif ch == "\\":
                    self._escape = True
                elif ch == '"':
                    self._in_string = False
                    self._end_string(i, found)
                continue
            if ch == '"':
                self._in_string = True
                self._string_start = i
            elif ch in "{[":
                if ch == "[" and self._steps_depth is None and (
                        (len(self._stack) == 1 and self._stack[0] == "{"
                         and self._top_key == "steps" and not self._expect_key)
                        or not self._stack):
                    self._steps_depth = len(self._stack) + 1
                elif ch == "{" and self._steps_depth is not None \
                        and len(self._stack) == self._steps_depth:
                    self._item_start = i
                self._stack.append(ch)
                self._expect_key = ch == "{"
            elif ch in "}]":
                if not self._stack or self._stack[-1] != _CLOSER[ch]:
                    raise PlanParseError(f"malformed plan JSON: unexpected {ch!r} at {i}")
                self._stack.pop()
                if ch == "}" and self._item_start >= 0 and self._steps_depth is not None \
                        and len(self._stack) == self._steps_depth:
                    found.append(Found("step", self._load(self._item_start, i + 1)))
                    self._item_start = -1
                if ch == "]" and self._steps_depth is not None \
                        and len(self._stack) == self._steps_depth - 1:
                    self._steps_depth = -1  # the steps array is closed; never reopen
                if not self._stack:
                    self._done = True
                    self._doc_end = i + 1
            elif ch == ",":
                if self._stack and self._stack[-1] == "{":
                    self._expect_key = True
            elif ch == ":" and self._stack and self._stack[-1] == "{":
                self._expect_key = False
        return found

    def _end_string(self, end: int, found: list[Found]) -> None:
        if len(self._stack) != 1 or self._stack[0] != "{":
            return
        value = self._load(self._string_start, end + 1)
        if self._expect_key:
            self._top_key = value if isinstance(value, str) else None
        elif self._top_key == "goal" and isinstance(value, str):
            found.append(Found("goal", value))

    def _load(self, start: int, end: int) -> Any:
        try:
            return json.loads(self._text[start:end])
        except (json.JSONDecodeError, RecursionError) as exc:
            raise PlanParseError(f"malformed plan JSON at {start}: {exc}") from None

    def close(self) -> Any:
        """The whole document, parsed; raises PlanParseError if it is missing or truncated."""
        if not self._started:
            raise PlanParseError("the answer contains no JSON plan")
        if not self._done:
            raise PlanParseError("the plan JSON ended early (truncated answer; raise max_tokens)")
        return self._load(self._doc_start, self._doc_end)
