"""`--workspace` (and `Agent(workspace=…)`) reaches every tool as `ctx.workspace`: a Python tool
that keeps its files in the workspace finds them whatever the process's current directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forethought import Plan, Step, ToolContext, tool
from forethought.agent import Agent

seen_workspaces: list[Path | None] = []


@tool
def where(ctx: ToolContext) -> str:
    """Say which directory the run works in."""
    seen_workspaces.append(ctx.workspace)
    return str(ctx.workspace)


async def test_the_agents_workspace_is_every_calls_ctx_workspace(tmp_path: Path) -> None:
    seen_workspaces.clear()
    ws = tmp_path / "ws"
    ws.mkdir()
    plan = Plan(goal="g", steps=[Step(id="a", tool="where"), Step(id="b", tool="where", depends_on=["a"])])
    result = await Agent([where], store=tmp_path / "runs.db", workspace=ws).run(plan, approve="all")
    assert result.status == "succeeded"
    assert seen_workspaces == [ws.resolve(), ws.resolve()]


async def test_without_a_workspace_tools_get_none(tmp_path: Path) -> None:
    seen_workspaces.clear()
    plan = Plan(goal="g", steps=[Step(id="a", tool="where")])
    assert (await Agent([where], store=tmp_path / "runs.db").run(plan, approve="all")).status == "succeeded"
    assert seen_workspaces == [None]


def test_the_configured_workspace_reaches_a_tools_module_through_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from forethought.interfaces.cli.main import run

    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var.lower()))
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "stock.json").write_text(json.dumps({"A-1": 7}))
    tools = tmp_path / "shop.py"
    tools.write_text(
        "import json\n"
        "from forethought import ToolContext, tool\n"
        "@tool\n"
        "def units(ctx: ToolContext, sku: str) -> int:\n"
        '    """Units of an item in stock."""\n'
        "    return json.loads((ctx.workspace / 'stock.json').read_text())[sku]\n"
    )
    plan = tmp_path / "plan.json"
    plan.write_text(
        json.dumps({"goal": "units of A-1", "steps": [{"id": "s1", "tool": "units", "args": {"sku": "A-1"}}]})
    )
    monkeypatch.chdir(tmp_path)  # not the workspace: the tool must not depend on the cwd
    monkeypatch.setenv("FORETHOUGHT_WORKSPACE", str(ws))  # `exec` takes it from the config
    monkeypatch.setenv("FORETHOUGHT_WORKSPACE", str(ws))  # `exec` takes it from the config
    code = run(
        [
            "exec",
            str(plan),
            "--tools",
            str(tools),
            "--db",
            str(tmp_path / "r.db"),
            "--yes",
            "--json",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["steps"]["s1"]["output"] == 7
