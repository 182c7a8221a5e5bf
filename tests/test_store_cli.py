"""`runs`, `show`, `resume`, `replay` through the real CLI entry point (exit codes, one-liners)."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import pytest

from _store_support import database, full_run
from forethought.events.state import fold
from forethought.execution.executor import ApproveAll
from forethought.execution.options import ExecutorOptions
from forethought.interfaces.cli import main as cli_main
from forethought.interfaces.cli._runs_format import show_text
from forethought.runs.recording import execute_recorded
from forethought.runs.store.opening import open_store
from forethought.runs.store.sqlite import SqliteStore
from forethought.tools.loader import open_tools

TOOLS_PY = """
from pathlib import Path
from forethought import tool, ToolContext

LOG = Path(__file__).with_name("effects.log")

@tool
def fetch(x: int) -> int:
    return x + 1

@tool(effect="mutating", idempotent=False)
def charge(amount: int, ctx: ToolContext) -> dict:
    with LOG.open("a") as fh:
        fh.write(f"charge {ctx.idempotency_key}\\n")
    return {"charged": amount, "token": "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"}
"""

PLAN: dict[str, Any] = {
    "goal": "bill the customer",
    "steps": [
        {"id": "a", "tool": "fetch", "args": {"x": 1}},
        {"id": "b", "tool": "charge", "args": {"amount": "${a}"}},
        {"id": "c", "tool": "fetch", "args": {"x": "${b.charged}"}},
    ],
}


@pytest.fixture(autouse=True)
def _commands(monkeypatch: pytest.MonkeyPatch) -> None:
    extra = {
        name: f"forethought.interfaces.cli.runs_cmd:{name}_command"
        for name in ("runs", "show", "resume", "replay")
    }
    monkeypatch.setattr(cli_main, "COMMANDS", {**cli_main.COMMANDS, **extra})


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli_main.run(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


db_url = pytest.fixture(params=["sqlite", "postgresql"])(database)


@pytest.fixture
def setup(tmp_path: Path, db_url: str) -> tuple[str, Path]:
    """The run database (an SQLite file, or a PostgreSQL schema) and the tools file."""
    tools = tmp_path / "tools.py"
    tools.write_text(TOOLS_PY)
    return db_url, tools


async def _record(db: str, tools: Path, run_id: str) -> None:
    from forethought.plan.model import Plan

    async with open_tools([tools], include_entry_points=False) as registry:
        store = open_store(db)
        await execute_recorded(
            store, Plan.model_validate(PLAN), registry, ExecutorOptions(gate=ApproveAll()), run_id=run_id
        )
        store.close()


def test_runs_and_show(setup: tuple[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    db, tools = setup
    code, out, _err = cli(capsys, "runs", "--db", str(db))
    assert (code, out.strip()) == (0, "no runs recorded yet")
    asyncio.run(_record(db, tools, "first"))
    asyncio.run(_record(db, tools, "second"))
    code, out, _ = cli(capsys, "runs", "--db", str(db), "--json")
    listed = json.loads(out)
    assert code == 0
    assert [r["run_id"] for r in listed] == ["second", "first"]
    shared = {"worker"} if "://" in db else set()  # a shared database says who holds each run
    assert set(listed[0]) == {"run_id", "status", "goal", "created_at", "modified", *shared}
    assert listed[0]["modified"] is False  # the record verifies (runs.integrity)
    assert listed[0]["status"] == "succeeded"

    code, out, _ = cli(capsys, "show", "first", "--db", str(db))
    assert code == 0
    assert "run first: succeeded" in out
    assert "goal: bill the customer" in out
    assert "v1 " in out and "step_succeeded" in out and "run_finished" in out
    assert "sk-proj-ABCDEF" not in out and "[REDACTED:openai_key]" in out

    code, out, _ = cli(capsys, "show", "fir", "--db", str(db), "--json")  # prefix works
    data = json.loads(out)
    for key in (
        "run_id",
        "status",
        "plan_version",
        "steps",
        "makespan_s",
        "critical_path_s",
        "tokens",
        "cost_usd",
        "events",
        "plan_versions",
    ):
        assert key in data
    assert data["steps"]["c"] == {**data["steps"]["c"], "status": "succeeded", "output": 3}
    assert data["events"][0]["kind"] == "run_created"


def test_show_unknown_run_is_one_line_exit_2(
    setup: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    db, _ = setup
    code, _out, err = cli(capsys, "show", "nope", "--db", str(db))
    assert code == 2
    assert err.count("\n") == 1 and "no run 'nope'" in err and "Traceback" not in err
    code, _, err = cli(capsys, "show", "x", "--db", str(db), "--events", "lots")
    assert code == 2 and "--events" in err


def test_resume_needs_review_then_retry(setup: tuple[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    db, tools = setup
    asyncio.run(_record(db, tools, "full"))
    store = open_store(db)
    events = store.events("full")
    cut = next(i for i, e in enumerate(events) if e.kind == "step_started" and e.step_id == "b")  # type: ignore[union-attr]
    crashed = [e.model_copy(update={"run_id": "crashed"}) for e in events[: cut + 1]]
    store.append_many(crashed)
    store.close()
    log = tools.with_name("effects.log")
    before = log.read_text().count("charge")

    code, out, err = cli(capsys, "resume", "crashed", "--db", str(db), "--tools", str(tools), "--yes-all")
    assert code == 3
    assert "needs review: b" in err and "--mark-succeeded STEP or --retry STEP" in err
    assert log.read_text().count("charge") == before

    code, out, err = cli(
        capsys,
        "resume",
        "crashed",
        "--db",
        str(db),
        "--tools",
        str(tools),
        "--yes-all",
        "--retry",
        "b",
        "--json",
    )
    assert code == 0, err
    assert json.loads(out)["status"] == "succeeded"
    assert log.read_text().count("charge") == before + 1

    code, _, err = cli(capsys, "resume", "crashed", "--db", str(db), "--tools", str(tools))
    assert code == 2 and "already succeeded" in err


def test_resume_while_leased_exits_3(setup: tuple[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    db, tools = setup
    asyncio.run(_record(db, tools, "r"))
    store = open_store(db)
    events = store.events("r")
    store.append_many([e.model_copy(update={"run_id": "busy"}) for e in events[:4]])
    store.acquire_lease("busy", f"{socket.gethostname()}:1:live", ttl_s=60)  # pid 1 is alive
    store.close()
    code, _out, err = cli(capsys, "resume", "busy", "--db", str(db), "--tools", str(tools))
    assert code == 3
    last = err.strip().splitlines()[-1]
    assert last.startswith("forethought: error: run busy is already being resumed by")
    assert "Traceback" not in err


def test_replay_cli(setup: tuple[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    db, tools = setup
    asyncio.run(_record(db, tools, "orig"))
    log = tools.with_name("effects.log")
    charges = log.read_text().count("charge")
    code, out, err = cli(capsys, "replay", "orig", "--db", str(db), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["same_final_state"] is True and data["real_calls"] == 0
    assert data["replayed_calls"] == 3 and data["replay_of"] == "orig"
    assert log.read_text().count("charge") == charges  # zero tool calls

    code, _, err = cli(capsys, "replay", "orig", "--db", str(db), "--from", "b")
    assert code == 2 and "--tools" in err
    code, out, err = cli(
        capsys, "replay", "orig", "--db", str(db), "--from", "b", "--tools", str(tools), "--yes-all"
    )
    assert code == 0, err
    assert "2 real calls, from b" in out
    assert log.read_text().count("charge") == charges + 1
    code, _, err = cli(capsys, "replay", "orig", "--db", str(db), "--from", "zz", "--tools", str(tools))
    assert code == 2 and "no such step" in err


def test_show_text_has_tokens_cost_versions_and_timeline(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "r.db")
    store.append_many(full_run("t", 3, goal="ship it"))
    row = store.get_run("t")
    assert row is not None
    text = show_text(row, fold(store.events("t")), store.plan_versions("t"), store.events("t"), event_limit=5)
    assert "run t: succeeded" in text
    assert "tokens 30 in / 15 out, cost $0.0030" in text
    assert "v1  " in text and "3 steps" in text
    assert "s2               succeeded" in text
    assert "… 11 earlier events" in text  # 16 events, the last 5 shown
    assert text.count("#") == 5


def test_resume_reopens_the_recorded_tools(
    setup: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    db, tools = setup

    async def record() -> None:
        from forethought.plan.model import Plan

        async with open_tools([tools], include_entry_points=False) as registry:
            store = open_store(db)
            await execute_recorded(
                store,
                Plan.model_validate(PLAN),
                registry,
                ExecutorOptions(
                    gate=ApproveAll(),
                    config={"setup": {"tools": [str(tools)], "builtins": [], "workspace": str(tools.parent)}},
                ),
                run_id="full",
            )
            events = store.events("full")
            cut = next(i for i, e in enumerate(events) if e.kind == "step_succeeded")
            store.append_many([e.model_copy(update={"run_id": "half"}) for e in events[: cut + 1]])
            store.close()

    asyncio.run(record())
    code, out, err = cli(capsys, "resume", "half", "--db", str(db), "--yes-all", "--json")
    assert code == 0, err
    assert json.loads(out)["steps"]["c"]["output"] == 3
    code, out, err = cli(capsys, "replay", "full", "--db", str(db), "--from", "c")
    assert code == 0, err  # --from found the recorded tools too
    assert "1 real calls, from c" in out
