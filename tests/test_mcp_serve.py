"""`forethought mcp serve`: forethought as an MCP server, driven by the SDK's own client."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters

from forethought.errors import UserError
from forethought.interfaces.cli.tools_cmd import mcp
from forethought.interfaces.mcp_server import AgentService, build_server, load_service

FIXTURES = Path(__file__).parent / "fixtures" / "tools"
sys.path.insert(0, str(FIXTURES))

from fake_agent_service import FakeService  # noqa: E402


def _stdio(*args: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=list(args), env={"PYTHONPATH": str(FIXTURES)})


async def _exercise(client: Client) -> None:
    listed = {t.name: t for t in (await client.list_tools()).tools}
    assert set(listed) == {"plan", "run", "run_status", "approve"}
    assert listed["plan"].annotations is not None and listed["plan"].annotations.read_only_hint is True
    assert listed["approve"].annotations is not None and listed["approve"].annotations.destructive_hint
    assert listed["approve"].input_schema["required"] == ["run_id", "plan_hash"]

    planned = await client.call_tool("plan", {"goal": "migrate the staging db"})
    assert not planned.is_error
    assert planned.structured_content["plan"]["goal"] == "migrate the staging db"

    started = await client.call_tool("run", {"goal": "migrate the staging db"})
    run = started.structured_content
    assert run["status"] == "awaiting_approval"

    status = await client.call_tool("run_status", {"run_id": run["run_id"]})
    assert status.structured_content["status"] == "awaiting_approval"

    wrong = await client.call_tool("approve", {"run_id": run["run_id"], "plan_hash": "stale"})
    assert wrong.is_error
    assert "does not match the current plan" in wrong.content[0].text  # the UserError text reaches the agent

    approved = await client.call_tool("approve", {"run_id": run["run_id"], "plan_hash": run["plan_hash"]})
    assert approved.structured_content["status"] == "succeeded"

    missing = await client.call_tool("run_status", {"run_id": "nope"})
    assert missing.is_error and "unknown run 'nope'" in missing.content[0].text
    both = await client.call_tool("run", {"goal": "x", "plan": {"goal": "x", "steps": []}})
    assert both.is_error and "exactly one of `goal` or `plan`" in both.content[0].text
    by_plan = await client.call_tool("run", {"plan": {"goal": "from a plan", "steps": []}})
    assert by_plan.structured_content["goal"] == "from a plan"


async def test_cli_mcp_serve_over_stdio_with_the_sdk_client() -> None:
    code = (
        "import sys; from forethought.interfaces.cli.tools_cmd import mcp; "
        "mcp(['serve', '--service', 'fake_agent_service:make'])"
    )
    async with Client(_stdio("-c", code), cache=None) as client:
        await _exercise(client)


async def test_module_entry_point_over_stdio() -> None:
    server = _stdio("-m", "forethought.interfaces.mcp_server", "--service", "fake_agent_service:make")
    async with Client(server, cache=None) as client:
        planned = await client.call_tool("plan", {"goal": "g"})
        assert planned.structured_content["plan_hash"] == "hash-1"


async def test_in_process_server_behaviour() -> None:
    async with Client(build_server(FakeService()), cache=None) as client:
        await _exercise(client)
        empty = await client.call_tool("plan", {"goal": "   "})
        assert empty.is_error and "must not be empty" in empty.content[0].text


def test_load_service_errors() -> None:
    assert isinstance(load_service("fake_agent_service:make"), AgentService)
    for spec, pattern in [
        ("nocolon", "expected `module:attribute`"),
        ("no_such_module_xyz:make", "cannot be loaded"),
        ("fake_agent_service:nope", "cannot be loaded"),
        ("os.path:sep", "is not an AgentService"),
    ]:
        with pytest.raises(UserError, match=pattern):
            load_service(spec)


def test_cli_serve_with_a_bad_service_is_a_user_error() -> None:
    result = CliRunner().invoke(mcp, ["serve", "--service", "no_such_module_xyz:make"])
    assert isinstance(result.exception, UserError)
    assert "cannot be loaded" in str(result.exception)
