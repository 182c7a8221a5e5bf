"""Is a run's record the one forethought wrote? Checked before anything acts on it.

A stored run is trusted to say what already happened (which steps ran, what was approved). Someone
who can write the database but not read the approval key could otherwise copy an approval from
another run, delete a finished run's tail so ``resume`` runs a step again, or edit an event.
``verify_run`` detects all three:

- the **chain** (``store._chain``): each event row carries the hash of everything before it,
  starting from the run id; an edited, inserted, removed or reordered event breaks it;
- the **seal** on the chain head (an HMAC with a key derived from the approval key): an editor
  can recompute a plain chain, but not the seal, so cutting events off the end or rebuilding the
  chain after an edit is detected too;
- every **approval's signature**, bound to this run and its plan version: an approval that was
  not signed for this run means the record was changed.

This detects; it does not undo. ``resume``, ``approve`` and ``replay`` refuse a modified run
(``RecordModified``, exit 2); ``runs`` and ``show`` still read it and mark it as modified.
Approvals signed before runs were bound (the older signature form) are not a modification: they
are reported in ``notes`` and simply cover nothing, so the run waits for a fresh approval.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from pydantic import ValidationError

from forethought.events import kinds as E
from forethought.oversight.approvals import recorded_approval
from forethought.runs.store import _chain
from forethought.runs.store.base import RecordModified, Store


@dataclass(frozen=True)
class IntegrityReport:
    """``problem`` is ``None`` when the record verifies; ``notes`` are harmless findings."""

    run_id: str
    problem: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def modified(self) -> bool:
        return self.problem is not None


def check_run(store: Store, run_id: str) -> IntegrityReport:
    """Verify the chain, its seal and every approval of ``run_id`` (see the module docstring)."""
    record = store.record_chain(run_id)
    if record is None:
        return IntegrityReport(run_id)
    head = _chain.genesis(run_id)
    versions: dict[str, int] = {}
    approvals: list[tuple[int, dict[str, object]]] = []
    for index, row in enumerate(record.rows):
        if row.seq != index:
            return IntegrityReport(run_id, f"event {index}: missing (the next stored event is {row.seq})")
        if row.prev_hash != head.hex():
            if index == 0:
                what = "event 0: it does not start this run's chain (copied from another run, or edited)"
            else:
                what = (
                    f"event {index}: the chain breaks here — event {index - 1} was edited, or "
                    "events were inserted or removed at this point"
                )
            return IntegrityReport(run_id, what)
        body = row.body.encode()
        head = _chain.link(head, body)
        # Approvals and the plans they point to are few; only those bodies are parsed here.
        if row.kind in ("plan_approved", "plan_proposed", "plan_revised"):
            problem = _note_body(row.seq, row.body, run_id, versions, approvals)
            if problem:
                return IntegrityReport(run_id, problem)
    last = len(record.rows) - 1
    if record.head != head.hex():
        return IntegrityReport(
            run_id,
            f"event {last}: the record does not end where forethought left it (event {last} was edited, "
            "or events were added or removed at the end)",
        )
    if not _chain.seal_matches(store.record_key(), run_id, last, head, record.seal):
        return IntegrityReport(
            run_id,
            f"event {last}: the seal on the record does not verify (events were removed, rewritten, "
            "or the record was written with another approval key)",
        )
    notes: list[str] = []
    for seq, data in approvals:
        try:
            event = E.PlanApproved.model_validate(data)
        except ValidationError:
            return IntegrityReport(run_id, f"event {seq}: the stored approval does not parse")
        approval = recorded_approval(event, versions, run_id)
        if not approval.signature:
            notes.append(f"event {seq}: unsigned approval; it covers nothing")
        elif approval.is_legacy():
            notes.append(
                f"event {seq}: approval signed before approvals were bound to runs; it covers "
                f"nothing — approve the run again (forethought approve {run_id})"
            )
        elif not approval.is_authentic():
            return IntegrityReport(run_id, f"event {seq}: the approval was not signed for this run")
    return IntegrityReport(run_id, None, notes)


def _note_body(
    seq: int,
    text: str,
    run_id: str,
    versions: dict[str, int],
    approvals: list[tuple[int, dict[str, object]]],
) -> str | None:
    try:
        data = json.loads(text)
    except ValueError:
        return f"event {seq}: the stored event is not valid JSON"
    if not isinstance(data, dict):
        return f"event {seq}: the stored event is not an object"
    if data.get("run_id") != run_id or data.get("seq") != seq:
        return f"event {seq}: it names run {data.get('run_id')!r} event {data.get('seq')!r}"
    kind = data.get("kind")
    if kind in ("plan_proposed", "plan_revised"):
        plan = data.get("plan")
        version = plan.get("version", 1) if isinstance(plan, dict) else 1
        versions[str(data.get("plan_hash", ""))] = version if isinstance(version, int) else 1
    elif kind == "plan_approved":
        approvals.append((seq, data))
    return None


def verify_run(store: Store, run_id: str) -> str | None:
    """``None`` if ``run_id``'s record verifies, else what failed (``"event N: ..."``)."""
    return check_run(store, run_id).problem


def refuse_if_modified(store: Store, run_id: str, action: str = "resumed") -> IntegrityReport:
    """Raise ``RecordModified`` (one line, exit 2) unless the run's record verifies."""
    report = check_run(store, run_id)
    if report.problem is not None:
        raise RecordModified(
            f"run {run_id}'s record was modified outside forethought ({report.problem}); it cannot "
            f"be {action} — `forethought show {run_id}` still reads it"
        )
    return report


__all__ = ["IntegrityReport", "RecordModified", "check_run", "refuse_if_modified", "verify_run"]
