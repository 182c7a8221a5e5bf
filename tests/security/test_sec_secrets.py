"""Issue 15 item 10: secrets from a goal or a plan never reach the run database or a terminal.

- A goal holding ``sk-…``/``ghp_…`` tokens is stored and printed redacted: the runs table, the
  plan versions, every event, ``runs``, ``show`` and their ``--json``.
- A literal secret in a plan argument makes the plan invalid (exit 2), naming the step and field
  and suggesting ``${env.NAME}``.
- ``${env.NAME}`` is resolved at call time from the environment, only for names the operator
  lists in ``FORETHOUGHT_SECRETS``; the database holds only the reference, never the value, nor
  its base64 or URL-encoded forms.
- Tool output such as ``password: X``, ``pw=X`` and ``"password": "X"`` is redacted.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import textwrap
import urllib.parse
from pathlib import Path

import pytest

from forethought.oversight.redaction import make_redactor
from forethought.plan.model import Plan
from forethought.plan.validation import validate_plan

SRC = str(Path(__file__).resolve().parents[2] / "src")

OPENAI = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"
GITHUB = "ghp_" + "0123456789abcdefghijABCDEFGHIJ012345"
# Looks like nothing in particular, under a name that does not look secret: only the
# ${env.NAME} registration can know that it must be redacted.
ENV_VALUE = "plain-Looking/value+42?&=x"

TOOLS = """
tools:
  - name: echo
    description: print the text, keep a copy, print it base64- and URL-encoded
    effect: read_only
    parameters:
      - {name: text, type: string, required: true}
    script: |
      printf '%s' "$1" > received.txt
      printf 'plain %s\\n' "$1"
      printf 'b64 %s\\n' "$(printf '%s' "$1" | base64 -w0)"
      q='import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))'
      printf 'url %s\\n' "$(python3 -c "$q" "$1")"
      printf 'password: %s\\n' "$1"
"""


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FORETHOUGHT_SECRETS", "MYVALUE")}
    return {**env, "PYTHONPATH": SRC, **extra}


def _cli(tmp: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "forethought", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp,
        env=env or _env(),
    )


def _db_bytes(db: Path) -> bytes:
    raw = db.read_bytes()
    wal = Path(str(db) + "-wal")
    if wal.exists():
        raw += wal.read_bytes()
    return raw


def _forms(secret: str) -> list[bytes]:
    b64 = base64.b64encode(secret.encode()).decode()
    return [
        s.encode()
        for s in {
            secret,
            secret[:16],
            b64,
            b64.rstrip("="),
            urllib.parse.quote(secret, safe=""),
            urllib.parse.quote_plus(secret),
        }
    ]


def test_goal_tokens_never_reach_the_db_or_any_output(tmp_path: Path) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        f'goal: "deploy with {OPENAI} and {GITHUB}"\n'
        "steps:\n  - id: s1\n    tool: calculate\n    args: {expression: '1 + 1'}\n"
    )
    db = str(tmp_path / "runs.db")
    outputs: list[str] = []
    run = _cli(tmp_path, "exec", str(plan), "--yes", "--db", db, "--json")
    assert run.returncode == 0, run.stderr
    outputs += [run.stdout, run.stderr]
    run_id = json.loads(run.stdout)["run_id"]
    for args in (
        ["runs", "--db", db],
        ["runs", "--db", db, "--json"],
        ["show", run_id, "--db", db],
        ["show", run_id, "--db", db, "--json"],
        ["lint", str(plan)],
        ["lint", str(plan), "--json"],
    ):
        proc = _cli(tmp_path, *args)
        assert proc.returncode == 0, (args, proc.stderr)
        outputs += [proc.stdout, proc.stderr]
    raw = _db_bytes(Path(db))
    for token in (OPENAI, GITHUB):
        for piece in (token, token[:16]):
            assert piece.encode() not in raw, piece
            assert all(piece not in out for out in outputs), piece
    assert b"[REDACTED:openai_key]" in raw and b"[REDACTED:github_token]" in raw
    assert any("[REDACTED:github_token]" in out for out in outputs)


def test_literal_secret_argument_is_refused_naming_step_and_field(tmp_path: Path) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        textwrap.dedent(
            f"""
            goal: call the api
            steps:
              - id: call
                tool: calculate
                args: {{expression: "1 + 1", headers: {{auth: "token {GITHUB}"}}}}
                compensate: {{tool: calculate, args: {{expression: "{OPENAI}"}}}}
            """
        )
    )
    db = tmp_path / "runs.db"
    for args in (["lint", str(plan)], ["exec", str(plan), "--yes", "--db", str(db)]):
        proc = _cli(tmp_path, *args)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        out = proc.stdout + proc.stderr
        assert "step 'call' args.headers.auth: holds what looks like a secret (github_token)" in out
        if args[0] == "lint":  # exec names the first problem only
            assert "step 'call' compensate.args.expression" in out, out
        assert "${env.NAME}" in out
        assert "Traceback" not in out
        assert GITHUB not in out and OPENAI not in out
    if db.exists():
        raw = _db_bytes(db)
        assert GITHUB.encode() not in raw and OPENAI.encode() not in raw


def test_literal_secret_in_a_rollback_step_is_refused() -> None:
    plan = Plan.model_validate(
        {
            "goal": "g",
            "steps": [{"id": "a", "tool": "t", "args": {}}],
            "rollback": [{"id": "undo", "tool": "t", "args": {"k": [f"pw={GITHUB}"]}}],
        }
    )
    problems = [p for p in validate_plan(plan) if p.code == "literal_secret"]
    assert [str(p).split(":")[0] for p in problems] == ["rollback step 'undo' args.k[0]"]
    assert GITHUB not in str(problems[0]) and "${env.NAME}" in str(problems[0])


def test_env_reference_reaches_the_tool_and_never_the_db(tmp_path: Path) -> None:
    (tmp_path / "tools.yaml").write_text(TOOLS)
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        "goal: echo a credential\n"
        "steps:\n  - id: say\n    tool: echo\n    args: {text: '${env.MYVALUE}'}\n"
        "  - id: again\n    tool: echo\n    args: {text: 'prefix ${env.MYVALUE} ${say.stdout}'}\n"
    )
    db = tmp_path / "runs.db"
    env = _env(MYVALUE=ENV_VALUE, FORETHOUGHT_SECRETS="MYVALUE")
    lint = _cli(tmp_path, "lint", str(plan), "--tools", "tools.yaml", env=env)
    assert lint.returncode == 0, lint.stderr
    proc = _cli(tmp_path, "exec", str(plan), "--yes", "--db", str(db), "--tools", "tools.yaml", env=env)
    assert proc.returncode == 0, proc.stderr
    # the tool got the real value
    assert (tmp_path / "received.txt").read_text().startswith("prefix " + ENV_VALUE)
    raw = _db_bytes(db)
    assert b"${env.MYVALUE}" in raw  # the plan as written
    for piece in _forms(ENV_VALUE):
        assert piece not in raw, piece
        assert piece.decode() not in proc.stdout + proc.stderr
    run_id = _cli(tmp_path, "runs", "--db", str(db), "--json", env=env).stdout
    shown = _cli(tmp_path, "show", json.loads(run_id)[0]["run_id"], "--db", str(db), "--json", env=_env())
    assert shown.returncode == 0
    for piece in _forms(ENV_VALUE):
        assert piece.decode() not in shown.stdout
    assert "[REDACTED:env:MYVALUE" in shown.stdout


def test_env_reference_needs_the_name_allowed(tmp_path: Path) -> None:
    (tmp_path / "tools.yaml").write_text(TOOLS)
    plan = tmp_path / "plan.yaml"
    plan.write_text("goal: g\nsteps:\n  - id: say\n    tool: echo\n    args: {text: 'x ${env.HOME}'}\n")
    for args in (
        ["lint", str(plan), "--tools", "tools.yaml"],
        ["exec", str(plan), "--yes", "--db", str(tmp_path / "r.db"), "--tools", "tools.yaml"],
    ):
        proc = _cli(tmp_path, *args, env=_env(FORETHOUGHT_SECRETS="OTHER"))
        assert proc.returncode == 2, (args, proc.stderr)
        out = proc.stdout + proc.stderr
        assert "step 'say' args.text: ${env.HOME} is not allowed" in out and "FORETHOUGHT_SECRETS" in out
        assert not (tmp_path / "received.txt").exists()


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("${env}", "args.x"),
        ("${env.A.B}", "args.x"),
        ("${env[0]}", "args.x"),
    ],
)
def test_malformed_env_references_are_refused(text: str, field: str) -> None:
    plan = Plan.model_validate({"goal": "g", "steps": [{"id": "s", "tool": "t", "args": {"x": text}}]})
    problems = validate_plan(plan)
    assert problems and all(p.step_id == "s" and p.field_text() == field for p in problems), problems


def test_env_is_not_a_step_id() -> None:
    plan = Plan.model_validate(
        {
            "goal": "g",
            "steps": [
                {"id": "env", "tool": "t", "args": {}},
                {"id": "b", "tool": "t", "args": {"x": "${env.out}"}},
            ],
        }
    )
    problems = validate_plan(plan)
    assert any(p.step_id == "env" and "reserved" in p.message for p in problems), problems
    # ${env.X} is never a dependency on a step
    assert plan.steps[1].all_dependencies() == ()


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("password: hunter2hunter2", "hunter2hunter2"),
        ("db pw=s3cr3tValue more", "s3cr3tValue"),
        ('{"password": "tr0ub4dor&3"}', "tr0ub4dor&3"),
        ("PASSWD='abc def'", "abc"),
        ("client_secret = xyzzy-plugh", "xyzzy-plugh"),
    ],
)
def test_password_assignments_in_text_are_redacted(text: str, secret: str) -> None:
    out = make_redactor(env={}).redact_text(text)
    assert secret not in out and "[REDACTED:" in out, out


def test_password_assignment_keeps_references_and_ordinary_text() -> None:
    r = make_redactor(env={})
    for text in ("password=${env.DB_PASSWORD}", "max_tokens=100", "the password is required", "pw"):
        assert r.redact_text(text) == text


def test_encoded_forms_of_known_secrets_are_redacted() -> None:
    secret = "correct horse/battery+staple?42"
    r = make_redactor(env={"MY_SERVICE_TOKEN": secret})
    b64 = base64.b64encode(secret.encode()).decode()
    for form in (
        b64,
        b64.rstrip("="),
        base64.urlsafe_b64encode(secret.encode()).decode(),
        urllib.parse.quote(secret, safe=""),
        urllib.parse.quote_plus(secret),
    ):
        out = r.redact_text(f"sent {form} ok")
        assert form not in out and "[REDACTED:env:MY_SERVICE_TOKEN" in out, (form, out)
        assert r.might_contain_secret(json.dumps({"x": f"sent {form} ok"}))


def test_env_reference_in_a_compensation_is_resolved_and_redacted(tmp_path: Path) -> None:
    (tmp_path / "tools.yaml").write_text(TOOLS)
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        textwrap.dedent(
            """
            goal: undo with a credential
            steps:
              - {id: a, tool: echo, args: {text: x}, compensate: {tool: echo, args: {text: '${env.MYVALUE}'}}}
              - {id: b, tool: echo, args: {text: y}, depends_on: [a], on_failure: rollback,
                 check: {regex: "^never$"}}
            """
        )
    )
    db = tmp_path / "runs.db"
    env = _env(MYVALUE=ENV_VALUE, FORETHOUGHT_SECRETS="MYVALUE")
    proc = _cli(tmp_path, "exec", str(plan), "--yes-all", "--db", str(db), "--tools", "tools.yaml", env=env)
    assert proc.returncode == 1, proc.stderr
    assert (tmp_path / "received.txt").read_text() == ENV_VALUE  # the compensation ran with it
    raw = _db_bytes(db)
    assert b"compensation_succeeded" in raw
    for piece in [*_forms(ENV_VALUE), b"&=x"]:  # not even the tail after a '&'
        assert piece not in raw, piece


def test_a_known_secret_in_an_assignment_is_removed_whole() -> None:
    r = make_redactor(env={"MY_TOKEN": ENV_VALUE})
    assert r.redact_text(f"password: {ENV_VALUE}") == "password: [REDACTED:env:MY_TOKEN]"
    assert (
        r.redact_text(f"password: abcd {ENV_VALUE}")
        == "password: [REDACTED:password] [REDACTED:env:MY_TOKEN]"
    )


@pytest.mark.parametrize("stream", [False, True])
def test_goal_tokens_never_reach_the_planner_model_the_plan_file_or_a_run(
    tmp_path: Path, stream: bool
) -> None:
    replies = tmp_path / "replies.json"
    plan = {"steps": [{"id": "s1", "tool": "calculate", "args": {"expression": "1 + 1"}}]}
    replies.write_text(json.dumps([json.dumps(plan)] * 2))
    goal = f"calculate 1 + 1, the key is {GITHUB} and {OPENAI}"
    model = ["--model", f"scripted:{replies}"]
    out_file = tmp_path / "plan.yaml"
    planned = _cli(tmp_path, "plan", goal, "-o", str(out_file), *model, "--json")
    assert planned.returncode == 0, planned.stderr
    db = tmp_path / "runs.db"
    extra = [] if stream else ["--no-stream"]
    ran = _cli(tmp_path, "run", goal, *model, "--yes", *extra, "--db", str(db), "--json")
    assert ran.returncode == 0, ran.stderr
    texts = [out_file.read_text(), planned.stdout, planned.stderr, ran.stdout, ran.stderr]
    raw = _db_bytes(db)
    for token in (GITHUB, OPENAI):
        assert all(token[:16] not in t for t in texts), token
        assert token[:16].encode() not in raw
    assert "[REDACTED:github_token]" in out_file.read_text()
    # the planner model was asked with the redacted goal (its request is recorded)
    assert b"model_called" in raw and b"[REDACTED:github_token]" in raw
