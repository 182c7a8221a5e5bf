"""The layer rule, enforced: import-linter's contracts in pyproject.toml must all be kept.

Stages import only the stages below them (interfaces > agent > runs > execution > planning |
oversight > tools | models > plan | events), and nothing below the composition root imports the
agent, the public API or an interface. See docs/architecture.md.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"
LINT_IMPORTS = Path(sys.executable).parent / ("lint-imports.exe" if os.name == "nt" else "lint-imports")


def _lint_imports(src: Path) -> subprocess.CompletedProcess[str]:
    """Check the package under ``src`` against the repository's contracts (no cache written)."""
    if not LINT_IMPORTS.exists():
        pytest.fail(f"{LINT_IMPORTS} not found: install the test tools with pip install -e '.[dev]'")
    env = {**os.environ, "PYTHONPATH": str(src)}  # this tree's forethought, not an installed one
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(REPO / "pyproject.toml"), "--no-cache", "--no-logo"],
        cwd=src,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_every_import_contract_is_kept() -> None:
    result = _lint_imports(SRC)
    assert result.returncode == 0, result.stdout + result.stderr
    assert " 0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "bad_import", "reported"),
    [
        # the bottom layer reaching up to the executor
        (
            "plan/graph.py",
            "from forethought.execution import executor",
            "forethought.plan.graph -> forethought.execution.executor",
        ),
        # a stage importing the public API, which imports the agent (caught as an indirect import)
        ("events/state.py", "from forethought import Agent", "forethought.events.state -> forethought "),
        # planning and oversight are siblings that stay independent
        (
            "oversight/checks.py",
            "from forethought.planning import planner",
            "forethought.oversight.checks -> forethought.planning.planner",
        ),
    ],
)
def test_an_upward_import_breaks_the_check(
    tmp_path: Path, module: str, bad_import: str, reported: str
) -> None:
    """The check can fail: the same contracts on a copy of the package with one bad import."""
    src = tmp_path / "src"
    shutil.copytree(SRC / "forethought", src / "forethought", ignore=shutil.ignore_patterns("__pycache__"))
    target = src / "forethought" / module
    target.write_text(target.read_text() + f"\n{bad_import}  # the bad import under test\n")
    result = _lint_imports(src)
    assert result.returncode != 0, result.stdout
    assert reported in result.stdout, result.stdout
