"""The web UI's HTTP surface: the access token, the CSRF checks on every state-changing endpoint,
the bind rule, redaction, and the review actions against a real SQLite store."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")
pytest.importorskip("httpx")

from starlette.testclient import TestClient

from _web_support import GATES, GOAL, PLAN_WITH_EFFECT, Planner, make_app, tmp_store
from forethought.events import kinds as E
from forethought.interfaces.cli.main import run as cli_run
from forethought.interfaces.web.security import Guard, check_bind, is_loopback
from forethought.runs.store.sqlite import SqliteStore

BASE = "http://127.0.0.1:8765"
ORIGIN = {"origin": BASE}
# Every state-changing endpoint, and what it answers once past the checks (an unknown run "abc",
# an empty goal): proof the request got through.
POSTS = [
    *((f"/runs/abc/{a}", "abc") for a in ("approve", "reject", "edit", "lint", "review-steps")),
    *((f"/runs/abc/{a}", "abc") for a in ("resume", "pause", "cancel")),
    ("/new", "the goal is empty"),
]


@pytest.fixture(autouse=True)
def _fresh_gates() -> None:
    GATES.reset()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    s = tmp_store(tmp_path)
    yield s
    s.close()


def _csrf(client: TestClient, headers: dict[str, str] | None = None) -> str:
    match = re.search(r'name="csrf" value="([0-9a-f]+)"', client.get("/new", headers=headers).text)
    assert match, "the page carries no CSRF token"
    return match.group(1)


def _wait_for_run(client: TestClient, app: Any, run_id: str) -> None:
    """Await the background task driving the run (on the server's loop): no sleeping."""
    task = app.state.manager.tasks.get(run_id)
    if task is not None:
        client.portal.call(asyncio.wait_for, asyncio.shield(task), 20)


def _start(client: TestClient, app: Any, planner: Planner, csrf: str) -> str:
    planner.plan(PLAN_WITH_EFFECT)
    r = client.post(
        "/new",
        data={"goal": GOAL, "csrf": csrf, "start_read_only": "1"},
        headers=ORIGIN,
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    return str(r.headers["location"]).rsplit("/", 1)[1]


# ------------------------------------------------------------------------------ bind rule


def test_loopback_addresses() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5") and not is_loopback("example.org")


def test_a_non_loopback_bind_without_a_token_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli_run(["ui", "--host", "0.0.0.0"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and "--token" in err[0] and "0.0.0.0" in err[0]


def test_a_non_loopback_bind_with_a_token_passes_the_check() -> None:
    check_bind("0.0.0.0", "s3cret-token")  # no exception
    check_bind("127.0.0.1", None)


# ------------------------------------------------------------------------------ token


def test_without_a_token_only_loopback_host_names_are_served(store: SqliteStore) -> None:
    """A site whose name is rebound to 127.0.0.1 (DNS rebinding) gets nothing."""
    app = make_app(store, Planner())
    with TestClient(app, base_url="http://evil.example:8765") as client:
        assert client.get("/").status_code == 421
        assert client.get("/runs/stream").status_code == 421
    with TestClient(app, base_url="http://localhost:8765") as client:
        assert client.get("/").status_code == 200
    with TestClient(make_app(store, Planner(), token="t0ken"), base_url="http://ui.example") as client:
        assert client.get("/", headers={"authorization": "Bearer t0ken"}).status_code == 200


def test_without_a_token_set_pages_are_open_on_loopback(store: SqliteStore) -> None:
    with TestClient(make_app(store, Planner()), base_url=BASE) as client:
        r = client.get("/")
        assert r.status_code == 200 and "Runs" in r.text
        assert "forethought_session" in r.cookies


@pytest.mark.parametrize("presented", [None, "wrong-token"])
def test_with_a_token_set_every_request_needs_it(store: SqliteStore, presented: str | None) -> None:
    with TestClient(make_app(store, Planner(), token="right-token"), base_url=BASE) as client:
        headers = {"authorization": f"Bearer {presented}"} if presented else {}
        assert client.get("/", headers=headers).status_code == 401
        assert client.get("/runs/stream", headers=headers).status_code == 401
        r = client.post("/runs/abc/cancel", headers={**headers, **ORIGIN}, data={"csrf": "x"})
        assert r.status_code == 401


def test_opening_the_token_link_sets_a_cookie_and_drops_the_token_from_the_address(
    store: SqliteStore,
) -> None:
    with TestClient(make_app(store, Planner(), token="right-token"), base_url=BASE) as client:
        r = client.get("/?token=right-token", follow_redirects=False)
        assert r.status_code == 303 and "token" not in r.headers["location"]
        assert client.get("/").status_code == 200  # the cookie carries it from now on
        assert client.get("/", headers={"authorization": "Bearer right-token"}).status_code == 200


@pytest.mark.parametrize(("url", "answer"), POSTS)
def test_every_state_changing_endpoint_refuses_bad_requests(
    store: SqliteStore, url: str, answer: str
) -> None:
    app = make_app(store, Planner(), token="right-token")
    good = {"authorization": "Bearer right-token"}
    with TestClient(app, base_url=BASE) as client:
        csrf = _csrf(client, good)
        # no token, a wrong token
        assert client.post(url, data={"csrf": csrf}, headers=ORIGIN).status_code == 401
        bad = {"authorization": "Bearer nope", **ORIGIN}
        assert client.post(url, data={"csrf": csrf}, headers=bad).status_code == 401
        # the right token, but cross-site: another origin, or no origin at all
        evil = {**good, "origin": "http://evil.example"}
        r = client.post(url, data={"csrf": csrf}, headers=evil)
        assert r.status_code == 403 and "cross-origin" in r.text
        assert client.post(url, data={"csrf": csrf}, headers=good).status_code == 403
        # same origin but no CSRF token, or another session's token
        assert client.post(url, data={}, headers={**good, **ORIGIN}).status_code == 403
        other = Guard(token="right-token").csrf_for("another-session")
        assert client.post(url, data={"csrf": other}, headers={**good, **ORIGIN}).status_code == 403
        # everything right: the request reaches the action (which refuses it with one line)
        r = client.post(url, data={"csrf": csrf}, headers={**good, **ORIGIN})
        assert r.status_code == 409 and answer in r.text


def test_new_run_refuses_a_cross_origin_form(store: SqliteStore) -> None:
    planner = Planner()
    with TestClient(make_app(store, planner), base_url=BASE) as client:
        csrf = _csrf(client)
        r = client.post("/new", data={"goal": GOAL, "csrf": csrf}, headers={"origin": "http://evil.example"})
        assert r.status_code == 403
        assert store.list_runs() == []  # nothing started


def test_the_csrf_token_may_come_as_a_header(store: SqliteStore) -> None:
    with TestClient(make_app(store, Planner()), base_url=BASE) as client:
        csrf = _csrf(client)
        r = client.post("/runs/abc/cancel", headers={**ORIGIN, "x-csrf-token": csrf})
        assert r.status_code == 409  # past the checks


# ------------------------------------------------------------------------------ flows


def test_approve_from_the_ui_is_a_signed_approval_bound_to_the_reviewed_hash(store: SqliteStore) -> None:
    planner = Planner()
    app = make_app(store, planner)
    with TestClient(app, base_url=BASE) as client:
        csrf = _csrf(client)
        run_id = _start(client, app, planner, csrf)
        GATES.open("a")
        GATES.open("a2")
        _wait_for_run(client, app, run_id)
        assert store.get_run(run_id).status == "awaiting_approval"  # type: ignore[union-attr]
        review = client.get(f"/runs/{run_id}/review").text
        assert "needs approval" in review and "press" in review
        plan_hash = re.search(r'name="plan_hash" value="(\w+)"', review).group(1)  # type: ignore[union-attr]
        # A stale hash is refused on the page, and nothing is recorded.
        r = client.post(f"/runs/{run_id}/approve", data={"csrf": csrf, "plan_hash": "0" * 64}, headers=ORIGIN)
        assert r.status_code == 409 and "changed since it was reviewed" in r.text
        GATES.open("press:a2")
        r = client.post(
            f"/runs/{run_id}/approve",
            data={"csrf": csrf, "plan_hash": plan_hash},
            headers=ORIGIN,
            follow_redirects=False,
        )
        assert r.status_code == 303
        _wait_for_run(client, app, run_id)
    events = store.events(run_id)
    approvals = [e for e in events if isinstance(e, E.PlanApproved)]
    assert len(approvals) == 1 and approvals[0].plan_hash == plan_hash
    assert approvals[0].approver == app.state.manager.approver
    assert store.get_run(run_id).status == "succeeded"  # type: ignore[union-attr]


def test_edit_makes_a_new_version_the_old_approval_does_not_cover(store: SqliteStore) -> None:
    from _web_support import TOOLS
    from forethought.runs.approval import grant_approval

    planner = Planner()
    app = make_app(store, planner)
    with TestClient(app, base_url=BASE) as client:
        csrf = _csrf(client)
        run_id = _start(client, app, planner, csrf)
        GATES.open("a")
        GATES.open("a2")
        _wait_for_run(client, app, run_id)
        specs = {t.spec.name: t.spec for t in TOOLS}
        grant_approval(store, run_id, specs, "tester")  # `forethought approve RUN --no-run`
        assert "is approved" in client.get(f"/runs/{run_id}/review").text
        old_hash = store.get_run(run_id).plan_hash  # type: ignore[union-attr]
        # An invalid edit is refused with its problems inline, and nothing is recorded.
        bad = "goal: x\nsteps:\n  - id: p1\n    tool: nosuchtool\n"
        r = client.post(f"/runs/{run_id}/edit", data={"csrf": csrf, "plan_yaml": bad}, headers=ORIGIN)
        assert r.status_code == 422 and "nosuchtool" in r.text
        lint = client.post(f"/runs/{run_id}/lint", data={"csrf": csrf, "plan_yaml": bad}, headers=ORIGIN)
        assert "nosuchtool" in lint.text
        # g1 already ran: an edit changing it would never take effect (resume keeps its
        # outcome), so it is refused, naming the step and the way out; nothing is recorded.
        changes_g1 = (
            f"goal: {GOAL}\nsteps:\n  - id: g1\n    tool: gate\n    args: {{name: b}}\n"
            "  - id: g2\n    tool: gate\n    args: {name: '${g1}2'}\n"
            "  - id: p1\n    tool: press\n    args: {name: 'other ${g2}'}\n"
        )
        r = client.post(f"/runs/{run_id}/edit", data={"csrf": csrf, "plan_yaml": changes_g1}, headers=ORIGIN)
        assert r.status_code == 422 and "step &#39;g1&#39; has already run (succeeded)" in r.text
        assert "give the changed step a new id" in r.text
        assert store.get_run(run_id).plan_version == 1  # type: ignore[union-attr]
        # The steps that ran are kept as planned (a planned step replans on failure).
        edited = (
            f"goal: {GOAL}\nsteps:\n  - id: g1\n    tool: gate\n    args: {{name: a}}\n"
            "    on_failure: replan\n"
            "  - id: g2\n    tool: gate\n    args: {name: '${g1}2'}\n    on_failure: replan\n"
            "  - id: p1\n    tool: press\n    args: {name: 'other ${g2}'}\n"
        )
        r = client.post(
            f"/runs/{run_id}/edit",
            data={"csrf": csrf, "plan_yaml": edited},
            headers=ORIGIN,
            follow_redirects=False,
        )
        assert r.status_code == 303, r.text
        review = client.get(f"/runs/{run_id}/review").text
        assert "do not cover this version" in review and "needs approval" in review
        # The old approval's hash no longer approves anything.
        r = client.post(f"/runs/{run_id}/approve", data={"csrf": csrf, "plan_hash": old_hash}, headers=ORIGIN)
        assert r.status_code == 409
    row = store.get_run(run_id)
    assert row is not None and row.plan_version == 2 and row.plan_hash != old_hash
    proposed = [e for e in store.events(run_id) if isinstance(e, E.PlanProposed)]
    assert proposed[-1].source == "edit" and proposed[-1].plan["steps"][2]["args"]["name"] == "other ${g2}"


def test_reject_cancels_a_waiting_run(store: SqliteStore) -> None:
    planner = Planner()
    app = make_app(store, planner)
    with TestClient(app, base_url=BASE) as client:
        csrf = _csrf(client)
        run_id = _start(client, app, planner, csrf)
        GATES.open("a")
        GATES.open("a2")
        _wait_for_run(client, app, run_id)
        r = client.post(f"/runs/{run_id}/reject", data={"csrf": csrf, "note": "not today"}, headers=ORIGIN)
        assert r.status_code == 200
        # Rejecting again is refused: the run is over.
        r = client.post(f"/runs/{run_id}/reject", data={"csrf": csrf}, headers=ORIGIN)
        assert r.status_code == 409
    row = store.get_run(run_id)
    assert row is not None and row.status == "cancelled"
    decided = [e for e in store.events(run_id) if isinstance(e, E.ApprovalDecided)]
    assert decided[-1].decision == "rejected" and decided[-1].note == "not today"


def test_pages_never_show_an_unredacted_secret(store: SqliteStore) -> None:
    secret = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"
    # A record written without the recorder's redaction (e.g. by an older version).
    store.append_many(
        [
            E.RunCreated(run_id="r1", seq=0, goal=f"deploy with key {secret}"),
            E.PlanProposed(
                run_id="r1",
                seq=1,
                plan={"goal": "g", "steps": [{"id": "s1", "tool": "gate", "args": {"name": secret}}]},
                plan_hash="h" * 64,
            ),
            E.StepStarted(run_id="r1", seq=2, step_id="s1", attempt=1),
            E.StepSucceeded(run_id="r1", seq=3, step_id="s1", attempt=1, output={"token": secret}),
            E.RunFinished(run_id="r1", seq=4, status="succeeded", reason=f"used {secret}"),
        ]
    )
    with TestClient(make_app(store, Planner()), base_url=BASE) as client:
        for path in ("/", "/runs/r1", "/runs/r1/live", "/runs/r1/review", "/runs/table"):
            r = client.get(path)
            assert r.status_code == 200, (path, r.text[:300])
            assert secret not in r.text, path
        assert "s1" in client.get("/runs/r1").text


def test_the_runs_list_filters_and_escapes(store: SqliteStore) -> None:
    store.append_many([E.RunCreated(run_id="r1", seq=0, goal="count words <script>alert(1)</script>")])
    store.append_many(
        [
            E.RunCreated(run_id="r2", seq=0, goal="copy files"),
            E.RunFinished(run_id="r2", seq=1, status="failed"),
        ]
    )
    with TestClient(make_app(store, Planner()), base_url=BASE) as client:
        listed = client.get("/runs/table?goal=count").text
        assert "r1" in listed and "<script>alert" not in listed and "&lt;script&gt;" in listed
        assert "r2" not in client.get("/runs/table?goal=count").text
        failed = client.get("/runs/table?status=failed").text
        assert "r2" in failed and "r1" not in failed
        assert "no runs" in client.get("/runs/table?since=2999-01-01").text


def test_assets_are_served_from_the_package(store: SqliteStore) -> None:
    with TestClient(make_app(store, Planner()), base_url=BASE) as client:
        htmx = client.get("/static/htmx.min.js")
        assert htmx.status_code == 200 and "htmx" in htmx.text[:2000]
        page = client.get("/").text
        assert "http://" not in re.sub(r'xmlns="http://www.w3.org/2000/svg"', "", page)  # no CDN


def test_cancel_stops_a_run_this_server_drives(store: SqliteStore) -> None:
    planner = Planner()
    app = make_app(store, planner)
    with TestClient(app, base_url=BASE) as client:
        csrf = _csrf(client)
        run_id = _start(client, app, planner, csrf)  # g1 waits for its gate, which stays shut
        assert app.state.manager.driving(run_id)
        r = client.post(f"/runs/{run_id}/cancel", data={"csrf": csrf}, headers=ORIGIN, follow_redirects=False)
        assert r.status_code == 303
        assert not app.state.manager.driving(run_id)
        # Cancelled is final: cancelling again says so.
        r = client.post(f"/runs/{run_id}/cancel", data={"csrf": csrf}, headers=ORIGIN)
        assert r.status_code == 409 and "already cancelled" in r.text
    GATES.open("a")  # release the abandoned tool thread
    row = store.get_run(run_id)
    assert row is not None and row.status == "cancelled"
    assert store.events(run_id)[-1].kind == "run_finished"
