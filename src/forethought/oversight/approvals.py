"""Approval: what a human approved, bound to the plan hash, and the gate the executor consults.

Rules (DESIGN.md, "Side effects and approval"):

- Which steps need approval is decided by the one policy, ``oversight.policy.needs_approval``:
  nothing ``mutating``/``destructive``, no unknown tool, no agent step (which may call such tools)
  and no step with a compensation runs before a plan version containing it was approved.
  Read-only steps may run without approval.
- An approval of a step covers every call the step may make (``policy.tools_called``): the step
  and its retries, its compensation, and for an agent step the tools its ``args.tools`` lists —
  each tool as defined when it was approved. Before a compensation runs, the executor asks the
  gate again about the step that carries it; a rollback step is asked about like any step.
- An approval names the plan hash, who approved, the scope (``read_only`` or ``all``) and the
  definition hashes of the side-effecting tools at that moment. A later plan version is covered
  only if every side-effecting step in it is byte-identical (canonical JSON) to one in an approved
  version, and its tools' definitions have not changed since.
- Approvals are signed with a local key (HMAC-SHA256) so that editing the run database — the plan
  row or the approval row — cannot manufacture an approval: an unsigned or mis-signed approval, or
  one whose hash no longer matches the plan it points to, covers nothing. The signature binds the
  run id and plan version too, so an approval copied into another run covers nothing there;
  approvals signed in the older, unbound form are recognized (``is_legacy``) but cover nothing.
"""

from __future__ import annotations

import contextlib
import errno
import getpass
import hashlib
import hmac
import os
import secrets
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import platformdirs

from forethought.errors import UserError
from forethought.events import kinds as E
from forethought.events.kinds import Event
from forethought.oversight.policy import needs_approval, tools_called
from forethought.plan.model import Plan, Step, canonical_dumps
from forethought.tools.base import ToolSpec

Scope = Literal["read_only", "all"]
# The non-interactive approval policy of a run: nothing, read-only work (--yes), all (--yes-all).
ApproveMode = Literal["none", "read_only", "all"]

_KEY_ENV = "FORETHOUGHT_APPROVAL_KEY_FILE"


# ------------------------------------------------------------------------------- classification


def step_digest(step: Step) -> str:
    """Content hash of one step (what a side-effect approval really covers)."""
    # A step without a phase digests as it did before `phase` existed: recorded approvals hold.
    data = step.model_dump(mode="json", by_alias=True, exclude={"phase"} if step.phase is None else None)
    return hashlib.sha256(canonical_dumps(data).encode()).hexdigest()


def _step_spec(step: Step, specs: Mapping[str, ToolSpec] | None) -> ToolSpec | None:
    return (specs or {}).get(step.tool) if step.tool is not None else None


def side_effect_steps(plan: Plan, specs: Mapping[str, ToolSpec] | None) -> list[Step]:
    """The steps of ``plan`` (rollback steps included) an approval has to cover."""
    return [s for s in plan.iter_all_steps() if needs_approval(s, _step_spec(s, specs))]


def _changed_tool(step: Step, specs: Mapping[str, ToolSpec], approval: Approval) -> str | None:
    """The first tool ``step`` may call (its own, its compensation's, an agent step's listed ones)
    whose definition differs from what ``approval`` pinned, if any."""
    for name in tools_called(step):
        current = specs.get(name)
        pinned = approval.tool_hashes.get(name)
        if current is not None and pinned is not None and current.definition_hash() != pinned:
            return name
    return None


def side_effect_tool_hashes(plan: Plan, specs: Mapping[str, ToolSpec]) -> dict[str, str]:
    """Definition hashes of every known tool a side-effecting step may call; pinned at approval."""
    names = {name for s in side_effect_steps(plan, specs) for name in tools_called(s)}
    return {n: specs[n].definition_hash() for n in sorted(names) if n in specs}


# ------------------------------------------------------------------------------- signatures


def _key_path() -> Path:
    override = os.environ.get(_KEY_ENV)
    if override:
        return Path(override)
    return Path(platformdirs.user_config_dir("forethought")) / "approval.key"


MIN_KEY_BYTES = 32
_KEY_FIX = (
    "delete it and forethought will create a new one — approvals signed with it will need to be given again"
)


def approval_key() -> bytes:
    """The local signing key: at least 32 random bytes, private to the user, created on first use.

    A key anyone else can read lets them forge approvals, and a short one can be guessed, so both
    are refused rather than used; so is an empty file (what a disk-full failure used to leave).
    """
    path = _key_path()
    try:
        return _load_key(path)
    except FileNotFoundError:
        pass
    _create_key(path)
    return _load_key(path)


def _load_key(path: Path) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise  # the caller creates the key
    except OSError as exc:
        raise UserError(
            f"approval key {path} cannot be read ({exc.strerror}); fix its permissions "
            f"(chmod 600 {path}) or {_KEY_FIX}"
        ) from None
    try:
        st = os.fstat(fd)
        raw = os.read(fd, 4096)
    except OSError as exc:
        raise UserError(f"approval key {path} cannot be read ({exc.strerror}); {_KEY_FIX}") from None
    finally:
        os.close(fd)
    mode = stat.S_IMODE(st.st_mode)
    if mode & 0o077:
        raise UserError(
            f"approval key {path} is readable or writable by group/others "
            f"(mode {mode:o}), so they could forge approvals; run `chmod 600 {path}` "
            f"if nobody else used it, else {_KEY_FIX}"
        )
    text = raw.strip()
    if not text:
        raise UserError(f"approval key {path} is empty ({st.st_size} bytes); {_KEY_FIX}")
    try:
        key = bytes.fromhex(text.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        raise UserError(f"approval key {path} is not a hex-encoded key; {_KEY_FIX}") from None
    if len(key) < MIN_KEY_BYTES:
        raise UserError(
            f"approval key {path} is too short ({len(key)} bytes, at least "
            f"{MIN_KEY_BYTES} needed); {_KEY_FIX}"
        )
    return key


def _create_key(path: Path) -> None:
    """Write a new key atomically: a private temp file in the same directory, fsync, then link.

    The key appears complete or not at all. ``link`` (not ``rename``) so that two processes
    creating a key at once cannot replace each other's: the loser uses the winner's key.
    """
    directory = path.parent
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(
            f"cannot create the directory for approval key {path} ({exc.strerror}); "
            "check its permissions or set FORETHOUGHT_APPROVAL_KEY_FILE"
        ) from None
    tmp = directory / f".{path.name}.{secrets.token_hex(8)}.tmp"
    data = secrets.token_bytes(MIN_KEY_BYTES).hex().encode("ascii")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process created the key first: use theirs
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
                raise
            # A filesystem without hard links: rename (a key made in the same instant may be
            # replaced, costing that process its fresh approvals — never a weak key).
            if not path.exists():
                tmp.replace(path)
    except OSError as exc:
        raise UserError(
            f"cannot create approval key {path} ({exc.strerror or exc}); free space or "
            "fix the directory's permissions, then try again"
        ) from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    with contextlib.suppress(OSError):  # durability of the new name; some filesystems refuse it
        _fsync_dir(directory)


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


_SIGNATURE_VERSION = 2


def sign(
    plan_hash: str,
    approver: str,
    scope: Scope,
    tool_hashes: Mapping[str, str],
    steps: Sequence[str] = (),
    *,
    run_id: str,
    plan_version: int,
) -> str:
    """HMAC of everything an approval decides, bound to one run and one plan version.

    Binding the run means a ``plan_approved`` event copied into another run with the same plan
    does not verify there; the version (already inside the plan hash) is signed explicitly so
    the binding does not depend on how the hash is computed.
    """
    fields: dict[str, object] = {
        "v": _SIGNATURE_VERSION,
        "run_id": run_id,
        "plan_version": plan_version,
        "plan_hash": plan_hash,
        "approver": approver,
        "scope": scope,
        "tool_hashes": dict(tool_hashes),
        "steps": sorted(steps),
    }
    return _mac(canonical_dumps(fields))


def _legacy_signature(
    plan_hash: str, approver: str, scope: Scope, tool_hashes: Mapping[str, str], steps: Sequence[str]
) -> str:
    """The signature approvals carried before they were bound to a run: recognized, never trusted."""
    fields: dict[str, object] = {
        "plan_hash": plan_hash,
        "approver": approver,
        "scope": scope,
        "tool_hashes": dict(tool_hashes),
    }
    if steps:
        fields["steps"] = sorted(steps)
    return _mac(canonical_dumps(fields))


def _mac(message: str) -> str:
    return hmac.new(approval_key(), message.encode(), hashlib.sha256).hexdigest()


def record_key() -> bytes:
    """The key that seals a run's event chain (``runs.integrity``), derived from the approval key.

    A separate derived key keeps a chain seal from ever being mistaken for an approval signature.
    """
    return hmac.new(approval_key(), b"forethought run record seal v1", hashlib.sha256).digest()


def default_approver() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


# ------------------------------------------------------------------------------- records and gate


@dataclass(frozen=True)
class Approval:
    """One recorded approval decision (mirrors the `plan_approved` event)."""

    plan_hash: str
    approver: str
    scope: Scope
    tool_hashes: Mapping[str, str] = field(default_factory=dict)
    signature: str = ""
    steps: tuple[str, ...] = ()  # non-empty: confirms these steps now (execution-time approval)
    run_id: str = ""  # the run it was given in: it authorizes nothing in any other run
    plan_version: int = 1  # the version of the plan with ``plan_hash``

    @classmethod
    def grant(
        cls,
        plan: Plan,
        specs: Mapping[str, ToolSpec],
        approver: str | None = None,
        scope: Scope = "all",
        steps: Sequence[str] = (),
        *,
        run_id: str = "",
    ) -> Approval:
        who = approver or default_approver()
        pinned = side_effect_tool_hashes(plan, specs)
        h = plan.plan_hash()
        chosen = tuple(sorted(steps))
        signature = sign(h, who, scope, pinned, chosen, run_id=run_id, plan_version=plan.version)
        return cls(h, who, scope, pinned, signature, chosen, run_id, plan.version)

    def event_fields(self) -> dict[str, Any]:
        """The ``plan_approved`` event's fields for this approval (one mapping for every writer)."""
        return {
            "plan_hash": self.plan_hash,
            "approver": self.approver,
            "scope": self.scope,
            "tool_hashes": dict(self.tool_hashes),
            "signature": self.signature,
            "steps": list(self.steps),
        }

    def is_authentic(self) -> bool:
        """Signed with our key for exactly this run, plan version and hash (and the rest)."""
        if not self.signature:
            return False
        expected = sign(
            self.plan_hash,
            self.approver,
            self.scope,
            self.tool_hashes,
            self.steps,
            run_id=self.run_id,
            plan_version=self.plan_version,
        )
        return hmac.compare_digest(expected, self.signature)

    def is_legacy(self) -> bool:
        """Signed in the old form (not bound to a run): genuine once, but it covers nothing now."""
        if not self.signature:
            return False
        expected = _legacy_signature(self.plan_hash, self.approver, self.scope, self.tool_hashes, self.steps)
        return hmac.compare_digest(expected, self.signature)


@dataclass
class ApprovalGate:
    """Decides, per step and at the moment it would start, whether it may run.

    ``plans`` are the plan versions of the run (any order); ``approvals`` the recorded decisions.
    Only approvals that are authentic and whose hash matches one of ``plans`` count.
    """

    plans: list[Plan]
    approvals: list[Approval]
    specs: Mapping[str, ToolSpec]
    approve_all: bool = False  # --yes-all given for this run: everything is approved by the caller
    reason_denied: dict[str, str] = field(default_factory=dict)
    # Policy: a destructive step also needs a step confirmation given after the plan approval,
    # i.e. at execution time (`forethought approve RUN --step ID`); blanket approvals never count.
    reconfirm_destructive: bool = False

    def __post_init__(self) -> None:
        self.plans = list(self.plans)
        self.approvals = list(self.approvals)
        self._index()

    def _index(self) -> None:
        by_hash = {p.plan_hash(): p for p in self.plans}
        # Every approval covering a step, oldest first: after a tool changed, a fresh approval
        # (pinning the new definition) must count even though an older one still covers the step.
        self._covered: dict[str, list[Approval]] = {}
        self._confirmed: dict[str, list[Approval]] = {}
        for a in self.approvals:
            plan = by_hash.get(a.plan_hash)
            if plan is None or a.scope != "all" or not a.is_authentic():
                continue
            for s in side_effect_steps(plan, self.specs):
                if a.steps and s.id not in a.steps:
                    continue
                self._covered.setdefault(step_digest(s), []).append(a)
                if a.steps:
                    self._confirmed.setdefault(step_digest(s), []).append(a)

    def add(self, plan: Plan | None = None, approval: Approval | None = None) -> None:
        """Record a new plan version and/or approval (e.g. after a replan) and re-index."""
        if plan is not None:
            self.plans.append(plan)
        if approval is not None:
            self.approvals.append(approval)
        self._index()

    def allows(self, step: Step, spec: ToolSpec | None) -> bool:
        specs = self.specs
        if not needs_approval(step, _step_spec(step, specs)):
            return True
        if self.approve_all:
            return True
        approvals = self._covered.get(step_digest(step))
        if not approvals:
            self.reason_denied[step.id] = "no approval covers this side-effecting step"
            return False
        changed = [_changed_tool(step, specs, a) for a in approvals]
        if None not in changed:
            # Every approval pinned another definition of a tool this step calls (its command,
            # script, code or MCP definition changed since): the changed tool does not run.
            self.reason_denied[step.id] = (
                f"tool {changed[-1]!r} changed since it was approved; re-approve the plan"
            )
            return False
        if (
            self.reconfirm_destructive
            and self._destructive(step)
            and not any(
                _changed_tool(step, specs, a) is None for a in self._confirmed.get(step_digest(step), [])
            )
        ):
            self.reason_denied[step.id] = (
                f"destructive step: confirm it now with `forethought approve RUN --step {step.id}`"
            )
            return False
        return True

    def _destructive(self, step: Step) -> bool:
        """The step makes a destructive call: its own tool, or its compensation's (the undo)."""
        names = [step.tool, step.compensate.tool if step.compensate else None]
        specs = [self.specs.get(n) for n in names if n]
        return any(spec is not None and spec.effect == "destructive" for spec in specs)

    def pending(self, plan: Plan) -> list[str]:
        """Ids of steps in ``plan`` that would be refused now."""
        return [s.id for s in plan.iter_all_steps() if not self.allows(s, self.specs.get(s.tool or ""))]


def needs_new_approval(plan: Plan, gate: ApprovalGate) -> list[str]:
    """Side-effecting steps of ``plan`` not covered by the run's approvals (empty = covered)."""
    return gate.pending(plan)


def recorded_plans_and_approvals(
    events: Sequence[Event], run_id: str | None = None
) -> tuple[list[Plan], list[Approval]]:
    """Every plan version and approval in a stored run (authenticity is checked by the gate).

    Each approval is bound to ``run_id`` (default: the run named by the events, which
    ``runs.integrity.verify_run`` checks against the store) and to the version of its plan.
    """
    plans: list[Plan] = []
    approved: list[E.PlanApproved] = []
    for e in events:
        match e:
            case E.PlanProposed() | E.PlanRevised():
                plans.append(Plan.model_validate(e.plan))
            case E.PlanApproved():
                approved.append(e)
            case _:
                pass
    versions = {p.plan_hash(): p.version for p in plans}
    approvals = [recorded_approval(e, versions, run_id) for e in approved]
    return plans, approvals


def recorded_approval(e: E.PlanApproved, versions: Mapping[str, int], run_id: str | None = None) -> Approval:
    """The ``Approval`` a ``plan_approved`` event records, as it must verify in ``run_id``."""
    return Approval(
        e.plan_hash,
        e.approver,
        e.scope,
        dict(e.tool_hashes),
        str(e.signature or ""),
        tuple(e.steps),
        e.run_id if run_id is None else run_id,
        versions.get(e.plan_hash, e.plan_version),
    )
