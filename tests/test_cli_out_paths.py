"""Every command that writes files refuses a path it cannot write before it starts: one line
naming the option and exit 2, not a traceback after the work (issue: `datasets generate --out
afile/sub`, `admin export-labels` to an impossible path, `serve` with its evidence folder
under a regular file)."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from dicecall.api.settings import get_settings
from dicecall.cli import app

# {f}: a path under a regular file; {d}: an existing folder where a file is expected.
# (`calibrate` checks its outputs itself: calibration/files.py; `models`:
# tests/models/test_cli_bad_input.py.)
COMMANDS = [
    "datasets generate --scene shaker --count 1 --out {f}",
    "datasets contact-sheet {src} --out {f}/sheet.png",
    "datasets contact-sheet {src} --out {d}",
    "datasets export {src} {f} --format yolo",
    "datasets import {src} {f} --format yolo",
    "datasets sequence --out {f}",
    "admin export-labels {f}",
    "evaluate {src} --confusion {f}/c.png",
]


@pytest.fixture
def env(serve_env, tmp_path, monkeypatch):
    (tmp_path / "afile").write_text("not a folder")
    (tmp_path / "src").mkdir()
    (tmp_path / "adir").mkdir()
    monkeypatch.setenv("DICECALL_DATABASE_URL", f"sqlite:///{tmp_path / 'svc.db'}")
    return serve_env


@pytest.mark.parametrize("command", COMMANDS)
def test_a_path_that_cannot_be_written_is_a_bad_parameter(env, tmp_path, command):
    args = command.format(f=tmp_path / "afile" / "sub", d=tmp_path / "adir",
                          src=tmp_path / "src").split()
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 2, (out.exit_code, out.output, out.exception)
    text = re.sub(r"[\s│╭╮╰╯─]+", " ", out.output)  # unwrap Typer's error box
    assert "Traceback" not in text and ("afile" in text or "adir" in text)
    assert "is a file, not a folder" in text or "is a folder, not a file" in text, text


def test_serve_refuses_an_evidence_folder_under_a_file(env, tmp_path, monkeypatch):
    monkeypatch.setenv("DICECALL_EVIDENCE_DIR", str(tmp_path / "afile" / "ev"))
    get_settings.cache_clear()
    out = CliRunner().invoke(app, ["serve"])
    assert out.exit_code == 2 and not env, out.output
    assert "DICECALL_EVIDENCE_DIR" in out.output and "afile" in out.output, out.output


def test_serve_refuses_a_key_file_under_a_file(env, tmp_path, monkeypatch):
    monkeypatch.setenv("DICECALL_KEY_FILE", str(tmp_path / "afile" / "key"))
    get_settings.cache_clear()
    out = CliRunner().invoke(app, ["serve"])
    assert out.exit_code == 2 and not env, out.output
    assert "DICECALL_KEY_FILE" in out.output, out.output


def test_export_labels_to_an_impossible_path_is_one_line(env):
    out = CliRunner().invoke(app, ["admin", "export-labels", "/proc/no/such"])
    assert out.exit_code == 2 and "error: " in out.output and "/proc/no/such" in out.output, \
        (out.output, out.exception)
