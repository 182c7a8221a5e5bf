"""A small stockroom tool set for the outcomes bench: stock levels, length units and memos.

It appears in no prompt, starter plan or planner test, so the planner has never seen it. State
lives in the workspace the run is given (``stock.json``, ``memos.json``), where the bench's
checker reads it back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forethought import ToolContext, tool
from forethought.errors import ToolError

_TO_MM = {"mm": 1.0, "cm": 10.0, "m": 1000.0, "km": 1_000_000.0, "in": 25.4, "ft": 304.8}


def _load(ctx: ToolContext, name: str, empty: Any) -> Any:
    path = (ctx.workspace or Path.cwd()) / name
    return json.loads(path.read_text("utf-8")) if path.is_file() else empty


def _store(ctx: ToolContext, name: str, data: Any) -> None:
    ((ctx.workspace or Path.cwd()) / name).write_text(json.dumps(data, indent=1, sort_keys=True), "utf-8")


@tool
def stock_count(ctx: ToolContext, sku: str) -> int:
    """How many units of an item (by SKU, e.g. A-100) are on the shelves."""
    stock = _load(ctx, "stock.json", {})
    if sku not in stock:
        raise ToolError(f"unknown sku {sku!r}; known: {', '.join(sorted(stock))}", retryable=False)
    return int(stock[sku])


@tool(effect="mutating")
def restock(ctx: ToolContext, sku: str, quantity: int) -> int:
    """Add a quantity of units of an item (by SKU) to the shelves; returns the new count."""
    if quantity <= 0:
        raise ToolError("quantity must be positive", retryable=False)
    stock = _load(ctx, "stock.json", {})
    stock[sku] = int(stock.get(sku, 0)) + quantity
    _store(ctx, "stock.json", stock)
    return int(stock[sku])


@tool
def convert_length(value: float, unit: str, to_unit: str) -> float:
    """Convert a length between units: mm, cm, m, km, in, ft."""
    if unit not in _TO_MM or to_unit not in _TO_MM:
        raise ToolError(f"units must be among {', '.join(_TO_MM)}", retryable=False)
    return round(value * _TO_MM[unit] / _TO_MM[to_unit], 6)


@tool(effect="mutating")
def pin_memo(ctx: ToolContext, title: str, text: str) -> str:
    """Pin a memo with a title and text on the board; returns the title."""
    memos = _load(ctx, "memos.json", [])
    memos.append({"title": title, "text": text})
    _store(ctx, "memos.json", memos)
    return title


@tool
def list_memos(ctx: ToolContext) -> list[str]:
    """The titles of the memos pinned on the board."""
    return [str(m["title"]) for m in _load(ctx, "memos.json", [])]
