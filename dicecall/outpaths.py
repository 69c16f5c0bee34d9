"""Checks of the files and folders a command is to write, as Typer option callbacks.

A path under a regular file, or in a folder nobody may write to, used to surface as a
traceback once the work was done (or half written); these refuse it as a bad parameter
(exit 2, one line naming the option) before the command starts, and create nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

import typer


def _nearest_existing(path: Path) -> Path:
    probe = path.absolute()
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return probe


def writable_dir(path: Path | None) -> Path | None:
    """`path` as a folder to write into: one already, or one that can be made there."""
    if path is None:
        return None
    if path.exists() and not path.is_dir():
        raise typer.BadParameter(f"{path} is a file, not a folder")
    probe = _nearest_existing(path)
    if not probe.is_dir():
        raise typer.BadParameter(f"cannot create {path}: {probe} is a file, not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise typer.BadParameter(f"cannot write to {path}: {probe} is not writable")
    return path


def writable_file(path: Path | None) -> Path | None:
    """`path` as a file to write: not a folder, and in a folder that is or can be made."""
    if path is None:
        return None
    if path.is_dir():
        raise typer.BadParameter(f"{path} is a folder, not a file")
    try:
        writable_dir(path.parent)
    except typer.BadParameter as exc:
        raise typer.BadParameter(f"cannot write {path}: {exc.message}") from None
    return path
