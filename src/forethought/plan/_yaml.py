"""Reading YAML the one way forethought reads it: plans, tool files and config alike.

YAML 1.2 core-schema semantics (``yes``/``no`` stay strings, ``012`` is 12, duplicate keys are
errors) through a compiled parser that builds plain data only. Tags are refused outright — a
``!!python/object`` can never become an object — and the result is JSON-compatible (dates become
ISO strings, non-finite numbers are refused), so everything read has a canonical JSON form.
PyYAML only locates tags (yaml-rs refuses ``!!python/...`` without a position and accepts other
tags) — no single YAML 1.2 parser measured within 20 % of this one; see docs/architecture.md.
"""

from __future__ import annotations

import datetime
import json
import math
import re
from typing import Any

import yaml
import yaml_rs

from forethought.errors import UserError

# PyYAML only scans for tags and maps problems to lines; it never constructs objects here.
SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(text: str, source: str, *, error: type[UserError] = UserError) -> Any:
    """Parse ``text`` (from ``source``, for messages); failures raise ``error`` with one line."""
    _refuse_tags(text, source, error)
    try:
        data = yaml_rs.loads(text)
    except yaml_rs.YAMLDecodeError as exc:
        raise error(
            f"{source}{_yaml_rs_location(str(exc))}: invalid YAML: {_yaml_rs_reason(str(exc))}"
        ) from None
    except RecursionError:
        raise error(f"{source}: YAML nested too deeply") from None
    return _json_compatible(data, source, (), error)


# A tag can only start a token: at line start or after whitespace or a flow indicator.
_TAG_CANDIDATE = re.compile(r"(?:^|[\s,\[{])!", re.MULTILINE)


def _refuse_tags(text: str, source: str, error: type[UserError]) -> None:
    if not _TAG_CANDIDATE.search(text):
        return
    # Rare: a `!` that might be a tag. Let PyYAML's scanner say for sure (it builds no objects).
    try:
        for token in yaml.scan(text, Loader=SafeLoader):
            if isinstance(token, yaml.TagToken):
                handle, suffix = token.value
                mark = token.start_mark
                raise error(
                    f"{source}:{mark.line + 1}:{mark.column + 1}: invalid YAML: tag "
                    f"{(handle or '') + suffix!r} is not allowed in plan files (tags such as "
                    "!!python/... could construct objects); write plain values"
                )
    except yaml.YAMLError:
        return  # a syntax error: the parser below reports it with its position


_LOC_RE = re.compile(r"line (\d+), column (\d+)")


def _yaml_rs_location(message: str) -> str:
    m = _LOC_RE.search(message)
    return f":{m.group(1)}:{m.group(2)}" if m else ""


def _yaml_rs_reason(message: str) -> str:
    lines = [ln.strip() for ln in message.splitlines() if ln.strip()]
    reason = lines[-1] if lines else "syntax error"
    if len(lines) == 1:
        reason = _LOC_RE.sub("", reason).replace("YAML parse error at", "").strip(" ,:") or reason
    return " ".join(reason.split())[:300]


def _json_compatible(value: Any, source: str, path: tuple[Any, ...], error: type[UserError]) -> Any:
    """Dates become ISO strings; non-finite floats and non-string keys are refused."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                if isinstance(k, (int, float, bool)) or k is None:
                    k = json.dumps(k)
                else:
                    raise error(
                        f"{source}: {_where(path)}: mapping keys must be strings "
                        f"(found {type(k).__name__} key)"
                    )
            out[k] = _json_compatible(v, source, (*path, k), error)
        return out
    if isinstance(value, list):
        return [_json_compatible(v, source, (*path, i), error) for i, v in enumerate(value)]
    if isinstance(value, float) and not math.isfinite(value):
        raise error(
            f"{source}: {_where(path)}: {value} is not a finite number; use a finite number or a string"
        )
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, bytes):
        raise error(f"{source}: {_where(path)}: binary values are not allowed; use text")
    return value


def _where(path: tuple[Any, ...]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".") or "top level"
