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
    implementation_digest: str | None = Field(
        default=None,
        description=(
            "A hash of what actually runs (a YAML tool's command/script/env/cwd, a Python tool's "
            "code, an MCP tool's remote definition and server), computed by the tool's source. "
            "Not shown to the planner; part of `definition_hash`, so an approval pins it."
        ),
    )

    def definition_hash(self) -> str:
        """Hash of everything that changes what a call does; pinned when a plan is approved.

        The declared surface (name, description, schemas, effect, idempotency, timeout) plus the
        ``implementation_digest``. A spec without a digest (e.g. a hand-made one in a test or a
        replay stand-in) hashes exactly as before the digest existed.
        """
        exclude = {"source", "est_latency_s"}
        if self.implementation_digest is None:
            exclude.add("implementation_digest")
        data = self.model_dump(mode="json", exclude=exclude)
        return hashlib.sha256(canonical_dumps(data).encode()).hexdigest()


def digest_of(data: Any) -> str:
    """sha256 of the canonical JSON of ``data``: how tool sources build an implementation digest."""
    return hashlib.sha256(canonical_dumps(data).encode()).hexdigest()
