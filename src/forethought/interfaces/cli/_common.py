"""Shared CLI plumbing: common options, async bridging, tool loading, output helpers."""

from __future__ import annotations

import gc
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
    settle_heap()
    return eventloop.run(_call(factory))


_process: dict[str, bool] = {"owned": False}


def own_process() -> None:
    """Called by the ``forethought`` entry point only: this process is the CLI's to tune."""
    _process["owned"] = True


def settle_heap(*models: Any) -> None:
    """Prepare ``models`` (import their SDKs now), then, in the CLI's own process, freeze what
    the process holds so far.

    Only the entry point's process is tuned (``own_process``): the CLI run in-process by a test
    or another program leaves that program's collector alone, as library code always does.
    Every object alive after start-up (imported modules, the ``openai`` SDK's thousands of
    classes) is moved out of the cyclic collector's view. Without this, the first full
    collection of a run walks that whole heap — measured at 90-200 ms, landing between the
    planner's reply and the first step. Frozen objects are only never *collected*; garbage made
    before the freeze is what this costs, and at start-up there is next to none.
    """
    for model in models:
        prepare = getattr(model, "prepare", None)
        if callable(prepare):
            prepare()
    if _process["owned"]:
        gc.freeze()


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
