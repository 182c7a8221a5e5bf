"""Shared CLI plumbing: common options, async bridging, tool loading, output helpers."""

from __future__ import annotations

import gc
import json
import os
import sys
from collections.abc import Awaitable, Callable, Iterator, Sequence
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
    _fix_mmap_threshold()


# glibc's malloc serves a request this large or larger with a mapping of its own, unmapped when
# freed (see ``_fix_mmap_threshold``); 1 MiB is glibc's own starting value times eight.
MMAP_THRESHOLD_BYTES = 1 << 20
_M_MMAP_THRESHOLD = -3  # mallopt's parameter number, from glibc's <malloc.h>


def _fix_mmap_threshold() -> None:
    """In the CLI's own process on glibc, keep large blocks out of the heap: a fixed
    ``M_MMAP_THRESHOLD`` instead of glibc's sliding one.

    glibc starts by mapping each block of 128 KiB or more on its own and unmapping it when it is
    freed; but each time such a block is freed it raises that threshold to the block's size (up
    to 32 MiB), and from then on serves every smaller request from its heap, which it keeps
    resident. A large plan's run frees a few blocks of its size once (SQLite's copies of the
    plan's 31 MB text, which a store must write), so for the rest of the run every table of
    its maps and every large string was carved from the heap, and holes left by the tables'
    growth stayed resident: peak RSS of ``exec`` of 100,000 steps 536-540 MB with the sliding
    threshold, 450 MB with this (``bench/exec_scale/REPORT.md``). Setting it also turns the
    sliding off, which is the point. The library and a program embedding forethought are left
    alone, as for the collector's settings (``settle_heap``).
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, ValueError, AttributeError):
        return  # not glibc: its allocator has no such threshold to fix
    mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)


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

    The youngest generation is collected every ``YOUNG_COLLECTION_EVERY`` net allocations of
    container objects instead of 700 (the two older generations keep their thresholds). A run
    allocates long-lived acyclic data (the plan's models, its record, each step's state) and
    short-lived events that reference counting frees; the collector finds next to nothing: a
    100,000-step ``exec`` made 5,000 young and 18 full collections, 3.6-5.5 CPU s of its ~20,
    to free ~2,400 objects in all (``bench/exec_scale``). Every young collection still examines
    what survives it, and a full collection comes after ten collections of the middle
    generation, so at 700 the growing plan heap was walked whole 16-18 times; at 20,000 once.
    Cyclic garbage waits for up to 20,000 allocations — a few MB at most.
    """
    for model in models:
        prepare = getattr(model, "prepare", None)
        if callable(prepare):
            prepare()
    if _process["owned"]:
        gc.freeze()
        _, middle, old = gc.get_threshold()
        gc.set_threshold(YOUNG_COLLECTION_EVERY, middle, old)


# See ``settle_heap``: the CLI's own process only, never the library's callers.
YOUNG_COLLECTION_EVERY = 20_000


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
# A mapping with more entries than this is encoded a slice at a time (``json_pieces``).
SLICE_ENTRIES = 2048


def print_json(data: Any) -> None:
    """Every --json output goes through the redactor: secrets never reach a terminal or a pipe.

    Large outputs are written in pieces: the summary of a 100,000-step run is ~25 MB of text,
    and one string of it, again with its newline, again encoded for the pipe, was the run's
    memory peak (+60 MB).
    """
    from forethought.oversight.redaction import default_redactor

    clean = default_redactor().redact(data)
    pieces = json_pieces(clean)
    # Only the first INDENT_UP_TO_CHARS are held to decide; the rest goes out as it is encoded
    # (holding every piece first held the whole text: +25 MB at 100,000 steps).
    head: list[str] = []
    size = 0
    for piece in pieces:
        head.append(piece)
        size += len(piece)
        if size > INDENT_UP_TO_CHARS:
            break
    else:
        head = [json.dumps(clean, ensure_ascii=False, indent=2, default=str)]
    for piece in head:
        sys.stdout.write(piece)
    for piece in pieces:
        sys.stdout.write(piece)
    sys.stdout.write("\n")


def json_pieces(value: Any, slice_entries: int = SLICE_ENTRIES) -> Iterator[str]:
    """The text of ``json.dumps(value, ensure_ascii=False, default=str)``, in pieces.

    A mapping with string keys and more than ``slice_entries`` entries is encoded that many
    entries at a time, each slice by the same C encoder (its text is the slice's ``dumps``
    without the braces); one that holds such a mapping is opened to reach it. Anything else is
    one ``dumps``.
    """
    if not (isinstance(value, dict) and value and all(type(k) is str for k in value)) or not (
        len(value) > slice_entries
        or any(isinstance(v, dict) and len(v) > slice_entries for v in value.values())
    ):
        yield _dumps(value)
        return
    yield "{"
    if len(value) > slice_entries:
        items = list(value.items())
        for start in range(0, len(items), slice_entries):
            if start:
                yield ", "
            yield _dumps(dict(items[start : start + slice_entries]))[1:-1]
    else:
        for i, (key, item) in enumerate(value.items()):
            if i:
                yield ", "
            yield _dumps(key) + ": "
            yield from json_pieces(item, slice_entries)
    yield "}"


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)
