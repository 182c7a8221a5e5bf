"""Issue 15 item 3: the approval (HMAC) key is created atomically and refused when weak.

A 0-byte ``approval.key`` (left by a disk-full failure) used to become the signing key, so anyone
could forge approvals. Now a key that is empty, short or open to group/others is refused with one
line saying how to fix it, and creating a key never leaves a partial file behind.
"""

from __future__ import annotations

import errno
import os
import stat
import types
from pathlib import Path
from typing import Any

import pytest

from forethought.errors import UserError
from forethought.oversight import approvals
from forethought.oversight.approvals import Approval, approval_key
from forethought.plan.model import Plan
from forethought.tools.base import ToolSpec


@pytest.fixture
def key_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cfg" / "approval.key"
    monkeypatch.setenv("FORETHOUGHT_APPROVAL_KEY_FILE", str(path))
    return path


def _write_key(path: Path, text: str, mode: int = 0o600) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="ascii")
    path.chmod(mode)


def _one_line(exc: pytest.ExceptionInfo[UserError]) -> str:
    message = str(exc.value)
    assert "\n" not in message
    return message


def test_empty_key_is_refused(key_file: Path) -> None:
    _write_key(key_file, "")
    with pytest.raises(UserError) as exc:
        approval_key()
    message = _one_line(exc)
    assert str(key_file) in message and "empty (0 bytes)" in message and "delete it" in message
    # Signing an approval with it is refused too: no approval can be made (or forged) with it.
    plan = Plan.model_validate({"goal": "g", "steps": [{"id": "w", "tool": "write"}]})
    with pytest.raises(UserError, match="empty"):
        Approval.grant(plan, {"write": ToolSpec(name="write", effect="mutating")})


def test_short_key_is_refused(key_file: Path) -> None:
    _write_key(key_file, os.urandom(16).hex())
    with pytest.raises(UserError) as exc:
        approval_key()
    message = _one_line(exc)
    assert "too short (16 bytes" in message and "32" in message and "delete it" in message


def test_whitespace_only_key_is_refused(key_file: Path) -> None:
    _write_key(key_file, "\n\n")
    with pytest.raises(UserError, match="empty"):
        approval_key()


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o620, 0o660])
def test_key_open_to_group_or_others_is_refused(key_file: Path, mode: int) -> None:
    _write_key(key_file, os.urandom(32).hex(), mode)
    with pytest.raises(UserError) as exc:
        approval_key()
    message = _one_line(exc)
    assert f"chmod 600 {key_file}" in message and oct(mode)[2:] in message


def test_a_good_key_is_used(key_file: Path) -> None:
    key = os.urandom(32)
    _write_key(key_file, key.hex() + "\n")
    assert approval_key() == key


def test_a_new_key_is_private_and_stable(key_file: Path) -> None:
    key = approval_key()
    assert len(key) >= 32
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(key_file.parent.stat().st_mode) == 0o700
    assert approval_key() == key
    assert [p.name for p in key_file.parent.iterdir()] == ["approval.key"]


class _FailingOs(types.SimpleNamespace):
    """The ``os`` module as the approvals module sees it, with one function failing (disk full)."""

    def __init__(self, failing: str) -> None:
        super().__init__()
        self._failing = failing

    def __getattr__(self, name: str) -> Any:
        if name == self._failing:

            def fail(*args: Any, **kwargs: Any) -> Any:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

            return fail
        return getattr(os, name)


@pytest.mark.parametrize("failing", ["write", "fsync", "link", "rename", "replace", "fdopen"])
def test_failed_creation_leaves_no_partial_key(
    key_file: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    monkeypatch.setattr(approvals, "os", _FailingOs(failing))
    try:
        approval_key()
    except UserError as exc:
        assert "\n" not in str(exc) and str(key_file) in str(exc)
    # Whatever step failed, the key is either complete and usable, or absent — never partial.
    leftovers = sorted(p.name for p in key_file.parent.iterdir()) if key_file.parent.exists() else []
    assert leftovers in ([], ["approval.key"]), leftovers
    if leftovers:
        assert len(bytes.fromhex(key_file.read_text())) >= 32
    monkeypatch.undo()
    monkeypatch.setenv("FORETHOUGHT_APPROVAL_KEY_FILE", str(key_file))
    assert len(approval_key()) >= 32
