"""`forethought lint` and goal coverage (issue 16 item 1), built-ins and located problems (item 8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from forethought.interfaces.cli.plan_file_cmds import lint

COPY_AS_COUNT = """\
goal: copy notes.txt to notes-backup.txt
steps:
  - id: s1
    tool: read_file
    args: {path: notes.txt}
  - id: s2
    tool: text_stats
    args: {text: "${s1.content}"}
"""

COPY = """\
goal: copy notes.txt to notes-backup.txt
steps:
  - id: s1
    tool: read_file
    args: {path: notes.txt}
  - id: s2
    tool: write_file
    args: {path: notes-backup.txt, content: "${s1.content}"}
"""

TOOLS = """\
from forethought import tool

@tool
def shout(text: str) -> str:
    return text.upper()
"""


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORETHOUGHT_BUILTINS", raising=False)
    (tmp_path / "tools.py").write_text(TOOLS)
    return tmp_path


def invoke(*args: str) -> Result:
    return CliRunner().invoke(lint, list(args), standalone_mode=False)


def test_lint_prints_coverage_findings_and_exits_0(here: Path) -> None:
    (here / "plan.yaml").write_text(COPY_AS_COUNT)
    plain = invoke("plan.yaml")  # coverage is checked only when asked: a plain lint is unchanged
    assert plain.return_value == 0 and "coverage" not in plain.stdout
    result = invoke("plan.yaml", "--coverage")
    assert result.exception is None, result.output
    assert result.return_value == 0
    lines = result.stdout.splitlines()
    assert 'coverage: goal literal "notes-backup.txt" is used by no step' in lines
    assert any(line.startswith("coverage: ") and "side-effecting" in line for line in lines)
    assert "3 coverage finding(s)" in lines[-1]
    strict = invoke("plan.yaml", "--strict-coverage")
    assert strict.return_value == 1
    # The covering plan: no findings, exit 0 even when strict.
    (here / "good.yaml").write_text(COPY)
    good = invoke("good.yaml", "--strict-coverage")
    assert good.return_value == 0
    assert "coverage:" not in good.stdout and "covers its goal" in good.stdout


def test_goal_option_overrides_the_plans_goal(here: Path) -> None:
    (here / "plan.yaml").write_text(COPY_AS_COUNT)
    result = invoke("plan.yaml", "--goal", "how many words are in notes.txt?", "--strict-coverage")
    assert result.return_value == 0, result.stdout
    result = invoke("plan.yaml", "--goal", "summarize report.md")
    assert 'coverage: goal literal "report.md" is used by no step' in result.stdout
    # A step's finding is located at its line: `args: {path: notes.txt}` is line 5.
    assert "coverage: plan.yaml:5: step 's1' args.path = 'notes.txt' appears neither" in result.stdout


def test_lint_json_has_coverage(here: Path) -> None:
    (here / "plan.yaml").write_text(COPY_AS_COUNT)
    assert json.loads(invoke("plan.yaml", "--json").stdout)["coverage"] is None
    data = json.loads(invoke("plan.yaml", "--coverage", "--json").stdout)
    assert data["ok"] is True
    assert data["coverage"]["covered"] is False
    kinds = {(f["kind"], f.get("literal") or f.get("step_id")) for f in data["coverage"]["missing"]}
    assert ("missing_output", "notes-backup.txt") in kinds
    (here / "good.yaml").write_text(COPY)
    good = json.loads(invoke("good.yaml", "--coverage", "--json").stdout)
    assert good["coverage"] == {"covered": True, "missing": []}


def test_invalid_plan_exits_2_without_coverage(here: Path) -> None:
    (here / "bad.yaml").write_text(COPY_AS_COUNT.replace("id: s2", "id: s1"))
    result = invoke("bad.yaml", "--json")
    assert result.return_value == 2
    assert json.loads(result.stdout)["coverage"] is None


def test_tools_option_keeps_the_configured_builtins(here: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (here / "plan.yaml").write_text(COPY)
    result = invoke("plan.yaml", "--tools", "tools.py")
    assert result.return_value == 0, result.stdout
    assert "unknown tool" not in result.stdout
    # Built-ins switched off in the configuration: then write_file really is unknown.
    monkeypatch.setenv("FORETHOUGHT_BUILTINS", "none")
    result = invoke("plan.yaml", "--tools", "tools.py")
    assert result.return_value == 2
    assert "write_file" in result.stdout


DUPLICATE = """\
goal: count the words in notes.txt
steps:
  - id: s1
    tool: read_file
    args: {path: notes.txt}
  - id: s2
    tool: text_stats
    args:
      text: "${s1.content}"
  - id: s1
    tool: shout
    args:
      text: "${nope}"
"""


def test_duplicate_id_and_unknown_reference_are_located_at_the_offending_line(here: Path) -> None:
    (here / "dup.yaml").write_text(DUPLICATE)
    result = invoke("dup.yaml", "--tools", "tools.py")
    assert result.return_value == 2
    lines = result.stdout.splitlines()
    dup = next(line for line in lines if "duplicate step id" in line)
    assert dup.startswith("dup.yaml:10: ")  # the second `id: s1`, not the first on line 3
    nope = next(line for line in lines if "${nope}" in line)
    assert nope.startswith("dup.yaml:13: ")  # the `text: "${nope}"` line


def test_seed_style_bare_list_still_locates_problems(here: Path) -> None:
    (here / "seed.yaml").write_text(
        "- id: 1\n  action: read_file\n  params: {path: a.txt}\n"
        "- id: 1\n  action: read_file\n  params: {path: b.txt}\n"
    )
    result = invoke("seed.yaml")
    assert result.return_value == 2
    dup = next(line for line in result.stdout.splitlines() if "duplicate step id" in line)
    assert dup.startswith("seed.yaml:4: ")


# ----------------------------------------------------------------------------- forethought plan


def _scripted(tmp: Path, *steps: list[dict[str, object]]) -> str:
    replies = [json.dumps({"steps": s}) for s in steps]
    path = tmp / "replies.json"
    path.write_text(json.dumps(replies))
    return f"scripted:{path}"


def invoke_plan(*args: str) -> Result:
    from forethought.interfaces.cli.plan_cmd import plan

    return CliRunner().invoke(plan, list(args), standalone_mode=False)


WANDERING = [
    {"id": "s1", "tool": "list_dir", "args": {"path": "greeting_list_dir"}},
    {"id": "s2", "tool": "write_file", "args": {"path": "greeting.txt", "content": 5}},
]


def test_plan_never_calls_a_pruned_plan_valid_and_prints_coverage(here: Path) -> None:
    # Issue 16: "write hello world to greeting.txt" came back as list_dir(greeting_list_dir)
    # with metadata.pruned [s2], printed as "valid plan".
    model = _scripted(here, WANDERING, WANDERING, WANDERING)
    result = invoke_plan("write hello world to greeting.txt", "--model", model, "--no-memory")
    assert result.exception is None, result.output
    assert "valid plan" not in result.stderr
    assert "valid after repair: pruned steps s2" in result.stderr
    assert 'coverage: goal literal "hello world" is used by no step' in result.stderr
    assert "coverage:" not in result.stdout  # stdout stays the plan artifact


def test_plan_json_and_a_covering_plan(here: Path) -> None:
    good = [{"id": "s1", "tool": "write_file", "args": {"path": "greeting.txt", "content": "hello world"}}]
    model = _scripted(here, good)
    result = invoke_plan("write hello world to greeting.txt", "--model", model, "--no-memory")
    assert result.return_value == 0
    assert "valid plan from" in result.stderr and "coverage:" not in result.stderr
    model = _scripted(here, WANDERING, WANDERING, WANDERING)
    data = json.loads(
        invoke_plan("write hello world to greeting.txt", "--model", model, "--no-memory", "--json").stdout
    )
    assert data["pruned"] == ["s2"]
    assert data["coverage"]["covered"] is False
    assert {"missing_literal", "missing_output", "invented_argument"} <= {
        f["kind"] for f in data["coverage"]["missing"]
    }
