"""The CLI's process tuning (``settle_heap``): only the ``forethought`` program's own process is
tuned; the CLI run in-process (tests, another program) leaves the collector alone."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

from forethought.interfaces.cli import main as cli_main
from forethought.interfaces.cli._common import YOUNG_COLLECTION_EVERY

PLAN = "goal: list the workspace\nsteps:\n  - id: s1\n    tool: list_dir\n    args: {path: .}\n"


@pytest.fixture
def plan(tmp_path: Path) -> Path:
    path = tmp_path / "plan.yaml"
    path.write_text(PLAN, encoding="utf-8")
    return path


def test_the_cli_run_in_process_does_not_tune_the_callers_collector(plan: Path, tmp_path: Path) -> None:
    before, thresholds = gc.get_freeze_count(), gc.get_threshold()
    code = cli_main.run(["exec", str(plan), "--db", str(tmp_path / "runs.db"), "--yes-all", "--json"])
    assert code == 0
    assert gc.get_freeze_count() == before
    assert gc.get_threshold() == thresholds
    assert gc.isenabled()


def test_the_forethought_program_freezes_its_start_up_heap(plan: Path, tmp_path: Path) -> None:
    probe = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print('frozen', gc.get_freeze_count(), gc.isenabled(), "
        "*gc.get_threshold(), file=sys.stderr))\n"
        "from forethought.interfaces.cli.main import main\n"
        "main()\n"
    )
    env = {**os.environ, "FORETHOUGHT_DB": str(tmp_path / "runs.db")}
    done = subprocess.run(
        [sys.executable, "-c", probe, "exec", str(plan), "--yes-all", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stderr.splitlines() if x.startswith("frozen"))
    _, count, enabled, young, *older = line.split()
    assert int(count) > 1000  # the imported modules' objects, out of the collector's view
    assert enabled == "True"  # frozen, never switched off
    # Young collections rarer (the program's own process only); the older generations as they were.
    assert int(young) == YOUNG_COLLECTION_EVERY
    assert [int(t) for t in older] == list(gc.get_threshold()[1:])


def test_an_sdk_model_is_prepared_before_its_first_call() -> None:
    pytest.importorskip("openai")
    from forethought.models.openai import OpenAIModel

    model = OpenAIModel("m", base_url="http://127.0.0.1:9/v1", api_key="k")
    assert model._client is None
    model.prepare()
    assert model._client is not None  # built without a request: port 9 was never contacted
