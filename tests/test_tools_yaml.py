"""Loading YAML tools files: the seed's gantz.yaml as given, and one-line errors for every mistake."""

from __future__ import annotations

import contextlib
import os
import shutil
import textwrap
from pathlib import Path

import pytest

from forethought.errors import ToolError, UserError
from forethought.tools.base import ToolContext
from forethought.tools.command import CommandTool
from forethought.tools.loader import open_tools
from forethought.tools.yamlfile import load_yaml_tools

FIXTURES = Path(__file__).parent / "fixtures" / "tools"
CTX = ToolContext()


@pytest.fixture
def fake_db_bin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`psql` and `pg_dump` stand-ins on PATH that show what they were given."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "psql").write_text("#!/bin/sh\nprintf 'psql args=%s|' \"$*\"; cat\n")
    (bindir / "pg_dump").write_text('#!/bin/sh\necho "dump of $*"\n')
    for exe in bindir.iterdir():
        exe.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    return bindir


async def test_seed_gantz_yaml_works_as_given(tmp_path: Path, fake_db_bin: Path) -> None:
    work = tmp_path / "proj"
    work.mkdir()
    shutil.copy(FIXTURES / "gantz.yaml", work / "gantz.yaml")
    async with open_tools([work / "gantz.yaml"], include_entry_points=False) as registry:
        assert sorted(registry) == ["backup_database", "read_schema", "run_migration", "verify_integrity"]
        for name in registry:
            assert registry[name].spec.effect == "mutating"  # a shell can do anything
            assert registry[name].spec.source == f"yaml:{work / 'gantz.yaml'}"
        migration = registry["run_migration"]
        assert isinstance(migration, CommandTool)
        assert migration.script == 'psql mydb < "${FT_ARG_file}"'
        assert migration.spec.input_schema["required"] == ["file"]

        out = await registry["read_schema"].invoke({}, CTX)
        assert out["stdout"] == "dump of --schema-only mydb\n"

        out = await registry["backup_database"].invoke({}, CTX)
        backups = list(work.glob("backup_*.sql"))
        assert len(backups) == 1 and backups[0].read_text() == "dump of mydb\n"

        # `psql mydb < {{file}}` still reads the file named by the value — even a hostile name.
        weird = work / "m; $(touch pwned) `id`.sql"
        weird.write_text("CREATE TABLE t;")
        out = await migration.invoke({"file": weird.name}, CTX)
        assert out["stdout"] == "psql args=mydb|CREATE TABLE t;"
        assert not (work / "pwned").exists()
        with pytest.raises(ToolError, match="cannot open"):
            await migration.invoke({"file": "missing.sql; touch pwned"}, CTX)
        assert not (work / "pwned").exists()
        with pytest.raises(ToolError, match="missing required argument 'file'"):
            await migration.invoke({}, CTX)


async def _load_text(tmp_path: Path, text: str) -> list[object]:
    path = tmp_path / "tools.yaml"
    path.write_text(textwrap.dedent(text))
    async with contextlib.AsyncExitStack() as stack:
        return list(await load_yaml_tools(path, stack))


BAD_FILES = [
    ("tools:\n  - name: x\n    command: [a\n", r":\d+: invalid YAML"),
    ("tools: []\nservers: []\n", r"unknown top-level key\(s\) servers"),
    ("- name: x\n", "must be a mapping with a `tools:` list"),
    (
        "tools:\n  - name: ok\n    command: [true]\n  - name: both\n    command: [a]\n    script: b\n",
        r":4: tool 'both': .*exactly one of `command`",
    ),
    (
        "tools:\n  - name: t\n    descripton: typo\n    command: [true]\n",
        r":2: tool 't': descripton: unknown field",
    ),
    (
        "tools:\n  - name: t\n    script: 'echo {{nope}}'\n",
        r"script line 1: placeholder \{\{nope\}\} names no declared",
    ),
    (
        "tools:\n  - name: t\n    parameters: [{name: f, required: true}]\n"
        "    command: [cat, '--file={{f}}']\n",
        "must be a whole argv element",
    ),
    (
        "tools:\n  - name: t\n    parameters: [{name: f}]\n    command: [cat, '{{f}}']\n",
        "optional parameter 'f' with no default",
    ),
    (
        "tools:\n  - name: t\n    parameters: [{name: f, required: true}]\n    script: 'echo `cat {{f}}`'\n",
        "inside backticks",
    ),
    (
        "tools:\n  - name: t\n    parameters: [{name: n, type: integer}]\n"
        "    script: 'echo $(( {{n}} + 1 ))'\n",
        "arithmetic",
    ),
    (
        "tools:\n  - name: t\n    parameters: [{name: f}]\n    stdin: f\n    command: [cat]\n",
        "must name a parameter declared with `kind: path`",
    ),
    (
        "tools:\n  - name: t\n    parameters: [{name: f}, {name: f}]\n    command: [cat]\n",
        "declared twice: f",
    ),
    (
        "tools:\n  - name: t\n    parameters: [{name: 'bad-name'}]\n    command: [cat]\n",
        "should match pattern",
    ),
    (
        "tools:\n  - name: t\n    parameters: [{name: n, type: integer, default: 'x'}]\n    command: [cat]\n",
        "default must be of type integer",
    ),
    ("tools:\n  - name: t\n    env: [FT_ARG_x]\n    command: [cat]\n", "reserved"),
    ("tools:\n  - name: t\n    command: []\n", "must not be empty"),
    ("tools:\n  - !!python/object/apply:os.system ['touch pwned']\n", "invalid YAML"),
    ("tools:\n  - name: t\n    script: {bash: x}\n", "exactly one key `shell`"),
    (
        "mcp_servers:\n  - name: s\n    command: [a]\n    url: http://x\n",
        r":2: mcp server 's': .*exactly one of",
    ),
    ("mcp_servers:\n  - name: s\n    url: ftp://x\n", "must start with http"),
]


@pytest.mark.parametrize(("text", "pattern"), BAD_FILES)
async def test_mistakes_are_one_line_user_errors(tmp_path: Path, text: str, pattern: str) -> None:
    with pytest.raises(UserError, match=pattern) as info:
        await _load_text(tmp_path, text)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(str(tmp_path / "tools.yaml"))
    assert not (tmp_path / "pwned").exists()


async def test_missing_file_and_mapping_parameters(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="tools file not found"):
        async with contextlib.AsyncExitStack() as stack:
            await load_yaml_tools(tmp_path / "nope.yaml", stack)
    (tool,) = await _load_text(
        tmp_path,
        """
        root: data
        tools:
          - name: t
            effect: read_only
            idempotent: true
            timeout_s: 5
            parameters:
              path: {type: string, kind: path, must_exist: true, description: a file}
              count: integer
              target: path
            command: [echo]
    """,
    )
    assert isinstance(tool, CommandTool)
    assert tool.root == (tmp_path / "data").resolve()
    spec = tool.spec
    assert (spec.effect, spec.idempotent, spec.timeout_s) == ("read_only", True, 5)
    assert spec.input_schema["properties"]["count"]["type"] == "integer"
    assert spec.input_schema["properties"]["path"]["format"] == "path"
    assert spec.input_schema["additionalProperties"] is False
    target = spec.input_schema["properties"]["target"]
    assert target == {"type": "string", "maxLength": 32768, "format": "path"}
    assert set(spec.output_schema["properties"]) == {"exit_code", "stdout", "stderr", "truncated"}


async def test_mcp_servers_without_the_sdk_is_a_clear_user_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "mcp", None)  # makes `import mcp` fail like a missing package
    monkeypatch.delitem(sys.modules, "forethought.tools.mcp", raising=False)
    with pytest.raises(UserError, match="`mcp_servers` needs the MCP SDK"):
        await _load_text(tmp_path, "mcp_servers:\n  - {name: s, command: [x]}\n")
    assert await _load_text(tmp_path, "tools:\n  - {name: t, command: [x]}\n")  # command tools still load


def test_tools_files_read_yaml_like_plans(tmp_path: Path) -> None:
    """One YAML reading everywhere: tags refused, YAML 1.2 scalars, duplicate keys are errors."""
    import asyncio

    async def load(text: str) -> list[object]:
        path = tmp_path / "t.yaml"
        path.write_text(text)
        async with contextlib.AsyncExitStack() as stack:
            return list(await load_yaml_tools(path, stack))

    with pytest.raises(UserError, match=r"tag '!!python/object/apply:os\.system' is not allowed"):
        asyncio.run(load("tools: !!python/object/apply:os.system ['true']\n"))
    with pytest.raises(UserError, match="duplicate mapping key"):
        asyncio.run(load("tools: []\ntools: []\n"))
    tools = asyncio.run(
        load(
            "tools:\n  - name: say\n    command: [echo, '{{word}}']\n"
            "    parameters:\n"
            "      - {name: word, type: string, required: true, enum: [no, yes]}\n"
        )
    )
    enum = tools[0].spec.input_schema["properties"]["word"]["enum"]  # type: ignore[attr-defined]
    assert enum == ["no", "yes"]  # strings, not YAML 1.1 booleans


async def test_loading_command_tools_probes_setpriv_before_any_run(tmp_path: Path) -> None:
    # The probe runs a child process; done on the loop in the first call, it delayed the steps
    # started with it. Loading the tools does it instead (off the loop, once per process).
    from forethought.tools import _proc

    _proc._setpriv.cache_clear()
    tools = await _load_text(
        tmp_path,
        """
        tools:
          - name: hello
            description: says hello
            command: [echo, hello]
        """,
    )
    assert len(tools) == 1
    assert _proc._setpriv.cache_info().currsize == 1
