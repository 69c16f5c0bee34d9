"""The `dicecall datasets` commands, through Typer's test runner."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from dicecall.datasets.cli import register


@pytest.fixture()
def app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """Test root."""

    register(app)
    return app


def test_generate_stats_sheet_export(app, tmp_path):
    pytest.importorskip("pybullet")
    run = CliRunner().invoke
    out = tmp_path / "ds"
    r = run(
        app,
        [
            "datasets",
            "generate",
            "--scene",
            "craps",
            "--count",
            "2",
            "--seed",
            "3",
            "--out",
            str(out),
            "--width",
            "320",
            "--height",
            "240",
            "--workers",
            "1",
        ],
    )
    assert r.exit_code == 0, r.output
    r = run(app, ["datasets", "stats", str(out), "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["images"] == 2
    r = run(app, ["datasets", "contact-sheet", str(out), "-o", str(tmp_path / "s.png")])
    assert r.exit_code == 0 and (tmp_path / "s.png").stat().st_size > 0
    r = run(app, ["datasets", "export", "--format", "coco", str(out), str(tmp_path / "coco")])
    assert r.exit_code == 0 and (tmp_path / "coco" / "annotations.json").is_file()


def test_bad_input_exits_with_a_message(app, tmp_path):
    run = CliRunner().invoke
    r = run(app, ["datasets", "stats", str(tmp_path / "missing")])
    assert r.exit_code == 2 and "no such dataset folder" in r.output
    r = run(
        app, ["datasets", "generate", "--scene", "moon", "--count", "1", "--out", str(tmp_path)]
    )
    assert r.exit_code == 2 and "scene" in r.output
    r = run(app, ["datasets", "import", "--format", "xml", str(tmp_path), str(tmp_path / "o")])
    assert r.exit_code == 2
