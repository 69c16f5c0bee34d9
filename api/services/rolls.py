"""Roll intake: exactly-once effect for rolls delivered at least once.

The roll's `roll_id` is the primary key of `rolls`. Rolls are applied in batches (group
commit, see intake_writer.py): one transaction locks the batch's table rows, applies each roll
in arrival order exactly as it would alone, and commits once; nobody is answered before that
commit. A roll refused by a check (404, 403, 409) gets its error and leaves the others alone.
A concurrent duplicate either finds the stored roll after the locks are released, or (posted
to another process) hits the primary key: the batch rolls back and each of its rolls is
applied alone, the duplicate then answering with the original response. A different body
under a known roll_id is a 409. Counters (metrics.Tally) are made after the commit too, by
the attempt that stored the rolls: a batch redone counts each roll once, a failed one nothing.
"""

from __future__ import annotations

import hashlib
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any

from psycopg import IntegrityError as PgIntegrityError
from sqlalchemy import Connection
from sqlalchemy.exc import IntegrityError

from .. import audit
from ..db.session import Database
from ..errors import ApiError
from ..schemas.rolls import RollIn
from ..security import AuthError
from ..settings import Settings
from . import evidence
from .rolls_batch import _SELECT_ROLLS, Batch, Intake, Record, _replay
from .rolls_pg import StaleHead, explicit
from .state import remember

__all__ = ["Batch", "Intake", "Posted", "RollIn", "apply_batch", "intake", "prepare"]


def body_hash(roll: RollIn) -> str:
    body = roll.model_dump(mode="json")
    # A reason's `status` came later: a reason without one hashes as it did before, so a
    # roll stored by an older service is still its own replay, not a 409.
    body["reasons"] = [{k: v for k, v in r.items() if k != "status" or v is not None}
                       for r in body["reasons"]]
    return hashlib.sha256(audit.canonical(body).encode()).hexdigest()


@dataclass
class Posted:
    """A verified roll ready to apply: who posted it for which table, and its body's hash."""

    device_id: str
    table_id: str
    roll: RollIn
    digest: str
    stored: list[bool]  # whether each evidence JPEG was given (and stored)


def prepare(settings: Settings, device_id: str, table_id: str, roll: RollIn) -> Posted:
    """Hashes the body and stores its evidence JPEGs (before, and outside, the transaction)."""
    ev = roll.evidence
    stored = [evidence.store(settings.evidence_dir, b64, sha, settings.max_jpeg_bytes, which)
              for b64, sha, which in ((ev.clean_jpeg_b64, ev.clean_sha256, "clean"),
                                      (ev.annotated_jpeg_b64, ev.annotated_sha256,
                                       "annotated"))]
    return Posted(device_id, table_id, roll, body_hash(roll), stored)


def intake(db: Database, settings: Settings, device_id: str, table_id: str,
           roll: RollIn) -> Intake:
    """Stores, and where it can settles, one posted roll in its own transaction."""
    result = apply_batch(db, [prepare(settings, device_id, table_id, roll)])[0]
    if isinstance(result, Exception):
        raise result
    return result


def apply_batch(db: Database, posts: list[Posted]) -> list[Intake | ApiError | AuthError]:
    """Applies `posts` in order in one transaction; one result (or refusal) per post.

    Raises:
        Exception: a database failure of a single post (a batch retries its posts alone).
    """
    try:
        with db.write_conn() as conn, (nullcontext() if db.is_sqlite else explicit(conn)):
            batch = Batch(conn, posts)
            results = [batch.apply(p) for p in posts]
            batch.flush()  # on PostgreSQL this commits; the `with` then has nothing to do
    except StaleHead:  # nothing was written; the head is read this time (not remembered)
        return apply_batch(db, posts)
    except (IntegrityError, PgIntegrityError):  # the PostgreSQL path raises psycopg's own
        if len(posts) > 1:
            return [_alone(db, p) for p in posts]
        # A duplicate roll_id committed by another process since the batch looked.
        with db.read() as session:
            existing = _stored(session.connection(), posts[0].roll.roll_id)
        if existing is None:
            raise
        return [_replay(existing, posts[0].digest, posts[0].table_id)]
    except Exception:
        if len(posts) > 1:  # e.g. a deadlock with another process: nothing was committed
            return [_alone(db, p) for p in posts]
        raise
    for table_id, state in batch.states.items():
        remember(batch.tables[table_id], state)
    # Only here, after the commit (on SQLite the `with` above made it): every retry above
    # builds a new Batch, so each stored roll is counted by exactly one attempt.
    batch.tally.commit()
    return results


def _alone(db: Database, post: Posted) -> Any:
    try:
        return apply_batch(db, [post])[0]
    except Exception as exc:  # this post's own failure, answered as a 500 to its request
        return exc


def _stored(conn: Connection, roll_id: str) -> Record | None:
    row = conn.execute(_SELECT_ROLLS, {"rids": [roll_id]}).first()
    return None if row is None else Record(**row._mapping)
