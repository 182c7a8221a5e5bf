"""Dump every model-free decision of the decomposing planner, to compare two versions exactly.

For every goal of the dev suite (``run.py``) and of the suites 1-8 (``heldout*.py``), with the
refinements all on and all off: the goal's facts (outputs, inputs, words, values), the candidate
chains (``skeletons``, limit 32: tools and prior) and, for each chain, its slots (``bind``: the
allowed values of every argument, feasibility). No model, no randomness: two versions of the
planner that print the same file decide the same way for these goals (the model fallback only
fills slots these rules leave open).

    PYTHONPATH=src .venv/bin/python bench/planning/decisions.py > /tmp/after.jsonl
    diff /tmp/before.jsonl /tmp/after.jsonl && echo identical
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from heldout import HELD_OUT
from heldout2 import HELD_OUT_2
from heldout3 import HELD_OUT_3
from heldout4 import HELD_OUT_4
from heldout5 import HELD_OUT_5
from heldout6 import HELD_OUT_6
from heldout7 import HELD_OUT_7
from heldout8 import HELD_OUT_8
from run import GOALS
from tools import BENCH_TOOLS

from forethought.planning.decompose import skeletons
from forethought.planning.goal_facts import goal_facts
from forethought.planning.refinements import NO_REFINEMENTS, Refinements
from forethought.planning.slots import bind
from forethought.planning.value_filters import value_docs, value_words
from forethought.tools.base import ToolSpec


def suites() -> Iterator[tuple[str, dict[str, ToolSpec], list[str]]]:
    yield "dev", {t.spec.name: t.spec for t in BENCH_TOOLS}, [g.text for g in GOALS]
    every = [
        *HELD_OUT,
        *HELD_OUT_2,
        *HELD_OUT_3,
        *HELD_OUT_4,
        *HELD_OUT_5,
        *HELD_OUT_6,
        *HELD_OUT_7,
        *HELD_OUT_8,
    ]
    for toolset in every:
        yield toolset.name, {t.spec.name: t.spec for t in toolset.tools}, [g.text for g in toolset.goals]


def decisions(goal: str, specs: dict[str, ToolSpec], refine: Refinements) -> dict[str, Any]:
    facts = goal_facts(goal, refine)
    values = value_words(facts, value_docs(specs, examples=refine.example_values), refine, specs)
    chains = []
    for sk in skeletons(goal, specs, limit=32, refinements=refine):
        for typed in (True, False):
            slots = bind(sk.tools, goal, specs, typed=typed, refinements=refine)
            chains.append(
                {
                    "tools": sk.tools,
                    "prior": round(sk.prior, 6),
                    "typed": typed,
                    "feasible": slots.feasible,
                    "steps": slots.steps,
                }
            )
    return {
        "outputs": facts.outputs,
        "inputs": facts.inputs,
        "words": facts.words,
        "values": values,
        "chains": chains,
    }


def main() -> None:
    for name, specs, goals in suites():
        for goal in goals:
            for label, refine in (("on", Refinements()), ("off", NO_REFINEMENTS)):
                row = {"suite": name, "refinements": label, "goal": goal, **decisions(goal, specs, refine)}
                print(json.dumps(row, sort_keys=True, default=str))


if __name__ == "__main__":
    main()
