"""The technique rows of the planning benchmarks: each switched on on top of the previous one."""

from __future__ import annotations

from forethought.planning.planner import PlannerOptions
from forethought.planning.refinements import NO_REFINEMENTS, Refinements

ROWS: dict[str, PlannerOptions] = {
    "baseline": PlannerOptions(decompose=False),
    "decompose": PlannerOptions(decompose=True, typed_flow=False, candidates=1),
    "typed": PlannerOptions(decompose=True, typed_flow=True, candidates=1),
    "candidates": PlannerOptions(decompose=True, typed_flow=True, candidates=4, refinements=NO_REFINEMENTS),
    # The suite-5 refinements without the suite-6 ones (whole values, example values, layout
    # apart, output position); the non-switchable fixes of suite 6 are in both.
    "refined5": PlannerOptions(
        decompose=True,
        typed_flow=True,
        candidates=4,
        refinements=Refinements(
            whole_values=False, example_values=False, layout_apart=False, output_position=False
        ),
    ),
    # Every technique on (the default for the embedded model), the suite-5 and suite-6
    # refinements too.
    "sample": PlannerOptions(decompose=True, typed_flow=True, candidates=4),
}

LABELS = {
    "baseline": "whole-plan grammar (before issue 17)",
    "decompose": "+ decompose, then fill (BM25 per clause, slots from the strict-literal rules)",
    "typed": "+ typed data flow in the slots",
    "candidates": "+ 4 candidates, keep the best (validation, coverage, prior, likelihood)",
    "refined5": "+ refinements: name precision, value filters, record fields, a reader per input",
    "sample": "+ refinements: whole values, example values, layout apart, output position",
}
