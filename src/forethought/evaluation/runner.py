"""Run a suite: each task through the public ``Agent`` API, isolated, several at once.

Each task gets its own directory under the output directory: ``workspace/`` (a fresh copy of
the task's workspace; a tools file inside the workspace is loaded from the copy, so command
tools that keep state next to themselves change the copy, never the source) and ``runs.db`` (a
fresh SQLite run store). The run is recorded there like any ``forethought run``, so ``forethought
show RUN --db DIR/TASK/runs.db`` explains a failed task. Faults (the task's and the command
line's) wrap the task's tools; the score is read from the recorded events (``scoring``).
"""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forethought.agent import Agent
from forethought.errors import ForethoughtError, UserError
from forethought.evaluation.scoring import CheckResult, RunFacts, check_expectations, run_facts
from forethought.evaluation.suite import Suite, Task
from forethought.oversight.supervisor import Budgets
from forethought.tools.base import Tool
from forethought.tools.faults import FaultSpec, FiredFault, inject_faults
from forethought.tools.loader import open_tools

Progress = Callable[[str, "TaskResult | None"], Awaitable[None] | None]


@dataclass
class TaskResult:
    task_id: str
    passed: bool
    wall_s: float
    facts: RunFacts | None = None
    checks: list[CheckResult] = field(default_factory=list)
    faults_fired: list[FiredFault] = field(default_factory=list)
    error: str | None = None  # the task could not be run as written (bad plan file, tools, ...)
    db: str = ""
    tool_names: tuple[str, ...] = ()  # the task's tools (to tell a --fault typo from a tool it lacks)

    def to_json(self) -> dict[str, Any]:
        f = self.facts
        return {
            "id": self.task_id,
            "passed": self.passed,
            "wall_s": self.wall_s,
            "error": self.error,
            "run_id": f.run_id if f else None,
            "status": f.status if f else None,
            "reason": f.reason if f else None,
            "steps": f.steps if f else None,
            "cost_usd": f.cost_usd if f else None,
            "tokens": f.tokens if f else None,
            "tool_calls": list(f.tool_calls) if f else [],
            **(f.flags() if f else {}),
            "faults_fired": [x.to_json() for x in self.faults_fired],
            "checks": [c.to_json() for c in self.checks],
            "db": self.db,
        }


@dataclass(frozen=True)
class RunOptions:
    out_dir: Path
    jobs: int = 4
    model: str | None = None  # --model: overrides the suite's and the tasks' models
    faults: tuple[FaultSpec, ...] = ()  # --fault: applied to every task that has the tool


# What a task directory holds after an evaluation (the SQLite store's side files included).
_OURS = frozenset({"workspace", "runs.db", "runs.db-wal", "runs.db-shm", "runs.db-journal"})


def _copy_workspace(source: Path, target: Path) -> None:
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", ".git"), symlinks=True)


def _in_copy(path: str, source: Path | None, copy: Path) -> str:
    """A tools file inside the source workspace → the same file in the copy."""
    p = Path(path)
    if source is not None and p.is_relative_to(source):
        return str(copy / p.relative_to(source))
    return path


def _builtins(names: Sequence[str], workspace: Path, db: Path) -> list[Tool]:
    if not names:
        return []
    from forethought.tools.builtin import builtin_tools

    return builtin_tools(workspace, list(names), protect=[db])


def _budgets(task: Task) -> Budgets:
    """The run's budgets: the task's replan limit, and its ``max_wall_s`` as the run's wall-clock
    budget (aborting), so a hung tool fails its task instead of hanging the evaluation."""
    fields: dict[str, Any] = {}
    if task.max_replans is not None:
        fields["max_replans"] = task.max_replans
    if task.expect.max_wall_s is not None:
        fields.update(max_wall_s=task.expect.max_wall_s, on_breach="abort")
    return Budgets(**fields)


async def run_task(suite: Suite, task: Task, options: RunOptions) -> TaskResult:
    """Run one task in its own directory and score it. Never raises for a task's own failure:
    a task that cannot be set up is a result with ``error``."""
    task_dir = options.out_dir / task.id
    if task_dir.exists():
        # Only a previous evaluation's output is replaced: `--out .` must never delete a project dir.
        foreign = sorted(p.name for p in task_dir.iterdir() if p.name not in _OURS)
        if foreign:
            return TaskResult(
                task.id,
                False,
                0.0,
                error=f"{task_dir} holds {', '.join(foreign[:3])}, not an earlier evaluation's output; "
                "choose another --out directory",
            )
        await asyncio.to_thread(shutil.rmtree, task_dir)
    task_dir.mkdir(parents=True)
    db = task_dir / "runs.db"
    source = Path(task.workspace) if task.workspace else None
    workspace: Path | None = None
    if source is not None:
        workspace = task_dir / "workspace"
        await asyncio.to_thread(_copy_workspace, source, workspace)
    started = time.perf_counter()
    names: tuple[str, ...] = ()
    try:
        paths = [_in_copy(t, source, workspace) if workspace else t for t in task.tools]
        builtins = _builtins(task.builtins, workspace or task_dir, db)
        async with open_tools(paths, extra=builtins) as registry:
            names = tuple(registry)
            cli_faults = [f for f in options.faults if f.tool in registry]
            tools, log = inject_faults(registry, [*task.faults, *cli_faults])
            from forethought.runs.store.opening import open_store

            store = open_store(db)
            try:
                budgets = _budgets(task)
                agent = Agent(
                    tools,
                    model=options.model or task.model or suite.model,
                    store=store,
                    budgets=budgets,
                    workspace=workspace or task_dir,
                )
                target: Any = task.goal
                if task.plan is not None:
                    from forethought.plan.files import load_validated_plan

                    target = load_validated_plan(task.plan, agent.specs)
                started = time.perf_counter()
                result = await agent.run(target, approve=task.approve)
                wall = time.perf_counter() - started
                events = store.events(result.run_id)
            finally:
                store.close()
    except UserError as exc:  # the task as written cannot run: a bad suite, exit 2
        return TaskResult(task.id, False, time.perf_counter() - started, error=str(exc), db=str(db))
    except ForethoughtError as exc:  # e.g. the planning model failed: the task fails, as a run would
        detail = f"{type(exc).__name__}: {exc}"
        return TaskResult(
            task.id,
            False,
            time.perf_counter() - started,
            checks=[CheckResult("run", False, detail)],
            db=str(db),
            tool_names=names,
        )
    facts = run_facts(events)
    checks = check_expectations(task.expect, facts, wall, workspace)
    return TaskResult(
        task.id,
        all(c.passed for c in checks),
        wall,
        facts=facts,
        checks=checks,
        faults_fired=list(log.fired),
        db=str(db),
        tool_names=names,
    )


async def run_suite(suite: Suite, options: RunOptions, progress: Progress | None = None) -> list[TaskResult]:
    """Every task, at most ``options.jobs`` at once; results in the suite's task order.

    A command-line fault naming a tool that no task has is a ``UserError``: found only after the
    tasks' tools were opened, so it is checked per task and reported once at the end."""
    gate = asyncio.Semaphore(max(1, options.jobs))

    async def one(task: Task) -> TaskResult:
        async with gate:
            if progress is not None:
                await _maybe(progress(task.id, None))
            result = await run_task(suite, task, options)
            if progress is not None:
                await _maybe(progress(task.id, result))
            return result

    results = list(await asyncio.gather(*(one(t) for t in suite.tasks)))
    known = {name for r in results for name in r.tool_names}
    opened = any(r.tool_names for r in results)
    for fault in options.faults:
        if opened and fault.tool not in known:
            tools = ", ".join(sorted(known))
            raise UserError(f"--fault names tool {fault.tool!r}, which no task has; the tools are: {tools}")
    return results


async def _maybe(value: Awaitable[None] | None) -> None:
    if value is not None:
        await value
