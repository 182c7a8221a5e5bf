"""``forethought eval``: the example suite end to end, exit codes flipping on tolerance bands and a
baseline, bad suite files as one line with exit 2, and the scoring read from recorded events."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from forethought.evaluation import load_suite
from forethought.evaluation.scoring import check_tools, check_value, run_facts
from forethought.evaluation.suite import ToolExpectation, ValueCheck
from forethought.events import kinds as ev
from forethought.interfaces.cli.main import run as cli_run
from forethought.runs.store.opening import open_store

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "examples" / "eval" / "suite.yaml"
EXAMPLES = REPO / "examples"


def _eval(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli_run(["eval", *[str(a) for a in args]])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def example_report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The example suite, run once for the module (it takes a few seconds: real processes)."""
    tmp = tmp_path_factory.mktemp("example")
    report, junit = tmp / "report.json", tmp / "report.xml"
    before = _sources()
    code = cli_run(
        ["eval", str(SUITE), "--json", str(report), "--junit", str(junit), "--out", str(tmp / "out")]
    )
    data: dict[str, Any] = json.loads(report.read_text())
    data["_exit"] = code
    data["_junit"] = junit.read_text()
    data["_out"] = str(tmp / "out")
    data["_sources_changed"] = before != _sources()
    return data


def _sources() -> dict[str, float]:
    """The example sources' files and modification times."""
    roots = [EXAMPLES / "deploy", EXAMPLES / "files_report" / "workspace"]
    return {str(p): p.stat().st_mtime for root in roots for p in root.rglob("*") if p.is_file()}


def test_the_example_suite_passes_with_its_two_faults(example_report: dict[str, Any]) -> None:
    assert example_report["_exit"] == 0, json.dumps(example_report["tasks"], indent=1)
    tasks = {t["id"]: t for t in example_report["tasks"]}
    assert set(tasks) == {
        "deploy",
        "deploy-smoke-fault",
        "count-words",
        "backup-timeout-fault",
        "list-docs-planned",
    }
    assert all(t["passed"] for t in tasks.values())
    # Fault 1: the production smoke test (second call) failed, and the run rolled back.
    smoke = tasks["deploy-smoke-fault"]
    assert smoke["faults_fired"] == [{"tool": "run_smoke_tests", "call": 2, "kind": "fail"}]
    assert (smoke["status"], smoke["rolled_back"], smoke["escalated"]) == ("failed", True, False)
    assert smoke["tool_calls"][-2:] == ["rollback_production", "notify_team"]
    # Fault 2: the first read timed out; one retry, then success.
    backup = tasks["backup-timeout-fault"]
    assert backup["faults_fired"] == [{"tool": "read_file", "call": 1, "kind": "timeout"}]
    assert (
        backup["tool_calls"] == ["read_file", "read_file", "write_file"] and backup["status"] == "succeeded"
    )
    assert tasks["deploy"]["rolled_back"] is False and tasks["deploy"]["faults_fired"] == []
    assert example_report["metrics"]["success_rate"] == 1.0
    assert example_report["metrics"]["rollback_rate"] == pytest.approx(1 / 5)


def test_each_task_ran_in_its_own_workspace_copy_and_database(example_report: dict[str, Any]) -> None:
    out = Path(example_report["_out"])
    assert (out / "deploy" / "workspace" / "state" / "production").read_text() == "v2.3.1\n"
    assert (
        "Rollback executed"
        in (out / "deploy-smoke-fault" / "workspace" / "state" / "notifications.log").read_text()
    )
    assert (out / "backup-timeout-fault" / "workspace" / "notes-backup.txt").exists()
    assert not (out / "count-words" / "workspace" / "notes-backup.txt").exists()
    assert example_report["_sources_changed"] is False  # the sources are untouched
    # Each task's run is recorded in its own database, readable by `forethought show`.
    for task in example_report["tasks"]:
        assert Path(task["db"]).parent.name == task["id"]
        assert cli_run(["show", task["run_id"], "--db", task["db"], "--json"]) == 0


def test_the_junit_report_has_a_case_per_task_and_the_bands(example_report: dict[str, Any]) -> None:
    root = ET.fromstring(example_report["_junit"])
    assert root.tag == "testsuite" and root.get("failures") == "0" and root.get("errors") == "0"
    names = [c.get("name") for c in root.findall("testcase")]
    assert names == [t["id"] for t in example_report["tasks"]] + ["tolerances"]
    assert root.findall("testcase/failure") == []


def test_a_command_line_fault_breaks_a_task_and_the_exit_code_flips(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, example_report: dict[str, Any]
) -> None:
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps({k: v for k, v in example_report.items() if not k.startswith("_")}))
    junit = tmp_path / "broken.xml"
    code, out, err = _eval(
        capsys,
        SUITE,
        "--fault",
        "tool=text_stats,kind=fail,on_call=1",
        "--baseline",
        baseline,
        "--junit",
        junit,
    )
    assert code == 1, out + err
    assert "count-words  " in out and "FAIL" in out
    assert "band min_success_rate: 0.8 (limit 1) OUT OF BAND" in out
    assert "band max_success_rate_drop: 0.2 (limit 0) OUT OF BAND" in out
    assert "[5/5]" in err  # progress on stderr
    root = ET.fromstring(junit.read_text())
    failed = [c.get("name") for c in root.findall("testcase") if c.find("failure") is not None]
    assert failed == ["count-words", "tolerances"]


def _write_suite(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(text.replace("EX/", f"{EXAMPLES}/"))
    return path


COUNT_TASK = """
tasks:
  - id: count
    plan: EX/eval/count-words.yaml
    workspace: EX/files_report/workspace
    builtins: [read_file, text_stats]
    expect: {max_steps: 2}
"""


def test_an_absolute_band_flips_the_exit_code(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    ok = _write_suite(tmp_path, "tolerances: {max_mean_steps: 2}\n" + COUNT_TASK)
    assert _eval(capsys, ok, "--jobs", "1")[0] == 0
    tight = _write_suite(tmp_path, "tolerances: {max_mean_steps: 1.5}\n" + COUNT_TASK)
    code, out, _ = _eval(capsys, tight)
    assert code == 1
    assert "band max_mean_steps: 2 (limit 1.5) OUT OF BAND" in out


def test_a_run_that_waits_for_approval_is_reported_escalated(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    suite = _write_suite(
        tmp_path,
        """
tasks:
  - id: backup
    plan: EX/eval/backup-notes.yaml
    workspace: EX/files_report/workspace
    builtins: [read_file, write_file]
    approve: read_only
    expect: {status: awaiting_approval, escalated: true, tools: {match: exact, calls: [read_file]}}
""",
    )
    report = tmp_path / "r.json"
    code, out, err = _eval(capsys, suite, "--json", report)
    assert code == 0, out + err
    task = json.loads(report.read_text())["tasks"][0]
    assert (task["status"], task["escalated"], task["rolled_back"]) == ("awaiting_approval", True, False)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("tasks: []\n", "suite.yaml:1: tasks: a suite needs at least one task"),
        (
            "tasks:\n  - id: a\n    plan: EX/deploy/plan.yaml\n    expect:\n"
            "      tools: {match: fuzzy, calls: [x]}\n",
            "suite.yaml:5: tasks[0].expect.tools.match: Input should be 'exact', 'unordered' or 'subset'",
        ),
        (
            "tasks:\n  - id: a\n    goal: g\n    plan: EX/deploy/plan.yaml\n",
            "suite.yaml:2: tasks[0]: give exactly one of goal (planned by a model) or plan (a plan file)",
        ),
        ("tasks:\n  - id: a\n    plan: nope.yaml\n", "tasks[0] (a).plan: nope.yaml is not an existing file"),
        (
            "tasks:\n  - id: a\n    plan: EX/deploy/plan.yaml\n    expect: {outputs: [{step: s}]}\n",
            "tasks[0].expect.outputs[0]: give at least one of equals, contains, schema, expr",
        ),
        (
            "tasks:\n  - id: a\n    plan: EX/deploy/plan.yaml\n"
            "    faults: [{tool: t, kind: fail, on_call: 0}]\n",
            "suite.yaml:4: tasks[0].faults[0].on_call: Input should be greater than or equal to 1",
        ),
        (
            "tolerances: {min_succes_rate: 1}\ntasks: []\n",
            "tolerances.min_succes_rate: Extra inputs are not permitted",
        ),
        ("- just a list\n", "a suite file is a mapping with `tasks:`"),
        ("tasks: [\n", "invalid YAML"),
        (
            "tasks:\n  - {id: a, plan: EX/deploy/plan.yaml}\n  - {id: a, plan: EX/deploy/plan.yaml}\n",
            "suite: task id 'a' is used twice; task ids must be unique",
        ),
    ],
)
def test_a_bad_suite_file_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, message: str
) -> None:
    path = _write_suite(tmp_path, text)
    code, out, err = _eval(capsys, path)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith(f"forethought: error: {path}"), err
    assert message in err, err


def test_a_task_that_cannot_run_as_written_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The plan file names tools the task does not have: reported in the table, then exit 2."""
    suite = _write_suite(
        tmp_path, "tasks:\n  - id: a\n    plan: EX/deploy/plan.yaml\n    builtins: [read_file]\n"
    )
    code, out, err = _eval(capsys, suite)
    assert code == 2
    assert "a: error:" in out and "run_tests" in out
    assert "task a could not be run" in err.splitlines()[-1]


def test_a_fault_for_a_tool_no_task_has_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    suite = _write_suite(tmp_path, COUNT_TASK)
    code, _, err = _eval(capsys, suite, "--fault", "tool=text_stat,kind=fail")
    assert code == 2 and "--fault names tool 'text_stat', which no task has" in err
    code, _, err = _eval(capsys, suite, "--fault", "tool=text_stats,kind=boom")
    assert code == 2 and "kind: Input should be" in err


def test_paths_and_scripted_models_are_relative_to_the_suite_file() -> None:
    suite = load_suite(SUITE)
    planned = next(t for t in suite.tasks if t.goal is not None)
    assert planned.model == f"scripted:{SUITE.parent / 'planner-replies.json'}"
    assert next(t for t in suite.tasks if t.id == "deploy").plan == str(EXAMPLES / "deploy" / "plan.yaml")


# ------------------------------------------------------------------------------ scoring units


def test_tool_matching_modes() -> None:
    exact = ToolExpectation(match="exact", calls=("a", "b"))
    assert check_tools(exact, ["a", "b"]) is None
    assert check_tools(exact, ["b", "a"]) == "expected ['a', 'b'], got ['b', 'a']"
    unordered = ToolExpectation(match="unordered", calls=("a", "b", "b"))
    assert check_tools(unordered, ["b", "a", "b"]) is None
    assert check_tools(unordered, ["b", "a"]) is not None
    subset = ToolExpectation(match="subset", calls=("b", "b"))
    assert check_tools(subset, ["a", "b", "c", "b"]) is None
    assert check_tools(subset, ["a", "b"]) == "missing calls ['b'] in ['a', 'b']"


def test_value_checks() -> None:
    def why(value: Any, **check: Any) -> str | None:
        return check_value(ValueCheck.model_validate(check), value, {})

    assert why({"a": 1, "b": 2}, contains={"a": 1}) is None
    assert why({"a": 1}, contains={"a": 2}) == '{"a": 1} does not contain {"a": 2}'
    assert why("hello world", contains="lo w") is None
    assert why([1, 2], contains=3) is not None
    assert why(None, equals=None) is None  # an explicit `equals: null` is checked
    assert why(0, equals=None) == "expected null, got 0"
    assert why({"n": 3}, schema={"type": "object", "required": ["m"]}) == "schema: 'm' is a required property"
    assert why({"n": 3}, expr="value['n'] > 2") is None
    assert why({"n": 3}, expr="value['n'] > 5") == "expr \"value['n'] > 5\" is false, not true"
    assert "could not be evaluated" in (why({}, expr="value['n'] > 5") or "")


def _events(*specs: tuple[type[Any], dict[str, Any]]) -> list[Any]:
    return [cls(run_id="r", seq=i, ts=float(i), **fields) for i, (cls, fields) in enumerate(specs)]


def test_flags_are_read_from_the_recorded_events() -> None:
    plan = {"goal": "g", "steps": [{"id": "a", "agent": "do it"}], "rollback": [{"id": "rb", "tool": "undo"}]}
    looping = _events(
        (ev.RunCreated, {"goal": "g"}),
        (ev.PlanProposed, {"plan": plan, "plan_hash": "h"}),
        (ev.StepStarted, {"step_id": "a", "attempt": 1}),
        *[(ev.ToolCalled, {"step_id": "a", "tool": "search", "args": {"q": "x"}})] * 3,
        (ev.ReplanRequested, {"reason": "stuck"}),
        (ev.RunFinished, {"status": "failed"}),
    )
    facts = run_facts(looping)
    assert facts.flags() == {"escalated": False, "replanned": True, "rolled_back": False, "looped": True}
    assert facts.tool_calls == ("search", "search", "search") and facts.steps == 1
    rolled = _events(
        (ev.RunCreated, {"goal": "g"}),
        (ev.PlanProposed, {"plan": plan, "plan_hash": "h"}),
        (ev.StepStarted, {"step_id": "rb", "attempt": 1}),
        (ev.BudgetExceeded, {"budget": "max_steps", "limit": 1, "used": 2, "action": "pause"}),
        (ev.RunPaused, {"reason": "budget"}),
    )
    facts = run_facts(rolled)
    assert facts.flags() == {"escalated": True, "replanned": False, "rolled_back": True, "looped": True}
    assert facts.tool_calls == ("undo",)
    # Two identical calls, and a budget other than the loop guards, are not a loop.
    calm = _events(
        (ev.RunCreated, {"goal": "g"}),
        (ev.PlanProposed, {"plan": plan, "plan_hash": "h"}),
        *[(ev.ToolCalled, {"step_id": "a", "tool": "search", "args": {"q": "x"}})] * 2,
        (ev.BudgetExceeded, {"budget": "max_cost_usd", "limit": 1, "used": 2, "action": "abort"}),
    )
    assert run_facts(calm).looped is False


def test_model_on_the_command_line_plans_the_goal_tasks(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    plan = json.dumps({"steps": [{"id": "s1", "tool": "list_dir", "args": {"path": "docs"}}]})
    for name in ("suite-model.json", "cli-model.json"):
        (tmp_path / name).write_text(json.dumps([plan]))
    suite = _write_suite(
        tmp_path,
        """
tasks:
  - id: planned
    goal: list the files in docs
    model: scripted:suite-model.json
    workspace: EX/files_report/workspace
    builtins: [list_dir]
    approve: read_only
    expect: {tools: {match: exact, calls: [list_dir]}}
""",
    )

    def planner_of(*args: str) -> str:
        report = tmp_path / "r.json"
        assert _eval(capsys, suite, "--json", report, "--out", tmp_path / "out", *args)[0] == 0
        task = json.loads(report.read_text())["tasks"][0]
        store = open_store(task["db"])
        try:
            return next(e.model for e in store.events(task["run_id"]) if e.kind == "model_called")
        finally:
            store.close()

    assert planner_of() == "scripted:suite-model.json"  # relative to the suite file
    assert planner_of("--model", f"scripted:{tmp_path / 'cli-model.json'}") == "scripted:cli-model.json"


def test_a_failing_planner_fails_the_task_without_crashing_the_suite(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "none.json").write_text("[]")  # the scripted model has no answer at all
    suite = _write_suite(
        tmp_path,
        "tasks:\n  - id: planned\n    goal: list the files in docs\n    model: scripted:none.json\n"
        "    workspace: EX/files_report/workspace\n    builtins: [list_dir]\n"
        + COUNT_TASK.replace("tasks:\n", ""),
    )
    code, out, _ = _eval(capsys, suite)
    assert code == 1
    assert "planned  FAIL" in out and "count    pass" in out
    assert "planned: run: ScriptedModelExhausted" in out


def test_out_never_replaces_a_directory_it_did_not_write(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    suite = _write_suite(tmp_path, COUNT_TASK)
    out = tmp_path / "out"
    (out / "count").mkdir(parents=True)
    (out / "count" / "precious.txt").write_text("keep me")
    code, _, err = _eval(capsys, suite, "--out", out)
    assert code == 2 and "not an earlier evaluation's output" in err
    assert (out / "count" / "precious.txt").read_text() == "keep me"
    (out / "count" / "precious.txt").unlink()
    assert _eval(capsys, suite, "--out", out)[0] == 0
    assert _eval(capsys, suite, "--out", out)[0] == 0  # its own output is replaced


def test_a_bad_baseline_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    suite = _write_suite(tmp_path, COUNT_TASK)
    code, out, err = _eval(capsys, suite, "--baseline", tmp_path / "missing.json")
    assert (code, out) == (2, "") and "--baseline" in err and "no such file" in err
    (tmp_path / "other.json").write_text('{"runs": 3}')
    code, _, err = _eval(capsys, suite, "--baseline", tmp_path / "other.json")
    assert code == 2 and "no `metrics` object" in err and err.count("\n") == 1


def test_max_wall_s_stops_a_hung_task(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A tool that hangs (a slow fault of 60 s) is cut off by the task's max_wall_s budget."""
    suite = _write_suite(
        tmp_path,
        COUNT_TASK.replace("expect: {max_steps: 2}", "expect: {max_wall_s: 0.5}")
        + "    faults: [{tool: text_stats, kind: slow, delay_s: 60}]\n",
    )
    report = tmp_path / "r.json"
    code, out, _ = _eval(capsys, suite, "--json", report)
    assert code == 1
    task = json.loads(report.read_text())["tasks"][0]
    assert task["status"] == "failed" and "max_wall_s" in task["reason"]
    assert task["wall_s"] < 30
    assert "count: status: expected succeeded, got failed" in out


def test_a_fault_that_makes_the_run_replan_is_reported_replanned(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A failing step with ``on_failure: replan``: the scripted planner's new plan recovers, and
    the report reads the replan from the run's events."""
    (tmp_path / "plan.yaml").write_text(
        "goal: count the words in notes.txt\nsteps:\n"
        "  - {id: read, tool: read_file, args: {path: notes.txt}}\n"
        "  - {id: count, tool: text_stats, args: {text: '${read.content}'}, on_failure: replan}\n"
    )
    steps = [
        {"id": "read", "tool": "read_file", "args": {"path": "notes.txt"}},
        {"id": "count2", "tool": "text_stats", "args": {"text": "${read.content}"}},
    ]
    (tmp_path / "replies.json").write_text(json.dumps([json.dumps({"steps": steps})]))
    suite = _write_suite(
        tmp_path,
        """
tasks:
  - id: replan
    plan: plan.yaml
    model: scripted:replies.json
    workspace: EX/files_report/workspace
    builtins: [read_file, text_stats]
    faults: [{tool: text_stats, kind: fail, on_call: 1}]
    expect:
      replanned: true
      rolled_back: false
      tools: {match: exact, calls: [read_file, text_stats, text_stats]}
      outputs: [{step: count2, expr: "value['words'] == 33"}]
""",
    )
    report = tmp_path / "r.json"
    code, out, err = _eval(capsys, suite, "--json", report)
    assert code == 0, out + err
    task = json.loads(report.read_text())["tasks"][0]
    assert (task["status"], task["replanned"], task["escalated"]) == ("succeeded", True, False)
