"""Rewrite seed-style ``{{param}}`` placeholders in shell scripts into quoted parameter expansions.

The seed's tools file writes ``psql mydb < {{file}}``. Splicing the value into that text is how
command injection happens. Instead, at *load* time we replace each placeholder with a reference to
an environment variable that the executor sets (``FT_ARG_file``), quoted for the shell context the
placeholder sits in, so the value is only ever data:

- unquoted / inside ``$( … )``     → ``"${FT_ARG_file}"``   (one word, no splitting, no globbing)
- inside ``"…"`` or a here-doc      → ``${FT_ARG_file}``     (already in a quoting context)
- inside ``'…'``                    → ``'"${FT_ARG_file}"'`` (close, expand quoted, reopen)

Contexts where an expansion would be re-parsed or would not happen — backticks, ``$'…'``,
arithmetic ``$(( … ))``, ``${ … }`` operands and quoted here-docs — are rejected with a message
that says how to rewrite the line. Because the value never enters the script text, no value can
change what the script does; the lexer's job is only to keep each value one word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from forethought.tools._params import env_name

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_ANY_BRACES = re.compile(r"\{\{(.*?)\}\}")
_HEREDOC = re.compile(r"<<(-?)[ \t]*(?:'([^'\n]*)'|\"([^\"\n]*)\"|\\?([A-Za-z0-9_.-]+))")


class ScriptError(ValueError):
    """A placeholder the rewriter cannot quote safely; ``line`` is 1-based within the script."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


@dataclass
class _Heredoc:
    delimiter: str
    strip_tabs: bool
    quoted: bool


@dataclass
class _Ctx:
    kind: str  # top | dq | sq | ansi | bq | cmd | arith | param | heredoc | qheredoc | comment
    depth: int = 0
    doc: _Heredoc | None = None  # for here-doc contexts: the delimiter that closes it


@dataclass
class _State:
    text: str
    declared: frozenset[str]
    out: list[str] = field(default_factory=list)
    used: list[str] = field(default_factory=list)
    stack: list[_Ctx] = field(default_factory=lambda: [_Ctx("top")])
    pending: list[_Heredoc] = field(default_factory=list)

    def line_at(self, index: int) -> int:
        return self.text.count("\n", 0, index) + 1


_REJECT_HINT = {
    "bq": "inside backticks; use $( … ) instead",
    "ansi": "inside $'…' quoting; use \"…\" instead",
    "arith": "inside $(( … )) arithmetic; validate the number with `type: integer` and use "
    "it outside arithmetic",
    "param": "inside a ${ … } expansion; assign it to a variable first",
    "qheredoc": "inside a quoted here-document (<<'EOF'); use an unquoted delimiter",
}


def rewrite_placeholders(script: str, declared: frozenset[str] | set[str]) -> tuple[str, list[str]]:
    """Return the rewritten script and the parameter names it references (in first-use order)."""
    st = _State(script, frozenset(declared))
    i = 0
    n = len(script)
    while i < n:
        ctx = st.stack[-1]
        m = PLACEHOLDER.match(script, i)
        if m and ctx.kind != "comment":
            _emit_placeholder(st, m, ctx)
            i = m.end()
            continue
        if script.startswith("{{", i) and ctx.kind != "comment":
            bad = _ANY_BRACES.match(script, i)
            if bad:
                raise ScriptError(
                    f"placeholder {bad.group(0)!r} is not a valid parameter name (use letters, digits and _)",
                    st.line_at(i),
                )
        i = _step(st, i)
    if st.stack[-1].kind in ("sq", "dq", "bq", "ansi") and len(st.stack) > 1:
        raise ScriptError(f"unterminated {_describe(st.stack[-1].kind)} in script", st.line_at(n))
    return "".join(st.out), st.used


def _describe(kind: str) -> str:
    names = {"sq": "single quote", "dq": "double quote", "bq": "backtick", "ansi": "$'…' quote"}
    return names.get(kind, kind)


def _emit_placeholder(st: _State, m: re.Match[str], ctx: _Ctx) -> None:
    name = m.group(1)
    if name not in st.declared:
        raise ScriptError(
            f"placeholder {{{{{name}}}}} names no declared parameter "
            f"(declared: {', '.join(sorted(st.declared)) or 'none'})",
            st.line_at(m.start()),
        )
    if ctx.kind in _REJECT_HINT:
        raise ScriptError(f"placeholder {{{{{name}}}}} is {_REJECT_HINT[ctx.kind]}", st.line_at(m.start()))
    var = "${" + env_name(name) + "}"
    if ctx.kind in ("top", "cmd"):
        st.out.append(f'"{var}"')
    elif ctx.kind in ("dq", "heredoc"):
        st.out.append(var)
    elif ctx.kind == "sq":
        st.out.append(f"'\"{var}\"'")
    else:  # pragma: no cover - every context is handled above
        raise ScriptError(f"placeholder {{{{{name}}}}} in an unsupported context", st.line_at(m.start()))
    if name not in st.used:
        st.used.append(name)


def _at_word_start(st: _State, i: int) -> bool:
    return i == 0 or st.text[i - 1] in " \t\n;&|()"


def _step(st: _State, i: int) -> int:
    """Copy one lexical unit starting at ``i`` to the output, updating the context stack."""
    text, ctx = st.text, st.stack[-1]
    ch = text[i]
    kind = ctx.kind

    if kind == "comment":
        if ch == "\n":
            st.stack.pop()
            return _newline(st, i)
        st.out.append(ch)
        return i + 1
    if kind == "sq":
        if ch == "'":
            st.stack.pop()
        st.out.append(ch)
        return i + 1
    if kind in ("ansi", "bq", "qheredoc") or (kind == "heredoc" and ch == "\\"):
        if ch == "\\" and i + 1 < len(text):
            st.out.append(text[i : i + 2])
            return i + 2
        if (kind == "ansi" and ch == "'") or (kind == "bq" and ch == "`"):
            st.stack.pop()
        if ch == "\n" and kind in ("heredoc", "qheredoc"):
            return _heredoc_line(st, i)
        st.out.append(ch)
        return i + 1
    if kind == "heredoc" and ch == "\n":
        return _heredoc_line(st, i)

    # Contexts where expansions are recognized: top, cmd, dq, arith, param, heredoc.
    if ch == "\\" and i + 1 < len(text):
        st.out.append(text[i : i + 2])
        return i + 2
    if text.startswith("$((", i):
        st.stack.append(_Ctx("arith", 2))
        st.out.append("$((")
        return i + 3
    if text.startswith("$(", i):
        st.stack.append(_Ctx("cmd", 1))
        st.out.append("$(")
        return i + 2
    if text.startswith("${", i):
        st.stack.append(_Ctx("param", 1))
        st.out.append("${")
        return i + 2
    if ch == "`":
        st.stack.append(_Ctx("bq"))
        st.out.append(ch)
        return i + 1
    if kind == "dq":
        if ch == '"':
            st.stack.pop()
        st.out.append(ch)
        return i + 1
    if kind == "arith":
        ctx.depth += {"(": 1, ")": -1}.get(ch, 0)
        if ctx.depth == 0:
            st.stack.pop()
        st.out.append(ch)
        return i + 1
    if kind == "param":
        ctx.depth += {"{": 1, "}": -1}.get(ch, 0)
        if ctx.depth == 0:
            st.stack.pop()
        st.out.append(ch)
        return i + 1
    if kind == "heredoc":
        st.out.append(ch)
        return i + 1

    # top or cmd: shell words.
    if text.startswith("$'", i):
        st.stack.append(_Ctx("ansi"))
        st.out.append("$'")
        return i + 2
    if ch == "'":
        st.stack.append(_Ctx("sq"))
    elif ch == '"':
        st.stack.append(_Ctx("dq"))
    elif ch == "#" and _at_word_start(st, i):
        st.stack.append(_Ctx("comment"))
    elif kind == "cmd" and ch in "()":
        ctx.depth += 1 if ch == "(" else -1
        if ctx.depth == 0:
            st.stack.pop()
    elif ch == "<" and text.startswith("<<", i) and not text.startswith("<<<", i):
        hd = _HEREDOC.match(text, i)
        if hd:
            quoted_word = hd.group(2) if hd.group(2) is not None else hd.group(3)
            quoted = quoted_word is not None or text[i + 2 : hd.start(4)].endswith("\\")
            delim = quoted_word if quoted_word is not None else hd.group(4)
            st.pending.append(_Heredoc(delim, strip_tabs=hd.group(1) == "-", quoted=quoted))
            st.out.append(hd.group(0))
            return hd.end()
    elif ch == "\n":
        return _newline(st, i)
    st.out.append(ch)
    return i + 1


def _newline(st: _State, i: int) -> int:
    """End of a command line: start the next here-document announced on it, if any."""
    st.out.append("\n")
    if st.pending:
        doc = st.pending.pop(0)
        st.stack.append(_Ctx("qheredoc" if doc.quoted else "heredoc", doc=doc))
        return _maybe_close(st, i + 1)
    return i + 1


def _maybe_close(st: _State, i: int) -> int:
    """At the start of a here-doc line: if it is the delimiter line, copy it and leave the here-doc."""
    doc = st.stack[-1].doc
    if doc is None:
        return i
    end = st.text.find("\n", i)
    line_end = len(st.text) if end == -1 else end
    line = st.text[i:line_end]
    if (line.lstrip("\t") if doc.strip_tabs else line) == doc.delimiter:
        st.out.append(line)
        st.stack.pop()
        return line_end if end == -1 else _newline(st, line_end)
    return i


def _heredoc_line(st: _State, i: int) -> int:
    st.out.append("\n")
    return _maybe_close(st, i + 1)
