"""``forethought plan GOAL``: plan only, write the plan artifact, print it. Runs nothing."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import click

from forethought.errors import ModelError, UserError
from forethought.interfaces.cli._common import EXIT_FAILED, EXIT_OK, json_option, print_json, run_async
from forethought.models.resolve import resolve_model
from forethought.oversight.redaction import redact_text
from forethought.plan.coverage import Coverage, check_coverage
from forethought.plan.files import dump_plan, write_plan
from forethought.plan.model import Plan
from forethought.planning.memory import PlanMemory
from forethought.planning.planner import PlannerOptions, PlanResult, make_plan
from forethought.tools.base import ToolSpec
from forethought.tools.loader import open_tools


def _builtin_specs() -> dict[str, ToolSpec]:
    try:
        from forethought.tools.builtin import builtin_tools
    except ImportError:
        raise UserError(
            "no tools to plan with: pass --tools PATH (a .py module of @tool functions or a .yaml tools file)"
        ) from None
    return {t.spec.name: t.spec for t in builtin_tools(Path.cwd(), None)}


async def _plan(
    goal: str,
    tools_paths: Sequence[str],
    model_name: str | None,
    max_steps: int | None,
    memory: PlanMemory | None,
) -> tuple[PlanResult | None, str, float, dict[str, ToolSpec]]:
    """The planner's result, or None when the goal asks for an effect no tool can produce
    (``run`` refuses such a goal before any model call; ``plan`` says the same)."""
    from forethought.planning.capability import missing_capabilities

    model = resolve_model(model_name)
    async with open_tools(tools_paths) as registry:
        specs = registry.specs() if tools_paths else _builtin_specs()
    if missing_capabilities(goal, specs):
        return None, model.name, 0.0, specs
    start = time.perf_counter()
    try:
        result = await make_plan(
            goal, specs, model, memory=memory, options=PlannerOptions(max_steps=max_steps)
        )
    except ModelError as exc:
        raise UserError(str(exc)) from None
    return result, model.name, time.perf_counter() - start, specs


def _pruned(plan: Plan | None) -> list[str]:
    """Ids the planner cut from the model's plan to make it validate (``metadata.pruned``)."""
    pruned = plan.metadata.get("pruned") if plan is not None else None
    return [str(p) for p in pruned] if isinstance(pruned, list) else []


def _status(ok: bool, pruned: list[str]) -> str:
    """ "valid plan" only for a plan that validated as the model wrote it (issue 16 item 3)."""
    if not ok:
        return "INVALID plan"
    if pruned:
        return f"valid after repair: pruned steps {', '.join(pruned)}; plan"
    return "valid plan"


@click.command("plan")
@click.argument("goal")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    help="Write the plan here (.json → JSON, anything else → YAML).",
)
@click.option(
    "--tools",
    "tools_paths",
    multiple=True,
    type=click.Path(dir_okay=False),
    help="A .py module of @tool functions or a .yaml tools file (repeatable).",
)
@click.option(
    "--model",
    "model_name",
    default=None,
    help="Planner model, e.g. local, openai:gpt-4o-mini, ollama:qwen2.5:7b.",
)
@click.option(
    "--max-steps",
    default=None,
    type=click.IntRange(1, 30),
    help="Longest plan allowed (default: 4 for the embedded model, else 10).",
)
@click.option("--no-memory", is_flag=True, help="Do not offer remembered plans as examples.")
@json_option
def plan(
    goal: str,
    output: str | None,
    tools_paths: tuple[str, ...],
    model_name: str | None,
    max_steps: int | None,
    no_memory: bool,
    as_json: bool,
) -> int:
    """Plan GOAL into a plan file without running anything."""
    if not goal.strip():
        raise UserError(
            'the goal is empty; say what you want done, e.g. forethought plan "count the words in notes.txt"'
        )
    memory = None if no_memory else PlanMemory()
    goal = redact_text(goal)  # the model, the plan file and the output never see a pasted secret
    result, model_label, elapsed, specs = run_async(
        lambda: _plan(goal, tools_paths, model_name, max_steps, memory)
    )
    if result is None:
        from forethought.planning.capability import missing_capabilities

        missing = [str(m) for m in missing_capabilities(goal, specs)]
        if as_json:
            print_json({"ok": False, "model": model_label, "plan": None, "missing_capabilities": missing})
        for line in [] if as_json else missing:
            click.echo(line, err=True)
        return EXIT_FAILED
    coverage: Coverage | None = None
    if result.ok and result.plan is not None:
        coverage = check_coverage(result.plan, goal, specs)
    pruned = _pruned(result.plan)
    if result.ok and result.plan is not None and output:
        write_plan(result.plan, output)
    if as_json:
        payload: dict[str, Any] = {
            "ok": result.ok,
            "model": model_label,
            "elapsed_s": round(elapsed, 3),
            "plan": result.plan.to_data() if result.plan else None,
            "plan_hash": result.plan.plan_hash() if result.ok and result.plan else None,
            "problems": [p.to_dict() for p in result.problems],
            "model_calls": len(result.calls),
            "tokens": result.usage.total_tokens,
            "cost_usd": result.cost_usd,
            "output": output if result.ok else None,
            "pruned": pruned,
            "coverage": coverage.to_dict() if coverage is not None else None,
        }
        print_json(payload)
    else:
        if result.plan is not None:
            fmt: Literal["yaml", "json"] = "json" if output and output.lower().endswith(".json") else "yaml"
            text = dump_plan(result.plan, fmt)
            click.echo(redact_text(text if text.endswith("\n") else text + "\n"), nl=False)
        for problem in result.problems:
            click.echo(f"problem: {problem}", err=True)
        for finding in coverage.missing if coverage is not None else ():
            click.echo(f"coverage: {finding}", err=True)
        where = f", written to {output}" if output and result.ok else ""
        click.echo(
            f"{_status(result.ok, pruned)} from {model_label} in {elapsed:.1f}s "
            f"({len(result.calls)} call{'s' if len(result.calls) != 1 else ''}, "
            f"{result.usage.total_tokens} tokens, ${result.cost_usd:.4f}){where}",
            err=True,
        )
    return EXIT_OK if result.ok else EXIT_FAILED
