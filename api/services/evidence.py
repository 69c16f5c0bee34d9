"""Evidence JPEGs posted with a roll: checked against their sha256 and stored by it.

Files are content-addressed (evidence_dir/ab/abcdef....jpg) and written atomically before
the roll's transaction, so a retry or a crash leaves at most an unreferenced identical file.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import uuid
from pathlib import Path

from ..errors import ApiError


def _decode(b64: str, max_bytes: int, which: str) -> bytes:
    if len(b64) * 3 // 4 > max_bytes + 3:
        raise ApiError(413, "evidence_too_large", f"{which} JPEG is larger than "
                       f"{max_bytes} bytes")
    try:
        data = base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError):
        raise ApiError(422, "bad_evidence", f"{which} JPEG is not valid base64") from None
    if len(data) > max_bytes:
        raise ApiError(413, "evidence_too_large", f"{which} JPEG is larger than "
                       f"{max_bytes} bytes")
    if not data.startswith(b"\xff\xd8"):
        raise ApiError(422, "bad_evidence", f"{which} frame is not a JPEG")
    return data


def path_for(root: Path, digest: str) -> Path:
    return root / digest[:2] / f"{digest}.jpg"


def store(root: Path, b64: str | None, digest: str, max_bytes: int, which: str) -> bool:
    """Verifies and stores one JPEG; returns whether one was given."""
    if b64 is None:
        return False
    data = _decode(b64, max_bytes, which)
    if hashlib.sha256(data).hexdigest() != digest:
        raise ApiError(422, "evidence_hash_mismatch", f"the {which} JPEG does not hash to "
                       f"{which}_sha256")
    target = path_for(root, digest)
    if target.exists():
        return True
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".{uuid.uuid4().hex}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, target)
    return True
