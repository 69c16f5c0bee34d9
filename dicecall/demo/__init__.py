"""`dicecall demo`: the service, three edge processes replaying bundled frames, sample wagers.

The bundles in `data/` are made by `dicecall datasets sequence` (see `data/README.md`).
"""

from __future__ import annotations


def register(app) -> None:
    """Adds the `demo` command (its module imports nothing heavy until it runs)."""
    from .cli import demo

    app.command("demo")(demo)
