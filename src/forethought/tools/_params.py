"""Typed parameters of YAML command tools: declaration, JSON Schema, and call-time validation.

Validation here is the security boundary for values that end up in a child process: we reject what
cannot be passed faithfully (NUL bytes, unencodable text, values longer than the kernel's per-arg
limit) and confine ``kind: path`` values to an allowed root *after* resolving symlinks, so a value
either reaches the process exactly as given or the step fails with a message saying why.

A value that would reach the program starting with ``-`` (``--output=/tmp/x``, ``-1``) is refused
too: it is one argv element, but the program may read it as an *option*, and options can write
files or signal processes even under a read-only approval. Parameters that are meant to carry
options say so with ``allow_options: true``; ``enum`` values and the declared ``default`` come from
the tool's author and pass; ``kind: path`` values are absolute after confinement and cannot start
with ``-``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from forethought.errors import ToolError

ParamType = Literal["string", "integer", "number", "boolean", "array", "object"]
PARAM_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]{0,63}$"

# Linux refuses a single argv/env string over 128 KiB (MAX_ARG_STRLEN); stay well below it.
DEFAULT_MAX_LENGTH = 32 * 1024


class ParamSpec(BaseModel):
    """One declared parameter. Names are shell-safe so they can become ``FT_ARG_<name>``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=PARAM_NAME_PATTERN)
    type: ParamType = "string"
    description: str = ""
    required: bool = False
    default: Any = None
    enum: list[Any] | None = None
    pattern: str | None = None
    kind: Literal["path"] | None = None
    must_exist: bool = Field(default=False, description="For `kind: path`: the path must exist.")
    max_length: int = Field(default=DEFAULT_MAX_LENGTH, ge=1, le=100_000)
    minimum: float | None = None
    maximum: float | None = None
    allow_options: bool = Field(
        default=False, description="Accept values starting with '-', which the program may read as options."
    )

    @model_validator(mode="before")
    @classmethod
    def _path_type_shorthand(cls, data: Any) -> Any:
        # `type: path` reads naturally in a tools file; it means a string confined to the root.
        if isinstance(data, dict) and data.get("type") == "path":
            return {**data, "type": "string", "kind": "path"}
        return data

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"pattern {value!r} is not a valid regular expression: {exc}") from None
        return value

    @model_validator(mode="after")
    def _consistent(self) -> ParamSpec:
        if self.kind == "path" and self.type != "string":
            raise ValueError(f"parameter {self.name!r}: `kind: path` needs `type: string`")
        if self.default is not None:
            problem = _type_problem(self.type, self.default)
            if problem:
                raise ValueError(f"parameter {self.name!r}: default {problem}")
        return self

    def json_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": self.type}
        if self.description:
            schema["description"] = self.description
        if self.enum is not None:
            schema["enum"] = list(self.enum)
        if self.pattern is not None:
            schema["pattern"] = self.pattern
        if self.default is not None:
            schema["default"] = self.default
        if self.type == "string":
            schema["maxLength"] = self.max_length
        if self.minimum is not None:
            schema["minimum"] = self.minimum
        if self.maximum is not None:
            schema["maximum"] = self.maximum
        if self.kind == "path":
            schema["format"] = "path"
        return schema


def input_schema(params: list[ParamSpec]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {p.name: p.json_schema() for p in params},
        "required": [p.name for p in params if p.required],
        "additionalProperties": False,
    }


def _type_problem(ptype: ParamType, value: Any) -> str | None:
    ok = {
        "string": isinstance(value, str),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
        "boolean": isinstance(value, bool),
        "array": isinstance(value, list),
        "object": isinstance(value, dict),
    }[ptype]
    return None if ok else f"must be of type {ptype}, got {type(value).__name__}"


def _check_text(name: str, text: str, limit: int) -> None:
    if "\x00" in text:
        raise ToolError(
            f"argument {name!r} contains a NUL byte, which cannot be passed to a process", retryable=False
        )
    if len(text) > limit:
        raise ToolError(f"argument {name!r} is too long ({len(text)} > {limit} characters)", retryable=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ToolError(
            f"argument {name!r} is not valid UTF-8 text (lone surrogate)", retryable=False
        ) from None


def confine(root: Path, value: str, *, name: str, must_exist: bool = False) -> Path:
    """Resolve ``value`` (relative to ``root``) with symlinks followed; it must stay inside ``root``."""
    real_root = root.resolve()
    candidate = Path(value)
    if not candidate.is_absolute():
        candidate = real_root / candidate
    try:
        resolved = candidate.resolve(strict=must_exist)
    except (OSError, RuntimeError) as exc:  # missing (strict) or a symlink loop
        raise ToolError(
            f"argument {name!r}: path {value!r} cannot be resolved: {type(exc).__name__}", retryable=False
        ) from None
    if resolved != real_root and not resolved.is_relative_to(real_root):
        raise ToolError(
            f"argument {name!r}: path {value!r} is outside the allowed root {real_root}", retryable=False
        )
    return resolved


def validate_args(params: list[ParamSpec], args: Mapping[str, Any], root: Path) -> dict[str, Any]:
    """Check ``args`` against ``params``; return name → value with defaults filled, paths resolved."""
    known = {p.name for p in params}
    unknown = sorted(set(args) - known)
    if unknown:
        expected = ", ".join(sorted(known)) or "none"
        raise ToolError(f"unknown argument(s) {', '.join(unknown)}; expected: {expected}", retryable=False)
    out: dict[str, Any] = {}
    for p in params:
        given = args.get(p.name)
        value = p.default if given is None else given
        if value is None:
            if p.required:
                raise ToolError(f"missing required argument {p.name!r}", retryable=False)
            continue
        problem = _type_problem(p.type, value)
        if problem:
            raise ToolError(f"argument {p.name!r} {problem}", retryable=False)
        if p.enum is not None and value not in p.enum:
            raise ToolError(f"argument {p.name!r} must be one of {p.enum}, got {value!r}", retryable=False)
        if isinstance(value, str):
            _check_text(p.name, value, p.max_length)
            if p.pattern is not None and re.fullmatch(p.pattern, value) is None:
                raise ToolError(f"argument {p.name!r} does not match pattern {p.pattern!r}", retryable=False)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if p.minimum is not None and value < p.minimum:
                raise ToolError(f"argument {p.name!r} must be >= {p.minimum}", retryable=False)
            if p.maximum is not None and value > p.maximum:
                raise ToolError(f"argument {p.name!r} must be <= {p.maximum}", retryable=False)
        if p.kind == "path":
            value = str(confine(root, value, name=p.name, must_exist=p.must_exist))
        elif given is not None and not p.allow_options and not (p.enum is not None and value in p.enum):
            _check_not_option(p.name, value)
        out[p.name] = value
    return out


def _check_not_option(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return  # booleans become true/false; arrays and objects one JSON document ([…], {…})
    if str(value).startswith("-"):
        shown = str(value) if len(str(value)) <= 40 else str(value)[:37] + "..."
        raise ToolError(
            f"argument {name!r} is {shown!r}, which starts with '-' and could be taken as "
            "an option by the program; pass a value that does not start with '-', or "
            f"declare the parameter with `allow_options: true` if {name!r} is meant to "
            "carry options",
            retryable=False,
        )


def as_text(value: Any, name: str = "argument", limit: int = DEFAULT_MAX_LENGTH) -> str:
    """How a typed value is spelled as one argv element or environment value."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, (int, float, str)):
        text = str(value)
    else:  # arrays and objects travel as one JSON document: still exactly one argument
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    _check_text(name, text, max(limit, DEFAULT_MAX_LENGTH))
    return text


def env_name(param: str) -> str:
    return f"FT_ARG_{param}"


def is_path_inside(path: str | os.PathLike[str], root: Path) -> bool:
    resolved = Path(path).resolve()
    real_root = root.resolve()
    return resolved == real_root or resolved.is_relative_to(real_root)
