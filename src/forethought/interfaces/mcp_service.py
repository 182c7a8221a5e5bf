"""The real `AgentService` behind `forethought mcp serve`: other agents delegate work to us.

Delegation keeps our oversight rules: a run started over MCP executes read-only steps only
(`--yes` semantics) and stops in `awaiting_approval` for anything with side effects; `approve`
must name the plan hash it approves (a caller cannot approve a plan it has not seen).
Configuration is the same as the CLI's (forethought.toml, environment).
"""

from __future__ import annotations

from typing import Any

from forethought.agent import Agent, RunResult
from forethought.errors import UserError
from forethought.interfaces.config import load_config
from forethought.interfaces.session import open_agent, recorded_setup, tool_setup
from forethought.plan.files import check_data
from forethought.plan.model import Plan


class ConfiguredService:
    """Each call opens the configured tools and store, does its work, and closes them."""

    approver = "mcp-client"

    def __init__(self) -> None:
        self.cfg = load_config()

    def _setup(self) -> dict[str, Any]:
        return tool_setup(self.cfg, [])

    async def plan(self, goal: str) -> dict[str, Any]:
        async with open_agent(self.cfg, self._setup()) as agent:
            plan, problems = await agent.plan(goal)
        if plan is None or problems:
            first = str(problems[0]) if problems else "no plan"
            raise UserError(f"the planner produced no valid plan: {first}")
        return {"plan": plan.to_data(), "plan_hash": plan.plan_hash()}

    async def run(self, *, goal: str | None = None, plan: dict[str, Any] | None = None) -> dict[str, Any]:
        if (goal is None) == (plan is None):
            raise UserError("give exactly one of `goal` or `plan`")
        setup = self._setup()
        async with open_agent(self.cfg, setup) as agent:
            target: str | Plan
            if plan is not None:
                parsed, problems = check_data(plan, agent.specs)
                if parsed is None or problems:
                    raise UserError(f"invalid plan: {problems[0] if problems else 'unreadable'}")
                target = parsed
            else:
                assert goal is not None
                target = goal
            result = await agent.run(target, approve="read_only", run_config={"setup": setup})
        return _summary(result, agent)

    async def run_status(self, run_id: str) -> dict[str, Any]:
        from forethought.events.state import fold
        from forethought.execution._parts import run_summary
        from forethought.runs.run_ids import resolve_run_id
        from forethought.runs.store.opening import open_store

        with open_store(self.cfg.db) as store:
            events = store.events(resolve_run_id(store, run_id))
        return run_summary(fold(events))

    async def approve(self, run_id: str, plan_hash: str) -> dict[str, Any]:
        from forethought.runs.run_ids import resolve_run_id
        from forethought.runs.store.opening import open_store

        with open_store(self.cfg.db) as store:
            run_id = resolve_run_id(store, run_id)
            setup = recorded_setup(store.events(run_id))
        async with open_agent(self.cfg, setup) as agent:
            result = await agent.approve(run_id, plan_hash=plan_hash, approver=self.approver)
        assert result is not None
        return _summary(result, agent)


def _summary(result: RunResult, agent: Agent) -> dict[str, Any]:
    summary = dict(result.summary)
    summary["run_id"] = result.run_id
    summary["status"] = result.status
    if result.plan is not None:
        summary["plan_hash"] = result.plan.plan_hash()
    return summary


def default_service() -> ConfiguredService:
    return ConfiguredService()
