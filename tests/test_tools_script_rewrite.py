"""The load-time rewrite of seed-style `{{param}}` placeholders in shell scripts."""

from __future__ import annotations

import subprocess

import pytest

from forethought.tools._shell import ScriptError, rewrite_placeholders

DECLARED = {"file", "a", "b"}


@pytest.mark.parametrize(
    ("script", "rewritten", "used"),
    [
        ("psql mydb < {{file}}", 'psql mydb < "${FT_ARG_file}"', ["file"]),
        (
            "echo '{{a}}' \"x {{b}} y\" pre_{{a}}.sql",
            'echo \'\'"${FT_ARG_a}"\'\' "x ${FT_ARG_b} y" pre_"${FT_ARG_a}".sql',
            ["a", "b"],
        ),
        ("echo $(cat {{file}})", 'echo $(cat "${FT_ARG_file}")', ["file"]),
        ('echo "$(cat {{file}})"', 'echo "$(cat "${FT_ARG_file}")"', ["file"]),
        (
            "cat <<EOF\nhello {{a}}\nEOF\necho {{b}}",
            'cat <<EOF\nhello ${FT_ARG_a}\nEOF\necho "${FT_ARG_b}"',
            ["a", "b"],
        ),
        (
            'cat <<-EOF\n\thi {{a}} "q"\n\tEOF\necho {{b}} # {{zz}}',
            'cat <<-EOF\n\thi ${FT_ARG_a} "q"\n\tEOF\necho "${FT_ARG_b}" # {{zz}}',
            ["a", "b"],
        ),
        ("cat <<A <<B\n{{a}}\nA\n{{b}}\nB\n", "cat <<A <<B\n${FT_ARG_a}\nA\n${FT_ARG_b}\nB\n", ["a", "b"]),
        ("echo {{ a }}", 'echo "${FT_ARG_a}"', ["a"]),
        ("echo \\{{a}}", "echo \\{{a}}", []),  # an escaped brace is not a placeholder
        ("pg_dump mydb > backup_$(date +%Y%m%d).sql", "pg_dump mydb > backup_$(date +%Y%m%d).sql", []),
        ('X={{a}}; echo "$X"', 'X="${FT_ARG_a}"; echo "$X"', ["a"]),
    ],
)
def test_rewrites(script: str, rewritten: str, used: list[str]) -> None:
    assert rewrite_placeholders(script, DECLARED) == (rewritten, used)


@pytest.mark.parametrize(
    ("script", "message", "line"),
    [
        ("echo `cat {{file}}`", "inside backticks; use \\$\\( … \\) instead", 1),
        ("true\necho $(( {{a}} + 1 ))", "arithmetic", 2),
        ("echo $'{{a}}'", "\\$'…' quoting", 1),
        ("echo ${X:-{{a}}}", "inside a \\$\\{ … \\} expansion", 1),
        ("cat <<'EOF'\nhello {{a}}\nEOF", "quoted here-document", 2),
        ("cat <<\\EOF\nhello {{a}}\nEOF", "quoted here-document", 2),
        ("echo {{nope}}", "names no declared parameter \\(declared: a, b, file\\)", 1),
        ("echo {{a-b}}", "not a valid parameter name", 1),
        ("echo '{{a}}", "unterminated single quote", 1),
    ],
)
def test_refusals(script: str, message: str, line: int) -> None:
    with pytest.raises(ScriptError, match=message) as info:
        rewrite_placeholders(script, DECLARED)
    assert info.value.line == line


@pytest.mark.parametrize("value", ["; touch /tmp/x", "$(id)", "a b  c", "*", "'\"", "\n-rf\n"])
def test_rewritten_seed_script_reads_the_named_value(value: str) -> None:
    script, _ = rewrite_placeholders("printf '%s|' {{a}} \"<{{a}}>\" '[{{a}}]'", DECLARED)
    out = subprocess.run(
        ["/bin/sh", "-c", script],
        env={"FT_ARG_a": value, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out == f"{value}|<{value}>|[{value}]|"
