"""Make docs/ui-run.png and docs/ui-review.png: the web UI on a demo deployment, in Debian's
headless chromium (the same setup as tests/test_web_browser.py; nothing is downloaded).

    PYTHONPATH=src python tools/ui_screenshots.py [OUT_DIR]     # default: docs/

The plan comes from a scripted planner and the tools are local Python functions (the deployment
is pretend), so the pictures are reproducible offline. The run page is taken while the smoke
test is running (it waits on an event this script sets afterwards).
"""

from __future__ import annotations

import contextlib
import json
import sys
import tempfile
import threading
from collections.abc import AsyncIterator, Iterator, Mapping
from pathlib import Path
from typing import Any

from forethought import tool
from forethought.agent import Agent
from forethought.interfaces.web.app import create_app
from forethought.interfaces.web.runner import RunManager
from forethought.interfaces.web.security import Guard
from forethought.models.scripted import ScriptedModel
from forethought.runs.store.sqlite import SqliteStore

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
GOAL = "Deploy v2.3.1 to production safely"
SMOKE_MAY_FINISH = threading.Event()


@tool
def run_tests(tag: str) -> dict[str, Any]:
    """Run the test suite at a tag."""
    return {"passed": 412, "failed": 0, "tag": tag}


@tool
def build_image(tag: str) -> dict[str, str]:
    """Build the container image."""
    return {"image": f"registry.local/app:{tag}"}


@tool
def backup_database(database: str) -> dict[str, str]:
    """Snapshot the database."""
    return {"snapshot": f"{database}-snap-0142"}


@tool(effect="mutating")
def deploy_staging(image: str, tests_passed: int) -> dict[str, str]:
    """Deploy an image to staging."""
    return {"url": "https://staging.local", "image": image}


@tool
def smoke_test(url: str) -> dict[str, str]:
    """Smoke-test a deployment."""
    SMOKE_MAY_FINISH.wait(60)
    return {"status": "ok", "url": url}


@tool(effect="mutating")
def deploy_production(image: str, snapshot: str, smoke: str) -> dict[str, str]:
    """Deploy an image to production."""
    return {"deployed": image}


TOOLS = [run_tests, build_image, backup_database, deploy_staging, smoke_test, deploy_production]
PLAN = {
    "steps": [
        {"id": "tests", "tool": "run_tests", "args": {"tag": "v2.3.1"}},
        {"id": "build", "tool": "build_image", "args": {"tag": "v2.3.1"}},
        {"id": "backup", "tool": "backup_database", "args": {"database": "production"}},
        {
            "id": "staging",
            "tool": "deploy_staging",
            "args": {"image": "${build.image}", "tests_passed": "${tests.passed}"},
        },
        {"id": "smoke", "tool": "smoke_test", "args": {"url": "${staging.url}"}},
        {
            "id": "production",
            "tool": "deploy_production",
            "args": {"image": "${build.image}", "snapshot": "${backup.snapshot}", "smoke": "${smoke.status}"},
            "timeout_s": 600,
            "on_failure": "rollback",
        },
    ]
}


@contextlib.contextmanager
def serve(app: Any) -> Iterator[str]:
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    started = threading.Event()
    original = server.startup

    async def startup(sockets: Any = None) -> None:
        await original(sockets)
        started.set()

    server.startup = startup  # type: ignore[method-assign]
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    started.wait(30)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)


def main(out: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteStore(Path(tmp) / "runs.db")
        plans: list[str] = []

        @contextlib.asynccontextmanager
        async def opener(setup: Mapping[str, Any], model: str | None) -> AsyncIterator[Agent]:
            replies = [plans.pop(0)] if plans else []
            yield Agent(TOOLS, model=ScriptedModel(replies), store=store, approver="alex")

        manager = RunManager(store, opener, {"tools": [], "builtins": [], "workspace": "."}, approver="alex")
        app = create_app(manager, Guard())
        with serve(app) as base, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 1000})

            def new_run() -> None:
                plans.append(json.dumps(PLAN))
                page.goto(base + "/new")
                page.fill("#goal", GOAL)
                page.click("#start")
                expect(page.locator("#run-status")).to_have_text("awaiting_approval", timeout=20_000)

            new_run()  # run 1: approved, screenshot while the smoke test runs
            page.click("#review-link")
            page.click("#approve")
            expect(page.locator('g.node[data-step="smoke"]')).to_have_attribute(
                "data-status", "running", timeout=20_000
            )
            page.screenshot(path=str(out / "ui-run.png"), full_page=True)
            SMOKE_MAY_FINISH.set()
            expect(page.locator("#run-status")).to_have_text("succeeded", timeout=20_000)

            new_run()  # run 2: waiting for approval
            page.click("#review-link")
            page.screenshot(path=str(out / "ui-review.png"), full_page=True)
            browser.close()
        store.close()
    print(f"wrote {out / 'ui-run.png'} and {out / 'ui-review.png'}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "docs")
