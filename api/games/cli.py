"""`dicecall wagers` (the catalog) and `dicecall shift` (a scripted sample shift of the engine).

`dicecall demo` (the edge and service end to end) lives in `dicecall/demo/`.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

GAMES = ("craps", "mini-craps", "props-and-hops", "high-roll-dice", "high-roll-dice-6")


def wagers(
    game: Annotated[str, typer.Option(help="One of: " + ", ".join(GAMES))] = "craps",
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list")] = False,
) -> None:
    """List every wager of a game: name, params, pay odds, section, exact house edge."""
    from .catalog import catalog

    if game not in GAMES:
        raise typer.BadParameter(f"unknown game {game!r}; choose from {', '.join(GAMES)}")
    entries = catalog(game)
    if as_json:
        typer.echo(json.dumps(entries, indent=1))
        return
    typer.echo(f"{'wager':<20}{'params':<20}{'house edge':>11}  {'section':<28}odds")
    for e in entries:
        params = ",".join(f"{k}={v}" for k, v in e["params"].items())
        typer.echo(f"{e['name']:<20}{params:<20}{e['house_edge'] * 100:>10.3f}%  "
                   f"{e['section'][:27]:<28}{e['odds']}")


def shift(
    game: Annotated[list[str] | None, typer.Option(help="Games to run (repeatable)")] = None,
    rolls: Annotated[int, typer.Option(min=1, max=100_000)] = 12,
    seed: Annotated[int, typer.Option()] = 7,
) -> None:
    """Run a seeded sample shift through the engine and print every settlement."""
    from .report import print_shift

    print_shift(game or ["craps", "props-and-hops", "high-roll-dice"], rolls, seed, typer.echo)


def register(app: typer.Typer) -> None:
    app.command("wagers")(wagers)
    app.command("shift")(shift)
