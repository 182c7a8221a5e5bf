"""Durable runs: the ``Store`` protocol, the SQLite backend and the recording event sink."""

from forethought.runs.store.base import (
    Lease,
    LeaseHeld,
    LeaseLost,
    PlanVersionRow,
    RunRow,
    SequenceError,
    StepRow,
    Store,
)
from forethought.runs.store.recorder import Recorder
from forethought.runs.store.sqlite import SqliteStore, default_db_path, new_owner_id, open_store

__all__ = [
    "Lease",
    "LeaseHeld",
    "LeaseLost",
    "PlanVersionRow",
    "Recorder",
    "RunRow",
    "SequenceError",
    "SqliteStore",
    "StepRow",
    "Store",
    "default_db_path",
    "new_owner_id",
    "open_store",
]
