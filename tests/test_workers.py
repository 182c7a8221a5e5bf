"""Workers sharing one PostgreSQL database: the run queue's claims, and the acceptance test —
three worker processes, thirty queued runs with a non-idempotent effect, one worker killed -9
mid-run: every run finishes and every effect happens exactly once (after the review of the
interrupted steps, as for any crashed run)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from _store_support import postgres_url
from forethought.interfaces.cli import main as cli_main
from forethought.runs.store.opening import open_store
from forethought.testing.runs import full_run

REPO = Path(__file__).resolve().parents[1]

TOOLS_PY = """
import os
import time
from pathlib import Path

from forethought import ToolContext, tool

EFFECTS = Path(__file__).with_name("effects.log")


@tool
def prepare(n: int) -> int:
    return n


@tool(effect="mutating", idempotent=False)
def charge(n: int, ctx: ToolContext) -> dict:
    time.sleep(0.2)  # a kill can land before the effect ...
    with EFFECTS.open("a") as fh:
        fh.write(f"{ctx.run_id} {ctx.step_id}\\n")
        fh.flush()
        os.fsync(fh.fileno())
    time.sleep(0.1)  # ... or after it, before its result is recorded
    return {"charged": n}


@tool
def confirm(receipt: dict) -> bool:
    return receipt["charged"] >= 0
"""

PLAN_YAML = """
goal: charge the customer once
steps:
  - id: a
    tool: prepare
    args: {n: 7}
  - id: b
    tool: charge
    args: {n: "${a}"}
  - id: c
    tool: confirm
    args: {receipt: "${b}"}
"""


# -- the queue ------------------------------------------------------------------------------------


def _queued_store(url: str, *run_ids: str) -> object:
    store = open_store(url)
    for run_id in run_ids:
        store.append_many(full_run(run_id, 1)[:3])  # created, proposed, approved
        store.enqueue(run_id)  # type: ignore[union-attr]
    return store


def test_each_queued_run_is_claimed_by_one_worker_oldest_first() -> None:
    store = _queued_store(postgres_url(), "first", "second")
    a = store.claim("host-a:1:x", 30)  # type: ignore[attr-defined]
    b = store.claim("host-b:1:y", 30)  # type: ignore[attr-defined]
    assert (a.run_id, b.run_id) == ("first", "second")
    assert store.claim("host-c:1:z", 30) is None  # type: ignore[attr-defined]
    assert store.get_lease("first").owner == "host-a:1:x"  # type: ignore[attr-defined]


def test_a_silent_workers_run_is_claimed_again_and_it_cannot_settle_it() -> None:
    store = _queued_store(postgres_url(), "r")
    first = store.claim("host-a:1:x", 0.05)  # type: ignore[attr-defined]
    assert first.claims == 1
    time.sleep(0.1)  # past the lease (expiry is the subject here)
    second = store.claim("host-b:1:y", 30)  # type: ignore[attr-defined]
    assert (second.run_id, second.claims) == ("r", 2)
    assert not store.settle("r", "host-a:1:x", "done")  # type: ignore[attr-defined]
    assert store.settle("r", "host-b:1:y", "held", "needs review")  # type: ignore[attr-defined]
    (entry,) = store.queue_entries(["r"])  # type: ignore[attr-defined]
    assert (entry.state, entry.note, entry.worker) == ("held", "needs review", "host-b:1:y")
    assert store.claim("host-c:1:z", 30) is None  # type: ignore[attr-defined]  # held: for a person


def test_submit_and_worker_need_a_shared_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "plan.yaml").write_text(PLAN_YAML)
    (tmp_path / "tools.py").write_text(TOOLS_PY)
    db = str(tmp_path / "runs.db")
    tools = ["--tools", str(tmp_path / "tools.py")]
    code = cli_main.run(["submit", str(tmp_path / "plan.yaml"), *tools, "--db", db, "--yes-all"])
    err = capsys.readouterr().err
    assert code == 2 and "needs a shared run database: pass --db postgresql://" in err
    code = cli_main.run(["worker", "--db", db, "--until-empty"])
    err = capsys.readouterr().err
    assert code == 2 and "workers need a shared run database" in err


def test_run_and_exec_queue_for_workers_like_submit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var.lower()))
    url = postgres_url()
    (tmp_path / "plan.yaml").write_text(PLAN_YAML)
    (tmp_path / "tools.py").write_text(TOOLS_PY)
    tools = ["--tools", str(tmp_path / "tools.py")]
    plan = {
        "steps": [
            {"id": "a", "tool": "prepare", "args": {"n": 7}},
            {"id": "b", "tool": "charge", "args": {"n": "${a}"}},
        ]
    }
    (tmp_path / "replies.json").write_text(json.dumps([json.dumps(plan)]))
    model = f"scripted:{tmp_path / 'replies.json'}"

    assert (
        cli_main.run(["exec", str(tmp_path / "plan.yaml"), *tools, "--db", url, "--yes-all", "--queue"]) == 0
    )
    from_exec = capsys.readouterr().out.strip()
    code = cli_main.run(
        ["run", "charge 7", *tools, "--db", url, "--model", model, "--yes-all", "--queue", "--json"]
    )
    assert code == 0
    queued = json.loads(capsys.readouterr().out)
    assert queued["status"] == "queued"
    # Nothing ran here: both wait in the queue for a worker.
    assert not (tmp_path / "effects.log").exists()
    assert cli_main.run(["runs", "--db", url, "--json"]) == 0
    listed = {r["run_id"]: r["status"] for r in json.loads(capsys.readouterr().out)}
    assert listed == {from_exec: "running", queued["run_id"]: "running"}

    assert cli_main.run(["worker", "--db", url, "--until-empty", "--poll", "0.05"]) == 0
    capsys.readouterr()
    effects = (tmp_path / "effects.log").read_text().splitlines()
    assert sorted(effects) == sorted([f"{from_exec} b", f"{queued['run_id']} b"])
    for run_id in (from_exec, queued["run_id"]):
        assert cli_main.run(["show", run_id, "--db", url, "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["status"] == "succeeded"


def test_queue_without_a_shared_database_is_refused_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "plan.yaml").write_text(PLAN_YAML)
    (tmp_path / "tools.py").write_text(TOOLS_PY)
    tools = ["--tools", str(tmp_path / "tools.py")]
    code = cli_main.run(
        ["exec", str(tmp_path / "plan.yaml"), *tools, "--db", str(tmp_path / "r.db"), "--queue"]
    )
    assert code == 2 and "needs a shared run database: pass --db postgresql://" in capsys.readouterr().err
    assert not (tmp_path / "effects.log").exists()


# -- three worker processes, one killed -9 --------------------------------------------------------


def _worker(url: str, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    argv = [sys.executable, "-m", "forethought", "worker", "--db", url, "--concurrency", "3"]
    argv += ["--poll", "0.1", "--lease-ttl", "3", "--until-empty"]
    return subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=log.open("wb"))


def _wait_for(what: str, check: object, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


async def _submit(url: str, tmp_path: Path, n: int) -> list[str]:
    from forethought.interfaces.config import load_config
    from forethought.interfaces.session import open_agent, tool_setup
    from forethought.plan.files import load_plan

    cfg = load_config({"db": url}, cwd=tmp_path)
    setup = tool_setup(cfg, [str(tmp_path / "tools.py")])
    setup["workspace"] = str(tmp_path)
    ids = []
    async with open_agent(cfg, setup) as agent:
        plan = load_plan(str(tmp_path / "plan.yaml"), agent.specs)
        for _ in range(n):
            result = await agent.run(plan, approve="all", run_config={"setup": setup}, queue=True)
            assert result.state.status == "running", result.state.reason
            ids.append(result.run_id)
    return ids


def test_three_workers_one_killed_every_run_finishes_every_effect_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = postgres_url()
    (tmp_path / "tools.py").write_text(TOOLS_PY)
    (tmp_path / "plan.yaml").write_text(PLAN_YAML)
    effects = tmp_path / "effects.log"
    run_ids = asyncio.run(_submit(url, tmp_path, 30))
    store = open_store(url)
    logs = [tmp_path / f"worker{i}.log" for i in range(3)]
    workers = [_worker(url, log) for log in logs]
    victim = workers[0]
    try:
        # Kill the victim while it is inside a charge (step b running under its lease).
        def victim_is_charging() -> bool:
            for run_id in run_ids:
                lease = store.get_lease(run_id)
                ours = lease is not None and f":{victim.pid}:" in lease.owner
                if ours and any(s.step_id == "b" and s.status == "running" for s in store.steps(run_id)):
                    return True
            return False

        _wait_for("the victim worker to be inside a charge", victim_is_charging, 60)
        victim.send_signal(signal.SIGKILL)
        victim.wait()  # reaped: its pid is gone, so its leases are seen as a dead process's
        for w in workers[1:]:
            assert w.wait(timeout=180) == 0, b"".join(log.read_bytes() for log in logs).decode()
    finally:
        for w in workers:
            if w.poll() is None:
                w.kill()
                w.wait()
    entries = {e.run_id: e for e in store.queue_entries(run_ids)}  # type: ignore[attr-defined]
    # Survivors took over the victim's runs (it drove at most 3 at once), and only those.
    reclaimed = [e.run_id for e in entries.values() if e.claims > 1]
    assert 1 <= len(reclaimed) <= 3, reclaimed
    # The review flow for interrupted non-idempotent steps: a person checks whether the charge
    # happened (here: the effects log) and records that, or retries the step.
    done = set(effects.read_text().split("\n")) if effects.exists() else set()
    reviewed = 0
    for run_id in run_ids:
        steps = {s.step_id: s.status for s in store.steps(run_id)}
        if steps.get("b") != "needs_review":
            continue
        reviewed += 1
        assert entries[run_id].state == "held" and "review b" in entries[run_id].note
        if f"{run_id} b" in done:
            review = ["--mark-succeeded", 'b={"charged": 7}']
        else:
            review = ["--retry", "b", "--yes-all"]
        code = cli_main.run(["resume", run_id, "--db", url, *review])
        assert code == 0, capsys.readouterr().err
    assert reviewed >= 1  # the victim was killed inside a charge
    statuses = {run_id: store.get_run(run_id).status for run_id in run_ids}  # type: ignore[union-attr]
    assert set(statuses.values()) == {"succeeded"}, statuses
    lines = effects.read_text().split()
    charged = [(lines[i], lines[i + 1]) for i in range(0, len(lines), 2)]
    assert sorted(charged) == sorted((run_id, "b") for run_id in run_ids)  # each exactly once
    store.close()
    print(
        json.dumps(
            {"reviewed": reviewed, "claims": {k: v.claims for k, v in entries.items() if v.claims > 1}}
        )
    )
