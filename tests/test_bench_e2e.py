"""A small sample of bench/e2e in the suite: one fan-out task, forethought only, against the
benchmark's scripted model server on loopback (fast: low latency, scaled-down tools).

It checks what the benchmark relies on: the server speaks the wire format forethought's
``openai-compat:`` adapter uses (JSON-schema planning, the plan conforming to the schema sent),
the CLI answers correctly, and independent tool calls really overlap in time.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
E2E = REPO / "bench" / "e2e"
sys.path.insert(0, str(E2E))

from tasks import TASKS, answer_is_correct  # noqa: E402

pytest.importorskip("openai")
pytest.importorskip("uvicorn")
pytest.importorskip("starlette")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server() -> Iterator[str]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, str(E2E / "server.py"), "--port", str(port), "--ttft", "0.01", "--rate", "5000"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:  # wait for the listening socket (a readiness probe, not a timing sleep)
            try:
                urllib.request.urlopen(url + "/v1/models", timeout=1).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"model server did not start: {proc.stderr.read() if proc.stderr else ''}")
                time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_forethought_answers_a_fanout_task_with_overlapping_tool_calls(server: str, tmp_path: Path) -> None:
    task = TASKS["fanout-population-4"]
    tool_log = tmp_path / "tools.jsonl"
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO / "src"),
        "FORETHOUGHT_OPENAI_BASE_URL": server + "/v1",
        "FORETHOUGHT_BUILTINS": "none",
        "BENCH_E2E_TOOL_LOG": str(tool_log),
        "BENCH_E2E_TOOL_SCALE": "0.25",  # 0.2 s per population lookup
    }
    flags = ["--tools", str(E2E / "ft_tools.py"), "--yes-all", "--no-stream", "--db", str(tmp_path / "r.db")]
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "forethought",
            "run",
            task.question,
            "--model",
            "openai-compat:sample",
            *flags,
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert answer_is_correct(task, proc.stdout), proc.stdout
    assert not answer_is_correct(task, "2102650 3878100 3460491"), "the check must miss a value"

    calls = [json.loads(line) for line in tool_log.read_text().splitlines()]
    assert sorted(c["args"]["city"] for c in calls) == ["Berlin", "Madrid", "Paris", "Rome"]
    assert all(c["ok"] for c in calls)
    # all four lookups were in flight at once: the last to start began before the first ended
    assert max(c["start"] for c in calls) < min(c["end"] for c in calls)

    with urllib.request.urlopen(server + "/bench/log", timeout=10) as resp:
        log = json.load(resp)
    assert [(e["role"], e["task"], e["tag"]) for e in log] == [("forethought-planner", task.id, "sample")]
    assert log[0]["schema_ok"] is True  # the scripted plan conforms to the schema forethought sent
    assert log[0]["input_tokens"] > 0 and log[0]["output_tokens"] > 0


def test_the_server_refuses_a_request_it_has_no_script_for(server: str) -> None:
    body = json.dumps({"model": "x", "messages": [{"role": "user", "content": "hello"}]}).encode()
    request = urllib.request.Request(
        server + "/v1/chat/completions", data=body, headers={"Content-Type": "application/json"}
    )
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(request, timeout=10)
    assert err.value.code == 400
    assert "no scripted role" in err.value.read().decode()


def test_the_scripted_planner_answers_in_the_shape_the_schema_asks_for() -> None:
    import ft_tools
    import jsonschema
    from scripts import forethought_plan, plan_shape

    from forethought.planning.grammar import PlanSchemaBuilder, step_ids
    from forethought.tools.python import PythonTool

    specs = {t.spec.name: t.spec for t in vars(ft_tools).values() if isinstance(t, PythonTool)}
    assert len(specs) == 15
    task = TASKS["chain-capital-population"]
    for shape in ("classic", "compact"):
        schema = PlanSchemaBuilder(specs, shape=shape).plan_schema(step_ids(10))
        assert plan_shape(schema) == shape
        answer = json.loads(forethought_plan(task, plan_shape(schema)))
        jsonschema.validate(answer, schema)
        first = answer["steps"][0]
        assert ("tool" in first) == (shape == "classic")
