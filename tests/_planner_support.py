"""Shared helpers for the planner/model tests: a small file/count/summarize/write tool set, and
what the planner makes of a goal over any tool set without a model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from forethought import ToolSpec, tool
from forethought.planning.goal_facts import goal_facts
from forethought.planning.planner import best_chain
from forethought.planning.refinements import Refinements
from forethought.planning.value_filters import value_docs, value_words


@tool
def read_file(path: str) -> str:
    """Read a text file and return its content."""
    return f"content of {path}"


@tool(effect="mutating", idempotent=True)
def write_file(path: str, content: str) -> str:
    """Write text content to a file; returns the path."""
    return path


@tool
def count_words(text: str) -> int:
    """Count the words in a text."""
    return len(text.split())


@tool
def summarize(text: str) -> str:
    """Summarize a text in one sentence."""
    return text.split(".")[0]


TOOLS = [read_file, write_file, count_words, summarize]


def bench_like_specs() -> dict[str, ToolSpec]:
    return {t.spec.name: t.spec for t in TOOLS}


def goal_values(goal: str, specs: Mapping[str, ToolSpec], refinements: Refinements) -> list[str]:
    """The goal's words the planner takes for values to filter by, over ``specs``."""
    facts = goal_facts(goal, refinements)
    return value_words(facts, value_docs(specs, examples=True), refinements, specs)


def decided_steps(
    goal: str, specs: Mapping[str, ToolSpec], refinements: Refinements
) -> list[tuple[str, dict[str, Any]]]:
    """The steps of the chain the planner takes without a model; [] when it would ask one."""
    chosen = best_chain(goal, specs, True, refinements=refinements)
    return [(s["tool"], s["args"]) for s in chosen.slots.first_plan()["steps"]] if chosen else []
