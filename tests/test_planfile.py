from __future__ import annotations

import json
from pathlib import Path

import pytest

from forethought.plan.files import PlanFileError, dump_plan, lint_file, load_plan, write_plan

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("p.yaml", "goal: x\nsteps: [\n", "p.yaml:2:8: invalid YAML: unclosed bracket '['"),
        ("p.yaml", "goal: x\n  bad: indent\n", "p.yaml:2:"),
        ("p.yaml", "goal: x\ngoal: y\n", "invalid YAML: duplicate mapping key"),
        (
            "p.yaml",
            "goal: x\nsteps: [{id: a, tool: t, args: {x: .nan}}]\n",
            "steps[0].args.x: nan is not a finite number",
        ),
        ("p.json", '{"goal": "x", "steps": [], "metadata": {"a": NaN}}', "NaN is not a number"),
        ("p.json", '{"goal": "x", "steps": [}', "p.json:1:25: invalid JSON"),
        ("p.yaml", "", "a plan must be a mapping"),
        ("p.yaml", "42\n", "a plan must be a mapping with `goal` and `steps` (got int)"),
        ("p.json", '"just a string"', "(got str)"),
    ],
)
def test_malformed_files_give_one_line_errors(tmp_path: Path, name: str, text: str, expected: str) -> None:
    path = write(tmp_path, name, text)
    try:
        loaded = lint_file(path)
    except PlanFileError as exc:
        message = str(exc)
    else:
        message = str(loaded.problems[0])
    assert expected in message
    assert "\n" not in message


def test_python_tags_are_refused_and_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    text = f"goal: !!python/object/apply:os.system\n  - touch {marker}\nsteps: []\n"
    with pytest.raises(
        PlanFileError,
        match=r"evil.yaml:1:7: invalid YAML: tag "
        r"'!!python/object/apply:os.system' is not allowed in plan files",
    ):
        lint_file(write(tmp_path, "evil.yaml", text))
    assert not marker.exists()


def test_exclamation_marks_in_text_are_not_tags(tmp_path: Path) -> None:
    text = "goal: ship it !\nsteps:\n  - {id: a, tool: t, args: {msg: 'wow !important'}}\n"
    plan = load_plan(write(tmp_path, "p.yaml", text))
    assert plan.goal == "ship it !"
    assert plan.steps[0].args == {"msg": "wow !important"}


def test_yaml_1_2_semantics_and_dates(tmp_path: Path) -> None:
    text = "goal: g\nsteps:\n  - {id: a, tool: t, args: {country: no, when: 2024-01-02}}\n"
    plan = load_plan(write(tmp_path, "p.yaml", text))
    assert plan.steps[0].args == {"country": "no", "when": "2024-01-02"}


def test_not_utf8_and_missing_and_directory(tmp_path: Path) -> None:
    bad = tmp_path / "b.yaml"
    bad.write_bytes(b"goal: \xff\xfe\n")
    with pytest.raises(PlanFileError, match="not UTF-8"):
        lint_file(bad)
    with pytest.raises(PlanFileError, match="no such plan file"):
        lint_file(tmp_path / "missing.yaml")
    with pytest.raises(PlanFileError, match="is a directory"):
        lint_file(tmp_path)


def big_plan(n: int, payload: int = 0) -> dict[str, object]:
    steps: list[dict[str, object]] = []
    for i in range(n):
        step: dict[str, object] = {"id": f"s{i}", "tool": "noop", "args": {"x": "y" * payload}}
        if i:
            step["depends_on"] = [f"s{i - 1}"]
            step["args"] = {"x": "y" * payload, "prev": f"${{s{i - 1}}}"}
        steps.append(step)
    return {"goal": "big", "steps": steps}


def test_ten_thousand_steps_load(tmp_path: Path) -> None:
    path = write(tmp_path, "big.json", json.dumps(big_plan(10_000)))
    plan = load_plan(path)
    assert len(plan.steps) == 10_000
    assert plan.steps[-1].all_dependencies() == ("s9998",)


def test_ten_megabyte_plan_is_handled(tmp_path: Path) -> None:
    path = write(tmp_path, "big.yaml", json.dumps(big_plan(1_000, payload=10_000)))
    assert path.stat().st_size > 10_000_000
    assert len(load_plan(path).steps) == 1_000


def test_oversized_file_is_refused_before_parsing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("forethought.plan.files.MAX_PLAN_BYTES", 1000)
    path = write(tmp_path, "huge.json", json.dumps(big_plan(100, payload=100)))
    with pytest.raises(PlanFileError, match="over the limit of 1,000 bytes; split the plan"):
        load_plan(path)


def test_problems_carry_file_lines(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "p.yaml",
        "goal: g\nsteps:\n  - id: a\n    tool: t\n"
        "  - id: b\n    tool: t\n    depends_on: [zz]\n    bogus: 1\n",
    )
    problems = lint_file(path).problems
    texts = [str(p) for p in problems]
    assert any(t.startswith(f"{path}:8: step 'b' bogus: unknown field") for t in texts), texts


def test_dump_load_round_trip_in_both_formats(tmp_path: Path) -> None:
    plan = load_plan(Path(__file__).parent / "fixtures" / "plans" / "good.yaml")
    for name in ("x.yaml", "x.json"):
        write_plan(plan, tmp_path / name)
        again = load_plan(tmp_path / name)
        assert again == plan
        assert again.plan_hash() == plan.plan_hash()
    assert dump_plan(plan).startswith("goal: migrate")


def _seed_json_block(text: str, start_marker: str) -> str:
    start = text.index(start_marker)
    start = text.index("{", start)
    depth = 0
    for i in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[start : i + 1]
    raise AssertionError("unterminated")


@pytest.mark.skipif(not SEEDS.exists(), reason="shared seeds not beside the checkout")
def test_seed_deployment_plan_imports(tmp_path: Path) -> None:
    seed = next(SEEDS.glob("000_*.txt")).read_text(encoding="utf-8")
    block = _seed_json_block(seed, "Planner output:")
    path = write(tmp_path, "deploy.json", block)
    plan = load_plan(path)
    assert [s.id for s in plan.steps] == [str(i) for i in range(1, 9)]
    assert plan.step("6").depends_on == ("3", "5")
    assert plan.step("2").tool == "build_docker"
    assert plan.step("2").args == {"tag": "v2.3.1"}
    assert [s.tool for s in plan.rollback] == ["rollback_production", "notify_team"]
    assert [s.id for s in plan.rollback] == ["rollback_1", "rollback_2"]


def test_seed_list_style_with_input_strings_imports(tmp_path: Path) -> None:
    data = [
        {"id": 1, "description": "search", "tool": "web_search", "input": "solar trends", "depends_on": []},
        {
            "id": 2,
            "description": "summarize",
            "tool": "summarize_text",
            "input": "Summarize {step_1_result}",
            "depends_on": [1],
        },
        {"id": 3, "description": "think about it", "tool": "none", "input": "", "depends_on": [2]},
    ]
    plan = load_plan(write(tmp_path, "seed.json", json.dumps(data)))
    assert plan.step("2").args == {"input": "Summarize ${1}"}
    assert plan.step("3").agent == "think about it"
    assert plan.step("3").tool is None
