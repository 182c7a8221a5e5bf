from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forethought.plan.diff import diff_plans
from forethought.plan.graph import (
    critical_path,
    plan_critical_path,
    render_dot,
    render_mermaid,
    render_text,
    topological_order,
)
from forethought.plan.model import Plan

FIXTURES = Path(__file__).parent / "fixtures" / "plans"


def deploy_plan() -> Plan:
    return Plan.model_validate(
        {
            "goal": "deploy",
            "steps": [
                {"id": "tests", "tool": "run_tests"},
                {"id": "build", "tool": "build_docker", "depends_on": ["tests"]},
                {"id": "backup", "tool": "backup_database"},
                {"id": "staging", "tool": "deploy_staging", "depends_on": ["build"]},
                {"id": "prod", "tool": "deploy_production", "depends_on": ["backup", "staging"]},
            ],
        }
    )


def test_critical_path_uses_latencies() -> None:
    plan = deploy_plan()
    cp = plan_critical_path(
        plan,
        {
            "run_tests": 60,
            "build_docker": 30,
            "backup_database": 200,
            "deploy_staging": 10,
            "deploy_production": 5,
        },
    )
    assert cp.steps == ("backup", "prod")
    assert cp.length_s == 205
    unit = plan_critical_path(plan)
    assert unit.steps == ("tests", "build", "staging", "prod")
    assert unit.length_s == 4


def test_topological_order_detects_cycles() -> None:
    with pytest.raises(ValueError, match="cycle"):
        topological_order({"a": ["b"], "b": ["a"]})


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.lists(st.integers(0, 30), max_size=4), st.floats(0, 100)), min_size=1, max_size=30)
)
def test_critical_path_is_a_dependency_chain_with_maximal_length(spec: list[tuple[list[int], float]]) -> None:
    deps = {f"s{i}": tuple(f"s{j}" for j in ds if j < i) for i, (ds, _) in enumerate(spec)}
    durations = {f"s{i}": d for i, (_, d) in enumerate(spec)}
    cp = critical_path(deps, durations)
    for a, b in zip(cp.steps, cp.steps[1:], strict=False):
        assert a in deps[b]
    assert cp.length_s == pytest.approx(sum(durations[s] for s in cp.steps))
    # no step finishes later than the critical path: brute-force earliest finish times
    finish: dict[str, float] = {}
    for sid in deps:
        finish[sid] = max((finish[d] for d in deps[sid]), default=0.0) + durations[sid]
    assert cp.length_s == pytest.approx(max(finish.values()))


def test_renderings_mark_the_critical_path() -> None:
    plan = deploy_plan()
    text = render_text(plan)
    assert "* prod" in text and "  backup" in text
    mermaid = render_mermaid(plan)
    assert mermaid.startswith("flowchart TD")
    assert "class n_tests,n_build,n_staging,n_prod critical" in mermaid
    dot = render_dot(plan)
    assert '"staging" -> "prod" [color=red, penwidth=2];' in dot
    assert '"backup" -> "prod";' in dot


def test_diff_reports_added_removed_and_changed_fields() -> None:
    a = deploy_plan()
    data = a.to_data()
    data["steps"] = [s for s in data["steps"] if s["id"] != "backup"]
    data["steps"][-1]["depends_on"] = ["staging"]
    data["steps"][0]["args"] = {"suite": "full"}
    data["steps"].append({"id": "notify", "tool": "notify_team", "depends_on": ["prod"]})
    data["goal"] = "deploy v2"
    b = Plan.model_validate(data)
    d = diff_plans(a, b)
    assert d.added == ("notify",)
    assert d.removed == ("backup",)
    assert set(d.changed) == {"tests", "prod"}
    assert [(c.path, c.old, c.new) for c in d.changed["tests"]] == [("args.suite", None, "full")]
    assert [(c.path, c.old, c.new) for c in d.changed["prod"]] == [
        ("depends_on", ["backup", "staging"], ["staging"])
    ]
    rendered = d.render()
    assert '~ goal: "deploy" → "deploy v2"' in rendered
    assert "+ step notify" in rendered and "- step backup" in rendered
    assert diff_plans(a, a).empty


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "forethought", *args], capture_output=True, text=True, timeout=60
    )


def test_cli_graph_diff_schema(tmp_path: Path) -> None:
    good = FIXTURES / "good.yaml"
    out = cli("graph", str(good), "--format", "dot", "--latency", "read_schema=100")
    assert out.returncode == 0, out.stderr
    assert '"schema" [label="schema: read_schema", color=red, penwidth=2];' in out.stdout

    other = tmp_path / "other.yaml"
    other.write_text(
        good.read_text().replace("staging}", "prod}").replace("database: staging", "database: prod")
    )
    same = cli("diff", str(good), str(good), "--exit-code")
    assert (same.returncode, same.stdout) == (0, "no differences\n")
    changed = cli("diff", str(good), str(other), "--json", "--exit-code")
    assert changed.returncode == 1
    body = json.loads(changed.stdout)
    assert body["changed"]["schema"][0] == {"path": "args.database", "old": "staging", "new": "prod"}

    schema = json.loads(cli("schema").stdout)
    assert "steps" in schema["properties"] and "Step" in schema["$defs"]


@pytest.mark.parametrize(
    "args",
    [
        ("graph", "missing.yaml"),
        ("graph", "x.yaml", "--latency", "oops"),
        ("lint", "x.yaml", "--tools", "nothing.txt"),
    ],
)
def test_cli_user_errors_are_one_line_exit_2(tmp_path: Path, args: tuple[str, ...]) -> None:
    (tmp_path / "x.yaml").write_text((FIXTURES / "good.yaml").read_text())
    (tmp_path / "nothing.txt").write_text("")
    result = subprocess.run(
        [sys.executable, "-m", "forethought", *args], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr
