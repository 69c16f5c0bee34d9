"""`dicecall edge run --config table.yaml`: the edge process of one table (docs/edge.md).

SIGTERM (systemd stop) and Ctrl-C stop it cleanly: the frame being read is finished and
committed, the publisher stops between two requests, and whatever was not yet acknowledged
stays in the outbox for the next start.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

group = typer.Typer(name="edge", no_args_is_help=True,
                    help="The camera process of one table: read, verify, publish.")


@group.command(epilog="Example: dicecall edge run --config /etc/dicecall/table-3.yaml")
def run(
    config: Annotated[Path, typer.Option("--config", "-c", help="the table's YAML file")],
    check: Annotated[bool, typer.Option(help="validate the file and exit")] = False,
) -> None:
    """Runs until stopped (or a replay ends and the outbox has drained)."""
    import signal
    import threading

    from .config import ConfigError, load_config
    from .health import setup_logging

    try:
        cfg = load_config(config)
    except ConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=2) from exc
    if check:
        typer.echo(f"{config}: ok ({cfg.game}, table {cfg.table_id}, source {cfg.source.kind})")
        return
    setup_logging(cfg.log_json)
    from .runner import EdgeRunner

    try:
        runner = EdgeRunner(cfg)
    except (ConfigError, FileNotFoundError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=2) from exc
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    runner.run(stop)


def register(app: typer.Typer) -> None:
    app.add_typer(group)
