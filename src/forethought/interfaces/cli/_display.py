"""What `forethought run` shows a person: the review screen and live progress.

Both read only events and plans (the same stream the store records), so what a person sees is
what was recorded. On a terminal progress is a live table; elsewhere it is one plain line per
step transition on stderr, with no colours, so logs and pipes stay readable.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import click
from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from forethought.agent import Decision, PlanReview
from forethought.errors import UserError
from forethought.events import kinds as E
from forethought.events.kinds import Event
from forethought.oversight.policy import needs_approval
from forethought.oversight.redaction import redact_text
from forethought.plan.files import check_data, dump_plan, parse_text
from forethought.plan.graph import plan_critical_path
from forethought.plan.model import Plan
from forethought.tools.base import ToolSpec

SYMBOLS = {
    "succeeded": "✓",
    "failed": "✗",
    "running": "⟳",
    "pending": "⏸",
    "ready": "⏸",
    "skipped": "–",
    "cancelled": "⊘",
    "needs_review": "?",
}
STYLES = {
    "succeeded": "green",
    "failed": "red",
    "running": "cyan",
    "skipped": "dim",
    "cancelled": "yellow",
    "needs_review": "magenta",
}
# Rough per-step estimates for the review screen (a tool call costs no tokens; an agent step
# runs a few model turns). Measured figures replace them in the run summary.
AGENT_STEP_TOKENS = 1500
DEFAULT_LATENCY_S = 1.0


def _latency(step_tool: str | None, specs: Mapping[str, ToolSpec]) -> float:
    spec = specs.get(step_tool or "")
    if spec is not None and spec.est_latency_s is not None:
        return spec.est_latency_s
    return DEFAULT_LATENCY_S if step_tool else 5.0


def plan_table(plan: Plan, specs: Mapping[str, ToolSpec]) -> Table:
    latency = {name: _latency(name, specs) for name in specs}
    cp = plan_critical_path(plan, latency)
    table = Table(title=f"plan v{plan.version}: {redact_text(plan.goal)}", title_justify="left")
    for column in ("", "step", "does", "effect", "after", "est."):
        table.add_column(column)
    total_tokens = 0
    for step in plan.iter_all_steps():
        in_rollback = step in plan.rollback
        spec = specs.get(step.tool or "")
        effect = "agent" if step.agent else (spec.effect if spec else "unknown")
        tokens = AGENT_STEP_TOKENS if step.agent else 0
        total_tokens += tokens
        does = f"{step.tool}({_args_preview(step.args)})" if step.tool else f"agent: {step.agent}"
        est = f"~{_latency(step.tool, specs):g}s" + (f", ~{tokens} tok" if tokens else "")
        marker = "*" if step.id in cp.steps else ("↺" if in_rollback else "")
        style = "bold red" if effect == "destructive" else "yellow" if needs_approval(step, spec) else ""
        table.add_row(
            marker, step.id, does[:70], Text(effect, style=style), ", ".join(step.all_dependencies()), est
        )
    table.caption = (
        f"* critical path {' → '.join(cp.steps)} ≈ {cp.length_s:g}s · "
        f"≈{total_tokens} tokens · ↺ rollback · hash {plan.plan_hash()[:12]}"
    )
    table.caption_justify = "left"
    return table


def _args_preview(args: Mapping[str, Any]) -> str:
    parts = [f"{k}={v!r}" if not isinstance(v, (dict, list)) else f"{k}=…" for k, v in args.items()]
    text = ", ".join(parts)
    return text if len(text) <= 50 else text[:49] + "…"


def call_text(tool: str | None, args: Mapping[str, Any], agent: str | None = None) -> str:
    """``tool(k=v, ...)`` with secrets redacted: what a person approving needs to see."""
    from forethought.oversight.redaction import default_redactor

    if tool is None:
        return f"agent: {redact_text(agent or '')}"
    shown = default_redactor().redact(dict(args))
    inner = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in shown.items())
    text = f"{tool}({inner})"
    return text if len(text) <= 300 else text[:299] + "…"


def pending_step_lines(
    plan: Plan, waiting: Iterable[str] | None, specs: Mapping[str, ToolSpec] | None = None
) -> list[str]:
    """One line per step waiting for approval: ``  ID  tool(args)``. ``waiting`` names the
    steps (as recorded in ``approval_requested``); without it, every step the approval policy
    holds back (with ``specs``)."""
    by_id = {s.id: s for s in plan.iter_all_steps()}
    if waiting is None:
        ids = [s.id for s in plan.steps if needs_approval(s, (specs or {}).get(s.tool or ""))]
    else:
        ids = [sid for sid in waiting if sid in by_id]
    return [f"  {sid}  {call_text(by_id[sid].tool, by_id[sid].args, by_id[sid].agent)}" for sid in ids]


class InteractiveReviewer:
    """The review screen: approve, edit in $EDITOR (re-validated, looping), or reject."""

    def __init__(self, console: Console) -> None:
        self.console = console

    async def __call__(self, review: PlanReview) -> Decision:
        plan = review.plan
        while True:
            self.console.print(plan_table(plan, review.specs))
            if review.cost is not None and plan is review.plan:
                self.console.print(review.cost.text(), markup=False, highlight=False, style="dim")
            if review.coverage is not None and not review.coverage.covered and plan is review.plan:
                self.console.print("[red]The plan does not cover the goal:[/]")
                for finding in review.coverage.missing:
                    self.console.print(f"  - {finding}", markup=False, highlight=False)
            if review.side_effect_steps:
                self.console.print(
                    f"[yellow]Needs approval:[/] {review.reason} ({', '.join(review.side_effect_steps)})"
                )
            choice = click.prompt(
                "[a]pprove, [e]dit, [r]eject",
                type=click.Choice(["a", "e", "r"], case_sensitive=False),
                default="a",
                show_choices=False,
            ).lower()
            if choice == "a":
                return Decision("approve", plan if plan is not review.plan else None)
            if choice == "r":
                note = click.prompt("reason (optional)", default="", show_default=False)
                return Decision("reject", note=note)
            edited = self.edit(plan, review.specs)
            if edited is not None and edited != plan:
                return Decision("edit", edited)

    def edit(self, plan: Plan, specs: Mapping[str, ToolSpec]) -> Plan | None:
        """Open $EDITOR on the plan's YAML until it is valid or the user gives up."""
        editor = shlex.split(os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi")
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "plan.yaml"
            path.write_text(dump_plan(plan), encoding="utf-8")
            while True:
                try:
                    subprocess.run([*editor, str(path)], check=False)
                except FileNotFoundError:
                    self.console.print(f"[red]editor {editor[0]!r} not found; set $EDITOR[/]")
                    return None
                messages: list[str]
                try:
                    data = parse_text(path.read_text(encoding="utf-8"), "yaml", str(path))
                    edited, problems = check_data(data, specs)
                    messages = [str(p) for p in problems]
                except UserError as exc:  # a parse error is one line; show it and loop
                    edited, messages = None, [str(exc)]
                if edited is not None and not messages:
                    return edited
                for message in messages:
                    self.console.print(message, style="red", highlight=False, markup=False)
                if not click.confirm("The plan is invalid. Edit again?", default=True):
                    return None


class Progress:
    """Live per-step state from the event stream."""

    def __init__(self, console: Console, *, live: bool) -> None:
        self.console = console
        self.live_mode = live
        self.steps: dict[str, dict[str, Any]] = {}
        self.notes: list[str] = []
        self.tokens = 0
        self.cost = 0.0
        self.started = time.time()
        self._live: Live | None = None

    def __enter__(self) -> Progress:
        return self  # the live table starts with the first event: after the review screen

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.update(self.render())
            self._live.__exit__(None, None, None)

    async def __call__(self, event: Event) -> None:
        self.observe(event)
        if self.live_mode and self._live is None:
            self._live = Live(self.render(), console=self.console, refresh_per_second=8, transient=False)
            self._live.__enter__()
        if self._live is not None:
            self._live.update(self.render())

    def observe(self, event: Event) -> None:
        sid = getattr(event, "step_id", None)
        status: str | None = None
        match event:
            case E.ModelCalled():
                used = event.input_tokens + event.output_tokens
                self.tokens += used
                self.cost += event.cost_usd
                if sid and sid in self.steps:
                    self.steps[sid]["tokens"] += used
            case E.PlanProposed():
                self._add_rows(event.plan.get("steps", []))
            case E.PlanRevised():
                self._add_rows(event.plan.get("steps", []))
                d = event.diff
                self._note(
                    f"plan v{event.new_version}: +{len(d.get('added', []))} "
                    f"-{len(d.get('removed', []))} ~{len(d.get('changed', {}))} ({event.reason})"
                )
            case E.StepsAdded():
                self._add_rows(event.steps)
            case E.StepStarted():
                status = "running"
            case E.StepSucceeded():
                status = "succeeded"
            case E.StepSkipped():
                status = "skipped"
            case E.StepCancelled():
                status = "cancelled"
            case E.StepNeedsReview():
                status = "needs_review"
            case E.StepFailed():
                status = "failed" if event.final else "running"
            case E.BudgetExceeded() | E.ApprovalRequested() | E.RunPaused() | E.ReplanRequested():
                self._note(f"{event.kind.replace('_', ' ')}: {_describe(event)}")
        if status and sid:
            row = self.steps.setdefault(sid, self._blank({"id": sid}))
            row["status"] = status
            if isinstance(event, E.StepStarted):
                row["attempts"] = event.attempt
                row["start"] = row.get("start") or event.ts
            if status in ("succeeded", "failed", "skipped", "cancelled", "needs_review"):
                row["end"] = event.ts
                row["error"] = getattr(event, "error", None) or getattr(event, "reason", None)
            if not self.live_mode:
                self._line(sid, row)

    def _add_rows(self, steps: Any) -> None:
        for step in steps:
            self.steps.setdefault(str(step["id"]), self._blank(step))

    @staticmethod
    def _blank(step: Mapping[str, Any]) -> dict[str, Any]:
        action = step.get("tool") or ("agent" if step.get("agent") else "")
        return {
            "status": "pending",
            "attempts": 0,
            "start": None,
            "end": None,
            "tokens": 0,
            "error": None,
            "action": action,
        }

    def _note(self, text: str) -> None:
        text = redact_text(text)
        self.notes.append(text)
        if not self.live_mode:
            click.echo(f"  · {text}", err=True)

    def _line(self, sid: str, row: Mapping[str, Any]) -> None:
        took = ""
        if row["start"] and row["end"]:
            took = f" {row['end'] - row['start']:.2f}s"
        error = f" — {row['error']}" if row["error"] and row["status"] != "succeeded" else ""
        line = f"{SYMBOLS.get(row['status'], ' ')} {sid} {row['action']}{took}{error}"
        click.echo(redact_text(line)[:300], err=True)

    def render(self) -> Group:
        table = Table(show_header=True, header_style="bold")
        for column in ("", "step", "does", "time", "tries", "tokens"):
            table.add_column(column)
        now = time.time()
        for sid, row in self.steps.items():
            start, end = row["start"], row["end"]
            took = f"{(end or now) - start:.1f}s" if start else ""
            table.add_row(
                Text(SYMBOLS.get(row["status"], " "), style=STYLES.get(row["status"], "")),
                sid,
                str(row["action"]),
                took,
                str(row["attempts"] or ""),
                str(row["tokens"] or ""),
            )
        footer = Text(
            f"elapsed {now - self.started:.1f}s · {self.tokens} tokens · ${self.cost:.4f}", style="dim"
        )
        return Group(table, *[Text(n, style="yellow") for n in self.notes[-4:]], footer)


def _describe(event: Event) -> str:
    for attr in ("reason", "budget"):
        value = getattr(event, attr, None)
        if value:
            return str(value)
    return event.kind


def is_interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()
