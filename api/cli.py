"""`dicecall serve`, `dicecall admin ...` and `dicecall audit verify`.

Registered by dicecall/cli.py. FastAPI, SQLAlchemy and uvicorn are imported inside the
commands so `dicecall --help` stays fast and the edge never loads them.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Annotated

import typer

from dicecall.outpaths import writable_dir

admin = typer.Typer(help="Create tables, devices, tokens (prints secrets once), dice sets.",
                    no_args_is_help=True)
audit_app = typer.Typer(help="The tamper-evident audit trail.", no_args_is_help=True)


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def _settings():
    """The service's settings; an unknown DICECALL_* variable or a bad value is `error: ...`
    and exit 2, before anything is opened or created."""
    from pydantic import ValidationError

    from .settings import UnknownSetting, get_settings

    try:
        return get_settings()
    except UnknownSetting as exc:
        raise _fail(str(exc)) from None
    except ValidationError as exc:
        raise _fail(f"settings (DICECALL_*): {exc}") from None


def _db():
    """Settings and the migrated database; a bad setting or an unreachable or unparsable
    database URL is `error: ...` and exit 2, not a traceback."""
    from sqlalchemy.exc import ArgumentError, OperationalError

    from .db.migrate import upgrade
    from .db.session import Database

    settings = _settings()
    try:
        upgrade(settings.database_url)
        return settings, Database(settings.database_url, 2, settings.sqlite_synchronous)
    except (ArgumentError, OperationalError) as exc:
        # The URL itself is not echoed: it may hold a password.
        raise _fail(f"database (DICECALL_DATABASE_URL): "
                    f"{getattr(exc, 'orig', None) or exc}") from None


def _files(settings) -> None:
    """Creates the evidence folder and the server key before the workers start: a path
    under a regular file, or one not writable, is `error: ...` and exit 2 here, not a
    traceback from every worker's start-up."""
    try:
        settings.evidence_dir.mkdir(parents=True, exist_ok=True)
        if not os.access(settings.evidence_dir, os.W_OK | os.X_OK):
            raise PermissionError(13, "Permission denied", str(settings.evidence_dir))
    except OSError as exc:
        raise _fail(f"evidence folder (DICECALL_EVIDENCE_DIR) {settings.evidence_dir}: "
                    f"{exc.strerror}") from None
    try:
        settings.server_key()
    except OSError as exc:
        raise _fail(f"key file (DICECALL_KEY_FILE) {settings.key_file}: "
                    f"{exc.strerror}") from None
    except ValueError as exc:  # a key file holding no key
        raise _fail(str(exc)) from None


def serve(
    host: Annotated[str, typer.Option(help="Address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535)] = 8000,
    workers: Annotated[int, typer.Option(min=1, max=32, help="Processes.")] = 1,
    log_level: Annotated[str, typer.Option()] = "warning",
) -> None:
    """Run the game-resolution service (migrates the database to head first)."""
    import uvicorn

    from .settings import get_settings

    settings, db = _db()  # migrated once here, so workers do not race to migrate
    db.dispose()
    _files(settings)  # the key file created once, before the workers start
    # Spawned workers read their settings from the environment, the one in this process
    # from get_settings; both are put back after, or every later app in this process (a
    # test's) would skip migrating.
    before = os.environ.get("DICECALL_MIGRATE_ON_START")
    os.environ["DICECALL_MIGRATE_ON_START"] = "false"
    get_settings.cache_clear()
    try:
        uvicorn.run("dicecall.api.app:create_app", factory=True, host=host, port=port,
                    workers=workers, log_level=log_level, access_log=False)
    finally:
        if before is None:
            os.environ.pop("DICECALL_MIGRATE_ON_START", None)
        else:
            os.environ["DICECALL_MIGRATE_ON_START"] = before
        get_settings.cache_clear()


@admin.command("table")
def create_table(
    game: Annotated[str, typer.Argument(help="craps, mini-craps, props-and-hops, "
                                             "high-roll-dice, high-roll-dice-6")],
    name: Annotated[str, typer.Option()] = "",
    options: Annotated[str, typer.Option(help="House options as JSON.")] = "{}",
) -> None:
    """Create a table and print it as JSON."""
    from .errors import ApiError
    from .services.tables import create_table as create

    try:
        house = json.loads(options)
    except json.JSONDecodeError as exc:
        raise _fail(f"--options is not JSON: {exc}") from None
    _, db = _db()
    try:
        typer.echo(json.dumps(create(db, game, name, house), indent=1))
    except ApiError as exc:
        raise _fail(exc.message) from None


@admin.command("device")
def create_device(
    table_id: Annotated[str, typer.Argument(help="The table the device reads.")],
    name: Annotated[str, typer.Option()] = "edge",
) -> None:
    """Bind an edge device to a table; its secret is printed this once."""
    from .errors import ApiError
    from .services.tables import create_device as create

    settings, db = _db()
    try:
        typer.echo(json.dumps(create(db, settings.server_key(), table_id, name), indent=1))
    except (ApiError, ValueError) as exc:
        raise _fail(getattr(exc, "message", str(exc))) from None


@admin.command("token")
def create_token(
    name: Annotated[str, typer.Argument()],
    role: Annotated[str, typer.Option(help="integration, surveillance, labeler or admin")] =
        "integration",
) -> None:
    """Create a bearer token with a role; the token is printed this once."""
    from .errors import ApiError
    from .services.tables import create_token as create

    _, db = _db()
    try:
        typer.echo(json.dumps(create(db, name, role), indent=1))
    except ApiError as exc:
        raise _fail(exc.message) from None


def _who(by: str) -> str:
    import getpass

    return by or f"cli:{getpass.getuser()}"


@admin.command("dice-set")
def put_dice_in_service(
    table_id: Annotated[str, typer.Argument(help="The table the dice go to.")],
    label: Annotated[str, typer.Argument(help="e.g. the serial numbers on the dice.")],
    by: Annotated[str, typer.Option(help="Who did it (default cli:USER).")] = "",
) -> None:
    """Put a new dice set in service on a table (603a.13), retiring the one in play."""
    from .errors import ApiError
    from .services.dice_sets import put_in_service

    _, db = _db()
    try:
        out = put_in_service(db, table_id, label, _who(by))
    except ApiError as exc:
        typer.echo(f"refused: {exc.message}", err=True)
        raise typer.Exit(1) from None
    typer.echo(json.dumps(out, indent=1))


@admin.command("dice-sets")
def list_dice_sets(table_id: Annotated[str, typer.Argument()]) -> None:
    """List a table's dice sets, the one in service first."""
    from .errors import ApiError
    from .services.dice_sets import list_sets

    _, db = _db()
    try:
        typer.echo(json.dumps(list_sets(db, table_id), indent=1))
    except ApiError as exc:
        typer.echo(f"refused: {exc.message}", err=True)
        raise typer.Exit(1) from None


@admin.command("export-labels")
def export_labels(
    out: Annotated[Path, typer.Argument(help="Folder to write (images/, labels/, "
                                             "annotations.json)", callback=writable_dir)],
) -> None:
    """Write the console's labelled frames as YOLO + COCO (for evaluate, calibrate model)."""
    from .console.export import collect, write_folder

    settings, db = _db()
    try:
        n = write_folder(collect(db, settings.evidence_dir), out)
    except OSError as exc:  # what the check before cannot see: a full disk, /proc
        raise _fail(f"export-labels {out}: {exc.strerror} ({exc.filename})") from None
    typer.echo(f"{n} labelled frames -> {out}")


def _head_hash(value: str | None) -> str | None:
    if value is not None and not re.fullmatch(r"[0-9a-f]{64}", value.lower()):
        raise typer.BadParameter("a chain head is the 64 hex digits of its sha256, as "
                                 "verify prints it")
    return value.lower() if value else None


@audit_app.command("verify")
def verify(
    expect_head: Annotated[str | None, typer.Option(
        callback=_head_hash, metavar="HASH",
        help="A head printed by an earlier verify and recorded elsewhere: exit 1 unless "
             "it is still in the chain (the head, or an event the chain grew on from)")] = None,
) -> None:
    """Walk the hash chain; name every edited, inserted or deleted event and every roll,
    settlement or dealer call that no longer matches it; print the head. Exit 1 if any."""
    from .audit import verify as run

    _, db = _db()
    with db.read() as session:
        report = run(session, expect_head=expect_head)
    for problem in report.problems:
        typer.echo(f"TAMPERED: {problem}")
    typer.echo(f"checked {report.checked} events: "
               f"{'chain intact' if report.ok else f'{len(report.problems)} problem(s)'}")
    # Deleting the last events and moving the head back leaves a valid, shorter chain:
    # only a head recorded outside the database (--expect-head next time) reveals that.
    typer.echo(f"chain head: id {report.head_id} sha256 {report.head_hash}")
    if report.expected_id is not None:
        since = report.head_id - report.expected_id
        typer.echo(f"recorded head: event {report.expected_id}, " + (
            f"{since} event(s) appended since" if since else "the chain head"))
    raise typer.Exit(0 if report.ok else 1)


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
    app.add_typer(admin, name="admin")
    app.add_typer(audit_app, name="audit")
