"""``forethought stats``: metrics across recorded runs (definitions in ``runs.stats``)."""

from __future__ import annotations

import datetime as dt
import re
import time
from typing import Any

import click

from forethought.interfaces.cli._common import EXIT_OK, json_option, print_json
from forethought.interfaces.cli.runs_cmd import _open_for_reading, db_option
from forethought.runs.stats import Stats, stats

_DURATION = re.compile(r"^(\d+(?:\.\d+)?)([smhdw])$")
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_since(text: str, *, now: float | None = None) -> float:
    """``7d`` / ``12h`` / ``30m`` / ``2w`` ago, or an ISO date/time (local time when no zone)."""
    m = _DURATION.match(text.strip())
    if m:
        return (time.time() if now is None else now) - float(m.group(1)) * _UNIT_S[m.group(2)]
    try:
        when = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise click.BadParameter(
            f"{text!r} is neither a duration (30m, 12h, 7d, 2w) nor an ISO date (2026-11-01)",
            param_hint="--since",
        ) from None
    return when.timestamp()


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _secs(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}s"


def stats_text(s: Stats) -> str:
    lines = [
        f"runs                     {s.runs} ({s.finished_runs} finished)",
        f"success rate             {_pct(s.success_rate)} ({s.succeeded_runs}/{s.finished_runs} finished)",
        "steps per run            " + ("n/a" if s.steps_per_run is None else f"{s.steps_per_run:.2f}"),
        f"evaluator disagreement   {_pct(s.evaluator_disagreement_rate)} "
        f"({s.rejected_attempts}/{s.evaluated_attempts} attempts)",
        f"escalation rate          {_pct(s.escalation_rate)} ({s.escalated_runs} runs)",
        f"replan rate              {_pct(s.replan_rate)} ({s.replanned_runs} runs, {s.replans} replans)",
        f"tokens                   {s.input_tokens} in / {s.output_tokens} out",
        f"cost                     ${s.cost_usd:.4f}"
        + (
            f" (lower bound: {s.unpriced_model_calls} model calls had no price)"
            if s.unpriced_model_calls
            else ""
        ),
        f"makespan p50 / p95       {_secs(s.makespan_p50_s)} / {_secs(s.makespan_p95_s)}",
        f"critical-path share      {_pct(s.critical_path_share)}",
    ]
    if s.tool_success:
        lines.append("tool success:")
        width = max(len(t) for t in s.tool_success)
        for tool, t in sorted(s.tool_success.items()):
            lines.append(f"  {tool:<{width}}  {_pct(t.success_rate)} ({t.succeeded}/{t.attempts})")
    return "\n".join(lines)


@click.command("stats")
@db_option
@json_option
@click.option(
    "--since", default=None, help="Only runs created since: a duration (30m, 12h, 7d, 2w) or an ISO date."
)
@click.option("--goal-like", default=None, help="Only runs whose goal contains TEXT (case-insensitive).")
def stats_command(db: str | None, as_json: bool, since: str | None, goal_like: str | None) -> int:
    """Metrics across recorded runs, computed from their event logs.

    \b
    success rate: succeeded / finished (succeeded, failed, cancelled) runs.
    steps per run: mean steps in each run's final plan.
    tool success: per tool, ended attempts of tool steps plus tool calls inside agent steps;
      an attempt whose check rejected the result is a failure.
    evaluator disagreement: of the step attempts whose tool returned without error, the
      share a check rejected (check_failed).
    escalation rate: runs ever awaiting approval or paused / runs.
    replan rate: runs with at least one replan request / runs.
    cost: recorded model-call cost; a lower bound when some calls had no known price.
    makespan: first step start to last step end; p50/p95 by nearest rank.
    critical-path share: mean of (measured critical path / makespan) over runs.
    """
    since_ts = parse_since(since) if since else None
    with _open_for_reading(db) as store:
        result = stats(store, since=since_ts, goal_like=goal_like)
    if as_json:
        data: Any = result.to_json()
        print_json(data)
    else:
        click.echo(stats_text(result))
    return EXIT_OK
