"""`forethought exec`: JSON summary shape, exit codes, approval flags."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from click.testing import CliRunner

from forethought.interfaces.cli.exec_cmd import exec_command

TOOLS = textwrap.dedent("""
    from forethought import tool

    @tool
    def add(a: int, b: int) -> int:
        return a + b

    @tool(effect="mutating")
    def write(text: str) -> str:
        return "wrote " + text

    @tool
    def boom() -> int:
        raise ValueError("nope")
""")


def _files(tmp_path: Path, plan: str) -> tuple[str, str]:
    (tmp_path / "tools.py").write_text(TOOLS)
    (tmp_path / "plan.yaml").write_text(textwrap.dedent(plan))
    return str(tmp_path / "plan.yaml"), str(tmp_path / "tools.py")


PLAN = """
    goal: add and write
    steps:
      - id: s1
        tool: add
        args: {a: 1, b: 2}
      - id: s2
        tool: add
        args: {a: "${s1}", b: 10}
      - id: s3
        tool: write
        args: {text: "sum ${s2}"}
"""


def test_exec_json_summary_and_exit_codes(tmp_path: Path) -> None:
    plan, tools = _files(tmp_path, PLAN)
    runner = CliRunner()
    result = runner.invoke(
        exec_command, [plan, "--tools", tools, "--json", "--yes-all"], standalone_mode=False
    )
    assert result.exception is None, result.output
    assert result.return_value == 0
    data = json.loads(result.stdout)
    assert {
        "run_id",
        "status",
        "plan_version",
        "steps",
        "makespan_s",
        "critical_path_s",
        "tokens",
        "cost_usd",
    } <= set(data)
    assert data["status"] == "succeeded" and data["plan_version"] == 1
    s3 = data["steps"]["s3"]
    assert s3["output"] == "wrote sum 13" and s3["attempts"] == 1
    assert {"status", "output", "error", "attempts", "started_at", "ended_at"} <= set(s3)
    assert s3["started_at"] <= s3["ended_at"]


def test_exec_without_approval_exits_3_and_runs_no_side_effects(tmp_path: Path) -> None:
    plan, tools = _files(tmp_path, PLAN)
    # Unattended and unapproved: nothing runs at all.
    result = CliRunner().invoke(exec_command, [plan, "--tools", tools, "--json"], standalone_mode=False)
    assert result.return_value == 3
    data = json.loads(result.stdout)
    assert data["status"] == "awaiting_approval"
    assert all(s["status"] == "pending" for s in data["steps"].values())
    # --yes: the read-only work runs, the side effect waits.
    result = CliRunner().invoke(
        exec_command, [plan, "--tools", tools, "--json", "--yes"], standalone_mode=False
    )
    assert result.return_value == 3
    data = json.loads(result.stdout)
    assert data["status"] == "awaiting_approval"
    assert data["steps"]["s2"]["status"] == "succeeded"
    assert data["steps"]["s3"]["status"] == "ready"


def test_exec_failed_run_exits_1_with_progress_on_stderr(tmp_path: Path) -> None:
    plan, tools = _files(
        tmp_path,
        """
        goal: fail
        steps:
          - id: b
            tool: boom
    """,
    )
    result = CliRunner().invoke(exec_command, [plan, "--tools", tools, "--yes"], standalone_mode=False)
    assert result.return_value == 1
    assert "b failed (error): ValueError: nope" in result.stderr
    assert "failed" in result.stdout


def test_exec_invalid_plan_is_a_user_error(tmp_path: Path) -> None:
    plan, tools = _files(
        tmp_path,
        """
        goal: bad
        steps:
          - id: a
            tool: nosuchtool
    """,
    )
    result = CliRunner().invoke(exec_command, [plan, "--tools", tools], standalone_mode=False)
    from forethought.errors import UserError

    assert isinstance(result.exception, UserError)
    assert "nosuchtool" in str(result.exception)


def test_exec_records_every_event_in_the_run_database(tmp_path: Path) -> None:
    from forethought.events.state import fold
    from forethought.runs.store.sqlite import open_store

    plan, tools = _files(tmp_path, PLAN)
    db = str(tmp_path / "runs.db")
    result = CliRunner().invoke(
        exec_command, [plan, "--tools", tools, "--json", "--yes-all", "--db", db], standalone_mode=False
    )
    assert result.return_value == 0
    data = json.loads(result.stdout)
    with open_store(db) as store:
        events = store.events(data["run_id"])
    state = fold(events)
    assert state.status == "succeeded"
    assert [e.seq for e in events] == list(range(len(events)))
    assert state.steps["s3"].output == data["steps"]["s3"]["output"]
    assert any(e.kind == "plan_approved" for e in events)
