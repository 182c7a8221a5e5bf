"""Every output schema the project sends is one each provider accepts.

The schemas are captured from the real code paths (planning, replanning, streaming, an agent
step, the critic) with scripted models, then put into each adapter's wire form and checked
against the documented restrictions in ``_provider_schemas``. A schema change that a provider
would reject fails here, before anyone's API call does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel

from _planner_support import bench_like_specs
from _provider_schemas import anthropic_problems, llamacpp_problems, openai_problems
from forethought import Agent, ToolSpec, tool
from forethought.execution.agent_step import action_schema
from forethought.models import ModelRequest
from forethought.models.anthropic import AnthropicModel
from forethought.models.openai import OpenAIModel
from forethought.models.scripted import ScriptedModel
from forethought.plan.model import Plan
from forethought.planning.grammar import PlanSchemaBuilder, step_ids
from forethought.planning.planner import PlannerOptions, make_plan, replan
from forethought.planning.streaming import stream_plan
from forethought.tools.builtin import builtin_tools


class Window(BaseModel):
    start: int
    end: int | None = None


@tool
def slice_lines(
    path: str, window: Window, mode: Literal["head", "tail"] = "head", tags: tuple[str, ...] = ()
) -> str:
    """Return some lines of a file (a tool with a nested model, an enum and optional arguments)."""
    return path


def tool_sets(tmp_path: Path) -> dict[str, dict[str, ToolSpec]]:
    builtins = {t.spec.name: t.spec for t in builtin_tools(tmp_path, "all")}
    return {
        "bench": bench_like_specs(),
        "builtins": builtins,
        "nested": {**bench_like_specs(), "slice_lines": slice_lines.spec},
    }


GOAL = 'Count the words in notes.txt and write "done" to count.txt'
ANSWER = json.dumps({"steps": [{"id": "s1", "tool": "read_file", "args": {"path": "notes.txt"}}]})


async def planner_requests(specs: dict[str, ToolSpec]) -> list[tuple[str, ModelRequest]]:
    """The planning requests a local and a remote model get (plan, stream, replan)."""
    out: list[tuple[str, ModelRequest]] = []
    for name in ("local", "openai-compat:m"):
        for describe in (False, True):
            # Every request counts: the embedded model's planner may ask several (its candidates).
            model = ScriptedModel([ANSWER] * 8, name=name)
            await make_plan(GOAL, specs, model, options=PlannerOptions(describe=describe), max_repairs=0)
            assert model.requests, "the planner asked nothing"
            out += [(f"plan[{name},describe={describe}]#{i}", r) for i, r in enumerate(model.requests)]
            model = ScriptedModel([ANSWER] * 8, name=name)
            _ = [i async for i in stream_plan(GOAL, specs, model)]
            out += [(f"stream_plan[{name}]#{i}", r) for i, r in enumerate(model.requests)]
    if "read_file" in specs:
        old = Plan.model_validate(
            {"goal": GOAL, "steps": [{"id": "s1", "tool": "read_file", "args": {"path": "notes.txt"}}]}
        )
        model = ScriptedModel([ANSWER])
        await replan(GOAL, old, {"s1": "text"}, "failed", specs, model)
        out.append(("replan", model.requests[0]))
    return out


async def run_requests() -> tuple[ModelRequest, ModelRequest]:
    """The agent-step and critic requests of one real run (scripted models decide)."""

    @tool
    def count_words(text: str) -> int:
        """Count the words in a text."""
        return len(text.split())

    plan = {"steps": [{"id": "a", "agent": "count the words of 'a b'", "check": {"critic": "a number"}}]}
    executor = ScriptedModel([json.dumps({"next": {"action": "finish", "answer": 2}})])
    critic = ScriptedModel([json.dumps({"ok": True, "reason": "a number"})])
    agent = Agent(
        [count_words],
        planner_model=ScriptedModel([json.dumps(plan)]),
        executor_model=executor,
        critic_model=critic,
        record=False,
    )
    result = await agent.run("count the words", approve="all")
    assert result.status == "succeeded", result.state.reason
    executor.assert_all_used()
    critic.assert_all_used()
    return executor.requests[0], critic.requests[0]


def wire_schemas(request: ModelRequest) -> dict[str, tuple[dict[str, Any], bool]]:
    """What each adapter puts on the wire for ``request``: schema and OpenAI's strict flag."""
    openai_fmt = OpenAIModel("gpt-4o-mini", api_key="sk-test")._params(request)["response_format"]
    anthropic_tool = AnthropicModel("claude-haiku-4-5", api_key="k")._params(request)["tools"][0]
    return {
        "openai": (openai_fmt["json_schema"]["schema"], openai_fmt["json_schema"]["strict"]),
        "anthropic": (anthropic_tool["input_schema"], False),
    }


def problems_of(request: ModelRequest) -> list[str]:
    wire = wire_schemas(request)
    openai_schema, strict = wire["openai"]
    found = [f"openai(strict={strict}) {p}" for p in openai_problems(openai_schema, strict=strict)]
    found += [f"anthropic {p}" for p in anthropic_problems(wire["anthropic"][0])]
    # llama.cpp's server gets the OpenAI wire form (openai-compat, ollama, vLLM share it).
    found += [f"llama.cpp {p}" for p in llamacpp_problems(openai_schema)]
    return found


async def test_every_schema_sent_is_accepted_by_every_provider(tmp_path: Path) -> None:
    requests: list[tuple[str, ModelRequest]] = []
    for set_name, specs in tool_sets(tmp_path).items():
        requests += [(f"{set_name}/{what}", r) for what, r in await planner_requests(specs)]
        requests.append(
            (f"{set_name}/agent_action", ModelRequest.of(None, "x", json_schema=action_schema(specs)))
        )
    requests.append(("agent_action/no tools", ModelRequest.of(None, "x", json_schema=action_schema({}))))
    agent_request, critic_request = await run_requests()
    requests += [("run/agent_step", agent_request), ("run/critic", critic_request)]
    assert len(requests) >= 30 and all(r.json_schema is not None for _, r in requests)
    report = {name: p for name, r in requests if (p := problems_of(r))}
    assert report == {}, json.dumps(report, indent=1)


async def test_the_critic_verdict_meets_openai_strict_mode() -> None:
    # The one schema owned entirely by the project with nothing free-form in it.
    _, critic_request = await run_requests()
    assert critic_request.json_schema is not None
    assert openai_problems(critic_request.json_schema, strict=True) == []


def test_openai_is_sent_non_strict_and_why_that_matters() -> None:
    """The adapter sends ``strict: false``; the checks above use the rules for what is sent.

    Strict mode would reject the plan and action schemas (optional tool arguments, optional
    ``depends_on``, the free-form agent answer, ``prefixItems``). If the adapter ever turns strict
    on, this pins the reasons it would then break.
    """
    request = ModelRequest.of(None, "x", json_schema=action_schema(bench_like_specs()))
    assert wire_schemas(request)["openai"][1] is False
    strict = openai_problems(action_schema(bench_like_specs()), strict=True)
    assert strict == ["#/properties/next/anyOf/0/properties/answer: every schema needs a type in strict mode"]
    for shape in ("classic", "compact"):
        plan = PlanSchemaBuilder(bench_like_specs(), shape=shape).plan_schema(step_ids(2))
        strict_plan = openai_problems(plan, strict=True)
        assert any("'prefixItems' is not supported" in p for p in strict_plan)
        assert any("not: depends_on" in p for p in strict_plan)


# ----------------------------------------------------------------- the checkers can fail


def test_checkers_reject_the_forms_that_broke() -> None:
    tail = {
        "type": "object",
        "properties": {
            "steps": {
                "type": "array",
                "prefixItems": [{"const": 1}, {"const": 2}],
                "items": False,
                "minItems": 1,
            }
        },
    }
    assert sorted(llamacpp_problems(tail)) == [
        "#/properties/steps/items: schema must be an object (llama.cpp has no boolean schemas)",
        "#/properties/steps: prefixItems is ignored when items is present",
    ]
    loose = {"type": "array", "prefixItems": [{"const": 1}, {"const": 2}], "minItems": 1, "maxItems": 2}
    assert "read as a tuple of exactly 2 items" in llamacpp_problems(loose)[0]
    bare = {"anyOf": [{"type": "object", "properties": {}}]}
    assert anthropic_problems(bare) == ["#: a tool's input_schema must have type object at the root"]
    assert openai_problems(bare, strict=False) == ["#: the root must be an object schema, not anyOf"]
    assert llamacpp_problems({"type": "object", "properties": {"a": {"$ref": "http://x/y"}}}) == [
        "#/properties/a: $ref 'http://x/y' must point into this document"
    ]
    assert llamacpp_problems({"type": "object", "properties": {"a": {"enum": []}}})[-1].endswith(
        "enum must be a non-empty array"
    )
    optional = {"type": "object", "properties": {"a": {"type": "string", "default": "x"}}}
    assert sorted(openai_problems(optional, strict=True)) == [
        "#/properties/a: keyword 'default' is not supported in strict mode",
        "#: every property must be required (not: a)",
        "#: objects need additionalProperties: false",
    ]
    assert anthropic_problems({"type": "object", "properties": {"a": {"type": "nonsense"}}})[0].startswith(
        "#: not a valid JSON Schema"
    )


@pytest.mark.parametrize("shape", ["classic", "compact"])
@pytest.mark.parametrize("min_steps", [1, 2, 3])
def test_plan_lengths_are_exact_tuples(min_steps: int, shape: Literal["classic", "compact"]) -> None:
    """Step k keeps its own schema and the allowed lengths are exactly min_steps..max."""
    import jsonschema

    schema = PlanSchemaBuilder(bench_like_specs(), shape=shape).plan_schema(step_ids(3), min_steps=min_steps)
    assert llamacpp_problems(schema) == []
    wire = wire_schemas(ModelRequest.of(None, "x", json_schema=schema))
    assert openai_problems(wire["openai"][0], strict=False) == []
    assert anthropic_problems(wire["anthropic"][0]) == []

    def step(k: int) -> dict[str, Any]:
        if shape == "compact":  # the id is the position; a reference shows which one
            return {"read_file": {"path": "a.txt"}} if k == 1 else {"summarize": {"text": f"${{s{k - 1}}}"}}
        return {"id": f"s{k}", "tool": "read_file", "args": {"path": "a.txt"}}

    validator = jsonschema.Draft202012Validator(schema)
    for n in range(0, 5):
        ok = validator.is_valid({"steps": [step(k) for k in range(1, n + 1)]})
        assert ok == (min_steps <= n <= 3), n
    # Positions are fixed: s2 may not come first (compact: the first step has nothing to refer to).
    assert not validator.is_valid({"steps": [step(2)]})


def test_a_plan_schema_needs_a_step() -> None:
    with pytest.raises(ValueError, match="at least one step id"):
        PlanSchemaBuilder(bench_like_specs()).plan_schema([])
