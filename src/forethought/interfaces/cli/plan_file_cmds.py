"""Commands over plan files that need no model and run nothing: lint, graph, diff, schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from forethought.errors import UserError
from forethought.interfaces.cli._common import (
    EXIT_FAILED,
    EXIT_INVALID,
    EXIT_OK,
    json_option,
    load_tool_specs,
    print_json,
    tools_option,
)
from forethought.plan import phases
from forethought.plan._yaml import load_yaml
from forethought.plan.coverage import Coverage, Finding, check_coverage
from forethought.plan.diff import diff_plans
from forethought.plan.files import LoadedPlan, detect_format, line_index, lint_file, load_plan
from forethought.plan.graph import render_dot, render_mermaid, render_text
from forethought.plan.model import Plan
from forethought.plan.tool_spec import ToolSpec


def _configured_builtins() -> dict[str, ToolSpec]:
    """Specs of the built-ins the configuration enables (what `run` would offer the planner)."""
    from forethought.interfaces.config import load_config
    from forethought.tools.builtin import builtin_tools

    enabled = list(load_config({}).builtins)
    if not enabled:
        return {}
    # Only the specs are needed, and they do not depend on the workspace.
    return {t.spec.name: t.spec for t in builtin_tools(Path.cwd(), enabled)}


def _effects_only() -> dict[str, ToolSpec] | None:
    """Without --tools, coverage still wants the built-ins' effects; a broken configuration
    must not fail a structure-only lint, so then effects are simply unknown."""
    try:
        return _configured_builtins()
    except UserError:
        return None


def _lint_specs(paths: tuple[str, ...]) -> dict[str, ToolSpec] | None:
    """The --tools files' specs plus the configured built-ins; None without --tools (structure only).

    `load_tool_specs` opens only the files, so a plan using `write_file` was "unknown tool" as
    soon as --tools was given, although `run` with the same flags offers it.
    """
    if not paths:
        return None
    builtins = _configured_builtins()
    files = load_tool_specs(paths) or {}
    return builtins | files


def _coverage_lines(loaded: LoadedPlan, findings: tuple[Finding, ...]) -> list[str]:
    """One `coverage: ...` line per finding; a step's finding carries the step's file:line."""
    index: dict[tuple[Any, ...], int] = {}
    if any(f.step_id is not None for f in findings) and loaded.plan is not None:
        index = line_index(loaded.text, detect_format(loaded.path, loaded.text))
    at = {s.id: i for i, s in enumerate(loaded.plan.steps)} if loaded.plan is not None else {}
    top: tuple[Any, ...] = ("steps",) if isinstance(loaded.data, dict) else ()
    out = []
    for f in findings:
        where = ""
        if f.step_id in at:
            path = (*top, at[f.step_id], *f.field)
            while path and path not in index:
                path = path[:-1]
            if path in index:
                where = f"{loaded.path}:{index[path]}: "
        out.append(f"coverage: {where}{f}")
    return out


@click.command()
@click.argument("plan_file", type=click.Path(dir_okay=False))
@tools_option
@click.option(
    "--goal",
    default=None,
    help="Also check the plan's coverage of this goal.",
)
@click.option(
    "--coverage",
    "check_goal",
    is_flag=True,
    help="Also check the plan's coverage of its own `goal`.",
)
@click.option(
    "--strict-coverage",
    is_flag=True,
    help="Check coverage (of --goal, else the plan's goal) and exit 1 when the plan misses it.",
)
@json_option
def lint(
    plan_file: str,
    tools_paths: tuple[str, ...],
    goal: str | None,
    check_goal: bool,
    strict_coverage: bool,
    as_json: bool,
) -> int:
    """Validate PLAN_FILE; print every problem with its location (and, asked, goal coverage).

    Exit 2 if the plan has problems (it can never run). With --goal GOAL, --coverage (the plan's
    own `goal`) or --strict-coverage, a valid plan is also checked by the deterministic coverage
    rules: goal literals no step uses, outputs no side-effecting step produces, dead steps,
    invented argument values. They are printed as `coverage: ...` lines; a valid plan that misses
    its goal is not invalid input, so they exit 0 unless --strict-coverage asks for exit 1.
    """
    specs = _lint_specs(tools_paths)
    loaded = lint_file(plan_file, specs)
    coverage: Coverage | None = None
    wants_coverage = goal is not None or check_goal or strict_coverage
    if wants_coverage and loaded.plan is not None and not loaded.problems:
        coverage = check_coverage(loaded.plan, goal, specs if specs is not None else _effects_only())
    if as_json:
        print_json(
            {
                "file": plan_file,
                "ok": not loaded.problems,
                "plan_hash": loaded.plan.plan_hash() if loaded.plan and not loaded.problems else None,
                "problems": [p.to_dict() for p in loaded.problems],
                "coverage": coverage.to_dict() if coverage is not None else None,
            }
        )
    else:
        for problem in loaded.problems:
            click.echo(str(problem))
        if loaded.problems:
            n = len(loaded.problems)
            click.echo(f"{n} problem{'s' if n != 1 else ''} in {plan_file}", err=True)
        else:
            assert loaded.plan is not None
            covers = ""
            if coverage is not None:
                for line in _coverage_lines(loaded, coverage.missing):
                    click.echo(line)
                n = len(coverage.missing)
                covers = ", covers its goal" if coverage.covered else f", {n} coverage finding(s)"
            checked = "" if specs is not None else " (structure only; pass --tools to check tools)"
            click.echo(
                f"{plan_file}: ok, {len(loaded.plan.steps)} steps, "
                f"hash {loaded.plan.plan_hash()[:12]}{covers}{checked}"
            )
    if loaded.problems:
        return EXIT_INVALID
    if strict_coverage and coverage is not None and not coverage.covered:
        return EXIT_FAILED
    return EXIT_OK


def _parse_latency(values: tuple[str, ...], latency_file: str | None) -> dict[str, float]:
    out: dict[str, float] = {}
    if latency_file:
        try:
            text = Path(latency_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UserError(f"{latency_file}: cannot read latencies: {exc}") from None
        data = load_yaml(text, latency_file)
        if not isinstance(data, dict) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in data.values()
        ):
            raise UserError(
                f"{latency_file}: expected a mapping of tool name to seconds, e.g. `run_tests: 120`"
            )
        out.update({str(k): float(v) for k, v in data.items()})
    for item in values:
        name, sep, secs = item.partition("=")
        try:
            out[name] = float(secs)
        except ValueError:
            sep = ""
        if not sep or not name or out[name] < 0:
            raise UserError(f"--latency {item!r}: expected TOOL=SECONDS, e.g. --latency run_tests=120")
    return out


@click.command()
@click.argument("plan_file", type=click.Path(dir_okay=False))
@click.option(
    "--format", "fmt", type=click.Choice(["text", "mermaid", "dot"]), default="text", show_default=True
)
@click.option(
    "--latency",
    multiple=True,
    metavar="TOOL=SECONDS",
    help="Estimated latency of a tool, for the critical path (repeatable).",
)
@click.option(
    "--latency-file",
    type=click.Path(dir_okay=False),
    help="YAML/JSON mapping of tool name to estimated seconds.",
)
@click.option(
    "--collapse-phases",
    is_flag=True,
    help="Show each planned phase as one step instead of its sub-steps.",
)
@tools_option
def graph(
    plan_file: str,
    fmt: str,
    latency: tuple[str, ...],
    latency_file: str | None,
    collapse_phases: bool,
    tools_paths: tuple[str, ...],
) -> int:
    """Print the plan's DAG with the critical path marked (phases expanded unless collapsed)."""
    specs = load_tool_specs(tools_paths)
    estimates = {name: s.est_latency_s for name, s in (specs or {}).items() if s.est_latency_s is not None}
    estimates.update(_parse_latency(latency, latency_file))
    plan = load_plan(plan_file, specs)
    if collapse_phases:
        plan = phases.collapse_phases(plan)
    render = {"text": render_text, "mermaid": render_mermaid, "dot": render_dot}[fmt]
    click.echo(render(plan, estimates), nl=False)
    return EXIT_OK


@click.command()
@click.argument("plan_a", type=click.Path(dir_okay=False))
@click.argument("plan_b", type=click.Path(dir_okay=False))
@json_option
@click.option("--exit-code", is_flag=True, help="Exit 1 when the plans differ (like git diff).")
def diff(plan_a: str, plan_b: str, as_json: bool, exit_code: bool) -> int:
    """Structural diff of two plan files: steps added, removed, changed field by field."""
    a, b = load_plan(plan_a), load_plan(plan_b)
    result = diff_plans(a, b)
    if as_json:
        print_json(result.to_dict() | {"hash_a": a.plan_hash(), "hash_b": b.plan_hash()})
    else:
        click.echo(result.render(), nl=False)
    return 1 if exit_code and not result.empty else EXIT_OK


@click.command()
def schema() -> int:
    """Print the JSON Schema of the plan file format."""
    data = Plan.model_json_schema(by_alias=True)
    data = {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "forethought plan"} | data
    click.echo(json.dumps(data, indent=2))
    return EXIT_OK
