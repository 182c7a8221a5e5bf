"""``forethought ui``: the web UI — review, edit and approve plans, watch runs live, browse history.

Starlette pages rendered on the server (Jinja2), htmx (vendored under ``static/``, see NOTICE) for
fragments, Server-Sent Events for live updates; every asset ships in the package, so it works
offline. The interfaces layer: it uses the agent and the runs/plan APIs; nothing below imports it.
"""

from __future__ import annotations

__all__ = ["create_app"]


def __getattr__(name: str) -> object:
    # Starlette and Jinja2 are the `web` extra: import them only when the app is asked for.
    if name == "create_app":
        from forethought.interfaces.web.app import create_app

        return create_app
    raise AttributeError(name)
