"""forethought: think first, then act — a runtime for planner–executor agents.

The public API: ``Agent`` runs goals; ``Plan``/``Step`` are the artifact; ``tool`` declares tools;
the errors derive from ``ForethoughtError``: ``UserError`` (bad input) and ``RunError``.
"""

from forethought.agent import Agent, Decision, PlanReview, RunResult
from forethought.errors import (
    ForethoughtError,
    ModelError,
    RunError,
    StoreError,
    ToolError,
    ToolTimeout,
    UserError,
)
from forethought.plan.model import Check, Plan, RetryPolicy, Step, ToolCall
from forethought.tools import Tool, ToolContext, ToolRegistry, ToolSpec, tool

__version__ = "0.1.0"

__all__ = [
    "Agent",
    "Check",
    "Decision",
    "ForethoughtError",
    "ModelError",
    "Plan",
    "PlanReview",
    "RetryPolicy",
    "RunError",
    "RunResult",
    "Step",
    "StoreError",
    "Tool",
    "ToolCall",
    "ToolContext",
    "ToolError",
    "ToolRegistry",
    "ToolSpec",
    "ToolTimeout",
    "UserError",
    "__version__",
    "tool",
]
