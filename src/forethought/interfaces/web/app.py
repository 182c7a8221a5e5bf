"""The web UI's Starlette application: server-rendered pages, htmx fragments, SSE streams.

Pages: ``/`` runs (filters, live), ``/runs/ID`` a run (the DAG, steps, versions, timeline, live),
``/runs/ID/review`` the review screen (approve, edit, reject, interrupted steps, resume, cancel),
``/new`` a new run. Every POST goes through ``_form`` (same origin + CSRF token); every request
through ``_access`` (the token, when one is set). See ``security.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.datastructures import FormData
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from forethought.errors import UserError
from forethought.events.state import FINISHED_RUN_STATUSES
from forethought.interfaces.web import views
from forethought.interfaces.web.runner import WAITING, NewRun, RunManager
from forethought.interfaces.web.security import (
    CSRF_FIELD,
    CSRF_HEADER,
    SAFE_METHODS,
    SESSION_COOKIE,
    TOKEN_COOKIE,
    Guard,
)
from forethought.runs.review import InterruptedStepsReview

HERE = Path(__file__).parent
STATUSES = ("running", "awaiting_approval", "paused", "succeeded", "failed", "cancelled")
# How often a live stream re-reads the store when nothing in this process said anything changed
# (a run driven by another process, e.g. `forethought run` in a terminal).
POLL_S = 1.0


@dataclass
class UiOptions:
    models: tuple[str, ...] = ()  # suggestions for the new-run form
    default_model: str = ""


def create_app(manager: RunManager, guard: Guard, options: UiOptions | None = None) -> Starlette:
    opts = options or UiOptions()
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]), auto_reload=False
    )
    env.filters["secs"] = lambda v: "" if v is None else f"{v:.2f}s"
    env.filters["usd"] = lambda v: f"${v:.4f}"
    closing = asyncio.Event()
    streams = StreamCount()

    def page(request: Request, name: str, status_code: int = 200, **ctx: Any) -> HTMLResponse:
        ctx.setdefault("statuses", STATUSES)
        html = env.get_template(name).render(request=request, csrf=request.state.csrf, **ctx)
        return HTMLResponse(html, status_code=status_code)

    def problem(request: Request, message: str, status_code: int = 400) -> HTMLResponse:
        return page(request, "error.html", status_code, message=views.clean_text(message))

    # ------------------------------------------------------------------ guards

    class Access(BaseHTTPMiddleware):
        async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
            if not guard.host_ok(request.headers.get("host")):
                return PlainTextResponse(
                    "forethought ui: this server answers only to a loopback address (127.0.0.1, "
                    "localhost); serve it with --host and --token to reach it by another name",
                    status_code=421,
                )
            query_token = request.query_params.get("token")
            presented = guard.presented_token(
                request.headers.get("authorization"), request.cookies.get(TOKEN_COOKIE), query_token
            )
            if not guard.token_ok(presented):
                return PlainTextResponse(
                    "forethought ui: this server needs its access token: open /?token=TOKEN once, "
                    "or send Authorization: Bearer TOKEN",
                    status_code=401,
                )
            session = request.cookies.get(SESSION_COOKIE)
            fresh = session is None
            if session is None:
                session = guard.new_session()
            request.state.session = session
            request.state.csrf = guard.csrf_for(session)
            if query_token and request.method in SAFE_METHODS:
                # Move the token from the address bar into a cookie, and out of the history.
                response: Response = RedirectResponse(request.url.remove_query_params("token"), 303)
                response.set_cookie(TOKEN_COOKIE, query_token, httponly=True, samesite="strict")
            else:
                response = await call_next(request)
            if fresh:
                response.set_cookie(SESSION_COOKIE, session, httponly=True, samesite="strict")
            response.headers.setdefault("X-Frame-Options", "DENY")
            response.headers.setdefault("Referrer-Policy", "same-origin")
            response.headers.setdefault(
                "Content-Security-Policy",
                "default-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
            )
            return response

    async def _form(request: Request) -> FormData:
        """The form of a state-changing request, after the CSRF checks (raises ``Refused``)."""
        if not guard.same_origin(
            request.headers.get("origin"), request.headers.get("referer"), request.headers.get("host")
        ):
            raise Refused("cross-origin request refused: state changes must come from this UI's own pages")
        form = await request.form()
        presented = request.headers.get(CSRF_HEADER) or form.get(CSRF_FIELD)
        session = request.cookies.get(SESSION_COOKIE)
        if not guard.csrf_ok(session, presented if isinstance(presented, str) else None):
            raise Refused("missing or wrong CSRF token: reload the page and try again")
        return form

    def action(
        fn: Callable[[Request, FormData], Awaitable[Response]],
    ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                form = await _form(request)
            except Refused as exc:
                return PlainTextResponse(str(exc), status_code=403)
            try:
                return await fn(request, form)
            except UserError as exc:
                return problem(request, str(exc), 409)

        return endpoint

    def run_id_of(request: Request) -> str:
        raw = str(request.path_params["run_id"])
        if manager.driving(raw):  # being planned: recorded once the plan is reviewed
            return raw
        return manager.resolve(raw)

    # ------------------------------------------------------------------ runs list

    def run_filter(request: Request) -> views.RunFilter:
        q = request.query_params
        return views.RunFilter(
            status=q.get("status", ""),
            goal=q.get("goal", ""),
            since=q.get("since", ""),
            until=q.get("until", ""),
        )

    async def runs_page(request: Request) -> Response:
        flt = run_filter(request)
        rows = await asyncio.to_thread(views.runs_rows, manager.store, flt)
        return page(request, "runs.html", rows=rows, flt=flt)

    async def runs_table(request: Request) -> Response:
        rows = await asyncio.to_thread(views.runs_rows, manager.store, run_filter(request))
        return page(request, "_runs_table.html", rows=rows)

    async def runs_stream(request: Request) -> Response:
        async def gen() -> AsyncIterator[str]:
            last, version = None, manager.changes.version
            while not closing.is_set() and not await request.is_disconnected():
                sig = await asyncio.to_thread(views.runs_signature, manager.store)
                if sig != last:
                    last = sig
                    yield "event: runs\ndata: changed\n\n"
                version = await manager.changes.wait(version, POLL_S)

        return _sse(streams.counted(gen()))

    # ------------------------------------------------------------------ one run

    async def run_page(request: Request) -> Response:
        try:
            run_id = run_id_of(request)
        except UserError as exc:
            raw = str(request.path_params["run_id"])
            if raw in manager.notes:  # it failed before anything was recorded (e.g. the model)
                return problem(
                    request, f"run {raw} stopped before it was recorded: {manager.notes[raw]}", 409
                )
            return problem(request, str(exc), 404)
        view = await asyncio.to_thread(views.run_view, manager.store, run_id)
        vers = await asyncio.to_thread(views.versions, manager.store, run_id)
        return page(
            request,
            "run.html",
            view=view,
            run=view.summary,
            versions=vers,
            timeline=views.timeline(view.events),
            note=manager.notes.get(run_id, ""),
            driving=manager.driving(run_id),
        )

    async def run_live(request: Request) -> Response:
        run_id = run_id_of(request)
        view = await asyncio.to_thread(views.run_view, manager.store, run_id)
        return page(
            request,
            "_live.html",
            view=view,
            run=view.summary,
            timeline=views.timeline(view.events),
            note=manager.notes.get(run_id, ""),
            driving=manager.driving(run_id),
        )

    async def run_stream(request: Request) -> Response:
        run_id = run_id_of(request)

        async def gen() -> AsyncIterator[str]:
            last, version = None, manager.changes.version
            while not closing.is_set() and not await request.is_disconnected():
                seq = await asyncio.to_thread(manager.store.last_seq, run_id)
                key = (seq, manager.notes.get(run_id, ""), manager.driving(run_id))
                if key != last:
                    last = key
                    yield f"event: state\ndata: {json.dumps({'seq': seq})}\n\n"
                version = await manager.changes.wait(version, POLL_S)

        return _sse(streams.counted(gen()))

    # ------------------------------------------------------------------ review

    async def review_page(
        request: Request, *, draft: str | None = None, problems: list[str] | None = None, status: int = 200
    ) -> Response:
        try:
            run_id = run_id_of(request)
        except UserError as exc:
            return problem(request, str(exc), 404)
        view = await asyncio.to_thread(views.run_view, manager.store, run_id)
        if view.plan is None:
            return problem(request, f"run {run_id} has no plan yet", 409)
        specs = await manager.specs(run_id)
        from forethought.oversight.approvals import needs_new_approval
        from forethought.plan.files import dump_plan
        from forethought.runs.approval import approval_gate

        gate = approval_gate(view.events, specs, run_id=run_id)
        pending = needs_new_approval(view.plan, gate)
        approved = view.state.plan_hash in view.state.approvals
        interrupted = [
            {"id": sid, "status": st.status, "error": views.clean_text(st.error)}
            for sid, st in view.state.steps.items()
            if st.status in ("needs_review", "failed")
        ]
        return page(
            request,
            "review.html",
            status,
            view=view,
            run=view.summary,
            rows=views.review_rows(view.plan, specs, pending, view.state),
            findings=views.coverage_findings(view.plan, view.state.goal, specs),
            pending=pending,
            approved=approved,
            waiting=view.state.status in WAITING,
            finished=view.state.status in FINISHED_RUN_STATUSES,
            interrupted=interrupted,
            draft=draft if draft is not None else views.clean_text(dump_plan(view.plan)),
            problems=problems or [],
            note=manager.notes.get(run_id, ""),
            driving=manager.driving(run_id),
        )

    async def review_get(request: Request) -> Response:
        return await review_page(request)

    async def approve(request: Request, form: FormData) -> Response:
        run_id = run_id_of(request)
        await manager.approve(run_id, str(form.get("plan_hash", "")))
        return RedirectResponse(f"/runs/{run_id}", 303)

    async def reject(request: Request, form: FormData) -> Response:
        run_id = run_id_of(request)
        await manager.reject(run_id, str(form.get("note", "")))
        return RedirectResponse(f"/runs/{run_id}", 303)

    async def edit(request: Request, form: FormData) -> Response:
        run_id = run_id_of(request)
        text = str(form.get("plan_yaml", ""))
        problems = await manager.edit(run_id, text)
        if problems:
            return await review_page(request, draft=text, problems=problems, status=422)
        return RedirectResponse(f"/runs/{run_id}/review", 303)

    async def lint(request: Request, form: FormData) -> Response:
        run_id = run_id_of(request)
        _, problems = await manager.lint(run_id, str(form.get("plan_yaml", "")))
        return page(request, "_lint.html", problems=[views.clean_text(p) for p in problems])

    async def review_steps(request: Request, form: FormData) -> Response:
        run_id = run_id_of(request)
        sid, what = str(form.get("step", "")), str(form.get("decision", ""))
        if what == "mark":
            raw = str(form.get("output", "")).strip()
            try:
                output = json.loads(raw) if raw else None
            except json.JSONDecodeError as exc:
                raise UserError(
                    f'step {sid}: the output is not JSON ({exc.msg}); quote text, e.g. "done"'
                ) from None
            review = InterruptedStepsReview(succeeded={sid: output})
        elif what == "retry":
            review = InterruptedStepsReview(retry=(sid,))
        else:
            raise UserError(f"unknown review decision {what!r}: mark or retry")
        await manager.resume(run_id, review)
        return RedirectResponse(f"/runs/{run_id}", 303)

    async def resume(request: Request, form: FormData) -> Response:
        run_id = run_id_of(request)
        await manager.resume(run_id)
        return RedirectResponse(f"/runs/{run_id}", 303)

    async def pause(request: Request, form: FormData) -> Response:
        run_id = run_id_of(request)
        await manager.pause(run_id)
        return RedirectResponse(f"/runs/{run_id}", 303)

    async def cancel(request: Request, form: FormData) -> Response:
        run_id = run_id_of(request)
        await manager.cancel(run_id)
        return RedirectResponse(f"/runs/{run_id}", 303)

    # ------------------------------------------------------------------ new run

    async def new_page(request: Request) -> Response:
        setup = manager.base_setup
        try:
            specs = await manager.tools_of(setup)
            tools_error = ""
        except UserError as exc:
            specs, tools_error = {}, str(exc)
        return page(
            request,
            "new.html",
            models=opts.models,
            default_model=opts.default_model,
            tool_files=list(setup.get("tools", [])),
            builtins=list(setup.get("builtins", [])),
            specs=sorted(specs.values(), key=lambda s: s.name),
            tools_error=views.clean_text(tools_error),
        )

    async def new_run(request: Request, form: FormData) -> Response:
        extra = [line.strip() for line in str(form.get("tools", "")).splitlines() if line.strip()]
        new = NewRun(
            goal=str(form.get("goal", "")),
            model=str(form.get("model", "")).strip() or None,
            tools=(*(str(f) for f in form.getlist("tool_file")), *extra),
            builtins=tuple(str(b) for b in form.getlist("builtin")),
            approve="read_only" if form.get("start_read_only") else "none",
        )
        run_id = await manager.start(new)
        return RedirectResponse(f"/runs/{run_id}", 303)

    routes = [
        Route("/", runs_page),
        Route("/runs/table", runs_table),
        Route("/runs/stream", runs_stream),
        Route("/new", new_page),
        Route("/new", action(new_run), methods=["POST"]),
        Route("/runs/{run_id}", run_page),
        Route("/runs/{run_id}/live", run_live),
        Route("/runs/{run_id}/stream", run_stream),
        Route("/runs/{run_id}/review", review_get),
        Route("/runs/{run_id}/approve", action(approve), methods=["POST"]),
        Route("/runs/{run_id}/reject", action(reject), methods=["POST"]),
        Route("/runs/{run_id}/edit", action(edit), methods=["POST"]),
        Route("/runs/{run_id}/lint", action(lint), methods=["POST"]),
        Route("/runs/{run_id}/review-steps", action(review_steps), methods=["POST"]),
        Route("/runs/{run_id}/resume", action(resume), methods=["POST"]),
        Route("/runs/{run_id}/pause", action(pause), methods=["POST"]),
        Route("/runs/{run_id}/cancel", action(cancel), methods=["POST"]),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:  # end the live streams, then the runs this server drives (they pause, resumable)
            closing.set()
            await manager.close()

    app = Starlette(routes=routes, middleware=[Middleware(Access)], lifespan=lifespan)
    app.state.manager = manager
    app.state.closing = closing
    app.state.streams = streams
    return app


class Refused(Exception):
    """A state-changing request that fails the CSRF checks."""


class StreamCount:
    """How many live streams are open: each ends within ``POLL_S`` of its page closing."""

    def __init__(self) -> None:
        self.open = 0

    async def counted(self, body: AsyncIterator[str]) -> AsyncIterator[str]:
        self.open += 1
        try:
            async for chunk in body:
                yield chunk
        finally:
            self.open -= 1


def _sse(body: AsyncIterator[str]) -> StreamingResponse:
    return StreamingResponse(
        body, media_type="text/event-stream", headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    )
