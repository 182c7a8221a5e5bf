"""Issue 15 item 4: a run's record cannot be edited, trimmed or spliced into another run.

Approvals used to be signed over the plan hash only, and the event log was a plain table: a
``plan_approved`` row copied from run X into run Y (same plan) authorized Y, and deleting a
finished run's tail events made ``resume`` run an approved non-idempotent step again. Now an
approval is bound to its run and plan version, every event carries the hash of the one before
it, the chain head is MACed with the approval key, and ``resume``/``approve`` refuse a record
that does not verify. These tests edit the database file with raw ``sqlite3``, as an attacker
without the key would, and drive the real CLI in a subprocess.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from forethought.oversight.approvals import Approval, ApprovalGate, approval_key
from forethought.plan.model import Plan, canonical_dumps
from forethought.runs.store.sqlite import SqliteStore
from forethought.tools.base import ToolSpec

TOOLS_PY = """
from pathlib import Path
from forethought import tool

EFFECTS = Path(__file__).with_name("effects.txt")

@tool(effect="mutating", idempotent=False)
def charge(amount: int) -> dict:
    with EFFECTS.open("a") as fh:
        fh.write(f"charged {amount}\\n")
    return {"charged": amount}
"""

PLAN_YAML = """goal: charge the customer once
steps:
  - id: pay
    tool: charge
    args: {amount: 5}
"""


class Env:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.db = tmp / "runs.db"
        self.tools = tmp / "tools.py"
        self.tools.write_text(TOOLS_PY)
        self.plan = tmp / "plan.yaml"
        self.plan.write_text(PLAN_YAML)
        self.effects = tmp / "effects.txt"

    def cli(self, *argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "forethought", *argv, "--db", str(self.db)],
            cwd=self.tmp,
            capture_output=True,
            text=True,
            timeout=120,
            env=os.environ.copy(),
            check=False,
        )

    def exec_run(self, *extra: str) -> tuple[str, subprocess.CompletedProcess[str]]:
        proc = self.cli("exec", str(self.plan), "--tools", str(self.tools), "--json", *extra)
        return json.loads(proc.stdout)["run_id"], proc

    def charges(self) -> int:
        return len(self.effects.read_text().splitlines()) if self.effects.exists() else 0

    def sql(self) -> sqlite3.Connection:
        return sqlite3.connect(self.db, isolation_level=None)


@pytest.fixture
def env(tmp_path: Path) -> Env:
    return Env(tmp_path)


def _one_line_refusal(proc: subprocess.CompletedProcess[str], run_id: str) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"run {run_id}" in lines[0] and "modified outside forethought" in lines[0]
    return lines[0]


def test_approval_copied_from_another_run_does_not_authorize(env: Env) -> None:
    x, proc = env.exec_run()
    assert proc.returncode == 3, proc.stderr
    assert env.cli("approve", x, "--no-run").returncode == 0
    y, proc = env.exec_run()
    assert proc.returncode == 3, proc.stderr
    with env.sql() as db:
        (body,) = db.execute(
            "SELECT body FROM events WHERE run_id = ? AND kind = 'plan_approved'", (x,)
        ).fetchone()
        (last,) = db.execute("SELECT last_seq FROM runs WHERE run_id = ?", (y,)).fetchone()
        forged = json.loads(body)
        forged.update(run_id=y, seq=last + 1)
        db.execute(
            "INSERT INTO events (run_id, seq, kind, ts, plan_version, body) VALUES (?,?,?,?,?,?)",
            (y, last + 1, "plan_approved", forged["ts"], forged["plan_version"], json.dumps(forged)),
        )
        db.execute("UPDATE runs SET last_seq = ? WHERE run_id = ?", (last + 1, y))
    proc = env.cli("resume", y, "--tools", str(env.tools))
    message = _one_line_refusal(proc, y)
    assert f"event {last + 1}" in message
    assert env.charges() == 0
    # Read-only commands still work on the modified run, and say so.
    show = env.cli("show", y)
    assert show.returncode == 0, show.stderr
    assert "modified outside forethought" in show.stdout
    # The genuine run X is untouched by the edit of Y and still resumes.
    assert env.cli("resume", x, "--tools", str(env.tools)).returncode == 0
    assert env.charges() == 1


def test_deleting_a_finished_runs_tail_does_not_rerun_the_step(env: Env) -> None:
    run, proc = env.exec_run("--yes-all")
    assert proc.returncode == 0, proc.stderr
    assert env.charges() == 1
    with env.sql() as db:
        (started,) = db.execute(
            "SELECT min(seq) FROM events WHERE run_id = ? AND kind = 'step_started'", (run,)
        ).fetchone()
        db.execute("DELETE FROM events WHERE run_id = ? AND seq >= ?", (run, started))
        db.execute("DELETE FROM steps WHERE run_id = ?", (run,))
        db.execute("UPDATE runs SET last_seq = ?, status = 'running' WHERE run_id = ?", (started - 1, run))
    proc = env.cli("resume", run, "--tools", str(env.tools))
    _one_line_refusal(proc, run)
    assert env.charges() == 1
    proc = env.cli("resume", run, "--tools", str(env.tools), "--yes-all")
    _one_line_refusal(proc, run)
    assert env.charges() == 1


def test_edited_event_payload_is_refused_for_resume_and_approve(env: Env) -> None:
    run, proc = env.exec_run()
    assert proc.returncode == 3, proc.stderr
    with env.sql() as db:
        (body,) = db.execute("SELECT body FROM events WHERE run_id = ? AND seq = 0", (run,)).fetchone()
        edited = json.loads(body)
        edited["goal"] = "charge the customer twice"
        db.execute("UPDATE events SET body = ? WHERE run_id = ? AND seq = 0", (json.dumps(edited), run))
    message = _one_line_refusal(env.cli("approve", run), run)
    assert "event 0" in message
    _one_line_refusal(env.cli("resume", run, "--tools", str(env.tools)), run)
    assert "cannot be replayed" in _one_line_refusal(env.cli("replay", run), run)
    assert env.charges() == 0
    runs = env.cli("runs")
    assert runs.returncode == 0, runs.stderr
    assert any(run in line and "(MODIFIED)" in line for line in runs.stdout.splitlines())
    listed = json.loads(env.cli("runs", "--json").stdout)
    assert [r["modified"] for r in listed if r["run_id"] == run] == [True]
    show = json.loads(env.cli("show", run, "--json").stdout)
    assert show["record"]["modified"] is True and "event 1" in show["record"]["problem"]


def test_untouched_run_is_approved_and_resumes(env: Env) -> None:
    run, proc = env.exec_run()
    assert proc.returncode == 3, proc.stderr
    assert env.cli("approve", run, "--no-run").returncode == 0
    proc = env.cli("resume", run, "--tools", str(env.tools))
    assert proc.returncode == 0, proc.stderr
    assert env.charges() == 1
    from forethought.runs.integrity import verify_run

    store = SqliteStore(env.db)
    try:
        assert verify_run(store, run) is None
    finally:
        store.close()
    show = env.cli("show", run)
    assert show.returncode == 0 and "modified outside forethought" not in show.stdout
    assert "(MODIFIED)" not in env.cli("runs").stdout


def test_approval_signature_is_bound_to_run_and_version() -> None:
    spec = {"charge": ToolSpec(name="charge", effect="mutating")}
    plan = Plan.model_validate({"goal": "g", "steps": [{"id": "pay", "tool": "charge"}]})
    mine = Approval.grant(plan, spec, approver="alice", run_id="run-x")
    assert mine.is_authentic()
    moved = Approval(
        mine.plan_hash, mine.approver, mine.scope, mine.tool_hashes, mine.signature, run_id="run-y"
    )
    assert not moved.is_authentic()
    bumped = Approval(
        mine.plan_hash,
        mine.approver,
        mine.scope,
        mine.tool_hashes,
        mine.signature,
        run_id="run-x",
        plan_version=plan.version + 1,
    )
    assert not bumped.is_authentic()
    step = plan.steps[0]
    assert ApprovalGate([plan], [mine], spec).allows(step, spec["charge"])
    assert not ApprovalGate([plan], [moved], spec).allows(step, spec["charge"])


def test_old_format_signature_is_treated_as_unsigned() -> None:
    """An approval signed before run binding (plan hash, approver, scope, tools) covers nothing."""
    spec = {"charge": ToolSpec(name="charge", effect="mutating")}
    plan = Plan.model_validate({"goal": "g", "steps": [{"id": "pay", "tool": "charge"}]})
    fields = {
        "plan_hash": plan.plan_hash(),
        "approver": "alice",
        "scope": "all",
        "tool_hashes": {"charge": spec["charge"].definition_hash()},
    }
    old = hmac.new(approval_key(), canonical_dumps(fields).encode(), hashlib.sha256).hexdigest()
    legacy = Approval(
        plan.plan_hash(),
        "alice",
        "all",
        fields["tool_hashes"],
        old,
        run_id="r1",  # type: ignore[arg-type]
    )
    assert not legacy.is_authentic()
    assert legacy.is_legacy()
    gate = ApprovalGate([plan], [legacy], spec)
    assert not gate.allows(plan.steps[0], spec["charge"])


def test_runs_recorded_before_the_chain_are_chained_and_old_approvals_cover_nothing(env: Env) -> None:
    """A database from before this change: the migration chains and seals its runs, and an
    approval in the old (unbound) signature form no longer authorizes anything."""
    run, proc = env.exec_run()
    assert proc.returncode == 3, proc.stderr
    assert env.cli("approve", run, "--no-run").returncode == 0
    with env.sql() as db:
        seq, body = db.execute(
            "SELECT seq, body FROM events WHERE run_id = ? AND kind = 'plan_approved'", (run,)
        ).fetchone()
        data = json.loads(body)
        fields = {k: data[k] for k in ("plan_hash", "approver", "scope", "tool_hashes")}
        data["signature"] = hmac.new(
            approval_key(), canonical_dumps(fields).encode(), hashlib.sha256
        ).hexdigest()
        db.execute("UPDATE events SET body = ? WHERE run_id = ? AND seq = ?", (json.dumps(data), run, seq))
        # What the previous schema looked like: no chain, no seal, migration 3 never ran.
        db.execute("ALTER TABLE events DROP COLUMN prev_hash")
        db.execute("ALTER TABLE runs DROP COLUMN chain_head")
        db.execute("ALTER TABLE runs DROP COLUMN chain_seal")
        db.execute("DELETE FROM _migrations WHERE name = 'm003_event_chain'")
    store = SqliteStore(env.db)  # migrates: the run is chained and sealed as it is now
    try:
        from forethought.runs.integrity import check_run

        report = check_run(store, run)
    finally:
        store.close()
    assert not report.modified, report.problem
    assert any(f"event {seq}" in n and "approve the run again" in n for n in report.notes)
    proc = env.cli("resume", run, "--tools", str(env.tools))
    assert proc.returncode == 3, (proc.stdout, proc.stderr)  # waits for a fresh approval
    assert f"event {seq}: approval signed before approvals were bound to runs" in proc.stderr
    assert env.charges() == 0
    assert "approve the run again" in env.cli("show", run).stdout
    assert env.cli("approve", run).returncode == 0
    assert env.charges() == 1


def test_a_later_append_does_not_reseal_a_tampered_record(tmp_path: Path) -> None:
    """An editor who trims a run and recomputes the plain chain cannot get forethought to seal it
    by making it append (e.g. `resume --mark-succeeded` records a review before resuming)."""
    from _store_support import Seq, full_run
    from forethought.events import kinds as ev
    from forethought.runs.integrity import RecordModified, check_run
    from forethought.runs.store import _chain

    db = tmp_path / "runs.db"
    events = full_run("r", 3)
    with SqliteStore(db) as store:
        store.append_many(events)
    keep = len(events) - 3
    with sqlite3.connect(db, isolation_level=None) as con:
        con.execute("DELETE FROM events WHERE run_id = 'r' AND seq >= ?", (keep,))
        head = _chain.genesis("r")
        for (body,) in con.execute("SELECT body FROM events WHERE run_id = 'r' ORDER BY seq").fetchall():
            head = _chain.link(head, body.encode())
        con.execute("UPDATE runs SET last_seq = ?, chain_head = ? WHERE run_id = 'r'", (keep - 1, head.hex()))
    with SqliteStore(db) as store:
        assert check_run(store, "r").modified
        with pytest.raises(RecordModified, match="modified outside forethought"):
            store.append(Seq("r", start=keep)(ev.RunResumed))
        assert store.last_seq("r") == keep - 1  # nothing was written
        assert check_run(store, "r").modified
