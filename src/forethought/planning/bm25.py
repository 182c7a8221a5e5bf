"""Tool retrieval: Okapi BM25 over each tool's name, description and parameter names.

Why BM25 and not an embedding model: it needs no weights and no deep-learning framework, runs in
microseconds for a few hundred tools, and a tool's own vocabulary (``count_words``, "Add up the
numbers in one column") is usually the vocabulary of the goals that need it. Terms are lower-case
words (``snake_case`` and ``camelCase`` split), a plural ``s`` dropped, cut to a 5-letter stem,
so "rows" meets "row", "sorted" meets "sort" and "summary" meets "summarize"; the tool's name
counts twice, since a name is the densest statement of what a tool does.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence

from forethought.tools.base import ToolSpec

_WORD_RE = re.compile(r"[A-Za-z]+|\d+")
_CAMEL_RE = re.compile(r"(?<=[a-z])(?=[A-Z])")
# Words that say nothing about what a tool does (they would match every description).
STOP_WORDS = frozenset(
    (
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "to",
        "into",
        "from",
        "for",
        "and",
        "or",
        "then",
        "it",
        "its",
        "it's",
        "this",
        "that",
        "these",
        "those",
        "is",
        "are",
        "was",
        "be",
        "by",
        "as",
        "at",
        "with",
        "which",
        "what",
        "how",
        "many",
        "much",
        "does",
        "do",
        "give",
        "get",
        "me",
        "my",
        "our",
        "your",
        "their",
        "them",
        "they",
        "there",
        "here",
        "one",
        "each",
        "all",
        "any",
        "some",
        "return",
        "returns",
        "given",
        "file",
        "files",
        "text",
        "have",
        "has",
        "had",
    )
)


# Questions of quantity: "how many" asks for a count ("how" and "many" are stop words), in a
# goal ("how many rows …") as in a tool's description ("how many products there are").
# But "how many" before a unit of measure ("how many hours", "how many bytes") asks for an
# amount, which is summed, not counted: "total number".
HOW_MANY_RE = re.compile(r"\bhow\s+many\b", re.IGNORECASE)
_UNITS = (
    "seconds|minutes|hours|days|weeks|months|years|bytes|kilobytes|megabytes|gigabytes|kb|mb|gb|"
    "meters|metres|kilometers|kilometres|km|miles|feet|inches|cm|mm|grams|kilograms|kg|pounds|lbs|"
    "ounces|dollars|euros|cents|calories|liters|litres|gallons|points"
)
_HOW_MANY_UNITS_RE = re.compile(rf"\bhow\s+many\b(?=\s+(?:{_UNITS})\b)", re.IGNORECASE)


def quantity_words(text: str) -> str:
    """``text`` with its questions of quantity spelled as the words a tool would use."""
    return HOW_MANY_RE.sub("count number", _HOW_MANY_UNITS_RE.sub("total number", text))


def terms(text: str) -> list[str]:
    """``text`` as BM25 terms: lower-case word stems, stop words dropped."""
    text = quantity_words(text)
    words = _WORD_RE.findall(_CAMEL_RE.sub(" ", text.replace("_", " ")))
    return [stem(w) for w in words if w.lower() not in STOP_WORDS and len(w) > 1]


def stem(word: str) -> str:
    """A crude stem: lower case, a plural ``s`` dropped, cut to 5 letters ("rows" → "row")."""
    word = word.lower()
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word[:5]


def tool_terms(spec: ToolSpec) -> list[str]:
    """The document a tool is retrieved by."""
    params = " ".join((spec.input_schema.get("properties") or {}).keys())
    name = terms(spec.name)
    return [*name, *name, *terms(spec.description), *terms(params)]


class BM25:
    """An Okapi BM25 index over named documents (``k1``/``b`` as in the usual defaults)."""

    def __init__(self, documents: Mapping[str, Sequence[str]], *, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        self.docs = {name: Counter(doc) for name, doc in documents.items()}
        self.lengths = {name: len(doc) for name, doc in documents.items()}
        n = len(self.docs)
        self.avg_len = (sum(self.lengths.values()) / n) if n else 0.0
        df: Counter[str] = Counter()
        for counts in self.docs.values():
            df.update(counts.keys())
        # The "plus one" form of IDF: never negative, so a term in most documents still counts a little.
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def score(self, query: Sequence[str], name: str) -> float:
        counts = self.docs[name]
        norm = (
            self.k1 * (1 - self.b + self.b * self.lengths[name] / self.avg_len) if self.avg_len else self.k1
        )
        total = 0.0
        for term in set(query):
            tf = counts.get(term, 0)
            if tf:
                total += self.idf[term] * tf * (self.k1 + 1) / (tf + norm)
        return total

    def rank(self, query: Sequence[str]) -> list[tuple[str, float]]:
        """Every document with its score, best first (ties keep the index's order)."""
        scored = [(name, self.score(query, name)) for name in self.docs]
        order = sorted(range(len(scored)), key=lambda i: (-scored[i][1], i))
        return [scored[i] for i in order]


def tool_index(tools: Mapping[str, ToolSpec]) -> BM25:
    return BM25({name: tool_terms(spec) for name, spec in tools.items()})
