"""The plan hash of every example plan and of generated plans is the one earlier versions computed.

An approval is bound to the plan hash, and recorded runs are verified by re-hashing their stored
plan: the hash of an existing plan must never change. ``data/plan_hashes.json`` holds the hashes
computed by the sources of ``main`` at 3db0211 and at 5bdddb4 (before issue 18's plan-text and
reference-scan changes; both gave the same hashes) with

    PYTHONPATH=OLD/src .venv/bin/python tests/test_plan_hash_stable.py > tests/data/plan_hashes.json

Regenerate it only when an example plan file itself changes, never to make a hash change pass.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from forethought.plan.files import load_plan
from forethought.plan.model import Plan, canonical_dumps

ROOT = Path(__file__).resolve().parent.parent
PINNED = Path(__file__).parent / "data" / "plan_hashes.json"
EXAMPLES = ("examples/deploy/plan.yaml", "examples/deploy/plan-fails.yaml", "examples/hierarchical/plan.yaml")
EXAMPLES += ("examples/mcp/plan.yaml",)


def _step(rng: random.Random, i: int, earlier: list[str]) -> dict[str, Any]:
    sid: Any = (
        i if rng.random() < 0.2 else f"s{i}-{rng.choice(['fetch', 'parse', 'ü', 'x_y'])}".replace("ü", "u")
    )
    data: dict[str, Any] = {"id": sid}
    kind = rng.random()
    if kind < 0.75:
        data["tool"] = rng.choice(["read", "write", "http.get", "noop"])
    elif kind < 0.9:
        data["agent"] = rng.choice(["summarise the rows", "pick the best one — briefly", "翻訳して"])
    else:
        data["phase"] = {"goal": "plan the rest", "tools": ["read", "write"], "max_steps": rng.randint(1, 9)}
    args: dict[str, Any] = {}
    for k in range(rng.randint(0, 4)):
        shape = rng.random()
        if earlier and shape < 0.3:
            args[f"a{k}"] = "${" + rng.choice(earlier) + rng.choice(["", ".items", "[0]", '["a key"]']) + "}"
        elif earlier and shape < 0.4:
            args[f"a{k}"] = f"n=${{{rng.choice(earlier)}}} and $${{literal}}"
        elif shape < 0.55:
            args[f"a{k}"] = {
                "nested": [1, 2.5, None, True, "x"],
                "deep": {"k": "${" + (earlier or ["s0"])[0] + "}"},
            }
        elif shape < 0.7:
            args[f"a{k}"] = rng.choice([0, -3, 1e-7, 12345678901234567890, 0.1 + 0.2, False])
        else:
            args[f"a{k}"] = rng.choice(["plain", "", 'quote " and \\ back', "emoji 🚀", "tab\there"])
    if args or rng.random() < 0.5:
        data["args"] = args
    if earlier and rng.random() < 0.4:
        data["depends_on"] = rng.sample(earlier, k=min(len(earlier), rng.randint(1, 2)))
    if rng.random() < 0.2:
        data["description"] = rng.choice(["does the thing", "zweite Stufe", ""])
    if rng.random() < 0.2:
        data["check"] = rng.choice(
            [
                {"schema": {"type": "object", "required": ["ok"]}},
                {"regex": "^ok"},
                {"expr": "output.n > 2"},
                {"exit_code": 0},
                {"critic": "is it complete?"},
            ]
        )
    if rng.random() < 0.2:
        data["retry"] = {"attempts": rng.randint(1, 5), "backoff_s": 0.25, "retry_on": ["error", "check"]}
    if rng.random() < 0.15:
        data["timeout_s"] = rng.choice([1, 2.5, 600])
    if rng.random() < 0.15:
        data["on_failure"] = rng.choice(["continue", "replan", "rollback"])
    if data.get("tool") == "write" and rng.random() < 0.5:
        data["compensate"] = {"tool": "delete", "args": {"path": "${" + str(sid) + ".path}"}}
    if rng.random() < 0.1:
        data["approval"] = "required"
    if rng.random() < 0.1:
        data["executor"] = "process"
    return data


def generated_plans() -> dict[str, dict[str, Any]]:
    """Plans in every shape the model allows, from fixed seeds (data, not ``Plan``: any version reads it)."""
    out: dict[str, dict[str, Any]] = {}
    for seed in range(24):
        rng = random.Random(seed)
        steps: list[dict[str, Any]] = []
        ids: list[str] = []
        for i in range(rng.randint(1, 12)):
            step = _step(rng, i, ids)
            steps.append(step)
            ids.append(str(step["id"]))
        plan: dict[str, Any] = {"goal": rng.choice(["ship it", "Bericht über 2026", "", "☃"]), "steps": steps}
        if rng.random() < 0.3:
            plan["rollback"] = [{"id": "undo", "tool": "delete", "args": {"what": "${" + ids[0] + "}"}}]
        if rng.random() < 0.3:
            plan["version"], plan["parent_version"] = 3, 2
        if rng.random() < 0.3:
            plan["metadata"] = {"source": "api", "tags": ["a", "b"], "n": 1.5}
        out[f"generated/{seed}"] = plan
    # The bench's shape: one root, a fan-out referencing it, a join referencing every branch.
    fan = [{"id": "s0", "tool": "noop"}] + [
        {"id": f"s{i}", "tool": "noop", "args": {"in0": "${s0}"}} for i in range(1, 40)
    ]
    fan.append({"id": "s40", "tool": "noop", "args": {f"in{k}": f"${{s{k + 1}}}" for k in range(39)}})
    out["generated/fan"] = {"goal": "bench", "steps": fan}
    return out


def _hashes() -> dict[str, str]:
    found = {name: load_plan(ROOT / name).plan_hash() for name in EXAMPLES}
    for name, data in generated_plans().items():
        found[name] = Plan.model_validate(data).plan_hash()
    return found


def test_every_pinned_plan_hashes_as_before() -> None:
    pinned = json.loads(PINNED.read_text())
    assert set(pinned) == set(EXAMPLES) | set(generated_plans())
    assert _hashes() == pinned


@pytest.mark.parametrize("name", sorted(generated_plans()))
def test_the_kept_text_is_the_text_that_is_hashed_and_stored(name: str) -> None:
    # One text per plan object: the hash, ``canonical_json`` (the store's plan_versions row) and
    # the record (``plan_proposed``) all come from it, and it is the record's canonical dump.
    import hashlib

    plan = Plan.model_validate(generated_plans()[name])
    text = plan.canonical_json()
    assert plan.canonical_json() is text
    assert canonical_dumps(plan.record_data()) == text
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == plan.plan_hash()


if __name__ == "__main__":
    sys.stdout.write(json.dumps(_hashes(), indent=1, sort_keys=True) + "\n")


@pytest.mark.parametrize("where", ["value", "key", "goal", "quoted", "none"])
def test_a_plan_holding_the_default_retry_marker_is_encoded_plainly(where: str) -> None:
    # The default retry policy is encoded once and put in place of a marker string; a plan that
    # holds that string itself (anywhere) must still get exactly the plain encoding and hash.
    import hashlib

    from forethought.plan import model

    mark = model._DEFAULT_RETRY_MARK
    args = {
        "value": {"x": mark},
        "key": {mark: 1},
        "quoted": {"x": '"' + mark + '"'},
        "goal": {},
        "none": {},
    }[where]
    plan = Plan(
        goal=mark if where == "goal" else "g",
        steps=[
            {"id": "a", "tool": "t", "args": args},
            {"id": "b", "tool": "t", "retry": {"attempts": 2}},
            {"id": "c", "tool": "t", "args": {"v": "${a}"}},
        ],
    )
    record = plan.record_data()
    assert record["steps"][0]["retry"] == model._NO_RETRY.model_dump(mode="json")
    assert record["steps"][1]["retry"]["attempts"] == 2
    plain = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    assert plan.canonical_json() == plain
    assert plan.plan_hash() == hashlib.sha256(plain.encode("utf-8")).hexdigest()
