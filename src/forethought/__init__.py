"""forethought: think first, then act — a runtime for planner–executor agents."""

from forethought.plan import Check, Plan, RetryPolicy, Step, ToolCall
from forethought.tools import Tool, ToolContext, ToolRegistry, ToolSpec, tool

__version__ = "0.1.0"

__all__ = [
    "Check",
    "Plan",
    "RetryPolicy",
    "Step",
    "Tool",
    "ToolCall",
    "ToolContext",
    "ToolRegistry",
    "ToolSpec",
    "__version__",
    "tool",
]
