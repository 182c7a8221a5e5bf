"""The interactive `forethought run` in a real terminal (a pty): approve, edit, reject, and
Ctrl-C followed by `forethought resume`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

FIXTURES = Path(__file__).parent / "fixtures" / "interactive"
PLAN = {
    "steps": [
        {"id": "s1", "tool": "read_config", "args": {"name": "db"}},
        {"id": "s2", "tool": "write_config", "args": {"name": "db", "value": "${s1.value}"}},
    ]
}


def setup(
    tmp_path: Path, plan: dict[str, object], goal: str = "update the db setting", *extra: str
) -> tuple[list[str], dict[str, str]]:
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps([json.dumps(plan)]))
    env = dict(
        os.environ,
        FT_TEST_EFFECTS=str(tmp_path / "effects.log"),
        EDITOR=f"{sys.executable} {FIXTURES / 'edit_plan.py'}",
        TERM="xterm",
        COLUMNS="120",
        LINES="40",
    )
    args = [
        "-m",
        "forethought",
        "run",
        goal,
        "--model",
        f"scripted:{replies}",
        "--tools",
        str(FIXTURES / "tools.py"),
        "--db",
        str(tmp_path / "runs.db"),
        *extra,
    ]
    return args, env


def effects(tmp_path: Path) -> list[str]:
    log = tmp_path / "effects.log"
    return log.read_text().splitlines() if log.exists() else []


def runs(tmp_path: Path) -> list[dict[str, object]]:
    out = subprocess.run(
        [sys.executable, "-m", "forethought", "runs", "--json", "--db", str(tmp_path / "runs.db")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return json.loads(out.stdout)


def spawn(args: list[str], env: dict[str, str], cwd: Path) -> pexpect.spawn:
    return pexpect.spawn(
        sys.executable, args, env=env, cwd=str(cwd), encoding="utf-8", timeout=60, dimensions=(40, 120)
    )


def test_approve(tmp_path: Path) -> None:
    args, env = setup(tmp_path, PLAN)
    child = spawn(args, env, tmp_path)
    child.expect(r"\[a\]pprove, \[e\]dit, \[r\]eject")
    assert effects(tmp_path) == []  # nothing ran before the human answered
    child.sendline("a")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    assert effects(tmp_path) == ["read db", "write db=<db>"]
    assert runs(tmp_path)[0]["status"] == "succeeded"


def test_reject(tmp_path: Path) -> None:
    args, env = setup(tmp_path, PLAN)
    child = spawn(args, env, tmp_path)
    child.expect(r"\[r\]eject")
    child.sendline("r")
    child.expect("reason")
    child.sendline("wrong database")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    assert effects(tmp_path) == []
    assert runs(tmp_path)[0]["status"] == "cancelled"


def test_edit_then_approve(tmp_path: Path) -> None:
    args, env = setup(tmp_path, PLAN)
    child = spawn(args, env, tmp_path)
    child.expect(r"\[r\]eject")
    child.sendline("e")
    child.expect("plan v2")  # the edited plan is shown again, as a new version
    child.expect(r"\[r\]eject")
    child.sendline("a")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    # The edit removed s2's reference to s1, so the two may run in either order.
    assert sorted(effects(tmp_path)) == ["read db", "write db=edited-by-human"]


def test_ctrl_c_pauses_and_resume_finishes(tmp_path: Path) -> None:
    plan = {
        "steps": [
            # s1 runs until the test releases it (or 120 s): Ctrl-C always lands mid-check.
            {"id": "s1", "tool": "slow_check", "args": {"seconds": 120}},
            {"id": "s2", "tool": "write_config", "args": {"name": "x", "value": "y"}, "depends_on": ["s1"]},
        ]
    }
    args, env = setup(tmp_path, plan, "check slowly, then set x to y", "--force")  # s1 only orders s2
    child = spawn(args, env, tmp_path)
    child.expect(r"\[r\]eject")
    child.sendline("a")
    for _ in range(100):
        if "slow started" in effects(tmp_path):
            break
        child.expect([pexpect.TIMEOUT, pexpect.EOF], timeout=0.1)
    child.sendintr()
    child.expect("forethought resume")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 3, child.before
    assert "write x=y" not in effects(tmp_path)
    assert "slow finished" not in effects(tmp_path)  # cancelled mid-check, not run to its end
    run = runs(tmp_path)[0]
    assert run["status"] == "paused"
    (tmp_path / "effects.log.release").touch()  # the resumed check may finish now
    resumed = subprocess.run(
        [
            sys.executable,
            "-m",
            "forethought",
            "resume",
            str(run["run_id"]),
            "--db",
            str(tmp_path / "runs.db"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert effects(tmp_path)[-1] == "write x=y"
    assert effects(tmp_path).count("slow finished") == 1
