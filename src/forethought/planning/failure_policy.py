"""What a planned step does when it fails: unless the plan says otherwise, ask the planner again.

The planning schema leaves ``on_failure`` out (it keeps plans short for small models), so a
planned step would get the plan model's default, ``abort``, and a run would end at its first
failed tool call with nobody asked — the opposite of what a planner–executor agent is for. A
step the planner wrote without ``on_failure`` is therefore ``replan``: the run asks for a
revised plan, at most ``budgets.max_replans`` times, and every new side effect in the revision
goes through the approval gate like any plan version. It is written into the plan, so the
review screen and ``plan`` show it, and a person can change it before approving.

The embedded model (``local``) is the exception: its steps keep ``abort``. One replanning call
costs it tens of seconds on two cores and minutes under load (measured: a single replan call
still generating after 5 minutes at load average 9-11), so a failed step would hold the run for
many minutes for a revision that model seldom gets right; the run fails at once and says why.

A plan from a file or the API keeps the model's default: its author chose.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

PLANNED_ON_FAILURE = "replan"


def is_embedded(model_name: str) -> bool:
    """Whether ``model_name`` (``provider:model``) is the embedded model."""
    return model_name.split(":", 1)[0] == "local"


def planned_failure_policy(model_name: str) -> str:
    """What a step planned by ``model_name`` does on failure when the model does not say."""
    return "abort" if is_embedded(model_name) else PLANNED_ON_FAILURE


def with_planned_failure_policy(steps: Sequence[Any], policy: str = PLANNED_ON_FAILURE) -> list[Any]:
    """``steps`` (raw JSON step objects from a model) with ``on_failure: policy`` where unset."""
    return [planned_step(s, policy) for s in steps]


def planned_step(raw: Any, policy: str = PLANNED_ON_FAILURE) -> Any:
    if isinstance(raw, dict) and "on_failure" not in raw:
        return {**raw, "on_failure": policy}
    return raw
