"""The web UI in a real headless Chromium (Debian's ``chromium``; nothing is downloaded), against
a real uvicorn server on a loopback port and a real SQLite store. Steps wait on gates the test
opens; every wait is Playwright's wait for a condition on the page, never a sleep."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")
pytest.importorskip("uvicorn")
playwright_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")

CHROMIUM = "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    pytest.skip(
        f"{CHROMIUM} is absent: install Debian's chromium (apt-get install chromium) "
        "to run the browser tests",
        allow_module_level=True,
    )

from playwright.sync_api import Browser, Page, expect, sync_playwright  # noqa: E402

from _web_support import (  # noqa: E402
    GATES,
    GOAL,
    PLAN_WITH_EFFECT,
    TOOLS,
    Planner,
    make_app,
    served,
    tmp_store,
)
from forethought.runs.store.sqlite import SqliteStore  # noqa: E402

BROWSER_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WAIT_MS = 15_000


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        yield b
        b.close()


class Ui:
    def __init__(self, base: str, page: Page, store: SqliteStore, planner: Planner, app: Any) -> None:
        self.base, self.page, self.store, self.planner, self.app = base, page, store, planner, app

    def node(self, step: str) -> Any:
        return self.page.locator(f'svg.dag g.node[data-step="{step}"]')

    def start_run(self, *, gated: bool = False) -> str:
        """The New run page: type the goal, plan it; lands on the run page."""
        self.planner.plan(PLAN_WITH_EFFECT, gated=gated)
        self.page.goto(self.base + "/new")
        self.page.fill("#goal", GOAL)
        self.page.click("#start")
        self.page.wait_for_url(re.compile(r".*/runs/[0-9a-f]+$"))
        return self.page.url.rsplit("/", 1)[1]

    def run_to_approval(self) -> str:
        run_id = self.start_run()
        GATES.open("a")
        GATES.open("a2")
        expect(self.page.locator("#run-status")).to_have_text("awaiting_approval", timeout=WAIT_MS)
        return run_id


@pytest.fixture
def ui(browser: Browser, tmp_path: Path) -> Iterator[Ui]:
    GATES.reset()
    store = tmp_store(tmp_path)
    planner = Planner()
    app = make_app(store, planner)
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    # Console errors include Content-Security-Policy violations (e.g. an inline style or script).
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    try:
        with served(app) as base:
            yield Ui(base, page, store, planner, app)
            context.close()
            GATES.open("press:a2")  # release any tool thread still waiting
    finally:
        store.close()
    assert errors == [], f"JavaScript errors on the page: {errors}"


def test_the_runs_list_shows_a_new_run_and_its_status_live(ui: Ui, browser: Browser) -> None:
    ui.page.goto(ui.base + "/")
    expect(ui.page.locator("table.runs")).to_contain_text("no runs")
    expect(ui.page.locator("body")).to_have_attribute("data-live", "on", timeout=WAIT_MS)
    # Another tab starts a run; this one, never reloaded, shows it and follows its status.
    other = browser.new_page()
    try:
        ui.page.evaluate("window.__not_reloaded = true")
        ui.planner.plan(PLAN_WITH_EFFECT)
        other.goto(ui.base + "/new")
        other.fill("#goal", GOAL)
        other.click("#start")
        other.wait_for_url(re.compile(r".*/runs/[0-9a-f]+$"))
        run_id = other.url.rsplit("/", 1)[1]
    finally:
        other.close()
    row = ui.page.locator(f'tr[data-run="{run_id}"]')
    expect(row.locator("[data-run-status]")).to_have_text("running", timeout=WAIT_MS)
    GATES.open("a")
    GATES.open("a2")
    expect(row.locator("[data-run-status]")).to_have_text("awaiting_approval", timeout=WAIT_MS)
    assert ui.page.evaluate("window.__not_reloaded") is True
    # The filters narrow the list.
    ui.page.select_option("select[name=status]", "succeeded")
    expect(ui.page.locator("table.runs")).to_contain_text("no runs", timeout=WAIT_MS)


def test_a_running_plans_steps_turn_green_live(ui: Ui) -> None:
    ui.start_run()
    ui.page.evaluate("window.__not_reloaded = true")
    expect(ui.node("g1")).to_have_attribute("data-status", "running", timeout=WAIT_MS)
    expect(ui.node("g2")).to_have_attribute("data-status", "pending")
    GATES.open("a")
    expect(ui.node("g1")).to_have_attribute("data-status", "succeeded", timeout=WAIT_MS)
    expect(ui.node("g1")).to_have_class(re.compile(r"\bst-succeeded\b"))
    expect(ui.node("g2")).to_have_attribute("data-status", "running", timeout=WAIT_MS)
    GATES.open("a2")
    expect(ui.node("g2")).to_have_attribute("data-status", "succeeded", timeout=WAIT_MS)
    expect(ui.page.locator("#run-status")).to_have_text("awaiting_approval", timeout=WAIT_MS)
    assert ui.page.evaluate("window.__not_reloaded") is True  # all of it over SSE, no reload
    # Per-step facts: attempts, timing, output.
    row = ui.page.locator('tr[data-step-row="g2"]')
    expect(row).to_contain_text("a2")
    expect(row.locator("td").nth(3)).to_have_text("1")
    # The critical path is marked.
    expect(ui.page.locator("svg.dag g.node.critical")).to_have_count(3)


def test_a_new_runs_plan_streams_in_as_it_is_written(ui: Ui) -> None:
    ui.start_run(gated=True)
    ui.page.evaluate("window.__not_reloaded = true")
    # The planner has written one step: it is drawn, and (read-only) already running.
    expect(ui.node("g1")).to_have_attribute("data-status", "running", timeout=WAIT_MS)
    expect(ui.page.locator("svg.dag g.node")).to_have_count(1)
    GATES.open("plan:rest")
    expect(ui.page.locator("svg.dag g.node")).to_have_count(3, timeout=WAIT_MS)
    expect(ui.node("p1")).to_have_attribute("data-status", "pending")
    GATES.open("a")
    GATES.open("a2")
    expect(ui.page.locator("#run-status")).to_have_text("awaiting_approval", timeout=WAIT_MS)
    assert ui.page.evaluate("window.__not_reloaded") is True


def test_approve_a_plan_awaiting_approval_and_see_it_run(ui: Ui) -> None:
    run_id = ui.run_to_approval()
    ui.page.click("#review-link")
    expect(ui.page.locator('tr[data-review-step="p1"]')).to_contain_text("needs approval")
    expect(ui.page.locator('tr[data-review-step="p1"]')).to_contain_text("mutating")
    plan_hash = ui.store.get_run(run_id).plan_hash  # type: ignore[union-attr]
    expect(ui.page.locator("#plan-hash")).to_have_text(plan_hash)
    ui.page.click("#approve")
    ui.page.wait_for_url(re.compile(rf".*/runs/{run_id}$"))
    expect(ui.node("p1")).to_have_attribute("data-status", "running", timeout=WAIT_MS)
    GATES.open("press:a2")
    expect(ui.node("p1")).to_have_attribute("data-status", "succeeded", timeout=WAIT_MS)
    expect(ui.page.locator("#run-status")).to_have_text("succeeded", timeout=WAIT_MS)
    expect(ui.page.locator('tr[data-step-row="p1"]')).to_contain_text("pressed a2")


def test_edit_a_plan_and_the_old_approval_no_longer_covers_it(ui: Ui) -> None:
    from forethought.runs.approval import grant_approval

    run_id = ui.run_to_approval()
    # Approved without continuing (`forethought approve RUN --no-run`): this exact plan.
    grant_approval(ui.store, run_id, {t.spec.name: t.spec for t in TOOLS}, "tester")
    ui.page.goto(f"{ui.base}/runs/{run_id}/review")
    expect(ui.page.locator("#approval-state")).to_contain_text("is approved")
    editor = ui.page.locator("#plan-yaml")
    original = editor.input_value()
    # A mistake is linted inline while typing.
    editor.fill(original.replace("tool: press", "tool: presss"))
    expect(ui.page.locator("#lint")).to_contain_text("presss", timeout=WAIT_MS)
    editor.fill(original.replace("${g2}", "again ${g2}"))
    expect(ui.page.locator("#lint")).to_contain_text("valid", timeout=WAIT_MS)
    ui.page.click("#save-edit")
    expect(ui.page.locator("#approval-state")).to_contain_text("do not cover this version", timeout=WAIT_MS)
    expect(ui.page.locator('tr[data-review-step="p1"]')).to_contain_text("needs approval")
    expect(ui.page.locator('tr[data-review-step="p1"]')).to_contain_text("again")
    expect(ui.page.locator("#approve")).to_have_text(re.compile("v2"))
    row = ui.store.get_run(run_id)
    assert row is not None and row.plan_version == 2


def test_review_an_interrupted_step(ui: Ui) -> None:
    run_id = ui.run_to_approval()
    ui.page.click("#review-link")
    ui.page.click("#approve")
    expect(ui.node("p1")).to_have_attribute("data-status", "running", timeout=WAIT_MS)
    # Interrupted mid-call, as Ctrl-C or a crash would: the side effect may or may not have happened.
    ui.page.click("#pause")
    expect(ui.page.locator("#run-status")).to_have_text("paused", timeout=WAIT_MS)
    ui.page.click("#review-link")
    ui.page.click("#resume")
    # Not idempotent: resume does not re-run it, it asks a person.
    expect(ui.node("p1")).to_have_attribute("data-status", "needs_review", timeout=WAIT_MS)
    ui.page.click("#review-link")
    box = ui.page.locator('[data-interrupted="p1"]')
    box.locator("input[name=output]").fill('"pressed by hand"')
    box.locator("button.mark").click()
    expect(ui.node("p1")).to_have_attribute("data-status", "succeeded", timeout=WAIT_MS)
    expect(ui.page.locator("#run-status")).to_have_text("succeeded", timeout=WAIT_MS)
    expect(ui.page.locator('tr[data-step-row="p1"]')).to_contain_text("pressed by hand")
    kinds = [e.kind for e in ui.store.events(run_id)]
    assert "step_needs_review" in kinds


def test_the_browser_needs_no_network(ui: Ui) -> None:
    """Every asset comes from the server itself (no CDN): record every request a page makes."""
    seen: list[str] = []
    ui.page.on("request", lambda r: seen.append(r.url))
    ui.page.goto(ui.base + "/")
    expect(ui.page.locator("body")).to_have_attribute("data-live", "on", timeout=WAIT_MS)
    assert seen and all(u.startswith(ui.base) for u in seen), seen
