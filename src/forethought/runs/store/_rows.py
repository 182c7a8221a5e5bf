"""What every backend does with stored rows: parse event bodies, and verify a run's chain head
before extending it. Backend-neutral, so SQLite and PostgreSQL apply the same rules."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import TypeAdapter, ValidationError

from forethought.errors import StoreError
from forethought.events.kinds import Event, PlanProposed, PlanRevised, event_to_json
from forethought.runs.store import _chain
from forethought.runs.store._materialize import canonical_plan_text
from forethought.runs.store.base import Appended, RecordModified, StepProgress

_EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


def stored_head(run_id: str, row: tuple[Any, ...] | None, key: bytes) -> bytes:
    """The run's chain head to extend, once its seal is checked.

    ``row`` is ``(last_seq, chain_head, chain_seal)`` from the run's summary row (``None`` for a
    new run). Without this check an append would seal whatever head an editor left behind (say,
    after cutting off a finished run's tail and recomputing the plain chain): never extend a head
    we did not seal ourselves.
    """
    if row is None:
        return _chain.genesis(run_id)
    last_seq, head_hex, seal = int(row[0]), str(row[1]), str(row[2])
    try:
        head = bytes.fromhex(head_hex)
    except ValueError:
        head = b""
    if len(head) != 32 or not _chain.seal_matches(key, run_id, last_seq, head, seal):
        raise RecordModified(
            f"run {run_id}'s record was modified outside forethought (the seal on its last event "
            f"{last_seq} does not verify); nothing was recorded — `forethought show {run_id}` "
            "still reads it"
        )
    return head


def known_plan_text(text: str | None, plan_hash: str) -> str | None:
    """A caller's canonical text of the plan, if it is the one ``plan_hash`` names."""
    if text is None or hashlib.sha256(text.encode("utf-8")).hexdigest() != plan_hash:
        return None
    return text


def append_inputs(
    events: Sequence[Appended], bodies: Sequence[str] | None, plan_texts: Mapping[str, str] | None
) -> tuple[list[str], dict[int, str]]:
    """What an append writes: each event's JSON (the caller's, when it has it) and the canonical
    text of each plan it records, by event id (a caller's text only if it hashes to the plan)."""
    if bodies is None:
        if any(type(e) is StepProgress for e in events):
            raise ValueError("append_many: a StepProgress row needs its event's body")
        bodies = [event_to_json(e) for e in events]  # type: ignore[arg-type]
    elif len(bodies) != len(events):
        raise ValueError("append_many: one body per event")
    known = plan_texts or {}
    texts = {
        id(e): known_plan_text(known.get(e.plan_hash), e.plan_hash)
        or canonical_plan_text(e.plan, e.plan_hash)
        for e in events
        if isinstance(e, (PlanProposed, PlanRevised))
    }
    return list(bodies), texts


def parse_bodies(run_id: str, bodies: list[str]) -> list[Event]:
    """Stored JSON bodies → events, each validated by the event union.

    Validated per event (measured faster than one list validation on pydantic 2.x, and the
    error can name the seq). Validation, not trust: a hand-edited database yields a StoreError,
    never an object of the wrong shape.
    """
    out: list[Event] = []
    parse = _EVENT_ADAPTER.validate_json
    try:
        for body in bodies:
            out.append(parse(body))
    except ValidationError as exc:
        raise StoreError(
            f"run {run_id}: stored event #{len(out)} does not parse "
            f"({exc.error_count()} errors, first: {exc.errors()[0]['msg']}); "
            "the database was edited by hand or by an incompatible version"
        ) from None
    return out
