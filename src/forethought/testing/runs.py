"""Builders for the events of plausible runs, for store and resume tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from forethought.events import kinds as ev
from forethought.plan.model import Plan, Step


class Seq:
    """Builds the events of one run with consecutive sequence numbers."""

    def __init__(self, run_id: str, start: int = 0, ts: float = 1_000.0) -> None:
        self.run_id = run_id
        self.seq = start
        self.ts = ts

    def __call__(self, cls: type[Any], **fields: Any) -> Any:
        fields.setdefault("ts", self.ts)
        event = cls(run_id=self.run_id, seq=self.seq, **fields)
        self.seq += 1
        self.ts += 1.0
        return event


def small_plan(n: int = 3) -> Plan:
    """A chain of ``n`` ``echo`` steps: s0 → s1 → …"""
    return Plan(
        goal="demo",
        steps=tuple(
            Step(id=f"s{i}", tool="echo", args={"i": i}, depends_on=(f"s{i - 1}",) if i else ())
            for i in range(n)
        ),
    )


def full_run(run_id: str, n_steps: int = 3, *, goal: str = "demo") -> list[Any]:
    """A plausible complete, successful run's events."""
    b = Seq(run_id)
    plan = small_plan(n_steps)
    out = [
        b(ev.RunCreated, goal=goal),
        b(ev.PlanProposed, plan=plan.model_dump(mode="json"), plan_hash=plan.plan_hash()),
        b(ev.PlanApproved, plan_hash=plan.plan_hash(), approver="test"),
    ]
    for step in plan.steps:
        out.append(b(ev.StepReady, step_id=step.id))
        out.append(b(ev.StepStarted, step_id=step.id, attempt=1, idempotency_key=f"k-{step.id}"))
        out.append(
            b(
                ev.ModelCalled,
                role="executor",
                model="scripted",
                step_id=step.id,
                input_tokens=10,
                output_tokens=5,
                cost_usd=0.001,
            )
        )
        out.append(b(ev.StepSucceeded, step_id=step.id, attempt=1, output={"i": step.id}))
    out.append(b(ev.RunFinished, status="succeeded"))
    return out


def chunks(items: list[Any], cuts: list[int]) -> Iterator[list[Any]]:
    """``items`` split at the positions in ``cuts`` (out-of-range and repeated cuts ignored)."""
    start = 0
    for cut in sorted(set(cuts)):
        if start < cut < len(items):
            yield items[start:cut]
            start = cut
    yield items[start:]


__all__ = ["Seq", "chunks", "full_run", "small_plan"]
