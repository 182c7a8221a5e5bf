"""Structural plan diff: steps added, removed and changed field by field, matched by step id.

Used by `forethought diff`, by replanning (every plan version records its diff from the parent)
and by approval (a new version needs a fresh approval only if a side-effecting step changed).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from forethought.plan.model import Plan, Step


@dataclass(frozen=True)
class FieldChange:
    path: str
    old: Any
    new: Any

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "old": self.old, "new": self.new}


@dataclass(frozen=True)
class PlanDiff:
    plan_changes: tuple[FieldChange, ...] = ()
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: dict[str, tuple[FieldChange, ...]] = field(default_factory=dict)
    rollback_added: tuple[str, ...] = ()
    rollback_removed: tuple[str, ...] = ()
    rollback_changed: dict[str, tuple[FieldChange, ...]] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not (
            self.plan_changes
            or self.added
            or self.removed
            or self.changed
            or self.rollback_added
            or self.rollback_removed
            or self.rollback_changed
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "plan": [c.to_dict() for c in self.plan_changes],
            "added": list(self.added),
            "removed": list(self.removed),
            "changed": {k: [c.to_dict() for c in v] for k, v in self.changed.items()},
            "rollback_added": list(self.rollback_added),
            "rollback_removed": list(self.rollback_removed),
            "rollback_changed": {k: [c.to_dict() for c in v] for k, v in self.rollback_changed.items()},
        }

    def render(self) -> str:
        if self.empty:
            return "no differences\n"
        lines: list[str] = [f"~ {c.path}: {_show(c.old)} → {_show(c.new)}" for c in self.plan_changes]
        for title, added, removed, changed in (
            ("step", self.added, self.removed, self.changed),
            ("rollback step", self.rollback_added, self.rollback_removed, self.rollback_changed),
        ):
            lines += [f"+ {title} {sid}" for sid in added]
            lines += [f"- {title} {sid}" for sid in removed]
            for sid, changes in changed.items():
                lines.append(f"~ {title} {sid}")
                lines += [f"    {c.path}: {_show(c.old)} → {_show(c.new)}" for c in changes]
        return "\n".join(lines) + "\n"


_MISSING = object()


def _show(value: Any) -> str:
    if value is _MISSING:
        return "(absent)"
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 120 else text[:117] + "..."


def _leaf_changes(old: Any, new: Any, path: str, out: list[FieldChange]) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in list(old) + [k for k in new if k not in old]:
            sub = f"{path}.{key}" if path else str(key)
            _leaf_changes(old.get(key, _MISSING), new.get(key, _MISSING), sub, out)
        return
    if old != new:
        out.append(FieldChange(path, None if old is _MISSING else old, None if new is _MISSING else new))


def diff_steps(old: Step, new: Step) -> tuple[FieldChange, ...]:
    out: list[FieldChange] = []
    _leaf_changes(
        old.model_dump(mode="json", by_alias=True), new.model_dump(mode="json", by_alias=True), "", out
    )
    return tuple(out)


def _diff_group(
    old: tuple[Step, ...], new: tuple[Step, ...]
) -> tuple[tuple[str, ...], tuple[str, ...], dict[str, tuple[FieldChange, ...]]]:
    a = {s.id: s for s in old}
    b = {s.id: s for s in new}
    added = tuple(s.id for s in new if s.id not in a)
    removed = tuple(s.id for s in old if s.id not in b)
    changed = {}
    for s in new:
        if s.id in a and a[s.id] != s:
            changes = diff_steps(a[s.id], s)
            if changes:
                changed[s.id] = changes
    return added, removed, changed


def diff_plans(a: Plan, b: Plan) -> PlanDiff:
    plan_changes: list[FieldChange] = []
    for name in ("goal", "metadata"):
        _leaf_changes(getattr(a, name), getattr(b, name), name, plan_changes)
    added, removed, changed = _diff_group(a.steps, b.steps)
    r_added, r_removed, r_changed = _diff_group(a.rollback, b.rollback)
    return PlanDiff(tuple(plan_changes), added, removed, changed, r_added, r_removed, r_changed)
