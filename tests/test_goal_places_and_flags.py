"""Two false successes found as a new user on the built-in tools, and what now stops them:

- "append 'done' to notes.txt" ran ``write_file`` without ``append`` and replaced the file's
  content (data lost, "succeeded"). The planner now sets an optional boolean parameter the goal
  says by name, and the coverage check flags a step that leaves it false.
- "write the first line of notes.txt to first.txt" wrote ``text_stats``' line count ("1"),
  then, with that caught, the whole file. An item picked by its place ("first line") must be
  picked by some step named for it, and a count of the items is no item.

The tool sets are made up here (a "logbook"), apart from one end-to-end run on the built-ins."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from forethought import tool
from forethought.agent import Agent
from forethought.models.scripted import ScriptedModel
from forethought.plan.coverage import check_coverage, flag_named
from forethought.plan.model import Plan
from forethought.plan.verbs import asked_items
from forethought.planning.planner import best_chain
from forethought.planning.refinements import Refinements
from forethought.tools.base import ToolRegistry


class Tally(BaseModel):
    entries: int
    pages: int


@tool
def open_log(log_name: str) -> str:
    """The text of a logbook."""
    return ""


@tool
def log_tally(text: str) -> Tally:
    """Count the entries and pages of a logbook's text."""
    return Tally(entries=0, pages=0)


@tool
def opening_page(text: str) -> str:
    """The first page of a logbook's text."""
    return ""


@tool(effect="mutating")
def jot_down(log_name: str, text: str, at_end: bool = False, stamped: bool = False) -> str:
    """Write text into a logbook, replacing it, or at its end."""
    return log_name


SPECS = {t.spec.name: t.spec for t in (open_log, log_tally, opening_page, jot_down)}


def _plan(goal: str, *steps: dict[str, Any]) -> Plan:
    return Plan.model_validate({"goal": goal, "steps": list(steps)})


def _kinds(plan: Plan) -> list[str]:
    return [f"{f.kind}:{f.literal}" for f in check_coverage(plan, tools=SPECS).missing]


def test_a_flag_is_named_by_every_word_of_its_name_and_not_after_a_negation() -> None:
    assert flag_named("append", "append 'done' to notes.txt")
    assert flag_named("at_end", "put 'done' at the end of log.txt")
    assert not flag_named("at_end", "put 'done' at the top of log.txt")
    assert flag_named("stamped", "jot it down, stamped")
    assert not flag_named("append", "do not append; write 'done' to notes.txt")
    assert not flag_named("stamped", "write it without stamped dates")
    # An inflection names it, a longer word that starts the same does not.
    assert flag_named("append", "it is to be appended to notes.txt")
    assert not flag_named("append", "write the appendix to notes.txt")


def test_coverage_flags_a_flag_the_goal_names_but_the_step_leaves_false() -> None:
    goal = "put 'done' at the end of log.txt"
    jot = {"id": "s1", "tool": "jot_down", "args": {"log_name": "log.txt", "text": "done"}}
    assert "missing_action:at_end" in _kinds(_plan(goal, jot))
    assert "missing_action:at_end" in _kinds(_plan(goal, {**jot, "args": {**jot["args"], "at_end": False}}))
    assert "missing_action:at_end" not in _kinds(
        _plan(goal, {**jot, "args": {**jot["args"], "at_end": True}})
    )
    # A flag the goal does not say is no concern of the check.
    assert "missing_action:at_end" not in _kinds(_plan("put 'done' in log.txt", jot))


def test_the_planner_sets_a_flag_the_goal_names() -> None:
    goal = "write 'done' to log.txt at the end"
    chosen = best_chain(goal, SPECS, True)
    assert chosen is not None
    args = chosen.slots.first_plan()["steps"][-1]["args"]
    assert args["at_end"] is True and "stamped" not in args
    off = best_chain(goal, SPECS, True, refinements=Refinements(named_flags=False))
    assert off is None or off.slots.first_plan()["steps"][-1]["args"].get("at_end") is not True


def test_an_item_by_its_place_is_asked_only_before_a_noun() -> None:
    assert asked_items("write the first line of a.txt to b.txt") == [("first", "line")]
    assert asked_items("its last entry") == [("last", "entry")]
    assert asked_items("first read a.txt, then count its words") == []
    assert asked_items("First, count the words in a.txt") == []
    assert asked_items("which entry came first? write it to b.txt") == []


def test_coverage_flags_a_count_or_the_whole_text_for_an_item_by_its_place() -> None:
    goal = "write the first page of log.txt to first.txt"
    read = {"id": "s1", "tool": "open_log", "args": {"log_name": "log.txt"}}
    tally = {"id": "s2", "tool": "log_tally", "args": {"text": "${s1}"}}
    pick = {"id": "s2", "tool": "opening_page", "args": {"text": "${s1}"}}

    def write(ref: str, target: str = "first.txt") -> dict[str, Any]:
        return {"id": "s3", "tool": "jot_down", "args": {"log_name": target, "text": ref}}

    # A count of pages is no page (the field's name is the goal's noun: the rule that lets a
    # named field answer "how many pages" must not let it answer "the first page").
    counted = _kinds(_plan(goal, read, tally, write("${s2.pages}")))
    assert "missing_action:first page" in counted
    whole = _kinds(_plan(goal, read, {**write("${s1}"), "id": "s2"}))
    assert "missing_action:first page" in whole  # the text passed on unchanged
    assert _kinds(_plan(goal, read, pick, write("${s2}"))) == []  # a step named for it
    # Asking for a count, the count is the answer.
    counting = _plan(
        "write the number of entries in log.txt to n.txt", read, tally, write("${s2.entries}", "n.txt")
    )
    assert _kinds(counting) == []


async def test_append_on_the_builtins_keeps_the_file(tmp_path: Path) -> None:
    from forethought.tools.builtin import builtin_tools

    (tmp_path / "notes.txt").write_text("alpha\n")
    model = ScriptedModel([], name="local:scripted")  # the plan is decided: no model call
    agent = Agent(ToolRegistry(builtin_tools(tmp_path)), model=model, record=False)
    result = await agent.run("append 'done' to notes.txt", approve="all")
    assert result.status == "succeeded", result.state.reason
    assert (tmp_path / "notes.txt").read_text() == "alpha\ndone"


@tool
def settled_only(entries: str, settled: bool) -> str:
    """Keep the settled entries (settled=true) or the ones not settled yet (settled=false)."""
    return entries


def test_a_required_true_false_filter_is_a_value_not_a_flag_to_set() -> None:
    """ "entries not yet settled" asks for ``settled`` false: the rule for flags the goal names
    holds only for optional ones (suite 13's "not yet paid" plans lost their filter to it)."""
    specs = {**SPECS, "settled_only": settled_only.spec}
    goal = "write the entries of log.txt not yet settled to open.txt"
    steps = [
        {"id": "s1", "tool": "open_log", "args": {"log_name": "log.txt"}},
        {"id": "s2", "tool": "settled_only", "args": {"entries": "${s1}", "settled": False}},
        {"id": "s3", "tool": "jot_down", "args": {"log_name": "open.txt", "text": "${s2}"}},
    ]
    found = check_coverage(_plan(goal, *steps), tools=specs).missing
    assert not [f for f in found if f.literal == "settled"]
    assert not flag_named("settled", "the entries not yet settled")
    assert not flag_named("append", "we haven't ever appended")
