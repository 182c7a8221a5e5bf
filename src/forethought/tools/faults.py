"""Fault injection: wrap named tools so they fail, time out, answer malformed or answer slowly.

A ``FaultSpec`` names a tool, a kind of fault and when it fires: on the k-th call of that tool
(``on_call``, 1-based, counted per wrapped registry), with probability ``probability`` per call
(seeded), or on every call when neither is given. ``inject_faults`` returns a *new* registry in
which the named tools are wrapped; the original registry and its tools are untouched, and all
state (call counters, what fired) lives in the returned ``FaultLog`` — no global state, so two
evaluations in one process never see each other's counters.

Whether a probability fault fires on call n depends only on (seed, tool, n, fault index), not on
the order in which concurrent steps happen to reach the tool, so a seeded suite fires the same
faults on the same call numbers every time.

Kinds:

- ``fail``: the call raises ``ToolError`` (``retryable`` as given), like a tool that errors.
- ``timeout``: the call raises ``ToolTimeout``, the executor's failure class ``timeout``.
- ``malformed``: the real tool runs (its side effects happen) and its output is replaced by
  ``output`` (default: a string no consumer expects) — a garbled answer after the fact.
- ``slow``: the call waits ``delay_s`` seconds, then runs the real tool; a step or tool timeout
  shorter than the delay trips as it would for a slow service.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from forethought.errors import ToolError, ToolTimeout, UserError
from forethought.tools.base import Tool, ToolContext, ToolRegistry, ToolSpec

__all__ = ["FaultKind", "FaultLog", "FaultSpec", "FaultyTool", "FiredFault", "inject_faults", "parse_fault"]

FaultKind = Literal["fail", "timeout", "malformed", "slow"]
FAULT_KINDS: tuple[str, ...] = ("fail", "timeout", "malformed", "slow")
MALFORMED_OUTPUT = "<<injected fault: malformed output>>"


class FaultSpec(BaseModel):
    """One fault: which tool, what goes wrong, and on which calls."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tool: str = Field(min_length=1, description="Name of the tool to break.")
    kind: FaultKind
    on_call: int | None = Field(default=None, ge=1, description="Fire on this call of the tool (1-based).")
    probability: float | None = Field(
        default=None, gt=0, le=1, description="Fire on each call with this chance."
    )
    seed: int = Field(default=0, description="Seed of the probability draws.")
    delay_s: float = Field(default=1.0, ge=0, le=3600, description="How long a `slow` call waits.")
    output: Any = Field(default=MALFORMED_OUTPUT, description="What a `malformed` call returns.")
    retryable: bool = Field(default=True, description="Whether a `fail` error may be retried.")

    @model_validator(mode="after")
    def _one_trigger(self) -> FaultSpec:
        if self.on_call is not None and self.probability is not None:
            raise ValueError("give on_call or probability, not both")
        return self

    def fires(self, call: int, index: int = 0) -> bool:
        """Whether this fault fires on ``call`` (1-based) of its tool; ``index`` tells apart
        several probability faults on one tool."""
        if self.on_call is not None:
            return call == self.on_call
        if self.probability is None:
            return True
        # One draw per (seed, tool, call, fault): independent of the order concurrent calls arrive.
        # sha256 as a uniform draw in [0, 1): stable across Python versions, unlike hash().
        key = f"{self.seed}:{self.tool}:{call}:{index}".encode()
        draw = int.from_bytes(hashlib.sha256(key).digest()[:8], "big") / 2**64
        return draw < self.probability

    def describe(self) -> str:
        when = (
            f"on call {self.on_call}"
            if self.on_call is not None
            else f"with p={self.probability:g} (seed {self.seed})"
            if self.probability is not None
            else "on every call"
        )
        return f"{self.tool}: {self.kind} {when}"


def parse_fault(text: str) -> FaultSpec:
    """``tool=NAME,kind=fail,on_call=2`` (the command-line form) → ``FaultSpec``.

    Raises ``UserError`` with one line naming the bad part and the expected form."""
    form = "tool=NAME,kind=fail|timeout|malformed|slow[,on_call=K|probability=P][,seed=S][,delay_s=D]"
    fields: dict[str, str] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise UserError(f"--fault {text!r}: {part!r} is not key=value; expected {form}")
        if key.strip() in fields:
            raise UserError(f"--fault {text!r}: {key.strip()} is given twice")
        fields[key.strip()] = value.strip()
    try:
        return FaultSpec.model_validate(fields)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "fault"
        raise UserError(f"--fault {text!r}: {where}: {err['msg']}; expected {form}") from None


@dataclass(frozen=True)
class FiredFault:
    tool: str
    call: int
    kind: FaultKind

    def to_json(self) -> dict[str, Any]:
        return {"tool": self.tool, "call": self.call, "kind": self.kind}


@dataclass
class FaultLog:
    """Per-registry state: how often each tool was called and which faults fired, in order."""

    calls: dict[str, int] = field(default_factory=dict)
    fired: list[FiredFault] = field(default_factory=list)
    # Sync tools may be invoked from worker threads; the counter must not skip or repeat a number.
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def next_call(self, tool: str) -> int:
        with self._lock:
            n = self.calls.get(tool, 0) + 1
            self.calls[tool] = n
            return n

    def record(self, fired: FiredFault) -> None:
        with self._lock:
            self.fired.append(fired)


class FaultyTool:
    """A tool whose calls pass through its faults first; everything else is the wrapped tool's."""

    def __init__(self, tool: Tool, faults: Sequence[FaultSpec], log: FaultLog) -> None:
        self._tool = tool
        self._faults = tuple(faults)
        self._log = log

    @property
    def spec(self) -> ToolSpec:
        return self._tool.spec

    def __getattr__(self, name: str) -> Any:
        # Attributes the runtime looks up optionally (runs_in_thread, pin, ...) are the tool's.
        if name.startswith("_"):  # never recurse while half-built (copy, pickle)
            raise AttributeError(name)
        return getattr(self._tool, name)

    def __repr__(self) -> str:
        return f"<faulty {self._tool!r}>"

    async def invoke(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        name = self.spec.name
        call = self._log.next_call(name)
        fault = next((f for i, f in enumerate(self._faults) if f.fires(call, i)), None)
        if fault is None:
            return await self._tool.invoke(args, ctx)
        self._log.record(FiredFault(name, call, fault.kind))
        if fault.kind == "fail":
            raise ToolError(f"injected fault: {name} failed on call {call}", retryable=fault.retryable)
        if fault.kind == "timeout":
            raise ToolTimeout(f"injected fault: {name} timed out on call {call}")
        if fault.kind == "slow":
            await asyncio.sleep(fault.delay_s)
            return await self._tool.invoke(args, ctx)
        await self._tool.invoke(args, ctx)  # malformed: the call happens, its answer is garbled
        return fault.output


def inject_faults(tools: Mapping[str, Tool], faults: Iterable[FaultSpec]) -> tuple[ToolRegistry, FaultLog]:
    """A new registry with the named tools wrapped by their faults, and the log they write to.

    A fault naming a tool that is not in ``tools`` is a ``UserError`` (a typo would otherwise
    inject nothing and the evaluation would report a fault-free run as fault-tolerant)."""
    by_tool: dict[str, list[FaultSpec]] = {}
    for fault in faults:
        if fault.tool not in tools:
            known = ", ".join(sorted(tools)) or "none"
            raise UserError(f"fault for unknown tool {fault.tool!r}; the tools are: {known}")
        by_tool.setdefault(fault.tool, []).append(fault)
    log = FaultLog()
    wrapped: list[Tool] = [
        FaultyTool(tool, by_tool[name], log) if name in by_tool else tool for name, tool in tools.items()
    ]
    return ToolRegistry(wrapped), log
