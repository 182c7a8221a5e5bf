from __future__ import annotations

import pytest
from pydantic import ValidationError

from forethought.plan.model import STEP_ID_PATTERN, Plan, RetryPolicy, Step


def make(**step: object) -> Plan:
    return Plan.model_validate({"goal": "g", "steps": [{"id": "a", "tool": "t", **step}]})


def test_integer_ids_and_dependencies_are_normalized_to_strings() -> None:
    plan = Plan.model_validate(
        {
            "goal": "g",
            "steps": [
                {"id": 1, "tool": "t"},
                {"id": 2, "tool": "t", "depends_on": [1, 1]},
                {"id": "3", "tool": "t", "depends_on": 2},
            ],
        }
    )
    assert [s.id for s in plan.steps] == ["1", "2", "3"]
    assert plan.steps[1].depends_on == ("1",)
    assert plan.steps[2].depends_on == ("2",)


def test_boolean_is_not_an_id() -> None:
    with pytest.raises(ValidationError):
        Plan.model_validate({"goal": "g", "steps": [{"id": True, "tool": "t"}]})


@pytest.mark.parametrize("fields", [{}, {"tool": "t", "agent": "do it"}])
def test_step_needs_exactly_one_action(fields: dict[str, str]) -> None:
    with pytest.raises(ValidationError, match="exactly one of `tool`, `agent` or `phase`"):
        Step.model_validate({"id": "a", **fields})


def test_unknown_fields_are_rejected() -> None:
    with pytest.raises(ValidationError, match="Extra inputs"):
        make(tol="typo")


def test_ids_with_dots_or_spaces_are_rejected() -> None:
    for bad in ("a.b", "a b", "", "x" * 200):
        with pytest.raises(ValidationError):
            Step.model_validate({"id": bad, "tool": "t"})


def test_dependencies_given_as_any_sequence_are_normalized_and_deduplicated() -> None:
    step = Step(id="s", tool="t", depends_on=("b", 1, "b", "1"))
    assert step.depends_on == ("b", "1")
    assert Step(id="s", tool="t", depends_on=iter(["q", "q"])).depends_on == ("q",)
    for bad in ([True], ["a.b"], [None], {"a": 1}):
        with pytest.raises(ValidationError):
            Step.model_validate({"id": "s", "tool": "t", "depends_on": bad})


def test_plan_schema_states_the_step_id_pattern() -> None:
    # pydantic-core checks the pattern itself (no Python wrapper per id), and says so in the schema.
    step = Plan.model_json_schema()["$defs"]["Step"]["properties"]
    assert step["id"]["pattern"] == STEP_ID_PATTERN
    assert step["depends_on"]["items"]["pattern"] == STEP_ID_PATTERN


def test_plan_is_frozen() -> None:
    plan = make()
    with pytest.raises(ValidationError):
        plan.goal = "other"  # type: ignore[misc]


def test_hash_is_stable_and_sensitive() -> None:
    a = make(args={"x": 1, "y": [1, 2]})
    b = Plan.model_validate_json(a.model_dump_json(by_alias=True))
    assert a.plan_hash() == b.plan_hash()
    assert a.plan_hash() != make(args={"x": 2, "y": [1, 2]}).plan_hash()
    assert a.plan_hash() != make(args={"x": 1, "y": [1, 2]}, approval="required").plan_hash()
    # key order in args does not matter: canonical JSON sorts keys
    assert make(args={"x": 1, "y": 2}).plan_hash() == make(args={"y": 2, "x": 1}).plan_hash()


def test_references_imply_dependencies() -> None:
    plan = Plan.model_validate(
        {
            "goal": "g",
            "steps": [
                {"id": "a", "tool": "t"},
                {"id": "b", "tool": "t"},
                {"id": "c", "tool": "t", "depends_on": ["b"], "args": {"x": "${a.out[0]}", "y": "${b}"}},
            ],
        }
    )
    assert plan.steps[2].all_dependencies() == ("b", "a")
    assert plan.dependency_map()["c"] == ("b", "a")


def test_to_data_omits_defaults_but_keeps_goal() -> None:
    data = make().to_data()
    assert data == {"goal": "g", "steps": [{"id": "a", "tool": "t"}]}


def test_retry_delay_grows_exponentially_within_jitter_and_cap() -> None:
    policy = RetryPolicy(attempts=5, backoff_s=1.0, backoff_max_s=3.0, jitter=0.5)
    assert policy.delay_before(2, 0.5) == pytest.approx(1.0)
    assert policy.delay_before(3, 0.5) == pytest.approx(2.0)
    assert policy.delay_before(4, 0.5) == pytest.approx(3.0)  # capped
    assert policy.delay_before(2, 0.0) == pytest.approx(0.5)
    assert policy.delay_before(2, 0.999) == pytest.approx(1.5, abs=0.01)


def test_cached_hash_and_maps_describe_their_own_plan_not_a_copy() -> None:
    plan = Plan(goal="g", steps=[Step(id="a", tool="t"), Step(id="b", tool="t", args={"x": "${a}"})])
    first = plan.plan_hash()
    assert plan.plan_hash() == first and plan.record_data()["steps"][1]["args"] == {"x": "${a}"}
    assert plan.dependents_map() == {"a": ("b",)} and plan.indegree_map() == {"a": 0, "b": 1}
    copy = plan.model_copy(update={"version": 2})
    assert copy.plan_hash() != first
    assert copy.plan_hash() == Plan(goal="g", steps=plan.steps, version=2).plan_hash()
    step = plan.steps[1]
    assert step.arg_bindings == (("x", "a", None),)
    rebound = step.model_copy(update={"args": {"y": "${c.k}", "z": "text ${a}"}})
    assert rebound.all_dependencies() == ("a", "c")
    assert rebound.arg_bindings is None  # a reference inside a longer string: general resolver
    assert plan == Plan.model_validate(plan.record_data())  # caches never leak into equality


def test_depends_on_with_unhashable_items_is_a_validation_error() -> None:
    """Found by the validator's fuzz test: ``[None, []]`` raised TypeError from the repeats
    filter instead of a validation error naming the field."""
    for deps in ([None, []], [{"a": 1}, "s0"]):
        with pytest.raises(ValidationError, match="depends_on"):
            Plan.model_validate({"goal": "g", "steps": [{"id": "s1", "tool": "t", "depends_on": deps}]})
