"""The refinements added after suite 14: words saying a sum, a file a modal sentence says the
text of, lists laid out by their formatter, the answer's kind (a count or the items), names with
a slash, number words before a unit, and results put on the lines of a file; and the coverage
rules beside them (such a file is an output, "on the first line of" asks for no line).

Over a made-up "kiln firings" tool set (a pottery studio's kiln log; none of the bench's
suites). Each rule is checked on and off (its ``Refinements`` switch) where it has one.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from _planner_support import decided_steps, goal_values
from forethought import tool
from forethought.plan.coverage import check_coverage, goal_outputs
from forethought.plan.model import Plan
from forethought.plan.number_words import numbered_units
from forethought.plan.verbs import asked_items, clause_actions
from forethought.planning.answer_shapes import PLURAL_COST, asks_count_only
from forethought.planning.candidates import RECORDS_AS_TEXT_COST, records_as_text, score_candidate
from forethought.planning.decompose import skeletons
from forethought.planning.goal_facts import goal_facts
from forethought.planning.grammar import goal_literals
from forethought.planning.refinements import NO_REFINEMENTS, Refinements
from forethought.planning.word_classes import summed_words


class Firing(BaseModel):
    kiln: str
    glaze: str
    cone: int
    hours: int


@tool
def load_firings(log_file: str) -> list[Firing]:
    """Read a kiln log file: one firing per line as "kiln | glaze | cone | hours"."""
    return []


@tool
def of_kiln(firings: list[Firing], kiln: str) -> list[Firing]:
    """Only the firings of one kiln (its name as in the log)."""
    return firings


@tool
def with_glaze(firings: list[Firing], glaze: str) -> list[Firing]:
    """Only the firings of one glaze (e.g. celadon, tenmoku, shino)."""
    return firings


@tool
def lasting_at_least(firings: list[Firing], hours: int) -> list[Firing]:
    """Only the firings that lasted at least the given number of hours."""
    return firings


@tool
def count_firings(firings: list[Firing]) -> int:
    """How many firings (loads) there are."""
    return 0


@tool
def firing_hours(firings: list[Firing]) -> int:
    """Total firing time of the firings, in hours."""
    return 0


@tool
def longest_firing(firings: list[Firing]) -> Firing:
    """The longest firing, with all its details (kiln, glaze, cone, length in hours)."""
    return Firing(kiln="", glaze="", cone=0, hours=0)


@tool
def firing_lines(firings: list[Firing]) -> str:
    """Firings as readable text, one line per firing: kiln - glaze [cone, hours]."""
    return ""


@tool(effect="mutating", idempotent=True)
def store_text(target_file: str, text: str) -> str:
    """Store text in a file of the studio folder (replaced if it exists)."""
    return target_file


_TOOLS = (
    load_firings,
    of_kiln,
    with_glaze,
    lasting_at_least,
    count_firings,
    firing_hours,
    longest_firing,
    firing_lines,
    store_text,
)
SPECS = {t.spec.name: t.spec for t in _TOOLS}
ON = Refinements()


def _steps(goal: str, refinements: Refinements = ON) -> list[tuple[str, dict[str, Any]]]:
    return decided_steps(goal, SPECS, refinements)


def _tools(goal: str, refinements: Refinements = ON) -> list[str]:
    return [t for t, _ in _steps(goal, refinements)]


def _plan(goal: str, steps: list[tuple[str, dict[str, Any]]]) -> Plan:
    return Plan.model_validate(
        {"goal": goal, "steps": [{"id": f"s{i}", "tool": t, "args": a} for i, (t, a) in enumerate(steps, 1)]}
    )


def test_words_saying_a_sum_ask_for_the_total_not_the_longest() -> None:
    assert summed_words("How long do they run altogether?") == "How total do they run total?"
    assert summed_words("How long is the longest one? Count them in total.") == (
        "How long is the longest one? Count them total."
    )
    goal = "How long do the Kiln A firings in log.txt run altogether, in hours? Save it as a_hours.txt"
    assert _tools(goal) == ["load_firings", "of_kiln", "firing_hours", "store_text"]
    assert "firing_hours" not in _tools(goal, Refinements(summed_words=False))


def test_a_file_a_modal_sentence_says_the_text_of_is_the_output() -> None:
    goal = "count.txt should say how many firings log.txt has"
    assert goal_facts(goal, ON).outputs == ("count.txt",)
    assert goal_facts(goal, Refinements(content_subjects=False)).outputs == ()
    assert _steps(goal) == [
        ("load_firings", {"log_file": "log.txt"}),
        ("count_firings", {"firings": "${s1}"}),
        ("store_text", {"target_file": "count.txt", "text": "${s2}\n"}),
    ]
    # "should be" says nothing of the file's text: no output by this rule.
    assert goal_facts("out.txt should be read after log.txt", ON).outputs == ()


def test_coverage_asks_that_a_file_a_modal_sentence_fills_is_written() -> None:
    goal = "count.txt should say how many firings log.txt has"
    assert goal_outputs(goal) == ("count.txt",)
    # Failure path: reading both files and counting writes nothing; the check says so.
    unwritten = [
        ("load_firings", {"log_file": "count.txt"}),
        ("load_firings", {"log_file": "log.txt"}),
        ("count_firings", {"firings": "${s2}"}),
    ]
    missing = [str(f) for f in check_coverage(_plan(goal, unwritten), goal, SPECS).missing]
    assert any("count.txt" in m and "side-effecting" in m for m in missing), missing
    written = [
        ("load_firings", {"log_file": "log.txt"}),
        ("count_firings", {"firings": "${s1}"}),
        ("store_text", {"target_file": "count.txt", "text": "${s2}\n"}),
    ]
    assert not check_coverage(_plan(goal, written), goal, SPECS).missing


def _prior(goal: str, chain: tuple[str, ...], refinements: Refinements = ON) -> float:
    return next(
        s.prior for s in skeletons(goal, SPECS, limit=64, refinements=refinements) if s.tools == chain
    )


def test_a_list_of_records_written_raw_costs_more_than_its_formatter() -> None:
    goal = "Put the celadon firings from log.txt in celadon.txt"
    raw = _plan(
        goal,
        [
            ("load_firings", {"log_file": "log.txt"}),
            ("with_glaze", {"firings": "${s1}", "glaze": "celadon"}),
            ("store_text", {"target_file": "celadon.txt", "text": "${s2}\n"}),
        ],
    )
    laid_out = _plan(
        goal,
        [
            ("load_firings", {"log_file": "log.txt"}),
            ("with_glaze", {"firings": "${s1}", "glaze": "celadon"}),
            ("firing_lines", {"firings": "${s2}"}),
            ("store_text", {"target_file": "celadon.txt", "text": "${s3}"}),
        ],
    )
    assert records_as_text(raw, SPECS) == 1
    assert records_as_text(laid_out, SPECS) == 0
    # A count written as text is no list of records.
    counted = _plan(
        goal,
        [
            ("load_firings", {"log_file": "log.txt"}),
            ("count_firings", {"firings": "${s1}"}),
            ("store_text", {"target_file": "celadon.txt", "text": "${s2}\n"}),
        ],
    )
    assert records_as_text(counted, SPECS) == 0
    on = score_candidate(raw, [], goal, SPECS, prior=1.0, formatted_records=True)
    off = score_candidate(raw, [], goal, SPECS, prior=1.0)
    assert on.neg_prior - off.neg_prior == RECORDS_AS_TEXT_COST
    # Without a formatter among the tools, writing the records raw is all there is: no cost.
    bare = {n: s for n, s in SPECS.items() if n != "firing_lines"}
    assert records_as_text(raw, bare) == 0


def test_the_answers_kind_weighs_counts_and_listings() -> None:
    # "loads" is a word of the counting tool's description: off, its chain ranks first.
    listed = "Put the celadon loads from log.txt in celadon.txt"
    count_chain = ("load_firings", "with_glaze", "count_firings", "store_text")
    off = Refinements(answer_kinds=False)
    # No number asked: a counting tool's chain loses PLURAL_COST.
    assert _prior(listed, count_chain, off) - _prior(listed, count_chain) == PLURAL_COST
    counted = "n.txt: the number of celadon firings in log.txt"
    list_chain = ("load_firings", "with_glaze", "firing_lines", "store_text")
    assert _prior(counted, list_chain, off) - _prior(counted, list_chain) == PLURAL_COST
    assert _steps(counted) == [
        ("load_firings", {"log_file": "log.txt"}),
        ("with_glaze", {"firings": "${s1}", "glaze": "celadon"}),
        ("count_firings", {"firings": "${s2}"}),
        ("store_text", {"target_file": "n.txt", "text": "${s3}\n"}),
    ]
    # Asking for the items as well as their number weighs neither.
    both = "List the celadon firings in log.txt and write the number of them to c.txt"
    assert not asks_count_only(both)
    assert asks_count_only(counted)


def test_a_name_with_a_slash_beside_its_parameters_word_is_one_value() -> None:
    goal = "List the firings of the studio/north kiln in log.txt in sn.txt"
    assert "studio/north" in goal_values(goal, SPECS, ON)
    assert "studio/north" not in goal_values(goal, SPECS, Refinements(slashed_values=False))
    assert ("of_kiln", {"firings": "${s1}", "kiln": "studio/north"}) in _steps(goal)
    # Failure path: off, the name is cut and the coverage check finds the whole name unused.
    cut = _steps(goal, Refinements(slashed_values=False))
    if cut:
        missing = check_coverage(_plan(goal, cut), goal, SPECS).missing
        assert any("studio/north" in str(f) for f in missing)


def test_a_number_word_before_a_unit_is_that_number() -> None:
    units = {"hour"}
    assert numbered_units("firings of eight hours or more", units) == "firings of 8 hours or more"
    assert numbered_units("all the twelve-hour firings", units) == "all the 12 hour firings"
    assert numbered_units("one of the two kilns", units) == "one of the two kilns"
    goal = "Count the firings of eight hours or more in log.txt and write the count to long.txt"
    assert ("lasting_at_least", {"firings": "${s1}", "hours": 8}) in _steps(goal)
    assert not any(t == "lasting_at_least" for t in _tools(goal, Refinements(unit_numbers=False)))
    listed = "Write all the twelve-hour firings of log.txt to twelve.txt"
    assert ("lasting_at_least", {"firings": "${s1}", "hours": 12}) in _steps(listed)


def test_results_put_on_lines_of_a_file_run_once_per_file() -> None:
    goal = (
        "Firing hours of a.txt and of b.txt: write a.txt's on the first line of hours.txt and "
        "b.txt's on the second"
    )
    facts = goal_facts(goal, ON)
    assert facts.outputs == ("hours.txt",)
    assert facts.inputs == ("a.txt", "b.txt")
    assert goal_facts(goal, Refinements(line_targets=False)).outputs == ()
    steps = _steps(goal)
    assert steps == [
        ("load_firings", {"log_file": "a.txt"}),
        ("firing_hours", {"firings": "${s1}"}),
        ("load_firings", {"log_file": "b.txt"}),
        ("firing_hours", {"firings": "${s3}"}),
        ("store_text", {"target_file": "hours.txt", "text": "${s2}\n${s4}\n"}),
    ]
    assert not check_coverage(_plan(goal, steps), goal, SPECS).missing
    # Failure path: one file's hours only, and hours.txt unwritten -- the check says so.
    partial = steps[:2]
    missing = [str(f) for f in check_coverage(_plan(goal, partial), goal, SPECS).missing]
    assert any("b.txt" in m for m in missing) and any("hours.txt" in m for m in missing)


def test_on_the_first_line_of_a_file_asks_for_no_line() -> None:
    assert asked_items("write it on the first line of out.txt") == []
    assert asked_items("write the first line of a.txt to b.txt") == [("first", "line")]


def test_an_apostrophe_after_a_word_opens_no_quote() -> None:
    lits = goal_literals("write a.txt's total on the first line and b.txt's on the second")
    assert lits.strings == ("a.txt", "b.txt")
    assert goal_literals("write 'done' to c.txt").strings[0] == "done"


def test_the_new_switches_are_off_without_refinements() -> None:
    for name in (
        "summed_words",
        "content_subjects",
        "formatted_records",
        "answer_kinds",
        "slashed_values",
        "unit_numbers",
        "line_targets",
        "day_questions",
    ):
        assert getattr(ON, name) is True
        assert getattr(NO_REFINEMENTS, name) is False


class Glazing(BaseModel):
    kiln: str
    date: str
    time: str
    cone: int


@tool
def load_glazings(log_file: str) -> list[Glazing]:
    """Read a glaze-firing log: one glazing per line, its kiln, start date, start time and cone."""
    return []


@tool
def hottest_glazing(glazings: list[Glazing]) -> Glazing:
    """The glazing fired to the highest cone, with all its details."""
    return Glazing(kiln="", date="", time="", cone=0)


@tool(effect="mutating", idempotent=True)
def keep_note(note_file: str, note: str) -> str:
    """Keep a note in a file (replaced if it exists)."""
    return note_file


GLAZE_SPECS = {t.spec.name: t.spec for t in (load_glazings, hottest_glazing, keep_note)}


def test_which_day_asks_for_the_days_field_not_the_time() -> None:
    goal = "On which day did the hottest glazing start? glazes.txt -> day.txt"
    steps = decided_steps(goal, GLAZE_SPECS, ON)
    assert steps[-1] == ("keep_note", {"note_file": "day.txt", "note": "${s2.date}"})
    # Off, no question word chooses the field: another one is written.
    off = decided_steps(goal, GLAZE_SPECS, Refinements(day_questions=False))
    assert not off or off[-1][1]["note"] != "${s2.date}"


def test_quoted_text_holds_no_clause_of_the_goal() -> None:
    goal = 'Make a file notice.txt that says "Kiln A, fire at noon"'
    assert all(verb != "fire" for verb, _ in clause_actions(goal))
    written = [("store_text", {"target_file": "notice.txt", "text": "Kiln A, fire at noon"})]
    assert not check_coverage(_plan(goal, written), goal, SPECS).missing
    assert _steps(goal) == written
    # Failure path: part of the text written is not the text asked for.
    cut = [("store_text", {"target_file": "notice.txt", "text": "Kiln A"})]
    assert check_coverage(_plan(goal, cut), goal, SPECS).missing
