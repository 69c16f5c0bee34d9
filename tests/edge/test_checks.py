"""`dicecall edge run --check`: a motion gate that one die moving alone may not pass is
warned about (edge/checks.py), from settle.die_px or the zones file's die size."""

from __future__ import annotations

import numpy as np
from typer.testing import CliRunner

from dicecall.cli import app
from dicecall.edge.checks import calibrated_die_px, motion_gate_warnings
from dicecall.edge.config import EdgeConfig

PI = {"kind": "picamera2", "main_size": [1920, 1080], "lores_size": [320, 240]}


def _cfg(kit, **over) -> EdgeConfig:
    raw = {"table_id": kit.TABLE, "device_id": kit.DEVICE, "device_secret": "s" * 32,
           "service_url": "http://127.0.0.1:9", "game": "craps", "source": PI}
    raw.update(over)
    return EdgeConfig.model_validate(raw)


def _zones(tmp_path, die_mm: float = 19.0):
    from dicecall.calibration.layout import ZonesFile
    from dicecall.calibration.table import TablePose
    from dicecall.calibration.zones import calibrate_zones

    pose = TablePose(homography=np.eye(3).tolist(), source="points", points=4, rms_px=0,
                     max_px=0)  # 1 mm = 1 px of the 1920-wide main frame
    zones = ZonesFile(die_mm=die_mm, zones=[{"name": "layout", "role": "play",
                                             "polygon_mm": [(0, 0), (1920, 0), (1920, 1080),
                                                            (0, 1080)]}])
    calibrate_zones(pose, zones).save(tmp_path / "zones.json")
    return tmp_path / "zones.json"


def test_no_die_size_known_is_warned_with_the_smallest_die_seen(kit):
    (line,) = motion_gate_warnings(_cfg(kit))
    assert "153 changed pixels of the 320x240" in line and "under 17.5 px" in line


def test_a_die_under_twice_the_gate_is_warned_from_the_zones_file(tmp_path, kit):
    # a 36 px die in the 1920 main frame is 6 px in the 320 lores: 18 px of area halved;
    # settle.die_px set larger than that keeps the gate over half of it
    zones = str(_zones(tmp_path, die_mm=36))
    cfg = _cfg(kit, zones=zones, settle={"die_px": 30.0})
    assert calibrated_die_px(cfg) == 6.0
    (line,) = motion_gate_warnings(cfg)
    assert "more than half a die" in line and "set settle.die_px to 6.0" in line
    assert motion_gate_warnings(_cfg(kit, zones=zones, settle={"die_px": 6.0})) == []


def test_die_px_unset_with_a_zones_file_is_not_warned_the_run_fills_it(tmp_path, kit):
    # edge run scales the zones file's die to the motion frame itself (test_die_px.py), also
    # for a replay, whose frame size --check cannot know
    zones = str(_zones(tmp_path, die_mm=36))
    assert motion_gate_warnings(_cfg(kit, zones=zones)) == []
    replay = {"kind": "replay", "path": str(tmp_path)}
    assert motion_gate_warnings(_cfg(kit, zones=zones, source=replay)) == []


def test_a_large_die_or_die_px_set_gives_no_warning(tmp_path, kit):
    near = {**PI, "main_size": [640, 480]}  # a 60 px die in main is 30 px in lores
    cfg = _cfg(kit, source=near, zones=str(_zones(tmp_path, die_mm=60)))
    assert calibrated_die_px(cfg) == 30.0 and motion_gate_warnings(cfg) == []
    assert motion_gate_warnings(_cfg(kit, settle={"die_px": 6.0})) == []


def test_check_prints_the_warning_and_still_passes(tmp_path, kit):
    (tmp_path / "t.yaml").write_text(
        f"table_id: {kit.TABLE}\ndevice_id: {kit.DEVICE}\ndevice_secret: {'s' * 32}\n"
        "service_url: http://127.0.0.1:9\ngame: craps\n"
        "source: {kind: picamera2, main_size: [1920, 1080], lores_size: [320, 240]}\n")
    out = CliRunner().invoke(app, ["edge", "run", "-c", str(tmp_path / "t.yaml"), "--check"])
    assert out.exit_code == 0, out.output
    assert "warning: settle: the die size is not known" in out.output
    assert ": ok (craps" in out.output
