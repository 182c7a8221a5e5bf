"""What the plan side knows of a tool: its name, schemas and effect.

The validator checks plans against specs and approvals pin their hashes; tools implement them.
Keeping the spec here, beside the plan, lets the plan package validate without importing the
tools that run.
"""

from __future__ import annotations

import hashlib
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from forethought.plan.model import Effect, canonical_dumps


class ToolSpec(BaseModel):
    """What the planner, validator, approver and UI know about a tool."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_.-]{0,127}$")
    description: str = ""
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    output_schema: dict[str, Any] | None = None
    effect: Effect = "read_only"
    idempotent: bool = False
    timeout_s: float | None = Field(default=None, gt=0)
    source: str = Field(default="python", description="Where it came from, e.g. `python:mod.py`.")
    est_latency_s: float | None = Field(default=None, ge=0, description="For critical paths.")

    def definition_hash(self) -> str:
        """Hash of everything that changes what a call does; pinned when a plan is approved."""
        data = self.model_dump(mode="json", exclude={"source", "est_latency_s"})
        return hashlib.sha256(canonical_dumps(data).encode()).hexdigest()
