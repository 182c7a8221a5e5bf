"""``forethought submit`` queues a run for workers; ``forethought worker`` drives queued runs.

Both need a shared run database (``--db postgresql://…`` or ``$FORETHOUGHT_DB``). ``submit``
does everything ``run``/``exec`` do before executing — plan (for a goal), validate, review the
coverage, record the approval given with ``--yes``/``--yes-all`` — then queues the run and
exits 0 with its id. Workers on any machine then claim and execute it; ``forethought runs``
shows who holds each run.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import click

from forethought.execution import eventloop
from forethought.interfaces.cli._common import (
    EXIT_FAILED,
    EXIT_INVALID,
    EXIT_OK,
    EXIT_PAUSED,
    json_option,
    print_json,
    settle_heap,
    tools_option,
)
from forethought.oversight.approvals import ApproveMode

_DB_HELP = "Shared run database: a postgresql:// URL (default: $FORETHOUGHT_DB or the config's db)."


@click.command("submit")
@click.argument("goal_or_plan")
@tools_option
@json_option
@click.option("--db", help=_DB_HELP)
@click.option("--model", help="Model that writes the plan (for a goal).")
@click.option("--yes", "approve_read_only", is_flag=True, help="Approve read-only work.")
@click.option("--yes-all", "approve_all", is_flag=True, help="Approve side-effecting steps too.")
def submit(
    goal_or_plan: str,
    tools_paths: tuple[str, ...],
    as_json: bool,
    db: str | None,
    model: str | None,
    approve_read_only: bool,
    approve_all: bool,
) -> int:
    """Queue GOAL_OR_PLAN (a goal, or a plan file) for workers; prints the run id."""
    approve: ApproveMode = "all" if approve_all else "read_only" if approve_read_only else "none"
    path = Path(goal_or_plan)
    is_file = path.suffix.lower() in (".yaml", ".yml", ".json") and path.is_file()
    return queue_run(goal_or_plan, is_file, tools_paths, {"db": db, "model": model}, approve, as_json)


def queue_run(
    goal_or_plan: str,
    is_file: bool,
    tools_paths: tuple[str, ...],
    settings: dict[str, Any],
    approve: ApproveMode,
    as_json: bool,
) -> int:
    """What ``submit``, ``run --queue`` and ``exec --queue`` do: prepare the run here, queue it
    for workers, print its id (exit 0), or say why it was not queued (exit 2 or 3)."""
    result = eventloop.run(_submit(goal_or_plan, is_file, tools_paths, settings, approve))
    status = result.state.status
    if status != "running":  # refused before queueing (an invalid or uncovered plan)
        reason = result.state.reason or status
        click.echo(f"forethought: run {result.run_id} was not queued: {reason}", err=True)
        return EXIT_INVALID if status == "failed" else EXIT_PAUSED
    if as_json:
        print_json({"run_id": result.run_id, "status": "queued"})
    else:
        click.echo(result.run_id)
    return EXIT_OK


async def _submit(
    goal_or_plan: str,
    is_file: bool,
    tools_paths: tuple[str, ...],
    settings: dict[str, Any],
    approve: ApproveMode,
) -> Any:
    from forethought.interfaces.config import load_config
    from forethought.interfaces.session import open_agent, tool_setup
    from forethought.plan.files import load_plan

    cfg = load_config(settings)
    setup = tool_setup(cfg, tools_paths)
    async with open_agent(cfg, setup) as agent:
        what: Any = load_plan(goal_or_plan, agent.specs) if is_file else goal_or_plan
        config: dict[str, Any] = {"setup": setup, "queued": True}
        if is_file:
            config["plan_file"] = str(goal_or_plan)
        return await agent.run(what, approve=approve, run_config=config, queue=True)


@click.command("worker")
@tools_option
@click.option("--db", help=_DB_HELP)
@click.option(
    "--concurrency", type=click.IntRange(min=1), default=1, show_default=True, help="Runs driven at once."
)
@click.option(
    "--poll",
    "poll_s",
    type=click.FloatRange(min=0.01),
    default=1.0,
    show_default=True,
    help="Seconds between looks at the queue when idle.",
)
@click.option(
    "--lease-ttl",
    "lease_ttl_s",
    type=click.FloatRange(min=0.5),
    default=30.0,
    show_default=True,
    help="Seconds a silent worker keeps a run before another may claim it.",
)
@click.option("--until-empty", is_flag=True, help="Exit once no run is queued (batch jobs).")
@click.option("--backend", help="Where steps run: local (default) or ray[:ADDRESS] (a Ray cluster).")
def worker(
    tools_paths: tuple[str, ...],
    db: str | None,
    concurrency: int,
    poll_s: float,
    lease_ttl_s: float,
    until_empty: bool,
    backend: str | None,
) -> int:
    """Claim queued runs from the shared run database and drive them (Ctrl-C or SIGTERM stops:
    runs in progress pause and are queued again for another worker)."""
    from forethought.interfaces.config import load_config
    from forethought.interfaces.worker import Worker, WorkerOptions

    cfg = load_config({"db": db, "backend": backend})
    options = WorkerOptions(
        concurrency=concurrency,
        poll_s=poll_s,
        lease_ttl_s=lease_ttl_s,
        until_empty=until_empty,
        extra_tools=[str(Path(p).resolve()) for p in tools_paths],
    )
    w = Worker(cfg, options, lambda line: click.echo(f"worker: {line}", err=True))
    # SIGTERM (a service manager's stop) behaves like Ctrl-C: runs pause, leases are released.
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        settle_heap()
        driven = eventloop.run(w.serve())
    except KeyboardInterrupt:
        click.echo("worker: stopped; runs in progress were paused and queued again", err=True)
        return EXIT_PAUSED
    finally:
        signal.signal(signal.SIGTERM, previous)
    click.echo(f"worker: drove {driven} run(s)", err=True)
    return EXIT_OK if driven >= 0 else EXIT_FAILED
