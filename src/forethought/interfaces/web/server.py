"""Serve the UI with uvicorn: one process, one event loop that also drives the runs started here."""

from __future__ import annotations

from typing import Any

from forethought.interfaces.web.security import Guard, check_bind


def build(cfg: Any, *, token: str | None) -> Any:
    """The app for the effective configuration ``cfg`` (its database, tools, models)."""
    from forethought.interfaces.session import tool_setup
    from forethought.interfaces.web.app import UiOptions, create_app
    from forethought.interfaces.web.runner import RunManager, config_opener
    from forethought.runs.store.sqlite import open_store

    store = open_store(cfg.db)
    manager = RunManager(store=store, open_agent=config_opener(cfg), base_setup=tool_setup(cfg, ()))
    options = UiOptions(
        models=("local", "ollama:qwen2.5:7b", "openai:gpt-4o-mini", "anthropic:claude-sonnet-4-5"),
        default_model=cfg.model or "",
    )
    return create_app(manager, Guard(token=token), options)


def import_extra_module(module: str) -> None:
    """The web extra's other libraries: a missing one is the extra's one-line error too."""
    import importlib

    from forethought._extras import missing_extra

    try:
        importlib.import_module(module)
    except ImportError:
        raise missing_extra("forethought ui", "web", detail=f" ({module} is missing)") from None


def serve(cfg: Any, *, host: str, port: int, token: str | None) -> None:
    check_bind(host, token)
    from forethought._extras import import_extra

    uvicorn = import_extra("web", "forethought ui")
    for module in ("starlette", "jinja2", "multipart"):
        import_extra_module(module)
    app = build(cfg, token=token)
    uvicorn.run(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=3)
