"""Steps started by hand (``coro.send(None)`` then ``Resume``) behave exactly like ``await coro``.

The executor's workers start a step's coroutine by hand so that a step which never suspends costs
no task. That is only allowed if nothing a tool can observe differs from a plain ``await``, also
under cancellation: this compares both drivers on the same tool behaviours, cancelled at every
point a tool can be suspended, and requires identical traces and outcomes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from forethought.execution._resume import Resume

Tool = Callable[[list[str]], Coroutine[Any, Any, Any]]


async def returns_at_once(trace: list[str]) -> str:
    trace.append("ran")
    return "value"


async def raises_at_once(trace: list[str]) -> str:
    trace.append("ran")
    raise ValueError("bad")


async def suspends_twice(trace: list[str]) -> str:
    trace.append("a")
    await asyncio.sleep(0)
    trace.append("b")
    await asyncio.sleep(0.001)
    trace.append("c")
    return "value"


async def cleans_up_when_cancelled(trace: list[str]) -> str:
    try:
        trace.append("wait")
        await asyncio.sleep(0.02)
        return "never"
    except asyncio.CancelledError:
        trace.append("cancelled")
        await asyncio.sleep(0)  # cleanup that itself awaits
        trace.append("cleaned")
        raise
    finally:
        trace.append("finally")


async def swallows_cancellation(trace: list[str]) -> str:
    try:
        await asyncio.sleep(0.02)
    except asyncio.CancelledError:
        trace.append("swallowed")
    await asyncio.sleep(0)
    return "carried on"


async def uses_a_timeout(trace: list[str]) -> str:
    try:
        async with asyncio.timeout(0.002):
            await asyncio.sleep(0.02)
    except TimeoutError:
        trace.append("timed out")
    return "after timeout"


TOOLS = [
    returns_at_once,
    raises_at_once,
    suspends_twice,
    cleans_up_when_cancelled,
    swallows_cancellation,
    uses_a_timeout,
]


async def plain(tool: Tool, trace: list[str]) -> Any:
    return await tool(trace)


async def by_hand(tool: Tool, trace: list[str]) -> Any:
    coro = tool(trace)
    try:
        first = coro.send(None)
    except StopIteration as done:
        return done.value
    return await Resume(coro, first)


async def observe(
    driver: Callable[[Tool, list[str]], Coroutine[Any, Any, Any]], tool: Tool, cancel_after: int | None
) -> tuple[list[str], str]:
    trace: list[str] = []
    task = asyncio.ensure_future(driver(tool, trace))
    if cancel_after is not None:
        for _ in range(cancel_after):
            await asyncio.sleep(0)
        task.cancel()
    try:
        result = await asyncio.wait_for(task, 5)
    except asyncio.CancelledError:
        outcome = "cancelled"
    except Exception as exc:
        outcome = f"{type(exc).__name__}: {exc}"
    else:
        outcome = f"returned {result!r}"
    return trace, outcome


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.__name__)
@pytest.mark.parametrize("cancel_after", [None, 0, 1, 2, 3])
def test_hand_driven_equals_await(tool: Tool, cancel_after: int | None) -> None:
    expected = asyncio.run(observe(plain, tool, cancel_after))
    got = asyncio.run(observe(by_hand, tool, cancel_after))
    assert got == expected
