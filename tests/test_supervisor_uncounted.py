"""The supervisor hook ignores ``step_ready`` and ``step_succeeded`` (``UNCOUNTED``): two of a
step's three events, queued for nobody. Whatever it would find observing them it finds at the
next event it does observe, in the same state: the first breach is the same, at the same place
in a stream whose state did not move in between (the executor's pump reads the state as it is)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from forethought.events import kinds as E
from forethought.events.state import RunState, apply
from forethought.oversight.supervisor import UNCOUNTED, Breach, Budgets, Supervisor

_KINDS = st.sampled_from(["ready", "started", "succeeded", "model", "revised"])


def _event(kind: str, seq: int, sid: str) -> Any:
    base: dict[str, Any] = {"run_id": "r", "seq": seq, "ts": 1000.0 + seq}
    if kind == "ready":
        return E.StepReady(**base, step_id=sid)
    if kind == "started":
        return E.StepStarted(**base, step_id=sid, attempt=1)
    if kind == "succeeded":
        return E.StepSucceeded(**base, step_id=sid, attempt=1)
    if kind == "model":
        return E.ModelCalled(
            **base, role="executor", model="m", step_id=sid, input_tokens=7, output_tokens=3, cost_usd=0.01
        )
    return E.PlanRevised(**base, old_version=1, new_version=2, plan={"goal": "g", "steps": []}, plan_hash="h")


def _first_breach(
    budgets: Budgets, events: list[Any], skip: frozenset[type[Any]]
) -> tuple[int, Breach] | None:
    """Where (the index of the first event after which) and what the supervisor first reports."""
    sup, state = Supervisor(budgets), RunState(run_id="r", created_at=1000.0, segment_started_at=1000.0)
    for i, event in enumerate(events):
        apply(state, event)
        if type(event) in skip:
            continue
        breach = sup.observe(event, state)
        if breach is not None:
            return i, breach
    return None


@settings(max_examples=300, deadline=None)
@given(
    kinds=st.lists(_KINDS, max_size=40),
    sids=st.lists(st.sampled_from(["a", "b"]), min_size=40, max_size=40),
    max_steps=st.none() | st.integers(1, 6),
    max_tokens=st.none() | st.integers(1, 60),
    max_cost=st.none() | st.floats(0, 0.08),
    max_step_tokens=st.none() | st.integers(1, 40),
    max_replans=st.integers(0, 2),
)
def test_ignoring_uncounted_events_finds_the_same_first_breach(
    kinds: list[str],
    sids: list[str],
    max_steps: int | None,
    max_tokens: int | None,
    max_cost: float | None,
    max_step_tokens: int | None,
    max_replans: int,
) -> None:
    budgets = Budgets(
        max_steps=max_steps,
        max_tokens=max_tokens,
        max_cost_usd=max_cost,
        max_step_tokens=max_step_tokens,
        max_replans=max_replans,
    )
    events = [_event(k, i, sids[i]) for i, k in enumerate(kinds)]
    every = _first_breach(budgets, events, frozenset())
    some = _first_breach(budgets, events, UNCOUNTED)
    if every is None:
        assert some is None
        return
    assert some is not None
    # Found at the same event, or later only past uncounted ones (which changed nothing counted).
    assert some[1] == every[1]
    assert all(type(e) in UNCOUNTED for e in events[every[0] : some[0]])
