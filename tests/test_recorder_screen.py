"""The recorder screens a step event's payload, not its structural fields: same stored result.

``redacted_json`` (what ``Recorder.append_nowait`` stores) must equal the old path — the screen
over the whole JSON text, then ``redact_event`` — for any run id, step id, key, arguments and
output, secrets and anchors anywhere, including in the structural fields.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from forethought.events.kinds import Event, StepReady, StepStarted, StepSucceeded, event_to_json
from forethought.execution._events import step_started, step_succeeded
from forethought.oversight.redaction import Redactor, make_redactor
from forethought.runs.store.recorder import payload_text, redacted_json

ENV_SECRET = "correct-horse-battery-staple-42"
PIECES = [
    "sk-" + "a" * 40,
    "ghp_" + "b" * 36,
    "AKIA" + "C" * 16,
    "password=hunter2hunter2",
    "Bearer abcDEF123456ghiJKL7890mno",
    ENV_SECRET,
    "api",
    "token",
    "ſk-" + "d" * 40,  # long s: casefolds to "s"
    ',"kind":"',
    '"',
    "\\",
    "é",
    "plain",
]
TEXT = st.lists(st.sampled_from(PIECES) | st.text(max_size=6), max_size=4).map("".join)
VALUE = st.recursive(
    st.none() | st.integers() | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)


def _redactor() -> Redactor:
    return make_redactor(env={"MY_SERVICE_TOKEN": ENV_SECRET})


def _old(redactor: Redactor, event: Event) -> tuple[Event, str]:
    body = event_to_json(event)
    if redactor.might_contain_secret(body):
        clean = redactor.redact_event(event)
        if clean is not event:
            return clean, event_to_json(clean)
    return event, body


@settings(max_examples=300, deadline=None)
@given(run_id=TEXT, step_id=TEXT, key=TEXT, args=st.dictionaries(TEXT, VALUE, max_size=3), output=VALUE)
def test_payload_screen_stores_what_the_whole_text_screen_stored(
    run_id: str, step_id: str, key: str, args: dict[str, Any], output: Any
) -> None:
    r = _redactor()
    for event in (
        StepReady(run_id=run_id, seq=2, ts=1.5, step_id=step_id, retry_by=key),
        step_started(run_id, 3, 1.5, 1, step_id, 1, key, args, "local"),
        step_succeeded(run_id, 4, 1.5, 1, step_id, 1, output, 0.25),
    ):
        new_event, new_body = redacted_json(r, event)
        old_event, old_body = _old(r, event)
        assert new_body == old_body
        assert new_event == old_event


def test_the_cut_is_after_the_structural_fields() -> None:
    for cls in (StepReady, StepStarted, StepSucceeded):
        assert list(cls.model_fields)[:5] == ["run_id", "seq", "ts", "plan_version", "kind"]
    e = step_started('api,"kind":"x', 1, 1.0, 1, "s1", 1, "k", {"a": 'token,"kind":"y'}, "local")
    text = payload_text(e, event_to_json(e))
    assert text.startswith(',"step_id":"s1"') and "token" in text and "api" not in text
    ready = StepReady(run_id='api,"kind":"x', seq=1, step_id="s1", retry_by="token")
    text = payload_text(ready, event_to_json(ready))
    assert text == ',"step_id":"s1","retry_by":"token"}'


def test_a_secret_in_the_payload_is_still_removed() -> None:
    r = _redactor()
    e = step_succeeded("run", 1, 1.0, 1, "s", 1, {"out": f"x {ENV_SECRET} y"}, 0.1)
    clean, body = redacted_json(r, e)
    assert ENV_SECRET not in body and "[REDACTED" in body and clean is not e
