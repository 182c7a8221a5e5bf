"""Entry point: a click group whose subcommands are imported only when used.

Lazy loading keeps `forethought lint` fast (no model SDKs imported) and keeps each command in its
own module. `main()` turns user mistakes into one line on stderr and an exit code — never a
traceback (set FORETHOUGHT_DEBUG=1 to see one for an internal error).
"""

from __future__ import annotations

import errno
import importlib
import logging
import os
import sys
import traceback
from typing import Any

import click

from forethought import __version__
from forethought.errors import ModelError, StoreError, UserError
from forethought.interfaces.cli._common import own_process

# name → "module:attribute" of a click command
COMMANDS: dict[str, str] = {
    "lint": "forethought.interfaces.cli.plan_file_cmds:lint",
    "graph": "forethought.interfaces.cli.plan_file_cmds:graph",
    "diff": "forethought.interfaces.cli.plan_file_cmds:diff",
    "schema": "forethought.interfaces.cli.plan_file_cmds:schema",
    "config": "forethought.interfaces.cli.config_cmd:config",
    "run": "forethought.interfaces.cli.run_cmd:run",
    "approve": "forethought.interfaces.cli.run_cmd:approve",
    "plan": "forethought.interfaces.cli.plan_cmd:plan",
    "exec": "forethought.interfaces.cli.exec_cmd:exec_command",
    "tools": "forethought.interfaces.cli.tools_cmd:tools",
    "mcp": "forethought.interfaces.cli.tools_cmd:mcp",
    "runs": "forethought.interfaces.cli.runs_cmd:runs_command",
    "show": "forethought.interfaces.cli.runs_cmd:show_command",
    "resume": "forethought.interfaces.cli.runs_cmd:resume_command",
    "replay": "forethought.interfaces.cli.runs_cmd:replay_command",
    "stats": "forethought.interfaces.cli.stats_cmd:stats_command",
    "eval": "forethought.interfaces.cli.eval_cmd:eval_command",
    "memory": "forethought.interfaces.cli.memory_cmd:memory",
    "submit": "forethought.interfaces.cli.worker_cmd:submit",
    "worker": "forethought.interfaces.cli.worker_cmd:worker",
    "ui": "forethought.interfaces.cli.ui_cmd:ui",
}

# name → the first sentence of the command's help, for the list `forethought --help` prints
# (tests/test_cli_help.py holds them equal to the commands' own).
SUMMARIES: dict[str, str] = {
    "approve": "Approve the current plan of RUN_ID (bound to its hash) and continue the run.",
    "config": "Show the effective configuration (flags > env > forethought.toml > user config > defaults).",
    "diff": "Structural diff of two plan files: steps added, removed, changed field by field.",
    "eval": "Run the golden tasks of SUITE_FILE and check their tolerance bands.",
    "exec": "Execute PLAN_FILE with the given tools (exit 0 done, 1 failed, 2 invalid, 3 paused).",
    "graph": "Print the plan's DAG with the critical path marked (phases expanded unless collapsed).",
    "lint": "Validate PLAN_FILE; print every problem with its location (and, asked, goal coverage).",
    "mcp": "forethought and the Model Context Protocol.",
    "memory": "The plans remembered from runs that achieved their goal (offered to the planner).",
    "plan": "Plan GOAL into a plan file without running anything.",
    "replay": "Re-execute a run from its recorded tool and model results (zero real calls).",
    "resume": "Continue a stopped run; completed steps are never run again.",
    "run": "Plan GOAL, review and approve the plan, execute it with live progress.",
    "runs": "List recorded runs, newest first.",
    "schema": "Print the JSON Schema of the plan file format.",
    "show": "Show a run: status, plan versions, step outputs, tokens, cost and the event timeline.",
    "stats": "Metrics across recorded runs, computed from their event logs.",
    "submit": "Queue GOAL_OR_PLAN (a goal, or a plan file) for workers; prints the run id.",
    "tools": "List every tool `forethought run` would use: --tools files and forethought.toml's tools, "
    "the enabled built-ins, and installed entry points; with source, effect and schemas.",
    "ui": "Serve the web UI: runs, live DAGs, review/edit/approve, new runs.",
    "worker": "Claim queued runs from the shared run database and drive them (Ctrl-C or SIGTERM "
    "stops: runs in progress pause and are queued again for another worker).",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of ``--help`` from ``SUMMARIES``, shortened by click as usual:
        reading each command's own help imported every command module (most of ``--help``)."""
        listed: dict[str, click.Command] = {}
        for name in self.list_commands(ctx):
            summary = SUMMARIES.get(name)
            command = click.Command(name, help=summary) if summary else self.get_command(ctx, name)
            if command is not None:
                listed[name] = command
        click.Group(commands=listed).format_commands(ctx, formatter)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        command = getattr(importlib.import_module(module_name), attr)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="forethought")
@click.option(
    "-v",
    "--verbose",
    count=True,
    help="Log run events to stderr (-v: info, -vv: debug), via the logging module.",
)
def cli(verbose: int) -> None:
    """forethought — think first, then act.

    Plan a goal into an explicit DAG of tool calls, review and approve it, execute it in
    parallel, and keep a durable record of every run.
    """
    if verbose:  # the CLI is an application: it may configure logging; the library never does
        # Other libraries stay at WARNING; only forethought's own loggers get chattier.
        logging.basicConfig(
            level=logging.WARNING,
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        )
        logging.getLogger("forethought").setLevel(logging.DEBUG if verbose > 1 else logging.INFO)
    if os.environ.get("OTEL_TRACES_EXPORTER"):
        from forethought.interfaces.cli._otel import configure_tracing_from_env

        configure_tracing_from_env()


def main(argv: list[str] | None = None) -> None:
    """The ``forethought`` program: this process is the CLI's own (see ``settle_heap``)."""
    own_process()
    code = run(argv)
    sys.exit(code)


def run(argv: list[str] | None = None) -> int:
    try:
        result: Any = cli.main(args=argv, prog_name="forethought", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        return 2
    except click.exceptions.Abort:
        click.echo("forethought: aborted", err=True)
        return 130
    except UserError as exc:
        click.echo(f"forethought: error: {exc}", err=True)
        return exc.exit_code
    except KeyboardInterrupt:
        click.echo("forethought: interrupted", err=True)
        return 130
    except BrokenPipeError:
        return 1
    except ModelError as exc:
        # The model failed (unreachable, rate limited, unusable answers) where no run records it.
        click.echo(f"forethought: model error: {exc}", err=True)
        return 1
    except StoreError as exc:
        # The run database failed (full disk, read-only, damaged): the message says what to do.
        click.echo(f"forethought: error: {exc}", err=True)
        return 2
    except OSError as exc:
        hint = _ENVIRONMENT_HINTS.get(exc.errno or 0)
        if hint is None:
            return _internal_error(exc)
        where = f"{exc.filename}: " if exc.filename else ""
        click.echo(f"forethought: error: {where}{exc.strerror or exc}; {hint}", err=True)
        return 2
    except ValueError as exc:
        if "integer string conversion" not in str(exc):
            return _internal_error(exc)
        click.echo(
            f"forethought: error: a number has more than {sys.get_int_max_str_digits()} digits, "
            "more than forethought accepts; write it as a string (in quotes)",
            err=True,
        )
        return 2
    except Exception as exc:
        return _internal_error(exc)
    return int(result) if isinstance(result, int) else 0


# Environment failures a person can fix; any other OSError is a bug and reported as one.
_ENVIRONMENT_HINTS: dict[int, str] = {
    errno.ENOSPC: "free some space on that disk and retry",
    errno.EDQUOT: "your disk quota is used up; free some space and retry",
    errno.EROFS: "that file system is read-only; use a writable location",
    errno.EACCES: "fix the permissions or use another location",
    errno.EPERM: "fix the permissions or use another location",
    errno.EIO: "the disk reported an I/O error; check the disk and retry",
}


def _internal_error(exc: BaseException) -> int:
    if os.environ.get("FORETHOUGHT_DEBUG"):
        traceback.print_exc()
    first_line = (str(exc).splitlines() or [""])[0]
    click.echo(
        f"forethought: internal error: {type(exc).__name__}: {first_line} "
        "(set FORETHOUGHT_DEBUG=1 for a traceback, and please report it)",
        err=True,
    )
    return 1
