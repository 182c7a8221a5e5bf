"""Per-step tokens and cost: model calls recorded for a step (agent turns, critic checks) are
attributed to it in ``show RUN`` and its ``--json`` summary; run totals keep their keys."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from forethought.events import kinds as ev
from forethought.events.state import fold
from forethought.interfaces.cli.main import run as cli_run
from forethought.plan.model import Plan, Step
from forethought.runs.store.sqlite import SqliteStore


def _events() -> list[Any]:
    plan = Plan(
        goal="g", steps=(Step(id="x", tool="fetch"), Step(id="y", agent="summarize", depends_on=("x",)))
    )
    out: list[Any] = []

    def add(cls: type[Any], **fields: Any) -> None:
        out.append(cls(run_id="run-1", seq=len(out), ts=100.0 + len(out), **fields))

    add(ev.RunCreated, goal="g")
    add(ev.PlanProposed, plan=plan.model_dump(mode="json"), plan_hash=plan.plan_hash())
    add(ev.ModelCalled, role="planner", model="m", input_tokens=100, output_tokens=50, cost_usd=0.5)
    add(ev.StepStarted, step_id="x", attempt=1)
    add(
        ev.ModelCalled, role="critic", model="m", step_id="x", input_tokens=3, output_tokens=1, cost_usd=0.001
    )
    add(ev.StepSucceeded, step_id="x", attempt=1, output="page")
    add(ev.StepStarted, step_id="y", attempt=1)
    add(
        ev.ModelCalled,
        role="executor",
        model="m",
        step_id="y",
        input_tokens=10,
        output_tokens=5,
        cost_usd=0.01,
    )
    add(
        ev.ModelCalled,
        role="executor",
        model="m",
        step_id="y",
        input_tokens=20,
        output_tokens=7,
        cost_usd=0.02,
    )
    # A call naming a step no plan has must not invent a step.
    add(ev.ModelCalled, role="executor", model="m", step_id="ghost", input_tokens=1, output_tokens=1)
    add(ev.StepSucceeded, step_id="y", attempt=1, output="summary")
    add(ev.RunFinished, status="succeeded")
    return out


def test_fold_attributes_model_calls_to_steps() -> None:
    state = fold(_events())
    x, y = state.steps["x"], state.steps["y"]
    assert (x.model_calls, x.input_tokens, x.output_tokens, x.cost_usd) == (1, 3, 1, 0.001)
    assert (y.model_calls, y.input_tokens, y.output_tokens) == (2, 30, 12)
    assert y.cost_usd == pytest.approx(0.03)
    assert "ghost" not in state.steps
    assert (state.input_tokens, state.output_tokens) == (134, 64)  # run totals include every call


def test_show_json_and_text_carry_step_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "runs.db"
    store = SqliteStore(db)
    store.append_many(_events())
    store.close()
    assert cli_run(["show", "run-1", "--db", str(db), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    summary = data  # show --json is the run summary itself
    y = summary["steps"]["y"]
    assert (y["model_calls"], y["input_tokens"], y["output_tokens"], y["tokens"]) == (2, 30, 12, 42)
    assert y["cost_usd"] == pytest.approx(0.03)
    assert summary["steps"]["x"]["tokens"] == 4
    assert summary["tokens"] == 198 and summary["cost_usd"] == pytest.approx(0.531)  # DESIGN.md keys
    assert (summary["input_tokens"], summary["output_tokens"]) == (134, 64)
    assert cli_run(["show", "run-1", "--db", str(db)]) == 0
    text = capsys.readouterr().out
    assert "30+12 tok $0.0300" in text and "3+1 tok $0.0010" in text
