"""Scoring: a task's outcome read from its recorded events, checked against its expectations;
the suite's metrics, checked against the tolerance bands and a baseline.

Everything about a run is read from the events the store returned (as ``show`` and ``stats``
see them), not from the executor's memory, so a score means what the record says:

- ``steps``: step attempts started (``step_started``), the quantity ``Budgets.max_steps`` limits.
- ``tool_calls``: the tools called, in record order — each step attempt's tool, each
  ``tool_called`` inside an agent step, each compensation (``compensation_started``).
- ``escalated`` / ``replanned``: as ``runs.stats`` defines them (approval requested or paused;
  at least one ``replan_requested``).
- ``rolled_back``: a compensation ran, or a step of the plan's ``rollback`` list started.
- ``looped``: a loop guard fired — a ``budget_exceeded`` for ``max_steps`` or ``max_replans`` — or
  one step called the same tool with the same arguments three times or more (an agent going
  round in circles).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forethought.evaluation.suite import (
    Expect,
    FileCheck,
    OutputCheck,
    Tolerances,
    ToolExpectation,
    ValueCheck,
)
from forethought.events.kinds import Event
from forethought.events.state import fold
from forethought.plan.expressions import ExprError, safe_eval
from forethought.runs.stats import nearest_rank, run_figures

LOOP_REPEATS = 3  # the same (tool, args) this often within one step counts as a loop


@dataclass(frozen=True)
class RunFacts:
    """What a task's run did, from its events."""

    run_id: str
    status: str
    reason: str
    steps: int
    tool_calls: tuple[str, ...]
    cost_usd: float
    tokens: int
    escalated: bool
    replanned: bool
    rolled_back: bool
    looped: bool
    outputs: Mapping[str, Any]

    def flags(self) -> dict[str, bool]:
        return {
            "escalated": self.escalated,
            "replanned": self.replanned,
            "rolled_back": self.rolled_back,
            "looped": self.looped,
        }


def _plan_tools(plan: Mapping[str, Any] | None) -> tuple[dict[str, str | None], set[str]]:
    """Step id → tool (None for agent steps) over steps and rollback steps; the rollback ids."""
    tools: dict[str, str | None] = {}
    rollback: set[str] = set()
    for key in ("steps", "rollback"):
        for s in (plan or {}).get(key, ()) or ():
            if isinstance(s, dict) and "id" in s:
                tools[str(s["id"])] = str(s["tool"]) if s.get("tool") else None
                if key == "rollback":
                    rollback.add(str(s["id"]))
    return tools, rollback


def run_facts(events: Sequence[Event]) -> RunFacts:
    state = fold(events)
    figures = run_figures(events)
    tools: dict[str, str | None] = {}
    rollback_ids: set[str] = set()
    calls: list[str] = []
    steps = 0
    rolled_back = looped = False
    repeats: Counter[tuple[str, str, str]] = Counter()
    for event in events:
        e: Any = event
        kind = e.kind
        if kind in ("plan_proposed", "plan_revised"):
            tools, rollback_ids = _plan_tools(e.plan)
        elif kind == "steps_added":
            tools.update(_plan_tools({"steps": e.steps})[0])
        elif kind == "step_started":
            steps += 1
            tool = tools.get(e.step_id)
            if tool is not None:
                calls.append(tool)
            if e.step_id in rollback_ids:
                rolled_back = True
        elif kind == "tool_called":
            calls.append(e.tool)
            key = (e.step_id, e.tool, json.dumps(e.args, sort_keys=True, default=str))
            repeats[key] += 1
            if repeats[key] >= LOOP_REPEATS:
                looped = True
        elif kind == "compensation_started":
            calls.append(e.tool)
            rolled_back = True
        elif kind == "budget_exceeded" and e.budget in ("max_steps", "max_replans"):
            looped = True
    return RunFacts(
        run_id=state.run_id,
        status=state.status,
        reason=state.reason or "",
        steps=steps,
        tool_calls=tuple(calls),
        cost_usd=state.cost_usd,
        tokens=state.input_tokens + state.output_tokens,
        escalated=figures.escalated,
        replanned=figures.replans > 0,
        rolled_back=rolled_back,
        looped=looped,
        outputs={sid: st.output for sid, st in state.steps.items() if st.status == "succeeded"},
    )


# ------------------------------------------------------------------------------ expectations


@dataclass(frozen=True)
class CheckResult:
    name: str  # e.g. "status", "tools", "output s2", "file out.txt", "max_steps"
    passed: bool
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "passed": self.passed, "detail": self.detail}


def _contains(value: Any, part: Any) -> bool:
    if isinstance(value, str):
        return isinstance(part, str) and part in value
    if isinstance(value, Mapping):
        if isinstance(part, Mapping):
            return all(k in value and value[k] == v for k, v in part.items())
        return part in value
    if isinstance(value, (list, tuple)):
        return part in value
    return False


def _short(value: Any, limit: int = 120) -> str:
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_value(check: ValueCheck, value: Any, names: Mapping[str, Any]) -> str | None:
    """None if every criterion of ``check`` holds for ``value``, else why not (one line)."""
    if check.has_equals and value != check.equals:
        return f"expected {_short(check.equals)}, got {_short(value)}"
    if check.has_contains and not _contains(value, check.contains):
        return f"{_short(value)} does not contain {_short(check.contains)}"
    if check.json_schema is not None:
        import jsonschema

        try:
            jsonschema.validate(value, check.json_schema)
        except jsonschema.ValidationError as exc:
            return f"schema: {exc.message}"
        except jsonschema.SchemaError as exc:
            return f"the schema itself is invalid: {exc.message}"
    if check.expr is not None:
        try:
            ok = safe_eval(check.expr, {"value": value, **names})
        except (ExprError, ArithmeticError, TypeError, ValueError, KeyError, IndexError) as exc:
            return f"expr {check.expr!r} could not be evaluated: {exc}"
        if ok is not True:
            return f"expr {check.expr!r} is {_short(ok)}, not true"
    return None


def check_tools(expected: ToolExpectation, actual: Sequence[str]) -> str | None:
    want = list(expected.calls)
    got = list(actual)
    if expected.match == "exact":
        return None if got == want else f"expected {want}, got {got}"
    if expected.match == "unordered":
        return (
            None
            if Counter(got) == Counter(want)
            else f"expected (any order) {sorted(want)}, got {sorted(got)}"
        )
    missing = Counter(want) - Counter(got)
    return None if not missing else f"missing calls {sorted(missing.elements())} in {got}"


def _output_check(check: OutputCheck, facts: RunFacts) -> CheckResult:
    name = f"output {check.step}"
    if check.step not in facts.outputs:
        return CheckResult(name, False, f"step {check.step!r} has no output (it did not succeed)")
    value = facts.outputs[check.step]
    why = check_value(check, value, {"output": value})
    return CheckResult(name, why is None, why or "")


def _file_check(check: FileCheck, workspace: Path | None) -> CheckResult:
    name = f"file {check.path}"
    if workspace is None:
        return CheckResult(name, False, "the task has no workspace")
    path = workspace / check.path
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return CheckResult(name, False, "no such file after the run")
    except (OSError, UnicodeDecodeError) as exc:
        return CheckResult(name, False, f"cannot read it: {exc}")
    value: Any = text
    if check.json_:
        try:
            value = json.loads(text)
        except ValueError as exc:
            return CheckResult(name, False, f"not JSON: {exc}")
    why = check_value(check, value, {"text": text})
    return CheckResult(name, why is None, why or "")


def check_expectations(
    expect: Expect, facts: RunFacts, wall_s: float, workspace: Path | None
) -> list[CheckResult]:
    results: list[CheckResult] = []
    if expect.status is not None:
        ok = facts.status == expect.status
        detail = (
            ""
            if ok
            else f"expected {expect.status}, got {facts.status}"
            + (f" ({facts.reason})" if facts.reason else "")
        )
        results.append(CheckResult("status", ok, detail))
    if expect.tools is not None:
        why = check_tools(expect.tools, facts.tool_calls)
        results.append(CheckResult(f"tools ({expect.tools.match})", why is None, why or ""))
    results.extend(_output_check(c, facts) for c in expect.outputs)
    results.extend(_file_check(c, workspace) for c in expect.files)
    limits = (
        ("max_steps", expect.max_steps, facts.steps),
        ("max_cost_usd", expect.max_cost_usd, facts.cost_usd),
        ("max_wall_s", expect.max_wall_s, wall_s),
    )
    for name, limit, used in limits:
        if limit is not None:
            ok = used <= limit
            results.append(CheckResult(name, ok, "" if ok else f"{used:g} > {limit:g}"))
    for flag, actual in facts.flags().items():
        wanted = getattr(expect, flag)
        if wanted is not None:
            ok = actual == wanted
            results.append(
                CheckResult(flag, ok, "" if ok else f"expected {wanted}, the run's events say {actual}")
            )
    return results


# ------------------------------------------------------------------------------ suite metrics


@dataclass(frozen=True)
class Metrics:
    tasks: int
    passed: int
    success_rate: float
    mean_steps: float
    total_cost_usd: float
    mean_wall_s: float
    p95_wall_s: float
    escalation_rate: float
    replan_rate: float
    rollback_rate: float
    loop_rate: float

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def suite_metrics(results: Sequence[Any]) -> Metrics:
    """``results``: ``TaskResult``s (anything with ``passed``, ``facts``, ``wall_s``)."""
    n = len(results)
    facts = [r.facts for r in results if r.facts is not None]
    walls = [r.wall_s for r in results]

    def rate(flag: str) -> float:
        return sum(getattr(f, flag) for f in facts) / n if n else 0.0

    return Metrics(
        tasks=n,
        passed=sum(r.passed for r in results),
        success_rate=sum(r.passed for r in results) / n if n else 0.0,
        mean_steps=sum(f.steps for f in facts) / n if n else 0.0,
        total_cost_usd=sum(f.cost_usd for f in facts),
        mean_wall_s=sum(walls) / n if n else 0.0,
        p95_wall_s=nearest_rank(walls, 95) or 0.0,
        escalation_rate=rate("escalated"),
        replan_rate=rate("replanned"),
        rollback_rate=rate("rolled_back"),
        loop_rate=rate("looped"),
    )


@dataclass(frozen=True)
class BandResult:
    band: str
    limit: float
    value: float
    passed: bool

    def to_json(self) -> dict[str, Any]:
        return {"band": self.band, "limit": self.limit, "value": self.value, "passed": self.passed}

    def __str__(self) -> str:
        mark = "ok" if self.passed else "OUT OF BAND"
        return f"{self.band}: {self.value:g} (limit {self.limit:g}) {mark}"


@dataclass(frozen=True)
class BandReport:
    bands: list[BandResult] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(b.passed for b in self.bands)


def check_bands(tol: Tolerances, metrics: Metrics, baseline: Mapping[str, Any] | None = None) -> BandReport:
    """Each tolerance given, checked; baseline bands only when ``baseline`` (a previous report's
    ``metrics``) is given. A suite that sets no band at all gets ``min_success_rate: 1.0``: every
    task must meet its expectations (an evaluation that cannot fail would gate nothing)."""
    if all(v is None for v in tol.model_dump().values()):
        tol = Tolerances(min_success_rate=1.0)
    bands: list[BandResult] = []

    def at_least(name: str, limit: float | None, value: float) -> None:
        if limit is not None:
            bands.append(BandResult(name, limit, value, value >= limit))

    def at_most(name: str, limit: float | None, value: float) -> None:
        if limit is not None:
            bands.append(BandResult(name, limit, value, value <= limit))

    at_least("min_success_rate", tol.min_success_rate, metrics.success_rate)
    at_most("max_mean_steps", tol.max_mean_steps, metrics.mean_steps)
    at_most("max_total_cost_usd", tol.max_total_cost_usd, metrics.total_cost_usd)
    at_most("max_mean_wall_s", tol.max_mean_wall_s, metrics.mean_wall_s)
    at_most("max_escalation_rate", tol.max_escalation_rate, metrics.escalation_rate)
    if baseline is not None:
        pairs = (
            ("max_success_rate_drop", tol.max_success_rate_drop, "success_rate", -1.0),
            ("max_mean_steps_increase", tol.max_mean_steps_increase, "mean_steps", 1.0),
            ("max_mean_wall_increase_s", tol.max_mean_wall_increase_s, "mean_wall_s", 1.0),
            ("max_total_cost_increase_usd", tol.max_total_cost_increase_usd, "total_cost_usd", 1.0),
        )
        for name, limit, key, sign in pairs:
            before = baseline.get(key)
            if limit is not None and isinstance(before, (int, float)):
                change = sign * (float(getattr(metrics, key)) - float(before))
                # A tiny tolerance: float sums of the same figures differ in the last bits.
                bands.append(BandResult(name, limit, change, change <= limit + 1e-9))
    return BandReport(bands)
