"""The service's start-up and shut-down, as `dicecall serve` runs them."""

from __future__ import annotations

import gc

from .conftest import make_settings


def test_startup_objects_leave_the_collector_and_come_back_at_shutdown(sqlite_url, tmp_path):
    """Start-up objects are frozen out of the cyclic collector (full collections stay short,
    which is the intake's p99), and unfrozen at shut-down so a process that builds many apps
    (the tests, a reload) can still collect them."""
    from fastapi.testclient import TestClient

    from dicecall.api.app import create_app

    gc.unfreeze()
    with TestClient(create_app(make_settings(sqlite_url, tmp_path))) as client:
        assert gc.get_freeze_count() > 0
        assert client.get("/healthz").status_code == 200
    assert gc.get_freeze_count() == 0
