"""Every example configuration the repository ships, and every one the README and docs name,
loads with the current code: through the loader the project reads it with, and as the plain
data yaml.safe_load gives (lists for tuples), so a change to a strict model that a committed
file no longer passes fails here and not on a table."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from dicecall.api.settings import Settings
from dicecall.calibration.layout import MarkerLayout, ZonesFile, load_json
from dicecall.calibration.zones import TableCalibration, load_table
from dicecall.edge.config import EdgeConfig, load_config

ROOT = Path(__file__).resolve().parents[1]

# glob -> (model, the project's own loader). A new example file needs a line here.
EXAMPLES = {
    "docs/*.example.yaml": (EdgeConfig, load_config),
    "calibration/examples/markers-*.json": (MarkerLayout, lambda p: load_json(MarkerLayout, p)),
    "calibration/examples/zones-*.json": (ZonesFile, lambda p: load_json(ZonesFile, p)),
    "dicecall/demo/data/*/zones.json": (TableCalibration, load_table),
}
# Data, not configuration: the replay bundles' truth (dicecall/demo/data/README.md).
NOT_CONFIG = ("dicecall/demo/data/*/truth.json",)
# Where configuration files live in the repository (tests/ holds dataset records).
SHIPPED = ("docs", "calibration", "dicecall", "edge", "api", "vision", "models", "datasets")
DOCS = ("README.md", "docs/*.md", "models/README.md", "dicecall/demo/data/README.md")


def _shipped() -> list[str]:
    # Committed files only: a run's output left in the work tree is no example. Outside a
    # git checkout (an unpacked sdist) every file there is taken.
    try:
        files = subprocess.run(["git", "ls-files", "--", *SHIPPED], cwd=ROOT, check=True,
                               capture_output=True, text=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        files = [str(p.relative_to(ROOT)) for folder in SHIPPED for p in (ROOT / folder).rglob("*")]
    return sorted(f for f in files if f.endswith((".json", ".yaml", ".yml")))


def _kind(rel: str):
    return next((v for pattern, v in EXAMPLES.items() if Path(rel).match(pattern)), None)


def test_every_shipped_yaml_or_json_file_is_a_known_example():
    files = _shipped()
    unknown = [f for f in files if _kind(f) is None
               and not any(Path(f).match(p) for p in NOT_CONFIG)]
    assert not unknown, f"add a loader to EXAMPLES (or NOT_CONFIG) for {unknown}"
    for pattern in EXAMPLES:  # a pattern no file matches would check nothing
        assert any(Path(f).match(pattern) for f in files), pattern


@pytest.mark.parametrize("rel", [f for f in _shipped() if _kind(f) is not None])
def test_each_example_loads_as_the_project_reads_it_and_as_plain_data(rel):
    model, load = _kind(rel)
    path = ROOT / rel
    cfg = load(path)
    assert isinstance(cfg, model)
    # Paths in the edge's file are relative to it: the loader rebases them; compare the rest.
    data = yaml.safe_load(path.read_text())
    if model is EdgeConfig:
        data = {**data, **{k: str(getattr(cfg, k)) for k in ("zones", "model_profile",
                                                               "exposure", "device_secret_file")
                           if k in data}}
        data["settle"] = {**data["settle"], "reference_image": str(cfg.settle.reference_image)}
    assert model.model_validate(data) == cfg
    assert model.model_validate(cfg.model_dump(mode="json")) == cfg
    assert model.model_validate_json(cfg.model_dump_json()) == cfg


def test_the_example_files_the_docs_name_are_shipped_and_checked():
    named = set()
    for pattern in DOCS:
        for doc in ROOT.glob(pattern):
            named |= set(re.findall(r"\b((?:docs|calibration/examples|dicecall/demo/data)"
                                    r"/[\w./-]+\.(?:json|ya?ml))\b", doc.read_text()))
    assert {"docs/edge-table.example.yaml", "calibration/examples/zones-craps.json"} <= named
    for rel in sorted(named):
        assert (ROOT / rel).is_file(), f"the docs name {rel}, which is not in the repository"
        assert _kind(rel) is not None, f"the docs name {rel}, which no test loads"


def test_the_documented_environment_loads(monkeypatch):
    """`export DICECALL_...=...` lines in the docs are settings the service takes."""
    lines = [m for pattern in DOCS for doc in ROOT.glob(pattern)
             for m in re.findall(r"^export (DICECALL_\w+)=(\S+)", doc.read_text(), re.M)]
    assert lines
    for name, value in lines:
        monkeypatch.setenv(name, value)
    settings = Settings()
    for name, value in lines:
        assert str(getattr(settings, name.removeprefix("DICECALL_").lower())) == value


def test_a_file_with_a_wrong_type_is_refused_naming_the_field(tmp_path):
    """The examples load because they are right, not because the checks are off."""
    from dicecall.calibration import CalibrationError
    from dicecall.edge.config import ConfigError

    text = (ROOT / "docs" / "edge-table.example.yaml").read_text()
    bad = tmp_path / "table.yaml"
    for old, new, message in (("[1920, 1080]", "['1920', 1080]", "main_size.0: Input should "
                                                                   "be a valid integer"),
                              ("fps: 30", "fps: '30'", "fps: Input should be a valid number"),
                              ("frames: 4", "frames: 4.5", "frames: Input should be a valid "
                                                           "integer"),
                              ("frames: 4", "frame: 4", "frame: Extra inputs are not permitted")):
        assert old in text
        bad.write_text(text.replace(old, new, 1))
        with pytest.raises(ConfigError, match=re.escape(message)):
            load_config(bad)
    zones = json.loads((ROOT / "calibration" / "examples" / "zones-craps.json").read_text())
    zones["zones"][0]["polygon_mm"][1] = ["600", -370]
    bad = tmp_path / "zones.json"
    bad.write_text(json.dumps(zones))
    with pytest.raises(CalibrationError, match=r"zones\.0\.polygon_mm\.1\.0\n  Input should "
                                               r"be a valid number"):
        load_json(ZonesFile, bad)
    with pytest.raises(ValueError, match=r"polygon_mm\.1\.0\n  Input should be a valid number"):
        ZonesFile.model_validate(zones)
