"""One router per resource, all mounted under /v1 (health and metrics at the root)."""

from __future__ import annotations

from fastapi import APIRouter

from . import catalog, dealer_calls, devices, events, revoke, rolls, rounds, tables, tokens, wagers


def v1_router() -> APIRouter:
    router = APIRouter(prefix="/v1")
    for module in (tables, devices, tokens, revoke, rounds, wagers, rolls, dealer_calls,
                   catalog, events):
        router.include_router(module.router)
    return router
