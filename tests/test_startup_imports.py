"""What `forethought exec` imports: only what the run needs, and all of it before the first step.

Lazy imports keep start-up short (``jsonschema`` for step checks, ``rich`` for the interactive
review, PyYAML for YAML files, the goal-coverage rules for planned runs), but a lazily imported
module must never be loaded while steps run: whatever a plan needs is imported when the
executor takes its steps.
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


def _exec(tmp_path: Path, plan: dict[str, object]) -> dict[str, Any]:
    (tmp_path / "tools.py").write_text(TOOLS)
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    env = {
        **os.environ,
        "PYTHONPATH": SRC,
        "FORETHOUGHT_DB": str(tmp_path / "runs.sqlite"),
        "FORETHOUGHT_MEMORY": str(tmp_path / "memory.sqlite"),
    }
    plan_file, tools = str(tmp_path / "plan.json"), str(tmp_path / "tools.py")
    proc = subprocess.run(
        [sys.executable, "-m", "forethought", "exec", plan_file, "--tools", tools, "--json", "--yes-all"],
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


def test_the_executor_prepares_checks_when_it_takes_the_steps() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _PREPARED],
        env={**os.environ, "PYTHONPATH": SRC},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.stdout.strip() == "ok", proc.stderr
