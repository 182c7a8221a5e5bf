"""``forethought exec PLAN_FILE``: execute a plan file with the configured tools, no model needed.

Exit codes: 0 succeeded, 1 the run failed, 2 invalid input, 3 paused or awaiting approval.
Progress goes to stderr, one line per step transition; ``--json`` prints the summary on stdout.
Every event is recorded in the run database (``--db``), so the run can be shown, resumed
(``run_created`` records the tool setup) and approved later like a ``run``.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from typing import Any

import click

from forethought.agent import Agent, RunResult
from forethought.events import kinds as E
from forethought.events.kinds import Event
from forethought.execution import eventloop
from forethought.interfaces.cli._common import (
    EXIT_FAILED,
    EXIT_INVALID,
    EXIT_OK,
    EXIT_PAUSED,
    QUEUE_HELP,
    json_option,
    print_json,
    settle_heap,
    tools_option,
)
from forethought.oversight.approvals import ApproveMode
from forethought.oversight.redaction import default_redactor, redact_text

_EXIT_BY_STATUS = {
    "succeeded": EXIT_OK,
    "failed": EXIT_FAILED,
    "cancelled": EXIT_FAILED,
    "paused": EXIT_PAUSED,
    "awaiting_approval": EXIT_PAUSED,
}


def _progress_line(event: Event) -> str | None:
    match event:
        case E.StepStarted():
            return f"▶ {event.step_id} started (attempt {event.attempt})"
        case E.StepSucceeded():
            return f"✔ {event.step_id} succeeded in {event.duration_s:.3f}s"
        case E.StepFailed():
            tail = f"; retrying in {event.retry_in_s:.2f}s" if not event.final else ""
            return f"✘ {event.step_id} failed ({event.failure_class}): {event.error}{tail}"
        case E.StepSkipped() | E.StepCancelled() | E.StepNeedsReview():
            word = event.kind.removeprefix("step_").replace("_", " ")
            return f"- {event.step_id} {word}: {event.reason}"
        case E.CheckFailed():
            return f"✘ {event.step_id} check {event.criterion} failed: {event.detail}"
        case E.CompensationStarted() | E.CompensationSucceeded() | E.CompensationFailed():
            return f"↺ {event.step_id} {event.kind.replace('_', ' ')}"
        case E.ApprovalRequested():
            return f"? approval needed for: {', '.join(event.step_ids)}"
        case E.ReplanRequested():
            return f"↻ replan requested: {event.reason}"
    return None


class _Progress:
    """The progress sink: one line per step transition, written to stderr once per loop turn.

    A write per line costs a system call and click's terminal checks each time — on a
    10,000-step plan, 30,000 of them, a quarter of the run. Lines are collected and written
    together at the end of the turn that produced them (and at the end of the run), redacted
    there: the secret screen reads the turn's text once, and only if it trips are the lines
    redacted one by one (screening each line cost about as much as the recorder's screen of the
    event itself). A secret registered during the turn is covered too: the redactor is the one
    current at the write.
    """

    # No line for a ``step_ready`` (``_progress_line``): the executor need not queue them for us.
    ignores: frozenset[type[Any]] = frozenset((E.StepReady,))

    def __init__(self) -> None:
        self._lines: list[str] = []

    def deliver_inline(self, event: Event) -> None:
        """Called by the executor as it emits each event (``execution._parts.inline_of``):
        a line is formatted and queued; nothing is awaited, written or emitted here."""
        line = _progress_line(event)
        if line is None:
            return
        if not self._lines:
            asyncio.get_running_loop().call_soon(self.flush)
        self._lines.append(line)

    async def __call__(self, event: Event) -> None:
        self.deliver_inline(event)

    def flush(self) -> None:
        if not self._lines:
            return
        lines, self._lines = self._lines, []
        text = "\n".join(lines)
        redactor = default_redactor()
        # No anchor in the joined text means none in any line: each would pass unchanged.
        if redactor.might_contain_secret(text):
            text = "\n".join(redactor.redact_text(line) for line in lines)
        click.echo(text, err=True)


def _reviewer() -> Any:
    """A person at a terminal reviews the plan; None when nobody can (not a terminal).

    Imported only when asked: ``--yes``/``--yes-all`` runs need no terminal display (``rich``,
    the plan renderer), a tenth of the command's start-up."""
    from rich.console import Console

    from forethought.interfaces.cli._display import InteractiveReviewer, is_interactive

    return InteractiveReviewer(Console(stderr=True)) if is_interactive() else None


def _human_summary(summary: dict[str, Any]) -> str:
    counts: dict[str, int] = {}
    for st in summary["steps"].values():
        counts[st["status"]] = counts.get(st["status"], 0) + 1
    parts = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    lines = [
        f"run {summary['run_id']}: {summary['status']} ({parts})",
        f"makespan {summary['makespan_s']:.3f}s, critical path "
        f"{summary['critical_path_s']:.3f}s, overhead {summary['overhead_s']:.3f}s",
    ]
    if summary.get("reason"):
        lines.append(f"reason: {summary['reason']}")
    if summary["status"] == "awaiting_approval":
        lines.append(
            f"waiting for approval: forethought approve {summary['run_id']} (or re-run with --yes-all)"
        )
    return "\n".join(lines)


async def _execute(
    plan_file: str,
    tools_paths: Sequence[str],
    approve: ApproveMode,
    max_concurrency: int | None,
    db: str | None,
    holder: list[RunResult | Agent],
    backend: str | None = None,
) -> None:
    """Load, validate and run the plan through the Agent: recorded, gated by signed approvals,
    supervised by the configured budgets (no model is loaded unless the plan replans or has
    agent steps)."""
    from forethought.interfaces.config import load_config
    from forethought.interfaces.session import open_agent, tool_setup
    from forethought.plan.files import load_validated_plan

    cfg = load_config({"db": db, "max_concurrency": max_concurrency, "backend": backend})
    # Recorded in run_created so that `forethought approve/resume RUN` reopen the same tools.
    setup = tool_setup(cfg, tools_paths)
    async with open_agent(cfg, setup) as agent:
        holder.append(agent)
        plan = load_validated_plan(plan_file, agent.specs)  # checked once, here, with file and line
        reviewer = _reviewer() if approve == "none" else None
        progress = _Progress()
        try:
            result = await agent.run(
                plan,
                approve=approve,
                reviewer=reviewer,
                on_event=progress,
                run_config={"setup": setup, "plan_file": str(plan_file)},
            )
        finally:
            progress.flush()
        holder.append(result)


@click.command("exec")
@click.argument("plan_file", type=click.Path(dir_okay=False))
@tools_option
@json_option
@click.option(
    "--yes",
    "approve_read_only",
    is_flag=True,
    help="Approve read-only work; side effects still wait for approval.",
)
@click.option("--yes-all", "approve_all", is_flag=True, help="Approve side-effecting steps too.")
@click.option(
    "--max-concurrency",
    type=click.IntRange(min=1),
    default=None,
    help="At most this many steps run at once (default: config, else 8).",
)
@click.option(
    "--db",
    type=click.Path(dir_okay=False),
    help="Run database: a file or a postgresql:// URL (default: $FORETHOUGHT_DB or the user data directory).",
)
@click.option("--backend", help="Where steps run: local (default) or ray[:ADDRESS] (a Ray cluster).")
@click.option("--queue", is_flag=True, help=QUEUE_HELP)
def exec_command(
    plan_file: str,
    tools_paths: tuple[str, ...],
    as_json: bool,
    approve_read_only: bool,
    approve_all: bool,
    max_concurrency: int | None,
    db: str | None,
    backend: str | None,
    queue: bool,
) -> int:
    """Execute PLAN_FILE with the given tools (exit 0 done, 1 failed, 2 invalid, 3 paused)."""
    approve: ApproveMode = "all" if approve_all else "read_only" if approve_read_only else "none"
    if queue:
        from forethought.interfaces.cli.worker_cmd import queue_run

        return queue_run(plan_file, True, tools_paths, {"db": db}, approve, as_json)
    holder: list[RunResult | Agent] = []
    try:
        settle_heap()
        eventloop.run(_execute(plan_file, tools_paths, approve, max_concurrency, db, holder, backend))
    except KeyboardInterrupt:
        # The executor recorded a resumable pause before the interrupt propagated.
        agent = holder[0] if holder and isinstance(holder[0], Agent) else None
        run_id = agent.last_run_id if agent is not None else None
        click.echo(
            "forethought: interrupted"
            + (f"; the run is paused: forethought resume {run_id}" if run_id else ""),
            err=True,
        )
        return EXIT_PAUSED
    result = holder[-1] if holder else None
    if not isinstance(result, RunResult):  # failed before the run started
        return EXIT_FAILED
    summary = result.summary
    if as_json:
        print_json(summary)
    else:
        click.echo(redact_text(_human_summary(summary)))
    sys.stdout.flush()
    return _EXIT_BY_STATUS.get(summary["status"], EXIT_INVALID)


exec_cmd = exec_command
