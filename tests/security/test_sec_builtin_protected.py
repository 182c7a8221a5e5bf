"""Issue 15 item 11: the built-in file tools never touch forethought's own key, config or databases.

The default workspace is ``.``; run from ``$HOME`` it contains ``~/.config/forethought`` (the
approval key: whoever reads it can forge approvals) and ``~/.local/share/forethought`` (the run
databases). ``read_file``, ``list_dir`` and ``write_file`` refuse them however they are named.
(tests/conftest.py points XDG_CONFIG_HOME and XDG_DATA_HOME into a temporary home.)
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import platformdirs
import pytest

from forethought.errors import ToolError
from forethought.oversight.approvals import approval_key
from forethought.tools.builtin import builtin_tools

Call = Callable[..., Any]


@pytest.fixture
def home() -> Path:
    """The temporary home that holds the config and data dirs; used as the workspace."""
    config = Path(platformdirs.user_config_dir("forethought"))
    home = config.parent.parent
    assert Path(platformdirs.user_data_dir("forethought")).is_relative_to(home)
    approval_key()  # creates <home>/config/forethought/approval.key
    data = Path(platformdirs.user_data_dir("forethought"))
    data.mkdir(parents=True, exist_ok=True)
    (data / "runs.db").write_bytes(b"SQLite format 3\x00run history")
    (config / "config.toml").write_text('model = "local"\n')
    (home / "notes.txt").write_text("my notes")
    return home


def _tools(ws: Path, **kw: Any) -> dict[str, Call]:
    # PythonTool is callable as its function: the checks are the tool's own, not the executor's.
    return {t.spec.name: t for t in builtin_tools(ws, ["read_file", "list_dir", "write_file"], **kw)}  # type: ignore[misc]


def _refused(call: Call, **args: Any) -> str:
    with pytest.raises(ToolError) as exc:
        call(**args)
    message = str(exc.value)
    assert "forethought's own" in message and "\n" not in message, message
    return message


def test_key_config_and_databases_are_refused(home: Path) -> None:
    tools = _tools(home)
    key = Path(platformdirs.user_config_dir("forethought")) / "approval.key"
    key_text = key.read_text()
    rel_config = os.path.relpath(platformdirs.user_config_dir("forethought"), home)
    rel_data = os.path.relpath(platformdirs.user_data_dir("forethought"), home)
    for path in [
        f"{rel_config}/approval.key",
        str(key),
        f"./{rel_config}/../{rel_config}/approval.key",
        f"{rel_config}/config.toml",
        f"{rel_data}/runs.db",
    ]:
        message = _refused(tools["read_file"], path=path)
        assert key_text not in message
        _refused(tools["write_file"], path=path, content="forged")
    for path in [rel_config, rel_data, f"{rel_config}/"]:
        _refused(tools["list_dir"], path=path)
    _refused(tools["write_file"], path=f"{rel_config}/new.txt", content="x")
    assert key.read_text() == key_text and not (key.parent / "new.txt").exists()
    # Everything else in the workspace still works.
    assert tools["read_file"](path="notes.txt").content == "my notes"
    names = {e.name for e in tools["list_dir"](path=".").entries}
    assert "notes.txt" in names


def test_aliases_of_the_key_are_refused(home: Path) -> None:
    key = Path(platformdirs.user_config_dir("forethought")) / "approval.key"
    os.link(key, home / "innocent.txt")  # a hard link: same file, another name
    os.symlink(key, home / "link.txt")
    tools = _tools(home)
    for path in ["innocent.txt", "link.txt"]:
        with pytest.raises(ToolError):
            tools["read_file"](path=path)
    _refused(tools["read_file"], path="innocent.txt")
    _refused(tools["write_file"], path="innocent.txt", content="")
    assert len(key.read_text().strip()) == 64  # not truncated by the refused write


def test_key_file_and_database_overrides_are_refused(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    monkeypatch.setenv("FORETHOUGHT_APPROVAL_KEY_FILE", str(ws / "my.key"))
    monkeypatch.setenv("FORETHOUGHT_DB", str(ws / "state" / "runs.sqlite"))
    approval_key()
    (ws / "state").mkdir()
    for name in ("runs.sqlite", "runs.sqlite-wal"):
        (ws / "state" / name).write_bytes(b"SQLite format 3\x00")
    (ws / "other.db").write_bytes(b"x")
    tools = _tools(ws, protect=[ws / "other.db"])
    for path in ["my.key", "state/runs.sqlite", "state/runs.sqlite-wal", "other.db"]:
        _refused(tools["read_file"], path=path)
        _refused(tools["write_file"], path=path, content="x")


def test_a_workspace_inside_the_config_dir_is_refused(home: Path) -> None:
    tools = _tools(Path(platformdirs.user_config_dir("forethought")))
    _refused(tools["read_file"], path="approval.key")
    _refused(tools["list_dir"], path=".")


async def test_a_db_given_with_dash_dash_db_is_protected_in_the_workspace(tmp_path: Path) -> None:
    """The session passes the configured ``--db`` to the built-ins, so a run database kept in the
    workspace (not in the data dir) is refused as well; other files there stay readable."""
    from forethought.interfaces.session import builtins_for
    from forethought.tools.base import ToolContext

    db = tmp_path / "team-runs.db"
    db.write_bytes(b"SQLite format 3\x00run history")
    (tmp_path / "notes.txt").write_text("my notes")
    tools = {t.spec.name: t for t in builtins_for(str(tmp_path), ["read_file"], db=str(db))}
    ctx = ToolContext()
    assert (await tools["read_file"].invoke({"path": "notes.txt"}, ctx))["content"] == "my notes"
    with pytest.raises(ToolError, match="run databases"):
        await tools["read_file"].invoke({"path": "team-runs.db"}, ctx)
    unprotected = {t.spec.name: t for t in builtins_for(str(tmp_path), ["read_file"])}
    read = await unprotected["read_file"].invoke({"path": "team-runs.db"}, ctx)
    assert "run history" in read["content"]
