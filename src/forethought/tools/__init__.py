"""Tools: what steps call. See ``base`` for the contract every tool source implements."""

from forethought.tools.base import Tool, ToolContext, ToolRegistry, ToolSpec
from forethought.tools.python import tool

__all__ = ["Tool", "ToolContext", "ToolRegistry", "ToolSpec", "tool"]
