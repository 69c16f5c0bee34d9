"""The `dicecall demo` command: the README's first command, the main job."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def demo(
    speed: Annotated[float, typer.Option(min=0.5, max=20.0,
                                         help="Replay speed, times real time")] = 4.0,
    port: Annotated[int | None, typer.Option(min=1, max=65535,
                                             help="Service port (default: a free one)")] = None,
    keep_running: Annotated[bool, typer.Option(
        "--keep-running", help="Leave the service up after the summary (Ctrl-C stops it)")]
        = False,
    workdir: Annotated[Path | None, typer.Option(
        help="Folder for the database, evidence, outboxes and logs (default: a new temp "
             "folder)")] = None,
) -> None:
    """The service on SQLite, three edge readers replaying bundled frames, sample wagers.

    Prints every reading beside the bundle's truth, the service's answer and each settlement
    line as it happens, then a summary and the service's URL. No camera, no network.
    """
    import importlib.util

    missing = [m for m in ("fastapi", "uvicorn", "sqlalchemy", "alembic", "httpx",
                           "prometheus_client") if importlib.util.find_spec(m) is None]
    if missing:
        typer.echo(f"error: dicecall demo runs the service, which needs {', '.join(missing)}: "
                   "pip install -e '.[service]'", err=True)
        raise typer.Exit(2)
    from .run import run_demo
    from .service import ServiceError

    try:
        run_demo(speed=speed, port=port, keep_running=keep_running, workdir=workdir,
                 echo=typer.echo)
    except ServiceError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    except KeyboardInterrupt:
        typer.echo("stopped", err=True)
        raise typer.Exit(130) from None
