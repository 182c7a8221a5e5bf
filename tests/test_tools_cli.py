"""`forethought tools`: every configured tool with source, effect, timeout and schemas."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from click.testing import CliRunner

from forethought.errors import UserError
from forethought.interfaces.cli.tools_cmd import tools

FIXTURES = Path(__file__).parent / "fixtures"
GANTZ = FIXTURES / "tools" / "gantz.yaml"
PY_TOOLS = FIXTURES / "plans" / "tools.py"


def test_json_listing_of_yaml_and_python_tools(tmp_path: Path) -> None:
    py_tools = tmp_path / "more_tools.py"
    py_tools.write_text(
        "from forethought import tool\n\n@tool(timeout_s=5)\n"
        'def shout(text: str) -> str:\n    """Upper-case text."""\n    return text.upper()\n'
    )
    result = CliRunner().invoke(
        tools, ["--tools", str(GANTZ), "--tools", str(py_tools), "--json", "--no-entry-points"]
    )
    assert result.exit_code == 0, result.output
    listed = {t["name"]: t for t in json.loads(result.output)}
    assert {"run_migration", "read_schema", "backup_database"} <= set(listed)
    migration = listed["run_migration"]
    assert migration["source"] == f"yaml:{GANTZ}"
    assert migration["effect"] == "mutating"
    assert (migration["idempotent"], migration["timeout_s"]) == (False, 300.0)
    assert migration["input_schema"]["required"] == ["file"]
    assert "stdout" in migration["output_schema"]["properties"]
    assert len(migration["definition_hash"]) == 64
    shout = listed["shout"]
    assert (shout["source"], shout["effect"], shout["timeout_s"]) == (f"python:{py_tools}", "read_only", 5.0)
    assert shout["description"] == "Upper-case text."


def test_duplicate_names_across_sources_are_a_user_error() -> None:
    result = CliRunner().invoke(tools, ["--tools", str(GANTZ), "--tools", str(PY_TOOLS)])
    assert isinstance(result.exception, UserError)
    assert "'read_schema' is defined twice" in str(result.exception)


def test_text_listing(tmp_path: Path) -> None:
    result = CliRunner().invoke(tools, ["--tools", str(GANTZ), "--no-entry-points"])
    assert result.exit_code == 0, result.output
    assert "run_migration  [mutating, timeout 300s]" in result.output
    assert "in:  file: string" in result.output
    assert "out: {exit_code, stdout, stderr, truncated}" in result.output
    builtins = CliRunner().invoke(tools, ["--no-entry-points"])
    assert "text_stats  [read_only, idempotent" in builtins.output  # what `run` would use
    empty = CliRunner().invoke(tools, ["--no-entry-points"], env={"FORETHOUGHT_BUILTINS": "none"})
    assert "no tools configured" in empty.output


def test_mcp_tools_are_listed_with_their_source(tmp_path: Path) -> None:
    server = FIXTURES / "tools" / "mcp_fixture_server.py"
    command = f'["{sys.executable}", "{server}"]'
    (tmp_path / "t.yaml").write_text(f"mcp_servers:\n  - name: fx\n    command: {command}\n")
    result = CliRunner().invoke(tools, ["--tools", str(tmp_path / "t.yaml"), "--json", "--no-entry-points"])
    assert result.exit_code == 0, result.output
    listed = {t["name"]: t for t in json.loads(result.output)}
    assert listed["fx.add"]["effect"] == "read_only"
    assert listed["fx.wipe"]["effect"] == "destructive"
    assert listed["fx.add"]["source"] == f"mcp:fx@{tmp_path / 't.yaml'}"


def test_bad_tools_file_is_a_user_error(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("tools:\n  - name: x\n")
    result = CliRunner().invoke(tools, ["--tools", str(tmp_path / "bad.yaml")])
    assert isinstance(result.exception, UserError)
    assert "tool 'x'" in str(result.exception) and "exactly one of `command`" in str(result.exception)
