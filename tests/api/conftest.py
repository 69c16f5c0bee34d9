"""Fixtures of the service tests: a database per backend, an app, signed device calls.

PostgreSQL tests run when a server answers at DICECALL_TEST_PG (default
postgresql://postgres@127.0.0.1:5432/test); each gets its own database with a random name,
dropped afterwards. Otherwise they are skipped with the reason.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

PG_ADMIN = os.environ.get("DICECALL_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


def _pg_reason() -> str | None:
    try:
        import psycopg
    except ImportError:
        return "psycopg is not installed"
    try:
        psycopg.connect(PG_ADMIN, connect_timeout=2).close()
    except Exception as exc:
        return f"PostgreSQL not reachable at {PG_ADMIN}: {type(exc).__name__}"
    return None


_PG_SKIP = _pg_reason()


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh PostgreSQL database (random name), dropped after the test."""
    if _PG_SKIP:
        pytest.skip(_PG_SKIP)
    import psycopg

    name = f"dicecall_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://", 1)
    try:
        yield f"{base}/{name}"
    finally:
        _drop(psycopg, name)


def _drop(psycopg, name: str, attempts: int = 10) -> None:
    """Drops a test database. FORCE ends its other sessions, but PostgreSQL waits only 5 s
    for them to exit and then refuses (`ObjectInUse`); on a loaded 2-core machine a session
    of the app under test took longer once (session 23's CI), so try again."""
    for attempt in range(attempts):
        try:
            with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            return
        except psycopg.errors.ObjectInUse:
            if attempt == attempts - 1:
                raise
            time.sleep(1.0)


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request, tmp_path: Path) -> str:
    """Both storage backends: a SQLite file, then a PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'dicecall.db'}"
    return request.getfixturevalue("pg_url")


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'dicecall.db'}"


def make_settings(url: str, tmp_path: Path, **overrides):
    from dicecall.api.settings import Settings

    return Settings(database_url=url, secret_key="test-server-key",
                    evidence_dir=tmp_path / "evidence", key_file=tmp_path / "key",
                    sse_poll_s=0.2, **overrides)


class Harness:
    """A TestClient on a fresh app plus helpers that sign device requests."""

    def __init__(self, client, settings) -> None:
        from dicecall.api.services.tables import create_token

        self.client = client
        self.settings = settings
        self.db = client.app.state.db
        self.tokens = {role: create_token(self.db, role, role)["token"]
                       for role in ("admin", "integration", "surveillance")}

    def auth(self, role: str = "integration") -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[role]}"}

    def table(self, game: str = "craps", **options) -> str:
        r = self.client.post("/v1/tables", json={"game": game, "options": options},
                             headers=self.auth("admin"))
        assert r.status_code == 201, r.text
        return r.json()["id"]

    def device(self, table_id: str) -> tuple[str, str]:
        r = self.client.post(f"/v1/tables/{table_id}/devices", json={"name": "cam"},
                             headers=self.auth("admin"))
        assert r.status_code == 201, r.text
        return r.json()["id"], r.json()["secret"]

    def wager(self, table_id: str, name: str, amount: int, seat: int = 0, **params):
        return self.client.post(f"/v1/tables/{table_id}/wagers", headers=self.auth(),
                                json={"name": name, "amount": amount, "seat": seat,
                                      "params": params})

    body = staticmethod(lambda *a, **k: roll_body(*a, **k))

    def post_roll(self, table_id: str, device: tuple[str, str], body: dict | bytes,
                  ts: float | None = None, path: str | None = None, headers=None):
        from dicecall.api.signing import sign

        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        path = path or f"/v1/tables/{table_id}/rolls"
        signed = sign(device[1], "POST", path, time.time() if ts is None else ts, raw,
                      device_id=device[0])
        return self.client.post(path, content=raw, headers={
            **signed, "Content-Type": "application/json", **(headers or {})})


def roll_body(seq: int, faces=(3, 4), verdict: str = "valid", roll_id: str | None = None,
              **extra) -> dict:
    """A roll as the edge posts it."""
    return {"roll_id": roll_id or str(uuid.uuid4()), "seq": seq, "verdict": verdict,
            "faces": list(faces), "reasons": [], "confidences": [0.99] * len(faces),
            "evidence": {"clean_sha256": "a" * 64, "annotated_sha256": "b" * 64}, **extra}


@pytest.fixture
def make_harness(tmp_path: Path):
    """Builds harnesses on given URLs; every client is closed at the end."""
    from fastapi.testclient import TestClient

    from dicecall.api.app import create_app

    opened = []

    def build(url: str, **overrides) -> Harness:
        settings = make_settings(url, tmp_path, **overrides)
        client = TestClient(create_app(settings))
        client.__enter__()
        opened.append(client)
        return Harness(client, settings)

    yield build
    for client in opened:
        client.__exit__(None, None, None)


@pytest.fixture
def h(make_harness, sqlite_url) -> Harness:
    """A harness on SQLite (the router tests)."""
    return make_harness(sqlite_url)


@pytest.fixture
def hb(db_url, make_harness) -> Harness:
    """A harness on each backend (the storage tests). `db_url` comes first so that it is
    torn down last: the app's clients close before its database is dropped."""
    return make_harness(db_url)
