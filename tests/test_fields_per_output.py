"""Coverage: each file a goal writes gets the field the goal names for it.

"write the word count of notes.txt to wc.txt and the line count to lc.txt" was planned by the
model with ``${s2.lines}`` in both files and ran as "succeeded". Tested over a made-up choir's
tools and the built-ins, with the plans the rule must leave alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from forethought.plan.coverage import check_coverage
from forethought.plan.model import Plan
from forethought.plan.tool_spec import ToolSpec
from forethought.tools.base import ToolRegistry
from forethought.tools.builtin import builtin_tools

_TEXT = {"type": "string"}
CHOIR = {
    "open_hymnal": ToolSpec(
        name="open_hymnal",
        description="Open a hymnal file and give its text.",
        input_schema={"type": "object", "properties": {"hymnal_path": _TEXT}, "required": ["hymnal_path"]},
        output_schema={"type": "object", "properties": {"text": _TEXT, "title": _TEXT}},
    ),
    "hymn_parts": ToolSpec(
        name="hymn_parts",
        description="Tell a hymn's verses and refrains apart.",
        input_schema={"type": "object", "properties": {"text": _TEXT}, "required": ["text"]},
        output_schema={
            "type": "object",
            "properties": {"verses": {"type": "integer"}, "refrains": {"type": "integer"}},
        },
    ),
    "post_rota": ToolSpec(
        name="post_rota",
        description="Post the choir rota",
        input_schema={"type": "object", "properties": {"rota_file": _TEXT, "rota": _TEXT}},
        effect="mutating",
    ),
}
GOAL = "post the verse count of hymn.txt to v.txt and the refrain count to r.txt"


def _plan(goal: str, first: str, second: str) -> Plan:
    steps: list[dict[str, Any]] = [
        {"id": "s1", "tool": "open_hymnal", "args": {"hymnal_path": "hymn.txt"}},
        {"id": "s2", "tool": "hymn_parts", "args": {"text": "${s1.text}"}},
        {"id": "s3", "tool": "post_rota", "args": {"rota_file": "v.txt", "rota": first}},
        {"id": "s4", "tool": "post_rota", "args": {"rota_file": "r.txt", "rota": second}},
    ]
    return Plan.model_validate({"goal": goal, "steps": steps})


def _messages(plan: Plan, goal: str, tools: dict[str, ToolSpec]) -> list[str]:
    return [f.message for f in check_coverage(plan, goal, tools).missing]


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        (
            "${s2.refrains}",
            "${s2.refrains}",
            ["the goal asks for verses in v.txt, but step 's3' is given s2.refrains"],
        ),
        (
            "${s2.verses}",
            "${s2.verses}",
            ["the goal asks for refrains in r.txt, but step 's4' is given s2.verses"],
        ),
        (
            "${s2.refrains}",
            "${s2.verses}",
            [
                "the goal asks for verses in v.txt, but step 's3' is given s2.refrains",
                "the goal asks for refrains in r.txt, but step 's4' is given s2.verses",
            ],
        ),
    ],
)
def test_a_file_given_another_field_of_the_record_is_a_finding(
    first: str, second: str, expected: list[str]
) -> None:
    assert _messages(_plan(GOAL, first, second), GOAL, CHOIR) == expected


def test_each_file_given_its_own_field_is_covered() -> None:
    assert check_coverage(_plan(GOAL, "${s2.verses}\n", "${s2.refrains}\n"), GOAL, CHOIR).covered


@pytest.mark.parametrize(
    "goal",
    [
        # Both fields named before both files: which goes where is not said by place.
        "count the verses and refrains of hymn.txt, then post them to v.txt and r.txt",
        # The file named before what goes into it: no words before it to go by.
        "into v.txt post the refrain count of hymn.txt, and into r.txt the verse count",
    ],
)
def test_files_whose_fields_are_not_said_before_them_are_not_judged(goal: str) -> None:
    assert not [
        m for m in _messages(_plan(goal, "${s2.refrains}", "${s2.verses}"), goal, CHOIR) if "asks for" in m
    ]


def test_on_the_builtins_the_run_that_wrote_the_line_count_twice_is_not_covered() -> None:
    specs = dict(ToolRegistry(builtin_tools(Path("/tmp"))).specs())
    goal = "write the word count of notes.txt to wc.txt and the line count to lc.txt"
    plan = Plan.model_validate(
        {
            "goal": goal,
            "steps": [
                {"id": "s1", "tool": "read_file", "args": {"path": "notes.txt"}},
                {"id": "s2", "tool": "text_stats", "args": {"text": "${s1.content}"}},
                {"id": "s3", "tool": "write_file", "args": {"path": "wc.txt", "content": "${s2.lines}\n"}},
                {"id": "s5", "tool": "write_file", "args": {"path": "lc.txt", "content": "${s2.lines}\n"}},
            ],
        }
    )
    assert _messages(plan, goal, specs) == [
        "the goal asks for words in wc.txt, but step 's3' is given s2.lines"
    ]
