"""Secrets never reach the run database (nor its WAL) and never get printed."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _store_support import Seq
from forethought.events import kinds as ev
from forethought.oversight.redaction import Redactor, make_redactor, secret_env_values
from forethought.runs.store.recorder import Recorder
from forethought.runs.store.sqlite import SqliteStore

OPENAI = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"
ANTHROPIC = "sk-ant-api03-" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp"
GITHUB = "ghp_" + "0123456789abcdefghijABCDEFGHIJ012345"
GITHUB_PAT = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"
AWS_ID = "AKIA" + "IOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
SLACK = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOp"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    "eyJzdWIiOiIxMjM0NTY3ODkwIn0."
    "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
)
BEARER = "abcDEF123456ghiJKL7890mno"
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n"
    "4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u\n"
    "-----END RSA PRIVATE KEY-----"
)
ENV_SECRET = "correct-horse-battery-staple-42"

SEEDED = {
    "openai_key": OPENAI,
    "anthropic_key": ANTHROPIC,
    "github_token": GITHUB,
    "aws_access_key_id": AWS_ID,
    "slack_token": SLACK,
    "jwt": JWT,
}


@pytest.fixture
def redactor():  # type: ignore[no-untyped-def]
    return make_redactor(env={"MY_SERVICE_TOKEN": ENV_SECRET, "HOME": "/home/someone-long"})


@pytest.mark.parametrize(("kind", "secret"), sorted(SEEDED.items()))
def test_each_token_shape_is_redacted_with_its_kind(redactor, kind: str, secret: str) -> None:  # type: ignore[no-untyped-def]
    text = f"before {secret} after"
    assert redactor.redact_text(text) == f"before [REDACTED:{kind}] after"


def test_contextual_shapes(redactor) -> None:  # type: ignore[no-untyped-def]
    assert (
        redactor.redact_text(f"Authorization: Bearer {BEARER}") == "Authorization: Bearer [REDACTED:bearer]"
    )
    assert (
        redactor.redact_text(f"aws_secret_access_key = {AWS_SECRET}")
        == "aws_secret_access_key = [REDACTED:aws_secret_access_key]"
    )
    assert redactor.redact_text(f"key:\n{PEM}\nrest") == "key:\n[REDACTED:pem_private_key]\nrest"
    # A truncated key (output cut off mid-key) is still removed to the end.
    assert "MIIE" not in redactor.redact_text(PEM[:80])
    assert (
        redactor.redact_text("postgres://app:hunter2hunter2@db:5432/x")
        == "postgres://[REDACTED:url_password]@db:5432/x"
    )
    assert redactor.redact_text(GITHUB_PAT) == "[REDACTED:github_token]"


def test_env_values_are_redacted_whatever_they_look_like(redactor) -> None:  # type: ignore[no-untyped-def]
    assert redactor.redact_text(f"pw={ENV_SECRET}!") == "pw=[REDACTED:env:MY_SERVICE_TOKEN]!"
    # HOME is not a secret-looking name: left alone.
    assert redactor.redact_text("/home/someone-long") == "/home/someone-long"


def test_secret_env_selection() -> None:
    env = {
        "OPENAI_API_KEY": "x" * 20,
        "DB_PASSWORD": "p" * 12,
        "GITHUB_TOKEN": "g" * 10,
        "SHORT_KEY": "abc",
        "PATH": "/usr/bin:/bin",
        "SSH_AUTH_SOCK": "/tmp/ssh-agent.sock",
        "CUSTOM": "custom-value-1",
        "ALSO": "also-value-22",
        "FORETHOUGHT_REDACT_ENV": "ALSO",
    }
    got = secret_env_values(env, names=["CUSTOM"])
    assert set(got) == {"OPENAI_API_KEY", "DB_PASSWORD", "GITHUB_TOKEN", "CUSTOM", "ALSO"}


def test_ordinary_text_is_untouched(redactor) -> None:  # type: ignore[no-untyped-def]
    for text in [
        "sk-short",
        "ask-anything-you-like",
        "the task key is 42",
        "eyJ not a jwt",
        "Bearer",
        "https://example.com/path",
        "AKIA too short",
    ]:
        assert redactor.redact_text(text) == text


def test_nested_data_and_keys(redactor) -> None:  # type: ignore[no-untyped-def]
    data = {"a": [1, {"b": f"token {OPENAI}"}], OPENAI: True, "n": 3.5, "z": None}
    out = redactor.redact(data)
    assert out == {
        "a": [1, {"b": "token [REDACTED:openai_key]"}],
        "[REDACTED:openai_key]": True,
        "n": 3.5,
        "z": None,
    }
    clean = {"a": [1, 2], "b": "fine"}
    assert redactor.redact(clean) is clean  # nothing copied when nothing changes


def test_event_payload_redacted_structure_kept(redactor) -> None:  # type: ignore[no-untyped-def]
    e = ev.StepSucceeded(
        run_id="run-1", seq=4, step_id="s1", attempt=1, output={"stdout": f"export KEY={ANTHROPIC}"}
    )
    r = redactor.redact_event(e)
    assert isinstance(r, ev.StepSucceeded)
    assert (r.run_id, r.seq, r.step_id, r.ts) == ("run-1", 4, "s1", e.ts)
    assert r.output == {"stdout": "export KEY=[REDACTED:anthropic_key]"}
    clean = ev.StepReady(run_id="run-1", seq=5, step_id="s2")
    assert redactor.redact_event(clean) is clean


@settings(max_examples=60, deadline=None)
@given(
    prefix=st.text(max_size=30),
    suffix=st.text(max_size=30),
    secret=st.sampled_from([*SEEDED.values(), ENV_SECRET, PEM]),
)
def test_seeded_secret_never_survives(prefix: str, suffix: str, secret: str) -> None:
    r = make_redactor(env={"MY_SERVICE_TOKEN": ENV_SECRET})
    out = r.redact_text(prefix + " " + secret + " " + suffix)
    assert secret not in out
    assert "[REDACTED:" in out


def _db_and_wal_bytes(db: Path) -> bytes:
    wal = Path(str(db) + "-wal")
    assert wal.exists() and wal.stat().st_size > 0  # the WAL really holds the data
    return db.read_bytes() + wal.read_bytes()


async def test_secrets_absent_from_db_and_wal_bytes(tmp_path: Path) -> None:
    """The acceptance check: grep the raw database and WAL bytes for every seeded secret."""
    db = tmp_path / "runs.db"
    store = SqliteStore(db)
    secrets = [*SEEDED.values(), ENV_SECRET, AWS_SECRET, BEARER, PEM]
    rec = Recorder(store, redactor=make_redactor(env={"DEPLOY_SECRET": ENV_SECRET}))
    b = Seq("leaky")
    await rec(b(ev.RunCreated, goal=f"deploy with {OPENAI}", config={"token": GITHUB}))
    await rec(b(ev.StepStarted, step_id="s1", attempt=1, args={"auth": f"Bearer {BEARER}"}))
    await rec(
        b(
            ev.ModelCalled,
            role="executor",
            model="m",
            request={"messages": [{"role": "user", "content": f"use {ANTHROPIC}"}]},
            response={"text": f"ok, I will use {ANTHROPIC} and {JWT}"},
        )
    )
    await rec(
        b(
            ev.ToolCalled,
            step_id="s1",
            tool="sh",
            args={"cmd": "cat .env"},
            output=f"AWS_ACCESS_KEY_ID={AWS_ID}\naws_secret_access_key={AWS_SECRET}\n"
            f"SLACK={SLACK}\nPW={ENV_SECRET}\n{PEM}",
        )
    )
    await rec(b(ev.StepSucceeded, step_id="s1", attempt=1, output={"log": f"{OPENAI} {GITHUB} {ENV_SECRET}"}))
    await rec(b(ev.StepFailed, step_id="s2", attempt=1, error=f"401 for token {SLACK}"))
    await rec.aclose()
    raw = _db_and_wal_bytes(db)
    for secret in secrets:
        for piece in (secret, secret[:20], secret.encode().hex()):
            assert piece.encode() not in raw, piece
    assert b"[REDACTED:" in raw
    # and what the store gives back is the redacted text
    out = store.events("leaky")
    assert "[REDACTED:openai_key]" in out[0].goal  # type: ignore[union-attr]
    store.close()
    raw_after_checkpoint = db.read_bytes()
    assert all(s.encode() not in raw_after_checkpoint for s in secrets)


def test_clean_events_pass_the_screen_untouched() -> None:
    r = make_redactor(env={"A_TOKEN": ENV_SECRET})
    clean = ev.StepStarted(run_id="abc", seq=1, step_id="s1", attempt=1, args={"path": "/x"})
    assert not r.might_contain_secret(clean.model_dump_json())
    assert r.redact_event(clean) is clean
    assert r.might_contain_secret(f'{{"x": "{ENV_SECRET.upper()}"}}')  # case-blind screen


def test_redaction_is_fast_enough_for_the_recorder() -> None:
    r = make_redactor(env={"A_TOKEN": ENV_SECRET})
    e = ev.StepSucceeded(
        run_id="r",
        seq=1,
        step_id="s",
        attempt=1,
        output={"rows": [{"id": i, "name": f"row {i}"} for i in range(20)]},
    )

    t0 = time.perf_counter()
    for _ in range(2000):
        r.redact_event(e)
    per_event = (time.perf_counter() - t0) / 2000
    assert per_event < 500e-6, per_event  # generous bound; typical figure is ~30 µs


WEIRD_ENV = 'pa"ss\\wörd\n\t-42'


@settings(max_examples=150, deadline=None)
@given(
    prefix=st.text(max_size=20),
    suffix=st.text(max_size=20),
    secret=st.sampled_from(
        [
            *SEEDED.values(),
            ENV_SECRET,
            PEM,
            WEIRD_ENV,
            f"Bearer\t{BEARER}",
            f"aws_secret_access_key: '{AWS_SECRET}'",
            "https://u:p4ss@host/x",
            GITHUB_PAT,
        ]
    ),
    noise=st.text(max_size=40),
)
def test_the_json_screen_never_lets_a_secret_through(
    prefix: str, suffix: str, secret: str, noise: str
) -> None:
    r = make_redactor(env={"MY_SERVICE_TOKEN": ENV_SECRET, "WEIRD_PASSWORD": WEIRD_ENV})
    value = prefix + secret + suffix
    e = ev.ToolCalled(
        run_id="r", seq=1, step_id="s", tool="t", args={"k": [value]}, output={"noise": noise, "text": value}
    )
    if r.redact(value) != value:  # the full walk would change it: the screen must notice
        assert r.might_contain_secret(e.model_dump_json())
    out = r.redact_event(e)
    assert out.output["text"] == r.redact(value)  # type: ignore[union-attr]
    alone = (not prefix or prefix[-1].isspace()) and (not suffix or suffix[0].isspace())
    if alone:  # a token standing alone is always removed
        assert secret.split()[-1] not in out.output["text"]  # type: ignore[union-attr]
    # Noise alone is only changed if it happens to contain a secret shape itself.
    assert out.output["noise"] == r.redact(noise)  # type: ignore[union-attr]


# The screen now also guards plain text (progress lines) and each level of JSON-like data
# (``--json`` summaries): screened results must equal the unscreened full pass.
@settings(max_examples=150, deadline=None)
@given(
    prefix=st.text(max_size=20),
    suffix=st.text(max_size=20),
    secret=st.sampled_from(
        [*SEEDED.values(), ENV_SECRET, PEM, WEIRD_ENV, f"Bearer\t{BEARER}", GITHUB_PAT, "ſk-" + "a" * 40, ""]
    ),
    key=st.sampled_from(["tokens", "output", "password", "steps"]),
)
def test_screened_text_and_data_redact_exactly_as_the_full_pass(
    prefix: str, suffix: str, secret: str, key: str
) -> None:
    import dataclasses

    r = make_redactor(env={"MY_SERVICE_TOKEN": ENV_SECRET, "WEIRD_PASSWORD": WEIRD_ENV})
    full = dataclasses.replace(r, anchors=None)  # no screen: the regexes see everything
    text = prefix + secret + suffix
    assert r.redact_text(text) == full.redact_text(text)
    data = {key: {"s1": {"output": text, "attempts": 1}, "s2": [text, {text: 2}]}, "cost": 0.5}
    assert r.redact(data) == _every_string(full, data)


def _every_string(r: Redactor, value: Any) -> Any:
    """The reference: every string and key redacted one by one, nothing screened or remembered."""
    if isinstance(value, str):
        return r.redact_text(value)
    if isinstance(value, dict):
        return {_every_string(r, k): _every_string(r, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_every_string(r, v) for v in value]
    return value


# A run summary: more entries than are screened one by one, the same keys in each (one of
# them, ``tokens``, trips the screen), and strings that repeat: each is redacted once per call
# (``Redactor._text``). Secrets in some entries, keys or values, long or short, must all go.
@settings(max_examples=100, deadline=None)
@given(
    secret=st.sampled_from([*SEEDED.values(), ENV_SECRET, WEIRD_ENV, GITHUB_PAT, "ſk-" + "a" * 40]),
    where=st.lists(st.integers(min_value=0, max_value=59), max_size=4),
    as_key=st.sampled_from(["value", "key", "id"]),
    padding=st.integers(min_value=0, max_value=400),
    non_json=st.booleans(),
    slice_rows=st.sampled_from([1, 7, 2048]),  # the rows' values are screened a slice at a time
)
def test_summary_sized_data_redacts_exactly_as_the_full_pass(
    secret: str, where: list[int], as_key: str, padding: int, non_json: bool, slice_rows: int
) -> None:

    from forethought.oversight import redaction

    saved, redaction._TABLE_SLICE_ROWS = redaction._TABLE_SLICE_ROWS, slice_rows
    try:
        _summary_redacts_as_the_full_pass(secret, where, as_key, padding, non_json)
    finally:
        redaction._TABLE_SLICE_ROWS = saved


def _summary_redacts_as_the_full_pass(
    secret: str, where: list[int], as_key: str, padding: int, non_json: bool
) -> None:
    import dataclasses

    r = make_redactor(env={"MY_SERVICE_TOKEN": ENV_SECRET, "WEIRD_PASSWORD": WEIRD_ENV})
    full = dataclasses.replace(r, anchors=None)
    text = "x" * padding + " " + secret  # past the remembered length too
    steps: dict[str, Any] = {}
    for i in range(60):
        entry: dict[str, Any] = {"status": "succeeded", "output": i, "error": None, "tokens": 0, "cost": 0.5}
        if non_json and i == 7:
            entry["output"] = object()  # not JSON: screened by its str(), walked as it is
        if i in where and as_key == "key":
            entry[text] = "ok"
        elif i in where and as_key == "value":
            entry["output"] = {"text": text, "same": text, "list": [text, "succeeded"]}
        steps[f"s{i} {text}" if i in where and as_key == "id" else f"s{i}"] = entry
    data = {"status": "succeeded", "steps": steps, "input_tokens": 0}
    out = r.redact(data)
    assert out == _every_string(full, data)
    if where and full.redact_text(text) != text:
        assert secret not in json.dumps(out, ensure_ascii=False, default=str)
    if not where:
        assert out is data  # nothing to change: the same object, nothing copied


# ``redact_event`` screens field by field, and takes a field's JSON text from the caller (the
# plan's canonical text for ``plan_proposed``): the result must equal the unscreened full pass,
# and a plan holding a secret must be caught through its canonical text.
@settings(max_examples=100, deadline=None)
@given(
    secret=st.sampled_from([*SEEDED.values(), ENV_SECRET, WEIRD_ENV, PEM, GITHUB_PAT, ""]),
    field=st.sampled_from(["goal", "description", "arg", "arg_key", "metadata"]),
    source=st.sampled_from(["api", "planner", "file"]),
)
def test_plan_proposed_screened_by_canonical_text_redacts_as_the_full_pass(
    secret: str, field: str, source: str
) -> None:
    import dataclasses

    from forethought.plan.model import Plan

    r = make_redactor(env={"MY_SERVICE_TOKEN": ENV_SECRET, "WEIRD_PASSWORD": WEIRD_ENV})
    full = dataclasses.replace(r, anchors=None)
    value = f"see {secret} here"
    step: dict[str, Any] = {"id": "s1", "tool": "t", "args": {"x": 1}}
    if field == "description":
        step["description"] = value
    elif field == "arg":
        step["args"] = {"x": value}
    elif field == "arg_key":
        step["args"] = {value: 1}
    plan = Plan.model_validate(
        {
            "goal": value if field == "goal" else "g",
            "steps": [step, *({"id": f"m{i}", "tool": "t"} for i in range(40))],
            "metadata": {"note": value} if field == "metadata" else {},
        }
    )
    e = ev.PlanProposed(
        run_id="r",
        seq=1,
        plan=plan.record_data(),
        plan_hash=plan.plan_hash(),
        source=source,  # type: ignore[arg-type]
    )
    fast = r.redact_event(e, {"plan": plan.canonical_json()})
    assert fast.model_dump() == r.redact_event(e).model_dump()
    expected = _every_string(full, ev.event_to_dict(e)["plan"])
    assert fast.plan == expected  # type: ignore[union-attr]
    if full.redact_text(value) != value:
        assert secret not in fast.model_dump_json()
    if not secret:
        assert fast is e  # clean: the same event, nothing rebuilt
