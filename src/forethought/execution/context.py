"""``RunContext``: the state one execution's scheduler, attempts and recovery share, named.

The scheduler (``executor.py``) decides *when* a step runs; ``attempts`` runs one step and
``recovery`` replans or rolls back. All three append to the same event stream (one gap-free
``seq``, one state fold, one log), look tools and backends up the same way, and use the same
idempotency keys. That shared part lives here, as public attributes of one object the executor
owns and hands over, so that attempts and recovery depend on what they use — not on the
executor's private fields. Scheduling structures (dependency counters, queues, workers) stay in
the executor; recovery reaches them only through ``recovery.Scheduler``.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from forethought.errors import StoreError
from forethought.events import kinds as E
from forethought.events.kinds import Event
from forethought.events.state import RunState, apply
from forethought.execution._events import EventLog
from forethought.execution._parts import AgentRunner, Journal, PhasePlanner, Replanner
from forethought.execution.backends.base import Backend, LocalBackend
from forethought.oversight.checks import Critic
from forethought.plan.model import Plan, Step
from forethought.tools.base import Tool, ToolSpec

How = tuple[Tool | None, float | None, str]
"""How a step runs: (the tool to await directly, or None for the dispatch path; its timeout;
the backend's name). Computed once per step at planning time (``RunContext.how_to_run``)."""


class RunContext:
    """One execution's shared state: identity, event stream, tool lookup, keys, collaborators.

    Plain attributes with ``__slots__``: attempts read and bump ``seq`` on every step, so access
    must cost no more than it did on the executor itself.
    """

    __slots__ = (
        "_durable_news",
        "_journal_broken",
        "agent_runner",
        "backends",
        "bus",
        "critic",
        "durable_seq",
        "early_seq",
        "journal",
        "keys",
        "local_is_default",
        "max_replans",
        "own_backends",
        "phase_planner",
        "plan",
        "plan_hash",
        "record",
        "replanner",
        "rng",
        "run_id",
        "seq",
        "state",
        "tools",
        "workspace",
    )

    def __init__(
        self,
        *,
        run_id: str,
        state: RunState,
        plan: Plan | None,
        plan_hash: str,
        bus: EventLog,
        tools: Mapping[str, Tool],
        backends: Mapping[str, Backend] | None,
        rng: random.Random,
        critic: Critic | None,
        agent_runner: AgentRunner | None,
        replanner: Replanner | None,
        max_replans: int,
        record: Callable[..., Event],
        journal: Journal | None = None,
        workspace: Path | None = None,
        phase_planner: PhasePlanner | None = None,
    ) -> None:
        self.run_id = run_id
        self.workspace = workspace
        self.state = state
        """The run's state, advanced by every event appended here (the same fold as a resume)."""
        self.plan = plan
        """The current plan version (recovery installs vN+1; a streaming plan is closed)."""
        self.plan_hash = plan_hash
        self.seq = state.last_seq + 1
        """The next event's ``seq``: gap-free across the scheduler, attempts and recovery."""
        self.bus = bus
        self.tools = tools
        # The executor closes backends only if it made them itself (``options.backends`` None).
        self.own_backends = backends is None
        self.backends: dict[str, Backend] = dict(backends or {})
        self.backends.setdefault("local", LocalBackend())
        # Only the stock local backend may be bypassed by awaiting the tool directly.
        self.local_is_default = type(self.backends["local"]) is LocalBackend
        self.keys: dict[str, str] = {}
        """Idempotency keys that differ from ``{run_id}:{step_id}`` (resumed, or revised steps)."""
        self.rng = rng
        self.critic = critic
        self.agent_runner = agent_runner
        self.replanner = replanner
        self.max_replans = max_replans
        self.phase_planner = phase_planner
        self.record = record
        """``Executor.record``: agent steps get it (in ``ctx.extra``) to log their model calls."""
        self.journal = journal
        """Where events must be durable before a tool is called (None: in memory only)."""
        self.durable_seq = state.last_seq
        """Highest ``seq`` the journal has committed (the prior events of a resume are stored)."""
        self.early_seq: Callable[[Step], int | None] | None = None
        """With a journal: for a step whose first attempt may be called before its own
        ``step_started`` is durable, the seq that must be durable instead (its dependencies'
        results and the run's start); ``None`` for every other step. Set by the executor
        (``Executor._early_need``: the rule and why it is safe)."""
        self._durable_news: asyncio.Future[None] | None = None
        self._journal_broken: BaseException | None = None

    def set_durable(self, seq: int) -> None:
        """The journal committed everything up to ``seq``: wake the attempts waiting for it."""
        self.durable_seq = seq
        news, self._durable_news = self._durable_news, None
        if news is not None and not news.done():
            news.set_result(None)

    def journal_broke(self, exc: BaseException) -> None:
        """Recording failed: nothing more becomes durable; waiting attempts raise ``StoreError``."""
        self._journal_broken = exc
        self.bus.tap = None  # the journal refuses events now; the in-memory run still ends cleanly
        self.set_durable(self.durable_seq)

    async def until_durable(self, seq: int) -> None:
        """Return once event ``seq`` is durable (at once without a journal); ``StoreError`` if
        recording failed first (the executor stops the run then)."""
        while self.journal is not None and self.durable_seq < seq:
            if self._journal_broken is not None:
                raise StoreError(f"recording this run failed ({self._journal_broken}); the call was not made")
            if self._durable_news is None:
                self._durable_news = asyncio.get_running_loop().create_future()
            await asyncio.shield(self._durable_news)

    def emit(self, cls: type[E._Event], **fields: Any) -> Any:
        """Build an event of ``cls`` with the next ``seq`` and append it (validated, folded)."""
        plan = self.plan
        event: Any = cls(
            run_id=self.run_id, seq=self.seq, plan_version=plan.version if plan is not None else 1, **fields
        )
        self.seq += 1
        apply(self.state, event)
        self.bus.push(event)
        return event

    def key(self, step_id: str) -> str:
        """The step's idempotency key: the same across retries and resumes of one plan version."""
        return self.keys.get(step_id) or f"{self.run_id}:{step_id}"

    def how_to_run(self, step: Step, spec: ToolSpec | None) -> How:
        """(the tool to await directly or None for the dispatch path, timeout, backend name)."""
        limit_s = (
            step.timeout_s if step.timeout_s is not None else (spec.timeout_s if spec is not None else None)
        )
        backend_name = step.executor or "local"
        direct = None
        if step.agent is None and backend_name == "local" and self.local_is_default:
            direct = self.tools.get(step.tool or "")
        return direct, limit_s, backend_name
