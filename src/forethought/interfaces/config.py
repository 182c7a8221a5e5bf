"""Configuration: defaults < user config < project `forethought.toml` < environment < flags.

Every effective value remembers where it came from, so `forethought config` can answer the
question users actually have ("why is it using that model?"). Unknown keys are errors naming the
file and the key — a typo in a config file must not be silently ignored.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs

from forethought.errors import UserError
from forethought.tools.builtin import DEFAULT_BUILTINS

PROJECT_FILE = "forethought.toml"

# key → (default, env var, type, description)
_SPEC: dict[str, tuple[Any, str, type, str]] = {
    "model": (
        None,
        "FORETHOUGHT_MODEL",
        str,
        "default model for every role (provider:model, `local`, or `local:/path.gguf`)",
    ),
    "planner_model": (None, "FORETHOUGHT_PLANNER_MODEL", str, "model that writes plans"),
    "executor_model": (None, "FORETHOUGHT_EXECUTOR_MODEL", str, "model that runs agent steps"),
    "critic_model": (None, "FORETHOUGHT_CRITIC_MODEL", str, "model that reviews step results"),
    "executors": (
        {},
        "FORETHOUGHT_EXECUTORS",
        dict,
        "executor pools for agent steps: name = model (env: name=model,name=model)",
    ),
    "backend": (
        "local",
        "FORETHOUGHT_BACKEND",
        str,
        "where steps run: local (this process) or ray[:ADDRESS] (a Ray cluster; forethought[ray])",
    ),
    "db": (
        None,
        "FORETHOUGHT_DB",
        str,
        "run database: a file or a postgresql:// URL (default: in the user data directory)",
    ),
    "tools": ([], "FORETHOUGHT_TOOLS", list, "tool files (.py / .yaml), os.pathsep-separated in env"),
    "builtins": (
        list(DEFAULT_BUILTINS),
        "FORETHOUGHT_BUILTINS",
        list,
        "built-in tools to enable (comma-separated in env; `none` for none)",
    ),
    "workspace": (".", "FORETHOUGHT_WORKSPACE", str, "root the built-in file tools are confined to"),
    "max_concurrency": (8, "FORETHOUGHT_MAX_CONCURRENCY", int, "steps running at once"),
    "planning": (
        "dag",
        "FORETHOUGHT_PLANNING",
        str,
        "dag (whole plan first) | stepwise (one next step at a time, results in view) | auto",
    ),
    "max_replans": (3, "FORETHOUGHT_MAX_REPLANS", int, "plan revisions per run"),
    "max_steps": (None, "FORETHOUGHT_MAX_STEPS", int, "step attempts per run"),
    "max_tokens": (None, "FORETHOUGHT_MAX_TOKENS", int, "model tokens per run"),
    "max_cost_usd": (None, "FORETHOUGHT_MAX_COST_USD", float, "model cost per run (USD)"),
    "max_wall_s": (None, "FORETHOUGHT_MAX_WALL_S", float, "active wall time per run (seconds)"),
    "on_breach": ("pause", "FORETHOUGHT_ON_BREACH", str, "pause | abort when a budget is exceeded"),
    "reconfirm_destructive": (
        False,
        "FORETHOUGHT_RECONFIRM_DESTRUCTIVE",
        bool,
        "destructive steps need a confirmation at execution time too",
    ),
    "confidence_threshold": (
        0.0,
        "FORETHOUGHT_CONFIDENCE_THRESHOLD",
        float,
        "below this planner confidence, side effects always ask a human",
    ),
    "openai_base_url": (None, "OPENAI_BASE_URL", str, "OpenAI-compatible server base URL"),
    "ollama_host": (None, "OLLAMA_HOST", str, "Ollama server (host:port or URL)"),
}

_SECRET_WORDS = ("key", "token", "secret", "password")


@dataclass(frozen=True)
class Setting:
    value: Any
    source: str


@dataclass
class Config:
    settings: dict[str, Setting] = field(default_factory=dict)

    def get(self, key: str) -> Any:
        return self.settings[key].value

    def __getattr__(self, key: str) -> Any:
        try:
            return self.settings[key].value
        except KeyError:
            raise AttributeError(key) from None

    def describe(self) -> list[tuple[str, str, str]]:
        """(key, shown value, source) with secrets masked."""
        rows = []
        for key in sorted(self.settings):
            s = self.settings[key]
            shown = "(unset)" if s.value is None else str(s.value)
            if s.value is not None and any(w in key.lower() for w in _SECRET_WORDS):
                shown = "****"
            rows.append((key, shown, s.source))
        return rows


def _coerce(key: str, raw: Any, kind: type, source: str) -> Any:
    if raw is None:
        return None
    try:
        if kind is dict:
            if isinstance(raw, str):
                pairs = [p.split("=", 1) for p in raw.split(",") if p.strip()]
                if any(len(p) != 2 for p in pairs):
                    raise ValueError("expected name=model pairs separated by commas")
                raw = {k.strip(): v.strip() for k, v in pairs}
            if isinstance(raw, dict) and all(
                isinstance(k, str) and isinstance(v, str) for k, v in raw.items()
            ):
                return dict(raw)
            raise ValueError("expected a table of pool name = model name")
        if kind is list:
            if isinstance(raw, str):
                sep = os.pathsep if key == "tools" else ","
                items = [x.strip() for x in raw.split(sep) if x.strip()]
                return [] if items == ["none"] else items
            if isinstance(raw, list) and all(isinstance(x, str) for x in raw):
                return list(raw)
            raise ValueError("expected a list of strings")
        if kind is bool:
            if isinstance(raw, bool):
                return raw
            if isinstance(raw, str) and raw.lower() in ("1", "true", "yes", "on", "0", "false", "no", "off"):
                return raw.lower() in ("1", "true", "yes", "on")
            raise ValueError("expected true or false")
        if kind is int and not isinstance(raw, bool):
            return int(raw)
        if kind is float and not isinstance(raw, bool):
            return float(raw)
        if kind is str and isinstance(raw, str):
            return raw
    except ValueError as exc:
        raise UserError(f"{source}: {key}: {exc}") from None
    raise UserError(f"{source}: {key}: expected {kind.__name__}, got {type(raw).__name__} {raw!r}")


def user_config_path() -> Path:
    return Path(platformdirs.user_config_dir("forethought")) / "config.toml"


def find_project_file(start: Path | None = None) -> Path | None:
    here = (start or Path.cwd()).resolve()
    for d in (here, *here.parents):
        candidate = d / PROJECT_FILE
        if candidate.is_file():
            return candidate
    return None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: invalid TOML: {exc}") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None
    section = data.get("forethought", data)
    if not isinstance(section, dict):
        raise UserError(f"{path}: [forethought] must be a table")
    unknown = sorted(set(section) - set(_SPEC))
    if unknown:
        raise UserError(f"{path}: unknown setting {unknown[0]!r}; known settings: {', '.join(sorted(_SPEC))}")
    return section


def load_config(
    flags: Mapping[str, Any] | None = None, *, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> Config:
    """Effective configuration; ``flags`` with value None are treated as not given."""
    env = os.environ if env is None else env
    layers: list[tuple[str, Mapping[str, Any], Path | None]] = []
    user = user_config_path()
    if user.is_file():
        layers.append((str(user), _read_toml(user), user.parent))
    project = find_project_file(cwd)
    if project is not None:
        layers.append((str(project), _read_toml(project), project.parent))
    cfg = Config()
    for key, (default, env_name, kind, _) in _SPEC.items():
        setting = Setting(default, "default")
        for source, values, base in layers:
            if key in values:
                value = _coerce(key, values[key], kind, source)
                setting = Setting(_relative(key, value, base), source)
        if env_name in env and env[env_name] != "":
            setting = Setting(_coerce(key, env[env_name], kind, f"${env_name}"), f"${env_name}")
        if flags and flags.get(key) not in (None, (), []):
            setting = Setting(
                _coerce(key, flags[key], kind, "--" + key.replace("_", "-")), "--" + key.replace("_", "-")
            )
        cfg.settings[key] = setting
    if cfg.get("on_breach") not in ("pause", "abort"):
        raise UserError(f"{cfg.settings['on_breach'].source}: on_breach must be `pause` or `abort`")
    from forethought.execution.backends import parse_backend

    try:
        parse_backend(str(cfg.get("backend")))
    except ValueError as exc:
        raise UserError(f"{cfg.settings['backend'].source}: {exc}") from None
    return cfg


def _relative(key: str, value: Any, base: Path | None) -> Any:
    # Paths in a config file are relative to that file, not to wherever the command runs.
    if base is None or value is None:
        return value
    if key == "db" and "://" in str(value):
        return value  # a database server's URL, not a path
    if key in ("db", "workspace"):
        return str((base / value).resolve())
    if key == "tools":
        return [str((base / v).resolve()) for v in value]
    return value


def settings_help() -> list[tuple[str, str, str]]:
    return [(k, env, desc) for k, (_, env, _, desc) in sorted(_SPEC.items())]
