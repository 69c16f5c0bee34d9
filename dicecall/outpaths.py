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
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import typer

try:
    import fcntl
except ImportError:  # not POSIX: staging folders are told stale by their age alone
    fcntl = None

STAGING_PREFIX = ".dicecall-tmp-"
OWNER_FILE = ".dicecall-owner"  # in a staging folder: its process's id, locked while it runs
# An owner file is created, then locked: one not locked yet is only this young.
OWNER_GRACE_S = 60.0
# A staging folder with no lock to ask (made before locks were, or on a file system without
# them) is stale when nothing in it changed for this long: no export or quantize runs a day.
STALE_AFTER_S = 24 * 3600.0


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
    folder made for it, so a failed command leaves `folder` as it was.

    A kill -9 leaves the temporary folder, `.dicecall-tmp-*`, and nothing under the real
    names; the next staging in `folder` removes it (`remove_stale`), said on stderr. Each
    holds a lock on its owner file while it exists, so one of a running command, this
    process's included, is never taken for stale."""
    made = [p for p in (folder, *folder.parents) if not p.exists()]
    folder.mkdir(parents=True, exist_ok=True)
    removed = remove_stale(folder)
    if removed:
        print(f"removed {len(removed)} stale staging folder{'s' * (len(removed) > 1)} "
              f"in {folder} (left by an export or quantize that did not finish): "
              + ", ".join(removed), file=sys.stderr)
    tmp = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=folder))
    owner = _own(tmp)
    try:
        yield tmp
    except BaseException:
        _remove(tmp, owner)
        for p in made:  # deepest first; one someone else filled meanwhile stays
            try:
                p.rmdir()
            except OSError:
                break
        raise
    _remove(tmp, owner)


def _own(tmp: Path) -> int | None:
    """Writes and locks the staging folder's owner file; the open descriptor holding the
    lock (the kernel drops it when the process dies, kill -9 included), or None."""
    try:
        fd = os.open(tmp / OWNER_FILE, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError:
        return None
    os.write(fd, f"{os.getpid()}\n".encode())
    if fcntl is not None:
        # Blocking: another command's remove_stale may hold it for an instant. Without
        # locks here (some network file systems) the age rule alone applies.
        with suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def _remove(tmp: Path, owner: int | None) -> None:
    shutil.rmtree(tmp, ignore_errors=True)
    if owner is not None:
        os.close(owner)  # the lock is held until the folder is gone


def _owner_gone(tmp: Path) -> str | None:
    """Why `tmp`'s command is known to be gone ("process 4242 gone"), "running" when its
    lock is held, or None when it cannot be told (no owner file, no lock to ask)."""
    path = tmp / OWNER_FILE
    if fcntl is None:
        return None
    try:
        fd = os.open(path, os.O_RDWR)  # for writing: NFS emulates flock with write locks
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return "running"
        except OSError:
            return None
        fcntl.flock(fd, fcntl.LOCK_UN)
        if time.time() - os.fstat(fd).st_mtime < OWNER_GRACE_S:
            return "running"  # maybe made this instant and not locked yet
        pid = os.pread(fd, 32, 0).decode(errors="replace").strip()
        return f"process {pid} gone" if pid.isdigit() else "its process gone"
    finally:
        os.close(fd)


def _untouched_s(tmp: Path) -> float:
    """Seconds since anything in `tmp` (itself included) last changed."""
    newest = tmp.lstat().st_mtime
    for root, dirs, files in os.walk(tmp):
        for name in dirs + files:
            with suppress(OSError):  # removed meanwhile
                newest = max(newest, os.lstat(os.path.join(root, name)).st_mtime)
    return time.time() - newest


def remove_stale(folder: Path) -> list[str]:
    """Removes the staging folders in `folder` whose command is gone: its lock is free
    (the process ended, kill -9 included), or, with no lock to ask, nothing in it changed
    for STALE_AFTER_S. A folder whose lock is held is kept whatever its age. Returns each
    removed one's name and why."""
    removed = []
    for entry in sorted(folder.glob(f"{STAGING_PREFIX}*")):
        if entry.is_symlink() or not entry.is_dir():
            continue
        why = _owner_gone(entry)
        if why == "running":
            continue
        if why is None:
            age = _untouched_s(entry)
            if age < STALE_AFTER_S:
                continue
            why = f"untouched for {age / 3600:.0f} h"
        shutil.rmtree(entry, ignore_errors=True)
        if not entry.exists():
            removed.append(f"{entry.name} ({why})")
    return removed


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
