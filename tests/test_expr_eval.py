"""The safe expression language: semantics, refusals, bounds, and property tests."""

from __future__ import annotations

import contextlib
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forethought.plan.expressions import ExprError, parse_expression, safe_eval

OUTPUT = {
    "count": 3,
    "items": [{"path": "a.sql", "size": 10}, {"path": "b.sql", "size": 0}],
    "stdout": "Hello World",
    "exit_code": 0,
    "ok": True,
    "none": None,
}


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("output.count > 2", True),
        ("output['count'] == 3 and output.ok", True),
        ("output.items[0].path", "a.sql"),
        ("output['items'][-1]['size'] == 0", True),
        ("len(output.items) == output.count - 1", True),
        ("'World' in output.stdout", True),
        ("'x' not in output", True),
        ("output.stdout.lower().startswith('hello')", True),
        ("upper(output.items[1].path)", "B.SQL"),
        ("output.none is None", True),
        ("sum([i.size for_ in []]) if False else 1", None),  # comprehension: refused (see below)
        ("min(3, 1, 2) + max([4, 5]) + abs(-2)", 8),
        ("round(10 / 3, 2)", 3.33),
        ("int('42') + float('0.5')", 42.5),
        ("str(output.count) + '!'", "3!"),
        ("str([1, {'a': 2}])", '[1, {"a": 2}]'),
        ("2 ** 10 % 1000 // 3", 8),
        ("1 < output.count <= 3", True),
        ("output.exit_code == 0 or output.missing", True),  # short-circuit: right side never evaluated
        ("output.count if output.ok else -1", 3),
        ("output.stdout[0:5]", "Hello"),
        ("not output.items", False),
        ("all([True, 1]) and not any([0, ''])", True),
        ("sqrt(16)", 4.0),
        ("output.stdout.split(' ')", ["Hello", "World"]),
        ("[1, 2] + [3]", [1, 2, 3]),
        ("{'a': 1}['a']", 1),
        ("(1, 2)[1]", 2),
    ],
)
def test_semantics(expression: str, expected: Any) -> None:
    if expected is None and "for_" in expression:
        with pytest.raises(ExprError):
            safe_eval(expression, {"output": OUTPUT})
        return
    assert safe_eval(expression, {"output": OUTPUT}) == expected


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("__import__('os').system('touch pwned')", "function '__import__' is not allowed"),
        ("output.__class__", "no field '__class__'"),
        ("().__class__.__bases__[0].__subclasses__()", "cannot read field '__class__' of a tuple"),
        ("output.stdout.format(1)", "method 'format' is not allowed"),
        ("open('/etc/passwd')", "function 'open' is not allowed"),
        ("[x for x in output.items]", "comprehension is not allowed"),
        ("lambda: 1", "lambda is not allowed"),
        ("f'{output}'", "f-string is not allowed"),
        ("(x := 1)", "`:=` is not allowed"),
        ("{1, 2}", "set literal is not allowed"),
        ("len(*[1])", "unpacking is not allowed"),
        ("round(1.5, ndigits=1)", "keyword arguments are not allowed"),
        ("b'bytes'", "constant of type bytes is not allowed"),
        ("1j", "constant of type complex is not allowed"),
        ("1 << 100", "operator LShift is not allowed"),
        ("nope", "unknown name 'nope' \\(available: output\\)"),
        ("output.missing", "no field 'missing'"),
        ("output.items[5]", "index 5 out of range"),
        ("output.items['a']", "index must be an integer"),
        ("output['nope']", "no key 'nope'"),
        ("output.count.real", "cannot read field 'real' of a int"),
        ("1 / 0", "ZeroDivisionError"),
        ("'a' < 1", "TypeError"),
        ("min([])", "ValueError"),
        ("9 ** 9 ** 9", "exponentiation result too large"),
        ("2.0 ** 100000", "OverflowError|too large"),
        ("'x' * 10 ** 9", "repetition too long"),
        ("[[0] * 10] * 10", "only lists of scalars"),
        ("int('9' * 5000)", "string argument too long"),
        ("sum(['a'])", "sum\\(\\) takes a list of numbers"),
        ("(-8) ** 0.5", "complex results"),
        ("1 +", "syntax error"),
        ("a\x00b", "cannot parse|syntax error"),
        ("x" * 5000, "expression too long"),
        ("[" * 200 + "]" * 200, "syntax error|nested too deeply|cannot parse"),
        ("-" * 300 + "1", "nested too deeply|cannot parse"),
        ("+".join(["1"] * 1200), "too large|nested too deeply"),
    ],
)
def test_refusals(expression: str, message: str) -> None:
    with pytest.raises(ExprError, match=message):
        safe_eval(expression, {"output": OUTPUT})


def test_parse_expression_checks_without_evaluating() -> None:
    parse_expression("output.count > 0")  # unknown names are fine statically
    with pytest.raises(ExprError, match="syntax error"):
        parse_expression("output.count >")
    with pytest.raises(ExprError, match="must be a string"):
        parse_expression(3)  # type: ignore[arg-type]


def test_no_names_by_default() -> None:
    assert safe_eval("1 + 1") == 2
    with pytest.raises(ExprError, match="available: none"):
        safe_eval("output")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200))
def test_arbitrary_text_only_ever_raises_expr_error(text: str) -> None:
    with contextlib.suppress(ExprError):
        safe_eval(text, {"output": OUTPUT})


_TOKENS = st.sampled_from(
    [
        "output",
        ".",
        "count",
        "items",
        "[",
        "]",
        "(",
        ")",
        "0",
        "1",
        "-1",
        "2",
        "9",
        "**",
        "*",
        "+",
        "-",
        "/",
        "//",
        "%",
        "<",
        "==",
        " and ",
        " or ",
        " not ",
        " in ",
        " if ",
        " else ",
        "'a'",
        "len",
        "min",
        "max",
        "sum",
        "str",
        ",",
        "[0]",
        ".path",
        "1e308",
        "True",
        "None",
        "abs",
        "round",
        "'x' * 9",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_TOKENS, max_size=40))
def test_token_soup_is_safe_and_bounded(tokens: list[str]) -> None:
    started = time.monotonic()
    with contextlib.suppress(ExprError):
        safe_eval("".join(tokens), {"output": OUTPUT})
    assert time.monotonic() - started < 2.0


_INTS = st.integers(min_value=-1000, max_value=1000)


@st.composite
def _arith(draw: st.DrawFn, depth: int = 0) -> str:
    if depth > 3 or draw(st.booleans()):
        return str(draw(_INTS))
    op = draw(st.sampled_from(["+", "-", "*", "//", "%", "<", "==", " and ", " or "]))
    return f"({draw(_arith(depth + 1))}{op}{draw(_arith(depth + 1))})"


@settings(max_examples=300, deadline=None)
@given(_arith())
def test_agrees_with_python_on_plain_arithmetic(expression: str) -> None:
    try:
        expected = eval(expression, {"__builtins__": {}}, {})
    except ZeroDivisionError:
        with pytest.raises(ExprError, match="ZeroDivisionError"):
            safe_eval(expression)
        return
    assert safe_eval(expression) == expected
