"""The wager catalog of a game: name, params, odds, section, exact house edge.

Computing it enumerates dice outcomes through the engine (seconds for Craps), so each
(game, options) catalog is computed once per process and cached.
"""

from __future__ import annotations

import json
import threading
from functools import lru_cache
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from starlette.concurrency import run_in_threadpool

from ..deps import DbDep
from ..errors import ApiError
from ..games import serialize
from ..games.catalog import catalog as build_catalog
from ..schemas.common import Out, errors
from ..schemas.tables import GameName
from ..services.state import load_state, read_table
from .tables import Reader

router = APIRouter(tags=["catalog"])
_lock = threading.Lock()


class CatalogEntry(Out):
    name: str
    params: dict[str, Any]
    title: str
    odds: str
    section: str
    house_edge: float
    house_edge_exact: str
    notes: str | None = None


@lru_cache(maxsize=64)
def _cached(game: str, options_key: str) -> tuple[dict, ...]:
    options = serialize.options_from_json(game, json.loads(options_key))
    return tuple(build_catalog(game, options))


def catalog_for(game: str, options: dict[str, Any]) -> list[dict]:
    key = json.dumps(options, sort_keys=True)
    with _lock:  # one computation at a time: two would only burn the same CPU twice
        return list(_cached(game, key))


def _for_table(db, game: str, table_id: str | None) -> list[dict]:
    options: dict[str, Any] = {}
    if table_id is not None:
        with db.read() as session:
            table = read_table(session, table_id)
            if table.game != game:
                raise ApiError(422, "wrong_game", f"table {table_id} plays {table.game}")
            options = serialize.options_to_json(load_state(table).options)
    return catalog_for(game, options)


@router.get("/catalog/{game}", response_model=list[CatalogEntry],
            responses=errors(401, 403, 404, 422))
async def catalog(game: Annotated[GameName, Path()], db: DbDep, _: Reader,
                  table: Annotated[str | None, Query(max_length=64, description="Use this "
                                                     "table's house options.")] = None
                  ) -> list[dict]:
    """Every wager the game (or the given table) accepts, in the regulation's order."""
    return await run_in_threadpool(_for_table, db, game, table)
