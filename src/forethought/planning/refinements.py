"""The planner's refinements: techniques added after held-out suites 5-7, each switchable so
bench/planning can show what it adds (``Refinements``; all on by default, ``NO_REFINEMENTS`` off)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Refinements:
    """Techniques added after held-out suite 5, each switchable so bench/planning can show what
    it adds (all on by default)."""

    # A tool's name words the goal does not say cost (``NAME_EXTRA_COST``), both ways of
    # matching a name count: what the goal says and the name has, what the name says and the
    # goal lacks.
    name_precision: bool = True
    # A goal word no tool explains, next to a word one does ("dairy items"), is a value to filter
    # by: chains get a filtering step whose text parameter takes it (``value_words``).
    value_filters: bool = True
    # A field of an earlier record named by the goal ("the title of the recipe") may go straight
    # to the writer, with no tool in between.
    record_fields: bool = True
    # Two input files feeding a tool of two data parameters ("what pancakes.json needs and
    # pantry.json lacks") get a reader each, chosen by type, not one reader twice.
    reader_per_input: bool = True
    # Added after held-out suite 6:
    # A value is taken whole -- a run of words ("science fiction books", "by Ursula K. Le
    # Guin"), a date or time ("2026-11-03") -- and also after "for"/"by"/"from"/"on" or between
    # its noun and a past-tense verb ("the hours alice worked"); function verbs never are values;
    # a date or time value goes only to a parameter of that kind (``value_words``).
    whole_values: bool = True
    # Words a tool's description gives as examples ("for example fantasy") are values the goal
    # supplies, not words the tool explains (``example_terms``).
    example_values: bool = True
    # Layout words ("one per line", "as a list") are ranked apart from the rest of their clause,
    # so they add a formatting step but do not choose the clause's tool (``split_layout``).
    layout_apart: bool = True
    # A file named where a result goes -- the subject of "X should hold …", or the target of
    # "into"/"to"/"as" -- is the output even when named first, and a file the goal reads
    # ("in"/"of"/"from" X) is then an input (``output_files``).
    output_position: bool = True
    # Added after held-out suite 7:
    # Closed word classes are never values: quantifiers ("different", "total"), comparatives
    # and superlatives ("fewer than", "fastest", "most expensive"), common verbs ("cost",
    # "say") (``word_classes.never_value``); a number with its unit is one value ("800 m").
    value_classes: bool = True
    # A writer explains the goal's writing verbs ("write", "save", "put"): a converter whose
    # description also says "write" is not kept for that word alone ("Write a number of seconds
    # as a clock time" after an average), only for a format the goal asks for.
    writer_verbs: bool = True
    # Added after suite 8:
    # More forms that are no value: irregular comparatives and superlatives ("the *best*
    # score"), a noun right after a number ("80 *points*": a unit), and a name's possessive
    # ending ("Ines Moreau*'s*") is cut off (``word_classes``).
    value_forms: bool = True
    # "Who" asks for a person: a tool whose name says a person's role ("student_names") explains
    # it, and of a record's fields the one naming a person or a name is what is written.
    who_person: bool = True
    # A file labelling the goal with a colon ("bill.txt: what does … cost?") is the output even
    # when it is the goal's only file.
    lone_label: bool = True
    # Added after suite 9:
    # The goal words a free text parameter falls back to (no value word, no quoted text) obey
    # the closed classes value words do ("the *biggest* expense" is no date, "how much *went*
    # on" no category), and a past-tense verb right after its subject ("who *opened*", "I
    # *paid*") is no value either (``value_filters.no_value_words``).
    fallback_classes: bool = True
    # The question word chooses the field of a record that is written: "who" a person's
    # (by its name, an "-ee" ending or a tool describing it as a person), "how much"/"how
    # many" a number, "when" a date (``question_fields``).
    question_fields: bool = True
    # Added after suite 9, round 2:
    # A goal word a tool's description or schema enumerates as a parameter's allowed value
    # ("status: open, waiting or closed") is a value wherever it stands, not a word the tool
    # explains (``value_filters.enumerated_options``).
    enumerated_values: bool = True
    # A goal word is explained by a tool only if the tool says the same word (up to an
    # inflection's ending), not merely one sharing its 5-letter BM25 stem ("transport" is not
    # "transactions") (``value_filters.same_word``).
    whole_word_terms: bool = True
    # Added after the built-in tools' arithmetic went unplanned:
    # An arithmetic expression the goal writes out ("what is (12 + 8) * 3?") is one value, taken
    # whole by a tool's expression or formula parameter; that tool alone, or into the writer,
    # is a chain (``goal_expressions``).
    expression_literals: bool = True


NO_REFINEMENTS = Refinements(
    name_precision=False,
    value_filters=False,
    record_fields=False,
    reader_per_input=False,
    whole_values=False,
    example_values=False,
    layout_apart=False,
    output_position=False,
    value_classes=False,
    writer_verbs=False,
    value_forms=False,
    who_person=False,
    lone_label=False,
    fallback_classes=False,
    question_fields=False,
    enumerated_values=False,
    whole_word_terms=False,
    expression_literals=False,
)

# Every technique on: the planner's default.
ALL_REFINEMENTS = Refinements()
