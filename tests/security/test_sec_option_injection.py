"""Issue 15 item 7: a parameter value cannot smuggle an option into a command tool.

``command: [git, -C, repo, log, "{{rev}}"]`` with ``rev: "--output=/tmp/PWNED"`` made git write a
file under a read-only approval. A value that would start with ``-`` is now refused, naming the
parameter and the fix, unless the parameter is declared ``allow_options: true``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from forethought.errors import ToolError
from forethought.tools.base import ToolContext
from forethought.tools.yamlfile import load_yaml_tools

SRC = str(Path(__file__).resolve().parents[2] / "src")

TOOLS = """
tools:
  - name: sort_file
    description: sort the lines of a file (the program honours -o/--output FILE)
    effect: read_only
    parameters:
      - {name: file, type: string, required: true}
    command: [sort, -r, "{{file}}"]

  - name: sort_script
    effect: read_only
    parameters:
      - {name: file, type: string, required: true}
    script: sort -r {{file}}

  - name: sort_env
    effect: read_only
    parameters:
      - {name: file, type: string, required: true}
    script: sort -r "$FT_ARG_file" "$1"

  - name: git_log
    effect: read_only
    parameters:
      - {name: rev, type: string, required: true}
    command: [git, -C, repo, log, "{{rev}}"]

  - name: echo_number
    parameters:
      - {name: n, type: integer, required: true}
    command: [printf, "%s", "{{n}}"]

  - name: flags
    parameters:
      - {name: opt, type: string, required: true, allow_options: true}
      - {name: mode, type: string, enum: ["-r", "-n"], required: true}
      - {name: extra, type: string, default: "-f"}
      - {name: n, type: integer, required: true, allow_options: true}
      - {name: where, type: path}
    command: [printf, "%s|", "{{opt}}", "{{mode}}", "{{extra}}", "{{n}}"]

  - name: where
    parameters:
      - {name: where, type: path, required: true}
    command: [printf, "%s", "{{where}}"]
"""


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "tools.yaml").write_text(textwrap.dedent(TOOLS))
    (tmp_path / "data.txt").write_text("b\na\n")
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)
        subprocess.run(
            [
                "git",
                "-C",
                str(tmp_path / "repo"),
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@example.invalid",
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                "x",
            ],
            check=True,
        )
    return tmp_path.resolve()


async def _invoke(workdir: Path, name: str, args: dict[str, Any]) -> Any:
    async with contextlib.AsyncExitStack() as stack:
        tools = {t.spec.name: t for t in await load_yaml_tools(workdir / "tools.yaml", stack)}
        return await tools[name].invoke(args, ToolContext())


def _payloads(target: Path) -> list[str]:
    return [f"--output={target}", f"-o{target}", f"-o {target}", "--help", "-", "--"]


@pytest.mark.parametrize("name", ["sort_file", "sort_script", "sort_env"])
async def test_option_values_are_refused_and_write_nothing(workdir: Path, name: str) -> None:
    target = workdir / "PWNED"
    for value in _payloads(target):
        with pytest.raises(ToolError) as exc:
            await _invoke(workdir, name, {"file": value})
        message = str(exc.value)
        assert "'file'" in message and "allow_options: true" in message and "\n" not in message
        assert not target.exists(), f"{name} wrote a file for {value!r}"
    # An ordinary value still works.
    out = await _invoke(workdir, name, {"file": str(workdir / "data.txt")})
    assert out["stdout"].startswith("b\n") and out["stdout"].endswith("a\n")


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
async def test_git_log_output_option_is_refused(workdir: Path) -> None:
    target = workdir / "PWNED"
    with pytest.raises(ToolError, match="'rev'"):
        await _invoke(workdir, "git_log", {"rev": f"--output={target}"})
    assert not target.exists()
    await _invoke(workdir, "git_log", {"rev": "HEAD"})


async def test_negative_numbers_count_as_options(workdir: Path) -> None:
    # `kill -TERM "{{pid}}"` with pid -1 signals every process the user owns.
    with pytest.raises(ToolError, match="'n'"):
        await _invoke(workdir, "echo_number", {"n": -1})
    assert (await _invoke(workdir, "echo_number", {"n": 7}))["stdout"] == "7"


async def test_declared_options_enums_defaults_and_paths_pass(workdir: Path) -> None:
    out = await _invoke(workdir, "flags", {"opt": "--reverse", "mode": "-n", "n": -3})
    assert out["stdout"] == "--reverse|-n|-f|-3|"
    # A path value is made absolute inside the root, so it can never read as an option.
    out = await _invoke(workdir, "where", {"where": "-rf"})
    assert out["stdout"] == str(workdir / "-rf")


def test_read_only_run_through_the_cli_writes_nothing(workdir: Path) -> None:
    target = workdir / "PWNED"
    (workdir / "plan.yaml").write_text(
        textwrap.dedent(f"""
        goal: sort a file
        steps:
          - id: sorted
            tool: sort_file
            args: {{file: "--output={target}"}}
    """)
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "forethought",
            "exec",
            str(workdir / "plan.yaml"),
            "--tools",
            str(workdir / "tools.yaml"),
            "--db",
            str(workdir / "runs.db"),
            "--yes",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=workdir,
        env={**os.environ, "PYTHONPATH": SRC},
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["steps"]["sorted"]["status"] == "failed"
    assert "allow_options" in summary["steps"]["sorted"]["error"]
    assert not target.exists()
