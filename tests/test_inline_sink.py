"""Sinks the executor calls inline (``execution._parts.inline_of``): a sink with a synchronous
``deliver_inline`` is called as each event is emitted instead of being awaited from a pump task.
It must see exactly what a pumped sink sees, in the same order, and fail the same way; a sink's
own ``deliver`` (or an async ``deliver_inline``) is no such promise and is pumped as before."""

from __future__ import annotations

import asyncio
from typing import Any

from _executor_helpers import FnTool, registry, sleeper
from forethought import Agent
from forethought.events import kinds as E
from forethought.events.kinds import Event
from forethought.execution.executor import Executor
from forethought.execution.options import ExecutorOptions
from forethought.plan.model import Plan


def fan(n: int) -> Plan:
    steps: list[dict[str, Any]] = [{"id": "root", "tool": "echo", "args": {"v": 0}}]
    steps += [{"id": f"m{i}", "tool": "echo", "args": {"v": "${root}"}} for i in range(n)]
    steps.append({"id": "sink", "tool": "echo", "args": {"v": 1}, "depends_on": [f"m{i}" for i in range(n)]})
    return Plan.model_validate({"goal": "fan", "steps": steps})


class Pumped:
    """An ordinary async sink (awaited from a pump task)."""

    def __init__(self, ignores: frozenset[type[Any]] = frozenset()) -> None:
        self.seen: list[tuple[int, str]] = []
        self.ignores = ignores

    async def __call__(self, event: Event) -> None:
        self.seen.append((event.seq, event.kind))


class Inline(Pumped):
    """The same sink offering ``deliver_inline``: the executor calls that instead."""

    def __init__(self, ignores: frozenset[type[Any]] = frozenset(), fail_on: str = "") -> None:
        super().__init__(ignores)
        self.fail_on = fail_on
        self.awaited = 0

    def deliver_inline(self, event: Event) -> None:
        if event.kind == self.fail_on:
            raise OSError("terminal gone")
        self.seen.append((event.seq, event.kind))

    async def __call__(self, event: Event) -> None:
        self.awaited += 1
        await super().__call__(event)


async def test_an_inline_sink_sees_what_a_pumped_sink_sees_in_order() -> None:
    ignores = frozenset({E.StepReady})
    for opts in ({}, {"max_concurrency": 2}):  # with a limit, step_ready events come too
        pumped, inline, inline_ignoring = Pumped(), Inline(), Inline(ignores)
        pumped_ignoring = Pumped(ignores)
        sinks = [pumped, inline, inline_ignoring, pumped_ignoring]
        ex = Executor(fan(5), registry(FnTool("echo")), ExecutorOptions(sinks=sinks, **opts))
        await asyncio.wait_for(ex.run(), 20)
        assert ex.state.status == "succeeded"
        assert inline.seen == pumped.seen == [(e.seq, e.kind) for e in ex.log]
        assert inline_ignoring.seen == pumped_ignoring.seen
        assert all(kind != "step_ready" for _, kind in inline_ignoring.seen)
        assert inline.awaited == 0  # delivered, never awaited
    assert any(kind == "step_ready" for _, kind in inline.seen)


async def test_an_inline_sink_sees_a_resumed_run_as_a_pumped_one_does() -> None:
    plan = fan(2)
    first = Executor(plan, registry(FnTool("echo")), ExecutorOptions())
    await asyncio.wait_for(first.run(), 20)
    prior = [e for e in first.log if e.kind not in ("run_finished",)][:6]  # stopped midway
    pumped, inline = Pumped(), Inline()
    options = ExecutorOptions(sinks=[pumped, inline])
    again = Executor(plan, registry(FnTool("echo")), options, prior_events=prior)
    await asyncio.wait_for(again.run(), 20)
    assert again.state.status == "succeeded"
    assert inline.seen == pumped.seen and inline.seen[0] == (len(prior), "run_resumed")


async def test_a_failing_inline_sink_stops_the_run_and_hears_no_more() -> None:
    sink = Inline(fail_on="step_started")
    plan = Plan.model_validate({"goal": "g", "steps": [{"id": "s", "tool": "sleep", "args": {"s": 1}}]})
    ex = Executor(plan, registry(sleeper()), ExecutorOptions(sinks=[sink]))
    await asyncio.wait_for(ex.run(), 20)
    assert ex.state.status == "failed" and "terminal gone" in (ex.state.reason or "")
    assert all(kind != "step_started" for _, kind in sink.seen)
    assert "run_finished" not in [kind for _, kind in sink.seen]  # unsubscribed when it failed


async def test_the_agent_replays_its_preamble_to_an_inline_on_event_first() -> None:
    pumped, inline = Pumped(), Inline()
    for sink in (pumped, inline):
        agent = Agent([FnTool("echo")])
        result = await agent.run(fan(3), approve="all", on_event=sink)
        assert result.state.status == "succeeded"
    kinds_pumped = [kind for _, kind in pumped.seen]
    assert [kind for _, kind in inline.seen] == kinds_pumped
    assert kinds_pumped[0] == "run_created" and kinds_pumped[-1] == "run_finished"
    assert inline.awaited == 0


class OwnDeliver(Pumped):
    """A sink with methods of its own named like the protocol: neither is called inline."""

    def __init__(self) -> None:
        super().__init__()
        self.delivered = 0

    def deliver(self, event: Event) -> None:  # e.g. a webhook sink's "send it now"
        self.delivered += 1

    async def deliver_inline(self, event: Event) -> None:  # a coroutine: would never be awaited
        self.delivered += 1


async def test_a_sinks_own_deliver_or_an_async_one_is_not_called_inline() -> None:
    sink, pumped = OwnDeliver(), Pumped()
    ex = Executor(fan(3), registry(FnTool("echo")), ExecutorOptions(sinks=[sink, pumped]))
    await asyncio.wait_for(ex.run(), 20)
    assert ex.state.status == "succeeded"
    assert sink.delivered == 0  # before the name was specific, ``deliver`` was called per event
    assert sink.seen == pumped.seen == [(e.seq, e.kind) for e in ex.log]  # awaited, from a pump
