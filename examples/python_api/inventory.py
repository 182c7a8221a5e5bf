"""Embedding forethought in a program: tools as typed Python functions, a plan built in code,
run with approval, parallelism and a durable record — no model needed for a fixed plan.

    python examples/python_api/inventory.py [--db runs.db]

The plan counts stock in two warehouses in parallel, totals it (typed references: the counts
arrive as integers), and places a restock order whose reason quotes the total; a check verifies
the order. The order tool is `mutating`, so it runs only because we approve the plan explicitly
(`approve="all"`), and that approval is recorded, signed and bound to the plan hash.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path

from pydantic import BaseModel

from forethought import Agent, Plan, tool

STOCK = {"north": {"widgets": 12, "gears": 40}, "south": {"widgets": 3, "gears": 9}}
ORDERS: list[dict[str, object]] = []


class Count(BaseModel):
    warehouse: str
    item: str
    count: int


@tool(est_latency_s=0.2)
async def count_stock(warehouse: str, item: str) -> Count:
    """Count one item in one warehouse."""
    await asyncio.sleep(0.2)  # a slow inventory API
    return Count(warehouse=warehouse, item=item, count=STOCK[warehouse][item])


@tool
def total(counts: list[int]) -> int:
    """Add counts up."""
    return sum(counts)


@tool(effect="mutating")
def place_order(item: str, quantity: int, reason: str) -> dict[str, object]:
    """Place a restock order."""
    order = {"item": item, "quantity": quantity, "reason": reason}
    ORDERS.append(order)
    return order


PLAN = Plan.model_validate(
    {
        "goal": "restock widgets",
        "steps": [
            {"id": "north", "tool": "count_stock", "args": {"warehouse": "north", "item": "widgets"}},
            {"id": "south", "tool": "count_stock", "args": {"warehouse": "south", "item": "widgets"}},
            {"id": "sum", "tool": "total", "args": {"counts": ["${north.count}", "${south.count}"]}},
            {
                "id": "order",
                "tool": "place_order",
                "args": {"item": "widgets", "quantity": 50, "reason": "only ${sum} widgets in stock"},
                "check": {"expr": "output.quantity > 0"},
            },
        ],
    }
)


async def main(db: Path) -> int:
    agent = Agent([count_stock, total, place_order], store=str(db))
    result = await agent.run(PLAN, approve="all")
    print(
        json.dumps(
            {
                "run_id": result.run_id,
                "status": result.status,
                "total": result.state.outputs.get("sum"),
                "orders": ORDERS,
                "makespan_s": round(result.summary["makespan_s"], 3),
                "critical_path_s": round(result.summary["critical_path_s"], 3),
            },
            indent=2,
        )
    )
    return 0 if result.status == "succeeded" else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", type=Path, default=Path(tempfile.mkdtemp()) / "runs.db")
    raise SystemExit(asyncio.run(main(parser.parse_args().db)))
