"""The FastAPI application: `create_app()` wires settings, storage, routes and errors.

The lifespan migrates the database (`alembic upgrade head`), opens the engine and derives
the server key once; tests pass their own settings or override the dependencies in
`deps.py`.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from . import errors
from .db.migrate import upgrade
from .db.session import Database
from .events import Broker
from .fastpath import RollFastPath
from .middleware import BodyLimit, NoSniff
from .routes import console, device, dice_sets, fairness, health, labels, openapi, v1_router
from .settings import Settings, get_settings

log = logging.getLogger("dicecall.api")

DESCRIPTION = """Game-resolution service of dicecall: settles every wager of a table by the
Pennsylvania rules (58 Pa. Code 623a, 668a, 675a) on each roll its edge camera posts,
compares the dealer's call with the camera, and keeps a hash-chained audit trail.

Devices sign requests (X-Dicecall-Device, X-Dicecall-Timestamp, X-Dicecall-Signature:
HMAC-SHA256 over method, path, timestamp and body sha256; see `api/signing.py`). People and
integrations use bearer tokens with a role: integration, surveillance or admin."""


def _open(app: FastAPI, settings: Settings) -> None:
    if settings.migrate_on_start:
        upgrade(settings.database_url)
    app.state.db = Database(settings.database_url, settings.db_pool_size,
                            settings.sqlite_synchronous)
    settings.evidence_dir.mkdir(parents=True, exist_ok=True)


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    settings: Settings = app.state.settings
    owned = getattr(app.state, "db", None) is None
    if owned:
        _open(app, settings)
    if getattr(app.state, "server_key", None) is None:
        app.state.server_key = settings.server_key()
    log.info("dicecall service ready (%s)", app.state.db.engine.url.render_as_string())
    # What start-up built (routes, models, the ORM registry) lives as long as the process:
    # moving it out of the collector's generations keeps each full collection short, which
    # is what the tail latency of roll intake waits on.
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()  # a test process builds many apps; their objects must stay collectable
        if owned:
            app.state.db.dispose()


def create_app(settings: Settings | None = None, db: Database | None = None) -> FastAPI:
    """Builds the app; `db` lets a test share one Database (its lifespan then skips open)."""
    settings = settings or get_settings()
    app = FastAPI(title="dicecall", version="1.0.0", description=DESCRIPTION,
                  lifespan=lifespan)
    app.state.settings = settings
    app.state.broker = Broker()
    app.state.db = db
    app.state.server_key = None
    app.add_middleware(RollFastPath)  # inside BodyLimit: the limit applies to it too
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)
    app.add_middleware(NoSniff)  # outermost: marks every response, the two above included
    errors.install(app)
    app.include_router(health.router)
    app.include_router(v1_router())
    app.include_router(device.router, prefix="/v1")  # signed device reads (edge)
    app.include_router(console.router)
    app.include_router(labels.router)
    app.include_router(fairness.router)
    app.include_router(dice_sets.router)
    openapi.install(app)
    return app
