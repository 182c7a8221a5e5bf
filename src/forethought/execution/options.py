"""``ExecutorOptions``: everything that decides how one execution behaves, in one frozen value.

What to execute (the plan, the tools, a run to continue) is given to ``Executor`` directly; how
to execute it — limits, the approval gate and record, the collaborators that replan, supervise,
judge and run agent steps, where events go — travels as one typed value from the composition
root (``Agent``) through ``runs.execute_recorded`` to the executor, instead of keyword arguments
passed along as ``**Any``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from forethought.execution._parts import (
    AgentRunner,
    Gate,
    Journal,
    PhasePlanner,
    Replanner,
    Sink,
    SupervisorHook,
)
from forethought.execution.backends.base import Backend
from forethought.oversight.checks import Critic


@dataclass(frozen=True)
class ExecutorOptions:
    """How to run: limits, approval, collaborators and event sinks. Every field has a default."""

    max_concurrency: int | None = None
    """At most this many steps run at once (None or 0: no limit)."""
    tool_limits: Mapping[str, int] = field(default_factory=dict)
    """Per-tool concurrency limits (tool name, or ``agent`` for agent steps)."""
    gate: Gate | None = None
    """Decides whether a step that needs approval may start; default: nothing is approved."""
    approved_by: str | None = None
    """Record a ``plan_approved`` by this approver when a fresh run starts."""
    approval_scope: Literal["read_only", "all"] = "all"
    replanner: Replanner | None = None
    max_replans: int = 3
    phase_planner: PhasePlanner | None = None
    """Plans a phase step's sub-plan when it becomes ready; without one a phase step fails."""
    supervisor: SupervisorHook | None = None
    critic: Critic | None = None
    agent_runner: AgentRunner | None = None
    backends: Mapping[str, Backend] | None = None
    """Execution backends by name; the executor closes them only if it made them (None)."""
    sinks: Sequence[Sink] = ()
    journal: Journal | None = None
    """The durable log (``runs.recording`` passes the store's recorder): every event is appended
    to it as it is emitted, and no tool is called before what it depends on is durable."""
    workspace: Path | None = None
    """The directory the run works in (``--workspace``), given to every tool as ``ctx.workspace``."""
    config: Mapping[str, Any] = field(default_factory=dict)
    """Recorded in ``run_created`` (the run's settings, for ``show`` and ``resume``)."""
    seed: int | None = None
    """Seed of the retry-jitter generator (tests and replays)."""
    keep_log: bool = True
    """Keep the events in memory (``Executor.log``; with a journal all but the per-step progress
    events, which the store holds); off for huge runs backed by a store."""
    rerun: frozenset[str] = frozenset()
    """Steps a person reviewed and allows to run again on resume."""
