"""Closed English word classes that never name a value a goal filters by.

A value is data -- a name, a category, a code, a number. Quantifiers and determiners ("how many
*different* parts", "the *total*"), comparatives and superlatives ("*fewer* than 20", "the
*fastest* time", "the *most expensive* part") and common verbs ("what does it *cost*", "should
*say*") say how to select or what to do, not which data. These lists are general English, not
words of any goal or tool.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Quantifiers, determiners and degree words: they count or pick, never name a value.
QUANTIFIERS = frozenset(
    [
        "all",
        "any",
        "another",
        "both",
        "certain",
        "combined",
        "different",
        "distinct",
        "each",
        "either",
        "enough",
        "entire",
        "every",
        "extra",
        "few",
        "fewer",
        "individual",
        "less",
        "least",
        "little",
        "many",
        "more",
        "most",
        "much",
        "multiple",
        "neither",
        "none",
        "numerous",
        "only",
        "other",
        "overall",
        "own",
        "particular",
        "respective",
        "same",
        "separate",
        "several",
        "single",
        "some",
        "specific",
        "such",
        "total",
        "unique",
        "various",
        "whole",
        "average",
        "mean",
        "median",
        "maximum",
        "minimum",
        "max",
        "min",
        "first",
        "last",
        "next",
        "previous",
        "final",
        "current",
        "latest",
        "earliest",
        "overall",
    ]
)
# Adverbs of time, aspect and focus: when or how far something holds ("tickets that are *still*
# open", "*already* paid"), never which data.
ASPECT_ADVERBS = frozenset(
    (
        "still",
        "already",
        "yet",
        "just",
        "ever",
        "never",
        "always",
        "also",
        "even",
        "again",
        "currently",
        "presently",
        "meanwhile",
        "anymore",
        "actually",
        "really",
        "ago",
    )
)
# Degree words that make the next adjective comparative or superlative ("most expensive").
DEGREE_WORDS = frozenset(("most", "least", "more", "less", "fewer", "very", "too"))
# Common English verbs, base and inflected forms: an action, never a value.
_VERB_BASES = [
    "say",
    "tell",
    "cost",
    "run",
    "take",
    "make",
    "get",
    "give",
    "go",
    "come",
    "see",
    "show",
    "put",
    "keep",
    "let",
    "want",
    "use",
    "find",
    "know",
    "think",
    "look",
    "need",
    "pay",
    "buy",
    "sell",
    "spend",
    "earn",
    "weigh",
    "last",
    "win",
    "lose",
    "finish",
    "start",
    "begin",
    "end",
    "hold",
    "contain",
    "mean",
    "read",
    "write",
    "send",
    "save",
    "print",
    "return",
    "add",
    "leave",
    "stay",
    "live",
    "work",
    "play",
    "eat",
    "drink",
    "sleep",
    "walk",
    "drive",
    "ride",
    "fly",
    "swim",
    "score",
    "owe",
    "appear",
    "belong",
    "cover",
    "include",
    "become",
    "seem",
    "happen",
    "arrive",
    "travel",
    "sit",
    "stand",
    "reach",
    "exceed",
    "remain",
]
_VERB_IRREGULAR = [
    "said",
    "told",
    "ran",
    "took",
    "made",
    "got",
    "gotten",
    "gave",
    "given",
    "went",
    "gone",
    "came",
    "seen",
    "saw",
    "showed",
    "shown",
    "kept",
    "wanted",
    "used",
    "found",
    "knew",
    "known",
    "thought",
    "looked",
    "paid",
    "bought",
    "sold",
    "spent",
    "earned",
    "won",
    "lost",
    "finished",
    "started",
    "began",
    "begun",
    "ended",
    "held",
    "meant",
    "wrote",
    "written",
    "sent",
    "left",
    "stayed",
    "lived",
    "worked",
    "played",
    "ate",
    "eaten",
    "drank",
    "slept",
    "walked",
    "drove",
    "driven",
    "rode",
    "ridden",
    "flew",
    "flown",
    "swam",
    "scored",
    "owed",
    "appeared",
    "belonged",
    "covered",
    "included",
    "became",
    "seemed",
    "happened",
    "arrived",
    "travelled",
    "traveled",
    "sat",
    "stood",
    "reached",
    "exceeded",
    "remained",
]


def _third_person(verb: str) -> str:
    if verb.endswith(("s", "sh", "ch", "x", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


COMMON_VERBS = frozenset([*_VERB_BASES, *(_third_person(v) for v in _VERB_BASES), *_VERB_IRREGULAR])
# Nouns that end in "-est" but are no superlative.
_EST_NOUNS = frozenset(
    [
        "arrest",
        "behest",
        "chest",
        "conquest",
        "contest",
        "digest",
        "forest",
        "guest",
        "harvest",
        "honest",
        "inquest",
        "interest",
        "invest",
        "manifest",
        "midwest",
        "modest",
        "nest",
        "pest",
        "priest",
        "protest",
        "quest",
        "request",
        "rest",
        "suggest",
        "test",
        "vest",
        "west",
        "zest",
    ]
)
_SUPERLATIVE_RE = re.compile(r"[a-z]{2,}(?:iest|est)")


def is_superlative(word: str) -> bool:
    """A lower-case ``-est`` form that is not a known ``-est`` noun ("fastest", "priciest")."""
    w = word.lower()
    return (
        word == w
        and bool(_SUPERLATIVE_RE.fullmatch(w))
        and w not in _EST_NOUNS
        and not any(w.endswith(n) for n in _EST_NOUNS if len(n) >= 5)
    )


def never_value(word: str, before: str = "", after: str = "") -> bool:
    """Whether ``word`` (lower-case in the goal) belongs to a closed class that never names a
    value: a quantifier or degree word, an adverb of time or aspect, a common verb, a
    superlative, a comparative ("-er" before "than"), or an adjective a degree word makes
    gradable ("most *expensive*"); a word right after a modal or "do" form is a verb ("should
    *say*")."""
    w = word.lower()
    if word != w:
        return False  # a capitalized word mid-sentence is a name
    b, a = before.lower(), after.lower()
    return (
        w in QUANTIFIERS
        or w in DEGREE_WORDS
        or w in ASPECT_ADVERBS
        or w in COMMON_VERBS
        or is_superlative(word)
        or (a == "than" and (w.endswith("er") or w in DEGREE_WORDS))
        or b in DEGREE_WORDS
        or b in _MODALS
    )


# Irregular comparatives and superlatives: "good/bad/far/much/little" grade without "-er"/"-est".
IRREGULAR_GRADES = frozenset(
    (
        "best",
        "better",
        "worst",
        "worse",
        "most",
        "more",
        "least",
        "less",
        "lesser",
        "farthest",
        "farther",
        "furthest",
        "further",
        "eldest",
        "elder",
    )
)
# Nouns that name a person (a role, not a person's name): what "who" asks for. General English;
# none whose 5-letter stem is a verb's or another noun's ("writer" → "write", "contact" → "conta").
PERSON_NOUNS = frozenset(
    (
        "person",
        "people",
        "who",
        "student",
        "pupil",
        "teacher",
        "author",
        "owner",
        "user",
        "customer",
        "client",
        "employee",
        "worker",
        "staff",
        "member",
        "player",
        "runner",
        "rider",
        "artist",
        "singer",
        "patient",
        "guest",
        "friend",
        "attendee",
        "winner",
        "athlete",
        "seller",
        "buyer",
        "candidate",
        "child",
        "children",
    )
)
# What a goal asks for when it asks "who": a person's role noun, or their name.
PERSON_FIELD_NOUNS = PERSON_NOUNS | {"name", "names", "fullname", "username"}
WHO_WORDS = frozenset(("who", "whom", "whose"))


# The regular words for an irregular grade, as a tool's description would say it.
_GRADE_WORDS = {
    "best": "highest top",
    "worst": "lowest bottom",
    "better": "higher",
    "worse": "lower",
}
# A word of its own, not part of a file name ("best.txt") or identifier ("best_of").
_GRADE_RE = re.compile(r"(?<![\w./-])(" + "|".join(_GRADE_WORDS) + r")(?![\w/-]|\.\w)")


def regular_grades(text: str) -> str:
    """``text`` with each lower-case irregular grade followed by its regular words ("the best
    score" → "the best highest top score")."""
    return _GRADE_RE.sub(lambda m: f"{m.group(1)} {_GRADE_WORDS[m.group(1)]}", text)


def irregular_grade(word: str) -> bool:
    """An irregular comparative or superlative in lower case ("best", "worse", "least")."""
    return word in IRREGULAR_GRADES


def after_number(text_before: str) -> bool:
    """Whether a word right after this text follows a number: "80 *points*", "600 *km*" -- a
    unit or a counted noun, not a value to select by."""
    return bool(re.search(r"(?<![\w.:/-])\d+(?:\.\d+)?\s*\Z", text_before))


# Words before an amount ("over 600 km", "per 100 km", "of 42 litres", "at least 5 kg"): what
# follows is a quantity to compute with, not a thing named by its measure ("the 800 m").
AMOUNT_WORDS = frozenset(
    (
        "over",
        "under",
        "above",
        "below",
        "than",
        "per",
        "of",
        "about",
        "around",
        "within",
        "least",
        "most",
        "exactly",
        "nearly",
        "almost",
        "approximately",
        "roughly",
        "only",
        "just",
    )
)


def amount_before(text_before: str) -> bool:
    """Whether the text ends in a word that makes what follows an amount ("over", "per")."""
    words = re.findall(r"[A-Za-z]+", text_before[-40:])
    return bool(words) and words[-1].lower() in AMOUNT_WORDS


def strip_possessive(name: str) -> str:
    """A name without its possessive ending: "Ines Moreau's" → "Ines Moreau"."""
    return re.sub(r"(?<=\w)['’]s?\Z", "", name)


_MODALS = frozenset(
    ("do", "does", "did", "will", "would", "shall", "should", "can", "could", "may", "might", "must")
)


# Subjects a verb follows: the "who" asking for the subject, and the personal pronouns.
_SUBJECTS = frozenset(("who", "i", "we", "you", "he", "she", "they"))


def verb_after_subject(word: str, before: str) -> bool:
    """Whether a lower-case word right after its subject is the clause's verb: a past-tense
    "-ed" form or a common verb ("who *opened* …", "I *paid* …", "we *went* …"). After a
    determiner the same form is an adjective and may be a value ("the *closed* tickets")."""
    w = word.lower()
    return word == w and before.lower() in _SUBJECTS and (w.endswith("ed") or w in COMMON_VERBS)


def singular(word: str) -> str:
    """``word`` with a plural "s" dropped as ``bm25.stem`` drops it, but not cut short."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def same_word(word: str, other: str) -> bool:
    """Whether two lower-case words are forms of one word: equal but for an inflection's ending
    ("open"/"opened", "transaction"/"transactions", "category"/"categories") -- they agree up
    to at most two letters before the shorter one ends. "transport" and "transactions" share
    the stem "trans" and are different words."""
    common = 0
    for a, b in zip(word, other, strict=False):
        if a != b:
            break
        common += 1
    return common >= min(len(word), len(other)) - 2


# Units of measure, as symbols and as words, beyond those ``bm25`` knows: "how many *mL*"
# asks for an amount, summed -- not for a count.
_MEASURES = (
    "ml|cl|dl|l|mg|g|kg|t|mm|cm|m|km|mi|ft|in|oz|lb|lbs|kwh|wh|w|kw|v|a|mah|"
    "millilitres?|milliliters?|centilitres?|litres?|liters?|milligrams?|grams?|tonnes?|tons?|"
    "metres?|meters?|millimetres?|millimeters?|kilowatts?|watts?|volts?|amps?|amperes?|"
    "percent|degrees?"
)
_HOW_MANY_MEASURE_RE = re.compile(rf"\bhow\s+many(?=\s+(?:{_MEASURES})\b)", re.IGNORECASE)


def measured_amounts(text: str) -> str:
    """``text`` with "how many" before a unit of measure ("how many mL of …", "how many
    litres") said as "total number", as ``bm25.quantity_words`` says it before the units it
    knows: it asks for an amount, summed, not a count."""
    return _HOW_MANY_MEASURE_RE.sub("total number", text)


# Words saying a sum: "how long do they play *altogether*", "*in total*", "*combined*". English,
# nothing of a tool set's.
_SUM_WORDS_RE = re.compile(
    r"\b(?:altogether|all\s+together|in\s+total|combined|put\s+together|all\s+told)\b", re.IGNORECASE
)
_HOW_LONG_RE = re.compile(r"\bhow\s+long\b", re.IGNORECASE)
_SENTENCE_RE = re.compile(r"[^.?!;]+[.?!;]?")


def summed_words(text: str) -> str:
    """``text`` with the words saying a sum said as "total" ("how long do they play
    *altogether*" → "… total"), and in their sentence "how long" said as "how total": it asks
    how much time in all, not for the longest."""

    def said(sentence: str) -> str:
        if not _SUM_WORDS_RE.search(sentence):
            return sentence
        asked = _HOW_LONG_RE.sub(lambda m: m.group(0).split()[0] + " total", sentence)
        return _SUM_WORDS_RE.sub("total", asked)

    return "".join(said(m.group(0)) for m in _SENTENCE_RE.finditer(text)) if text else text


# Superlatives of one sense: "the biggest fill-up" is what a tool named "largest_fill_up" or
# described by "the most litres" returns. English, nothing of a tool set's.
SUPERLATIVE_GROUPS = (
    frozenset(("largest", "biggest", "greatest", "highest", "maximum", "max", "most")),
    frozenset(("smallest", "lowest", "least", "fewest", "minimum", "min")),
    frozenset(("earliest", "oldest", "soonest")),
    frozenset(("latest", "newest", "recent")),
    frozenset(("longest", "lengthiest")),
    frozenset(("shortest", "briefest")),
)


def superlative_mates(words: Iterable[str]) -> set[str]:
    """The other superlatives of the same sense as any of ``words`` ("biggest" → "largest", …);
    "most" and "least" alone ask for none (they grade another word: "most recent")."""
    lowered = {w.lower() for w in words} - {"most", "least"}
    return set().union(*(g for g in SUPERLATIVE_GROUPS if g & lowered)) - lowered
