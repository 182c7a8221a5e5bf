"""The Ray backend on a real local Ray instance (started once for the module, loopback only):
steps run as Ray tasks on Ray's worker processes, per-step resources come from step metadata,
and a killed worker, a timeout and bad options fail with the same classes as local steps."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from forethought import Agent
from forethought.errors import UserError
from forethought.plan.model import Plan, RetryPolicy, Step
from forethought.runs.store.sqlite import SqliteStore
from forethought.tools.loader import open_tools

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install 'forethought[ray]'")

TOOLS_PY = """
import os
import signal
import time
from pathlib import Path

from forethought import ToolContext, tool

HERE = Path(__file__).parent


@tool
def own_pid() -> int:
    return os.getpid()


@tool
def where(i: int) -> dict:
    import ray

    cpus = ray.get_runtime_context().get_assigned_resources().get("CPU")
    return {"i": i, "pid": os.getpid(), "cpus": cpus}


@tool
def die_once(ctx: ToolContext) -> str:
    if ctx.attempt == 1:
        os.kill(os.getpid(), signal.SIGKILL)  # the Ray worker process dies mid-call
    return f"attempt {ctx.attempt}"


@tool
def on_actor(i: int) -> dict:
    import ray

    return {"i": i, "pid": os.getpid(), "actor": ray.get_runtime_context().get_actor_id()}


@tool
def die_on_actor(ctx: ToolContext) -> dict:
    import ray

    actor = ray.get_runtime_context().get_actor_id()
    if ctx.attempt == 1:
        (HERE / "died.txt").write_text(f"{os.getpid()} {actor}")
        os.kill(os.getpid(), signal.SIGKILL)  # the actor's process dies mid-call
    return {"attempt": ctx.attempt, "pid": os.getpid(), "actor": actor}


@tool
def unless_durable(db: str, deps: list, ctx: ToolContext) -> list:
    # What this call depends on that is not in the run database yet (read by this Ray worker
    # through a connection of its own, as the call starts): its own step_started, its
    # dependencies' step_succeeded. Read-only, so idempotent: its own start need not be on disk.
    return _not_durable(db, deps, ctx)


@tool(effect="mutating")
def unless_durable_effect(db: str, deps: list, ctx: ToolContext) -> list:
    # The same for a tool with effects (not idempotent): full write-ahead, its own start too.
    return _not_durable(db, deps, ctx)


def _not_durable(db: str, deps: list, ctx: ToolContext) -> list:
    import json
    import sqlite3

    conn = sqlite3.connect(db, timeout=30)
    try:
        rows = conn.execute(
            "SELECT kind, body FROM events WHERE run_id = ?", (ctx.run_id,)
        ).fetchall()
    finally:
        conn.close()
    seen = {(kind, json.loads(body).get("step_id"), json.loads(body).get("attempt")) for kind, body in rows}
    missing = [] if ("step_started", ctx.step_id, ctx.attempt) in seen else [f"{ctx.step_id} started"]
    done = {step for kind, step, _ in seen if kind == "step_succeeded"}
    missing += [f"{d} succeeded" for d in deps if d not in done]
    time.sleep(0.002 * int(ctx.step_id[-1]))  # finish at different moments: commits interleave
    return missing


@tool
def hang(seconds: float) -> str:
    (HERE / "hang.pid").write_text(str(os.getpid()))
    time.sleep(seconds)
    return "woke"
"""


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[None]:
    # One instance for the module (starting Ray takes seconds); every address on loopback.
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1")
    yield
    ray.shutdown()


# Long enough for the call to be under way when it times out even on a loaded machine (the
# tests check that the process running it is killed; at 2 s a task sometimes had not started).
_HANG_TIMEOUT_S = 5.0


async def _run(tmp_path: Path, plan: Plan) -> Any:
    tools = tmp_path / "ray_tools.py"
    tools.write_text(TOOLS_PY)
    async with open_tools([tools], include_entry_points=False) as registry:
        store = SqliteStore(tmp_path / "runs.db")
        agent = Agent(registry, store=store, backend="ray", max_concurrency=4)
        result = await agent.run(plan, approve="all")
        store.close()
        return result


async def test_steps_run_as_ray_tasks_in_ray_worker_processes(ray_instance: None, tmp_path: Path) -> None:
    plan = Plan(
        goal="where do steps run",
        steps=tuple(Step(id=f"s{i}", tool="where", args={"i": i}) for i in range(4)),
        metadata={"ray": {"default": {"num_cpus": 0.5}, "steps": {"s3": {"num_cpus": 1}}}},
    )
    result = await _run(tmp_path, plan)
    assert result.state.status == "succeeded"
    pids = {result.state.steps[f"s{i}"].output["pid"] for i in range(4)}
    assert os.getpid() not in pids  # not in the driver: on Ray's workers
    outputs = [result.state.steps[f"s{i}"].output for i in range(4)]
    assert [o["i"] for o in outputs] == [0, 1, 2, 3]
    # The plan's metadata.ray reached Ray: the default for s0-s2, s3's own for s3.
    assert [o["cpus"] for o in outputs] == [0.5, 0.5, 0.5, 1.0]


async def test_on_ray_no_step_starts_before_its_start_and_its_dependencies_are_durable(
    ray_instance: None, tmp_path: Path
) -> None:
    # The write-ahead promise on the Ray path: a step's tool, on a Ray worker, reads the run
    # database itself as it starts and finds every dependency's step_succeeded committed, and
    # its own step_started too unless the tool is idempotent (the early-call rule,
    # docs/architecture.md: a resume calls such a step again with the same key). Layers of 6
    # with 1-3 dependencies each, every other step with effects: steps finish close together,
    # so other steps' events keep arriving while each call waits for its commit.
    import random

    rng = random.Random(21)
    db = tmp_path / "runs.db"
    steps: list[Step] = []
    prev: list[str] = []
    for layer in range(5):
        cur = [f"l{layer}s{j}" for j in range(6)]
        for sid in cur:
            deps = sorted(rng.sample(prev, k=rng.randint(1, 3))) if prev else []
            args = {"db": str(db), "deps": deps}
            tool = "unless_durable_effect" if int(sid[-1]) % 2 else "unless_durable"
            steps.append(Step(id=sid, tool=tool, args=args, depends_on=tuple(deps)))
        prev = cur
    plan = Plan(
        goal="write-ahead on ray", steps=tuple(steps), metadata={"ray": {"default": {"num_cpus": 0.1}}}
    )
    for _ in range(2):  # the second run finds the actor pool warm: calls on actors, not tasks
        result = await _run(tmp_path, plan)
        assert result.state.status == "succeeded", result.state.reason
        effects = {s.id for s in steps if s.tool == "unless_durable_effect"}
        missing = {
            sid: [m for m in result.state.steps[sid].output if sid in effects or sid not in m]
            for sid in (s.id for s in steps)
        }
        missing = {sid: m for sid, m in missing.items() if m}
        assert not missing, f"steps started before what they depend on was committed: {missing}"


async def test_on_ray_sync_tools_start_no_worker_threads_in_the_driver(
    ray_instance: None, tmp_path: Path
) -> None:
    # Every call leaves the process on Ray, so the run opens no thread pool for sync tools
    # here: starting 32 threads took 3-6 ms before the first step, and joining them as long
    # at the end (bench/ray_backend). The tool is a sync `def`, which on the local backend
    # does start them (the second run, the control).
    seen: list[str] = []

    async def watch(event: Any) -> None:
        seen.extend(t.name for t in threading.enumerate() if t.name.startswith("forethought-blocking"))

    tools = tmp_path / "ray_tools.py"
    tools.write_text(TOOLS_PY)
    plan = Plan(goal="g", steps=(Step(id="s0", tool="own_pid"),))
    async with open_tools([tools], include_entry_points=False) as registry:
        for backend in ("ray", "local"):
            agent = Agent(registry, record=False, backend=backend, max_concurrency=4)
            result = await agent.run(plan, approve="all", on_event=watch)
            assert result.state.status == "succeeded", result.state.reason
            if backend == "ray":
                assert result.state.steps["s0"].output != os.getpid()
                assert not seen, f"worker threads started for a run on Ray: {sorted(set(seen))}"
    assert seen, "the local backend's run started no worker threads: the check above proves nothing"


async def test_a_run_without_a_store_passes_the_plans_ray_options_too(
    ray_instance: None, tmp_path: Path
) -> None:
    # Without a store no write-ahead wrapper hands the options over; they were dropped (every
    # step asked Ray for a whole CPU, so a layer of fractional steps ran two at a time).
    plan = Plan(
        goal="where do steps run",
        steps=tuple(Step(id=f"s{i}", tool="where", args={"i": i}) for i in range(3)),
        metadata={"ray": {"default": {"num_cpus": 0.25}, "steps": {"s2": {"num_cpus": 0.5}}}},
    )
    tools = tmp_path / "ray_tools.py"
    tools.write_text(TOOLS_PY)
    async with open_tools([tools], include_entry_points=False) as registry:
        result = await Agent(registry, record=False, backend="ray").run(plan, approve="all")
    assert result.state.status == "succeeded", result.state.reason
    assert [result.state.steps[f"s{i}"].output["cpus"] for i in range(3)] == [0.25, 0.25, 0.5]


async def test_a_killed_ray_worker_fails_the_step_as_crashed_and_it_is_retried(
    ray_instance: None, tmp_path: Path
) -> None:
    plan = Plan(
        goal="survive", steps=(Step(id="d", tool="die_once", retry=RetryPolicy(attempts=2, backoff_s=0)),)
    )
    result = await _run(tmp_path, plan)
    assert result.state.status == "succeeded"
    assert result.state.steps["d"].output == "attempt 2"
    failed = [e for e in result_events(tmp_path) if e.kind == "step_failed"]
    assert [(e.failure_class, e.final) for e in failed] == [("crashed", False)]
    assert "Ray worker running the tool died" in failed[0].error


async def test_a_killed_pooled_actor_fails_the_step_as_crashed_and_it_is_retried_on_another(
    ray_instance: None, tmp_path: Path
) -> None:
    from forethought.execution.backends.ray import actor_pool_stats

    half = {"ray": {"default": {"num_cpus": 0.5}}}
    await _warm_pool(tmp_path, half)
    plan = Plan(
        goal="survive",
        steps=(Step(id="d", tool="die_on_actor", retry=RetryPolicy(attempts=2, backoff_s=0)),),
        metadata=half,
    )
    result = await _run(tmp_path, plan)
    assert result.state.status == "succeeded", result.state.reason
    died_pid, died_actor = (tmp_path / "died.txt").read_text().split()
    assert died_actor != "None"  # attempt 1 ran on a pooled actor, not as a task
    out = result.state.steps["d"].output
    assert out["attempt"] == 2 and out["actor"] not in (None, died_actor)  # on another actor
    assert out["pid"] != int(died_pid)
    failed = [e for e in result_events(tmp_path) if e.kind == "step_failed"]
    assert [(e.failure_class, e.final) for e in failed] == [("crashed", False)]
    assert "Ray worker running the tool died" in failed[0].error
    assert "ActorDiedError" in failed[0].error
    assert actor_pool_stats()["busy"] == 0  # the dead actor left the pool; none is stuck busy


async def test_a_timed_out_step_on_a_pooled_actor_is_a_timeout_and_the_actor_is_killed(
    ray_instance: None, tmp_path: Path
) -> None:
    from forethought.execution.backends.ray import actor_pool_stats

    half = {"ray": {"default": {"num_cpus": 0.5}}}
    await _warm_pool(tmp_path, half)
    idle = actor_pool_stats()["idle"]
    plan = Plan(
        goal="wait",
        steps=(Step(id="h", tool="hang", args={"seconds": 60}, timeout_s=_HANG_TIMEOUT_S),),
        metadata=half,
    )
    result = await _run(tmp_path, plan)
    assert result.state.status == "failed"
    failed = [e for e in result_events(tmp_path) if e.kind == "step_failed"]
    assert failed[-1].failure_class == "timeout"
    assert actor_pool_stats() == {"idle": idle - 1, "busy": 0, "starting": 0}  # not put back
    pid = int((tmp_path / "hang.pid").read_text())
    deadline = time.monotonic() + 20
    while _alive(pid):  # ray.kill ends the actor's process; give it time to go
        assert time.monotonic() < deadline, f"the actor {pid} still runs the timed-out call"
        await asyncio.sleep(0.1)


async def _warm_pool(tmp_path: Path, metadata: dict[str, Any]) -> None:
    """Run pairs of steps until two pooled actors for ``metadata``'s CPUs are up and idle (the
    first calls run as tasks while the actors start in the background)."""
    from forethought.execution.backends.ray import actor_pool_stats

    deadline = time.monotonic() + 120
    while actor_pool_stats()["idle"] < 2 or actor_pool_stats()["starting"]:
        assert time.monotonic() < deadline, f"the actor pool did not warm up: {actor_pool_stats()}"
        steps = tuple(Step(id=f"w{i}", tool="on_actor", args={"i": i}) for i in range(2))
        result = await _run(tmp_path, Plan(goal="warm", steps=steps, metadata=metadata))
        assert result.state.status == "succeeded", result.state.reason
    (tmp_path / "runs.db").unlink()  # the tests read the events of their own run only


async def test_a_timed_out_step_is_a_timeout_and_its_ray_worker_is_killed(
    ray_instance: None, tmp_path: Path
) -> None:
    plan = Plan(
        goal="wait", steps=(Step(id="h", tool="hang", args={"seconds": 60}, timeout_s=_HANG_TIMEOUT_S),)
    )
    result = await _run(tmp_path, plan)
    assert result.state.status == "failed"
    failed = [e for e in result_events(tmp_path) if e.kind == "step_failed"]
    assert failed[-1].failure_class == "timeout"
    pid = int((tmp_path / "hang.pid").read_text())
    deadline = time.monotonic() + 20
    while _alive(pid):  # ray.cancel(force=True) kills the worker; give it time to go
        assert time.monotonic() < deadline, f"the Ray worker {pid} still runs the timed-out call"
        await asyncio.sleep(0.1)


async def test_unknown_ray_options_in_metadata_fail_the_step_naming_them(
    ray_instance: None, tmp_path: Path
) -> None:
    plan = Plan(
        goal="x",
        steps=(Step(id="s", tool="where", args={"i": 1}),),
        metadata={"ray": {"steps": {"s": {"cpus": 1}}}},
    )
    result = await _run(tmp_path, plan)
    assert result.state.status == "failed"
    assert "metadata.ray.cpus is not a Ray task option" in (result.state.steps["s"].error or "")


async def test_a_num_cpus_ray_cannot_use_fails_the_step_with_rays_reason(
    ray_instance: None, tmp_path: Path
) -> None:
    plan = Plan(
        goal="x",
        steps=(Step(id="s", tool="where", args={"i": 1}),),
        metadata={"ray": {"default": {"num_cpus": "two"}}},
    )
    result = await _run(tmp_path, plan)
    assert result.state.status == "failed"
    error = result.state.steps["s"].error or ""
    assert "tool 'where' cannot be sent to Ray" in error and "num_cpus" in error, error


def test_without_the_ray_extra_the_backend_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from forethought.execution.backends.ray import RayBackend

    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(UserError, match=r"the ray backend needs Ray: pip install 'forethought\[ray\]'"):
        RayBackend()._ensure_ray()


def test_an_unknown_backend_is_one_line(tmp_path: Path) -> None:
    from forethought.interfaces.config import load_config

    with pytest.raises(UserError, match="--backend: unknown backend 'spark': use local, ray or ray:ADDRESS"):
        load_config({"backend": "spark"}, cwd=tmp_path)


def result_events(tmp_path: Path) -> list[Any]:
    with SqliteStore(tmp_path / "runs.db") as store:
        (run,) = store.list_runs()
        return store.events(run.run_id)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (killed, not yet reaped by its raylet parent) counts as gone.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False
