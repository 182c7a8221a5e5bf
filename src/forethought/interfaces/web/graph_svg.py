"""The plan's DAG as inline SVG, drawn on the server: one column per dependency depth, the
critical path (``plan.graph``) drawn heavier, each node carrying its step's live status as a CSS
class (``st-running``, ``st-succeeded``, …) and ``data-step`` so pages and tests can find it."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape

from forethought.plan.graph import CriticalPath, topological_order
from forethought.plan.model import Plan

NODE_W, NODE_H, GAP_X, GAP_Y, PAD = 180, 46, 56, 18, 12


def layers(plan: Plan) -> dict[str, int]:
    """Step id → its column: 0 for steps without dependencies, else one past its deepest one."""
    deps = plan.dependency_map()
    depth: dict[str, int] = {}
    for sid in topological_order(deps):
        depth[sid] = 1 + max((depth[d] for d in deps[sid] if d in depth), default=-1)
    return depth


def render_svg(plan: Plan, statuses: Mapping[str, str], critical: CriticalPath) -> str:
    if not plan.steps:
        return '<svg class="dag" width="240" height="40"><text x="8" y="24">no steps yet</text></svg>'
    depth = layers(plan)
    columns: dict[int, list[str]] = {}
    for step in plan.steps:  # plan order within a column: stable as steps stream in
        columns.setdefault(depth[step.id], []).append(step.id)
    pos: dict[str, tuple[int, int]] = {}
    for col, ids in columns.items():
        for row, sid in enumerate(ids):
            pos[sid] = (PAD + col * (NODE_W + GAP_X), PAD + row * (NODE_H + GAP_Y))
    width = PAD * 2 + (max(columns) + 1) * (NODE_W + GAP_X) - GAP_X
    height = PAD * 2 + max(len(ids) for ids in columns.values()) * (NODE_H + GAP_Y) - GAP_Y
    on_path = set(critical.steps)
    path_edges = set(zip(critical.steps, critical.steps[1:], strict=False))
    parts = [
        f'<svg class="dag" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="plan graph">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z"/></marker></defs>',
    ]
    deps = plan.dependency_map()
    for step in plan.steps:
        x2, y2 = pos[step.id]
        for dep in deps[step.id]:
            if dep not in pos:
                continue
            x1, y1 = pos[dep]
            sx, sy, ex, ey = x1 + NODE_W, y1 + NODE_H // 2, x2, y2 + NODE_H // 2
            mid = (sx + ex) // 2
            cls = "edge critical" if (dep, step.id) in path_edges else "edge"
            parts.append(
                f'<path class="{cls}" d="M {sx} {sy} C {mid} {sy}, {mid} {ey}, {ex - 2} {ey}" '
                'marker-end="url(#arrow)"/>'
            )
    for step in plan.steps:
        x, y = pos[step.id]
        status = statuses.get(step.id, "pending")
        action = step.tool if step.tool is not None else "agent"
        cls = f"node st-{status}" + (" critical" if step.id in on_path else "")
        sid = escape(step.id)
        parts.append(
            f'<g class="{cls}" data-step="{sid}" data-status="{escape(status)}" '
            f'transform="translate({x},{y})"><title>{sid}: {escape(action)} ({escape(status)})</title>'
            f'<rect width="{NODE_W}" height="{NODE_H}" rx="7"/>'
            f'<text class="sid" x="10" y="19">{escape(_clip(step.id, 24))}</text>'
            f'<text class="act" x="10" y="36">{escape(_clip(action, 26))}</text></g>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"
