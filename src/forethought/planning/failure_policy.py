"""What a planned step does when it fails: unless the plan says otherwise, ask the planner again.

The planning schema leaves ``on_failure`` out (it keeps plans short for small models), so a
planned step would get the plan model's default, ``abort``, and a run would end at its first
failed tool call with nobody asked — the opposite of what a planner–executor agent is for. A
step the planner wrote without ``on_failure`` is therefore ``replan``: the run asks for a
revised plan, at most ``budgets.max_replans`` times, and every new side effect in the revision
goes through the approval gate like any plan version. It is written into the plan, so the
review screen and ``plan`` show it, and a person can change it before approving.

A plan from a file or the API keeps the model's default: its author chose.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

PLANNED_ON_FAILURE = "replan"


def with_planned_failure_policy(steps: Sequence[Any]) -> list[Any]:
    """``steps`` (raw JSON step objects from a model) with ``on_failure: replan`` where unset."""
    return [planned_step(s) for s in steps]


def planned_step(raw: Any) -> Any:
    if isinstance(raw, dict) and "on_failure" not in raw:
        return {**raw, "on_failure": PLANNED_ON_FAILURE}
    return raw
