"""`forethought mcp serve` with the real service: another agent delegates a run over MCP, the run
stops for approval of its side effects, and approval bound to the plan hash continues it."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from mcp import Client, StdioServerParameters

FIXTURES = Path(__file__).parent / "fixtures" / "interactive"


async def test_delegated_run_waits_for_approval_then_completes(tmp_path: Path) -> None:
    plan = {
        "steps": [
            {"id": "s1", "tool": "read_config", "args": {"name": "db"}},
            {"id": "s2", "tool": "write_config", "args": {"name": "db", "value": "${s1.value}"}},
        ]
    }
    (tmp_path / "replies.json").write_text(json.dumps([json.dumps(plan)]))
    (tmp_path / "forethought.toml").write_text(
        f'tools = ["{FIXTURES / "tools.py"}"]\nbuiltins = []\ndb = "runs.db"\n'
        'model = "scripted:replies.json"\n'
    )
    effects = tmp_path / "effects.log"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "forethought", "mcp", "serve"],
        cwd=str(tmp_path),
        env={
            "PATH": os.environ.get("PATH", ""),
            "FT_TEST_EFFECTS": str(effects),
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "XDG_DATA_HOME": str(tmp_path / "data"),
        },
    )
    async with Client(params, cache=None) as client:
        planned = await client.call_tool("plan", {"goal": "copy the db setting"})
        assert not planned.is_error, planned.content
        assert [s["tool"] for s in planned.structured_content["plan"]["steps"]] == [
            "read_config",
            "write_config",
        ]

        started = await client.call_tool("run", {"goal": "copy the db setting"})
        run = started.structured_content
        assert run["status"] == "awaiting_approval"
        assert effects.read_text().splitlines() == ["read db"]  # read-only work only

        stale = await client.call_tool("approve", {"run_id": run["run_id"], "plan_hash": "0123456789ab"})
        assert stale.is_error and "the plan changed since it was reviewed" in stale.content[0].text

        done = await client.call_tool("approve", {"run_id": run["run_id"], "plan_hash": run["plan_hash"]})
        assert not done.is_error, done.content
        assert done.structured_content["status"] == "succeeded"
        assert effects.read_text().splitlines() == ["read db", "write db=<db>"]

        status = await client.call_tool("run_status", {"run_id": run["run_id"]})
        assert status.structured_content["status"] == "succeeded"
