"""`forethought exec` progress lines on stderr: written once per loop turn, secrets removed.

The secret screen reads a turn's joined lines once; these tests pin that a secret in any one
line (a failing tool's message) is still removed, and that clean lines pass unchanged.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from click.testing import CliRunner

from forethought.interfaces.cli.exec_cmd import exec_command

GITHUB = "ghp_" + "0123456789abcdefghijABCDEFGHIJ012345"

TOOLS = textwrap.dedent(f"""
    from forethought import tool

    @tool
    def ok(x: int = 0) -> int:
        "Returns x."
        return x

    @tool
    def leak() -> int:
        "Fails with a token in its message."
        raise ValueError("auth with {GITHUB} refused")
""")

PLAN = textwrap.dedent("""
    goal: progress lines
    steps:
      - id: a1
        tool: ok
      - id: a2
        tool: ok
      - id: bad
        tool: leak
        depends_on: [a1]
""")


def test_progress_lines_are_written_and_redacted(tmp_path: Path) -> None:
    (tmp_path / "tools.py").write_text(TOOLS)
    (tmp_path / "plan.yaml").write_text(PLAN)
    result = CliRunner().invoke(
        exec_command,
        [str(tmp_path / "plan.yaml"), "--tools", str(tmp_path / "tools.py"), "--yes-all"],
        standalone_mode=False,
    )
    assert result.exception is None, result.output
    assert result.return_value == 1
    err = result.stderr
    assert GITHUB not in err
    assert "[REDACTED:" in err
    # The clean lines of the same turns are unchanged and all there, in order per step.
    for sid in ("a1", "a2"):
        assert f"▶ {sid} started (attempt 1)" in err
        assert err.index(f"▶ {sid} started") < err.index(f"✔ {sid} succeeded in ")
    assert "✘ bad failed (error): ValueError: auth with [REDACTED:" in err
