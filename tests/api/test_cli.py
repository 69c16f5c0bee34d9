"""`dicecall admin ...` and `dicecall audit verify` (exit 1 and the event id when tampered)."""

from __future__ import annotations

import json
import sqlite3

import pytest
from typer.testing import CliRunner

from dicecall.api.settings import get_settings
from dicecall.cli import app


@pytest.fixture
def cli_db(tmp_path, monkeypatch):
    """A fresh SQLite file the CLI's settings point at, and the runner."""
    db = tmp_path / "cli.db"
    monkeypatch.setenv("DICECALL_DATABASE_URL", f"sqlite:///{db}")
    monkeypatch.setenv("DICECALL_KEY_FILE", str(tmp_path / "key"))
    get_settings.cache_clear()
    yield db, CliRunner()
    get_settings.cache_clear()


def test_admin_commands_and_audit_verify(cli_db):
    db, runner = cli_db
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
        head = conn.execute("SELECT last_id, last_hash FROM chain_head").fetchone()
    # The head is printed so that an operator can record it outside the database.
    assert f"chain head: id {head[0]} sha256 {head[1]}" in out.output
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE events SET kind = 'x' WHERE id = 2")
    out = runner.invoke(app, ["audit", "verify"])
    assert out.exit_code == 1 and "event 2: contents edited" in out.output


def test_admin_dice_set_commands_are_audited(cli_db):
    db, runner = cli_db
    table = json.loads(runner.invoke(app, ["admin", "table", "craps"]).output)["id"]
    out = runner.invoke(app, ["admin", "dice-set", table, "A1 A2", "--by", "pit boss"])
    assert out.exit_code == 0, out.output
    first = json.loads(out.output)
    assert first["retired"] is None and first["dice_set"]["put_in_service_by"] == "pit boss"
    out = runner.invoke(app, ["admin", "dice-set", table, "B1 B2"])
    second = json.loads(out.output)
    assert second["retired"]["id"] == first["dice_set"]["id"]
    assert second["dice_set"]["put_in_service_by"].startswith("cli:")
    listed = json.loads(runner.invoke(app, ["admin", "dice-sets", table]).output)
    assert [(s["label"], s["in_service"]) for s in listed] == [("B1 B2", True),
                                                               ("A1 A2", False)]
    out = runner.invoke(app, ["admin", "dice-set", "no-such-table", "C1"])
    assert out.exit_code == 1 and "no table" in out.output
    out = runner.invoke(app, ["audit", "verify"])
    assert out.exit_code == 0 and "checked 4 events: chain intact" in out.output
    with sqlite3.connect(db) as conn:  # relabel the set behind the chain's back
        conn.execute("UPDATE events SET payload = replace(payload, 'B1', 'X1') "
                     "WHERE kind = 'dice_set_in_service' AND id = 4")
    out = runner.invoke(app, ["audit", "verify"])
    assert out.exit_code == 1 and "event 4: contents edited" in out.output


def test_an_empty_server_key_is_refused(tmp_path, monkeypatch):
    """An empty DICECALL_SECRET_KEY or key file would make every device secret and CSRF
    token an HMAC under an empty, public key: refused, naming what to do."""
    from pydantic import ValidationError

    from dicecall.api.settings import Settings

    for blank in ("", "  "):
        monkeypatch.setenv("DICECALL_SECRET_KEY", blank)
        with pytest.raises(ValidationError, match="secret_key is empty"):
            Settings()
    monkeypatch.delenv("DICECALL_SECRET_KEY")
    key = tmp_path / "key"
    key.write_text("\n")
    with pytest.raises(ValueError, match="is empty"):
        Settings(key_file=key).server_key()
    fresh = Settings(key_file=tmp_path / "new" / "key")
    assert len(fresh.server_key()) == 64 and fresh.server_key() == fresh.server_key()


def test_a_bad_database_url_or_refused_admin_command_is_a_message(cli_db, monkeypatch,
                                                                   tmp_path):
    """These were tracebacks: an unparsable or unreachable database URL, a bad setting, an
    unknown game or role, --options that is not JSON, a device for no table."""
    _, runner = cli_db
    for args, message in ((["admin", "table", "nope"], "unknown game"),
                          (["admin", "table", "craps", "--options", "{bad"], "not JSON"),
                          (["admin", "token", "x", "--role", "wizard"], "role must be"),
                          (["admin", "device", "no-such-table"], "no table")):
        out = runner.invoke(app, args)
        assert out.exit_code == 2 and "error: " in out.output and message in out.output, \
            (args, out.output)
    for url in ("nonsense", f"sqlite:///{tmp_path}/no/such/dir/x.db",
                "postgresql+psycopg://u:hunter2@127.0.0.1:1/x"):
        monkeypatch.setenv("DICECALL_DATABASE_URL", url)
        get_settings.cache_clear()
        out = runner.invoke(app, ["audit", "verify"])
        assert out.exit_code == 2 and "error: database (DICECALL_DATABASE_URL)" in out.output, \
            out.output
        assert "hunter2" not in out.output
    monkeypatch.setenv("DICECALL_SHIFT_HOURS", "abc")
    get_settings.cache_clear()
    out = runner.invoke(app, ["audit", "verify"])
    assert out.exit_code == 2 and "shift_hours" in out.output, out.output


def test_audit_verify_expect_head_catches_a_truncated_tail(cli_db):
    """Deleting the last events and moving `chain_head` back leaves a chain that verifies;
    the head printed earlier and recorded elsewhere, given as --expect-head, shows it."""
    db, runner = cli_db
    table = json.loads(runner.invoke(app, ["admin", "table", "craps"]).output)["id"]
    runner.invoke(app, ["admin", "device", table])
    with sqlite3.connect(db) as conn:
        recorded = conn.execute("SELECT last_hash FROM chain_head").fetchone()[0]
    out = runner.invoke(app, ["audit", "verify", "--expect-head", recorded])
    assert out.exit_code == 0 and "recorded head: event 2, the chain head" in out.output
    runner.invoke(app, ["admin", "token", "ops", "--role", "surveillance"])
    out = runner.invoke(app, ["audit", "verify", "--expect-head", recorded.upper()])
    assert out.exit_code == 0 and "recorded head: event 2, 1 event(s) appended" in out.output
    with sqlite3.connect(db) as conn:  # truncate the tail, move the head back
        conn.execute("DELETE FROM events WHERE id >= 2")
        first = conn.execute("SELECT hash FROM events WHERE id = 1").fetchone()[0]
        conn.execute("UPDATE chain_head SET last_id = 1, last_hash = ?", (first,))
    assert runner.invoke(app, ["audit", "verify"]).exit_code == 0  # invisible without it
    out = runner.invoke(app, ["audit", "verify", "--expect-head", recorded])
    assert out.exit_code == 1
    assert f"TAMPERED: the recorded chain head {recorded} is not in the chain" in out.output
    out = runner.invoke(app, ["audit", "verify", "--expect-head", "nothex"])
    assert out.exit_code == 2 and "64 hex" in out.output


@pytest.mark.parametrize("before", [None, "true"])
def test_serve_tells_its_workers_not_to_migrate_without_leaking_it(cli_db, tmp_path,
                                                                    monkeypatch, before):
    """serve migrates once itself and tells the workers not to; that setting left in
    os.environ after it returned turned off migration for every later app in the process."""
    import os

    _, runner = cli_db
    monkeypatch.setenv("DICECALL_EVIDENCE_DIR", str(tmp_path / "ev"))
    if before is None:
        monkeypatch.delenv("DICECALL_MIGRATE_ON_START", raising=False)
    else:
        monkeypatch.setenv("DICECALL_MIGRATE_ON_START", before)
    seen = []
    monkeypatch.setattr("uvicorn.run", lambda *a, **k: seen.append(
        (os.environ.get("DICECALL_MIGRATE_ON_START"), get_settings().migrate_on_start)))
    out = runner.invoke(app, ["serve"])
    assert out.exit_code == 0, (out.output, out.exception)
    assert seen == [("false", False)]  # workers, in this process or spawned, skip it
    assert os.environ.get("DICECALL_MIGRATE_ON_START") == before
    assert get_settings().migrate_on_start is True
