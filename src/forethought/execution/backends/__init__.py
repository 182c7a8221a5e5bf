"""Where a step's tool call runs: in-process asyncio (default) or a pool of worker processes.

A backend is one small async method, so a Ray (or any remote) backend is a new class of a dozen
lines: ``call(tool, args, ctx) -> output`` raising ``ToolError`` on failure, plus ``aclose()``.
A plan step selects a backend by name with ``executor: process``; the default is ``local``.

The stock backends other than ``local`` are imported only for a plan that names one
(``prepare_backend``, called as the executor adds the step): the process pool brings in
``multiprocessing``, which a local run never uses.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from forethought.execution.backends.base import Backend, LocalBackend, WorkerCrashed

if TYPE_CHECKING:
    from forethought.execution.backends.process import ProcessBackend

# A stock backend's name → the module that implements it.
_MODULES = {
    "process": "forethought.execution.backends.process",
    "ray": "forethought.execution.backends.ray",
}


def prepare_backend(name: str) -> None:
    """Import the stock backend ``name`` now (before the run), so its first call imports nothing
    mid-run. Any other name (``local``, a caller's backend, an executor pool) needs nothing."""
    module = _MODULES.get(name)
    if module is not None:
        importlib.import_module(module)


def parse_backend(value: str) -> tuple[str, str | None]:
    """``local`` | ``ray`` | ``ray:ADDRESS`` → (name, address): the default backend a setting
    names, read without loading the Ray backend. (The ``process`` pool is chosen per step with
    ``executor: process``.)"""
    name, _, address = value.partition(":")
    if name not in ("local", "ray") or (address and name != "ray"):
        raise ValueError(f"unknown backend {value!r}: use local, ray or ray:ADDRESS")
    return name, address or None


def __getattr__(name: str) -> Any:
    # ``ProcessBackend`` is still importable from here, loaded when first asked for.
    if name == "ProcessBackend":
        return importlib.import_module(_MODULES["process"]).ProcessBackend
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Backend", "LocalBackend", "ProcessBackend", "WorkerCrashed", "parse_backend", "prepare_backend"]
