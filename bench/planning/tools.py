"""A small tool set for planning benchmarks: files, counting, summarizing, writing.

Paths are relative to the workspace in the ToolContext (a temp dir per goal), and are confined to
it, so a wrong plan can never touch anything else.
"""

from __future__ import annotations

from pathlib import Path

from forethought import ToolContext, tool
from forethought.errors import ToolError


def _path(ctx: ToolContext, path: str) -> Path:
    root = (ctx.workspace or Path.cwd()).resolve()
    target = (root / path).resolve()
    if root != target and root not in target.parents:
        raise ToolError(f"path {path!r} is outside the workspace", retryable=False)
    return target


@tool
def list_files(ctx: ToolContext, directory: str = ".") -> list[str]:
    """List the file names in a directory of the workspace."""
    return sorted(p.name for p in _path(ctx, directory).iterdir() if p.is_file())


@tool
def read_file(ctx: ToolContext, path: str) -> str:
    """Read a text file and return its content."""
    p = _path(ctx, path)
    if not p.is_file():
        raise ToolError(f"no such file: {path}", retryable=False)
    return p.read_text(encoding="utf-8")


@tool(effect="mutating", idempotent=True)
def write_file(ctx: ToolContext, path: str, content: str) -> str:
    """Write text content to a file (overwrites it); returns the path."""
    _path(ctx, path).write_text(content, encoding="utf-8")
    return path


@tool
def count_words(text: str) -> int:
    """Count the words in a text."""
    return len(text.split())


@tool
def count_lines(text: str) -> int:
    """Count the lines in a text."""
    return len(text.splitlines())


@tool
def summarize(text: str) -> str:
    """Summarize a text in one sentence."""
    first = text.strip().split(".")[0].strip()
    return first + "." if first else ""


BENCH_TOOLS = [list_files, read_file, write_file, count_words, count_lines, summarize]
