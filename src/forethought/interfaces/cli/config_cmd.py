"""`forethought config`: the effective configuration and where each value came from."""

from __future__ import annotations

import click

from forethought.interfaces.cli._common import EXIT_OK, json_option, print_json
from forethought.interfaces.config import find_project_file, load_config, user_config_path


@click.command("config")
@json_option
def config(as_json: bool) -> int:
    """Show the effective configuration (flags > env > forethought.toml > user config > defaults)."""
    cfg = load_config()
    rows = cfg.describe()
    if as_json:
        print_json({key: {"value": value, "source": source} for key, value, source in rows})
        return EXIT_OK
    width = max(len(k) for k, _, _ in rows)
    for key, value, source in rows:
        click.echo(f"{key:<{width}}  {value}  [{source}]")
    project = find_project_file()
    click.echo(f"\nproject file: {project or '(none found)'}; user file: {user_config_path()}")
    return EXIT_OK
