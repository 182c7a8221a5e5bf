"""Run ids as people type them: a unique prefix is enough (like git)."""

from __future__ import annotations

from forethought.errors import UserError
from forethought.runs.store.base import Store


def resolve_run_id(store: Store, run_id: str) -> str:
    """Accept a unique prefix of a run id (like git); one-line errors otherwise."""
    if store.get_run(run_id) is not None:
        return run_id
    matches = store.find_runs(run_id) if run_id else []
    if len(matches) == 1:
        return matches[0]
    where = getattr(store, "path", "the run database")
    if not matches:
        raise UserError(
            f"no run {run_id!r} in {where}; `forethought runs` lists the runs (or pass the right --db)"
        )
    raise UserError(f"run id prefix {run_id!r} is ambiguous ({', '.join(matches[:5])}); type more characters")
