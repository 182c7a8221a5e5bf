from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from forethought.errors import UserError
from forethought.interfaces.config import load_config, user_config_path


def test_precedence_and_sources(tmp_path: Path) -> None:
    user = user_config_path()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('model = "openai:gpt-4o-mini"\nmax_replans = 5\nmax_concurrency = 2\n')
    project = tmp_path / "proj"
    (project / "sub").mkdir(parents=True)
    (project / "forethought.toml").write_text(
        '[forethought]\nmax_replans = 1\ndb = "runs.db"\ntools = ["tools.py"]\n'
    )
    cfg = load_config(
        {"max_concurrency": 16},
        cwd=project / "sub",
        env={"FORETHOUGHT_MODEL": "local", "OPENAI_API_KEY": "sk-x"},
    )
    assert (cfg.model, cfg.settings["model"].source) == ("local", "$FORETHOUGHT_MODEL")
    assert (cfg.max_replans, cfg.settings["max_replans"].source) == (1, str(project / "forethought.toml"))
    assert cfg.db == str((project / "runs.db").resolve())
    assert cfg.tools == [str((project / "tools.py").resolve())]
    assert (cfg.max_concurrency, cfg.settings["max_concurrency"].source) == (16, "--max-concurrency")
    assert cfg.settings["max_tokens"].source == "default"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("modle = 'x'", "unknown setting 'modle'"),
        ("max_replans = 'many'", "max_replans: invalid literal"),
        ("model = [", "invalid TOML"),
        ("on_breach = 'explode'", "on_breach must be `pause` or `abort`"),
    ],
)
def test_bad_project_files_are_one_line_errors(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "forethought.toml").write_text(text + "\n")
    with pytest.raises(UserError, match=message) as info:
        load_config(cwd=tmp_path, env={})
    assert str(tmp_path / "forethought.toml") in str(info.value) or "on_breach" in message


def test_config_command_masks_secrets(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "forethought", "config"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={
            "PATH": "/usr/bin:/bin",
            "FORETHOUGHT_MAX_STEPS": "12",
            "HOME": str(tmp_path),
            "XDG_CONFIG_HOME": str(tmp_path / "c"),
        },
    )
    assert result.returncode == 0, result.stderr
    assert "max_steps" in result.stdout and "12  [$FORETHOUGHT_MAX_STEPS]" in result.stdout


def test_executor_pools_from_file_and_env(tmp_path: Path) -> None:
    (tmp_path / "forethought.toml").write_text(
        '[forethought]\nexecutors = {cheap = "ollama:qwen2.5:0.5b", code = "openai:gpt-4o"}\n'
    )
    cfg = load_config(cwd=tmp_path, env={})
    assert cfg.executors == {"cheap": "ollama:qwen2.5:0.5b", "code": "openai:gpt-4o"}
    env = load_config(cwd=tmp_path, env={"FORETHOUGHT_EXECUTORS": "fast=local"})
    assert env.executors == {"fast": "local"}
    with pytest.raises(UserError, match="name=model pairs"):
        load_config(cwd=tmp_path, env={"FORETHOUGHT_EXECUTORS": "oops"})
