"""What `forethought exec` imports: only what the run needs, and all of it before the first step.

Lazy imports keep start-up short (``jsonschema`` for step checks, ``rich`` for the interactive
review, PyYAML for YAML files, the goal-coverage rules for planned runs, the process pool and
Ray backends for plans that name them, the PostgreSQL store for a URL, the HTTP client for
``http_get``), but a lazily imported module must never be loaded while steps run: whatever a
plan needs is imported when the executor takes its steps.
Each case runs in a fresh interpreter, as a user's command does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import forethought
from forethought.planning.memory import PlanMemory

SRC = str(Path(forethought.__file__).resolve().parents[1])

LAZY = ["jsonschema", "rich", "yaml", "forethought.plan.coverage", "forethought.interfaces.cli._display"]

# The tool reports which of the lazily imported modules are loaded when it runs.
TOOLS = textwrap.dedent(f"""
    import sys

    from forethought import tool


    @tool
    async def give(n: int = 0) -> dict:
        "Returns n and the watched modules loaded when the step runs."
        return {{"n": n, "loaded": [m for m in {LAZY!r} if m in sys.modules]}}
""")


def _exec(tmp_path: Path, plan: dict[str, object], *, entry: list[str] | None = None) -> dict[str, Any]:
    """A fresh ``forethought exec`` of ``plan`` (run database and plan memory in ``tmp_path``),
    started by ``entry`` (``-m forethought`` unless given); its JSON summary."""
    (tmp_path / "tools.py").write_text(TOOLS)
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    env = {
        **os.environ,
        "PYTHONPATH": SRC,
        "FORETHOUGHT_DB": str(tmp_path / "runs.sqlite"),
        "FORETHOUGHT_MEMORY": str(tmp_path / "memory.sqlite"),
        "MODULES_OUT": str(tmp_path / "modules.json"),
    }
    argv = ["exec", str(tmp_path / "plan.json"), "--tools", str(tmp_path / "tools.py"), "--json", "--yes-all"]
    proc = subprocess.run(
        [sys.executable, *(entry or ["-m", "forethought"]), *argv],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    summary = json.loads(proc.stdout)
    assert isinstance(summary, dict), proc.stderr
    return summary


def test_exec_of_a_given_plan_loads_no_review_display_coverage_rules_or_jsonschema(tmp_path: Path) -> None:
    plan = {"goal": "g", "steps": [{"id": "a", "tool": "give", "args": {"n": 1}}]}
    summary = _exec(tmp_path, plan)
    assert summary["status"] == "succeeded"
    assert summary["steps"]["a"]["output"] == {"n": 1, "loaded": []}


def test_a_schema_check_loads_jsonschema_before_the_run_only_when_the_plan_has_one(tmp_path: Path) -> None:
    check = {"schema": {"type": "object", "required": ["n"]}}
    plan = {
        "goal": "g",
        "steps": [
            {"id": "a", "tool": "give", "args": {"n": 1}},
            {"id": "b", "tool": "give", "args": {"n": 2}, "check": check, "depends_on": ["a"]},
        ],
    }
    summary = _exec(tmp_path, plan)
    assert summary["status"] == "succeeded"
    # Loaded before the first step (validation reads the schema, the executor compiles it),
    # not at the first check while the run is under way.
    assert summary["steps"]["a"]["output"]["loaded"] == ["jsonschema"]
    # A failing schema check still fails its step, with jsonschema's own message.
    failing = {"goal": "g", "steps": [{"id": "a", "tool": "give", "check": {"schema": {"required": ["x"]}}}]}
    summary = _exec(tmp_path, failing)
    assert summary["status"] == "failed"
    assert "'x' is a required property" in summary["steps"]["a"]["error"]


# In process: the executor compiles a step's check (schema validator, regex) when it takes the
# step, so the first check does not compile or import anything while the run is under way.
_PREPARED = textwrap.dedent("""
    import sys
    from forethought.execution.executor import Executor
    from forethought.oversight import checks
    from forethought.plan.model import Plan
    assert "jsonschema" not in sys.modules
    plan = Plan.model_validate({"goal": "g", "steps": [
        {"id": "a", "tool": "t", "check": {"schema": {"type": "object"}, "regex": "ok+"}},
        {"id": "b", "tool": "t"},
    ]})
    Executor(plan, {})
    assert "jsonschema" in sys.modules
    assert checks._validator.cache_info().currsize == 1
    print("ok")
""")


def _prints_ok(script: str) -> None:
    """Run ``script`` in a fresh interpreter on these sources; it must print "ok"."""
    proc = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "PYTHONPATH": SRC},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.stdout.strip() == "ok", proc.stderr


def test_the_executor_prepares_checks_when_it_takes_the_steps() -> None:
    _prints_ok(_PREPARED)


# Modules only a path a plain local run does not take needs: the process pool and Ray backends,
# the PostgreSQL store, the HTTP client of ``http_get``, the MCP SDK, the web UI.
UNUSED_BY_A_LOCAL_RUN = [
    "multiprocessing",
    "forethought.execution.backends.process",
    "forethought.execution.backends.ray",
    "ray",
    "forethought.runs.store.postgres",
    "forethought.runs.store.queue",
    "psycopg",
    "forethought.tools._http",
    "http.client",
    "mcp",
    "forethought.interfaces.web",
    "starlette",
]

# `forethought exec …` in this interpreter, writing the modules loaded at exit to $MODULES_OUT.
_WITH_MODULES_AT_EXIT = textwrap.dedent("""
    import atexit, json, os, runpy, sys

    def _dump():
        with open(os.environ["MODULES_OUT"], "w") as out:
            json.dump(sorted(sys.modules), out)

    atexit.register(_dump)
    sys.argv = ["forethought", *sys.argv[1:]]
    runpy.run_module("forethought", run_name="__main__")
""")


def _exec_modules(tmp_path: Path, plan: dict[str, object]) -> tuple[dict[str, Any], set[str]]:
    """A fresh ``exec`` of ``plan`` (run database and plan memory in ``tmp_path``): its summary
    and every module loaded when the process ended."""
    summary = _exec(tmp_path, plan, entry=["-c", _WITH_MODULES_AT_EXIT])
    return summary, set(json.loads((tmp_path / "modules.json").read_text()))


def test_a_local_exec_never_loads_other_backends_stores_or_clients(tmp_path: Path) -> None:
    plan = {
        "goal": "give one and two",
        "steps": [
            {"id": "a", "tool": "give", "args": {"n": 1}},
            {"id": "b", "tool": "give", "args": {"n": 2}},
        ],
    }
    summary, loaded = _exec_modules(tmp_path, plan)
    assert summary["status"] == "succeeded"
    assert sorted(loaded & set(UNUSED_BY_A_LOCAL_RUN)) == []
    # The probe sees what it should: the run's own modules are there.
    assert {"forethought.runs.store.sqlite", "forethought.execution.backends"} <= loaded


def test_a_plan_judged_once_for_plan_memory_is_not_judged_again(tmp_path: Path) -> None:
    plan = {"goal": "give 1", "steps": [{"id": "a", "tool": "give", "args": {"n": 1}}]}
    summary, loaded = _exec_modules(tmp_path, plan)
    assert summary["status"] == "succeeded"
    # A succeeded plan is kept in plan memory only if it covers its goal: the first run judges it.
    assert "forethought.plan.coverage" in loaded
    assert [e.goal for e in PlanMemory(tmp_path / "memory.sqlite").entries()] == ["give 1"]
    again, loaded = _exec_modules(tmp_path, plan)
    assert again["status"] == "succeeded"
    assert "forethought.plan.coverage" not in loaded  # kept already: nothing to judge
    assert len(PlanMemory(tmp_path / "memory.sqlite")) == 1
    # A plan that does not cover its goal is judged (and refused) on each run.
    uncovered = {"goal": "give one", "steps": [{"id": "a", "tool": "give", "args": {"n": 1}}]}
    for _ in range(2):
        summary, loaded = _exec_modules(tmp_path, uncovered)
        assert summary["status"] == "succeeded"
        assert "forethought.plan.coverage" in loaded
    assert len(PlanMemory(tmp_path / "memory.sqlite")) == 1


# In process: a step naming the process pool or Ray loads that backend's module when the executor
# takes the step (before the run), and only then.
_BACKENDS_PREPARED = textwrap.dedent("""
    import sys
    from forethought.execution.executor import Executor
    from forethought.plan.model import Plan
    process, ray = "forethought.execution.backends.process", "forethought.execution.backends.ray"
    Executor(Plan.model_validate({"goal": "g", "steps": [{"id": "a", "tool": "t"}]}), {})
    assert process not in sys.modules and ray not in sys.modules, "loaded for a local plan"
    def on(executor):
        return Plan.model_validate({"goal": "g", "steps": [{"id": "a", "tool": "t", "executor": executor}]})
    Executor(on("process"), {})
    assert process in sys.modules and ray not in sys.modules
    Executor(on("ray"), {})
    assert ray in sys.modules
    from forethought.execution.backends import ProcessBackend
    assert ProcessBackend.__module__ == process
    print("ok")
""")


def test_the_executor_loads_a_backend_a_step_names_when_it_takes_the_step() -> None:
    _prints_ok(_BACKENDS_PREPARED)
