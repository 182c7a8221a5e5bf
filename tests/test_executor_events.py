"""The executor's hot-path events are indistinguishable from validated ones."""

from __future__ import annotations

import time
from typing import Any

import pytest

from forethought import events as E
from forethought._executor_parts import trusted_event
from forethought.events import event_from_json, event_to_json


@pytest.mark.parametrize(("cls", "fields"), [
    (E.StepStarted, {"step_id": "s1", "attempt": 2, "idempotency_key": "r:s1",
                     "args": {"a": [1, {"b": None}]}, "backend": "local"}),
    (E.StepSucceeded, {"step_id": "s1", "attempt": 1, "output": {"x": [1.5, "y", True]},
                       "duration_s": 0.25}),
])
def test_trusted_event_equals_validated(cls: type[Any], fields: dict[str, Any]) -> None:
    envelope = {"run_id": "r", "seq": 7, "ts": time.time(), "plan_version": 3,
                "kind": cls.model_fields["kind"].default}
    fast = trusted_event(cls, {**fields, **envelope})
    slow = cls.model_validate({**fields, **envelope})
    assert fast == slow
    assert event_to_json(fast) == event_to_json(slow)
    assert event_from_json(event_to_json(fast)) == slow
    assert fast.model_dump() == slow.model_dump()


def test_trusted_event_with_missing_field_falls_back_to_validation() -> None:
    fields = {"run_id": "r", "seq": 0, "plan_version": 1, "kind": "step_succeeded",
              "step_id": "s", "attempt": 1}  # no ts/output/duration_s: defaults apply
    ev = trusted_event(E.StepSucceeded, fields)
    assert ev.output is None and ev.duration_s == 0.0 and ev.ts > 0
