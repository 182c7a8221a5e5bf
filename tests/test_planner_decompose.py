"""Decompose, then fill: clause splitting, BM25 retrieval, typed-flow slots, candidate scoring.

The tools here are made up for these tests (a tiny "archive" tool set); none of them is in the
bench's held-out suite.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import jsonschema
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from forethought import tool
from forethought.models import ScriptedModel
from forethought.plan import references as refs
from forethought.plan.model import Plan
from forethought.plan.validation import Problem
from forethought.planning.bm25 import BM25, stem, terms, tool_index
from forethought.planning.candidates import (
    CandidateScore,
    as_text_arguments,
    mean_logprob,
    score_candidate,
    unused_outputs,
)
from forethought.planning.clauses import split_clauses
from forethought.planning.decompose import skeletons
from forethought.planning.goal_facts import goal_facts
from forethought.planning.planner import PlannerOptions, make_plan
from forethought.planning.refinements import NO_REFINEMENTS, Refinements
from forethought.planning.slots import bind
from forethought.planning.tool_roles import is_reader, is_writer


class Census(BaseModel):
    vowels: int
    digits: int
    label: str


@tool
def grab_text(source: str) -> str:
    """Fetch the characters held at a place of the archive."""
    return source


@tool(effect="mutating")
def persist(dest: str, payload: str) -> str:
    """Put a payload at a place of the archive, replacing what was there."""
    return dest


@tool
def measure(payload: str) -> int:
    """Length of a payload in characters."""
    return len(payload)


@tool
def census(payload: str) -> Census:
    """Tally vowels and digits in a payload."""
    return Census(vowels=0, digits=0, label="")


@tool
def reverse(payload: str) -> str:
    """Mirror a payload back to front."""
    return payload[::-1]


@tool
def grep_for(payload: str, pattern: str) -> str:
    """The lines of a payload that hold a pattern."""
    return payload


SPECS = {t.spec.name: t.spec for t in (grab_text, persist, measure, census, reverse, grep_for)}


def plan_of(*items: tuple[str, dict[str, Any]], goal: str = "g") -> Plan:
    return Plan.model_validate(
        {"goal": goal, "steps": [{"id": f"s{i + 1}", "tool": t, "args": a} for i, (t, a) in enumerate(items)]}
    )


# ------------------------------------------------------------------------------ clauses


def test_clauses_split_actions_not_lists_of_objects() -> None:
    assert split_clauses("Mirror a.txt and put it at b.txt") == ["Mirror a.txt", "put it at b.txt"]
    assert split_clauses("Merge a.txt and b.txt into c.txt") == ["Merge a.txt and b.txt into c.txt"]
    assert split_clauses("How long is a.txt? Put the length at n.txt") == [
        "How long is a.txt",
        "Put the length at n.txt",
    ]
    assert split_clauses("Measure a.txt, then persist it") == ["Measure a.txt", "persist it"]
    assert split_clauses('Put "x and y. then z" at q.txt') == ['Put "x and y. then z" at q.txt']
    assert split_clauses("   ") == []


_WORD = st.sampled_from(["mirror", "the", "file", "a.txt", "len", "put", "it", "b.md", "7", "tally"])
_CLAUSE = st.lists(_WORD, min_size=1, max_size=5).map(" ".join)


@given(st.lists(_CLAUSE, min_size=1, max_size=4), st.sampled_from([" then ", "; ", ", and then "]))
def test_clauses_are_pieces_of_the_goal_in_order(parts: list[str], sep: str) -> None:
    goal = sep.join(parts)
    clauses = split_clauses(goal)
    assert clauses  # a non-blank goal has at least one clause
    at = 0
    for clause in clauses:
        found = goal.find(clause, at)
        assert found >= at, (goal, clauses)
        at = found + len(clause)
    # Every separator-free clause given survives as (part of) one clause.
    for part in parts:
        assert any(part.strip() in c or c in part for c in clauses)


@given(st.text(alphabet=st.characters(blacklist_characters='"\n'), max_size=30), _CLAUSE)
def test_quoted_text_is_never_split(inside: str, rest: str) -> None:
    goal = f'{rest} "{inside}" then {rest}'
    assert any(f'"{inside}"' in c for c in split_clauses(goal))


# ------------------------------------------------------------------------------ BM25


def test_bm25_ranks_the_tool_whose_words_the_clause_uses() -> None:
    index = tool_index(SPECS)
    assert index.rank(terms("tally the vowels"))[0][0] == "census"
    assert index.rank(terms("mirror it"))[0][0] == "reverse"
    assert index.rank(terms("how long, in characters"))[0][0] == "measure"
    assert all(score == 0 for _, score in index.rank(terms("zebra")))
    assert stem("Rows") == "row" and stem("glass") == "glass"[:5]


@given(
    st.dictionaries(
        st.text("abc", min_size=1, max_size=3),
        st.lists(st.sampled_from(["x", "y", "z", "w"]), max_size=6),
        min_size=1,
        max_size=5,
    ),
    st.lists(st.sampled_from(["x", "y", "z", "w", "q"]), max_size=4),
)
def test_bm25_scores_are_nonnegative_and_zero_without_shared_terms(
    docs: dict[str, list[str]], query: list[str]
) -> None:
    index = BM25(docs)
    ranked = index.rank(query)
    assert sorted(n for n, _ in ranked) == sorted(docs)
    assert [s for _, s in ranked] == sorted((s for _, s in ranked), reverse=True)
    for name, score in ranked:
        assert score >= 0
        assert (score > 0) == bool(set(query) & set(docs[name]))


# ------------------------------------------------------------------------------ roles, skeletons


def test_roles_come_from_effects_and_parameter_names() -> None:
    assert is_reader(SPECS["grab_text"]) and not is_writer(SPECS["grab_text"])
    assert is_writer(SPECS["persist"]) and not is_reader(SPECS["persist"])
    assert not is_reader(SPECS["measure"]) and not is_writer(SPECS["measure"])


def test_a_file_parameter_named_otherwise_is_known_by_the_descriptions() -> None:
    from forethought.planning.grammar import takes_file_name

    @tool
    def fetch(location: str) -> str:
        """Read a text file and return what it holds."""
        return location

    @tool
    def lookup(where: Annotated[str, Field(description="the file holding the table")], key: str) -> str:
        """Look a key up in a table."""
        return where

    @tool
    def tidy(text: str) -> str:
        """Tidy the text of a file."""  # a file, but the parameter is its content
        return text

    @tool
    def rate(location: str) -> int:
        """How pleasant a city is to live in."""  # no file anywhere: a place, not a file
        return 0

    assert takes_file_name(fetch.spec, "location") and is_reader(fetch.spec)
    assert takes_file_name(lookup.spec, "where") and not takes_file_name(lookup.spec, "key")
    assert not takes_file_name(tidy.spec, "text")
    assert not takes_file_name(rate.spec, "location") and not is_reader(rate.spec)


def test_a_file_parameter_named_after_its_format_is_a_file_name() -> None:
    from forethought.planning.grammar import takes_file_name

    @tool
    def load_orders(orders_csv: str) -> list[str]:
        """Load the orders of a shop's CSV export."""
        return [orders_csv]

    @tool
    def load_config(configJson: str, section: str) -> str:
        """The settings of one section."""
        return configJson + section

    @tool
    def parse(json: str) -> str:
        """Parse a JSON document."""  # a bare format name: the document itself
        return json

    @tool
    def reformat(csv_text: str) -> str:
        """Reformat CSV."""  # named as content
        return csv_text

    @tool
    def rate(city_name: str) -> int:
        """How pleasant a city is."""
        return 0

    assert takes_file_name(load_orders.spec, "orders_csv") and is_reader(load_orders.spec)
    assert takes_file_name(load_config.spec, "configJson")
    assert not takes_file_name(load_config.spec, "section")
    assert not takes_file_name(parse.spec, "json")
    assert not takes_file_name(reformat.spec, "csv_text")
    assert not takes_file_name(rate.spec, "city_name")


def test_a_file_tool_names_its_file_by_its_one_text_parameter_that_is_not_content() -> None:
    from forethought.planning.grammar import takes_file_name

    @tool(effect="mutating", idempotent=True)
    def store(name: str, text: str) -> str:
        """Write text to a file of the workspace."""
        return name + text

    @tool
    def label(tag: str, text: str) -> str:
        """Put a tag on a piece of text."""  # no file anywhere
        return tag + text

    @tool(effect="mutating")
    def annotate(name: str, author: str, text: str) -> str:
        """Add a note to a file."""  # two texts besides the content: which one is the file?
        return name + author + text

    @tool
    def grep(pattern: str, text: str) -> int:
        """Count the lines of a file's text that match a pattern."""  # read-only: no file named
        return len(pattern + text)

    assert takes_file_name(store.spec, "name") and not takes_file_name(store.spec, "text")
    assert not takes_file_name(grep.spec, "pattern")
    assert is_writer(store.spec)
    assert not takes_file_name(label.spec, "tag")
    assert not takes_file_name(annotate.spec, "name") and not takes_file_name(annotate.spec, "author")


def test_names_the_goal_capitalizes_must_be_used_as_words_of_their_own() -> None:
    from forethought.planning.candidates import goal_names, unused_names

    goal = "Which rows of table.csv are about Oslo? Save them to oslo.txt. Then stop"
    assert goal_names(goal) == ["Oslo"]  # not "Which"/"Save"/"Then" (sentence starts), not files
    plain = plan_of(("grab_text", {"source": "table.csv"}), ("persist", {"dest": "oslo.txt", "payload": "x"}))
    assert unused_names(plain, goal) == 1  # "oslo.txt" does not use the name
    used = plan_of(("grep_for", {"payload": "x", "pattern": "Oslo"}))
    assert unused_names(used, goal) == 0


def test_a_list_is_written_through_a_formatter_not_a_reducer() -> None:
    from forethought.planning.decompose import _formatted
    from forethought.planning.tool_roles import is_formatter as _is_formatter

    @tool
    def gather(source: str) -> list[str]:
        """Read the entries stored in a file."""
        return []

    @tool
    def longest(entries: list[str]) -> str:
        """The longest of some entries."""  # a list to a string, but it picks one
        return ""

    @tool
    def stacked(entries: list[str]) -> str:
        """Lay entries out one per line."""
        return ""

    specs = {t.spec.name: t.spec for t in (gather, longest, stacked, persist)}
    assert _is_formatter(specs["stacked"]) and not _is_formatter(specs["longest"])
    assert _formatted(("gather", "persist"), specs, ["stacked"]) == ("gather", "stacked", "persist")
    assert _formatted(("gather", "longest", "persist"), specs, ["stacked"]) is None  # a string already


def test_how_many_asks_for_a_count_on_both_sides() -> None:
    assert "count" in terms("How many rows are there?") and "count" in terms("How many items a list has.")


def test_goal_facts_tell_outputs_from_inputs() -> None:
    facts = goal_facts("Mirror a.txt into b.txt")
    assert facts.outputs == ("b.txt",) and facts.inputs == ("a.txt",)
    facts = goal_facts('Put "hi there" at c.txt and save it to d.txt')
    assert facts.contents == ("hi there",) and "d.txt" in facts.outputs


def test_skeleton_inserts_a_reader_and_ends_in_a_writer() -> None:
    best = skeletons("Mirror a.txt and save it to b.txt", SPECS)[0]
    assert best.tools == ("grab_text", "reverse", "persist")
    # A goal that only reads gets no writer.
    assert all("persist" not in s.tools for s in skeletons("Tally the vowels of a.txt", SPECS))


# ------------------------------------------------------------------------------ typed flow


def test_output_literal_only_to_a_writer_and_input_only_to_a_reader() -> None:
    slots = bind(("grab_text", "reverse", "persist"), "Mirror a.txt and save it to b.txt", SPECS)
    (_, read), (_, mirror), (_, write) = slots.steps
    assert read["source"] == ["a.txt"]
    assert mirror["payload"] == ["${s1}"]
    assert write["dest"] == ["b.txt"]
    assert write["payload"] == ["${s2}"]  # the computed result, not the input it came from
    assert slots.decided()


def test_an_integer_output_feeds_a_writer_as_text_but_never_a_reader_of_text() -> None:
    goal = "Measure a.txt and save the length to n.txt"
    write = bind(("grab_text", "measure", "persist"), goal, SPECS).steps[2][1]
    assert write["payload"] == ["${s2}\n"]
    # A read-only tool's string parameter never takes a number as text: the text it can take
    # is the earlier string output.
    mirror = bind(("grab_text", "measure", "reverse"), "Measure a.txt then mirror", SPECS)
    assert mirror.steps[2][1]["payload"] == ["${s1}"]


def test_only_declared_fields_of_the_right_type_are_offered() -> None:
    goal = "Tally the vowels of a.txt and save them to v.txt"
    slots = bind(("grab_text", "census", "persist"), goal, SPECS)
    payload = slots.steps[2][1]["payload"]
    assert isinstance(payload, list)
    assert payload[0] == "${s3.vowels}\n".replace("s3", "s2")  # the field the goal names first
    assert all(v.startswith("${s2") for v in payload)  # nothing invented, nothing from s1
    assert not any("label" in v for v in payload)  # the goal names "vowels": other fields go


def test_a_goal_word_next_to_the_parameter_name_binds_it() -> None:
    slots = bind(("grab_text", "grep_for"), "Grep a.txt for the pattern ERR-7 lines", SPECS)
    assert slots.steps[1][1]["pattern"] == ["ERR-7"]
    quoted = bind(("grab_text", "grep_for"), 'Find "disk full" in a.txt', SPECS)
    assert quoted.steps[1][1]["pattern"] == ["disk full"]


def test_slot_schema_is_a_grammar_of_exactly_the_allowed_values() -> None:
    slots = bind(("grab_text", "census", "persist"), "Tally a.txt and save it to v.txt", SPECS)
    schema = slots.schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(slots.first_plan(), schema)
    bad = slots.first_plan()
    bad["steps"][2]["args"]["dest"] = "a.txt"  # the input file as the output: not allowed
    assert not jsonschema.Draft202012Validator(schema).is_valid(bad)


def test_a_reference_followed_by_text_is_interpolated_not_typed() -> None:
    assert refs.resolve({"a": "${s1}\n", "b": "${s1}"}, {"s1": 7}) == {"a": "7\n", "b": 7}


# ------------------------------------------------------------------------------ candidates


def test_candidate_scores_order_validity_then_coverage_then_prior_then_likelihood() -> None:
    goal = "Mirror a.txt and save it to b.txt"
    good = plan_of(
        ("grab_text", {"source": "a.txt"}),
        ("reverse", {"payload": "${s1}"}),
        ("persist", {"dest": "b.txt", "payload": "${s2}"}),
        goal=goal,
    )
    dead = plan_of(
        ("grab_text", {"source": "a.txt"}),
        ("reverse", {"payload": "${s1}"}),
        ("persist", {"dest": "b.txt", "payload": "${s1}"}),
        goal=goal,
    )
    assert unused_outputs(good, SPECS) == 0 and unused_outputs(dead, SPECS) == 1
    s_good = score_candidate(good, [], goal, SPECS, prior=1.0)
    assert s_good < score_candidate(dead, [], goal, SPECS, prior=5.0)
    assert s_good < score_candidate(good, [Problem("x", "bad", "s1")], goal, SPECS, prior=9.0)
    assert s_good < score_candidate(None, [], goal, SPECS)
    assert score_candidate(good, [], goal, SPECS, prior=2.0) < s_good
    likelier = score_candidate(good, [], goal, SPECS, prior=1.0, likelihood=-0.1)
    assert likelier < score_candidate(good, [], goal, SPECS, prior=1.0, likelihood=-0.9)
    assert isinstance(s_good, CandidateScore)


def test_as_text_arguments_and_logprobs() -> None:
    plan = plan_of(("measure", {"payload": "x"}), ("persist", {"dest": "n.txt", "payload": "${s1}\n"}))
    assert as_text_arguments(plan) == 1
    raw = {"choices": [{"logprobs": {"content": [{"logprob": -1.0}, {"logprob": -3.0}]}}]}
    assert mean_logprob(raw) == -2.0
    assert mean_logprob({"choices": [{}]}) is None and mean_logprob(None) is None


# ------------------------------------------------------------------------------ the planner


async def test_a_fully_bound_chain_needs_no_model_call() -> None:
    model = ScriptedModel([], name="local")
    result = await make_plan("Mirror a.txt and save it to b.txt", SPECS, model)
    assert result.ok and result.plan is not None
    assert [s.tool for s in result.plan.steps] == ["grab_text", "reverse", "persist"]
    assert result.plan.metadata["covered"] is True and result.plan.metadata["model_filled"] is False
    assert model.requests == []


async def test_the_model_fills_an_open_slot_under_the_slot_grammar() -> None:
    goal = "Tally the vowels and digits of a.txt and save them to v.txt"
    answer = {
        "steps": [
            {"id": "s1", "tool": "grab_text", "args": {"source": "a.txt"}},
            {"id": "s2", "tool": "census", "args": {"payload": "${s1}"}},
            {"id": "s3", "tool": "persist", "args": {"dest": "v.txt", "payload": "${s2.digits}\n"}},
        ]
    }
    model = ScriptedModel([json.dumps(answer)] * 4, name="local")
    options = PlannerOptions(candidates=1)
    result = await make_plan(goal, SPECS, model, options=options)
    assert result.ok and result.plan is not None
    assert result.plan.metadata["model_filled"] is True
    schema = model.requests[0].json_schema
    assert schema is not None
    jsonschema.validate(answer, schema)  # the model's answer is one the grammar allows
    enum = schema["properties"]["steps"]["prefixItems"][2]["properties"]["args"]["properties"]["payload"]
    assert set(enum["enum"]) == {"${s2.vowels}\n", "${s2.digits}\n", "${s2}\n"}


async def test_decompose_off_uses_the_whole_plan_grammar() -> None:
    answer = json.dumps({"steps": [{"id": "s1", "tool": "grab_text", "args": {"source": "a.txt"}}]})
    model = ScriptedModel([answer], name="local")
    result = await make_plan("Fetch a.txt", SPECS, model, options=PlannerOptions(decompose=False))
    assert result.ok and len(model.requests) == 1
    assert "decomposed" not in (result.plan.metadata if result.plan else {})


def test_content_the_goal_gives_is_offered_whole_not_word_by_word() -> None:
    # "with the text buy milk": the word next to the parameter name ("buy") must not be taken
    # for the value; the whole text is one candidate, as the coverage check will demand it.
    facts = goal_facts("pin a memo titled groceries with the text buy milk")
    assert facts.contents == ("buy milk",)
    assert "buy" not in facts.words and "milk" not in facts.words
    assert goal_facts("pin a memo titled groceries").contents == ()


def test_how_many_counts_items_but_totals_units_of_measure() -> None:
    assert {"count", stem("number")} <= set(terms("how many rows are in sales.csv"))
    hours = terms("How many hours of meetings are in week.json")
    assert "total" in hours and "count" not in hours
    assert "count" in terms("how many meetings are on Monday")


# ------------------------------------------------------------------------------ refinements


@tool
def vowel_position(payload: str) -> int:
    """Where the first vowel of a payload is."""
    return 0


@tool
def vowel(payload: str) -> str:
    """The first vowel of a payload."""
    return payload[:1]


_VOWEL_SPECS = {**SPECS, **{t.spec.name: t.spec for t in (vowel_position, vowel)}}


def _chain_priors(goal: str, refinements: Refinements) -> dict[tuple[str, ...], float]:
    return {s.tools: s.prior for s in skeletons(goal, _VOWEL_SPECS, limit=50, refinements=refinements)}


def test_name_precision_prefers_the_tool_whose_name_says_no_more_than_the_goal() -> None:
    goal = "Find the vowel of a.txt and persist it to b.txt"
    on = _chain_priors(goal, Refinements())
    short, long = ("grab_text", "vowel", "persist"), ("grab_text", "vowel_position", "persist")
    assert on[short] > on[long]
    assert skeletons(goal, _VOWEL_SPECS, refinements=Refinements())[0].tools == short
    # Switched off, "position" costs nothing: the two chains tie.
    off = _chain_priors(goal, NO_REFINEMENTS)
    assert off[short] == off[long]


def test_name_precision_keeps_the_longer_name_when_the_goal_says_all_of_it() -> None:
    goal = "Find the vowel position of a.txt and persist it to b.txt"
    on = _chain_priors(goal, Refinements())
    assert on[("grab_text", "vowel_position", "persist")] > on[("grab_text", "vowel", "persist")]


def test_name_precision_does_not_judge_a_name_chosen_by_its_description() -> None:
    # "Mirror" is only in reverse's description: its name's word is not held against it.
    goal = "Mirror a.txt and persist it to b.txt"
    assert (
        _chain_priors(goal, Refinements())[("grab_text", "reverse", "persist")]
        == _chain_priors(goal, NO_REFINEMENTS)[("grab_text", "reverse", "persist")]
    )


class Book(BaseModel):
    title: str
    genre: str


class Volume(BaseModel):
    heading: str
    chapters: list[str]


@tool
def list_shelf(shelf_file: str) -> list[Book]:
    """Read the books of a shelf file."""
    return []


@tool
def of_genre(books: list[Book], genre: str) -> list[Book]:
    """Only the books that belong to the given genre."""
    return books


@tool
def book_count(books: list[Book]) -> int:
    """How many books there are."""
    return len(books)


@tool
def open_volume(volume_file: str) -> Volume:
    """Open a volume file: its heading and chapters."""
    return Volume(heading="", chapters=[])


@tool
def chapter_count(volume: Volume) -> int:
    """How many chapters a volume has."""
    return len(volume.chapters)


_SHELF_SPECS = {
    t.spec.name: t.spec for t in (list_shelf, of_genre, book_count, open_volume, chapter_count, persist)
}


def _best_tools(goal: str, refinements: Refinements) -> list[tuple[str, dict[str, Any]]]:
    from forethought.planning.planner import best_chain

    chosen = best_chain(goal, _SHELF_SPECS, True, refinements=refinements)
    assert chosen is not None, goal
    return [(s["tool"], s["args"]) for s in chosen.slots.first_plan()["steps"]]


def test_value_words_are_unexplained_words_qualifying_an_explained_one() -> None:
    from forethought.planning.bm25 import tool_terms
    from forethought.planning.tool_roles import filter_param
    from forethought.planning.value_filters import value_words

    docs = {n: set(tool_terms(s)) for n, s in _SHELF_SPECS.items()}
    assert value_words(goal_facts("How many poetry books are in shelf.json? Save it to n.txt"), docs) == [
        "poetry"
    ]
    assert value_words(goal_facts("Count the books of poetry in shelf.json"), docs) == ["poetry"]
    # Not a value: a word after the noun, a pronoun, a word starting a clause, a stray word.
    for goal in (
        "How many books are in shelf.json? Save the answer to n.txt",
        "Count everything in shelf.json and save it to n.txt",
        "Tabulate books of shelf.json",
    ):
        assert value_words(goal_facts(goal), docs) == [], goal
    # A name the goal capitalizes is a value wherever it stands; "how many" is no word of its own.
    assert value_words(goal_facts("Count the books of shelf.json bought in Oslo"), docs) == ["Oslo"]
    no_count = {n: d for n, d in docs.items() if n not in ("book_count", "chapter_count")}
    assert value_words(goal_facts("How many books are in shelf.json?"), no_count) == []
    assert filter_param(_SHELF_SPECS["of_genre"]) == "genre"
    assert filter_param(_SHELF_SPECS["book_count"]) is None
    assert filter_param(_SHELF_SPECS["persist"]) is None


def test_a_value_named_bare_pulls_in_the_filter_that_takes_it() -> None:
    goal = "How many poetry books are in shelf.json? Save the answer to n.txt"
    steps = _best_tools(goal, Refinements())
    assert [t for t, _ in steps] == ["list_shelf", "of_genre", "book_count", "persist"]
    assert steps[1][1] == {"books": "${s1}", "genre": "poetry"}
    # Switched off, the value is dropped: the count is over every book.
    assert [t for t, _ in _best_tools(goal, NO_REFINEMENTS)] == ["list_shelf", "book_count", "persist"]


def test_no_filter_where_the_goal_names_no_value() -> None:
    for goal in (
        "How many books are in shelf.json? Save the answer to n.txt",
        "Count everything in shelf.json and save it to n.txt",
    ):
        assert "of_genre" not in [t for t, _ in _best_tools(goal, Refinements())], goal


class Tome(BaseModel):
    heading: str
    pages: int
    chapters: list[str]


@tool
def open_tome(tome_file: str) -> Tome:
    """Open a tome file: its heading, pages and chapters."""
    return Tome(heading="", pages=0, chapters=[])


@tool
def chapter_tally(tome: Tome) -> int:
    """How many chapters a tome has."""
    return len(tome.chapters)


_TOME_SPECS = {t.spec.name: t.spec for t in (open_tome, chapter_tally, persist)}


def _tome_plan(goal: str, refinements: Refinements) -> list[tuple[str, dict[str, Any]]]:
    from forethought.planning.planner import best_chain

    chosen = best_chain(goal, _TOME_SPECS, True, refinements=refinements)
    assert chosen is not None, goal
    return [(s["tool"], s["args"]) for s in chosen.slots.first_plan()["steps"]]


def test_a_field_the_goal_names_goes_straight_to_the_writer() -> None:
    steps = _tome_plan("Find the heading of the tome in t.json and persist it to h.txt", Refinements())
    assert steps == [
        ("open_tome", {"tome_file": "t.json"}),
        ("persist", {"dest": "h.txt", "payload": "${s1.heading}"}),
    ]
    # A number field answers "how many" by itself.
    steps = _tome_plan("How many pages does t.json have? Persist the number to p.txt", Refinements())
    assert [t for t, _ in steps] == ["open_tome", "persist"]
    assert steps[1][1]["payload"].startswith("${s1.pages}")
    # Switched off, the record went whole to the only tool that takes it, and its chapter count
    # was persisted as "the heading"; the coverage check now calls a count the goal does not ask
    # for missing, so that chain is never the decided one.
    off = _tome_plan("Find the heading of the tome in t.json and persist it to h.txt", NO_REFINEMENTS)
    assert "chapter_tally" not in [t for t, _ in off]


def test_a_list_field_the_goal_counts_still_goes_through_the_tool() -> None:
    steps = _tome_plan("How many chapters does t.json have? Persist the number to c.txt", Refinements())
    assert [t for t, _ in steps] == ["open_tome", "chapter_tally", "persist"]


def test_unreferenced_fields_counts_a_named_plain_field_no_argument_takes() -> None:
    from forethought.planning.candidates import unreferenced_fields

    goal = "Find the heading of the tome in t.json and persist it to h.txt"
    whole = plan_of(
        ("open_tome", {"tome_file": "t.json"}),
        ("chapter_tally", {"tome": "${s1}"}),
        ("persist", {"dest": "h.txt", "payload": "${s2}"}),
    )
    field = plan_of(
        ("open_tome", {"tome_file": "t.json"}), ("persist", {"dest": "h.txt", "payload": "${s1.heading}"})
    )
    assert unreferenced_fields(whole, goal, _TOME_SPECS) == 1
    assert unreferenced_fields(field, goal, _TOME_SPECS) == 0
    # A list field ("chapters") and a file name's words ("t.json") are not counted.
    assert (
        unreferenced_fields(whole, "How many chapters does t.json have? Persist it to c.txt", _TOME_SPECS)
        == 0
    )


@tool
def missing_from(tome: Tome, books: list[Book]) -> str:
    """The chapters of a tome that no book of a shelf covers, one per line."""
    return ""


_TWO_INPUT_SPECS = {
    t.spec.name: t.spec for t in (open_tome, list_shelf, missing_from, chapter_tally, persist)
}


def _two_input_plan(goal: str, refinements: Refinements) -> list[tuple[str, dict[str, Any]]] | None:
    from forethought.planning.planner import best_chain

    chosen = best_chain(goal, _TWO_INPUT_SPECS, True, refinements=refinements)
    return None if chosen is None else [(s["tool"], s["args"]) for s in chosen.slots.first_plan()["steps"]]


def test_two_input_files_get_a_reader_each_by_type() -> None:
    steps = _two_input_plan(
        "Which chapters of t.json are missing from shelf.json? Persist them to m.txt", Refinements()
    )
    assert steps == [
        ("open_tome", {"tome_file": "t.json"}),
        ("list_shelf", {"shelf_file": "shelf.json"}),
        ("missing_from", {"tome": "${s1}", "books": "${s2}"}),
        ("persist", {"dest": "m.txt", "payload": "${s3}"}),
    ]
    # Files named the other way round: each still goes to the reader whose words its name shares.
    steps = _two_input_plan(
        "Which chapters are missing from shelf.json for the tome t.json? Persist them to m.txt", Refinements()
    )
    assert steps is not None
    assert steps[:2] == [("list_shelf", {"shelf_file": "shelf.json"}), ("open_tome", {"tome_file": "t.json"})]
    assert steps[2] == ("missing_from", {"tome": "${s2}", "books": "${s1}"})
    # Switched off, one reader reads both files: no plan binds without the model.
    assert (
        _two_input_plan(
            "Which chapters of t.json are missing from shelf.json? Persist them to m.txt", NO_REFINEMENTS
        )
        is None
    )


def test_one_input_file_keeps_one_reader() -> None:
    steps = _two_input_plan("How many chapters does t.json have? Persist the number to c.txt", Refinements())
    assert steps is not None and [t for t, _ in steps] == ["open_tome", "chapter_tally", "persist"]


@tool
def chapter_text(tome: Tome, chapter: str) -> str:
    """The text of one chapter of a tome, by the chapter's name."""
    return chapter


_SELECT_SPECS = {t.spec.name: t.spec for t in (open_tome, chapter_text, chapter_tally, persist)}


def test_a_value_pulls_in_a_tool_that_selects_by_it() -> None:
    from forethought.planning.decompose import _with_selector
    from forethought.planning.planner import best_chain
    from forethought.planning.tool_roles import value_param

    assert value_param(_SELECT_SPECS["chapter_text"]) == "chapter"
    assert value_param(_SELECT_SPECS["chapter_tally"]) is None
    # Put in after the step whose output it takes, where its own output goes on.
    assert _with_selector(("open_tome", "persist"), "chapter_text", _SELECT_SPECS) == (
        "open_tome",
        "chapter_text",
        "persist",
    )
    # Not where the next step cannot take what it returns (a text is no tome).
    assert _with_selector(("open_tome", "chapter_tally", "persist"), "chapter_text", _SELECT_SPECS) is None
    goal = "Persist the prologue chapter of t.json to p.txt"
    chosen = best_chain(goal, _SELECT_SPECS, True, refinements=Refinements())
    assert chosen is not None
    assert chosen.slots.first_plan()["steps"][1] == {
        "id": "s2",
        "tool": "chapter_text",
        "args": {"tome": "${s1}", "chapter": "prologue"},
    }
    # No value in the goal: the record's field goes to the writer, no selecting step.
    chosen = best_chain(
        "Persist the heading of t.json to p.txt", _SELECT_SPECS, True, refinements=Refinements()
    )
    assert chosen is not None and [s["tool"] for s in chosen.slots.first_plan()["steps"]] == [
        "open_tome",
        "persist",
    ]


def test_name_precision_needs_a_name_the_goal_says_whole() -> None:
    # Without ``vowel``, no name says only goal words: ``vowel_position`` is not held to them.
    specs = {n: s for n, s in _VOWEL_SPECS.items() if n != "vowel"}
    goal = "Find the vowel of a.txt and persist it to b.txt"
    chain = ("grab_text", "vowel_position", "persist")

    def prior(refinements: Refinements) -> float:
        return {s.tools: s.prior for s in skeletons(goal, specs, limit=50, refinements=refinements)}[chain]

    assert prior(Refinements()) == prior(NO_REFINEMENTS)


def test_a_named_field_written_as_text_is_decided_and_not_a_loose_fit() -> None:
    from forethought.planning.candidates import as_text_arguments, named_fields_as_text

    goal = "How many pages does t.json have? Persist the number to p.txt"
    on = bind(("open_tome", "persist"), goal, _TOME_SPECS, refinements=Refinements())
    assert on.steps[1][1]["payload"] == ["${s1.pages}\n"] and on.decided()
    off = bind(("open_tome", "persist"), goal, _TOME_SPECS, refinements=NO_REFINEMENTS)
    assert off.steps[1][1]["payload"] == ["${s1.pages}\n", "${s1}\n"]  # the model would choose
    field = plan_of(
        ("open_tome", {"tome_file": "t.json"}), ("persist", {"dest": "p.txt", "payload": "${s1.pages}\n"})
    )
    whole = plan_of(
        ("open_tome", {"tome_file": "t.json"}), ("persist", {"dest": "p.txt", "payload": "${s1}\n"})
    )
    assert as_text_arguments(field) == as_text_arguments(whole) == 1
    assert named_fields_as_text(field, goal) == 1
    assert named_fields_as_text(whole, goal) == 0
