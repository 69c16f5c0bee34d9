"""`dicecall admin ...` and `dicecall audit verify` (exit 1 and the event id when tampered)."""

from __future__ import annotations

import json
import sqlite3

from typer.testing import CliRunner

from dicecall.api.settings import get_settings
from dicecall.cli import app


def test_admin_commands_and_audit_verify(tmp_path, monkeypatch):
    db = tmp_path / "cli.db"
    monkeypatch.setenv("DICECALL_DATABASE_URL", f"sqlite:///{db}")
    monkeypatch.setenv("DICECALL_KEY_FILE", str(tmp_path / "key"))
    get_settings.cache_clear()
    runner = CliRunner()
    try:
        out = runner.invoke(app, ["admin", "table", "mini-craps", "--name", "M1"])
        assert out.exit_code == 0, out.output
        table = json.loads(out.output)
        out = runner.invoke(app, ["admin", "device", table["id"]])
        assert out.exit_code == 0 and len(json.loads(out.output)["secret"]) == 64
        out = runner.invoke(app, ["admin", "token", "ops", "--role", "surveillance"])
        assert json.loads(out.output)["role"] == "surveillance"
        out = runner.invoke(app, ["audit", "verify"])
        assert out.exit_code == 0 and "chain intact" in out.output
        with sqlite3.connect(db) as conn:
            conn.execute("UPDATE events SET kind = 'x' WHERE id = 2")
        out = runner.invoke(app, ["audit", "verify"])
        assert out.exit_code == 1 and "event 2: contents edited" in out.output
    finally:
        get_settings.cache_clear()
