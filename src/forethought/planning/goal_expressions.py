"""Arithmetic the goal writes out ("what is 17 * 23?") and the tools that evaluate it.

An expression in a goal is one value, like a quoted string: it goes whole and unchanged to the
parameter a tool describes as an expression or formula to evaluate, and the chain is that one
step (its answer printed) or that step into the writer when the goal names an output file.
Without this the expression's numbers are loose literals no string parameter takes, and the
chain is left to the model.

``expression_spans`` reads the goal (numbers, parentheses, the operators ``+ - * / // % **``
and calls such as ``min(…)``/``max(…)``/``round(…)``; the longest span with an operator or a
call, never a lone number); ``expression_param`` reads a tool's schema (by parameter name or
description words, never the tool's name). Neither knows a particular goal or tool.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

from forethought.planning.tool_roles import is_path_param, is_writer, param_types, properties, required_params
from forethought.tools.base import ToolSpec

# One token of an arithmetic span. A number is digits with at most one decimal point, with no
# letter, digit, dot or comma glued to it ("v1.2.3", "math2.txt", "3rd", "1,000" are no numbers
# to compute with); a minus with no space on either side between two digits is a range, an id or
# a date ("10-12", "2026-11-03"), not a subtraction, so it ends the span (``_runs``).
_NUMBER = r"(?<![\w.,])\d+(?:\.\d+)?(?!\w|[.,]\d)"
_FUNCTION = r"\b(?:min|max|round)(?=\s*\()"
_TOKEN_RE = re.compile(rf"(?P<num>{_NUMBER})|(?P<fn>{_FUNCTION})|(?P<op>\*\*|//|[-+*/%(),])")
# Digits joined by "/" twice with no spaces ("11/03/2026") are a date, not two divisions.
_SLASH_DATE = re.compile(r"\d+/\d+/\d+")
_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)


def _glued_minus(goal: str, m: re.Match[str]) -> bool:
    return (
        m.group() == "-"
        and goal[m.start() - 1 : m.start()].isdigit()
        and goal[m.end() : m.end() + 1].isdigit()
    )


def _runs(goal: str) -> list[list[tuple[int, int]]]:
    """Maximal stretches of arithmetic tokens separated by nothing but spaces, as the tokens'
    (start, end) in the goal."""
    runs: list[list[tuple[int, int]]] = []
    current: list[tuple[int, int]] = []
    for m in _TOKEN_RE.finditer(goal):
        if _glued_minus(goal, m):
            runs.append(current)
            current = []
            continue
        if current and goal[current[-1][1] : m.start()].strip(" ") != "":
            runs.append(current)
            current = []
        current.append((m.start(), m.end()))
    runs.append(current)
    return [r for r in runs if r]


def _is_arithmetic(text: str) -> bool:
    """A Python expression of numbers, the arithmetic operators and the allowed calls, with at
    least one operator or call (a lone number, a tuple "1, 2" or "(3)" is no expression)."""
    if _SLASH_DATE.search(text):
        return False
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, RecursionError, MemoryError):
        # Thousands of operators in a row ("1 + 1 + …", "1 plus 1 plus …") nest past the
        # parser's limit: no expression to take whole, and no crash of the planner.
        return False
    body = tree.body
    if not isinstance(body, (ast.BinOp, ast.Call, ast.UnaryOp)):
        return False
    if isinstance(body, ast.UnaryOp) and isinstance(body.operand, ast.Constant):
        return False  # "-4": a negative number, not a computation
    for node in ast.walk(body):
        if isinstance(node, ast.Constant):
            if not isinstance(node.value, (int, float)) or isinstance(node.value, bool):
                return False
        elif isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.keywords or not node.args:
                return False
        elif isinstance(node, ast.BinOp):
            if not isinstance(node.op, _OPERATORS):
                return False
        elif isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, (ast.USub, ast.UAdd)):
                return False
        elif not isinstance(node, (ast.Name, ast.Load, ast.operator, ast.unaryop)):
            return False
    return True


# An expression a person writes out in a goal has a few dozen tokens; a run of more is taken
# for none (and never searched: every stretch of it would be parsed).
MAX_EXPRESSION_TOKENS = 200


def expression_positions(goal: str) -> list[tuple[int, int]]:
    """Where the arithmetic expressions of ``goal`` stand, (start, end), in the goal's order:
    per run of arithmetic tokens, its longest stretch (from token to token) that parses as
    arithmetic ("what is (12 + 8) * 3?" → "(12 + 8) * 3"); a sentence's closing parenthesis
    or comma is left out by the parse."""
    found: list[tuple[int, int]] = []
    for bounds in _runs(goal):
        if len(bounds) > MAX_EXPRESSION_TOKENS:
            continue  # the search below parses up to n² stretches: a hostile goal stalled it
        best = (0, 0)
        for i in range(len(bounds)):
            for j in range(len(bounds) - 1, i - 1, -1):
                start, end = bounds[i][0], bounds[j][1]
                if end - start <= best[1] - best[0]:
                    break
                if _is_arithmetic(goal[start:end]):
                    best = (start, end)
                    break
        if best[1] > best[0]:
            found.append(best)
    return found


def expression_spans(goal: str) -> list[str]:
    """The arithmetic expressions written in ``goal`` (``expression_positions``), each exactly
    as it stands in the goal, then those it says in words (``spelled_arithmetic``), longest
    first, each once."""
    texts = dict.fromkeys(goal[s:e] for s, e in expression_positions(goal))
    symbolic = spelled_arithmetic(goal)
    if symbolic != goal:
        texts.update(dict.fromkeys(symbolic[s:e] for s, e in expression_positions(symbolic)))
    return sorted(texts, key=len, reverse=True)


# Arithmetic said in words between two numbers ("2 to the power of 10", "17 plus 25"), and
# "the sum of 17 and 25": without these the numbers were loose literals, the chain was left to
# the model (two minutes on two cores) and the plan waited.
_NUM = r"\d+(?:\.\d+)?"
_INFIX_WORDS = {
    "plus": "+",
    "minus": "-",
    "times": "*",
    "multiplied by": "*",
    "divided by": "/",
    "to the power of": "**",
    "raised to the power of": "**",
    "raised to": "**",
    "modulo": "%",
    "mod": "%",
}
_INFIX_RE = re.compile(
    rf"(?<=\d)\s+({'|'.join(sorted(_INFIX_WORDS, key=len, reverse=True))})\s+(?={_NUM})", re.IGNORECASE
)
_OF_TWO = {"sum": "+", "product": "*", "difference": "-", "quotient": "/"}
_OF_TWO_RE = re.compile(
    rf"\bthe\s+({'|'.join(_OF_TWO)})\s+(?:of|between)\s+({_NUM})\s+and\s+({_NUM})\b", re.IGNORECASE
)
_POWER_RE = re.compile(rf"(?<![\w.])({_NUM})\s+(squared|cubed)\b", re.IGNORECASE)
# "15% of 240", "15 percent of 240": a share of a number.
_PERCENT_RE = re.compile(
    rf"(?<![\w.])({_NUM})\s*(?:%|percent\b|per\s+cent\b)\s*of\s+({_NUM})\b", re.IGNORECASE
)


def spelled_arithmetic(goal: str) -> str:
    """``goal`` with arithmetic said in words written in symbols ("what is 2 to the power of
    10?" → "what is 2 ** 10?"); the goal itself when it says none."""
    text = _OF_TWO_RE.sub(lambda m: f"{m.group(2)} {_OF_TWO[m.group(1).lower()]} {m.group(3)}", goal)
    text = _PERCENT_RE.sub(lambda m: f"{m.group(1)} / 100 * {m.group(2)}", text)
    text = _POWER_RE.sub(lambda m: f"{m.group(1)} ** {2 if m.group(2).lower() == 'squared' else 3}", text)
    return _INFIX_RE.sub(lambda m: f" {_INFIX_WORDS[m.group(1).lower()]} ", text)


# What a parameter taking an expression to evaluate is called or described as.
_EXPRESSION_WORDS = re.compile(
    r"\b(?:expressions?|formulas?|formulae|equations?|arithmetic)\b", re.IGNORECASE
)


def expression_param(spec: ToolSpec) -> str | None:
    """The parameter of a tool that evaluates an expression: a required string (not a file
    name) named an expression or formula, or described so -- by its own description, or by the
    tool's when it is the tool's only required parameter. None for a writer (its text is
    content to store, not to evaluate) or a tool with no such parameter."""
    if is_writer(spec):
        return None
    required = required_params(spec)
    texts = [p for p in required if param_types(spec, p) == {"string"} and not is_path_param(spec, p)]
    for pname in texts:
        described = str((properties(spec).get(pname) or {}).get("description") or "")
        if _EXPRESSION_WORDS.search(pname.replace("_", " ")) or _EXPRESSION_WORDS.search(described):
            return pname
    if len(required) == 1 and texts and _EXPRESSION_WORDS.search(spec.description):
        return texts[0]
    return None


def evaluators(tools: Mapping[str, ToolSpec]) -> list[str]:
    """The tools with an expression parameter (``expression_param``), in the tool set's order."""
    return [n for n, spec in tools.items() if expression_param(spec) is not None]
