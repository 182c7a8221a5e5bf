"""Issue 16: a plan that misses its goal never runs unseen; a goal no tool can do says so; the
planner's confidence is asked for and recorded; `run` prints its answer on stdout; a run waiting
for approval says what it waits for. The model's decisions come from the scripted model."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from forethought.agent import Agent, Decision, PlanReview
from forethought.events import kinds as E
from forethought.models.scripted import ScriptedModel
from forethought.oversight.supervisor import Budgets
from forethought.planning.capability import missing_capabilities, missing_effects
from forethought.runs.store.sqlite import SqliteStore
from forethought.tools.base import ToolRegistry
from forethought.tools.builtin import builtin_tools

COPY = "copy notes.txt to notes-backup.txt"
READ = {"id": "s1", "tool": "read_file", "args": {"path": "notes.txt"}}
COUNT = {"id": "s2", "tool": "text_stats", "args": {"text": "${s1.content}"}}
WRITE = {"id": "s2", "tool": "write_file", "args": {"path": "notes-backup.txt", "content": "${s1.content}"}}


def plan_json(*steps: dict[str, Any], **extra: Any) -> str:
    return json.dumps({"steps": list(steps), **extra})


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("alpha beta gamma\n")
    return root


@pytest.fixture
def store(tmp_path: Path) -> Any:
    s = SqliteStore(tmp_path / "runs.db")
    yield s
    s.close()


def make_agent(ws: Path, store: SqliteStore, model: ScriptedModel, **kw: Any) -> Agent:
    return Agent(ToolRegistry(builtin_tools(ws)), model=model, store=store, **kw)


def events_of(store: SqliteStore, run_id: str, cls: type[Any]) -> list[Any]:
    return [e for e in store.events(run_id) if isinstance(e, cls)]


# ------------------------------------------------------------------ item 2: repair, then wait


async def test_uncovered_plan_is_repaired_then_waits_naming_what_is_missing(
    ws: Path, store: SqliteStore
) -> None:
    model = ScriptedModel([plan_json(READ, COUNT), plan_json(READ, COUNT)])
    agent = make_agent(ws, store, model, budgets=Budgets(max_replans=1))
    result = await agent.run(COPY, approve="all")
    model.assert_all_used()
    assert result.status == "awaiting_approval"
    assert result.state.reason.startswith("plan does not cover the goal: ")
    assert '"notes-backup.txt"' in result.state.reason
    assert not (ws / "notes-backup.txt").exists()
    assert result.state.steps["s1"].status == "pending"  # nothing ran, read-only steps included
    # The repair request showed the model the findings.
    assert "notes-backup.txt" in model.requests[1].messages[-1].content
    assert "does not do the whole goal" in model.requests[1].messages[-1].content
    # The repaired plan is a new version, recorded as such, with its coverage.
    proposed = events_of(store, result.run_id, E.PlanProposed)
    assert [(e.plan_version, e.source) for e in proposed] == [(1, "planner"), (2, "replan")]
    checked = events_of(store, result.run_id, E.PlanValidated)
    assert [e.coverage["covered"] for e in checked] == [False, False]
    assert any(m["kind"] == "missing_output" for m in checked[-1].coverage["missing"])
    assert result.plan is not None and result.plan.version == 2 and result.plan.parent_version == 1


async def test_yes_also_waits_for_an_uncovered_read_only_plan(ws: Path, store: SqliteStore) -> None:
    model = ScriptedModel([plan_json(READ, COUNT)])
    agent = make_agent(ws, store, model, budgets=Budgets(max_replans=0))  # no repair rounds
    result = await agent.run(COPY, approve="read_only")
    model.assert_all_used()
    assert result.status == "awaiting_approval"
    assert "notes-backup.txt" in result.state.reason


async def test_a_repair_that_covers_the_goal_runs_and_succeeds(ws: Path, store: SqliteStore) -> None:
    model = ScriptedModel([plan_json(READ, COUNT), plan_json(READ, WRITE)])
    result = await make_agent(ws, store, model).run(COPY, approve="all")
    model.assert_all_used()
    assert result.status == "succeeded", result.state.reason
    assert (ws / "notes-backup.txt").read_text() == "alpha beta gamma\n"
    assert result.plan is not None and result.plan.version == 2
    checked = events_of(store, result.run_id, E.PlanValidated)
    assert [e.coverage["covered"] for e in checked] == [False, True]
    approved = events_of(store, result.run_id, E.PlanApproved)
    assert len(approved) == 1 and approved[0].plan_version == 2


async def test_an_invalid_repair_keeps_the_plan_waiting(ws: Path, store: SqliteStore) -> None:
    bad = plan_json({"id": "s1", "tool": "no_such_tool", "args": {}})
    model = ScriptedModel([plan_json(READ, COUNT), bad])
    result = await make_agent(ws, store, model).run(COPY, approve="all")
    model.assert_all_used()  # an invalid answer ends the rounds
    assert result.status == "awaiting_approval"
    assert result.plan is not None and result.plan.version == 1


async def test_force_runs_an_uncovered_plan_and_records_it(ws: Path, store: SqliteStore) -> None:
    model = ScriptedModel([plan_json(READ, COUNT)])  # no repair call under --force
    result = await make_agent(ws, store, model).run(COPY, approve="all", force=True)
    model.assert_all_used()
    assert result.status == "succeeded"
    created = events_of(store, result.run_id, E.RunCreated)[0]
    assert created.config["force"] is True
    assert events_of(store, result.run_id, E.PlanValidated)[0].coverage["covered"] is False


async def test_reviewer_sees_the_findings(ws: Path, store: SqliteStore) -> None:
    seen: list[PlanReview] = []

    async def reviewer(review: PlanReview) -> Decision:
        seen.append(review)
        return Decision("reject", note="misses the copy")

    model = ScriptedModel([plan_json(READ, COUNT), plan_json(READ, COUNT)])
    agent = make_agent(ws, store, model, budgets=Budgets(max_replans=1))
    result = await agent.run(COPY, reviewer=reviewer)
    assert result.status == "cancelled"
    assert seen and seen[0].coverage is not None and not seen[0].coverage.covered
    assert seen[0].reason.startswith("plan does not cover the goal")
    assert seen[0].plan.version == 2


async def test_streamed_uncovered_plan_is_repaired_then_waits_like_a_planned_one(
    ws: Path, store: SqliteStore
) -> None:
    model = ScriptedModel([plan_json(READ, COUNT), plan_json(READ, COUNT)])
    agent = make_agent(ws, store, model, budgets=Budgets(max_replans=1))
    held = await agent.run(COPY, approve="all", stream=True)
    model.assert_all_used()  # the streamed plan, then one repair round
    assert held.status == "awaiting_approval"
    assert held.state.reason.startswith("plan does not cover the goal: ")
    assert '"notes-backup.txt"' in held.state.reason
    assert not (ws / "notes-backup.txt").exists()
    assert "does not do the whole goal" in model.requests[1].messages[-1].content
    # The repair is the next version, recorded as a revision, with its own coverage check.
    revised = events_of(store, held.run_id, E.PlanRevised)
    assert [(e.old_version, e.new_version) for e in revised] == [(1, 2)]
    checked = events_of(store, held.run_id, E.PlanValidated)
    assert [e.coverage["covered"] for e in checked] == [False, False]
    assert events_of(store, held.run_id, E.ApprovalRequested)[-1].reason == held.state.reason
    assert not events_of(store, held.run_id, E.PlanApproved)  # --yes-all approves covered plans only


async def test_streamed_plan_whose_repair_covers_the_goal_runs_the_repair(
    ws: Path, store: SqliteStore
) -> None:
    model = ScriptedModel([plan_json(READ, COUNT), plan_json(READ, WRITE)])
    result = await make_agent(ws, store, model).run(COPY, approve="all", stream=True)
    model.assert_all_used()
    assert result.status == "succeeded", result.state.reason
    assert (ws / "notes-backup.txt").read_text() == "alpha beta gamma\n"
    assert result.plan is not None and result.plan.version == 2
    assert [e.coverage["covered"] for e in events_of(store, result.run_id, E.PlanValidated)] == [False, True]
    approved = events_of(store, result.run_id, E.PlanApproved)
    assert [e.plan_version for e in approved] == [2]  # the uncovered version was never approved
    # s1 (read-only, unchanged by the repair) ran once, from the stream.
    # The repaired write reuses the id of the streamed count for another call: it is renamed, so
    # it is not taken for the count's result.
    started = [e.step_id for e in events_of(store, result.run_id, E.StepStarted)]
    assert started.count("s1") == 1 and started.count("s2_v2") == 1
    assert result.state.steps["s2_v2"].output is not None


async def test_streamed_uncovered_plan_continues_once_a_person_approves(ws: Path, store: SqliteStore) -> None:
    model = ScriptedModel([plan_json(READ, COUNT)])
    agent = make_agent(ws, store, model, budgets=Budgets(max_replans=0))
    held = await agent.run(COPY, approve="all", stream=True)
    assert held.status == "awaiting_approval"
    assert held.state.steps["s2"].status != "succeeded"
    resumed = await agent.approve(held.run_id)
    assert resumed is not None and resumed.status == "succeeded", resumed.state.reason if resumed else None
    assert resumed.state.steps["s2"].status == "succeeded"


async def test_streamed_uncovered_plan_runs_under_force(ws: Path, store: SqliteStore) -> None:
    model = ScriptedModel([plan_json(READ, COUNT)])  # no repair call under --force
    forced = await make_agent(ws, store, model).run(COPY, approve="all", stream=True, force=True)
    model.assert_all_used()
    assert forced.status == "succeeded"
    assert events_of(store, forced.run_id, E.PlanValidated)[0].coverage["covered"] is False


async def test_streamed_repair_that_changes_a_step_already_run_waits_for_a_person(
    ws: Path, store: SqliteStore
) -> None:
    (ws / "other.txt").write_text("other\n")
    changed = {"id": "s1", "tool": "read_file", "args": {"path": "other.txt"}}
    scripted = ScriptedModel([plan_json(READ, COUNT), plan_json(changed, WRITE)])
    s1_done = asyncio.Event()

    class RepairAfterS1:
        """The scripted model, whose repair answer comes only once s1 has run."""

        name = scripted.name

        async def complete(self, request: Any) -> Any:
            await s1_done.wait()
            return await scripted.complete(request)

        def stream(self, request: Any) -> Any:
            return scripted.stream(request)

    async def on_event(event: Any) -> None:
        if isinstance(event, E.StepSucceeded) and event.step_id == "s1":
            s1_done.set()

    agent = Agent(
        ToolRegistry(builtin_tools(ws)), model=RepairAfterS1(), store=store, budgets=Budgets(max_replans=1)
    )
    result = await agent.run(COPY, approve="all", stream=True, on_event=on_event)
    scripted.assert_all_used()
    # s1 already read notes.txt; keeping its output under new arguments would be a lie.
    assert result.status == "awaiting_approval"
    assert not events_of(store, result.run_id, E.PlanRevised)
    assert not (ws / "notes-backup.txt").exists()


async def test_covered_plan_runs_without_a_repair_call(ws: Path, store: SqliteStore) -> None:
    model = ScriptedModel([plan_json(READ, WRITE)])
    result = await make_agent(ws, store, model).run(COPY, approve="all")
    model.assert_all_used()
    assert result.status == "succeeded"
    assert events_of(store, result.run_id, E.PlanValidated)[0].coverage == {"covered": True, "missing": []}


# ------------------------------------------------------------------ item 3: missing capability


@pytest.mark.parametrize(
    ("goal", "line"),
    [
        ("delete notes.txt", 'no tool can delete "notes.txt"; available: '),
        ("send an email to bob@example.com", 'no tool can send "bob@example.com"; available: '),
    ],
)
async def test_a_goal_no_tool_can_do_fails_naming_the_capability(
    ws: Path, store: SqliteStore, goal: str, line: str
) -> None:
    model = ScriptedModel([])
    result = await make_agent(ws, store, model).run(goal, approve="all")
    assert result.status == "failed"
    assert result.state.reason.startswith(line)
    assert "read_file" in result.state.reason and "write_file" in result.state.reason
    assert model.requests == []  # no plan for something else was asked for
    assert (ws / "notes.txt").exists()


def test_capability_matching_reads_the_tool_specs_not_names_it_knows() -> None:
    from forethought import tool

    @tool(effect="destructive")
    def purge(target: str) -> str:
        """Erase a stored object."""
        return target

    @tool(effect="mutating")
    def notify(recipient: str, body: str) -> str:
        """Send a message to someone."""
        return recipient

    @tool
    def delete_preview(path: str) -> str:
        """Show what deleting would remove (read-only)."""
        return path

    specs = ToolRegistry([purge, notify, delete_preview]).specs()
    assert missing_capabilities("delete notes.txt", specs) == []  # "purge"/"erase" is a synonym
    assert missing_capabilities("send an email to bob@example.com", specs) == []
    only_read = ToolRegistry([delete_preview]).specs()
    # A read-only tool that mentions deleting cannot delete anything.
    assert [str(m) for m in missing_capabilities("delete notes.txt", only_read)] == [
        'no tool can delete "notes.txt"; available: delete_preview'
    ]
    # Counting is no effect: only the action check (below) asks whether some tool counts.
    assert missing_effects("count the words in notes.txt", only_read) == []


@pytest.mark.parametrize(
    ("goal", "verb"),
    [
        ("Translate notes.txt to French", "translate"),
        ("zip the docs folder", "zip"),
        ("restart the web server", "restart"),
        ("Summarize notes.txt", "summarize"),
        ("read notes.txt, then encrypt it", "encrypt"),
        ("Download https://example.com/data.csv", "download"),
    ],
)
def test_an_action_no_tool_mentions_is_a_missing_capability(ws: Path, goal: str, verb: str) -> None:
    specs = ToolRegistry(builtin_tools(ws)).specs()
    missing = missing_capabilities(goal, specs)
    assert [m.verb for m in missing] == [verb]
    assert str(missing[0]).startswith(f"no tool can {verb} ")


@pytest.mark.parametrize(
    "goal",
    [
        "count the words in notes.txt",
        "Compute 17 * 23",
        "What is 17 * 23?",
        "How many lines are in notes.txt?",
        "List the files in docs and write the list to files.txt",
        "Copy notes.txt to notes-backup.txt",
        "Append 'buy eggs' to todo.txt",
        "read notes.txt and save its word count to count.txt",
        "Notes word count, please",
    ],
)
def test_actions_the_built_ins_can_do_are_not_called_impossible(ws: Path, goal: str) -> None:
    assert missing_capabilities(goal, ToolRegistry(builtin_tools(ws)).specs()) == []


def test_an_action_is_matched_against_every_tools_words_read_only_included() -> None:
    from forethought import tool

    @tool
    def render_french(text: str) -> str:
        """Give the French translation of a text."""
        return text

    specs = ToolRegistry([render_french]).specs()
    assert missing_capabilities("translate notes.txt to French", specs) == []
    assert [m.verb for m in missing_capabilities("zip notes.txt", specs)] == ["zip"]


ADD_UP = "add up the numbers in the second column of scores.csv and write the total to total.txt"


def test_a_copy_of_the_input_does_not_cover_a_goal_that_asks_for_a_sum(ws: Path) -> None:
    """ "Add up" asks for arithmetic, not for appending: a plan that writes the file it read,
    unchanged, to the output named a run "succeeded" that computed nothing."""
    from forethought.plan.coverage import check_coverage
    from forethought.plan.model import Plan

    specs = ToolRegistry(builtin_tools(ws)).specs()
    copy = Plan.model_validate(
        {
            "goal": ADD_UP,
            "steps": [
                {"id": "s1", "tool": "read_file", "args": {"path": "scores.csv"}},
                {"id": "s2", "tool": "write_file", "args": {"path": "total.txt", "content": "${s1.content}"}},
            ],
        }
    )
    coverage = check_coverage(copy, tools=specs)
    assert not coverage.covered
    # "add up" judged as arithmetic; "the total" is a value the plan passes on uncomputed, and
    # "the second column" an item no step picks.
    assert [f.literal for f in coverage.of_kind("missing_action")] == ["add up", "total", "second column"]


def test_a_tool_named_for_the_sum_covers_add_up_and_plain_add_still_appends(ws: Path) -> None:
    from forethought import tool
    from forethought.plan.coverage import check_coverage
    from forethought.plan.model import Plan

    @tool
    def column_total(path: str, column: int) -> float:
        """Sum the numbers of one column of a CSV file."""
        return 0.0

    specs = ToolRegistry([*builtin_tools(ws), column_total]).specs()
    summed = Plan.model_validate(
        {
            "goal": ADD_UP,
            "steps": [
                {"id": "s1", "tool": "column_total", "args": {"path": "scores.csv", "column": 2}},
                {"id": "s2", "tool": "write_file", "args": {"path": "total.txt", "content": "${s1}"}},
            ],
        }
    )
    assert check_coverage(summed, tools=specs).of_kind("missing_action") == []
    append = Plan.model_validate(
        {
            "goal": "add a line saying hi to notes.txt",
            "steps": [
                {
                    "id": "s1",
                    "tool": "write_file",
                    "args": {"path": "notes.txt", "content": "hi", "append": True},
                }
            ],
        }
    )
    assert check_coverage(append, tools=specs).of_kind("missing_action") == []


def test_a_phrasal_verb_is_judged_by_its_own_meaning(ws: Path) -> None:
    files = {
        n: s for n, s in ToolRegistry(builtin_tools(ws)).specs().items() if n in ("read_file", "write_file")
    }
    assert [m.verb for m in missing_capabilities("add up the numbers in scores.csv", files)] == ["add up"]
    assert missing_capabilities("add a line to notes.txt", files) == []
    # "print out", "find out": show or tell, which any tool that returns something does.
    assert missing_capabilities("print out notes.txt", files) == []


def _coverage_of(ws: Path, goal: str, *steps: dict[str, Any]) -> Any:
    from forethought.plan.coverage import check_coverage
    from forethought.plan.model import Plan

    plan = Plan.model_validate({"goal": goal, "steps": list(steps)})
    return check_coverage(plan, tools=ToolRegistry(builtin_tools(ws)).specs())


def _read(sid: str, path: str) -> dict[str, Any]:
    return {"id": sid, "tool": "read_file", "args": {"path": path}}


def _write(sid: str, path: str, content: str) -> dict[str, Any]:
    return {"id": sid, "tool": "write_file", "args": {"path": path, "content": content}}


@pytest.mark.parametrize(
    ("goal", "steps", "word"),
    [
        # The file written as read: "succeeded", with the whole CSV in max.txt.
        (
            "find the largest number in scores.csv and write it to max.txt",
            [_read("s1", "scores.csv"), _write("s2", "max.txt", "${s1.content}")],
            "largest",
        ),
        # The answer printed is the file itself.
        ("how many lines are in notes.txt?", [_read("s1", "notes.txt")], "how many"),
        ("What is the average score in scores.csv?", [_read("s1", "scores.csv")], "average"),
        # A step in between that says it counts, not averages: the counts were printed as the
        # average (bench/outcomes, "what is the average qty in data.csv").
        (
            "What is the average qty in data.csv?",
            [_read("s1", "data.csv"), {"id": "s2", "tool": "text_stats", "args": {"text": "${s1.content}"}}],
            "average",
        ),
    ],
)
def test_a_value_the_goal_asks_for_is_not_covered_by_passing_on_what_was_read(
    ws: Path, goal: str, steps: list[dict[str, Any]], word: str
) -> None:
    coverage = _coverage_of(ws, goal, *steps)
    assert not coverage.covered
    assert word in [f.literal for f in coverage.of_kind("missing_action")]


@pytest.mark.parametrize(
    ("goal", "steps"),
    [
        # Something between reading and answering: not judged (the step may well compute it).
        (
            "how many lines are in notes.txt?",
            [_read("s1", "notes.txt"), {"id": "s2", "tool": "text_stats", "args": {"text": "${s1.content}"}}],
        ),
        # The root's own arguments compute it.
        (
            "write the largest of 3, 5 and 9 to m.txt",
            [
                {"id": "s1", "tool": "calculate", "args": {"expression": "max(3, 5, 9)"}},
                _write("s2", "m.txt", "${s1.value}"),
            ],
        ),
        # A field the goal names is picked: what the record says is the answer.
        (
            "what is the size of notes.txt? write the total size to size.txt",
            [_read("s1", "notes.txt"), _write("s2", "size.txt", "${s1.size}")],
        ),
        # A word inside a literal asks for nothing.
        (
            "copy total.txt to largest.txt",
            [_read("s1", "total.txt"), _write("s2", "largest.txt", "${s1.content}")],
        ),
    ],
)
def test_a_value_computed_or_not_asked_for_is_not_held_against_the_plan(
    ws: Path, goal: str, steps: list[dict[str, Any]]
) -> None:
    coverage = _coverage_of(ws, goal, *steps)
    assert coverage.of_kind("missing_action") == [], coverage.missing


def test_a_processing_step_described_in_the_past_tense_computes_the_value(ws: Path) -> None:
    """ "The seconds of some tracks added together" says it sums them, as "adds" would."""
    from forethought import tool
    from forethought.plan.coverage import check_coverage
    from forethought.plan.model import Plan

    @tool
    def play_seconds(text: str) -> int:
        """The seconds of some tracks added together."""
        return 0

    @tool
    def track_count(text: str) -> int:
        """The tracks of a list, counted."""
        return 0

    specs = ToolRegistry([*builtin_tools(ws), play_seconds, track_count]).specs()
    for tool_name, goal in (
        ("play_seconds", "write the sum of the seconds in mix.txt to s.txt"),
        ("track_count", "how many tracks are in mix.txt? write it to n.txt"),
    ):
        plan = Plan.model_validate(
            {
                "goal": goal,
                "steps": [
                    _read("s1", "mix.txt"),
                    {"id": "s2", "tool": tool_name, "args": {"text": "${s1.content}"}},
                    _write("s3", goal.split()[-1], "${s2}"),
                ],
            }
        )
        assert check_coverage(plan, tools=specs).of_kind("missing_action") == [], goal


def test_a_root_tool_named_for_the_value_computes_it(ws: Path) -> None:
    """A tool's name counts; its description and parameters do not ("at most max_bytes")."""
    from forethought import tool
    from forethought.plan.coverage import check_coverage
    from forethought.plan.model import Plan

    @tool
    def largest_in_file(path: str) -> float:
        """Read a file of numbers."""
        return 0.0

    specs = ToolRegistry([*builtin_tools(ws), largest_in_file]).specs()
    goal = "find the largest number in scores.csv and write it to max.txt"
    named = Plan.model_validate(
        {
            "goal": goal,
            "steps": [
                {"id": "s1", "tool": "largest_in_file", "args": {"path": "scores.csv"}},
                _write("s2", "max.txt", "${s1}"),
            ],
        }
    )
    assert check_coverage(named, tools=specs).of_kind("missing_action") == []
    assert "max" in " ".join(str(v) for v in specs["read_file"].input_schema["properties"])
    unnamed = Plan.model_validate(
        {"goal": goal, "steps": [_read("s1", "scores.csv"), _write("s2", "max.txt", "${s1.content}")]}
    )
    assert check_coverage(unnamed, tools=specs).of_kind("missing_action") != []


@given(st.text(alphabet=st.characters(codec="ascii", categories=("L", "N", "P", "Zs")), max_size=60))
def test_a_clause_is_judged_only_when_it_opens_with_a_known_action_verb(text: str) -> None:
    from forethought.planning.capability import ACTIONS, missing_actions

    for m in missing_actions(text, {}):
        assert m.verb in ACTIONS


def test_plan_command_names_the_missing_capability_without_a_model_call(
    cli_env: Path, ws: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from forethought.interfaces.cli.main import run

    monkeypatch.chdir(ws)
    replies = cli_env / "none.json"
    replies.write_text("[]")  # a model call would end in "unexpected model call", exit 2
    code = run(["plan", "translate notes.txt to French", "--model", f"scripted:{replies}"])
    err = capsys.readouterr().err
    assert code == 1
    assert err.count("\n") == 1 and 'no tool can translate "notes.txt to French"' in err


# ------------------------------------------------------------------ item 4: confidence


async def test_planner_asks_for_confidence_and_low_confidence_waits(ws: Path, store: SqliteStore) -> None:
    model = ScriptedModel([plan_json(READ, WRITE, confidence=0.3)])
    agent = make_agent(ws, store, model, confidence_threshold=0.5)
    result = await agent.run(COPY, approve="all")
    schema = model.requests[0].json_schema
    assert schema is not None and "confidence" in schema["properties"]
    assert "confidence" in model.requests[0].messages[0].content
    assert result.plan is not None and result.plan.metadata["confidence"] == 0.3
    assert result.status == "awaiting_approval"
    assert not (ws / "notes-backup.txt").exists()
    assert result.state.steps["s1"].status == "succeeded"  # read-only work ran
    assert events_of(store, result.run_id, E.PlanValidated)[0].confidence == 0.3


async def test_confident_plan_runs_and_records_its_confidence(ws: Path, store: SqliteStore) -> None:
    model = ScriptedModel([plan_json(READ, WRITE, confidence=0.9)])
    result = await make_agent(ws, store, model, confidence_threshold=0.5).run(COPY, approve="all")
    assert result.status == "succeeded"
    assert events_of(store, result.run_id, E.PlanValidated)[0].confidence == 0.9


async def test_out_of_range_confidence_is_ignored(ws: Path, store: SqliteStore) -> None:
    model = ScriptedModel([plan_json(READ, WRITE, confidence=7)])
    result = await make_agent(ws, store, model, confidence_threshold=0.5).run(COPY, approve="all")
    assert result.plan is not None and "confidence" not in result.plan.metadata
    assert events_of(store, result.run_id, E.PlanValidated)[0].confidence is None


# ------------------------------------------------------------------ items 6, 7: the CLI


@pytest.fixture
def cli_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var.lower()))
    return tmp_path


def run_cli(tmp_path: Path, ws: Path, goal: str, replies: list[str], *flags: str) -> Any:
    from forethought.interfaces.cli.run_cmd import run

    path = tmp_path / f"replies-{len(list(tmp_path.glob('replies-*')))}.json"
    path.write_text(json.dumps(replies))
    args = [goal, "--model", f"scripted:{path}", "--workspace", str(ws), "--db", str(tmp_path / "cli.db")]
    return CliRunner().invoke(run, [*args, *flags], standalone_mode=False)


def test_run_prints_its_answer_on_stdout(cli_env: Path, ws: Path) -> None:
    stats = {"id": "s2", "tool": "text_stats", "args": {"text": "${s1.content}"}}
    result = run_cli(cli_env, ws, "count the words in notes.txt", [plan_json(READ, stats)], "--yes")
    assert result.exception is None, result.output
    assert result.return_value == 0, result.stderr
    assert json.loads(result.stdout) == {"lines": 1, "words": 3, "characters": 17}
    assert "succeeded" in result.stderr and "succeeded" not in result.stdout


def test_several_final_steps_are_printed_as_id_and_output(cli_env: Path, ws: Path) -> None:
    (ws / "b.txt").write_text("two words")
    other = {"id": "s2", "tool": "read_file", "args": {"path": "b.txt"}}
    result = run_cli(cli_env, ws, "read notes.txt and b.txt", [plan_json(READ, other)], "--yes")
    assert result.return_value == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split(":", 1)[0] for line in lines] == ["s1", "s2"]
    assert '"content": "two words"' in lines[1]


def test_awaiting_approval_lists_each_side_effecting_step(cli_env: Path, ws: Path) -> None:
    from forethought.interfaces.cli.runs_cmd import show_command

    write = {"id": "s1", "tool": "write_file", "args": {"path": "greeting.txt", "content": "hello"}}
    result = run_cli(cli_env, ws, 'write "hello" to greeting.txt', [plan_json(write)], "--yes")
    assert result.return_value == 3, result.stderr
    assert result.stdout == ""
    assert 's1  write_file(path="greeting.txt", content="hello")' in result.stderr
    assert not (ws / "greeting.txt").exists()
    run_id = result.stderr.split("run ", 1)[1].split(":", 1)[0]
    shown = CliRunner().invoke(show_command, [run_id, "--db", str(cli_env / "cli.db")], standalone_mode=False)
    assert shown.exception is None, shown.output
    assert "waiting for approval:" in shown.stdout
    assert 's1  write_file(path="greeting.txt", content="hello")' in shown.stdout
    as_json = CliRunner().invoke(
        show_command, [run_id, "--db", str(cli_env / "cli.db"), "--json"], standalone_mode=False
    )
    data = json.loads(as_json.stdout)
    assert data["pending_steps"] == [
        {
            "step_id": "s1",
            "tool": "write_file",
            "args": {"path": "greeting.txt", "content": "hello"},
            "agent": None,
        }
    ]
    assert data["coverage"] == {"covered": True, "missing": []}


def test_cli_uncovered_plan_exits_3_naming_the_missing_output(cli_env: Path, ws: Path) -> None:
    replies = [plan_json(READ, COUNT)] * 4  # the plan, then the same answer to every repair round
    result = run_cli(cli_env, ws, COPY, replies, "--yes-all")
    assert result.return_value == 3, result.stderr
    assert "plan does not cover the goal" in result.stderr and "notes-backup.txt" in result.stderr
    assert result.stdout == ""
    assert not (ws / "notes-backup.txt").exists()
    # Streamed (the default with --yes-all) it is repaired as well, and ends the same way.
    as_json = run_cli(cli_env, ws, COPY, replies, "--yes-all", "--json")
    assert as_json.return_value == 3
    data = json.loads(as_json.stdout)
    assert data["status"] == "awaiting_approval" and data["coverage"]["covered"] is False
    assert data["plan_version"] == 4
    # Planned first, it is repaired and then waits for approval before anything runs.
    planned = run_cli(cli_env, ws, COPY, replies, "--yes-all", "--json", "--no-stream")
    assert planned.return_value == 3
    data = json.loads(planned.stdout)
    assert data["status"] == "awaiting_approval" and data["coverage"]["covered"] is False
    assert data["plan_version"] == 4  # v1 and three repairs (max_replans = 3)
    assert any("notes-backup.txt" in m["message"] for m in data["coverage"]["missing"])
    forced = run_cli(cli_env, ws, COPY, [plan_json(READ, COUNT)], "--yes-all", "--force", "--json")
    assert forced.return_value == 0, forced.stderr
    assert json.loads(forced.stdout)["coverage"]["covered"] is False  # ran anyway, and says so


def test_cli_missing_capability_exits_1_with_one_line(cli_env: Path, ws: Path) -> None:
    result = run_cli(cli_env, ws, "delete notes.txt", [], "--yes-all")
    assert result.return_value == 1
    assert 'no tool can delete "notes.txt"; available: ' in result.stderr
    assert (ws / "notes.txt").exists()


async def test_review_screen_shows_the_findings(
    ws: Path, store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    import click
    from rich.console import Console

    from forethought.interfaces.cli._display import InteractiveReviewer

    answers = iter(["r", "misses the copy"])
    monkeypatch.setattr(click, "prompt", lambda *a, **k: next(answers))
    out = io.StringIO()
    reviewer = InteractiveReviewer(Console(file=out, width=200, no_color=True))
    model = ScriptedModel([plan_json(READ, COUNT)])
    result = await make_agent(ws, store, model, budgets=Budgets(max_replans=0)).run(COPY, reviewer=reviewer)
    assert result.status == "cancelled"
    screen = out.getvalue()
    assert "The plan does not cover the goal:" in screen
    assert 'the goal asks to copy to "notes-backup.txt"' in screen


def test_a_model_failure_during_the_coverage_repair_leaves_the_plan_waiting(tmp_path: Path) -> None:
    """The repair round is a courtesy: if the model fails there, the uncovered plan is not lost
    and nothing runs; the run waits for a person, and no "internal error" is printed."""
    replies = tmp_path / "replies.json"
    plan = {"steps": [{"id": "s1", "tool": "calculate", "args": {"expression": "2 + 2"}}]}
    replies.write_text(json.dumps([json.dumps(plan)]))  # one reply: the repair call finds none
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "forethought",
            "run",
            "add one and one",
            "--model",
            f"scripted:{replies}",
            "--yes",
            "--no-stream",
            "--db",
            str(tmp_path / "runs.db"),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 3, proc.stderr
    assert "internal error" not in proc.stderr
    assert "does not cover the goal" in proc.stderr
