"""Process handling of command tools: timeouts kill the whole group, output caps, env, cwd, errors."""

from __future__ import annotations

import asyncio
import contextlib
import os
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from forethought.errors import ToolError, ToolTimeout
from forethought.tools.base import ToolContext
from forethought.tools.yamlfile import load_yaml_tools

CTX = ToolContext()


def _alive(pid: int) -> bool:
    """True if ``pid`` is a live (non-zombie) process."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")


def _group_members(pgid: int) -> list[int]:
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            members.append(int(entry))
    return members


def _survivors(pgid: int, pids: list[int], settle_s: float = 3.0) -> list[int]:
    """Live members of the group (or listed pids) once SIGKILLed processes had time to finish exiting.

    SIGKILL cannot be survived, but a killed process closes its pipes a moment before the kernel
    marks it a zombie; on a loaded machine a check right after the call returns can land in between.
    """
    deadline = time.monotonic() + settle_s
    while True:
        alive = sorted(set(_group_members(pgid)) | {p for p in pids if _alive(p)})
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.02)


async def _load(tmp_path: Path, yaml_text: str) -> tuple[contextlib.AsyncExitStack, dict[str, Any]]:
    (tmp_path / "tools.yaml").write_text(textwrap.dedent(yaml_text))
    stack = contextlib.AsyncExitStack()
    tools = await load_yaml_tools(tmp_path / "tools.yaml", stack)
    return stack, {t.spec.name: t for t in tools}


def _real(path: Path) -> str:
    return str(path.resolve())


def _words(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []


async def _wait_for_file(path: Path, lines: int, limit_s: float = 5.0) -> list[str]:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if len(words := _words(path)) >= lines:
            return words
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} never got {lines} lines")


SPAWNER = """
tools:
  - name: spawner
    timeout_s: {timeout}
    kill_grace_s: 0.3
    script: |
      echo $$ >> pids
      # a grandchild that ignores SIGTERM, and a nested shell with its own child
      sh -c 'trap "" TERM; echo $$ >> pids; sleep 60' &
      sh -c 'sleep 60 & echo $! >> pids; wait' &
      trap "" TERM
      # make sure every pid is recorded before the timeout can fire, even on a loaded machine
      while [ "$(wc -l < pids)" -lt 3 ]; do sleep 0.01; done
      echo ready > ready
      sleep 60
"""


async def test_timeout_kills_every_process_in_the_group(tmp_path: Path) -> None:
    stack, tools = await _load(tmp_path, SPAWNER.format(timeout=2))
    async with stack:
        started = time.monotonic()
        with pytest.raises(ToolTimeout, match=r"timed out after 2s"):
            await tools["spawner"].invoke({}, CTX)
        elapsed = time.monotonic() - started
    assert _words(tmp_path / "ready") == ["ready"], "the script did not get going before the timeout"
    pids = [int(p) for p in _words(tmp_path / "pids")]
    assert len(pids) == 3
    leader = pids[0]
    assert elapsed < 8, "SIGKILL after the grace period must end the call promptly"
    assert _survivors(leader, pids) == []


async def test_cancellation_kills_the_group(tmp_path: Path) -> None:
    stack, tools = await _load(tmp_path, SPAWNER.format(timeout=60))
    async with stack:
        task = asyncio.create_task(tools["spawner"].invoke({}, CTX))
        pids = [int(p) for p in await _wait_for_file(tmp_path / "pids", 3)]
        assert all(_alive(p) for p in pids)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert _survivors(pids[0], pids) == []


async def test_background_jobs_do_not_outlive_a_successful_call(tmp_path: Path) -> None:
    stack, tools = await _load(
        tmp_path,
        """
        tools:
          - name: bg
            # a background job that ignores SIGTERM and does not hold our pipes: only SIGKILL ends it
            script: |
              sh -c 'trap "" TERM; exec >/dev/null 2>&1; sleep 60' &
              echo $! > bgpid; echo $$ > leader; echo done
    """,
    )
    async with stack:
        started = time.monotonic()
        out = await tools["bg"].invoke({}, CTX)
        assert time.monotonic() - started < 5
    assert out["stdout"] == "done\n"
    bg = int((tmp_path / "bgpid").read_text())
    assert _survivors(int((tmp_path / "leader").read_text()), [bg]) == []


async def test_output_is_capped_and_marked(tmp_path: Path) -> None:
    stack, tools = await _load(
        tmp_path,
        """
        tools:
          - name: chatty
            max_output_bytes: 1000
            command: [sh, -c, "head -c 200000 /dev/zero | tr '\\\\0' x; echo err >&2"]
    """,
    )
    async with stack:
        out = await tools["chatty"].invoke({}, CTX)
    assert out["stdout"] == "x" * 1000
    assert out["truncated"] is True
    assert out["stderr"] == "err\n"
    assert out["exit_code"] == 0


async def test_nonzero_exit_fails_with_stderr_tail(tmp_path: Path) -> None:
    stack, tools = await _load(
        tmp_path,
        """
        tools:
          - name: failing
            script: "echo lots of noise; for i in $(seq 1 500); do echo line$i >&2; done; exit 3"
          - name: grep_like
            success_codes: [0, 1]
            command: [sh, -c, "exit 1"]
    """,
    )
    async with stack:
        with pytest.raises(ToolError, match=r"(?s)exited with code 3: line481\n.*line500$") as info:
            await tools["failing"].invoke({}, CTX)
        assert "line480" not in str(info.value)  # only the tail
        assert (await tools["grep_like"].invoke({}, CTX))["exit_code"] == 1


async def test_env_is_an_allow_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "s3cr3t")
    monkeypatch.setenv("ALLOWED_VAR", "yes")
    stack, tools = await _load(
        tmp_path,
        """
        tools:
          - name: show_env
            env: [ALLOWED_VAR]
            command: [env]
          - name: fixed_env
            env: {MODE: test}
            command: [env]
    """,
    )
    async with stack:
        lines = (await tools["show_env"].invoke({}, CTX))["stdout"].splitlines()
        fixed = (await tools["fixed_env"].invoke({}, CTX))["stdout"].splitlines()
    names = {line.split("=", 1)[0] for line in lines}
    assert "ALLOWED_VAR=yes" in lines
    assert "SECRET_TOKEN" not in names
    assert names <= {
        "ALLOWED_VAR",
        "PATH",
        "HOME",
        "LANG",
        "LC_ALL",
        "LC_CTYPE",
        "TZ",
        "TMPDIR",
        "FORETHOUGHT_RUN_ID",
        "FORETHOUGHT_STEP_ID",
        "FORETHOUGHT_ATTEMPT",
        "FORETHOUGHT_IDEMPOTENCY_KEY",
    }
    assert "MODE=test" in fixed
    assert "ALLOWED_VAR" not in {line.split("=", 1)[0] for line in fixed}


async def test_cwd_defaults_to_root_and_can_be_set(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    stack, tools = await _load(
        tmp_path,
        """
        tools:
          - name: here
            command: [pwd]
          - name: there
            cwd: work
            command: [pwd]
    """,
    )
    async with stack:
        here = (await tools["here"].invoke({}, CTX))["stdout"].strip()
        there = (await tools["there"].invoke({}, CTX))["stdout"].strip()
    assert here == _real(tmp_path)
    assert there == _real(tmp_path / "work")


async def test_json_output(tmp_path: Path) -> None:
    stack, tools = await _load(
        tmp_path,
        """
        tools:
          - name: js
            output: json
            command: [echo, '{"rows": [1, 2]}']
          - name: notjs
            output: json
            command: [echo, 'not json']
    """,
    )
    async with stack:
        out = await tools["js"].invoke({}, CTX)
        assert out["stdout"] == {"rows": [1, 2]}
        assert tools["js"].spec.output_schema["properties"]["exit_code"] == {"type": "integer"}
        with pytest.raises(ToolError, match="stdout is not JSON"):
            await tools["notjs"].invoke({}, CTX)


async def test_missing_executable_and_bad_args(tmp_path: Path) -> None:
    stack, tools = await _load(
        tmp_path,
        """
        tools:
          - name: ghost
            parameters: {mode: {type: string, enum: [fast, slow], default: fast},
                         n: {type: integer, minimum: 1, maximum: 5, default: 1},
                         tag: {type: string, pattern: "^v[0-9]+$", default: v1}}
            command: [definitely-not-a-program-xyz, "{{mode}}", "{{n}}", "{{tag}}"]
    """,
    )
    async with stack:
        ghost = tools["ghost"]
        with pytest.raises(ToolError, match="not found"):
            await ghost.invoke({}, CTX)
        with pytest.raises(ToolError, match="must be one of"):
            await ghost.invoke({"mode": "medium"}, CTX)
        with pytest.raises(ToolError, match="must be <= 5"):
            await ghost.invoke({"n": 9}, CTX)
        with pytest.raises(ToolError, match="does not match pattern"):
            await ghost.invoke({"tag": "v1; rm -rf /"}, CTX)
        with pytest.raises(ToolError, match="unknown argument"):
            await ghost.invoke({"extra": 1}, CTX)
        assert ghost.build_argv({"mode": "fast", "n": 2, "tag": "v3"})[1:] == ["fast", "2", "v3"]


async def test_run_context_reaches_the_child(tmp_path: Path) -> None:
    stack, tools = await _load(
        tmp_path,
        """
        tools:
          - name: show_env
            command: [env]
    """,
    )
    ctx = ToolContext(run_id="r1", step_id="backup", attempt=2, idempotency_key="r1:backup")
    async with stack:
        lines = (await tools["show_env"].invoke({}, ctx))["stdout"].splitlines()
    assert {
        "FORETHOUGHT_RUN_ID=r1",
        "FORETHOUGHT_STEP_ID=backup",
        "FORETHOUGHT_ATTEMPT=2",
        "FORETHOUGHT_IDEMPOTENCY_KEY=r1:backup",
    } <= set(lines)
