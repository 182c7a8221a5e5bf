"""Optional dependencies: the model providers, the MCP SDK and the embedded model's runtime.

A core install (``pip install forethought``) lints, graphs, diffs and executes plans with Python
and command tools; everything that talks to a model or to MCP is an extra
(``forethought[openai]``, ``[anthropic]``, ``[mcp]``, ``[local]``, ``[postgres]``, ``[ray]``,
``[all]``). So no module imports
an extra at import time: the adapter that needs one asks here when it is built or first used, and
a missing extra is one line naming it and the fix (a ``UserError``, exit 2), never a traceback.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from forethought.errors import UserError

# extra name → (the module it provides, what it is, as the user reads it)
EXTRAS: dict[str, tuple[str, str]] = {
    "openai": ("openai", "the OpenAI SDK"),
    "anthropic": ("anthropic", "the Anthropic SDK"),
    "mcp": ("mcp", "the MCP SDK"),
    "local": ("xllamacpp", "the embedded model's runtime (xllamacpp)"),
    "postgres": ("psycopg", "the PostgreSQL driver (psycopg 3)"),
    "ray": ("ray", "Ray"),
    "web": ("uvicorn", "the web UI's server (Starlette, Jinja2, uvicorn)"),
    "otel": ("opentelemetry.sdk", "OpenTelemetry (opentelemetry-api, opentelemetry-sdk)"),
}


def missing_extra(who: str, extra: str, *, detail: str = "") -> UserError:
    """``<who> needs <what>: pip install 'forethought[<extra>]'``: the one line for a missing extra."""
    what = EXTRAS[extra][1]
    return UserError(f"{who} needs {what}{detail}: pip install 'forethought[{extra}]'")


def has_extra(extra: str) -> bool:
    """True if ``extra``'s module can be found; imports nothing (cheap enough for a default)."""
    try:
        return importlib.util.find_spec(EXTRAS[extra][0]) is not None
    except (ImportError, ValueError):
        return False


def require_extra(extra: str, who: str) -> None:
    """Fail early, at construction, without paying for the import (an SDK takes ~1 s)."""
    if not has_extra(extra):
        raise missing_extra(who, extra)


def import_extra(extra: str, who: str) -> ModuleType:
    """Import ``extra``'s module; if it (or something it needs) is missing, the one-line error."""
    module = EXTRAS[extra][0]
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        # An installed SDK whose own dependency is missing: name that too, the fix is the same.
        detail = f" ({exc.name} is missing)" if exc.name and exc.name.split(".")[0] != module else ""
        raise missing_extra(who, extra, detail=detail) from None
