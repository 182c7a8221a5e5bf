"""Fault injection (``tools/faults.py``): each kind, each trigger, seeded reproducibility, and the
effect of an injected fault on a real run through the ``Agent``."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from forethought.agent import Agent
from forethought.errors import ToolError, ToolTimeout, UserError
from forethought.plan.model import Plan, RetryPolicy, Step
from forethought.tools.base import ToolContext, ToolRegistry
from forethought.tools.faults import FaultSpec, FaultyTool, FiredFault, inject_faults, parse_fault
from forethought.tools.python import tool

CTX = ToolContext()


def _registry(calls: list[str]) -> ToolRegistry:
    @tool
    def echo(text: str) -> dict[str, str]:
        """Echo the text back."""
        calls.append(text)
        return {"text": text}

    @tool
    def other(x: int) -> int:
        """Double x."""
        return 2 * x

    return ToolRegistry([echo, other])


async def _call_n(registry: ToolRegistry, name: str, n: int) -> list[str]:
    """Call ``name`` n times; the outcome of each call: ok / the exception class / malformed."""
    outcomes: list[str] = []
    for i in range(n):
        try:
            out = await registry[name].invoke({"text": str(i)} if name == "echo" else {"x": i}, CTX)
            outcomes.append("ok" if isinstance(out, (dict, int)) else f"malformed:{out}")
        except ToolError as exc:
            outcomes.append(type(exc).__name__)
    return outcomes


async def test_a_fault_on_the_kth_call_fires_exactly_there() -> None:
    calls: list[str] = []
    tools, log = inject_faults(_registry(calls), [FaultSpec(tool="echo", kind="fail", on_call=3)])
    outcomes = await _call_n(tools, "echo", 5)
    assert outcomes == ["ok", "ok", "ToolError", "ok", "ok"]
    assert log.fired == [FiredFault("echo", 3, "fail")]
    assert calls == ["0", "1", "3", "4"]  # the failed call never reached the tool
    assert await _call_n(tools, "other", 3) == ["ok", "ok", "ok"]  # other tools are untouched


async def test_each_kind_does_what_it_says() -> None:
    calls: list[str] = []
    faults = [
        FaultSpec(tool="echo", kind="timeout", on_call=1),
        FaultSpec(tool="echo", kind="malformed", on_call=2, output="garbage"),
        FaultSpec(tool="echo", kind="fail", on_call=3, retryable=False),
    ]
    tools, log = inject_faults(_registry(calls), faults)
    with pytest.raises(ToolTimeout, match="injected fault: echo timed out on call 1"):
        await tools["echo"].invoke({"text": "a"}, CTX)
    assert await tools["echo"].invoke({"text": "b"}, CTX) == "garbage"
    assert calls == ["b"]  # a malformed answer comes after the real call (its side effects happen)
    with pytest.raises(ToolError) as info:
        await tools["echo"].invoke({"text": "c"}, CTX)
    assert info.value.retryable is False
    assert [f.kind for f in log.fired] == ["timeout", "malformed", "fail"]


async def test_a_slow_fault_delays_the_call_then_answers() -> None:
    calls: list[str] = []
    tools, _ = inject_faults(_registry(calls), [FaultSpec(tool="echo", kind="slow", delay_s=0.2)])
    started = time.perf_counter()
    assert await tools["echo"].invoke({"text": "x"}, CTX) == {"text": "x"}
    assert time.perf_counter() - started >= 0.2
    # A timeout shorter than the delay trips, as it would for a slow service.
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.05):
            await tools["echo"].invoke({"text": "y"}, CTX)
    assert calls == ["x"]


async def test_probability_faults_are_reproducible_with_a_seed() -> None:
    def fired_calls(seed: int) -> list[int]:
        spec = FaultSpec(tool="echo", kind="fail", probability=0.3, seed=seed)
        return [n for n in range(1, 201) if spec.fires(n)]

    first, again, other = fired_calls(7), fired_calls(7), fired_calls(8)
    assert first == again
    assert first != other
    assert 40 <= len(first) <= 80  # about 30 % of 200 calls
    # The same calls fire through the wrapper, whatever else happened in the process before.
    tools, log = inject_faults(_registry([]), [FaultSpec(tool="echo", kind="fail", probability=0.3, seed=7)])
    outcomes = await _call_n(tools, "echo", 200)
    assert [i + 1 for i, o in enumerate(outcomes) if o != "ok"] == first
    assert [f.call for f in log.fired] == first


async def test_each_wrapped_registry_counts_its_own_calls() -> None:
    """No global state: two injections of the same fault do not share counters."""
    base = _registry([])
    spec = FaultSpec(tool="echo", kind="fail", on_call=1)
    one, log_one = inject_faults(base, [spec])
    two, log_two = inject_faults(base, [spec])
    assert await _call_n(one, "echo", 2) == ["ToolError", "ok"]
    assert await _call_n(two, "echo", 2) == ["ToolError", "ok"]
    assert log_one.calls == {"echo": 2} and log_two.calls == {"echo": 2}
    assert not isinstance(base["echo"], FaultyTool)  # the original registry is untouched
    assert isinstance(one["echo"], FaultyTool) and one["echo"].spec == base["echo"].spec


def test_the_wrapper_forwards_what_the_runtime_asks_of_a_tool() -> None:
    tools, _ = inject_faults(_registry([]), [FaultSpec(tool="echo", kind="fail")])
    assert tools["echo"].runs_in_thread == _registry([])["echo"].runs_in_thread  # type: ignore[attr-defined]


def test_a_fault_for_an_unknown_tool_is_refused() -> None:
    with pytest.raises(UserError, match="fault for unknown tool 'ecoh'; the tools are: echo, other"):
        inject_faults(_registry([]), [FaultSpec(tool="ecoh", kind="fail")])


def test_the_command_line_form_parses_and_bad_forms_say_why() -> None:
    spec = parse_fault("tool=run_tests,kind=fail,on_call=2")
    assert (spec.tool, spec.kind, spec.on_call) == ("run_tests", "fail", 2)
    spec = parse_fault("tool=x, kind=slow, probability=0.5, seed=3, delay_s=0.1")
    assert (spec.probability, spec.seed, spec.delay_s) == (0.5, 3, 0.1)
    bad = {
        "tool=x,kind=explode": "kind: Input should be 'fail', 'timeout', 'malformed' or 'slow'",
        "tool=x,kind=fail,on_call=0": "on_call: Input should be greater than or equal to 1",
        "tool=x,kind=fail,on_call=1,probability=0.5": "give on_call or probability, not both",
        "tool=x,kind": "'kind' is not key=value",
        "kind=fail": "tool: Field required",
        "tool=x,kind=fail,when=2": "when: Extra inputs are not permitted",
    }
    for text, message in bad.items():
        with pytest.raises(UserError) as info:
            parse_fault(text)
        assert message in str(info.value), str(info.value)
        assert "\n" not in str(info.value) and str(info.value).startswith(f"--fault {text!r}")


async def test_an_injected_fault_is_recorded_by_a_real_run_and_retried(tmp_path: Any) -> None:
    """Through the Agent and a SQLite store: the fault is the step's recorded failure (class
    ``timeout``), the retry succeeds, and the run's record says so."""
    calls: list[str] = []
    tools, log = inject_faults(_registry(calls), [FaultSpec(tool="echo", kind="timeout", on_call=1)])
    plan = Plan(
        goal="echo once",
        steps=(Step(id="e", tool="echo", args={"text": "hi"}, retry=RetryPolicy(attempts=2, backoff_s=0)),),
    )
    agent = Agent(tools, store=str(tmp_path / "runs.db"))
    try:
        result = await agent.run(plan, approve="all")
        events = agent.store.events(result.run_id)
    finally:
        agent.store.close()
    assert result.status == "succeeded"
    failed = [e for e in events if e.kind == "step_failed"]
    assert [(e.attempt, e.failure_class, e.final) for e in failed] == [(1, "timeout", False)]
    assert "injected fault: echo timed out on call 1" in failed[0].error
    assert calls == ["hi"] and log.fired == [FiredFault("echo", 1, "timeout")]


async def test_a_slow_fault_trips_the_steps_timeout_in_a_real_run(tmp_path: Any) -> None:
    tools, log = inject_faults(_registry([]), [FaultSpec(tool="echo", kind="slow", delay_s=5)])
    plan = Plan(goal="echo", steps=(Step(id="e", tool="echo", args={"text": "hi"}, timeout_s=0.1),))
    agent = Agent(tools, store=str(tmp_path / "runs.db"))
    try:
        started = time.perf_counter()
        result = await agent.run(plan, approve="all")
        elapsed = time.perf_counter() - started
        events = agent.store.events(result.run_id)
    finally:
        agent.store.close()
    assert result.status == "failed"
    assert [e.failure_class for e in events if e.kind == "step_failed"] == ["timeout"]
    assert elapsed < 5  # the timeout cut the slow call short
    assert log.fired == [FiredFault("echo", 1, "slow")]
