"""Plan memory: ``memory list`` and ``memory forget``.

``list`` shows each remembered plan's id, when it was remembered, the tools it uses and its goal
(``--json``: one object with ``plans``). ``forget ID...|--all|--goal-like TEXT`` deletes plans and
prints one line per forgotten plan; an unknown id is one line on stderr and exit 2 (nothing is
deleted then). The file is ``--memory``, else ``$FORETHOUGHT_MEMORY``, else the user data dir's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

import click

from forethought.errors import UserError
from forethought.interfaces.cli._common import json_option, print_json
from forethought.planning.memory import PlanMemory, Remembered

F = TypeVar("F", bound=Callable[..., Any])


def _memory_option(fn: F) -> F:
    return click.option(
        "--memory",
        "memory_path",
        type=click.Path(dir_okay=False),
        default=None,
        help="Plan memory file (default: $FORETHOUGHT_MEMORY, else plan_memory.sqlite in the user data dir).",
    )(fn)


def _line(e: Remembered) -> str:
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(e.created_at))
    tools = ",".join(e.tools) or "-"
    return f"{e.id}\t{when}\t{tools}\t{e.goal}"


@click.group("memory")
def memory() -> None:
    """The plans remembered from runs that achieved their goal (offered to the planner)."""


@memory.command("list")
@_memory_option
@json_option
def list_command(memory_path: str | None, as_json: bool) -> None:
    """List remembered plans: id, when remembered, tools used, goal."""
    entries = PlanMemory(memory_path, starter=False).entries()
    if as_json:
        print_json({"plans": [e.to_dict() for e in entries]})
        return
    if not entries:
        click.echo("no remembered plans", err=True)
        return
    for e in entries:
        click.echo(_line(e))


@memory.command("forget")
@click.argument("ids", nargs=-1)
@click.option("--all", "forget_all", is_flag=True, help="Forget every remembered plan.")
@click.option("--goal-like", default=None, help="Forget the plans whose goal contains TEXT (any case).")
@_memory_option
def forget_command(
    ids: tuple[str, ...], forget_all: bool, goal_like: str | None, memory_path: str | None
) -> None:
    """Forget remembered plans by ID, all of them, or those whose goal contains TEXT."""
    if sum((bool(ids), forget_all, goal_like is not None)) != 1:
        raise UserError("give plan ID(s), --all or --goal-like TEXT (exactly one of them)")
    mem = PlanMemory(memory_path, starter=False)
    if ids:
        wanted: list[int] = []
        for raw in ids:
            try:
                wanted.append(int(raw))
            except ValueError:
                raise UserError(f"not a plan id: {raw!r} (see `forethought memory list`)") from None
        known = {e.id for e in mem.entries()}
        unknown = [i for i in wanted if i not in known]
        if unknown:
            raise UserError(f"no remembered plan with id {unknown[0]} (see `forethought memory list`)")
    else:
        wanted = [e.id for e in mem.entries(goal_like=goal_like)]
    for e in mem.forget(wanted):
        click.echo(f"forgot {e.id}\t{e.goal}")
