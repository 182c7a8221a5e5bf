"""`forethought --help` lists the commands from their summaries, without importing them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import click
import pytest

import forethought
from forethought.interfaces.cli import main as cli_main

SRC = str(Path(forethought.__file__).resolve().parents[1])


@pytest.mark.parametrize("name", sorted(cli_main.COMMANDS))
def test_each_summary_is_the_commands_own_short_help(name: str) -> None:
    command = cli_main.cli.get_command(click.Context(cli_main.cli), name)
    assert command is not None
    summary = click.Command(name, help=cli_main.SUMMARIES[name])
    for limit in (30, 45, 80, 10_000):  # as click shortens it for the terminal's width
        assert summary.get_short_help_str(limit) == command.get_short_help_str(limit)


def test_a_command_without_a_summary_is_listed_from_its_own_help(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("extra_cmd_module")
    module.__dict__["extra"] = click.Command("extra", help="An extra command. More about it.")
    monkeypatch.setitem(sys.modules, "extra_cmd_module", module)
    monkeypatch.setattr(cli_main, "COMMANDS", {**cli_main.COMMANDS, "extra": "extra_cmd_module:extra"})
    text = cli_main.cli.get_help(click.Context(cli_main.cli, info_name="forethought"))
    assert "extra    An extra command." in text
    assert "exec     Execute PLAN_FILE with the given tools" in text


_HELP_MODULES = textwrap.dedent("""
    import json, runpy, sys
    sys.argv = ["forethought", "--help"]
    try:
        runpy.run_module("forethought", run_name="__main__")
    except SystemExit:
        pass
    print(json.dumps(sorted(m for m in sys.modules if m.startswith("forethought.interfaces"))))
""")


def test_help_imports_no_command_module() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _HELP_MODULES],
        env={**os.environ, "PYTHONPATH": SRC},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "exec     Execute PLAN_FILE" in proc.stdout, proc.stderr
    loaded = json.loads(proc.stdout.splitlines()[-1])
    commands = {target.split(":")[0] for target in cli_main.COMMANDS.values()}
    assert sorted(commands & set(loaded)) == []
    assert "forethought.interfaces.cli.main" in loaded
