"""Injection suite: hostile values through every parameter of command and script tools.

For every payload and every tool: the canary command never runs, nothing is created outside the
places the tools are meant to touch, and the payload either arrives byte-for-byte as exactly one
argument (the tools print their arguments NUL-separated) or is rejected by validation with a
message naming the argument.
"""

from __future__ import annotations

import contextlib
import os
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forethought.errors import ToolError
from forethought.tools._params import DEFAULT_MAX_LENGTH
from forethought.tools.base import ToolContext
from forethought.tools.command import CommandTool, CommandToolConfig
from forethought.tools.yamlfile import load_yaml_tools

CANARY = "{canary}"

_BASE = [
    # command separators and substitutions
    "; touch {canary}",
    "&& touch {canary}",
    "|| touch {canary}",
    "| touch {canary}",
    "& touch {canary}",
    "$(touch {canary})",
    "`touch {canary}`",
    "\ntouch {canary}",
    "\r\ntouch {canary}",
    "\n\ntouch {canary}\n",
    "'; touch {canary}; '",
    '"; touch {canary}; "',
    '"$(touch {canary})"',
    "'$(touch {canary})'",
    "${IFS}touch${IFS}{canary}",
    "$(touch${IFS}{canary})",
    "$(IFS=_;cmd=touch_{canary};$cmd)",
    "x;touch {canary}#",
    "x`touch {canary}`y",
    "\"'`touch {canary}`'\"",
    "$( (touch {canary}) )",
    "eval 'touch {canary}'",
    "exec touch {canary}",
    "touch {canary}",
    "sh -c 'touch {canary}'",
    "a=b touch {canary}",
    "IFS=/ ; touch {canary}",
    "; exec 3>{canary}",
    "<(touch {canary})",
    ">(touch {canary})",
    # redirections
    ">{canary}",
    ">>{canary}",
    "<{canary}",
    "2>{canary}",
    "a > {canary}",
    "&>{canary}",
    "|tee {canary}",
    # option injection
    "-rf",
    "--help",
    "-",
    "--",
    "-o{canary}",
    "--output={canary}",
    "-e",
    "-n",
    "--version",
    "-v -v",
    # paths and globs
    "../../etc/passwd",
    "../",
    "..",
    "/etc/passwd",
    "~",
    "~root",
    "*",
    "?",
    "[a-z]*",
    "{a,b}",
    "**/*",
    "./*",
    ".*",
    "/*",
    "~/.ssh/id_rsa",
    "file:///etc/passwd",
    "\\\\server\\share",
    # expansions that must stay literal
    "$HOME",
    "${HOME}",
    "$PATH",
    "$0",
    "$1",
    "$@",
    "$*",
    "$$",
    "$!",
    "$?",
    "$#",
    "${FT_ARG_a}",
    "$FT_ARG_b",
    "${#}",
    "${x:-$(touch {canary})}",
    "$((1+1))",
    "$[1+1]",
    "$'\\x41'",
    "!!",
    "!-1",
    # template syntaxes (values are never re-rendered)
    "{{a}}",
    "{{b}}",
    "{{ a }}",
    "{{file}}",
    "{{p}}",
    "${{a}}",
    "{% raw %}",
    "{0}",
    "{}",
    "%s%s%n",
    "%(x)s",
    "${canary}",
    "#{touch}",
    "<%= 1 %>",
    # quoting and whitespace oddities
    "",
    " ",
    "  padded  ",
    "\t",
    "a\tb",
    "a\nb",
    "\\",
    "\\\\n",
    "\\'",
    '\\"',
    "'",
    '"',
    "''",
    '""',
    "`",
    "$",
    "$(",
    ")",
    "(",
    "{",
    "}",
    "!",
    "#comment",
    "a #b",
    ";",
    "&",
    "|",
    "<",
    ">",
    "\r",
    "\x0b\x0c",
    "a\\\nb",
    # unicode and control characters
    "ünïcødé ✓ 日本語 🚀",
    "\u202etxt.exe",
    "zero\u200bwidth",
    "\x1b[31mred\x1b[0m",
    "\x07bell",
    "\x7f",
    "\u2028line\u2029para",
    "\ufeffbom",
    "ﬁ ligature",
    "İstanbul",
    "e\u0301",
    "\u00a0nbsp",
    "ＦＵＬＬ",
    "\U0001f4a9" * 10,
    # long values (the last one exceeds the per-argument limit and is rejected)
    "x" * 1000,
    "y" * 10_000,
    "z" * DEFAULT_MAX_LENGTH,
    "w" * (DEFAULT_MAX_LENGTH + 1),
    # cannot be passed to a process at all: rejected
    "\x00",
    "a\x00b",
    "\x00; touch {canary}",
    "\ud800",
    "x\udfffy",
]

# Each base payload alone and embedded in other text: 2 * len(_BASE) payloads.
PAYLOADS = list(dict.fromkeys(_BASE + [f"pre{p}post" for p in _BASE]))


def _expect_rejected(value: str) -> bool:
    if "\x00" in value or len(value) > DEFAULT_MAX_LENGTH:
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


# These tools declare `allow_options: true`: this suite checks that every value arrives verbatim as
# one argument; refusing values that start with '-' (the default) is tests/security's subject.
TOOLS_YAML = """
root: root
tools:
  - name: argv_cmd
    effect: read_only
    parameters:
      - {name: a, type: string, required: true, allow_options: true}
      - {name: b, type: string, required: true, allow_options: true}
    command: [printf, "%s\\\\0", "{{a}}", "{{b}}"]

  - name: seed_script
    description: seed-style placeholders in every quoting context
    parameters:
      - name: a
        type: string
        required: true
        allow_options: true
      - name: b
        type: string
        required: true
        allow_options: true
    script:
      shell: printf '%s\\0' {{a}} "x{{b}}y" '{{a}}' pre_{{b}}_post "$(printf '%s' {{a}})"

  - name: heredoc_script
    parameters:
      - {name: a, required: true, allow_options: true}
    script: |
      cat <<EOF
      {{a}}
      EOF

  - name: env_script
    parameters:
      - {name: a, required: true, allow_options: true}
      - {name: b, required: true, allow_options: true}
    script: printf '%s\\0' "$FT_ARG_a" "$1" "$2" "$FT_ARG_b"

  - name: path_cmd
    parameters:
      - {name: p, type: string, kind: path, required: true}
    command: [printf, "%s\\\\0", "{{p}}"]

  - name: stdin_script
    parameters:
      - {name: file, type: string, kind: path, required: true}
    stdin: file
    script:
      shell: cat; printf '\\0%s' {{file}}
"""


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("inj")
    root = base / "root"
    root.mkdir()
    (root / "data.txt").write_text("DATA")
    (base / "secret.txt").write_text("SECRET")
    os.symlink(base / "secret.txt", root / "escape_link")
    os.symlink("/etc", root / "etc_link")
    tools_file = base / "tools.yaml"
    tools_file.write_text(textwrap.dedent(TOOLS_YAML))
    return {"base": base, "root": root, "tools_file": tools_file, "canary": base / "CANARY"}


def _exists(path: Path) -> bool:
    return path.exists()


def _snapshot(base: Path) -> set[str]:
    return {str(p.relative_to(base)) for p in base.rglob("*")}


async def _tools(env: dict[str, Any]) -> tuple[contextlib.AsyncExitStack, dict[str, Any]]:
    stack = contextlib.AsyncExitStack()
    tools = await load_yaml_tools(env["tools_file"], stack)
    return stack, {t.spec.name: t for t in tools}


def _fields(out: dict[str, Any]) -> list[str]:
    text = out["stdout"]
    assert isinstance(text, str)
    assert text.endswith("\0")
    return text[:-1].split("\0")


def test_enough_payloads() -> None:
    assert len(PAYLOADS) >= 200
    assert sum(_expect_rejected(p) for p in PAYLOADS) >= 8


async def test_command_and_script_tools_pass_payloads_verbatim(env: dict[str, Any]) -> None:
    stack, tools = await _tools(env)
    before = _snapshot(env["base"])
    canary: Path = env["canary"]
    ctx = ToolContext()
    accepted = rejected = 0
    async with stack:
        for raw in PAYLOADS:
            value = raw.replace(CANARY, str(canary))
            other = value[::-1][: DEFAULT_MAX_LENGTH - 1] + "B"  # a different, equally hostile value
            cases = [
                ("argv_cmd", {"a": value, "b": other}, [value, other]),
                (
                    "seed_script",
                    {"a": value, "b": other},
                    [value, f"x{other}y", value, f"pre_{other}_post", value.rstrip("\n")],
                ),
                ("env_script", {"a": value, "b": other}, [value, value, other, other]),
            ]
            for name, args, expected in cases:
                if _expect_rejected(value):
                    with pytest.raises(ToolError, match="argument 'a'"):
                        await tools[name].invoke(args, ctx)
                    rejected += 1
                    continue
                out = await tools[name].invoke(args, ctx)
                assert _fields(out) == expected, (name, value)
                accepted += 1
            if not _expect_rejected(value):
                out = await tools["heredoc_script"].invoke({"a": value}, ctx)
                assert out["stdout"] == value + "\n"
            assert not _exists(canary), f"canary ran for payload {value!r}"
    assert accepted >= 3 * 180 and rejected >= 3 * 8
    assert _snapshot(env["base"]) == before, "a payload created or removed files"


async def test_path_parameters_never_escape_the_root(env: dict[str, Any]) -> None:
    stack, tools = await _tools(env)
    root: Path = env["root"].resolve()
    ctx = ToolContext()
    outcomes = {"inside": 0, "rejected": 0}
    async with stack:
        for raw in [
            *PAYLOADS,
            "escape_link",
            "etc_link/passwd",
            "data.txt",
            "sub/../../root/data.txt",
            str(root / "data.txt"),
            str(root / ".." / "secret.txt"),
        ]:
            value = raw.replace(CANARY, str(env["canary"]))
            try:
                out = await tools["path_cmd"].invoke({"p": value}, ctx)
            except ToolError as exc:
                assert "argument 'p'" in str(exc)
                outcomes["rejected"] += 1
                continue
            (got,) = _fields(out)
            assert Path(got).is_relative_to(root) or Path(got) == root, value
            assert got == str((root / value).resolve())
            outcomes["inside"] += 1
        assert not env["canary"].exists()
        for escaping in ["escape_link", "etc_link/passwd", "../secret.txt", "/etc/passwd", "..", "~/x"]:
            if escaping.startswith("~"):
                continue  # `~` is not expanded: it is a file named "~" inside the root
            with pytest.raises(ToolError, match=r"outside the allowed root|cannot be resolved"):
                await tools["path_cmd"].invoke({"p": escaping}, ctx)
    assert outcomes["inside"] > 100 and outcomes["rejected"] > 10


async def test_stdin_comes_only_from_a_confined_file(env: dict[str, Any]) -> None:
    stack, tools = await _tools(env)
    ctx = ToolContext()
    async with stack:
        out = await tools["stdin_script"].invoke({"file": "data.txt"}, ctx)
        assert out["stdout"] == "DATA\0" + str(env["root"].resolve() / "data.txt")
        for bad in ["escape_link", "../secret.txt", "/etc/passwd", "missing.txt"]:
            with pytest.raises(ToolError):
                await tools["stdin_script"].invoke({"file": bad}, ctx)


async def test_non_string_values_are_one_argument_each(env: dict[str, Any], tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(
        textwrap.dedent("""
        tools:
          - name: typed
            parameters:
              - {name: i, type: integer, required: true}
              - {name: f, type: number, required: true}
              - {name: t, type: boolean, required: true}
              - {name: l, type: array, required: true}
              - {name: o, type: object, required: true}
            command: [printf, "%s\\\\0", "{{i}}", "{{f}}", "{{t}}", "{{l}}", "{{o}}"]
    """)
    )
    async with contextlib.AsyncExitStack() as stack:
        (tool,) = await load_yaml_tools(tmp_path / "t.yaml", stack)
        out = await tool.invoke(
            {"i": 3, "f": 2.5, "t": True, "l": ["a b", "; x"], "o": {"k": "$(v)"}}, ToolContext()
        )
        assert _fields(out) == ["3", "2.5", "true", '["a b","; x"]', '{"k":"$(v)"}']
        # NUL inside an array is JSON-escaped (\u0000), so the argument itself carries no NUL byte.
        out = await tool.invoke({"i": 3, "f": 2.5, "t": True, "l": ["\x00"], "o": {}}, ToolContext())
        assert _fields(out)[3] == '["\\u0000"]'

        with pytest.raises(ToolError, match="must be of type integer"):
            await tool.invoke({"i": "3; touch x", "f": 1, "t": True, "l": [], "o": {}}, ToolContext())


# --- property: any mix of quoting contexts yields exactly the words the author meant ---------------


_SAFE_TEXT = st.text(alphabet="abcXYZ019_-.,:=+@%/", max_size=4)
_SEGMENT = st.one_of(
    st.tuples(st.just("lit"), _SAFE_TEXT),
    st.tuples(st.just("bare"), st.sampled_from(["a", "b"])),
    st.tuples(st.just("dq"), st.sampled_from(["a", "b"]), _SAFE_TEXT),
    st.tuples(st.just("sq"), st.sampled_from(["a", "b"]), _SAFE_TEXT),
    st.tuples(st.just("cmd"), st.sampled_from(["a", "b"])),
)
_HOSTILE = st.lists(
    st.sampled_from([*" \t\n;&|$`'\"\\(){}[]*?<>#!~-=%^", "a", "é", "{{a}}", "$(id)"]), max_size=12
).map("".join)


def _render(word: list[tuple[str, ...]], values: dict[str, str]) -> tuple[str, str]:
    script, expected = "", ""
    for seg in word:
        if seg[0] == "lit":
            script += seg[1]
            expected += seg[1]
        elif seg[0] == "bare":
            script += "{{" + seg[1] + "}}"
            expected += values[seg[1]]
        elif seg[0] == "dq":
            script += '"' + seg[2] + "{{" + seg[1] + "}}" + '"'
            expected += seg[2] + values[seg[1]]
        elif seg[0] == "sq":
            script += "'" + seg[2] + "{{" + seg[1] + "}}" + "'"
            expected += seg[2] + values[seg[1]]
        else:  # command substitution strips trailing newlines
            script += "\"$(printf '%s' {{" + seg[1] + '}})"'
            expected += values[seg[1]].rstrip("\n")
    return script, expected


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    words=st.lists(st.lists(_SEGMENT, min_size=1, max_size=4), min_size=1, max_size=4), a=_HOSTILE, b=_HOSTILE
)
async def test_rewritten_scripts_keep_word_boundaries(
    tmp_path: Path, words: list[list[tuple[str, ...]]], a: str, b: str
) -> None:
    values = {"a": a, "b": b}
    rendered = [_render(w, values) for w in words]
    if any(script == "" for script, _ in rendered):
        return
    script = "printf '%s\\0' " + " ".join(s for s, _ in rendered)
    config = CommandToolConfig(
        name="prop",
        script=script,
        parameters=[  # type: ignore[list-item]
            {"name": "a", "required": True, "allow_options": True},
            {"name": "b", "required": True, "allow_options": True},
        ],
    )
    tool = CommandTool(config, base_dir=tmp_path, source="test")
    out = await tool.invoke(values, ToolContext())
    assert _fields(out) == [expected for _, expected in rendered]
