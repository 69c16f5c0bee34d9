"""Checks of the files and folders a command is to write, as Typer option callbacks.

A path under a regular file, or in a folder nobody may write to, used to surface as a
traceback once the work was done (or half written); these refuse it as a bad parameter
(exit 2, one line naming the option) before the command starts, and create nothing.
`staging` and `replace_together` write a command's files so that a failure partway leaves
the old ones as they were.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
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


@contextmanager
def staging(folder: Path) -> Iterator[Path]:
    """A fresh temporary folder inside `folder` (made, parents too, if need be) for files
    that are to replace others there only once all are written: on the same file system, so
    `os.replace` out of it is a rename that cannot leave half a file. On leaving, it is
    removed with whatever is still in it; on a failure (an exception, Ctrl-C), so is each
    folder made for it, so a failed command leaves `folder` as it was. (A kill -9 leaves the
    temporary folder, `.dicecall-tmp-*`, and nothing under the real names.)"""
    made = [p for p in (folder, *folder.parents) if not p.exists()]
    folder.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".dicecall-tmp-", dir=folder))
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        for p in made:  # deepest first; one someone else filled meanwhile stays
            try:
                p.rmdir()
            except OSError:
                break
        raise
    shutil.rmtree(tmp, ignore_errors=True)


def replace_together(moves: list[tuple[Path, Path]], spare: Path) -> None:
    """Moves each staged file onto its target (`os.replace`, same file system). The files
    they replace wait in `spare` until every move is done; if one fails, the moves already
    made are undone and the old files put back, so the targets are all new or all old."""
    kept: list[tuple[Path, Path]] = []  # (old file in spare, its target)
    placed: list[Path] = []
    try:
        for i, (staged, target) in enumerate(moves):
            if target.exists():
                old = spare / f"old-{i}-{target.name}"
                os.replace(target, old)
                kept.append((old, target))
            os.replace(staged, target)
            placed.append(target)
    except BaseException:
        for target in placed:
            target.unlink(missing_ok=True)
        for old, target in kept:
            os.replace(old, target)
        raise
