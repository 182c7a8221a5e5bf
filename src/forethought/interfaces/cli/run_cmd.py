"""`forethought run GOAL` and `forethought approve RUN`: plan → review → execute, recorded."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import click
from rich.console import Console

from forethought.agent import Agent, RunResult
from forethought.errors import UserError
from forethought.interfaces.cli._common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_PAUSED,
    QUEUE_HELP,
    json_option,
    print_json,
    run_async,
    settle_heap,
    tools_option,
)
from forethought.interfaces.cli._display import (
    InteractiveReviewer,
    Progress,
    is_interactive,
    pending_step_lines,
)
from forethought.interfaces.config import load_config
from forethought.interfaces.session import open_agent, recorded_setup, tool_setup
from forethought.oversight.approvals import ApproveMode
from forethought.oversight.policy import needs_approval
from forethought.tools.base import ToolSpec

EXIT_BY_STATUS = {
    "succeeded": EXIT_OK,
    "failed": EXIT_FAILED,
    "cancelled": EXIT_FAILED,
    "awaiting_approval": EXIT_PAUSED,
    "paused": EXIT_PAUSED,
    "running": EXIT_PAUSED,
}


def common_run_options(fn: Any) -> Any:
    for option in reversed(
        [
            click.option(
                "--model", help="Model for every role, e.g. local, ollama:qwen2.5:7b, openai:gpt-4o-mini."
            ),
            click.option("--planner-model", help="Model that writes the plan."),
            click.option("--executor-model", help="Model that runs agent steps."),
            click.option(
                "--db", type=click.Path(dir_okay=False), help="Run database: a file or a postgresql:// URL."
            ),
            click.option(
                "--workspace",
                type=click.Path(file_okay=False),
                help="Root the built-in file tools are confined to (default: .).",
            ),
            click.option("--max-concurrency", type=click.IntRange(1, 1024)),
            click.option("--backend", help="Where steps run: local (default) or ray[:ADDRESS]."),
            click.option(
                "--yes",
                "yes",
                is_flag=True,
                help="Approve read-only work; side effects still wait for approval.",
            ),
            click.option(
                "--yes-all",
                "yes_all",
                is_flag=True,
                help="Approve everything, side effects included (recorded as you).",
            ),
        ]
    ):
        fn = option(fn)
    return fn


def _config(**flags: Any) -> Any:
    keys = ("model", "planner_model", "executor_model", "db", "workspace", "max_concurrency", "backend")
    return load_config({k: flags.get(k) for k in keys})


def _approve_mode(yes: bool, yes_all: bool) -> ApproveMode:
    return "all" if yes_all else "read_only" if yes else "none"


def report(
    result: RunResult, as_json: bool, console: Console, specs: Mapping[str, ToolSpec] | None = None
) -> int:
    """The run's outcome. ``--json``: one object on stdout. Otherwise the status, what waits for
    approval (each step with its tool and redacted arguments, so approving from a script is not
    blind) and costs go to stderr, and a succeeded run's answer (its final steps' outputs) to
    stdout, so ``forethought run … > out.txt`` captures the answer and nothing else."""
    from forethought.oversight.redaction import default_redactor

    summary = default_redactor().redact(result.summary)
    if result.coverage is not None:
        summary["coverage"] = result.coverage
    if as_json:
        print_json(summary)
        return EXIT_BY_STATUS.get(result.state.status, EXIT_FAILED)
    status = result.state.status
    style = {"succeeded": "green", "failed": "red"}.get(status, "yellow")
    reason = summary.get("reason") or ""
    console.print(
        f"[{style}]run {result.run_id}: {status}[/]" + (f" — {reason}" if reason else ""), highlight=False
    )
    answer = [
        (sid, text)
        for sid in _final_steps(result)
        if (text := _output_text(summary["steps"].get(sid, {}).get("output"))) is not None
    ]
    if status != "succeeded":
        for sid, text in answer:  # partial results are progress, not the answer
            console.print(f"  {sid}: {text[:500]}", markup=False, highlight=False, soft_wrap=True)
    if status in ("awaiting_approval", "paused") and result.plan is not None:
        lines = pending_step_lines(result.plan, _waiting(result, specs))
        if lines:
            console.print("  waiting for approval:", highlight=False)
            for line in lines:
                console.print(f"  {line}", markup=False, highlight=False, soft_wrap=True)
    console.print(
        f"  makespan {summary.get('makespan_s', 0):.2f}s · critical path "
        f"{summary.get('critical_path_s', 0):.2f}s · tokens "
        f"{summary.get('tokens', 0)} · ${summary.get('cost_usd', 0):.4f}",
        highlight=False,
    )
    if status == "awaiting_approval":
        console.print(f"  approve with: forethought approve {result.run_id}")
    elif status == "paused":
        console.print(f"  continue with: forethought resume {result.run_id}")
    else:
        console.print(f"  details: forethought show {result.run_id}")
    if status == "succeeded":
        for sid, text in answer:
            click.echo(text if len(answer) == 1 else f"{sid}: {text}")
    return EXIT_BY_STATUS.get(status, EXIT_FAILED)


def _output_text(output: Any) -> str | None:
    if output is None:
        return None
    return output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)


def _waiting(result: RunResult, specs: Mapping[str, ToolSpec] | None) -> list[str]:
    """The steps of the current plan not yet run that the approval policy holds back."""
    assert result.plan is not None
    done = ("succeeded", "failed", "skipped", "cancelled", "running")
    out = []
    for step in result.plan.steps:
        st = result.state.steps.get(step.id)
        if st is not None and st.status in done:
            continue
        if needs_approval(step, (specs or {}).get(step.tool or "")):
            out.append(step.id)
    return out


def interrupted(holder: list[Agent], console: Console) -> int:
    """Ctrl-C: the executor recorded a resumable pause; say how to continue."""
    run_id = holder[0].last_run_id if holder else None
    if run_id is None:
        console.print("interrupted before the run started; nothing was recorded")
        return EXIT_FAILED
    console.print(f"run {run_id}: paused (interrupted); continue with: forethought resume {run_id}")
    return EXIT_PAUSED


def _final_steps(result: RunResult) -> list[str]:
    plan = result.plan
    if plan is None:
        return []
    used = {d for s in plan.steps for d in s.all_dependencies()}
    return [s.id for s in plan.steps if s.id not in used]


@click.command()
@click.argument("goal")
@tools_option
@common_run_options
@click.option(
    "--no-stream", is_flag=True, help="With --yes/--yes-all, plan completely before starting any step."
)
@click.option(
    "--force",
    is_flag=True,
    help="Run a plan the goal coverage check says misses the goal (recorded in the run).",
)
@click.option("--queue", is_flag=True, help=QUEUE_HELP)
@click.option(
    "--planning",
    type=click.Choice(["dag", "stepwise", "auto"]),
    help="dag: plan the whole DAG first (default); stepwise: the planner picks one next step at a "
    "time, seeing the results so far (needs --yes or --yes-all); auto: stepwise when the goal's "
    "later steps depend on earlier results (if / depending on / until / named in …), else dag.",
)
@click.option(
    "--max-steps",
    type=click.IntRange(1, 1000),
    help="Step cap of a step-wise run (default: budgets max_steps, else 10).",
)
@json_option
def run(
    goal: str,
    tools_paths: tuple[str, ...],
    yes: bool,
    yes_all: bool,
    as_json: bool,
    no_stream: bool,
    force: bool,
    queue: bool,
    planning: str | None,
    max_steps: int | None,
    **flags: Any,
) -> int:
    """Plan GOAL, review and approve the plan, execute it with live progress."""
    if not goal.strip():
        raise UserError(
            'the goal is empty; say what you want done, e.g. forethought run "count the words in README.md"'
        )
    if queue:
        from forethought.interfaces.cli.worker_cmd import queue_run

        settings = {k: flags.get(k) for k in ("model", "planner_model", "executor_model", "db", "workspace")}
        return queue_run(goal, False, tools_paths, settings, _approve_mode(yes, yes_all), as_json)
    cfg = _config(**flags)
    console = Console(stderr=not as_json, no_color=not is_interactive())
    interactive = is_interactive() and not as_json and not yes_all
    setup = tool_setup(cfg, tools_paths)
    holder: list[Agent] = []

    async def go() -> RunResult:
        async with open_agent(cfg, setup) as agent:
            holder.append(agent)
            settle_heap(agent.model("planner"))
            if not as_json:
                console.print(f"planning with {agent.model('planner').name} ({len(agent.tools)} tools)…")
            with Progress(console, live=interactive) as progress:
                return await agent.run(
                    goal,
                    approve=_approve_mode(yes, yes_all),
                    reviewer=InteractiveReviewer(console) if interactive else None,
                    on_event=None if as_json else progress,
                    run_config={"setup": setup},
                    stream=not no_stream,
                    force=force,
                    planning=planning or cfg.planning,
                    max_steps=max_steps,
                )

    try:
        result = run_async(go)
    except KeyboardInterrupt:
        return interrupted(holder, console)
    if result.problems and not as_json:
        for p in result.problems:
            console.print(f"[red]{p}[/]", highlight=False)
    return report(result, as_json, console, holder[0].specs if holder else None)


@click.command()
@click.argument("run_id")
@click.option("--plan-hash", help="Approve only if the current plan still has this hash.")
@click.option("--db", type=click.Path(dir_okay=False), help="Run database: a file or a postgresql:// URL.")
@click.option("--no-run", is_flag=True, help="Record the approval but do not continue the run.")
@click.option(
    "--step",
    "steps",
    multiple=True,
    metavar="STEP_ID",
    help="Confirm this step now (destructive steps under reconfirm_destructive).",
)
@json_option
def approve(
    run_id: str, plan_hash: str | None, db: str | None, no_run: bool, steps: tuple[str, ...], as_json: bool
) -> int:
    """Approve the current plan of RUN_ID (bound to its hash) and continue the run."""
    cfg = load_config({"db": db})
    console = Console(stderr=not as_json, no_color=not is_interactive())
    from forethought.runs.run_ids import resolve_run_id
    from forethought.runs.store.opening import open_store

    with open_store(cfg.db) as store:
        run_id = resolve_run_id(store, run_id)
        setup = recorded_setup(store.events(run_id))

    async def go() -> RunResult | None:
        async with open_agent(cfg, setup) as agent:
            holder.append(agent)
            with Progress(console, live=is_interactive() and not as_json) as progress:
                return await agent.approve(
                    run_id,
                    plan_hash=plan_hash,
                    continue_run=not no_run,
                    steps=steps,
                    on_event=None if as_json else progress,
                )

    holder: list[Agent] = []
    try:
        result = run_async(go)
    except KeyboardInterrupt:
        return interrupted(holder, console)
    if result is None:
        if as_json:
            print_json({"run_id": run_id, "approved": True})
        else:
            console.print(f"approved the plan of run {run_id}; continue with: forethought resume {run_id}")
        return EXIT_OK
    return report(result, as_json, console, holder[0].specs if holder else None)
