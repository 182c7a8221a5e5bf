"""Shared helpers for the planner/model tests: a small file/count/summarize/write tool set."""

from __future__ import annotations

from forethought import ToolSpec, tool


@tool
def read_file(path: str) -> str:
    """Read a text file and return its content."""
    return f"content of {path}"


@tool(effect="mutating", idempotent=True)
def write_file(path: str, content: str) -> str:
    """Write text content to a file; returns the path."""
    return path


@tool
def count_words(text: str) -> int:
    """Count the words in a text."""
    return len(text.split())


@tool
def summarize(text: str) -> str:
    """Summarize a text in one sentence."""
    return text.split(".")[0]


TOOLS = [read_file, write_file, count_words, summarize]


def bench_like_specs() -> dict[str, ToolSpec]:
    return {t.spec.name: t.spec for t in TOOLS}
