"""Shared CLI plumbing: common options, async bridging, tool loading, output helpers."""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import click

from forethought.execution import eventloop
from forethought.tools.base import ToolSpec
from forethought.tools.loader import open_tools

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK, EXIT_FAILED, EXIT_INVALID, EXIT_PAUSED = 0, 1, 2, 3

QUEUE_HELP = (
    "Prepare the run here (plan, validate, record the approval given) and queue it for "
    "`forethought worker` instead of running it; prints the run id. Needs a shared database (--db postgresql://…)."
)


def tools_option(fn: F) -> F:
    return click.option(
        "--tools",
        "tools_paths",
        multiple=True,
        type=click.Path(dir_okay=False),
        help="A .py module of @tool functions or a .yaml tools file (repeatable).",
    )(fn)


def json_option(fn: F) -> F:
    return click.option(
        "--json", "as_json", is_flag=True, help="Print one machine-readable JSON object on stdout."
    )(fn)


def run_async(factory: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine from a synchronous click command."""
    return eventloop.run(_call(factory))


async def _call(factory: Callable[[], Awaitable[T]]) -> T:
    return await factory()


def load_tool_specs(paths: Sequence[str]) -> dict[str, ToolSpec] | None:
    """Specs of the configured tools, or None when none are configured (no tool checks)."""
    if not paths:
        return None

    async def collect() -> dict[str, ToolSpec]:
        async with open_tools(paths) as registry:
            return registry.specs()

    return run_async(collect)


# Indented JSON is for people; json's indenting encoder is pure Python (about 1 s for the summary
# of a 100,000-step run, against 0.05 s compact), so past this size the output stays compact.
INDENT_UP_TO_CHARS = 256 * 1024


def print_json(data: Any) -> None:
    """Every --json output goes through the redactor: secrets never reach a terminal or a pipe."""
    from forethought.oversight.redaction import default_redactor

    clean = default_redactor().redact(data)
    text = json.dumps(clean, ensure_ascii=False, default=str)
    if len(text) <= INDENT_UP_TO_CHARS:
        text = json.dumps(clean, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write(text + "\n")
