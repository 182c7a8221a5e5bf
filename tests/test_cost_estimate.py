"""The review screen's cost estimate: honest about being an estimate and about unknown prices."""

from __future__ import annotations

import json

import pytest

from forethought import Agent, tool
from forethought.agent import Decision, PlanReview
from forethought.models.pricing import estimate_cost
from forethought.models.scripted import ScriptedModel


@tool(effect="mutating")
def save(text: str) -> str:
    """Save text."""
    return "saved"


def test_known_price_per_agent_step() -> None:
    # gpt-4o-mini: $0.15 per million input tokens, $0.60 per million output tokens.
    est = estimate_cost("openai:gpt-4o-mini", 2, [(1000, 100, 0.01)])
    assert est.per_agent_step_usd == pytest.approx(1200 * 0.15e-6 + 300 * 0.60e-6)
    assert est.total_usd == pytest.approx(0.01 + 2 * 0.00036)
    assert "estimate" in est.text() and "2 agent step(s)" in est.text()


def test_unknown_price_is_unknown_not_zero() -> None:
    est = estimate_cost("openai:no-such-model-xyz", 1, [])
    assert est.per_agent_step_usd is None and est.total_usd is None
    assert "unknown = " in est.text()


def test_tool_only_plan_costs_its_planning() -> None:
    est = estimate_cost("", 0, [(10, 5, 0.002), (7, 3, 0.0)])
    assert est.total_usd == pytest.approx(0.002) and est.planning_unpriced_calls == 1
    assert est.text() == (
        "cost estimate: $0.0020 planning so far (plus 1 calls of unknown price); "
        "the plan's tool steps call no model"
    )


async def test_review_receives_the_estimate() -> None:
    plan = {
        "steps": [
            {"id": "draft", "agent": "write a haiku"},
            {"id": "keep", "tool": "save", "args": {"text": "${draft}"}, "depends_on": ["draft"]},
        ]
    }
    seen: list[PlanReview] = []

    async def reviewer(review: PlanReview) -> Decision:
        seen.append(review)
        return Decision("reject", note="just looking")

    agent = Agent(
        [save],
        planner_model=ScriptedModel([json.dumps(plan)]),
        executor_model=ScriptedModel([]),
        record=False,
    )
    await agent.run("write and save a haiku", reviewer=reviewer)
    assert len(seen) == 1 and seen[0].cost is not None
    cost = seen[0].cost
    assert cost.agent_steps == 1 and cost.model == "scripted"
    assert cost.per_agent_step_usd is None  # a scripted model has no price: unknown, not $0
    assert cost.planning_unpriced_calls == 1 and "unknown" in cost.text()
