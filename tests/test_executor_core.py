"""The executor's semantics: outputs and references, failures, retries, policies, hooks, resume."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from _executor_helpers import FnTool, failing, kinds, registry, sleeper
from forethought.errors import ToolError
from forethought.events.kinds import RunFinished, StepStarted
from forethought.events.state import fold
from forethought.execution.executor import ApproveAll, Executor, StopRequest
from forethought.execution.options import ExecutorOptions
from forethought.plan.model import Plan, Step
from forethought.tools.base import ToolContext


def plan_of(*steps: dict[str, Any], rollback: tuple[dict[str, Any], ...] = ()) -> Plan:
    return Plan.model_validate({"goal": "test", "steps": list(steps), "rollback": list(rollback)})


async def run(plan: Plan, tools: dict[str, Any], *, prior_events: Any = (), **kw: Any) -> Executor:
    ex = Executor(plan, tools, ExecutorOptions(**kw), prior_events=prior_events)
    await asyncio.wait_for(ex.run(), timeout=20)
    return ex


def assert_gap_free(ex: Executor) -> None:
    seqs = [e.seq for e in ex.log]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    assert ex.log[-1].kind == "run_finished"


# ------------------------------------------------------------------------------ basics


async def test_typed_references_and_text_interpolation() -> None:
    async def produce(args: dict[str, Any], ctx: ToolContext) -> Any:
        return {"items": [{"path": "/a"}, {"path": "/b"}], "n": 2}

    echo = FnTool("echo", lambda args, ctx: _value(args))
    plan = plan_of(
        {"id": "s1", "tool": "produce"},
        {"id": "s2", "tool": "echo", "args": {"value": "${s1.items[1].path}"}},
        {"id": "s3", "tool": "echo", "args": {"value": "${s1.n}"}},
        {"id": "s4", "tool": "echo", "args": {"value": "n=${s1.n} first=${s1.items[0]}"}},
    )
    ex = await run(plan, registry(FnTool("produce", produce), echo))
    st = ex.state
    assert st.status == "succeeded"
    assert st.steps["s2"].output == "/b"
    assert st.steps["s3"].output == 2  # whole-value reference keeps its type
    assert st.steps["s4"].output == 'n=2 first={"path":"/a"}'
    assert_gap_free(ex)


async def _value(args: dict[str, Any]) -> Any:
    return args["value"]


async def test_output_is_data_never_rescanned_as_template() -> None:
    async def produce(args: dict[str, Any], ctx: ToolContext) -> Any:
        return "${s1}"

    ex = await run(
        plan_of({"id": "s1", "tool": "produce"}, {"id": "s2", "tool": "echo", "args": {"value": "x ${s1}"}}),
        registry(FnTool("produce", produce), FnTool("echo", lambda a, c: _value(a))),
    )
    assert ex.state.steps["s2"].output == "x ${s1}"


async def test_unresolvable_reference_fails_with_class_reference() -> None:
    async def produce(args: dict[str, Any], ctx: ToolContext) -> Any:
        return {"a": 1}

    ex = await run(
        plan_of(
            {"id": "s1", "tool": "produce"}, {"id": "s2", "tool": "echo", "args": {"value": "${s1.missing}"}}
        ),
        registry(FnTool("produce", produce), FnTool("echo")),
    )
    s2 = ex.state.steps["s2"]
    assert s2.status == "failed" and s2.failure_class == "reference"
    assert "missing" in (s2.error or "")
    assert ex.state.status == "failed"


async def test_unserializable_output_fails_clearly_without_retry() -> None:
    async def bad(args: dict[str, Any], ctx: ToolContext) -> Any:
        return object()

    tool = FnTool("bad", bad)
    ex = await run(
        plan_of({"id": "s1", "tool": "bad", "retry": {"attempts": 3, "backoff_s": 0}}), registry(tool)
    )
    s1 = ex.state.steps["s1"]
    assert s1.status == "failed" and "not JSON-serializable" in (s1.error or "")
    assert len(tool.calls) == 1


async def test_outputs_are_normalized_like_the_event_log() -> None:
    async def tup(args: dict[str, Any], ctx: ToolContext) -> Any:
        return {"t": (1, 2)}

    ex = await run(plan_of({"id": "s1", "tool": "tup"}), registry(FnTool("tup", tup)))
    assert ex.state.steps["s1"].output == {"t": [1, 2]}
    assert fold(ex.log).steps["s1"].output == ex.state.steps["s1"].output


# ------------------------------------------------------------------------------ failures, retries


async def test_raising_tool_fails_step_with_reason() -> None:
    ex = await run(
        plan_of({"id": "s1", "tool": "fail", "retry": {"attempts": 1}}), registry(failing(exc=ValueError))
    )
    assert ex.state.steps["s1"].error == "ValueError: boom"
    assert ex.state.status == "failed"


async def test_timeout_fails_step_and_run_does_not_hang() -> None:
    ex = await run(
        plan_of(
            {"id": "s1", "tool": "sleep", "args": {"s": 30}, "timeout_s": 0.05, "retry": {"attempts": 1}}
        ),
        registry(sleeper()),
    )
    s1 = ex.state.steps["s1"]
    assert s1.failure_class == "timeout" and "0.05" in (s1.error or "")


async def test_tool_spec_timeout_is_the_default() -> None:
    ex = await run(
        plan_of({"id": "s1", "tool": "sleep", "args": {"s": 30}, "retry": {"attempts": 1}}),
        registry(sleeper(timeout_s=0.05)),
    )
    assert ex.state.steps["s1"].failure_class == "timeout"


async def test_retries_until_success_with_backoff_events() -> None:
    tool = failing(times=2)
    ex = await run(
        plan_of({"id": "s1", "tool": "fail", "retry": {"attempts": 3, "backoff_s": 0.001}}), registry(tool)
    )
    s1 = ex.state.steps["s1"]
    assert s1.status == "succeeded" and s1.attempts == 3 and s1.output == "ok"
    failed = [e for e in ex.log if e.kind == "step_failed"]
    assert [e.final for e in failed] == [False, False]  # type: ignore[union-attr]
    assert all(e.retry_in_s is not None for e in failed)  # type: ignore[union-attr]
    assert [c[1].attempt for c in tool.calls] == [1, 2, 3]


async def test_non_retryable_tool_error_never_retries() -> None:
    tool = failing(retryable=False)
    ex = await run(
        plan_of({"id": "s1", "tool": "fail", "retry": {"attempts": 5, "backoff_s": 0}}), registry(tool)
    )
    assert len(tool.calls) == 1 and ex.state.steps["s1"].status == "failed"


async def test_retry_on_excludes_timeouts_when_asked() -> None:
    tool = sleeper()
    ex = await run(
        plan_of(
            {
                "id": "s1",
                "tool": "sleep",
                "args": {"s": 5},
                "timeout_s": 0.02,
                "retry": {"attempts": 3, "backoff_s": 0, "retry_on": ["error"]},
            }
        ),
        registry(tool),
    )
    assert len(tool.calls) == 1 and ex.state.steps["s1"].failure_class == "timeout"


async def test_failed_check_is_retried_and_emits_check_failed() -> None:
    count = {"n": 0}

    async def flaky(args: dict[str, Any], ctx: ToolContext) -> Any:
        count["n"] += 1
        return {"exit_code": 0 if count["n"] >= 2 else 1}

    ex = await run(
        plan_of(
            {
                "id": "s1",
                "tool": "run",
                "check": {"exit_code": 0},
                "retry": {"attempts": 2, "backoff_s": 0, "retry_on": ["check"]},
            }
        ),
        registry(FnTool("run", flaky)),
    )
    assert ex.state.steps["s1"].status == "succeeded"
    checks = [e for e in ex.log if e.kind == "check_failed"]
    assert len(checks) == 1 and checks[0].criterion == "exit_code"  # type: ignore[union-attr]


async def test_failed_check_without_retry_fails_with_class_check() -> None:
    ex = await run(
        plan_of({"id": "s1", "tool": "echo", "args": {"value": "nope"}, "check": {"regex": "^ok"}}),
        registry(FnTool("echo")),
    )
    assert ex.state.steps["s1"].failure_class == "check"


# ------------------------------------------------------------------------------ policies


async def test_continue_skips_only_descendants() -> None:
    plan = plan_of(
        {"id": "a", "tool": "fail", "on_failure": "continue", "retry": {"attempts": 1}},
        {"id": "b", "tool": "echo", "depends_on": ["a"]},
        {"id": "c", "tool": "echo", "depends_on": ["b"]},
        {"id": "d", "tool": "echo"},
        {"id": "e", "tool": "echo", "depends_on": ["d"]},
    )
    ex = await run(plan, registry(failing(), FnTool("echo")))
    status = {k: v.status for k, v in ex.state.steps.items()}
    assert status == {"a": "failed", "b": "skipped", "c": "skipped", "d": "succeeded", "e": "succeeded"}
    assert ex.state.status == "failed"


async def test_abort_cancels_running_and_skips_rest() -> None:
    plan = plan_of(
        {"id": "slow", "tool": "sleep", "args": {"s": 30}},
        {"id": "bad", "tool": "fail", "retry": {"attempts": 1}},
        {"id": "after", "tool": "echo", "depends_on": ["bad"]},
        {"id": "after_slow", "tool": "echo", "depends_on": ["slow"]},
    )
    ex = await run(plan, registry(sleeper(), failing(), FnTool("echo")))
    status = {k: v.status for k, v in ex.state.steps.items()}
    assert status == {"slow": "cancelled", "bad": "failed", "after": "skipped", "after_slow": "skipped"}
    assert ex.state.status == "failed" and "bad" in ex.state.reason
    assert_gap_free(ex)


async def test_rollback_compensates_in_reverse_completion_order_and_survives_failure() -> None:
    undone: list[str] = []

    async def undo(args: dict[str, Any], ctx: ToolContext) -> Any:
        if args["what"] == "b":
            raise ToolError("cannot undo b")
        undone.append(args["what"])
        return "undone"

    plan = plan_of(
        {"id": "a", "tool": "echo", "compensate": {"tool": "undo", "args": {"what": "a"}}},
        {
            "id": "b",
            "tool": "echo",
            "depends_on": ["a"],
            "compensate": {"tool": "undo", "args": {"what": "b"}},
        },
        {
            "id": "c",
            "tool": "echo",
            "depends_on": ["b"],
            "compensate": {"tool": "undo", "args": {"what": "${c}"}},
        },
        {"id": "d", "tool": "fail", "depends_on": ["c"], "on_failure": "rollback", "retry": {"attempts": 1}},
        rollback=({"id": "cleanup", "tool": "undo", "args": {"what": "cleanup"}},),
    )
    tools = registry(FnTool("echo"), failing(), FnTool("undo", undo, effect="mutating"))
    ex = await run(plan, tools, gate=ApproveAll())
    assert undone == ["c", "a", "cleanup"]
    comp = [(e.kind, e.step_id) for e in ex.log if e.kind.startswith("compensation")]
    assert ("compensation_failed", "b") in comp
    assert [s for k, s in comp if k == "compensation_started"] == ["c", "b", "a"]
    assert ex.state.steps["cleanup"].status == "succeeded"
    assert ex.state.status == "failed"


async def test_replan_keeps_completed_steps_and_runs_new_version() -> None:
    seen: list[dict[str, Any]] = []

    async def replanner(plan: Plan, state: Any, info: Any) -> Plan:
        seen.append(dict(info))
        return plan_of(
            {"id": "a", "tool": "echo"},
            {"id": "b2", "tool": "echo", "args": {"value": "${a}"}},
        )

    echo = FnTool("echo")
    ex = await run(
        plan_of(
            {"id": "a", "tool": "echo"},
            {
                "id": "b",
                "tool": "fail",
                "depends_on": ["a"],
                "on_failure": "replan",
                "retry": {"attempts": 1},
            },
        ),
        registry(echo, failing()),
        replanner=replanner,
    )
    assert ex.state.status == "succeeded"
    assert seen[0]["step_id"] == "b"
    assert [c[1].step_id for c in echo.calls].count("a") == 1  # never re-run
    assert ex.state.steps["b2"].output == "a"
    revised = [e for e in ex.log if e.kind == "plan_revised"]
    assert len(revised) == 1 and revised[0].new_version == 2  # type: ignore[union-attr]
    assert "b2" in revised[0].diff["added"]  # type: ignore[union-attr]
    assert "b" in ex.state.retired
    assert kinds(ex.log).index("replan_requested") < kinds(ex.log).index("plan_revised")


async def test_replan_bounded_by_max_replans() -> None:
    calls = {"n": 0}

    async def replanner(plan: Plan, state: Any, info: Any) -> Plan:
        calls["n"] += 1
        return plan  # the same failing plan again

    ex = await run(
        plan_of({"id": "b", "tool": "fail", "on_failure": "replan", "retry": {"attempts": 1}}),
        registry(failing()),
        replanner=replanner,
        max_replans=2,
    )
    assert calls["n"] == 2
    assert ex.state.status == "failed" and "max_replans=2" in ex.state.reason


async def test_replan_without_replanner_is_final_with_reason() -> None:
    ex = await run(
        plan_of({"id": "b", "tool": "fail", "on_failure": "replan", "retry": {"attempts": 1}}),
        registry(failing()),
    )
    assert ex.state.status == "failed" and "no replanner" in ex.state.reason


# ------------------------------------------------------------------------------ gate, agents


async def test_side_effects_wait_for_approval() -> None:
    write = FnTool("write", effect="mutating")
    plan = plan_of(
        {"id": "read", "tool": "echo"},
        {"id": "w", "tool": "write", "depends_on": ["read"]},
        {"id": "after", "tool": "echo", "depends_on": ["w"]},
    )
    ex = await run(plan, registry(FnTool("echo"), write))
    assert ex.state.status == "awaiting_approval"
    assert write.calls == []
    assert ex.state.steps["read"].status == "succeeded"
    req = [e for e in ex.log if e.kind == "approval_requested"]
    assert req and req[0].step_ids == ["w"]  # type: ignore[union-attr]
    approved = await run(plan, registry(FnTool("echo"), write), gate=ApproveAll())
    assert approved.state.status == "succeeded" and len(write.calls) == 1


async def test_approval_required_step_is_gated_even_if_read_only() -> None:
    ex = await run(plan_of({"id": "s", "tool": "echo", "approval": "required"}), registry(FnTool("echo")))
    assert ex.state.status == "awaiting_approval"


async def test_agent_step_without_runner_fails_clearly() -> None:
    ex = await run(plan_of({"id": "s", "agent": "summarize"}), {}, gate=ApproveAll())
    assert "no executor model configured" in (ex.state.steps["s"].error or "")


async def test_agent_step_runs_through_injected_runner() -> None:
    async def agent(step: Step, ctx: ToolContext) -> Any:
        return {"did": step.agent, "args": ctx.extra["args"]}

    ex = await run(
        plan_of({"id": "s", "agent": "summarize", "args": {"x": 1}}),
        {},
        gate=ApproveAll(),
        agent_runner=agent,
    )
    assert ex.state.steps["s"].output == {"did": "summarize", "args": {"x": 1}}


# ------------------------------------------------------------------------------ limits


async def test_global_and_per_tool_concurrency_limits() -> None:
    a, b = sleeper("a"), sleeper("b")
    steps = [{"id": f"a{i}", "tool": "a", "args": {"s": 0.01}} for i in range(8)]
    steps += [{"id": f"b{i}", "tool": "b", "args": {"s": 0.01}} for i in range(8)]
    ex = await run(plan_of(*steps), registry(a, b), max_concurrency=3, tool_limits={"a": 1})
    assert ex.state.status == "succeeded"
    assert a.max_active == 1
    assert a.max_active + b.max_active <= 3 and b.max_active >= 2
    assert "step_ready" in kinds(ex.log)  # queued steps announce readiness


# ------------------------------------------------------------------------------ hooks, streams


async def test_supervisor_stop_reason_reaches_run_finished() -> None:
    async def supervisor(event: Any, state: Any) -> StopRequest | None:
        if event.kind == "step_succeeded":
            return StopRequest("paused", "budget: too many steps")
        return None

    plan = plan_of(
        {"id": "a", "tool": "echo"},
        {"id": "slow", "tool": "sleep", "args": {"s": 30}, "depends_on": ["a"]},
        {"id": "x", "tool": "sleep", "args": {"s": 30}},
    )
    ex = await run(plan, registry(FnTool("echo"), sleeper()), supervisor=supervisor)
    assert ex.state.status == "paused" and ex.state.reason == "budget: too many steps"
    finished = ex.log[-1]
    assert isinstance(finished, RunFinished) and finished.reason == "budget: too many steps"
    assert ex.state.steps["x"].status == "cancelled"


async def test_slow_subscriber_and_sink_see_every_event_in_order() -> None:
    got: list[int] = []

    async def slow_sink(event: Any) -> None:
        await asyncio.sleep(0.001)
        got.append(event.seq)

    plan = plan_of(*({"id": f"s{i}", "tool": "echo"} for i in range(20)))
    ex = Executor(plan, registry(FnTool("echo")), ExecutorOptions(sinks=[slow_sink]))
    streamed: list[int] = []

    async def consume() -> None:
        async for event in ex.events():
            streamed.append(event.seq)
            await asyncio.sleep(0)

    consumer = asyncio.create_task(consume())
    await ex.run()
    await asyncio.wait_for(consumer, 5)
    expected = [e.seq for e in ex.log]
    assert got == expected and streamed == expected


async def test_failing_sink_stops_the_run() -> None:
    async def sink(event: Any) -> None:
        if event.kind == "step_started":
            raise OSError("disk full")

    ex = await run(plan_of({"id": "s", "tool": "sleep", "args": {"s": 1}}), registry(sleeper()), sinks=[sink])
    assert ex.state.status == "failed" and "disk full" in ex.state.reason


async def test_external_cancel_pauses_and_records() -> None:
    ex = Executor(plan_of({"id": "s", "tool": "sleep", "args": {"s": 30}}), registry(sleeper()))
    task = asyncio.create_task(ex.run())
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert ex.state.status == "paused"
    assert ex.state.steps["s"].status == "cancelled"
    assert ex.log[-1].kind == "run_finished"


# ------------------------------------------------------------------------------ streaming plans


async def test_streaming_plan_runs_read_only_early_and_gates_until_closed() -> None:
    write = FnTool("write", effect="mutating")
    ex = Executor(
        None, registry(FnTool("echo"), write), ExecutorOptions(gate=ApproveAll()), plan_open=True, goal="g"
    )
    task = asyncio.create_task(ex.run())
    await asyncio.sleep(0)
    ex.extend([Step(id="r", tool="echo")])
    ex.extend([Step(id="w", tool="write", depends_on=["r"])])
    await asyncio.sleep(0.05)
    assert ex.state.steps["r"].status == "succeeded"
    assert write.calls == [] and not task.done()  # not before the plan is closed
    plan = ex.close_plan()
    await asyncio.wait_for(task, 5)
    assert ex.state.status == "succeeded" and len(write.calls) == 1
    assert ex.state.plan_hash == plan.plan_hash()
    assert fold(ex.log).plan_hash == plan.plan_hash()


# ------------------------------------------------------------------------------ resume


async def test_resume_keeps_outputs_reruns_idempotent_with_same_key() -> None:
    echo = FnTool("echo")
    plan = plan_of({"id": "a", "tool": "echo"}, {"id": "b", "tool": "echo", "depends_on": ["a"]})
    first = await run(plan, registry(echo))
    # Simulate a crash while b was running: keep events up to b's step_started.
    cut = next(i for i, e in enumerate(first.log) if isinstance(e, StepStarted) and e.step_id == "b")
    prior = first.log[: cut + 1]
    echo2 = FnTool("echo")
    ex = await run(plan, registry(echo2), prior_events=prior)
    assert ex.state.status == "succeeded"
    assert [c[1].step_id for c in echo2.calls] == ["b"]
    key = prior[-1].idempotency_key  # type: ignore[union-attr]
    assert echo2.calls[0][1].idempotency_key == key and key
    assert ex.log[0].seq == prior[-1].seq + 1 and ex.log[0].kind == "run_resumed"
    assert ex.run_id == first.run_id


async def test_resume_non_idempotent_running_step_needs_review_and_pauses() -> None:
    write = FnTool("write", effect="mutating")
    plan = plan_of({"id": "w", "tool": "write"}, {"id": "after", "tool": "write", "depends_on": ["w"]})
    first = await run(plan, registry(write), gate=ApproveAll())
    cut = next(i for i, e in enumerate(first.log) if e.kind == "step_started")
    ex = await run(
        plan,
        registry(FnTool("write", effect="mutating")),
        prior_events=first.log[: cut + 1],
        gate=ApproveAll(),
    )
    assert ex.state.steps["w"].status == "needs_review"
    assert ex.state.status == "paused"
    assert "step_needs_review" in kinds(ex.log)


async def test_live_state_equals_rebuilt_state() -> None:
    plan = plan_of(
        {"id": "a", "tool": "echo"},
        {"id": "b", "tool": "fail", "on_failure": "continue", "retry": {"attempts": 2, "backoff_s": 0}},
        {"id": "c", "tool": "echo", "depends_on": ["b"]},
    )
    ex = await run(plan, registry(FnTool("echo"), failing()))
    assert fold(ex.log) == ex.state
    # the recorded plan re-hashes to the plan hash (what an approval is bound to)
    assert ex.state.plan_hash == plan.plan_hash()
    assert Plan.model_validate(ex.state.plan).plan_hash() == plan.plan_hash()


async def test_reviewed_step_reruns_on_request() -> None:
    plan = plan_of({"id": "w", "tool": "write"})
    first = await run(plan, registry(FnTool("write", effect="mutating")), gate=ApproveAll())
    cut = next(i for i, e in enumerate(first.log) if e.kind == "step_started")
    paused = await run(
        plan,
        registry(FnTool("write", effect="mutating")),
        prior_events=first.log[: cut + 1],
        gate=ApproveAll(),
    )
    assert paused.state.status == "paused"
    write = FnTool("write", effect="mutating")
    resumed = await run(
        plan, registry(write), prior_events=first.log[: cut + 1] + paused.log, gate=ApproveAll(), rerun=["w"]
    )
    assert resumed.state.status == "succeeded" and len(write.calls) == 1
    assert write.calls[0][1].idempotency_key == first.log[cut].idempotency_key  # type: ignore


async def test_streamed_plan_that_is_invalid_at_close_fails_the_run() -> None:
    ex = Executor(None, registry(FnTool("echo")), plan_open=True, goal="g")
    task = asyncio.create_task(ex.run())
    await asyncio.sleep(0)
    ex.extend([Step(id="a", tool="echo"), Step(id="b", tool="echo", depends_on=["zzz"])])
    await asyncio.sleep(0.02)  # a (read-only) runs while the plan is still open
    ex.close_plan()
    await asyncio.wait_for(task, 5)
    assert ex.state.status == "failed" and "plan is invalid" in ex.state.reason
    assert "zzz" in ex.state.reason
    assert ex.state.steps["a"].status == "succeeded" and ex.state.steps["b"].status == "skipped"


async def test_agent_runner_records_model_calls_into_the_stream() -> None:
    from forethought.events.kinds import ModelCalled

    async def agent(step: Step, ctx: ToolContext) -> Any:
        ctx.extra["record"](
            ModelCalled,
            role="executor",
            model="scripted",
            step_id=step.id,
            input_tokens=12,
            output_tokens=3,
            cost_usd=0.002,
        )
        return "done"

    ex = await run(plan_of({"id": "s", "agent": "do it"}), {}, gate=ApproveAll(), agent_runner=agent)
    assert ex.state.tokens == 15 and ex.state.cost_usd == pytest.approx(0.002)
    assert ex.summary()["tokens"] == 15
    kinds_ = kinds(ex.log)
    assert kinds_.index("step_started") < kinds_.index("model_called") < kinds_.index("step_succeeded")
    assert_gap_free(ex)


async def test_replanner_bug_fails_the_run_with_its_reason() -> None:
    async def replanner(plan: Plan, state: Any, info: Any) -> Plan:
        raise KeyError("oops")

    ex = await run(
        plan_of({"id": "b", "tool": "fail", "on_failure": "replan", "retry": {"attempts": 1}}),
        registry(failing()),
        replanner=replanner,
    )
    assert ex.state.status == "failed" and "replanner failed: KeyError" in ex.state.reason
    assert ex.log[-1].kind == "run_finished"
