"""Reports of an evaluation: a table for people, JSON (also the next run's ``--baseline``), JUnit XML
for CI systems (one ``testcase`` per task, a ``failure`` per unmet expectation)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from forethought.errors import UserError
from forethought.evaluation.runner import TaskResult
from forethought.evaluation.scoring import BandReport, Metrics

REPORT_FORMAT = 1


def report_json(
    suite_name: str, results: Sequence[TaskResult], metrics: Metrics, bands: BandReport
) -> dict[str, Any]:
    return {
        "format": REPORT_FORMAT,
        "suite": suite_name,
        "passed": bands.passed and not any(r.error for r in results),
        "metrics": metrics.to_json(),
        "bands": [b.to_json() for b in bands.bands],
        "tasks": [r.to_json() for r in results],
    }


def load_baseline(path: str | Path) -> dict[str, Any]:
    """The ``metrics`` of a previous ``--json`` report; one clear line if it is not one."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"--baseline {path}: no such file; give a report written by `eval --json`") from None
    except (OSError, ValueError) as exc:
        raise UserError(f"--baseline {path}: not a JSON report ({exc})") from None
    metrics = data.get("metrics") if isinstance(data, dict) else None
    if not isinstance(metrics, dict):
        raise UserError(f"--baseline {path}: no `metrics` object; give a report written by `eval --json`")
    return metrics


def _flags(r: TaskResult) -> str:
    if r.facts is None:
        return ""
    return ",".join(name for name, on in r.facts.flags().items() if on) or "-"


def table(results: Sequence[TaskResult], metrics: Metrics, bands: BandReport) -> str:
    rows = [("task", "result", "status", "steps", "cost $", "wall s", "events", "faults fired")]
    for r in results:
        f = r.facts
        rows.append(
            (
                r.task_id,
                "ERROR" if r.error else "pass" if r.passed else "FAIL",
                f.status if f else "-",
                str(f.steps) if f else "-",
                f"{f.cost_usd:.4f}" if f else "-",
                f"{r.wall_s:.2f}",
                _flags(r),
                ", ".join(f"{x.tool}#{x.call} {x.kind}" for x in r.faults_fired) or "-",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    for r in results:
        if r.error:
            lines.append(f"{r.task_id}: error: {r.error}")
        for c in r.checks:
            if not c.passed:
                lines.append(f"{r.task_id}: {c.name}: {c.detail}")
    m = metrics
    lines.append(
        f"{m.passed}/{m.tasks} tasks passed (success rate {m.success_rate:.2f}); mean steps "
        f"{m.mean_steps:.2f}; cost ${m.total_cost_usd:.4f}; mean wall {m.mean_wall_s:.2f}s"
    )
    lines.extend(f"band {b}" for b in bands.bands)
    return "\n".join(lines)


def junit_xml(suite_name: str, results: Sequence[TaskResult], bands: BandReport) -> str:
    """JUnit XML: a testsuite with one testcase per task and one ``tolerances`` testcase."""
    failures = sum(1 for r in results if not r.passed and not r.error) + (0 if bands.passed else 1)
    errors = sum(1 for r in results if r.error)
    root = ET.Element(
        "testsuite",
        name=suite_name,
        tests=str(len(results) + 1),
        failures=str(failures),
        errors=str(errors),
        time=f"{sum(r.wall_s for r in results):.3f}",
    )
    for r in results:
        case = ET.SubElement(root, "testcase", classname=suite_name, name=r.task_id, time=f"{r.wall_s:.3f}")
        if r.error:
            ET.SubElement(case, "error", message=r.error)
            continue
        failed = [c for c in r.checks if not c.passed]
        if failed:
            message = "; ".join(f"{c.name}: {c.detail}" for c in failed)
            node = ET.SubElement(case, "failure", message=message)
            node.text = "\n".join(f"{c.name}: {c.detail}" for c in failed)
        if r.facts is not None:
            out = ET.SubElement(case, "system-out")
            out.text = json.dumps(r.to_json(), default=str)
    case = ET.SubElement(root, "testcase", classname=suite_name, name="tolerances", time="0")
    broken = [b for b in bands.bands if not b.passed]
    if broken:
        node = ET.SubElement(case, "failure", message="; ".join(str(b) for b in broken))
        node.text = "\n".join(str(b) for b in bands.bands)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
