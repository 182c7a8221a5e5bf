"""``forethought ui``: serve the web UI (review, approve, watch runs) on this machine."""

from __future__ import annotations

import os

import click

from forethought.interfaces.cli._common import EXIT_OK


@click.command("ui")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True)
@click.option(
    "--token",
    default=None,
    help="Access token every request must carry (required for a non-loopback --host); "
    "default: $FORETHOUGHT_UI_TOKEN.",
)
@click.option("--db", type=click.Path(dir_okay=False), help="Run database file.")
@click.option("--model", help="Default model for runs started from the UI.")
def ui(host: str, port: int, token: str | None, db: str | None, model: str | None) -> int:
    """Serve the web UI: runs, live DAGs, review/edit/approve, new runs.

    Binds 127.0.0.1 by default. Any other address needs --token; open /?token=TOKEN once in
    the browser to use it.
    """
    from forethought.interfaces.config import load_config
    from forethought.interfaces.web.security import check_bind

    token = token or os.environ.get("FORETHOUGHT_UI_TOKEN") or None
    check_bind(host, token)  # before loading anything: the refusal is one line, exit 2
    cfg = load_config({"db": db, "model": model})
    from forethought.interfaces.web.server import serve

    click.echo(f"forethought ui: http://{host}:{port}/" + (" (token required)" if token else ""), err=True)
    serve(cfg, host=host, port=port, token=token)
    return EXIT_OK
