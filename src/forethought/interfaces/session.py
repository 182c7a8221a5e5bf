"""Open an `Agent` from the effective configuration (CLI `run`/`approve`/`resume`, MCP service).

A run records the tool files, built-ins and workspace it was started with (in `run_created`), so
`approve RUN` / `resume RUN` tomorrow reopen the same tools without the user repeating flags.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from forethought.agent import Agent
from forethought.errors import UserError
from forethought.interfaces.config import Config
from forethought.oversight.supervisor import Budgets
from forethought.tools.base import Tool
from forethought.tools.loader import open_tools


def budgets_from(cfg: Config) -> Budgets:
    return Budgets(
        max_steps=cfg.max_steps,
        max_replans=cfg.max_replans,
        max_tokens=cfg.max_tokens,
        max_cost_usd=cfg.max_cost_usd,
        max_wall_s=cfg.max_wall_s,
        on_breach=cfg.on_breach,
    )


def builtins_for(workspace: str, enabled: Sequence[str], *, db: str | None = None) -> list[Tool]:
    """The enabled built-ins confined to ``workspace``; ``db`` (a ``--db`` path) is protected from
    them like the default run database."""
    if not enabled:
        return []
    from forethought.tools.builtin import builtin_tools

    root = Path(workspace).resolve()
    if not root.is_dir():
        raise UserError(
            f"workspace {workspace!r} is not a directory; set --workspace or `workspace` in forethought.toml"
        )
    protect = [Path(db)] if db and "://" not in db else []
    return list(builtin_tools(root, list(enabled), protect=protect))


def tool_setup(cfg: Config, extra_paths: Sequence[str]) -> dict[str, Any]:
    """What a run records about its tools (absolute paths, so a resume from elsewhere works)."""
    paths = [str(Path(p).resolve()) for p in [*cfg.tools, *extra_paths]]
    return {
        "tools": list(dict.fromkeys(paths)),
        "builtins": list(cfg.builtins),
        "workspace": str(Path(cfg.workspace).resolve()),
    }


@contextlib.asynccontextmanager
async def open_agent(cfg: Config, setup: Mapping[str, Any], *, store: Any = None) -> AsyncIterator[Agent]:
    """An agent for ``setup``'s tools; ``store``: a store the caller keeps open (a worker's),
    else the configured one, opened and closed here."""
    extra = builtins_for(setup["workspace"], setup["builtins"], db=cfg.db)
    async with open_tools(setup["tools"], extra=extra) as registry:
        from forethought.planning.memory import PlanMemory
        from forethought.runs.store.opening import open_store

        owned = store is None
        if store is None:
            store = open_store(cfg.db)
        try:
            yield Agent(
                registry,
                model=cfg.model,
                planner_model=cfg.planner_model,
                executor_model=cfg.executor_model,
                critic_model=cfg.critic_model,
                executors=cfg.executors,
                store=store,
                budgets=budgets_from(cfg),
                max_concurrency=cfg.max_concurrency,
                memory=PlanMemory(),
                confidence_threshold=cfg.confidence_threshold,
                reconfirm_destructive=cfg.reconfirm_destructive,
                backend=cfg.backend,
                workspace=setup["workspace"],
            )
        finally:
            if owned:
                store.close()


def recorded_setup(events: Sequence[Any]) -> dict[str, Any]:
    """The tool setup recorded in a run's `run_created` event."""
    for event in events:
        if event.kind == "run_created":
            setup = event.config.get("setup")
            if isinstance(setup, dict):
                return setup
            break
    return {"tools": [], "builtins": [], "workspace": "."}
