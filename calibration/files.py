"""Writing calibration files: checked before the work, replaced whole or not at all.

A calibration file is what the edge loads at start. Written in place, a full disk, a file
size limit or a kill mid-write left the previous good file cut short (the edge then refused
to start), and an `--out` in a folder that does not exist was a traceback after the work.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from . import CalibrationError


def check_writable(path: str | Path, what: str = "--out") -> Path:
    """Refuses, before any work, an output path that cannot be written: its folder missing
    or a file (or under one), or the path itself a folder.

    Raises:
        CalibrationError: naming the option and the path.
    """
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise CalibrationError(f"{what} {p} is a folder; give a file name")
    if not parent.is_dir():
        probe = parent
        while not probe.exists() and probe != probe.parent:
            probe = probe.parent
        if probe.exists() and not probe.is_dir():  # "does not exist" sent people to mkdir
            raise CalibrationError(f"{what} {p}: {probe} is a file, not a folder")
        raise CalibrationError(f"{what} {p}: the folder {parent} does not exist; create it "
                               "first")
    if not os.access(parent, os.W_OK):
        raise CalibrationError(f"{what} {p}: the folder {parent} is not writable")
    return p


def write_atomic(path: str | Path, data: str | bytes) -> None:
    """Writes `data` to a temporary file beside `path`, syncs it and renames it over `path`:
    a reader sees the old file or the new one, never part of one.

    Raises:
        CalibrationError: the write failed (the old file, if any, is left as it was).
    """
    p = Path(path)
    raw = data.encode() if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent or ".")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            # mkstemp makes the file 0600; keep what a plain write gave (the old file's mode,
            # or 0666 less the umask), so an edge running as another user can still read it.
            os.fchmod(f.fileno(), _mode(p))
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise CalibrationError(f"{p}: could not be written ({exc.strerror or exc}); "
                               "the file there before, if any, is unchanged") from exc
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    try:  # the rename itself survives a power cut only once the folder is synced
        dfd = os.open(p.parent or ".", os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


def _mode(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
