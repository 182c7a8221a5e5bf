"""Command tools: a YAML-declared program (``command:`` argv) or shell script (``script:``).

The design rule is that a parameter *value* never becomes program text:

- ``command: [grep, -e, "{{pattern}}", --, "{{file}}"]`` is executed without a shell; every
  ``{{param}}`` must be an entire argv element and becomes exactly one argv element.
- ``script: ...`` runs as ``/bin/sh -c SCRIPT`` with values passed only as environment variables
  (``FT_ARG_<name>``) and positional parameters (``$1``…, in declaration order). Seed-style
  ``{{param}}`` placeholders in the script are rewritten at load time into quoted references to those
  variables (see ``_shell``).

Command tools default to ``effect: mutating`` because a program can do anything; declare
``effect: read_only`` only for commands you know to be side-effect free (it lets them run before
approval). The child's environment is an allow-list (``env:``) plus ``PATH``/``HOME``/locale basics
and ``FORETHOUGHT_RUN_ID``/``STEP_ID``/``ATTEMPT``/``IDEMPOTENCY_KEY`` so an idempotent tool can
recognise a re-run. The output is ``{"exit_code", "stdout", "stderr", "truncated"}`` (``stdout`` parsed as
JSON when ``output: json``); a non-success exit code fails the step with the tail of stderr.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from forethought.errors import ToolError
from forethought.plan.model import Effect
from forethought.plan.tool_spec import digest_of
from forethought.tools._params import ParamSpec, as_text, confine, env_name, input_schema, validate_args
from forethought.tools._proc import DEFAULT_MAX_OUTPUT, KILL_GRACE_S, run_process
from forethought.tools._shell import PLACEHOLDER, ScriptError, rewrite_placeholders
from forethought.tools.base import ToolContext, ToolSpec

DEFAULT_TIMEOUT_S = 300.0
STDERR_TAIL_CHARS = 2000
STDERR_TAIL_LINES = 20
# What every child gets from the parent environment; anything else must be allow-listed in `env:`.
BASIC_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SCRIPT_NAME = "forethought-tool"  # $0 of script tools


class CommandToolConfig(BaseModel):
    """One entry of a tools file's ``tools:`` list (seed ``gantz.yaml`` entries included)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_.-]{0,127}$")
    description: str = ""
    parameters: list[ParamSpec] = Field(default_factory=list)
    command: list[str] | None = None
    script: str | None = None
    effect: Effect = "mutating"
    idempotent: bool = False
    timeout_s: float = Field(default=DEFAULT_TIMEOUT_S, gt=0, le=7 * 86400)
    kill_grace_s: float = Field(default=KILL_GRACE_S, ge=0, le=60)
    cwd: str | None = None
    root: str | None = None
    env: list[str] | dict[str, str] = Field(default_factory=list)
    stdin: str | None = Field(default=None, description="Name of a `kind: path` parameter fed to stdin.")
    output: Literal["text", "json"] = "text"
    max_output_bytes: int = Field(default=DEFAULT_MAX_OUTPUT, ge=1, le=256 * 1024 * 1024)
    success_codes: list[int] = Field(default_factory=lambda: [0])
    est_latency_s: float | None = Field(default=None, ge=0)

    @field_validator("parameters", mode="before")
    @classmethod
    def _params_mapping(cls, value: Any) -> Any:
        # Accept both the seed's list form and a mapping `{name: {type: ...}}`.
        if isinstance(value, dict):
            return [{"name": k, **(v if isinstance(v, dict) else {"type": v})} for k, v in value.items()]
        return value

    @field_validator("command", mode="before")
    @classmethod
    def _argv_scalars(cls, value: Any) -> Any:
        # YAML reads `[head, -n, 5]` and `[true]` as numbers/booleans; argv elements are text.
        if isinstance(value, list):
            return [
                ("true" if v else "false")
                if isinstance(v, bool)
                else str(v)
                if isinstance(v, (int, float))
                else v
                for v in value
            ]
        return value

    @field_validator("script", mode="before")
    @classmethod
    def _seed_script(cls, value: Any) -> Any:
        # The seed writes `script: {shell: "..."}`; a bare string means the same.
        if isinstance(value, dict):
            if set(value) != {"shell"}:
                raise ValueError("`script` must be a string or a mapping with exactly one key `shell`")
            return value["shell"]
        return value

    @field_validator("env")
    @classmethod
    def _env_names(cls, value: list[str] | dict[str, str]) -> list[str] | dict[str, str]:
        for name in value:
            if not _ENV_NAME.match(name):
                raise ValueError(f"env name {name!r} is not a valid environment variable name")
            if name.startswith("FT_ARG_"):
                raise ValueError(f"env name {name!r}: the FT_ARG_ prefix is reserved for parameters")
        return value

    @model_validator(mode="after")
    def _shape(self) -> CommandToolConfig:
        if (self.command is None) == (self.script is None):
            raise ValueError("give exactly one of `command` (an argv list) or `script` (a shell script)")
        if self.command is not None and not self.command:
            raise ValueError("`command` must not be empty")
        names = [p.name for p in self.parameters]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"parameter(s) declared twice: {', '.join(dupes)}")
        by_name = {p.name: p for p in self.parameters}
        if self.stdin is not None:
            p = by_name.get(self.stdin)
            if p is None or p.kind != "path":
                raise ValueError(f"`stdin: {self.stdin}` must name a parameter declared with `kind: path`")
        if self.command is not None:
            for index, element in enumerate(self.command):
                _check_argv_element(index, element, by_name)
        return self


def _check_argv_element(index: int, element: str, params: dict[str, ParamSpec]) -> None:
    m = PLACEHOLDER.fullmatch(element)
    if m:
        p = params.get(m.group(1))
        if p is None:
            raise ValueError(
                f"command[{index}] {element!r} names no declared parameter "
                f"(declared: {', '.join(sorted(params)) or 'none'})"
            )
        if not p.required and p.default is None:
            raise ValueError(
                f"command[{index}] uses optional parameter {p.name!r} with no default; "
                "make it required or give it a default (an argv element cannot vanish)"
            )
        return
    if "{{" in element or "}}" in element:
        raise ValueError(
            f"command[{index}] {element!r}: a {{{{param}}}} must be a whole argv element "
            "(split `--opt={{x}}` into `--opt` and `{{x}}`)"
        )
    if "\x00" in element:
        raise ValueError(f"command[{index}] contains a NUL byte")


class CommandTool:
    """A ``Tool`` running a declared command; see the module docstring for the safety rules."""

    def __init__(self, config: CommandToolConfig, *, base_dir: Path, source: str) -> None:
        self.config = config
        self.base_dir = base_dir
        self.root = (base_dir / config.root).resolve() if config.root else base_dir.resolve()
        self.cwd = (base_dir / config.cwd).resolve() if config.cwd else self.root
        self.script: str | None = None
        self.script_params: list[str] = []
        if config.script is not None:
            try:
                self.script, self.script_params = rewrite_placeholders(
                    config.script, {p.name for p in config.parameters}
                )
            except ScriptError as exc:
                raise ValueError(f"script line {exc.line}: {exc}") from None
        self._spec = ToolSpec(
            name=config.name,
            description=config.description,
            input_schema=input_schema(config.parameters),
            output_schema=_output_schema(config.output),
            effect=config.effect,
            idempotent=config.idempotent,
            timeout_s=config.timeout_s,
            source=source,
            est_latency_s=config.est_latency_s,
            implementation_digest=self.implementation_digest(),
        )

    def implementation_digest(self) -> str:
        """Hash of everything in the config that decides what a call runs (pinned by approvals).

        That is the whole config except the description and the latency estimate: command or
        script, parameter declarations (types, kinds, defaults, ``allow_options``...), env, stdin,
        output handling, limits and exit codes, plus the *resolved* root and working directory
        (the same file moved elsewhere runs somewhere else). The values of allow-listed environment
        variables come from the caller's environment at call time and are not part of it.
        """
        return digest_of(
            {
                "kind": "command",
                "config": self.config.model_dump(mode="json", exclude={"description", "est_latency_s"}),
                "script": self.script,  # the script as it will run (placeholders rewritten)
                "root": str(self.root),
                "cwd": str(self.cwd),
            }
        )

    @property
    def spec(self) -> ToolSpec:
        return self._spec

    def __repr__(self) -> str:
        return f"<command tool {self._spec.name} ({self._spec.effect})>"

    def build_argv(self, values: dict[str, Any]) -> list[str]:
        """The exact argv for validated ``values`` (public so tests and dry-runs can inspect it)."""
        if self.config.command is not None:
            argv = []
            for element in self.config.command:
                m = PLACEHOLDER.fullmatch(element)
                argv.append(as_text(values[m.group(1)], m.group(1)) if m else element)
            return argv
        assert self.script is not None
        positional = [
            as_text(values[p.name], p.name) if p.name in values else "" for p in self.config.parameters
        ]
        return ["/bin/sh", "-c", self.script, _SCRIPT_NAME, *positional]

    def build_env(self, values: dict[str, Any], ctx: ToolContext | None = None) -> dict[str, str]:
        env = {k: os.environ[k] for k in BASIC_ENV if k in os.environ}
        env.setdefault("PATH", os.defpath)
        if isinstance(self.config.env, dict):
            env.update(self.config.env)
        else:
            env.update({k: os.environ[k] for k in self.config.env if k in os.environ})
        if self.config.script is not None:
            env.update({env_name(k): as_text(v, k) for k, v in values.items()})
        if ctx is not None:
            # Lets an idempotent tool recognise a re-run of the same step after a crash.
            env.update(
                {
                    "FORETHOUGHT_RUN_ID": ctx.run_id,
                    "FORETHOUGHT_STEP_ID": ctx.step_id,
                    "FORETHOUGHT_ATTEMPT": str(ctx.attempt),
                    "FORETHOUGHT_IDEMPOTENCY_KEY": ctx.idempotency_key,
                }
            )
        return env

    async def invoke(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        values = validate_args(self.config.parameters, args, self.root)
        argv = self.build_argv(values)
        env = self.build_env(values, ctx)
        stdin_path = None
        if self.config.stdin is not None and self.config.stdin in values:
            stdin_path = confine(
                self.root, values[self.config.stdin], name=self.config.stdin, must_exist=True
            )
        if not self.cwd.is_dir():
            raise ToolError(
                f"tool {self.config.name!r}: working directory {self.cwd} does not exist", retryable=False
            )
        result = await run_process(
            argv,
            env=env,
            cwd=self.cwd,
            stdin_path=stdin_path,
            timeout_s=self.config.timeout_s,
            max_output=self.config.max_output_bytes,
            grace_s=self.config.kill_grace_s,
            label=f"tool {self.config.name!r}",
            on_spawn=ctx.extra.get("on_process"),
        )
        stdout = result.stdout.decode("utf-8", errors="replace")
        stderr = result.stderr.decode("utf-8", errors="replace")
        if result.exit_code not in self.config.success_codes:
            tail = _tail(stderr) or _tail(stdout)
            how = (
                f"killed by signal {-result.exit_code}"
                if result.exit_code < 0
                else f"exited with code {result.exit_code}"
            )
            raise ToolError(f"tool {self.config.name!r} {how}" + (f": {tail}" if tail else ""))
        out: dict[str, Any] = {
            "exit_code": result.exit_code,
            "stdout": stdout,
            "stderr": stderr,
            "truncated": result.stdout_truncated or result.stderr_truncated,
        }
        if self.config.output == "json":
            if result.stdout_truncated:
                raise ToolError(
                    f"tool {self.config.name!r}: JSON output exceeded "
                    f"max_output_bytes={self.config.max_output_bytes}",
                    retryable=False,
                )
            try:
                out["stdout"] = json.loads(stdout)
            except json.JSONDecodeError as exc:
                raise ToolError(
                    f"tool {self.config.name!r} declares `output: json` but stdout is not "
                    f"JSON ({exc.msg} at line {exc.lineno})",
                    retryable=False,
                ) from None
        return out


def _tail(text: str) -> str:
    """The last lines of an output stream: where programs put the error that made them fail."""
    return "\n".join(text.strip().splitlines()[-STDERR_TAIL_LINES:])[-STDERR_TAIL_CHARS:]


def _output_schema(output: str) -> dict[str, Any]:
    stdout: dict[str, Any] = {"type": "string"} if output == "text" else {}
    return {
        "type": "object",
        "properties": {
            "exit_code": {"type": "integer"},
            "stdout": stdout,
            "stderr": {"type": "string"},
            "truncated": {"type": "boolean"},
        },
        "required": ["exit_code", "stdout", "stderr", "truncated"],
    }
