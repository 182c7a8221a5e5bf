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
    # Added after suite 10:
    # A capital letter (or letter and digits) right after a word naming a tool's value
    # parameter is that parameter's value, a label ("bed B", "Bed A's", "gate C2"): a value of
    # one letter is no stray letter there (``value_filters.label_values``).
    label_values: bool = True
    # Capitalized words opening a sentence are a name when two or more of them run together
    # and none is a word a tool explains, a verb or a stop word ("Tom Okafor's loans …",
    # "Priya Shah: how many …"); the first word of a sentence is capitalized anyway, so a lone
    # one is not (``value_filters.value_words``).
    leading_names: bool = True
    # Personal pronouns ("she", "him", "them") stand for a value, they never are one: "how many
    # books has *she* borrowed" filters by nobody called "she" (``value_filters.PRONOUNS``).
    pronouns: bool = True
    # The noun an ordinal or superlative grades is the head of its phrase, not a value ("the
    # first *seeds* were sown"), and placeholder nouns ("the first *thing* sown") never are
    # values (``value_filters.PLACEHOLDER_NOUNS``).
    head_nouns: bool = True
    # A tool a clause chose that reads one of the goal's input files goes first in its chain,
    # whatever the clause order ("Which variety was sown earliest? Read plantings.csv and …"):
    # the other steps work on what it reads.
    readers_first: bool = True
    # The noun phrase a writing verb takes ("write *the plant's name* to a.txt", "put *the
    # variety* in …", "write *its sowing date* …") names the record's field that is written:
    # a field named by one of its words (up to an inflection), or, for "its name", the field
    # the goal's "which"/"what" noun names ("*Which plant* …") (``question_fields.written_fields``).
    written_fields: bool = True
    # A date the goal spells out is the ISO value a date parameter takes ("1 April 2026" →
    # 2026-04-01), a month without a day the month ("during April 2026" → 2026-04), which a
    # tool taking a range of days (two date parameters) reads as its first and last day
    # (``dates``); a range filter is put into chains as a one-value filter is.
    spelled_dates: bool = True
    # A chain gets a second filter when the goal's values are of two kinds, one for each
    # ("Nora Quinn's books … overdue on 2026-03-30": by borrower, then by date).
    chained_filters: bool = True
    # A file an arrow points at ("… in plantings.csv -> march.txt") is where the result goes.
    arrow_targets: bool = True
    # A goal that reads two or more files and writes one ("the number of loans in a.json and in
    # b.json to counts.txt") may run the same steps once per file; the writer then takes every
    # run's result, one per line (``decompose._one_result_per_file``, ``slots``).
    per_file_results: bool = True
    # Added after the built-in tools' arithmetic went unplanned:
    # An arithmetic expression the goal writes out ("what is (12 + 8) * 3?") is one value, taken
    # whole by a tool's expression or formula parameter; that tool alone, or into the writer,
    # is a chain (``goal_expressions``).
    expression_literals: bool = True
    # Added after suite 11:
    # A read-only tool's parameter named like a file's ("destination", "source", "target") beside
    # its data, with no file in its description, names a place or a thing ("the departures
    # heading for a given destination"): it is the tool's value parameter, not a file name; a
    # value right after "to"/"for"/"towards" goes to it first (``tool_roles.names_a_place``).
    place_params: bool = True
    # A parameter whose tool enumerates its options ("one processing state: received (waiting
    # to be processed), processed or discarded", glosses in parentheses allowed) takes only
    # those: a code ("NEURO-1"), a unit ("mL") or other goal words do not fit it, and a value
    # that is one of the options is a kind of its own, so a goal with a code and an option gets
    # a filter for each (``value_filters.enumerated_options``).
    option_values: bool = True
    # A parameter whose description spells out a format ("a date (YYYY-MM-DD)", "HH:MM") takes
    # only values of that shape or an earlier step's output: a code ("ONC-7") or another goal
    # word is no date, whatever else fits (``slots._shape``).
    shaped_values: bool = True
    # A code -- capital letters and digits, maybe joined by a hyphen ("ONC-7", "CARD-2",
    # "AB12") -- is a value wherever the goal puts it ("for project ONC-7, …"): no tool explains
    # an identifier (``value_filters.CODE_RE``).
    code_values: bool = True
    # A capitalized goal word that is the name of one of the goal's input files ("the Parkway
    # board (parkway.json)") says which file is read; the reader takes it, it is no value to
    # filter by.
    file_named_values: bool = True
    # Times of day the goal spells with am/pm are the 24-hour values a time parameter takes
    # ("9.30 pm" → 21:30; "between 7 and 9 am" → 07:00 and 09:00), and two times of day are a
    # range a tool with two time parameters ("earliest", "latest" as HH:MM) filters by, as two
    # days are for one with two date parameters (``plan.dates.spelled_times``).
    spelled_times: bool = True
    # "A time of day (HH:MM)" in a tool's words names a time, not a date: its parameter takes
    # the goal's "8 pm" as "20:00", and no day (``tool_roles.param_kind``).
    day_times: bool = True
    # A value the goal negates ("received but *not processed*", "other than discarded",
    # "except Leeds") is nothing to select by: no filter takes it; negations and contrasts
    # ("not", "but", "except") never are values themselves (``value_filters.NEGATION_WORDS``).
    negated_values: bool = True
    # A number the goal names by a numeric parameter ("at least *10 minutes* late" for
    # ``min_minutes``) is that parameter's value before any earlier step's number.
    named_numbers_first: bool = True
    # A goal asking for every item ("show every departure", "all the samples") and for no
    # number or single one of them is answered by a list or its text, not by a step returning
    # one record or a number: such a chain's prior loses ``decompose.PLURAL_COST``.
    plural_lists: bool = True
    # A goal whose steps run once per file ("the number of samples in a.tsv and in b.tsv, one
    # per line") gets its layout from the writer, one result per line: the chain without the
    # formatter that lays out one file's items is a candidate too, and it explains the layout
    # words (``per_file_results``); files joined under any preposition of place ("on a.json
    # and on b.json") are side by side as "in a.json and in b.json" are.
    per_file_layout: bool = True
    # A clause holding a value a filter takes ("Which trains go to York?") may be answered by
    # that filter alone: chains without a tool chosen for the clause's other words are
    # candidates too.
    filter_clauses: bool = True
    # "When" asks for a field a tool's description calls a date by a word of the field's stem
    # (``collected``: "the collection date"), not only by the field's own word
    # (``question_fields.is_date_field``).
    derived_date_fields: bool = True
    # ``make_plan`` takes the chain ``stream_plan`` takes (``planner.best_chain``) when every
    # slot of it is decided and it covers the goal, before any chain the model would fill: the
    # two agree, and a goal the rules decide costs no model call.
    decided_chain_first: bool = True
    # A file labelling the goal with a dash ("hours.txt - total hours spent on …") is the
    # output as one labelling it with a colon is, and the noun phrase right after such a label
    # ("a.txt: *the platform* that the earliest train leaves from") names the record's field
    # written, as the phrase a writing verb takes does (``question_fields.written_phrase``).
    label_phrases: bool = True
    # A value the goal puts right after a parameter's name ("bills (*category utilities*)",
    # "status: open") is that parameter's value, whichever other values the goal gives.
    named_after_param: bool = True
    # "How many" before a unit of measure, symbol or word ("how many mL of …", "how many
    # litres"), asks for an amount, summed, not for a count (``word_classes.measured_amounts``).
    measure_units: bool = True
    # A file labelling the goal is what it reads, not where the answer goes, when another file
    # is the target of "to"/"into"/"as" ("b.json: how late is the first train? Write the
    # minutes to late.txt") (``goal_facts.output_files``).
    label_sources: bool = True
    # A filter's value is a field of a record an earlier step picked ("the trains as late as
    # the first one") only when the goal asks for sameness ("same", "as", "like"): "how late
    # is the first train to York" filters by York and writes the first train's delay.
    same_as_filters: bool = True
    # A written field whose name shortens a goal word ("delay_min" for "how many minutes
    # late") is a field the goal names: the coverage check asks for no step computing it
    # (``plan.coverage.check_coverage(abbreviations=True)``, from ``score_candidate``).
    abbreviated_fields: bool = True
    # Added after "convert 5 km to m" bound both units to "m":
    # The options a tool lists for a text parameter ("units: mm, cm, m, km") that the goal says
    # are that parameter's values, a different one for each parameter of the list, "to_unit"
    # taking the word after "to" (``listed_options``).
    listed_options: bool = True
    # An optional boolean parameter the goal says by name ("*append* 'done' to notes.txt") is
    # set true; left out, ``write_file`` replaced the file (``coverage.flag_named``).
    named_flags: bool = True
    # Added after suite 12:
    # A word of an input file's name ("the north depot (north_depot.jsonl)"), capitalized or
    # not, says which file is read: it is no value to filter by (``value_filters``).
    file_word_values: bool = True
    # Text a writing verb takes ("Write *it,* in kilograms, to a.txt") is a value only stripped
    # of punctuation and never when it is a pronoun or a stop word (``value_filters``).
    bare_contents: bool = True
    # A filter's required boolean is decided from the goal: false when the goal negates what
    # the tool keeps ("who *didn't* turn up", "were *no-shows*") or says the description's word
    # for false, else true (``boolean_values``).
    boolean_polarity: bool = True
    # A CamelCase word ("ParcelLine", "QuickShip") is a name, a value, even when its parts are
    # words a tool explains (``value_filters``).
    camel_case_names: bool = True
    # Days spelled as ordinal words ("the eighth", "twenty-first") are days as "8th" is, and a
    # range of days sharing one month ("from the eighth to the twenty-first of March 2026",
    # "between 23 and 31 March 2026") is two dates (``plan.dates.spelled_dates``).
    spelled_ordinals: bool = True
    # A tool's pair of numeric bounds ("min_kg", "max_kg") takes the range the goal says:
    # "between two and five kilos" both, "at most 1 kg" the high one only; numbers may be words
    # ("one" to "twenty") (``number_ranges``, ``plan.number_words``).
    number_ranges: bool = True
    # Added after a new user's "count the words in notes.txt and a.txt and write both counts":
    # an optional parameter takes an earlier step's output only when the goal names it. Else
    # notes.txt's size became a.txt's ``max_bytes``, notes.txt looked used, and one count was
    # written as "succeeded" (``slots``).
    optional_references: bool = True
    # The question word's kind ("how many": a number field) chooses among the fields of the
    # step that answers, not of one a later read-only step still works on: "how many words are
    # in notes.txt?" kept only read_file's size, and text_stats got the word "number" (``slots``).
    question_last_step: bool = True
    # Two files read and only read, one written ("write the contents of a.txt and b.txt to
    # c.txt"): the writer writes each reader's text in turn (``slots._per_file_results``).
    per_file_readers: bool = True
    # Added after suite 13:
    # A filter keeping items by a required flag ("paid") is put into chains when the goal
    # negates the flag's own word, by a prefix ("the *unpaid* bookings") or in its sentence
    # ("that *haven't* been paid"); the prefixed word is no value to filter by, and says the
    # flag is false (``boolean_values.negated_flag``).
    negated_flags: bool = True
    # Two days with their months before one year ("between May 15 and May 25, 2026", "from 15
    # May to 2 June 2026") are two dates of that year (``plan.dates.spelled_dates``).
    shared_years: bool = True
    # A number the goal writes only inside a date ("up to and including April 15th, *2026*") is
    # no number a numeric parameter takes: a year is no litres bound (``plan.dates.date_numbers``).
    date_numbers: bool = True
    # A phrase right before an input file in parentheses labels that file ("in March
    # (march_log.jsonl) against April (fuel_log.jsonl)", "the annex (annex.csv)"): it says
    # which file is read, no value to filter by; and files so labelled, joined by "and",
    # "against", "versus" or a comma, are side by side, each run through the same steps
    # (``decompose._coordinated``).
    labelled_files: bool = True
    # A superlative ranks and explains by its sense, not its spelling: "the biggest fill-up" is
    # what a tool named "largest_fill_up" returns (``word_classes.SUPERLATIVE_GROUPS``).
    superlative_synonyms: bool = True
    # A filter's value is one value: the text a formatter lays many items out in ("one line per
    # fill-up") never is, though its type (a string) fits.
    laid_out_values: bool = True
    # A tool keeping some of a list ("between three and seven kg") that a clause put after a
    # step returning no such list (a count) is also tried where the list it takes is: "count
    # the dogs between …" keeps, then counts (``decompose._keeper``).
    keepers_first: bool = True
    # Added after suite 14:
    # Words saying a sum ("altogether", "in total", "combined") are said as "total", and in
    # their sentence "how long" asks for a total, not the longest ("how long do X's tracks play
    # altogether?") (``word_classes.summed_words``).
    summed_words: bool = True
    # A list of records written raw as text while a tool lays such lists out (one taking lists
    # of the same records and returning text) costs a candidate more than the formatter's step
    # (``candidates.records_as_text``): "list the songs by X in x.txt" asks for the listing.
    # The subject of a modal sentence saying what a file's text is ("count.txt *should say* how
    # many tracks a.txt has", "must contain") is an output the goal asks for, though no file is
    # named after "in"/"of"/"from" (the coverage check's ``goal_outputs``, read by the planner).
    content_subjects: bool = True
    formatted_records: bool = True
    # The kind of answer the goal asks for weighs chains as ``plural_lists`` does: a goal asking
    # for no number ("put the rock songs … in a.txt") is not answered by a counting tool, one
    # asking only how many ("a.txt: the number of builds that passed") not by a listing
    # (``answer_shapes.asks_count_only``, ``plan.coverage.asks_number``).
    answer_kinds: bool = True
    # A name with a slash ("feature/login") right beside the word naming a value parameter
    # ("the feature/login *branch*") is that parameter's value, whole: no folder, not two words
    # (``value_filters._named_by_param``).
    slashed_values: bool = True
    # A number word before a noun naming a numeric parameter ("rated *four stars* or more", "the
    # *five-star* tracks" for ``stars``) is that number in digits, a number of that unit: no
    # value to filter a text by (``plan.number_words.numbered_units``); a tool keeping items by
    # that one numeric parameter goes into chains as a value's filter does.
    unit_numbers: bool = True
    # A quantity said in another unit than the one a numeric parameter's name or description
    # gives, of the same dimension ("longer than *a second*" for ``ms``, "more than a quarter of a
    # second", "two and a half hours" for ``minutes``), is the parameter's number: written so
    # ("1000 milliseconds") before chains and slots are read (``plan.unit_quantities``).
    converted_units: bool = True
    # A path from the root that names no file ("paths under */images/*", "the */api/checkout*
    # requests") is a value to filter by, whole, where a tool keeps items by a prefix
    # (``value_filters``; ``tool_roles.takes_prefix``: such a parameter, on a read-only tool taking
    # data, names no file, with ``place_params``).
    prefix_values: bool = True
    # A field named like a file parameter ("path", "source") of a record a tool that takes no
    # file name returns ("the slowest request": its URL path) is data, not a file's name: it may
    # be written or fed on as text, and the question may name it (``slots._outputs_of``).
    record_paths: bool = True
    # A file whose line a writing verb puts a result on ("write a.txt's on the first line of
    # *out.txt* and b.txt's on the second") is where the results go, though "of" names it
    # (``goal_facts``): with two files read, each run of steps gives one line.
    line_targets: bool = True
    # "On which day …", "what date …" asks for a date, and of a record's date fields for the
    # day's, not a time of day's (``question_fields.day_fields``).
    day_questions: bool = True
    # Added after a new user's run on the built-ins ("write the word count of a.txt and of
    # b.txt to counts.txt" wrote text_stats' whole records): a step run once per file whose
    # result is a record of which the goal names one field writes that field of each run
    # (``slots._per_file_results``).
    per_file_fields: bool = True
    # Added after suite 15 ("how many tickets did X sell" counted screenings):
    # "How many" before a noun no counting tool counts, that a summing tool's name or
    # description says ("Total number of tickets sold"), or beside a verb naming such a tool
    # ("how many seats were *sold*"), asks for that total, not a count of items
    # (``summed_amounts.summed_counts``).
    summed_counts: bool = True
    # A noun the goal gives a number after ("Screen 3", "gate 12") names a numeric parameter's
    # value as "3 screens" would: a tool keeping items by that one numeric parameter goes into
    # chains (``decompose._counted_keeper``), and the number goes to it (``slots._numbers_named``).
    numbered_names: bool = True
    # A weekday right before a date the goal spells ("on Sunday the sixth of September 2026",
    # "Saturday, September 5th 2026") is part of that date, no value of its own
    # (``value_filters.value_words``).
    dated_weekdays: bool = True
    # A goal word a tool's listed option abbreviates ("west" for W, "south-westerly" for SW in
    # "a compass point: N, NE, …, SW, W or NW"; "Tuesday" for Tue) is that option, when one
    # option alone does (``abbreviated_options``).
    abbreviated_options: bool = True
    # "The first four days of March 2026" ("the last 3 days of …") is a range of days from the
    # month's first (to its last) day, as long as the count says: two dates, not the whole
    # month (``plan.dates.spelled_dates``).
    month_runs: bool = True
    # A file whose line a possessive's result goes on with no verb ("Hilltop's on the first
    # line of out.txt, the valley's on the second") is where the results go, as with "write …
    # on the first line of out.txt" (``line_targets``): no input to read.
    possessive_lines: bool = True
    # A keeper by a number of its unit ("had at least one millimetre of rain" for
    # ``millimetres``, ``unit_numbers``) a clause chose after the count is also tried where the
    # list it takes is, as ``keepers_first`` tries a keeper by a value: it keeps, then counts.
    counted_keepers_first: bool = True
    # Added after suite 17:
    # A file a writing verb names as its object, a kind of text and its name ("Post a notice
    # *named a.txt* saying "…"", "Write a memo *b.txt*: "…"", "create a note called c.txt with
    # …"), is where the text goes, though no "to"/"into" stands before it (``plan.named_outputs``).
    named_outputs: bool = True
    # Of several fields of a record the goal names, the one it takes a part by, before "of"
    # ("the *height* of the highest tide": not ``tide``, the record's own noun; "the *heights*
    # of July's and August's highest tides", a field of each run) is the one written
    # (``field_phrases``).
    partitive_fields: bool = True
    # A bound the goal puts on a number ("more than ten mites", "above five metres", "lower than
    # a metre") is kept by the tool keeping items by one number that keeps that way (by its name
    # or description: "above", "less") and says the bound's noun: it goes into chains, one
    # keeping the other way does not, and the number is written in digits ("a metre" is 1)
    # (``bound_keepers``).
    bounded_keepers: bool = True
    # "Count …", "how many" ask for a number: a tool returning a list does not explain those
    # words, though its description says "counted" ("the inspections that counted more mites
    # than …"), so a counting step is no superfluous one after it.
    counted_answers: bool = True
    # A part of the day the goal names in words ("the *morning* high waters", "*before noon*",
    # "in the evening") is the range of times of day it covers (00:00 to 11:59, …), which a tool
    # keeping items between two times of day takes (``plan.day_parts``).
    day_parts: bool = True
    # A format a tool's description spells, of one kind only ("earliest to latest (HH:MM), on any
    # date"), says what its parameters take before its words do: two times of day, no range of
    # days (``tool_roles.param_kind(formats=True)``).
    time_formats: bool = True
    # "Which hives …": a tool named for the plural noun a clause asks about that lays them out
    # as text ("hives_seen"), not a keeper or a reader, is among the clause's choices however
    # BM25 ranks it, and explains the question.
    which_nouns: bool = True
    # Added after suite 16's fixes (branch fix16b):
    # Of several filters each taking one plain text ("of_kind(kind)", "at_place(place)",
    # "entered_by(initials)"), a bare name goes to the one the goal's words around it and its
    # shape fit best: a preposition the filter's name says ("*at* the Long Field"), a noun
    # beside it naming what the filter selects by ("keeper AB" for "one keeper"), its shape
    # against the filter's examples ("e.g. JK": initials) (``filter_fit``).
    fitting_filters: bool = True
    # Times of day in words are the "HH:MM" a time parameter takes: "half past ten" → 10:30,
    # "a quarter to eleven" → 10:45, "ten o'clock"; a window of two when one is said so or
    # with its minutes ("from half past ten to eleven"), or a part of the day names both
    # ("between 9 and 10 in the morning" → 09:00, 10:00) (``plan.dates.spelled_times``).
    worded_times: bool = True
    # One day the goal names, not as a bound ("made on the twenty-fifth of April 2026"), is a
    # range from that day to itself where the tool set filters days only by a range (two date
    # parameters, no one-date filter) (``plan.dates.single_day``).
    single_days: bool = True


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
    label_values=False,
    leading_names=False,
    pronouns=False,
    head_nouns=False,
    readers_first=False,
    written_fields=False,
    spelled_dates=False,
    chained_filters=False,
    arrow_targets=False,
    per_file_results=False,
    expression_literals=False,
    place_params=False,
    option_values=False,
    shaped_values=False,
    code_values=False,
    file_named_values=False,
    spelled_times=False,
    day_times=False,
    negated_values=False,
    named_numbers_first=False,
    plural_lists=False,
    per_file_layout=False,
    filter_clauses=False,
    derived_date_fields=False,
    decided_chain_first=False,
    label_phrases=False,
    named_after_param=False,
    measure_units=False,
    label_sources=False,
    same_as_filters=False,
    abbreviated_fields=False,
    listed_options=False,
    named_flags=False,
    file_word_values=False,
    bare_contents=False,
    boolean_polarity=False,
    camel_case_names=False,
    spelled_ordinals=False,
    number_ranges=False,
    optional_references=False,
    question_last_step=False,
    per_file_readers=False,
    negated_flags=False,
    shared_years=False,
    date_numbers=False,
    labelled_files=False,
    superlative_synonyms=False,
    laid_out_values=False,
    keepers_first=False,
    summed_words=False,
    content_subjects=False,
    formatted_records=False,
    answer_kinds=False,
    slashed_values=False,
    unit_numbers=False,
    converted_units=False,
    prefix_values=False,
    record_paths=False,
    line_targets=False,
    day_questions=False,
    per_file_fields=False,
    summed_counts=False,
    numbered_names=False,
    dated_weekdays=False,
    abbreviated_options=False,
    month_runs=False,
    possessive_lines=False,
    counted_keepers_first=False,
    named_outputs=False,
    partitive_fields=False,
    bounded_keepers=False,
    counted_answers=False,
    day_parts=False,
    time_formats=False,
    which_nouns=False,
    fitting_filters=False,
    worded_times=False,
    single_days=False,
)

# Every technique on: the planner's default.
ALL_REFINEMENTS = Refinements()
