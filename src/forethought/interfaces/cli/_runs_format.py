"""Text rendering for ``runs`` and ``show``: plain lines, secrets scrubbed, widths bounded.

Everything printed goes through ``redact_text`` even though stored data was redacted on the way
in: a database written by an older version, or a secret that only became known (a new env var)
after the run, must not be printed either.
"""

from __future__ import annotations

import json
import time
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from forethought.events.kinds import Event
from forethought.events.state import RunState
from forethought.oversight.redaction import redact_text
from forethought.runs.store.base import PlanVersionRow, RunRow


def fmt_time(ts: float | None) -> str:
    if ts is None:
        return "-"
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts))


def short(value: Any, width: int = 70) -> str:
    text = (
        value
        if isinstance(value, str)
        else json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":"))
    )
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def runs_table(
    rows: Sequence[RunRow], modified: Collection[str] = (), workers: Mapping[str, str] | None = None
) -> str:
    """``modified``: ids of runs whose record fails verification; their status is marked.
    ``workers`` (a shared database): who holds each run, or its place in the queue."""
    if not rows:
        return "no runs recorded yet"
    head = f"{'RUN':<14} {'STATUS':<18} {'CREATED':<19}  "
    lines = [head + (f"{'WORKER':<28} GOAL" if workers is not None else "GOAL")]
    for r in rows:
        status = f"{r.status} (MODIFIED)" if r.run_id in modified else r.status
        worker = "" if workers is None else f"{short(workers.get(r.run_id, '-'), 28):<28} "
        lines.append(f"{r.run_id:<14} {status:<18} {fmt_time(r.created_at):<19}  {worker}{short(r.goal, 60)}")
    if modified:
        lines.append(
            "MODIFIED: the record was changed outside forethought (`forethought show RUN` says where)"
        )
    return redact_text("\n".join(lines))


def _event_detail(e: Event) -> str:
    data = e.model_dump(mode="json", exclude={"run_id", "seq", "ts", "plan_version", "kind"})
    if e.kind in ("plan_proposed", "plan_revised"):
        steps = data.get("plan", {}).get("steps", [])
        data["plan"] = f"<{len(steps)} steps>"
        data.pop("diff", None)
    if e.kind == "steps_added":
        data["steps"] = [s.get("id") for s in data.get("steps", [])]
    parts = []
    for key, value in data.items():
        if value in (None, "", [], {}) and key != "output":
            continue
        if isinstance(value, float):
            value = float(f"{value:.4g}")
        elif key.endswith("hash") and isinstance(value, str):
            value = value[:12]
        parts.append(f"{key}={short(value, 60)}")
    return " ".join(parts)


def timeline(events: Sequence[Event], limit: int | None = None) -> list[str]:
    if not events:
        return []
    t0 = events[0].ts
    shown = events if limit is None or len(events) <= limit else events[-limit:]
    lines = []
    if len(shown) < len(events):
        lines.append(f"  … {len(events) - len(shown)} earlier events (use --events all)")
    for e in shown:
        lines.append(f"  {e.ts - t0:>9.3f}s  #{e.seq:<5} {e.kind:<22} {_event_detail(e)}")
    return lines


def show_text(
    row: RunRow,
    state: RunState,
    versions: Sequence[PlanVersionRow],
    events: Sequence[Event],
    event_limit: int | None,
    record: Sequence[str] = (),
) -> str:
    """``record``: lines about the record's integrity (``runs.integrity``), shown after the title."""
    out = [
        f"run {row.run_id}: {state.status}" + (f" — {state.reason}" if state.reason else ""),
        *record,
        f"goal: {state.goal or row.goal}",
        f"created {fmt_time(row.created_at)}, updated {fmt_time(row.updated_at)}, {len(events)} events",
        f"tokens {state.input_tokens} in / {state.output_tokens} out, cost ${state.cost_usd:.4f}",
    ]
    out.append("plan versions:")
    for v in versions:
        n = len(json.loads(v.plan_json).get("steps", []))
        out.append(f"  v{v.version}  {v.hash[:12]}  {n} steps  {fmt_time(v.created_at)}")
    out.append("steps:")
    for sid, st in state.steps.items():
        dur = f"{st.duration_s:.3f}s" if st.duration_s is not None else "-"
        line = f"  {sid:<16} {st.status:<13} attempts={st.attempts} {dur:>9}"
        if st.model_calls:
            line += f"  {st.input_tokens}+{st.output_tokens} tok ${st.cost_usd:.4f}"
        if st.status == "succeeded":
            line += f"  → {short(st.output, 60)}"
        elif st.error or st.skip_reason:
            line += f"  ! {short(st.error or st.skip_reason, 80)}"
        out.append(line)
    out.append("timeline:")
    out.extend(timeline(events, event_limit))
    return redact_text("\n".join(out))
