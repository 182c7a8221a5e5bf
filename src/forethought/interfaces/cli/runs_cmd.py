"""Run history and control: ``runs``, ``show RUN``, ``resume RUN``, ``replay RUN``.

Exit codes: 0 done (for ``replay``: the replay reproduced the recorded events and final
state), 1 the run failed (``replay``: it diverged), 2 invalid input, 3 paused / awaiting
approval / the run is being resumed by another process right now (its lease is held).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

from forethought.agent import coverage_of
from forethought.errors import UserError
from forethought.events import kinds as E
from forethought.events.kinds import Event, event_to_dict
from forethought.events.state import RunState, fold
from forethought.execution import eventloop
from forethought.interfaces.cli._common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_PAUSED,
    json_option,
    print_json,
    settle_heap,
    tools_option,
)
from forethought.interfaces.cli._runs_format import runs_table, show_text
from forethought.oversight.redaction import default_redactor, redact_text
from forethought.runs.store.base import Store
from forethought.runs.store.opening import OpenedStore, open_store, open_store_for_reading

F = TypeVar("F", bound=Callable[..., Any])
_EXIT_BY_STATUS = {
    "succeeded": EXIT_OK,
    "failed": EXIT_FAILED,
    "cancelled": EXIT_FAILED,
    "paused": EXIT_PAUSED,
    "awaiting_approval": EXIT_PAUSED,
    "running": EXIT_PAUSED,
}


def db_option(fn: F) -> F:
    return click.option(
        "--db",
        "db",
        type=click.Path(dir_okay=False),
        default=None,
        help=(
            "Run database: a file, or a postgresql:// URL (default: $FORETHOUGHT_DB, else runs.db in "
            "the user data dir)."
        ),
    )(fn)


def _open(db: str | None) -> OpenedStore:
    """``--db``, else ``$FORETHOUGHT_DB`` or forethought.toml's ``db``, else the default path."""
    return open_store(_config(db).db)


def _open_for_reading(db: str | None) -> OpenedStore:
    """As ``_open``, but a database this process cannot write is opened read-only."""
    return open_store_for_reading(_config(db).db)


def _summary(state: Any) -> dict[str, Any]:
    from forethought.execution._parts import run_summary

    return run_summary(state)


def _scrub(data: Any) -> Any:
    return default_redactor().redact(data)


async def _progress(event: Event) -> None:
    kind = event.kind
    if kind.startswith("step_") and kind not in ("step_ready",):
        e: Any = event
        detail = getattr(e, "error", None) or getattr(e, "reason", None) or ""
        line = f"{kind.removeprefix('step_').replace('_', ' ')}: {e.step_id}"
        click.echo(default_redactor().redact_text(f"{line}  {detail}".rstrip()), err=True)


# ------------------------------------------------------------------------------------- runs


@click.command("runs")
@db_option
@json_option
@click.option(
    "--limit", type=click.IntRange(min=1), default=50, show_default=True, help="Show at most this many runs."
)
def runs_command(db: str | None, as_json: bool, limit: int) -> int:
    """List recorded runs, newest first."""
    with _open_for_reading(db) as store:
        rows = store.list_runs(limit=limit)
        modified = {r.run_id for r in rows if _record_check(store, r.run_id)["modified"]}
        workers = _workers(store, [r.run_id for r in rows])
    if as_json:
        print_json(
            _scrub(
                [
                    {
                        "run_id": r.run_id,
                        "status": r.status,
                        "goal": r.goal,
                        "created_at": r.created_at,
                        "modified": r.run_id in modified,
                        **({} if workers is None else {"worker": workers.get(r.run_id)}),
                    }
                    for r in rows
                ]
            )
        )
    else:
        click.echo(runs_table(rows, modified, workers))
    return EXIT_OK


def _workers(store: Store, run_ids: list[str]) -> dict[str, str] | None:
    """On a shared database: the lease holder of each run being driven, else its queue state
    (``queued``, ``held: why``); ``None`` for a store without a run queue (an SQLite file)."""
    from forethought.runs.store.queue import RunQueue

    if not isinstance(store, RunQueue):
        return None
    out = {
        e.run_id: e.state if e.state != "held" else f"held: {e.note}" for e in store.queue_entries(run_ids)
    }
    for run_id in run_ids:
        lease = store.get_lease(run_id)
        if lease is not None:
            out[run_id] = lease.owner
    return {k: v for k, v in out.items() if v != "done"}


# ------------------------------------------------------------------------------------- show


@click.command("show")
@click.argument("run_id")
@db_option
@json_option
@click.option(
    "--events",
    "events_limit",
    default="50",
    show_default=True,
    help="How many of the latest events to list in the timeline, or `all`.",
)
def show_command(run_id: str, db: str | None, as_json: bool, events_limit: str) -> int:
    """Show a run: status, plan versions, step outputs, tokens, cost and the event timeline."""
    from forethought.runs.run_ids import resolve_run_id

    if events_limit != "all" and not events_limit.isdigit():
        raise UserError(f"--events {events_limit!r}: expected a number or `all`")
    limit = None if events_limit == "all" else int(events_limit)
    with _open_for_reading(db) as store:
        run_id = resolve_run_id(store, run_id)
        row = store.get_run(run_id)
        assert row is not None
        events = store.events(run_id)
        versions = store.plan_versions(run_id)
        record = _record_check(store, run_id)
    state = fold(events)
    if as_json:
        data = _summary(state)
        data.update(
            {
                "record": record,
                "created_at": row.created_at,
                "updated_at": row.updated_at,
                "input_tokens": state.input_tokens,
                "output_tokens": state.output_tokens,
                "plan_versions": [
                    {
                        "version": v.version,
                        "hash": v.hash,
                        "plan": json.loads(v.plan_json),
                        "created_at": v.created_at,
                    }
                    for v in versions
                ],
                "events": [event_to_dict(e) for e in events],
                "coverage": coverage_of(events),
                "pending_steps": _pending(state, events),
            }
        )
        print_json(_scrub(data))
    else:
        click.echo(show_text(row, state, versions, events, limit, _record_lines(record)))
        extra = _coverage_lines(coverage_of(events))
        pending = _pending(state, events)
        if pending:
            from forethought.interfaces.cli._display import call_text

            extra.append("waiting for approval:")
            extra += [f"  {p['step_id']}  {call_text(p['tool'], p['args'], p.get('agent'))}" for p in pending]
        if extra:
            click.echo(redact_text("\n".join(extra)))
    return EXIT_OK


def _coverage_lines(coverage: dict[str, Any] | None) -> list[str]:
    if coverage is None or coverage.get("covered"):
        return [] if coverage is None else ["coverage: the plan covers the goal"]
    return ["coverage: the plan does not cover the goal:"] + [
        f"  - {m.get('message')}" for m in coverage.get("missing", [])
    ]


def _pending(state: RunState, events: Sequence[Event]) -> list[dict[str, Any]]:
    """Steps a run waiting for approval holds back, with tool and arguments (from the last
    ``approval_requested``), so approving from a script is not blind."""
    if state.status not in ("awaiting_approval", "paused") or not state.plan:
        return []
    asked = next((e for e in reversed(events) if isinstance(e, E.ApprovalRequested)), None)
    if asked is None:
        return []
    steps = {s.get("id"): s for s in state.plan.get("steps", []) if isinstance(s, dict)}
    out = []
    for sid in asked.step_ids:
        st = state.steps.get(sid)
        if sid in steps and (st is None or st.status in ("pending", "ready")):
            step = steps[sid]
            out.append(
                {
                    "step_id": sid,
                    "tool": step.get("tool"),
                    "args": step.get("args", {}),
                    "agent": step.get("agent"),
                }
            )
    return out


def _record_check(store: Store, run_id: str) -> dict[str, Any]:
    """Whether the run's record verifies (read-only: a modified run is shown, and marked)."""
    from forethought.runs.integrity import check_run

    try:
        report = check_run(store, run_id)
    except UserError as exc:  # e.g. the approval key cannot be read: say so, still show the run
        return {"verified": False, "modified": None, "problem": str(exc), "notes": []}
    return {
        "verified": not report.modified,
        "modified": report.modified,
        "problem": report.problem,
        "notes": list(report.notes),
    }


def _record_lines(record: dict[str, Any]) -> list[str]:
    if record["modified"]:
        lines = [
            f"record: modified outside forethought ({record['problem']}); it cannot be resumed, "
            "approved or replayed"
        ]
    elif record["modified"] is None:
        lines = [f"record: not verified ({record['problem']})"]
    else:
        lines = []
    return lines + [f"record: {note}" for note in record["notes"]]


# ------------------------------------------------------------------------------------- resume


def _parse_mark(values: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in values:
        sid, sep, raw = item.partition("=")
        if not sid:
            raise UserError(f"--mark-succeeded {item!r}: expected STEP or STEP=JSON_OUTPUT")
        try:
            out[sid] = json.loads(raw) if sep else None
        except json.JSONDecodeError as exc:
            raise UserError(
                f"--mark-succeeded {item!r}: the output after `=` is not JSON "
                f"({exc.msg}); quote strings, e.g. {sid}='\"done\"'"
            ) from None
    return out


@click.command("resume")
@click.argument("run_id")
@db_option
@tools_option
@json_option
@click.option("--model", help="Model for agent steps and replanning (default: as configured).")
@click.option("--executor-model", help="Model that runs agent steps.")
@click.option(
    "--yes-all",
    "approve_all",
    is_flag=True,
    help="Approve the current plan's side effects (recorded as a signed approval by you) before continuing.",
)
@click.option(
    "--mark-succeeded",
    "mark",
    multiple=True,
    metavar="STEP[=JSON]",
    help="Review: STEP (interrupted) did take effect; record it as succeeded with this output. Repeatable.",
)
@click.option(
    "--retry",
    "retry",
    multiple=True,
    metavar="STEP",
    help=(
        "Run STEP again: it was interrupted and did not take effect, or it failed for good. "
        "A step with side effects then needs a fresh approval (or --yes-all). Repeatable."
    ),
)
def resume_command(
    run_id: str,
    db: str | None,
    tools_paths: tuple[str, ...],
    as_json: bool,
    model: str | None,
    executor_model: str | None,
    approve_all: bool,
    mark: tuple[str, ...],
    retry: tuple[str, ...],
) -> int:
    """Continue a stopped run; completed steps are never run again.

    The run's recorded tools, workspace and approvals are used (--tools adds more). A step that
    was running when the run stopped re-runs only if its tool is idempotent; otherwise it needs
    review: check whether it took effect, then resume with --mark-succeeded STEP or --retry
    STEP. A step that failed for good, and a finished rollback, never run again unless you
    name the step with --retry STEP; a run that failed for good and was rolled back has
    nothing to resume (exit 1). Exit 3 if it pauses again (e.g. awaiting approval of a retried
    step) or another process is resuming the run right now.
    """
    from forethought.interfaces.session import open_agent, recorded_setup
    from forethought.oversight.approvals import default_approver
    from forethought.runs.approval import grant_approval
    from forethought.runs.review import InterruptedStepsReview, record_review
    from forethought.runs.run_ids import resolve_run_id

    review = InterruptedStepsReview(succeeded=_parse_mark(mark), retry=tuple(retry))
    cfg = _config(db, model=model, executor_model=executor_model)
    with open_store(cfg.db) as store:
        run_id = resolve_run_id(store, run_id)
        setup = _with_tools(recorded_setup(store.events(run_id)), tools_paths)
    holder: list[Any] = []

    async def go() -> Any:
        async with open_agent(cfg, setup) as agent:
            holder.append(agent)
            who = default_approver()
            if review.succeeded or review.retry:
                await asyncio.to_thread(record_review, agent.store, run_id, review, who)
            if approve_all:
                await asyncio.to_thread(
                    grant_approval, agent.store, run_id, agent.specs, f"{who} (resume --yes-all)"
                )
            return await agent.resume(run_id, on_event=None if as_json else _progress)

    try:
        settle_heap()
        result = eventloop.run(go())
    except KeyboardInterrupt:
        click.echo(
            f"run {run_id}: paused (interrupted); continue with: forethought resume {run_id}", err=True
        )
        return EXIT_PAUSED
    state = result.state
    if as_json:
        print_json(_scrub(result.summary))
    else:
        line = f"run {state.run_id}: {state.status}"
        click.echo(default_redactor().redact_text(line + (f" — {state.reason}" if state.reason else "")))
        review_ids = [sid for sid, st in state.steps.items() if st.status == "needs_review"]
        if review_ids:
            click.echo(
                f"check whether {', '.join(review_ids)} took effect, then resume with "
                "--mark-succeeded STEP or --retry STEP",
                err=True,
            )
        elif state.status == "awaiting_approval":
            for note in _legacy_approval_notes(cfg.db, state.run_id)[:1]:
                click.echo(f"run {state.run_id}: {note}", err=True)
            click.echo(f"approve with: forethought approve {state.run_id} (or resume --yes-all)", err=True)
    return _EXIT_BY_STATUS.get(state.status, EXIT_FAILED)


def _legacy_approval_notes(db: Any, run_id: str) -> list[str]:
    """Why a run that was approved before waits again: its approval predates run binding."""
    with open_store(db) as store:
        notes = _record_check(store, run_id)["notes"]
    return [n for n in notes if "before approvals were bound" in n]


def _with_tools(setup: dict[str, Any], tools_paths: Sequence[str]) -> dict[str, Any]:
    from pathlib import Path

    paths = [*setup.get("tools", []), *(str(Path(p).resolve()) for p in tools_paths)]
    return {"builtins": [], "workspace": ".", **setup, "tools": list(dict.fromkeys(paths))}


def _config(db: str | None, **flags: Any) -> Any:
    from forethought.interfaces.config import load_config

    return load_config({"db": db, **flags})


# ------------------------------------------------------------------------------------- replay


@click.command("replay")
@click.argument("run_id")
@db_option
@tools_option
@json_option
@click.option(
    "--from",
    "from_step",
    default=None,
    metavar="STEP",
    help="Re-run STEP and its descendants for real (needs --tools); the rest comes from the record.",
)
@click.option(
    "--yes-all", "approve_all", is_flag=True, help="Approve side-effecting steps among those re-run for real."
)
@click.option("--no-record", is_flag=True, help="Do not store the replay as a new run.")
def replay_command(
    run_id: str,
    db: str | None,
    tools_paths: tuple[str, ...],
    as_json: bool,
    from_step: str | None,
    approve_all: bool,
    no_record: bool,
) -> int:
    """Re-execute a run from its recorded tool and model results (zero real calls).

    Exit 0 when the replay reproduces the recorded execution — the same events in the same
    order, timing aside, and the same final state (with --from: when it succeeds), 1 when it
    diverges or fails.
    """
    from forethought.interfaces.session import recorded_setup
    from forethought.runs.replay import replay_run
    from forethought.runs.run_ids import resolve_run_id
    from forethought.tools.loader import open_tools

    with _open(db) as store:
        run_id = resolve_run_id(store, run_id)
        setup = _with_tools(recorded_setup(store.events(run_id)), tools_paths)
    if from_step and not setup["tools"]:
        raise UserError(
            "--from re-runs steps for real and needs their tools; the run recorded "
            "no tool files, so pass --tools PATH"
        )

    async def go() -> Any:
        # Tools are opened only to re-run the --from subtree; a plain replay calls none.
        paths = setup["tools"] if from_step else []
        async with open_tools(paths, include_entry_points=bool(from_step)) as registry:
            with _open(db) as store:
                return await replay_run(
                    store,
                    run_id,
                    from_step=from_step,
                    tools=registry if from_step else None,
                    approve_all=approve_all,
                    record=not no_record,
                    sinks=(_progress,),
                )

    settle_heap()
    result = eventloop.run(go())
    ok = result.same if not from_step else result.state.status == "succeeded"
    if as_json:
        data = _summary(result.state)
        data.update(
            {
                "replay_of": result.original_run_id,
                "same_final_state": len(result.differences) == len(result.event_differences),
                "same_events": not result.event_differences if not from_step else None,
                "same_order": result.same_order,
                "events_compared": result.events_compared,
                "differences": result.differences,
                "replayed_calls": result.counter.replayed,
                "real_calls": result.counter.real,
                "real_steps": sorted(result.real_steps),
            }
        )
        print_json(_scrub(data))
    else:
        if from_step:
            verdict = "same final state" if result.same else "DIVERGED"
        else:
            verdict = f"same {result.events_compared} events" if result.same else "DIVERGED"
        click.echo(
            f"replayed run {result.original_run_id} as {result.run_id}: {verdict} "
            f"({result.counter.replayed} recorded results, {result.counter.real} real "
            f"calls{', from ' + from_step if from_step else ''})"
        )
        for diff in result.differences:
            click.echo(default_redactor().redact_text(f"  {diff}"))
    return EXIT_OK if ok else EXIT_FAILED


__all__ = ["replay_command", "resume_command", "runs_command", "show_command"]
