"""The per-step events' fast path builds and stores exactly what the validated path did.

``execution._events.step_started`` / ``step_succeeded`` hand their fields to the event class's
own pydantic-core validator in one dict, and ``events.kinds.event_to_json`` calls the class's
serializer directly instead of ``model_dump_json()``. For arbitrary payloads — secrets the
recorder must redact, anchors, non-ASCII, huge integers, floats (NaN and infinities too),
nested data — the event must equal ``StepStarted(**fields)`` (same fields, same fields-set),
its JSON must be byte-identical to ``model_dump_json()``, and what the recorder stores
(``redacted_json``) must be byte-identical to the same redaction done on the validated path.
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from forethought.events.kinds import Event, StepStarted, StepSucceeded, event_from_json, event_to_json
from forethought.execution._events import step_started, step_succeeded
from forethought.oversight.redaction import Redactor, make_redactor
from forethought.runs.store.recorder import redacted_json
from forethought.testing.runs import full_run

ENV_SECRET = "correct-horse-battery-staple-42"
SECRETS = ["sk-" + "a" * 40, "ghp_" + "b" * 36, "AKIA" + "C" * 16, "password=hunter2hunter2", ENV_SECRET]
PIECES = [
    *SECRETS,
    "api",
    "token",
    "ſk-" + "d" * 40,
    ',"kind":"',
    '"',
    "\\",
    "é",
    "日本語",
    "\u2028",
    "\x00",
    "😀",
]
TEXT = st.lists(st.sampled_from(PIECES) | st.text(max_size=8), max_size=4).map("".join)
NUMBER = (
    st.integers()
    | st.integers(min_value=2**63, max_value=2**200)
    | st.integers(min_value=-(2**200), max_value=-(2**63))
    | st.floats(allow_nan=True, allow_infinity=True)
)
VALUE = st.recursive(
    st.none() | st.booleans() | NUMBER | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
SEQ = st.integers(min_value=0, max_value=2**40)
ATTEMPT = st.integers(min_value=1, max_value=50)
TS = st.floats(min_value=0, max_value=4e9) | st.just(1795771075.4605322)


def _redactor() -> Redactor:
    return make_redactor(env={"MY_SERVICE_TOKEN": ENV_SECRET})


def _validated_json(redactor: Redactor, event: Event) -> tuple[Event, str]:
    """What the recorder stored before the fast path: ``model_dump_json`` and ``redact_event``."""
    body = event.model_dump_json()
    clean, _ = redacted_json(redactor, event)
    return clean, (body if clean is event else clean.model_dump_json())


def _same_event(fast: Event, slow: Event) -> None:
    assert type(fast) is type(slow)
    assert fast.model_fields_set == slow.model_fields_set
    assert repr(fast) == repr(slow)  # NaN-safe: ``==`` on a NaN payload is False for both
    if not _has_nan(slow.model_dump()):
        assert fast == slow


def _has_nan(value: Any) -> bool:
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, dict):
        return any(_has_nan(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_nan(v) for v in value)
    return False


def _same_as_validated(fast: Any, slow: Any) -> None:
    """The fast event equals the validated one, in memory, as JSON and as stored after redaction."""
    _same_event(fast, slow)
    assert event_to_json(fast) == slow.model_dump_json()
    redactor = _redactor()
    stored, body = redacted_json(redactor, fast)
    old_stored, old_body = _validated_json(redactor, slow)
    assert body == old_body
    _same_event(stored, old_stored)
    assert event_to_json(stored) == body  # the stored text is the stored event's own JSON


@settings(max_examples=400, deadline=None)
@given(
    run_id=TEXT,
    seq=SEQ,
    ts=TS,
    version=st.integers(min_value=0, max_value=10**6),
    step_id=TEXT,
    attempt=ATTEMPT,
    key=TEXT,
    args=st.dictionaries(TEXT, VALUE, max_size=4),
    backend=TEXT,
)
def test_step_started_fast_path_equals_the_validated_path(
    run_id: str,
    seq: int,
    ts: float,
    version: int,
    step_id: str,
    attempt: int,
    key: str,
    args: dict[str, Any],
    backend: str,
) -> None:
    fast = step_started(run_id, seq, ts, version, step_id, attempt, key, dict(args), backend)
    slow = StepStarted(
        run_id=run_id,
        seq=seq,
        ts=ts,
        plan_version=version,
        kind="step_started",
        step_id=step_id,
        attempt=attempt,
        idempotency_key=key,
        args=dict(args),
        backend=backend,
    )
    _same_as_validated(fast, slow)


@settings(max_examples=400, deadline=None)
@given(
    run_id=TEXT,
    seq=SEQ,
    ts=TS,
    step_id=TEXT,
    attempt=ATTEMPT,
    output=VALUE,
    duration=st.floats(min_value=0, max_value=1e6) | st.just(1.2e-05) | st.just(1e16),
)
def test_step_succeeded_fast_path_equals_the_validated_path(
    run_id: str, seq: int, ts: float, step_id: str, attempt: int, output: Any, duration: float
) -> None:
    fast = step_succeeded(run_id, seq, ts, 1, step_id, attempt, output, duration)
    slow = StepSucceeded(
        run_id=run_id,
        seq=seq,
        ts=ts,
        plan_version=1,
        kind="step_succeeded",
        step_id=step_id,
        attempt=attempt,
        output=output,
        duration_s=duration,
    )
    _same_as_validated(fast, slow)


def test_secrets_in_a_step_event_are_removed_on_the_fast_path() -> None:
    redactor = _redactor()
    for secret in SECRETS:
        event = step_succeeded("r", 3, 1.0, 1, "s1", 1, {"log": f"key {secret} here", "n": 2**70}, 0.5)
        _, body = redacted_json(redactor, event)
        assert secret not in body and "[REDACTED:" in body
        assert str(2**70) in body  # the rest of the payload is kept as is
        started = step_started("r", 2, 1.0, 1, "s1", 1, "r:s1", {"header": secret}, "local")
        _, body = redacted_json(redactor, started)
        assert secret not in body and "[REDACTED:" in body


def test_the_fast_path_still_validates() -> None:
    # The fast path is the validator itself, not a construct: a wrong field type is refused.
    import pytest
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        step_started("r", -1, 1.0, 1, "s1", 1, "k", {}, "local")  # seq >= 0
    with pytest.raises(ValidationError):
        step_succeeded("r", 1, 1.0, 1, "s1", 0, None, 0.0)  # attempt >= 1


def test_every_event_kind_serializes_as_model_dump_json() -> None:
    events = full_run("r-é", 3)
    assert {e.kind for e in events} >= {"run_created", "plan_proposed", "step_started", "model_called"}
    for event in events:
        text = event_to_json(event)
        assert text == event.model_dump_json()
        assert event_from_json(text) == event
