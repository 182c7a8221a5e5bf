"""`forethought exec` validates a plan once: the file loader's check (with file and line) is
handed to the agent as a ``Validated`` receipt, which the agent trusts only for the very plan
object and equal tool specs it was issued for."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from forethought import Agent, Plan, Step, tool
from forethought.interfaces.cli.exec_cmd import exec_command
from forethought.plan import validation
from forethought.plan.validation import check_plan

TOOLS = textwrap.dedent("""
    from forethought import tool

    @tool
    def add(a: int, b: int) -> int:
        "Adds."
        return a + b
""")

PLAN = textwrap.dedent("""
    goal: add twice
    steps:
      - id: s1
        tool: add
        args: {a: 1, b: 2}
      - id: s2
        tool: add
        args: {a: "${s1}", b: 10}
""")


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[Plan]:
    """Every full validation of a plan, by the plan checked."""
    seen: list[Plan] = []
    real = validation._Checker.run

    def spy(self: validation._Checker) -> list[validation.Problem]:
        seen.append(self.plan)
        return real(self)

    monkeypatch.setattr(validation._Checker, "run", spy)
    return seen


def test_exec_validates_the_plan_once(tmp_path: Path, checks: list[Plan]) -> None:
    (tmp_path / "tools.py").write_text(TOOLS)
    (tmp_path / "plan.yaml").write_text(PLAN)
    result = CliRunner().invoke(
        exec_command,
        [str(tmp_path / "plan.yaml"), "--tools", str(tmp_path / "tools.py"), "--json", "--yes-all"],
        standalone_mode=False,
    )
    assert result.exception is None, result.output
    assert json.loads(result.stdout)["steps"]["s2"]["output"] == 13
    assert len(checks) == 1


def test_an_invalid_plan_file_is_still_refused_with_its_line(tmp_path: Path, checks: list[Plan]) -> None:
    (tmp_path / "tools.py").write_text(TOOLS)
    (tmp_path / "plan.yaml").write_text(PLAN.replace("b: 10", "b: ten"))
    result = CliRunner().invoke(
        exec_command,
        [str(tmp_path / "plan.yaml"), "--tools", str(tmp_path / "tools.py"), "--yes-all"],
        standalone_mode=False,
    )
    assert result.exception is not None
    assert "plan.yaml:9" in str(result.exception)
    assert len(checks) == 1


@tool
def add(a: int, b: int) -> int:
    """Adds."""
    return a + b


def _plan(tool_name: str = "add") -> Plan:
    return Plan(goal="add", steps=[Step(id="s1", tool=tool_name, args={"a": 1, "b": 2})])


async def test_the_agent_trusts_a_receipt_for_the_same_plan_and_tools(checks: list[Plan]) -> None:
    agent = Agent([add], record=False)
    plan = _plan()
    problems, receipt = check_plan(plan, agent.specs)
    assert problems == [] and receipt is not None
    result = await agent.run(receipt, approve="all")
    assert result.status == "succeeded"
    assert checks == [plan]  # check_plan's own check; the agent did not check again


async def test_a_receipt_for_other_tools_or_another_plan_is_checked_again(checks: list[Plan]) -> None:
    agent = Agent([add], record=False)
    # Checked without tools, so `nope` was not looked up: the agent must look.
    unchecked_tools = check_plan(_plan("nope"), None)[1]
    assert unchecked_tools is not None
    result = await agent.run(unchecked_tools, approve="all")
    assert result.status == "failed"
    assert any("nope" in str(p) for p in result.problems)
    assert len(checks) == 2
    # An equal plan that is not the object the receipt names.
    receipt = check_plan(_plan(), agent.specs)[1]
    assert receipt is not None
    assert not receipt.holds_for(_plan(), agent.specs)
    assert receipt.holds_for(receipt.plan, dict(agent.specs))
