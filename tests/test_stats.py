"""``forethought stats`` against figures computed by hand from a fixture database of known events.

The fixture (timestamps in seconds):

- A "deploy app", succeeded. Plan a(fetch) → b(build); c(fetch) independent.
  a: 110–112 ok. c: attempt 1 fails at 111 (retried), attempt 2 ok at 114 (110–114 = 4 s).
  b: attempt 1 at 112, check rejects it at 115, attempt 2 ok at 117 (112–117 = 5 s).
  Planner call 10 in / 5 out, $0.01. Makespan 110–117 = 7; critical path a+b = 7 → share 1.
- B "deploy db", failed. Plan x(build), y(agent), independent; approval requested; one replan.
  x: 210–211 ok. y: 211–219, calls fetch twice (one error), model 100/50 $0.02 and 20/0 $0
  (unpriced), fails. Makespan 210–219 = 9; critical path max(1, 8) = 8 → share 8/9.
- C "write report", paused by a budget. r(write) 310–313 ok. Makespan 3, share 1.
- D "deploy old", created at 50, cancelled before any step ran (1 step in plan).

Hand-computed, all four runs: runs 4, finished 3 (A, B, D), succeeded 1 → 1/3; steps
(3+2+1+1)/4 = 1.75; fetch 3 of 5 (a ok, c fail+ok, y's two calls), build 2 of 3 (b rejected+ok,
x ok), write 1 of 1; evaluated attempts a1 c2 b1 b2 x1 r1 = 6, rejected b1 → 1/6; escalated B, C
→ 2/4; replanned B → 1/4; tokens 130 in / 55 out; cost $0.03 with 1 unpriced call; makespans
{7, 9, 3}: p50 (rank 2) 7, p95 (rank 3) 9; critical-path share (1 + 8/9 + 1)/3 = 26/27.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from _store_support import database
from forethought.events import kinds as ev
from forethought.interfaces.cli.main import run as cli_run
from forethought.interfaces.cli.stats_cmd import parse_since
from forethought.plan.model import Plan, Step
from forethought.runs.stats import nearest_rank, stats
from forethought.runs.store.base import Store
from forethought.runs.store.opening import open_store

db = pytest.fixture(params=["sqlite", "postgresql"])(database)


class _Run:
    def __init__(self, run_id: str) -> None:
        self.run_id, self.seq, self.events = run_id, 0, []  # type: ignore[var-annotated]

    def __call__(self, ts: float, cls: type[Any], **fields: Any) -> None:
        self.events.append(cls(run_id=self.run_id, seq=self.seq, ts=ts, **fields))
        self.seq += 1

    def plan(self, ts: float, plan: Plan) -> None:
        self(ts, ev.PlanProposed, plan=plan.model_dump(mode="json"), plan_hash=plan.plan_hash())


def _fixture_runs() -> list[list[Any]]:
    a = _Run("run-a")
    a(100, ev.RunCreated, goal="deploy app")
    a.plan(
        101,
        Plan(
            goal="deploy app",
            steps=(
                Step(id="a", tool="fetch"),
                Step(id="b", tool="build", depends_on=("a",)),
                Step(id="c", tool="fetch"),
            ),
        ),
    )
    a(102, ev.ModelCalled, role="planner", model="m", input_tokens=10, output_tokens=5, cost_usd=0.01)
    a(110, ev.StepStarted, step_id="a", attempt=1)
    a(110, ev.StepStarted, step_id="c", attempt=1)
    a(111, ev.StepFailed, step_id="c", attempt=1, error="flaky", final=False, retry_in_s=0.0)
    a(111, ev.StepStarted, step_id="c", attempt=2)
    a(112, ev.StepSucceeded, step_id="a", attempt=1)
    a(112, ev.StepStarted, step_id="b", attempt=1)
    a(114, ev.StepSucceeded, step_id="c", attempt=2)
    a(115, ev.CheckFailed, step_id="b", attempt=1, criterion="exit==0", detail="1")
    a(115, ev.StepFailed, step_id="b", attempt=1, error="check", failure_class="check", final=False)
    a(115, ev.StepStarted, step_id="b", attempt=2)
    a(117, ev.StepSucceeded, step_id="b", attempt=2)
    a(118, ev.RunFinished, status="succeeded")

    b = _Run("run-b")
    b(200, ev.RunCreated, goal="Deploy DB")
    plan_b = Plan(goal="deploy db", steps=(Step(id="x", tool="build"), Step(id="y", agent="migrate")))
    b.plan(200, plan_b)
    b(201, ev.ApprovalRequested, plan_hash=plan_b.plan_hash(), reason="writes")
    b(202, ev.PlanApproved, plan_hash=plan_b.plan_hash(), approver="me")
    b(210, ev.StepStarted, step_id="x", attempt=1)
    b(211, ev.StepSucceeded, step_id="x", attempt=1)
    b(211, ev.StepStarted, step_id="y", attempt=1)
    b(212, ev.ToolCalled, step_id="y", tool="fetch", output="ok")
    b(213, ev.ToolCalled, step_id="y", tool="fetch", error="404")
    b(
        214,
        ev.ModelCalled,
        role="executor",
        model="m",
        step_id="y",
        input_tokens=100,
        output_tokens=50,
        cost_usd=0.02,
    )
    b(215, ev.ModelCalled, role="executor", model="n", step_id="y", input_tokens=20, output_tokens=0)
    b(219, ev.StepFailed, step_id="y", attempt=1, error="gave up")
    b(219, ev.ReplanRequested, step_id="y", reason="y failed")
    b(220, ev.RunFinished, status="failed")

    c = _Run("run-c")
    c(300, ev.RunCreated, goal="write report")
    c.plan(300, Plan(goal="write report", steps=(Step(id="r", tool="write"),)))
    c(310, ev.StepStarted, step_id="r", attempt=1)
    c(313, ev.StepSucceeded, step_id="r", attempt=1)
    c(314, ev.BudgetExceeded, budget="cost", limit=1.0, used=1.5, action="pause")
    c(314, ev.RunPaused, reason="budget")

    d = _Run("run-d")
    d(50, ev.RunCreated, goal="deploy old")
    d.plan(50, Plan(goal="deploy old", steps=(Step(id="z", tool="fetch"),)))
    d(60, ev.RunFinished, status="cancelled")
    return [a.events, b.events, c.events, d.events]


def _fill(store: Store) -> None:
    for events in _fixture_runs():
        store.append_many(events)


def test_stats_match_hand_computed_figures(db: str) -> None:
    with open_store(db) as store:
        _fill(store)
        s = stats(store)
    assert (s.runs, s.finished_runs, s.succeeded_runs) == (4, 3, 1)
    assert s.success_rate == pytest.approx(1 / 3)
    assert s.steps_per_run == pytest.approx(1.75)
    got_tools = {t: (x.attempts, x.succeeded) for t, x in s.tool_success.items()}
    assert got_tools == {"fetch": (5, 3), "build": (3, 2), "write": (1, 1)}
    assert (s.evaluated_attempts, s.rejected_attempts) == (6, 1)
    assert s.evaluator_disagreement_rate == pytest.approx(1 / 6)
    assert (s.escalated_runs, s.escalation_rate) == (2, 0.5)
    assert (s.replanned_runs, s.replans, s.replan_rate) == (1, 1, 0.25)
    assert (s.input_tokens, s.output_tokens) == (130, 55)
    assert s.cost_usd == pytest.approx(0.03)
    assert s.unpriced_model_calls == 1
    assert (s.makespan_p50_s, s.makespan_p95_s) == (7.0, 9.0)
    assert s.critical_path_share == pytest.approx(26 / 27)


def test_filters_select_runs(db: str) -> None:
    with open_store(db) as store:
        _fill(store)
        recent = stats(store, since=100)
        deploys = stats(store, goal_like="DEPLOY")
        none = stats(store, goal_like="no such goal")
    # Without D: A, B finished, A succeeded; steps (3+2+1)/3.
    assert (recent.runs, recent.finished_runs, recent.success_rate) == (3, 2, 0.5)
    assert recent.steps_per_run == pytest.approx(2.0)
    # A, B, D (case-insensitive): steps (3+2+1)/3; the write tool is C's only.
    assert deploys.runs == 3 and "write" not in deploys.tool_success
    assert deploys.escalated_runs == 1
    # Nothing selected: no rate is invented.
    assert none.runs == 0 and none.success_rate is None and none.makespan_p50_s is None


def test_cli_json_and_text(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    with open_store(db) as store:
        _fill(store)
    assert cli_run(["stats", "--db", db, "--json", "--since", "1970-01-01T00:01:40+00:00"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["runs"] == 3 and data["tool_success"]["fetch"] == {
        "attempts": 5,
        "succeeded": 3,
        "success_rate": 0.6,
    }
    assert cli_run(["stats", "--db", db, "--goal-like", "write"]) == 0
    out = capsys.readouterr().out
    assert "success rate             n/a (0/0 finished)" in out
    assert "escalation rate          100.0% (1 runs)" in out
    assert "write  100.0% (1/1)" in out


def test_bad_since_is_invalid_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_run(["stats", "--db", str(tmp_path / "r.db"), "--since", "last tuesday"]) == 2
    assert "--since" in capsys.readouterr().err


def test_parse_since_durations() -> None:
    assert parse_since("2h", now=10_000.0) == 10_000.0 - 7200
    assert parse_since("7d", now=1e6) == 1e6 - 7 * 86400


def test_nearest_rank() -> None:
    assert nearest_rank([], 50) is None
    assert nearest_rank([5.0], 95) == 5.0
    assert [nearest_rank(range(1, 21), p) for p in (50, 95, 100)] == [10, 19, 20]
