"""Phases: the `phase` field, its validation, splicing a sub-plan in, approval and graphs of it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from forethought.oversight.approvals import Approval, ApprovalGate, step_digest
from forethought.plan.graph import render_text
from forethought.plan.model import Plan, Step
from forethought.plan.phases import (
    PhaseExpansionError,
    collapse_phases,
    phase_of,
    phase_steps,
    splice_phase,
)
from forethought.plan.validation import validate_plan
from forethought.tools.base import ToolSpec

ROOT = Path(__file__).resolve().parent.parent

SPECS = {
    "search": ToolSpec(name="search", effect="read_only"),
    "fetch": ToolSpec(name="fetch", effect="read_only"),
    "draft": ToolSpec(name="draft", effect="read_only"),
    "publish": ToolSpec(name="publish", effect="mutating"),
}


def top_plan() -> Plan:
    return Plan.model_validate(
        {
            "goal": "research, then write, then publish a note on tide pools",
            "steps": [
                {
                    "id": "research",
                    "phase": {"goal": "collect facts on tide pools", "tools": ["search", "fetch"]},
                },
                {"id": "write", "tool": "draft", "args": {"facts": "${research.facts}"}},
                {
                    "id": "publish",
                    "phase": {"goal": "publish the draft", "tools": ["publish"], "max_steps": 2},
                    "depends_on": ["write"],
                },
            ],
        }
    )


def research_sub_plan() -> Plan:
    return Plan.model_validate(
        {
            "goal": "collect facts on tide pools",
            "steps": [
                {"id": "s1", "tool": "search", "args": {"q": "tide pools"}},
                {"id": "s2", "tool": "fetch", "args": {"url": "${s1.urls[0]}"}},
                {"id": "s3", "tool": "search", "args": {"q": "tide pool animals"}},
            ],
        }
    )


def test_adding_phase_leaves_existing_plan_hashes_and_step_digests_unchanged() -> None:
    # Both figures were computed by the code before `phase` existed (main at 97aea96): a change
    # here would void every recorded approval.
    data = yaml.safe_load((ROOT / "examples" / "deploy" / "plan.yaml").read_text())
    assert Plan.model_validate(data).plan_hash() == (
        "9f87208a756cd83784176df89e50eeba58e327c9170140c12ebf5f2ffafc4f07"
    )
    step = Step.model_validate(
        {"id": "w", "tool": "write", "args": {"path": "b", "text": "${r}"}, "depends_on": ["r"]}
    )
    assert step_digest(step) == "06b73d50b90000b7a15656d0d705ac5a7b4cd20097faad569276e85283fb1894"
    assert "phase" not in Plan.model_validate(data).record_data()["steps"][0]


def test_a_phase_is_recorded_and_hashed() -> None:
    plan = top_plan()
    assert plan.record_data()["steps"][0]["phase"]["tools"] == ["search", "fetch"]
    other = plan.model_copy(
        update={"steps": (plan.steps[0].model_copy(update={"phase": plan.steps[2].phase}), *plan.steps[1:])}
    )
    assert other.plan_hash() != plan.plan_hash()


@pytest.mark.parametrize(
    "fields",
    [
        {"tool": "search", "phase": {"goal": "g", "tools": ["search"]}},
        {"agent": "do it", "phase": {"goal": "g", "tools": ["search"]}},
        {},
    ],
)
def test_a_step_has_exactly_one_of_tool_agent_phase(fields: dict[str, object]) -> None:
    with pytest.raises(ValidationError, match="exactly one of `tool`, `agent` or `phase`"):
        Step.model_validate({"id": "x", **fields})


def test_phase_needs_goal_and_tools() -> None:
    with pytest.raises(ValidationError):
        Step.model_validate({"id": "x", "phase": {"goal": "g", "tools": []}})
    with pytest.raises(ValidationError):
        Step.model_validate({"id": "x", "phase": {"goal": "g", "tools": ["a"], "surprise": 1}})


def test_validation_accepts_phases_and_names_unknown_phase_tools() -> None:
    assert validate_plan(top_plan(), SPECS) == []
    data = top_plan().to_data()
    data["steps"][0]["phase"]["tools"] = ["search", "fetchh"]
    problems = validate_plan(data, SPECS)
    assert [(p.code, p.step_id, p.field) for p in problems] == [
        ("unknown_tool", "research", ("phase", "tools", 1))
    ]
    assert "fetchh" in problems[0].message and "fetch" in problems[0].message


def test_splice_prefixes_ids_rewires_dependencies_and_the_phase_output() -> None:
    plan = top_plan()
    new = splice_phase(plan, "research", research_sub_plan())
    assert (new.version, new.parent_version) == (2, 1)
    assert [s.id for s in new.steps] == ["research__s1", "research__s2", "research__s3", "write", "publish"]
    assert new.step("research__s2").args == {"url": "${research__s1.urls[0]}"}
    # The phase's output is its final sub-step (the last one nothing depends on): s3; the other
    # final sub-step (s2) still gates `write`, so nothing after the phase starts early.
    write = new.step("write")
    assert write.args == {"facts": "${research__s3.facts}"}
    assert set(write.all_dependencies()) == {"research__s2", "research__s3"}
    assert new.metadata["phases"]["research"]["output"] == "research__s3"
    assert phase_of(new) == {f"research__s{i}": "research" for i in (1, 2, 3)}
    assert [s.id for s in phase_steps(new)] == ["publish"]
    assert validate_plan(new, SPECS) == []
    # Splicing is deterministic: the same sub-plan gives the same version (resume compares hashes).
    assert splice_phase(plan, "research", research_sub_plan()).plan_hash() == new.plan_hash()


def test_sub_steps_inherit_the_phase_dependencies() -> None:
    plan = splice_phase(top_plan(), "research", research_sub_plan())
    plan = splice_phase(
        plan,
        "publish",
        Plan.model_validate({"goal": "p", "steps": [{"id": "p1", "tool": "publish", "args": {"text": "x"}}]}),
    )
    assert plan.step("publish__p1").depends_on == ("write",)
    assert plan.version == 3
    assert phase_steps(plan) == ()


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ([{"id": "a", "tool": "publish"}], "calls 'publish', not one of the phase's tools"),
        ([{"id": f"a{i}", "tool": "search"} for i in range(9)], "more than its max_steps 8"),
        ([{"id": "a", "phase": {"goal": "g", "tools": ["search"]}}], "phases do not nest"),
    ],
)
def test_an_invalid_sub_plan_is_refused_naming_the_phase(
    steps: list[dict[str, object]], message: str
) -> None:
    sub = Plan.model_validate({"goal": "g", "steps": steps})
    with pytest.raises(PhaseExpansionError, match=message) as err:
        splice_phase(top_plan(), "research", sub)
    assert "phase 'research'" in str(err.value)


def test_only_an_unexpanded_phase_can_be_spliced() -> None:
    with pytest.raises(PhaseExpansionError, match="'write' is not a phase"):
        splice_phase(top_plan(), "write", research_sub_plan())
    with pytest.raises(PhaseExpansionError, match="no step 'nope'"):
        splice_phase(top_plan(), "nope", research_sub_plan())


def test_side_effecting_sub_plan_needs_approval_read_only_one_does_not() -> None:
    plan = top_plan()
    gate = ApprovalGate([plan], [Approval.grant(plan, SPECS, approver="t")], SPECS)
    assert gate.pending(plan) == []  # phases call nothing themselves
    read_only = splice_phase(plan, "research", research_sub_plan())
    gate.add(read_only)
    # `write` changed (its reference now names research__s3): still read-only, so it runs.
    assert gate.pending(read_only) == []
    publishing = splice_phase(
        read_only,
        "publish",
        Plan.model_validate(
            {"goal": "p", "steps": [{"id": "p1", "tool": "publish", "args": {"text": "${write}"}}]}
        ),
    )
    gate.add(publishing)
    assert gate.pending(publishing) == ["publish__p1"]
    gate.add(approval=Approval.grant(publishing, SPECS, approver="t"))
    assert gate.pending(publishing) == []


def test_graph_shows_phases_pending_expanded_and_collapsed(tmp_path: Path) -> None:
    plan = top_plan()
    text = render_text(plan)
    assert re.search(r"^\* research +phase ", text, re.M)
    assert "phase research: collect facts on tide pools [tools: search, fetch]" in text
    expanded = splice_phase(plan, "research", research_sub_plan())
    text = render_text(expanded)
    assert "research__s2" in text
    assert (
        "phase research (planned): collect facts on tide pools → "
        "research__s1, research__s2, research__s3; output research__s3" in text
    )
    collapsed = collapse_phases(expanded)
    assert [s.id for s in collapsed.steps] == ["research", "write", "publish"]
    assert collapsed.step("write").depends_on == ("research",)
    assert "research__s2" not in render_text(collapsed)
    assert "phase research: collect facts" in render_text(collapsed)
    # The CLI: expanded by default, collapsed on request.
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(expanded.to_data()))
    env_py = [sys.executable, "-m", "forethought", "graph", str(path)]
    out = subprocess.run(env_py, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "research__s1" in out.stdout
    out = subprocess.run([*env_py, "--collapse-phases"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "research__s1" not in out.stdout and re.search(r"research +phase", out.stdout)
