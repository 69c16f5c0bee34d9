"""The `dicecall` command.

Each capability registers its own Typer group from its subpackage's `cli.py`. Those
modules import their heavy dependencies (onnxruntime, pybullet, torch, FastAPI) inside the
command functions, so `dicecall --help` stays fast and the edge never loads training code.
"""

from __future__ import annotations

import typer

from dicecall.api.games.cli import register as register_games

app = typer.Typer(
    name="dicecall",
    help="Camera dice reader and roll verifier for Craps, Props & Hops and High Roll Dice.",
    no_args_is_help=True,
    add_completion=False,
)

register_games(app)


def _register_optional() -> None:
    """Adds the groups of the other subpackages that exist in this checkout."""
    import importlib

    for module in (
        "dicecall.datasets.cli",
        "dicecall.models.cli",
        "dicecall.vision.cli",
        "dicecall.api.cli",
        "dicecall.edge.cli",
        "dicecall.calibration.cli",
        "dicecall.demo",
    ):
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
            continue
        mod.register(app)


_register_optional()


def main() -> None:
    app()
