"""Issue 15 item 9: a JSON plan with a duplicate key is refused, as a YAML plan already is.

With "last wins", a reviewer reading the first ``"args"`` approves something else than what runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from forethought.plan.files import PlanFileError, load_plan, parse_text

SRC = str(Path(__file__).resolve().parents[2] / "src")

PLAN = """{
  "goal": "add two numbers",
  "steps": [
    {"id": "s1", "tool": "calculate",
     "args": {"expression": "1 + 1"},
     "args": {"expression": "2 + 2"}}
  ]
}
"""


def test_duplicate_step_key_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_text(PLAN)
    with pytest.raises(PlanFileError) as exc:
        load_plan(path)
    message = str(exc.value)
    assert message.startswith(f"{path}:6:")
    assert "duplicate key 'args'" in message and "\n" not in message


@pytest.mark.parametrize(
    ("text", "line", "key"),
    [
        ('{"goal": "x", "goal": "y", "steps": []}', 1, "goal"),
        ('{"goal": "x",\n "steps": [],\n "metadata": {"a": 1, "b": {"a": 1}, "a": 2}}', 3, "a"),
        ('[{"id": "a"}, {"id": "b", "tool": "t",\n "tool": "u"}]', 2, "tool"),
        ('{"a": {"k": 1}, "b": {"k": 1}, "a\\u0062": 1, "ab": 2}', 1, "ab"),  # escapes decoded
    ],
)
def test_duplicates_are_found_anywhere(text: str, line: int, key: str) -> None:
    with pytest.raises(PlanFileError) as exc:
        parse_text(text, "json", "p.json")
    assert str(exc.value).startswith(f"p.json:{line}:")
    assert f"duplicate key {key!r}" in str(exc.value)


def test_distinct_keys_in_sibling_objects_are_fine() -> None:
    data = parse_text('{"a": {"k": 1}, "b": {"k": 2}, "c": [{"k": 1}, {"k": 2}]}', "json", "p.json")
    assert data == {"a": {"k": 1}, "b": {"k": 2}, "c": [{"k": 1}, {"k": 2}]}


def test_cli_exec_and_lint_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_text(PLAN)
    for command in (["exec", str(path), "--yes", "--db", str(tmp_path / "runs.db")], ["lint", str(path)]):
        proc = subprocess.run(
            [sys.executable, "-m", "forethought", *command],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": SRC},
        )
        assert proc.returncode == 2, (command, proc.stdout, proc.stderr)
        assert "duplicate key 'args'" in proc.stderr
        assert "Traceback" not in proc.stderr
