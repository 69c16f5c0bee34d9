"""Loading and saving a table's engine state, with a per-process cache of decoded states.

A state is cached under (table id, version) and the version is read from the locked row, so
a state written by another process is never mistaken for the cached one; entries are only
added after their transaction committed (`remember`).
"""

from __future__ import annotations

import time
import uuid
from collections import OrderedDict
from typing import Any

from sqlalchemy.orm import Session

from ..db.models import Table
from ..db.session import Database
from ..errors import ApiError
from ..games import serialize

_CACHE: OrderedDict[str, tuple[int, Any]] = OrderedDict()
_CACHE_SIZE = 4096


def now() -> float:
    return time.time()


def new_id() -> str:
    return str(uuid.uuid4())


def load_state(table: Any) -> Any:
    """The engine state of a (locked or read) table row."""
    hit = _CACHE.get(table.id)
    if hit is not None and hit[0] == table.version:
        return hit[1]
    return serialize.loads(table.state_json)


def save_state(table: Any, state: Any) -> None:
    """Writes `state` into the row and bumps its version (commit is the caller's)."""
    table.state_json = serialize.dumps(table.game, state)
    table.version += 1


def remember(table: Any, state: Any) -> None:
    """Caches the state just committed for the row's current version."""
    _CACHE[table.id] = (table.version, state)
    _CACHE.move_to_end(table.id)
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)


def locked_table(db: Database, session: Session, table_id: str) -> Table:
    table = db.lock_table(session, table_id)
    if table is None:
        raise ApiError(404, "unknown_table", f"no table {table_id!r}")
    return table


def read_table(session: Session, table_id: str) -> Table:
    table = session.get(Table, table_id)
    if table is None:
        raise ApiError(404, "unknown_table", f"no table {table_id!r}")
    return table


def state_summary(state: Any) -> dict[str, Any]:
    """The state's fields besides options and wagers, as JSON data."""
    return {k: v for k, v in state.__dict__.items() if k not in ("options", "wagers")}


def shooter_of(state: Any) -> int | None:
    return getattr(state, "shooter", None)
