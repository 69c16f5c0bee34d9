"""A mistyped DICECALL_* variable is refused at start-up, naming it and the setting it most
likely meant: before, DICECALL_DATABSE_URL=postgresql://... fell back to ./dicecall.db and a
floor wrote its rolls to a local SQLite file without anyone noticing."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from dicecall.cli import app


@pytest.fixture
def env(serve_env, monkeypatch):
    return monkeypatch, serve_env


@pytest.mark.parametrize("args", [["serve"], ["audit", "verify"], ["admin", "token", "x"],
                                  ["admin", "export-labels", "out"]])
def test_a_mistyped_variable_is_refused_naming_the_closest(env, tmp_path, args):
    monkeypatch, started = env
    monkeypatch.setenv("DICECALL_DATABSE_URL", f"sqlite:///{tmp_path / 'meant.db'}")
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 2, out.output
    assert "DICECALL_DATABSE_URL" in out.output and "DICECALL_DATABASE_URL" in out.output
    assert not started and not list(tmp_path.glob("*.db")), "it ran on the fallback"


def test_known_variables_of_benches_and_tests_pass(env, tmp_path):
    monkeypatch, started = env
    monkeypatch.setenv("DICECALL_DATABASE_URL", f"sqlite:///{tmp_path / 'svc.db'}")
    for name in ("DICECALL_SQL_COUNT_FILE", "DICECALL_TEST_PG", "DICECALL_CONSOLE_SHOTS"):
        monkeypatch.setenv(name, "x")
    out = CliRunner().invoke(app, ["serve"])
    assert out.exit_code == 0 and len(started) == 1, out.output
