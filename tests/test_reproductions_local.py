"""Issue 16's reproductions, on the embedded model as the issue ran them.

The model's plan is whatever it is; each test asserts the honest outcome whatever it planned:
"succeeded" only with the goal's file in place, a pruned plan never called "valid plan",
`plan` and `run --yes` agreeing, a goal no tool can do naming the missing capability (exit 1),
and no invented argument value running unseen. Each CLI run is its own process with a fresh
data directory and plan memory.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from forethought import tool
from forethought.agent import Agent
from forethought.planning.memory import PlanMemory

NOTES = "alpha beta gamma\n"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "notes.txt").write_text(NOTES)
    (root / "src" / "main.py").write_text("print('hi')\n")
    (root / "src" / "util.py").write_text("X = 1\n")
    return root


def cli(tmp_path: Path, ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FORETHOUGHT_MEMORY": str(tmp_path / "memory.sqlite")}
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        env[var] = str(tmp_path / var.lower())
    for var in ("FORETHOUGHT_MODEL", "FORETHOUGHT_PLANNER_MODEL", "FORETHOUGHT_TOOLS", "FORETHOUGHT_DB"):
        env.pop(var, None)
    return subprocess.run(
        [sys.executable, "-m", "forethought", *args],
        cwd=ws,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def status_of(stderr: str) -> str:
    found = re.findall(r"run [0-9a-f]+: (\w+)", stderr)
    assert found, stderr
    return found[-1]


def test_copy_is_never_reported_succeeded_without_the_copy(tmp_path: Path, ws: Path) -> None:
    goal = "copy notes.txt to notes-backup.txt"
    proc = cli(tmp_path, ws, "run", goal, "--yes-all", "--model", "local", "--workspace", str(ws))
    backup = ws / "notes-backup.txt"
    status = status_of(proc.stderr)
    if proc.returncode == 0:
        assert status == "succeeded"
        assert backup.read_text() == NOTES, proc.stderr
    else:
        assert status in ("awaiting_approval", "failed"), proc.stderr
        assert proc.returncode in (1, 3)
        if status == "awaiting_approval":
            assert "plan does not cover the goal" in proc.stderr or "approval" in proc.stderr
            assert not backup.exists()
        # A run that did not achieve its goal teaches plan memory nothing.
        memory = tmp_path / "memory.sqlite"
        assert not memory.exists() or PlanMemory(memory).entries() == []


def test_plan_never_calls_a_pruned_plan_valid(tmp_path: Path, ws: Path) -> None:
    goal = "write hello world to greeting.txt"
    proc = cli(tmp_path, ws, "plan", goal, "--model", "local", "--json")
    data = json.loads(proc.stdout)
    if data["pruned"] or not data["ok"]:
        plain = cli(tmp_path, ws, "plan", goal, "--model", "local")
        assert "valid plan from" not in plain.stderr, plain.stderr
    steps = (data["plan"] or {}).get("steps", [])
    writes = [s for s in steps if s.get("tool") == "write_file" and s["args"].get("path") == "greeting.txt"]
    if not writes:  # a plan that does not write the file is said to miss the goal
        assert data["coverage"] is None or data["coverage"]["covered"] is False
        assert data["coverage"] is None or any(
            "greeting.txt" in m["message"] for m in data["coverage"]["missing"]
        )


def test_plan_and_run_yes_agree_on_list_then_write(tmp_path: Path, ws: Path) -> None:
    goal = "list the files in src and write the list to files.txt"
    planned = json.loads(cli(tmp_path, ws, "plan", goal, "--model", "local", "--json").stdout)
    proc = cli(tmp_path, ws, "run", goal, "--yes", "--model", "local", "--workspace", str(ws))
    status = status_of(proc.stderr)
    # --yes never approves the write: the run cannot have done it, and must not say it did.
    assert status != "succeeded" and proc.returncode != 0, proc.stderr
    assert not (ws / "files.txt").exists()
    if planned["ok"]:
        # `plan` found a plan to show (pruned or not): `run --yes` must not fail on an invalid
        # plan for the same goal; it waits for approval like the planned path does.
        assert status == "awaiting_approval" and proc.returncode == 3, proc.stderr
        assert "invalid plan" not in proc.stderr


@pytest.mark.parametrize(
    ("goal", "line"),
    [
        ("delete notes.txt", 'no tool can delete "notes.txt"'),
        ("send an email to bob@example.com", "no tool can send"),
    ],
)
def test_a_goal_no_tool_can_do_names_the_missing_capability(
    tmp_path: Path, ws: Path, goal: str, line: str
) -> None:
    proc = cli(tmp_path, ws, "run", goal, "--yes-all", "--model", "local", "--workspace", str(ws))
    assert proc.returncode == 1, proc.stderr
    assert line in proc.stderr and "available: " in proc.stderr
    assert "succeeded" not in proc.stderr
    assert (ws / "notes.txt").read_text() == NOTES
    planned = cli(tmp_path, ws, "plan", goal, "--model", "local")
    assert planned.returncode == 1 and line in planned.stderr  # `plan` says the same


ORDERS: list[dict[str, Any]] = []


@tool(effect="mutating")
def place_order(item: str, quantity: int) -> str:
    """Place an order for a quantity of an item."""
    ORDERS.append({"item": item, "quantity": quantity})
    return f"ordered {quantity} {item}"


async def test_no_invented_argument_value_runs_unseen(tmp_path: Path) -> None:
    ORDERS.clear()
    agent = Agent([place_order], model="local", store=tmp_path / "runs.db")
    result = await agent.run("order 5 widgets", approve="all")
    for order in ORDERS:  # whatever ran used the goal's values, not invented ones
        assert "widget" in order["item"].lower() and order["quantity"] == 5, order
    if result.status == "succeeded":
        assert ORDERS, "succeeded without placing the order"
    else:
        assert result.status == "awaiting_approval", result.state.reason
        assert not ORDERS
