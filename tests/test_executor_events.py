"""The executor's hot-path events are ordinary validated events (no writes into pydantic's state)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from forethought.events import kinds as E
from forethought.events.kinds import event_from_json, event_to_json
from forethought.execution import _events as fast


@pytest.mark.parametrize("args", [{}, {"a": [1, {"b": None}], "s": "x"}])
def test_step_started_equals_validated(args: dict[str, Any]) -> None:
    ts = time.time()
    quick = fast.step_started("r", 7, ts, 3, "s1", 2, "r:s1", args, "local")
    slow = E.StepStarted(
        run_id="r",
        seq=7,
        ts=ts,
        plan_version=3,
        kind="step_started",
        step_id="s1",
        attempt=2,
        idempotency_key="r:s1",
        args=args,
        backend="local",
    )
    _assert_same(quick, slow)


@pytest.mark.parametrize("output", [None, 1, "text", {"x": [1.5, "y", True]}, [1, [2]]])
def test_step_succeeded_equals_validated(output: Any) -> None:
    ts = time.time()
    quick = fast.step_succeeded("r", 8, ts, 1, "s1", 1, output, 0.25)
    slow = E.StepSucceeded(
        run_id="r",
        seq=8,
        ts=ts,
        plan_version=1,
        kind="step_succeeded",
        step_id="s1",
        attempt=1,
        output=output,
        duration_s=0.25,
    )
    _assert_same(quick, slow)


def _assert_same(quick: Any, slow: Any) -> None:
    assert type(quick) is type(slow)
    assert quick == slow
    assert event_to_json(quick) == event_to_json(slow)
    assert event_from_json(event_to_json(quick)) == slow
    assert quick.model_dump() == slow.model_dump()
    assert quick.model_fields_set == slow.model_fields_set  # as read back from the store
    assert repr(quick) == repr(slow)


def test_copies_of_per_step_events_do_not_share_their_fields_set() -> None:
    a = fast.step_succeeded("r", 1, 1.0, 1, "a", 1, 1, 0.1)
    b = a.model_copy(update={"output": 2})
    assert b.output == 2 and a.output == 1
    assert b.__pydantic_fields_set__ is not a.__pydantic_fields_set__


def test_the_builders_validate() -> None:
    ev = fast.step_started("r", 0, 1.0, 1, "s", 1, "k", {}, "local")
    assert isinstance(ev, E.StepStarted) and ev.attempt == 1
    with pytest.raises(ValueError, match="attempt"):
        fast.step_succeeded("r", 0, 1.0, 1, "s", 0, None, 0.0)  # attempt must be >= 1
