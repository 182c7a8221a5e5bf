"""The deterministic goal coverage check (issue 16 item 1), over issue 16's reproductions.

Each reproduction has the plan the model really produced (which must be found wanting) and a
correct plan for the same goal (which must be covered), so every test can fail both ways.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from forethought.plan.coverage import Coverage, Finding, check_coverage, goal_literals, goal_outputs
from forethought.plan.model import Plan
from forethought.plan.tool_spec import ToolSpec
from forethought.tools.builtin import BUILTIN_NAMES, builtin_tools


@pytest.fixture(scope="module")
def builtins(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ToolSpec]:
    ws = tmp_path_factory.mktemp("ws")
    return {t.spec.name: t.spec for t in builtin_tools(Path(ws), list(BUILTIN_NAMES))}


# A tool set no prompt or starter plan has seen: the rules must not know its names.
SHOP = {
    "place_order": ToolSpec(
        name="place_order",
        effect="mutating",
        input_schema={
            "type": "object",
            "properties": {
                "item": {"type": "string"},
                "quantity": {"type": "integer"},
                "shipping": {"type": "string", "enum": ["standard", "express"], "default": "standard"},
            },
            "required": ["item", "quantity"],
        },
    ),
    "find_product": ToolSpec(
        name="find_product",
        effect="read_only",
        input_schema={"type": "object", "properties": {"query": {"type": "string"}}},
    ),
}


def plan(goal: str, *steps: dict[str, Any]) -> Plan:
    return Plan.model_validate({"goal": goal, "steps": list(steps)})


def kinds(cov: Coverage) -> set[tuple[str, str | None]]:
    return {(f.kind, f.literal or f.step_id) for f in cov.missing}


def test_copy_planned_as_read_and_count_misses_the_output(builtins: dict[str, ToolSpec]) -> None:
    goal = "copy notes.txt to notes-backup.txt"
    bad = plan(
        goal,
        {"id": "s1", "tool": "read_file", "args": {"path": "notes.txt"}},
        {"id": "s2", "tool": "text_stats", "args": {"text": "${s1.content}"}},
    )
    cov = check_coverage(bad, tools=builtins)
    assert not cov.covered
    assert ("missing_output", "notes-backup.txt") in kinds(cov)
    assert ("missing_literal", "notes-backup.txt") in kinds(cov)
    assert ("dead_step", "s2") in kinds(cov)  # a count nobody uses, in a plan meant to write
    good = plan(
        goal,
        {"id": "s1", "tool": "read_file", "args": {"path": "notes.txt"}},
        {"id": "s2", "tool": "write_file", "args": {"path": "notes-backup.txt", "content": "${s1.content}"}},
    )
    assert check_coverage(good, tools=builtins) == Coverage(True, (), *_extracted(goal))


def _extracted(goal: str) -> tuple[Any, Any]:
    lits = goal_literals(goal)
    return lits, goal_outputs(goal, lits)


def test_write_hello_world_planned_as_list_dir(builtins: dict[str, ToolSpec]) -> None:
    goal = "write hello world to greeting.txt"
    bad = plan(goal, {"id": "s1", "tool": "list_dir", "args": {"path": "greeting_list_dir"}})
    cov = check_coverage(bad, tools=builtins)
    found = kinds(cov)
    assert ("missing_literal", "hello world") in found
    assert ("missing_output", "greeting.txt") in found
    assert ("invented_argument", "s1") in found
    invented = cov.of_kind("invented_argument")[0]
    assert invented.field == ("args", "path")
    assert "greeting_list_dir" in invented.message
    # The goal asks for a file, so the read-only sink is no answer: it is dead.
    assert [f.step_id for f in cov.of_kind("dead_step")] == ["s1"]
    good = plan(
        goal, {"id": "s1", "tool": "write_file", "args": {"path": "greeting.txt", "content": "hello world\n"}}
    )
    assert check_coverage(good, tools=builtins).covered


def test_list_then_write_without_a_write_step(builtins: dict[str, ToolSpec]) -> None:
    goal = "list the files in src and write the list to files.txt"
    bad = plan(goal, {"id": "s1", "tool": "list_dir", "args": {"path": "src"}})
    cov = check_coverage(bad, tools=builtins)
    assert ("missing_output", "files.txt") in kinds(cov)
    assert ("missing_literal", "src") not in kinds(cov)
    # Naming the file in a read-only step does not produce it.
    sneaky = plan(
        goal,
        {"id": "s1", "tool": "list_dir", "args": {"path": "src"}},
        {"id": "s2", "tool": "read_file", "args": {"path": "files.txt"}},
    )
    assert ("missing_output", "files.txt") in kinds(check_coverage(sneaky, tools=builtins))
    good = plan(
        goal,
        {"id": "s1", "tool": "list_dir", "args": {"path": "src"}},
        {"id": "s2", "tool": "write_file", "args": {"path": "files.txt", "content": "${s1.entries}"}},
    )
    assert check_coverage(good, tools=builtins).covered


def test_order_widgets_with_invented_values() -> None:
    goal = "order 5 widgets"
    bad = plan(goal, {"id": "s1", "tool": "place_order", "args": {"item": "100", "quantity": 100}})
    cov = check_coverage(bad, tools=SHOP)
    found = kinds(cov)
    assert ("missing_literal", "5") in found
    assert ("missing_literal", "widgets") in found
    assert {f.field for f in cov.of_kind("invented_argument")} == {("args", "item"), ("args", "quantity")}
    good = plan(
        goal,
        {"id": "s1", "tool": "place_order", "args": {"item": "widget", "quantity": 5, "shipping": "express"}},
    )
    assert check_coverage(good, tools=SHOP).covered  # singular noun; enum value is not invented


def test_delete_planned_as_a_word_count(builtins: dict[str, ToolSpec]) -> None:
    goal = "delete notes.txt"
    bad = plan(
        goal,
        {"id": "s1", "tool": "read_file", "args": {"path": "notes.txt"}},
        {"id": "s2", "tool": "text_stats", "args": {"text": "${s1.content}"}},
    )
    cov = check_coverage(bad, tools=builtins)
    [missing] = cov.of_kind("missing_output")
    assert missing.message == 'the goal asks to delete "notes.txt", but no side-effecting step does'
    remover = ToolSpec(
        name="remove_path",
        effect="destructive",
        input_schema={"type": "object", "properties": {"target": {"type": "string"}}},
    )
    good = plan(goal, {"id": "s1", "tool": "remove_path", "args": {"target": "notes.txt"}})
    assert check_coverage(good, tools={**builtins, "remove_path": remover}).covered


def test_read_only_question_is_answered_by_its_last_step(builtins: dict[str, ToolSpec]) -> None:
    goal = "how many words are in notes.txt?"
    answer = plan(
        goal,
        {"id": "s1", "tool": "read_file", "args": {"path": "notes.txt"}},
        {"id": "s2", "tool": "text_stats", "args": {"text": "${s1.content}"}},
    )
    assert check_coverage(answer, tools=builtins).covered
    stray = plan(
        goal,
        {"id": "s1", "tool": "read_file", "args": {"path": "notes.txt"}},
        {"id": "s0", "tool": "list_dir", "args": {"path": "."}},
        {"id": "s2", "tool": "text_stats", "args": {"text": "${s1.content}"}, "depends_on": ["s0"]},
    )
    cov = check_coverage(stray, tools=builtins)
    assert [f.step_id for f in cov.of_kind("dead_step")] == ["s0"]


def test_unknown_effect_is_not_held_against_the_plan() -> None:
    goal = "copy notes.txt to notes-backup.txt"
    p = plan(goal, {"id": "s1", "tool": "copier", "args": {"src": "notes.txt", "dst": "notes-backup.txt"}})
    assert check_coverage(p).covered  # no specs: effect unknown, arguments from the goal
    agent = plan(goal, {"id": "s1", "agent": "copy notes.txt to notes-backup.txt"})
    assert check_coverage(agent).covered


@pytest.mark.parametrize(
    ("goal", "expected"),
    [
        ('say "good morning" to https://example.com/hook', ["good morning", "https://example.com/hook"]),
        ("send an email to bob@example.com", ["bob@example.com"]),
        ("count the lines of docs/guide.md, e.g. the long ones", ["docs/guide.md"]),
        ("list the directory named build", ["build"]),
        ("wait 10 seconds", ["10"]),
    ],
)
def test_goal_literals(goal: str, expected: list[str]) -> None:
    assert [lit.text for lit in goal_literals(goal)] == expected


@pytest.mark.parametrize(
    ("goal", "expected"),
    [
        ("copy a.txt to b.txt and write done to c.txt. Then stop", ["b.txt", "c.txt"]),
        ("send an email to bob@example.com", ["bob@example.com"]),
        ("create a new file named out/report.md", ["out/report.md"]),
        ("summarize notes.txt", []),
        ("save it as 'final draft.md'", ["final draft.md"]),
        ("remove the file old.log and rename data.csv", ["old.log", "data.csv"]),
        # "in X" is the destination only when no "to/into/as Y" follows the verb.
        ("write the titles of the meetings in week.json to titles.txt", ["titles.txt"]),
        ("store the sum in total.txt", ["total.txt"]),
        ("put the numbers in a.txt above 10 into b.txt", ["b.txt"]),
    ],
)
def test_goal_outputs(goal: str, expected: list[str]) -> None:
    assert list(goal_outputs(goal)) == expected


def test_finding_is_one_json_friendly_line() -> None:
    f = Finding("missing_literal", 'goal literal "x.txt" is used by no step', literal="x.txt")
    assert str(f) == f.message and "\n" not in str(f)
    assert f.to_dict() == {"kind": "missing_literal", "message": f.message, "literal": "x.txt"}
    cov = check_coverage(plan("read x.txt", {"id": "s1", "tool": "t", "args": {}}))
    assert cov.to_dict() == {"covered": False, "missing": [cov.missing[0].to_dict()]}


# --- missing_action: no used tool is named for the goal's verb or what it acts on ------------


def _fetch_only(goal: str, path: str) -> Plan:
    return Plan.model_validate(
        {"goal": goal, "steps": [{"id": "s1", "tool": "read_file", "args": {"path": path}}]}
    )


@pytest.mark.parametrize(
    ("goal", "path", "verb"),
    [
        # bench/outcomes' two false successes: the run printed the file and said "succeeded"
        ("check the spelling in notes.txt", "notes.txt", "check"),
        ("open a ticket for the bug described in report.md", "report.md", "open"),
        ("count the words in notes.txt", "notes.txt", "count"),
        ("Please verify the totals in data.csv", "data.csv", "verify"),
    ],
)
def test_a_plan_that_only_fetches_misses_the_goals_action(
    builtins: dict[str, ToolSpec], goal: str, path: str, verb: str
) -> None:
    cov = check_coverage(_fetch_only(goal, path), goal, builtins)
    assert not cov.covered
    [finding] = cov.of_kind("missing_action")
    assert finding.literal == verb
    assert f"the goal asks to {verb} " in str(finding) and f"named for {verb!r}" in str(finding)
    assert cov.to_dict()["missing"][0]["kind"] == "missing_action"


@pytest.mark.parametrize(
    "goal",
    [
        "read notes.txt",  # a generic verb: fetching is the answer
        "show me notes.txt",
        "open notes.txt",  # the verb's object is the literal the plan fetches
        "what is in notes.txt",  # a question, not an action
        # Not "how many words does notes.txt have": the file is no count of its words
        # (test_honest_outcomes: a value asked for and passed on uncomputed).
    ],
)
def test_fetching_is_the_answer_when_the_goal_asks_for_it(builtins: dict[str, ToolSpec], goal: str) -> None:
    assert check_coverage(_fetch_only(goal, "notes.txt"), goal, builtins).of_kind("missing_action") == []


def test_a_plan_that_transforms_what_it_fetches_is_not_judged_by_its_verb(
    builtins: dict[str, ToolSpec],
) -> None:
    # Tools are often named for their result ("text_stats"), not for the goal's verb ("tally"):
    # once a step works on what another fetched, the verb rule stays silent.
    goal = "tally the words in notes.txt"
    plan = Plan.model_validate(
        {
            "goal": goal,
            "steps": [
                {"id": "s1", "tool": "read_file", "args": {"path": "notes.txt"}},
                {"id": "s2", "tool": "text_stats", "args": {"text": "${s1.content}"}},
            ],
        }
    )
    assert check_coverage(plan, goal, builtins).of_kind("missing_action") == []
    # The same goal answered by the fetch alone is found wanting.
    assert check_coverage(_fetch_only(goal, "notes.txt"), goal, builtins).of_kind("missing_action")


@pytest.mark.parametrize(
    ("goal", "steps"),
    [
        # What the planner's repair round answered when the fetch-only plans were flagged: a
        # transform or a write that still does nothing the verb asks ("succeeded" both times).
        (
            "check the spelling in notes.txt",
            [
                {"id": "s1", "tool": "read_file", "args": {"path": "notes.txt"}},
                {"id": "s2", "tool": "text_stats", "args": {"text": "${s1.content}"}},
            ],
        ),
        (
            "open a ticket for the bug described in report.md",
            [
                {"id": "s1", "tool": "read_file", "args": {"path": "report.md"}},
                {"id": "s2", "tool": "write_file", "args": {"path": "report.md", "content": "${s1.content}"}},
            ],
        ),
    ],
)
def test_a_plan_that_does_something_else_misses_the_goals_action(
    builtins: dict[str, ToolSpec], goal: str, steps: list[dict[str, Any]]
) -> None:
    cov = check_coverage(plan(goal, *steps), goal, builtins)
    assert [f.kind for f in cov.missing] == ["missing_action"]


def test_a_tool_named_for_the_verb_does_the_action() -> None:
    spell = ToolSpec(
        name="spellcheck_file",
        description="Check the spelling of a text file and list the misspelt words.",
        effect="read_only",
        input_schema={"type": "object", "properties": {"path": {"type": "string"}}},
    )
    goal = "check the spelling in notes.txt"
    plan = Plan.model_validate(
        {"goal": goal, "steps": [{"id": "s1", "tool": "spellcheck_file", "args": {"path": "notes.txt"}}]}
    )
    assert check_coverage(plan, goal, {"spellcheck_file": spell}).covered


def test_without_tool_specs_the_action_is_not_judged() -> None:
    goal = "check the spelling in notes.txt"
    assert check_coverage(_fetch_only(goal, "notes.txt"), goal, None).of_kind("missing_action") == []


# --- content named by what it is ("with the text …") -----------------------------------------

MEMO = {
    "pin_memo": ToolSpec(
        name="pin_memo",
        effect="mutating",
        input_schema={
            "type": "object",
            "properties": {"title": {"type": "string"}, "text": {"type": "string"}},
            "required": ["title", "text"],
        },
    )
}


@pytest.mark.parametrize(
    ("goal", "content"),
    [
        ("pin a memo titled groceries with the text buy milk", "buy milk"),
        ("post a message that says hello world.", "hello world"),
        ("add a note saying ship on friday, then list the notes", "ship on friday"),
        ("send a reply with the message see you soon and archive it", "see you soon"),
    ],
)
def test_content_named_by_what_it_is_is_a_goal_literal(goal: str, content: str) -> None:
    assert (content, "content") in [(lit.text, lit.kind) for lit in goal_literals(goal)]


def test_a_memo_pinned_with_part_of_its_text_is_not_covered() -> None:
    # bench/outcomes' third false success: the model filled text="buy" and the run "succeeded".
    goal = "pin a memo titled groceries with the text buy milk"
    cut = plan(goal, {"id": "s1", "tool": "pin_memo", "args": {"title": "groceries", "text": "buy"}})
    cov = check_coverage(cut, goal, MEMO)
    assert [f.literal for f in cov.of_kind("missing_literal")] == ["buy milk"]
    whole = plan(goal, {"id": "s1", "tool": "pin_memo", "args": {"title": "groceries", "text": "buy milk"}})
    assert check_coverage(whole, goal, MEMO).covered


def test_a_determiner_after_saying_is_no_content() -> None:
    # "saying the build is green" may be paraphrased; only text given as is becomes a literal.
    assert [
        lit for lit in goal_literals("add a note saying the build is green") if lit.kind == "content"
    ] == []


LOOKUPS = {
    "city_population": ToolSpec(
        name="city_population",
        description="The population of a city.",
        effect="read_only",
        input_schema={"type": "object", "properties": {"city": {"type": "string"}}},
    ),
    "exchange_rate": ToolSpec(
        name="exchange_rate",
        description="How many US dollars one unit of a currency is worth.",
        effect="read_only",
        input_schema={"type": "object", "properties": {"currency": {"type": "string"}}},
    ),
    "add": ToolSpec(
        name="add",
        description="The sum of two numbers.",
        effect="read_only",
        input_schema={"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
    ),
}


def test_a_name_in_a_list_is_not_an_action() -> None:
    goal = "What is the total population of Paris, Berlin and Rome together?"
    steps = [
        {"id": f"s{i}", "tool": "city_population", "args": {"city": city}}
        for i, city in enumerate(["Paris", "Berlin", "Rome"], 1)
    ]
    steps += [
        {"id": "s4", "tool": "add", "args": {"a": "${s1}", "b": "${s2}"}},
        {"id": "s5", "tool": "add", "args": {"a": "${s4}", "b": "${s3}"}},
    ]
    assert check_coverage(plan(goal, *steps), goal, LOOKUPS).covered
    # The same words as a command at the start of a sentence are still judged.
    ordered = "Paris is big. Ship the crates to Rome."
    cov = check_coverage(plan(ordered, *steps[:1]), ordered, LOOKUPS)
    assert ("missing_action", "ship") in kinds(cov)


@pytest.mark.parametrize(
    ("currency", "invented"),
    [("EUR", False), ("eur", True), ("GBP", True), ("EURO", False), ("EUROS", False), ("XEU", True)],
)
def test_a_currency_code_for_a_goal_word_is_not_invented(currency: str, invented: bool) -> None:
    goal = "What is one US dollar in euros?"
    cov = check_coverage(
        plan(goal, {"id": "s1", "tool": "exchange_rate", "args": {"currency": currency}}), goal, LOOKUPS
    )
    assert bool(cov.of_kind("invented_argument")) is invented


def _trim_spec() -> ToolSpec:
    return ToolSpec(
        name="trim_number",
        description="Cut a number to the given count of decimal places.",
        input_schema={
            "type": "object",
            "properties": {"value": {"type": "number"}, "places": {"type": "integer"}},
            "required": ["value", "places"],
        },
        effect="read_only",
    )


def test_a_unit_after_a_number_is_used_by_the_tool_that_counts_in_it() -> None:
    tools = {"trim_number": _trim_spec()}
    goal = "trim 3.14159 to 2 decimals"
    good = plan(goal, {"id": "s1", "tool": "trim_number", "args": {"value": 3.14159, "places": 2}})
    assert ("missing_literal", "decimals") not in kinds(check_coverage(good, tools=tools))
    # The tool must take the number: another argument value leaves the unit unused.
    bad = plan(goal, {"id": "s1", "tool": "trim_number", "args": {"value": 3.14159, "places": 3}})
    assert ("missing_literal", "decimals") in kinds(check_coverage(bad, tools=tools))
    # And say what it counts: a tool whose words do not name the unit does not use it.
    other = _trim_spec().model_copy(update={"description": "Cut a number short."})
    assert ("missing_literal", "decimals") in kinds(check_coverage(good, tools={"trim_number": other}))


def test_a_function_word_after_a_number_is_no_noun_literal() -> None:
    texts = [
        lit.text for lit in goal_literals("Keep the values above 80 from marks.txt and write them to hi.txt")
    ]
    assert "from" not in texts and "80" in texts
    assert "widgets" in [lit.text for lit in goal_literals("order 5 widgets")]


def test_a_spelled_date_is_used_as_its_iso_text() -> None:
    goal = "find widgets on 1 April 2026"
    good = plan(goal, {"id": "s1", "tool": "find_product", "args": {"query": "widgets 2026-04-01"}})
    assert check_coverage(good, tools=SHOP).covered
    wrong = plan(goal, {"id": "s1", "tool": "find_product", "args": {"query": "widgets 2026-04-02"}})
    found = kinds(check_coverage(wrong, tools=SHOP))
    assert ("invented_argument", "s1") in found and ("missing_literal", "April") in found
    # A month: any of its days is its ISO text.
    goal = "find widgets sold during April 2026"
    days = plan(goal, {"id": "s1", "tool": "find_product", "args": {"query": "sold widgets 2026-04-30"}})
    assert check_coverage(days, tools=SHOP).covered


def test_a_name_labelling_its_sentence_asks_for_no_action() -> None:
    from forethought.plan.verbs import clause_actions

    assert clause_actions("Priya Shah: how many books has she borrowed?") == []
    assert [v for v, _ in clause_actions("Tom Okafor's loans in a.json: save their titles")] == ["save"]
    assert clause_actions("Merge the two lists") == [("merge", "the two lists")]


def test_addresses_after_long_runs_of_address_characters_are_still_found() -> None:
    # The address pattern is tried only where a run of address characters starts (tried at
    # every dot of "a.a.a.…" it took minutes on 80 KB); what it finds is unchanged.
    run = "a." * 2000
    literals = goal_literals(f"send it to {run}b@x.com and to .carol@y.org, not -dan@z.net")
    assert [(lit.text, lit.kind) for lit in literals if lit.kind == "email"] == [
        (f"{run}b@x.com", "email"),
        ("carol@y.org", "email"),
        ("dan@z.net", "email"),
    ]


def test_thousands_of_file_names_are_each_a_literal_once() -> None:
    # Spans taken are kept in order (each new one was tested against every other: quadratic).
    goal = " ".join(f"copy f{i}.txt to g{i}.txt" for i in range(3000))
    literals = goal_literals(goal)
    assert [lit.text for lit in literals] == [
        name for i in range(3000) for name in (f"f{i}.txt", f"g{i}.txt")
    ]
    assert [lit.start for lit in literals] == sorted(lit.start for lit in literals)
