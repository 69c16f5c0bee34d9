"""`dicecall edge run --config table.yaml`: the edge process of one table (docs/edge.md);
`dicecall edge requeue` sends the rolls the service refused again.

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
        from .checks import motion_gate_warnings
        from .config import check_debug_output

        try:
            check_debug_output(cfg)  # run would refuse it where the source is built
        except ConfigError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(code=2) from exc

        try:
            warnings = motion_gate_warnings(cfg)
        except (OSError, ValueError) as exc:  # the zones file: run refuses it with the cause
            warnings = [f"zones: cannot read {cfg.zones} for the die size: {exc}"]
        for line in warnings:  # valid, but the table may miss throws: said, not refused
            typer.echo(f"warning: {line}", err=True)
        typer.echo(f"{config}: ok ({cfg.game}, table {cfg.table_id}, source {_source(cfg)})")
        return
    setup_logging(cfg.log_json)
    from .memory import map_large_buffers
    from .runner import EdgeRunner

    map_large_buffers()

    try:
        runner = EdgeRunner(cfg)
    except (ConfigError, FileNotFoundError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=2) from exc
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    runner.run(stop)


@group.command(epilog="Example: dicecall edge requeue --config /etc/dicecall/table-3.yaml "
                      "--seq 41")
def requeue(
    config: Annotated[Path, typer.Option("--config", "-c", help="the table's YAML file")],
    seq: Annotated[list[int] | None, typer.Option(
        help="only this roll (repeatable); default: every rejected roll")] = None,
    list_only: Annotated[bool, typer.Option("--list", help="list them, change nothing")] = False,
) -> None:
    """Sends rolls the service refused again: lists each with the service's answer, then
    makes it pending; a running edge posts it within a second (docs/edge.md)."""
    from .config import ConfigError, load_config
    from .outbox import Outbox

    try:
        cfg = load_config(config)
    except ConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=2) from exc
    if not cfg.outbox.path.is_file():  # opening it would create an empty one
        typer.echo(f"error: no outbox at {cfg.outbox.path}", err=True)
        raise typer.Exit(code=2)
    box = Outbox(cfg.outbox.path, cfg.outbox.max_bytes, cfg.outbox.alarm_fraction)
    try:
        rows = [r for r in box.rejected() if seq is None or r[0] in seq]
        for n, roll_id, answer in rows:
            typer.echo(f"seq {n} roll {roll_id}: {answer}")
        if list_only:
            typer.echo(f"{len(rows)} rejected")
            return
        moved = box.requeue(seq) if rows else 0
        typer.echo(f"{moved} requeued")
    finally:
        box.close()


def _source(cfg) -> str:
    """The source's kind, and an OpenCV source's URI without its password or tokens, so the
    check shows which camera without putting the password on a terminal (edge/redact.py)."""
    if cfg.source.kind != "opencv":
        return cfg.source.kind
    from .redact import redact_uri

    return f"opencv {redact_uri(cfg.source.uri)}"


def register(app: typer.Typer) -> None:
    app.add_typer(group)
