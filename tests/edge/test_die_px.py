"""settle.die_px left unset is taken from the calibrated zones file at run time: a throw of
small dice, whose motion is under motion_fraction of the frame, is then seen and read."""

from __future__ import annotations

import threading

import cv2
import numpy as np

from dicecall.edge.runner import EdgeRunner

W, H = 640, 480  # the reading frame; the motion frame is 320x240 (lores_width 320)
FELT = (40, 110, 30)


def _zones(tmp_path, die_mm: float):
    from dicecall.calibration.layout import ZonesFile
    from dicecall.calibration.table import TablePose
    from dicecall.calibration.zones import calibrate_zones

    pose = TablePose(homography=np.eye(3).tolist(), source="points", points=4, rms_px=0,
                     max_px=0)  # 1 mm = 1 px of the reading frame
    zones = ZonesFile(die_mm=die_mm, zones=[{"name": "layout", "role": "play",
                                             "polygon_mm": [(0, 0), (W, 0), (W, H), (0, H)]}])
    calibrate_zones(pose, zones).save(tmp_path / "zones.json")
    return tmp_path / "zones.json"


def _small_dice_throw(folder) -> None:
    """Two 10 px dice (5 px in the motion frame) rolling across the felt, then at rest: each
    frame changes about 100 motion pixels, under 0.002 of 320x240 (153)."""
    frames = []
    for k in range(12):
        img = np.full((H, W, 3), FELT, np.uint8)
        if k >= 6:  # six frames of the empty table, then the dice come in
            x = 100 + 30 * min(k - 6, 3)
            for y in (200, 260):
                img[y:y + 10, x:x + 10] = 235
        frames.append(img)
    frames += [frames[-1]] * 8
    folder.mkdir()
    rows = ["file,t_ms"]
    for n, img in enumerate(frames):  # PNG: no JPEG noise to count as motion
        cv2.imwrite(str(folder / f"{n:03d}.png"), img)
        rows.append(f"{n:03d}.png,{n * 1000 / 30:.3f}")
    (folder / "frames.csv").write_text("\n".join(rows) + "\n")


def _run(tmp_path, kit, settle=None, **over):
    replay = tmp_path / "replay"
    _small_dice_throw(replay)
    svc = kit.Service(tmp_path)  # never started: reads stay in the outbox
    cfg = kit.config(tmp_path, svc, kit.TABLE, kit.DEVICE, "s" * 32, replay,
                     drain_timeout_s=0, settle={"lores_width": 320, **(settle or {})},
                     **over)
    events = []
    runner = EdgeRunner(cfg, on_event=events.append, reader=kit.Reader([(2, 4)]))
    runner.run(threading.Event())
    return runner, [e for e in events if e["kind"] == "read"]


def test_die_px_unset_is_filled_from_the_zones_file_and_small_dice_are_read(
        tmp_path, kit, caplog):
    zones = _zones(tmp_path, die_mm=10)
    with caplog.at_level("INFO", logger="dicecall.edge"):
        runner, reads = _run(tmp_path, kit, zones=str(zones))
    assert len(reads) == 1 and reads[0]["faces"] == [2, 4]
    assert runner.detector.cfg.die_px == 5.0  # 10 px of the 640 frame in the 320 one
    (line,) = [r for r in caplog.records if r.getMessage() == "settle.die_px from the zones file"]
    assert line.die_px == 5.0 and line.zone_die_px == 10.0 and line.frame == "640x480" \
        and line.motion_frame == "320x240"


def test_without_a_die_size_the_small_throw_is_not_seen(tmp_path, kit):
    # the rule the zones file lifts: motion_fraction alone misses these dice
    runner, reads = _run(tmp_path, kit)
    assert runner.detector.cfg.die_px is None and reads == []


def test_a_configured_die_px_is_kept(tmp_path, kit, caplog):
    zones = _zones(tmp_path, die_mm=10)
    with caplog.at_level("INFO", logger="dicecall.edge"):
        runner, reads = _run(tmp_path, kit, zones=str(zones),
                             settle={"die_px": 4.0})
    assert runner.detector.cfg.die_px == 4.0 and len(reads) == 1
    assert not [r for r in caplog.records if "die_px" in r.getMessage()]


def test_a_motion_frame_of_another_aspect_takes_the_smaller_ratio():
    from dicecall.edge.diesize import motion_die_px

    # picamera2 1920x1080 main, 320x240 lores: x 1/6, y 2/9; the smaller never hides a die
    assert motion_die_px(36.0, (1920, 1080), (320, 240)) == 6.0
    assert motion_die_px(3.0, (1920, 1080), (320, 240)) == 2.0  # SettleConfig's floor
