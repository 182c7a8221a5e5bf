"""The plan as a graph: topological order, critical path, and text / Mermaid / DOT renderings.

The critical path is the longest chain of dependent steps weighted by duration — with estimates
before a run (per-tool latency), with measured durations after it. It is the lower bound on the
makespan of any scheduler, which is why the executor reports overhead against it.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

from forethought.plan.model import Plan, Step

DEFAULT_STEP_ESTIMATE_S = 1.0


@dataclass(frozen=True)
class CriticalPath:
    length_s: float
    steps: tuple[str, ...]


def topological_order(deps: Mapping[str, tuple[str, ...] | list[str]]) -> list[str]:
    """Kahn's algorithm over known ids; raises ValueError naming a step on a cycle."""
    indegree = {n: 0 for n in deps}
    dependents: dict[str, list[str]] = {n: [] for n in deps}
    for node, ds in deps.items():
        for d in ds:
            if d in indegree:
                indegree[node] += 1
                dependents[d].append(node)
    queue = deque(n for n, k in indegree.items() if k == 0)
    order: list[str] = []
    while queue:
        n = queue.popleft()
        order.append(n)
        for m in dependents[n]:
            indegree[m] -= 1
            if indegree[m] == 0:
                queue.append(m)
    if len(order) != len(deps):
        stuck = next(n for n, k in indegree.items() if k > 0)
        raise ValueError(f"the plan has a dependency cycle through step {stuck!r}")
    return order


def critical_path(
    deps: Mapping[str, tuple[str, ...] | list[str]], durations: Mapping[str, float]
) -> CriticalPath:
    """Longest duration-weighted chain; steps without a duration count as 0."""
    if not deps:
        return CriticalPath(0.0, ())
    finish: dict[str, float] = {}
    best_pred: dict[str, str | None] = {}
    for node in topological_order(deps):
        start, pred = 0.0, None
        for d in deps[node]:
            if d in finish and finish[d] > start:
                start, pred = finish[d], d
        finish[node] = start + float(durations.get(node, 0.0))
        best_pred[node] = pred
    end = max(finish, key=lambda n: finish[n])
    chain: list[str] = []
    cur: str | None = end
    while cur is not None:
        chain.append(cur)
        cur = best_pred[cur]
    return CriticalPath(finish[end], tuple(reversed(chain)))


def estimate_durations(
    plan: Plan, latency: Mapping[str, float] | None = None, default: float = DEFAULT_STEP_ESTIMATE_S
) -> dict[str, float]:
    """Per-step estimates from per-tool latencies (``latency[tool]``), else ``default``."""
    latency = latency or {}
    return {s.id: float(latency.get(s.tool or "", default)) for s in plan.steps}


def plan_critical_path(plan: Plan, latency: Mapping[str, float] | None = None) -> CriticalPath:
    return critical_path(plan.dependency_map(), estimate_durations(plan, latency))


# ------------------------------------------------------------------------------ renderers


def _action(step: Step) -> str:
    if step.tool is not None:
        return step.tool
    return "phase" if step.phase is not None else "agent"


def _label(step: Step) -> str:
    return f"{step.id}: {_action(step)}"


def render_text(plan: Plan, latency: Mapping[str, float] | None = None) -> str:
    """One line per step in topological order: estimate, dependencies, critical marker."""
    deps = plan.dependency_map()
    durations = estimate_durations(plan, latency)
    cp = critical_path(deps, durations)
    on_path = set(cp.steps)
    by_id = plan.step_map()
    width = max((len(s) for s in deps), default=2)
    action_width = max((len(_action(s)) for s in plan.steps), default=5)
    lines = [
        f"goal: {plan.goal}",
        f"plan v{plan.version}: {len(deps)} steps; critical path "
        f"{' → '.join(cp.steps)} ({cp.length_s:g}s estimated)",
        "",
    ]
    for sid in topological_order(deps):
        step = by_id[sid]
        mark = "*" if sid in on_path else " "
        action = _action(step)
        after = f"  ← {', '.join(deps[sid])}" if deps[sid] else ""
        lines.append(f"{mark} {sid:<{width}}  {action:<{action_width}}  ~{durations[sid]:g}s{after}")
    pending = [s for s in plan.steps if s.phase is not None]
    expanded = plan.metadata.get("phases", {})
    if pending or expanded:
        lines.append("")
    for step in pending:
        assert step.phase is not None
        lines.append(f"phase {step.id}: {step.phase.goal} [tools: {', '.join(step.phase.tools)}]")
    for pid, info in expanded.items():
        if not isinstance(info, dict):
            continue
        members = ", ".join(str(m) for m in info.get("steps", ()))
        lines.append(
            f"phase {pid} (planned): {info.get('goal', '')} → {members}; output {info.get('output')}"
        )
    if plan.rollback:
        lines.append("")
        lines.append("rollback: " + " → ".join(_label(s) for s in plan.rollback))
    lines.append("")
    lines.append("* = on the critical path")
    return "\n".join(lines) + "\n"


def _mermaid_id(step_id: str) -> str:
    return "n_" + step_id.replace("-", "_")


def render_mermaid(plan: Plan, latency: Mapping[str, float] | None = None) -> str:
    deps = plan.dependency_map()
    cp = critical_path(deps, estimate_durations(plan, latency))
    on_path = set(cp.steps)
    edges_on_path = set(zip(cp.steps, cp.steps[1:], strict=False))
    lines = ["flowchart TD"]
    for step in plan.steps:
        text = _label(step).replace('"', "'")
        lines.append(f'    {_mermaid_id(step.id)}["{text}"]')
    link = 0
    critical_links = []
    for step in plan.steps:
        for d in deps[step.id]:
            lines.append(f"    {_mermaid_id(d)} --> {_mermaid_id(step.id)}")
            if (d, step.id) in edges_on_path:
                critical_links.append(str(link))
            link += 1
    lines.append("    classDef critical stroke:#d33,stroke-width:3px")
    if on_path:
        lines.append(f"    class {','.join(_mermaid_id(s) for s in cp.steps)} critical")
    if critical_links:
        lines.append(f"    linkStyle {','.join(critical_links)} stroke:#d33,stroke-width:3px")
    return "\n".join(lines) + "\n"


def render_dot(plan: Plan, latency: Mapping[str, float] | None = None) -> str:
    deps = plan.dependency_map()
    cp = critical_path(deps, estimate_durations(plan, latency))
    on_path = set(cp.steps)
    edges_on_path = set(zip(cp.steps, cp.steps[1:], strict=False))
    lines = ["digraph plan {", "  rankdir=TB;", "  node [shape=box];"]
    for step in plan.steps:
        attrs = f"label={json.dumps(_label(step))}"
        if step.id in on_path:
            attrs += ", color=red, penwidth=2"
        lines.append(f"  {json.dumps(step.id)} [{attrs}];")
    for step in plan.steps:
        for d in deps[step.id]:
            style = " [color=red, penwidth=2]" if (d, step.id) in edges_on_path else ""
            lines.append(f"  {json.dumps(d)} -> {json.dumps(step.id)}{style};")
    lines.append("}")
    return "\n".join(lines) + "\n"
