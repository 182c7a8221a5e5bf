"""The code style, enforced: ruff's lint and formatter, and mypy --strict, are clean.

`ruff format` is the project's formatter (issue 14); these tests keep it adopted, so a change
that was not formatted, or that breaks the types, fails CI instead of drifting.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
RUFF = BIN / ("ruff.exe" if os.name == "nt" else "ruff")
MYPY = BIN / ("mypy.exe" if os.name == "nt" else "mypy")
TREES = ["src", "tests", "bench", "examples"]


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    if not RUFF.exists():
        pytest.fail(f"{RUFF} not found: install the test tools with pip install -e '.[dev]'")
    return subprocess.run(
        [str(RUFF), *args, "--no-cache", *TREES], cwd=REPO, capture_output=True, text=True, timeout=300
    )


def test_ruff_lint_is_clean() -> None:
    result = _ruff("check")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_applied() -> None:
    result = _ruff("format", "--check")
    assert result.returncode == 0, "run `ruff format src tests bench examples`:\n" + result.stdout


def test_the_check_fails_on_unformatted_code(tmp_path: Path) -> None:
    """The format check can fail: badly formatted code is reported."""
    bad = tmp_path / "bad.py"
    bad.write_text("x = {  'a':1 }\n")
    result = subprocess.run(
        [str(RUFF), "format", "--check", "--no-cache", str(bad)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1 and "bad.py" in result.stdout


def test_mypy_strict_is_clean(tmp_path: Path) -> None:
    if not MYPY.exists():
        pytest.fail(f"{MYPY} not found: install the test tools with pip install -e '.[dev]'")
    result = subprocess.run(
        [str(MYPY), "--cache-dir", str(tmp_path / "mypy-cache")],  # settings: pyproject [tool.mypy]
        cwd=REPO,
        env={**os.environ, "MYPYPATH": str(REPO / "src")},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
