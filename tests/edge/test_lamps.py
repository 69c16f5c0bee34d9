"""A Props & Hops table with lamps the camera switches (edge/lamps.py): once the dice are
still the edge takes the four lamp frames, the verdict reads each die's top face angle from
them (668a.3(h)), and a lamp or camera fault there loses no roll."""

from __future__ import annotations

import threading
import time
import types

import numpy as np
import pytest
from pydantic import ValidationError

from dicecall.edge.lamps import ORDER, GpioLamps, replayed_frames, switched_frames
from dicecall.edge.runner import EdgeRunner
from dicecall.edge.sources import CameraError, Frame, lores_grey
from dicecall.vision.dice import Dice
from dicecall.vision.lamps import LampRig
from dicecall.vision.verdict import VerdictConfig

BOXES = np.array([[80, 100, 120, 140], [200, 100, 240, 140]], np.float32)  # two 40 px dice
FELT = (40, 110, 30)


def _tipped(deg: float) -> np.ndarray:
    t = np.radians(deg)
    return np.array([np.sin(t), 0.0, np.cos(t)])


def still(normals=None, lamp: int | None = None, lamps: bool = False) -> np.ndarray:
    """The still scene: under the room's light, or (`lamps`) under lamp `lamp` alone (None:
    every lamp off), each die's face shaded by its normal."""
    img = np.full((240, 320, 3), FELT, np.uint8)
    dirs = LampRig().directions()
    for (x0, y0, x1, y1), n in zip(BOXES.astype(int), normals or [_tipped(0)] * 2,
                                   strict=True):
        light = 0.9 if not lamps else 0.15 + (0.45 * max(0.0, float(n @ dirs[lamp]))
                                               if lamp is not None else 0.0)
        img[y0:y1, x0:x1] = np.clip(np.array([200.0, 210.0, 220.0]) * light, 0, 255)
    return img


class Switch:
    def __init__(self) -> None:
        self.on, self.shown, self.closed = None, [], False

    def show(self, lamp):
        self.on = lamp
        self.shown.append(lamp)

    def close(self):
        self.closed = True


class LitCamera:
    """A live camera (30 fps) whose frames under the lamps show the dice's normals."""

    finite = True

    def __init__(self, normals, fail: bool = False) -> None:
        self.normals, self.fail, self.t = normals, fail, 0.0
        empty = np.full((240, 320, 3), FELT, np.uint8)
        dice = still()
        self.images = [empty] * 10 + [np.roll(dice, 30 * k, 1) for k in (1, 2)] + [dice] * 10

    def open(self):
        pass

    def frames(self):
        for i, img in enumerate(self.images):
            self.t += 1 / 30
            yield Frame(self.t, time.time(), img, lores_grey(img, 160), f"#{i}")

    def lamp_frames(self, frame, switch, settle_frames):
        def grab():
            if self.fail:
                raise CameraError("no frame under the lamps")
            return still(self.normals, switch.on, lamps=True)

        return switched_frames(switch, grab, settle_frames)

    def close(self):
        pass


class TiltReader:
    """Two dice at BOXES read 3 and 4, with the tilt head's probabilities `tilts`."""

    def __init__(self, tilts) -> None:
        self.tilts = tilts

    def recount(self, image, dice, expected):
        return dice

    def read(self, image):
        probs = np.zeros((2, 6), np.float32)
        probs[0, 2] = probs[1, 3] = 1.0
        return Dice(centers=(BOXES[:, :2] + BOXES[:, 2:]) / 2, boxes=BOXES, face=[3, 4],
                    face_probs=probs, pip_face=[3, 4], tilt=self.tilts, stacked=np.zeros(2),
                    det_score=np.ones(2))


def _run(tmp_path, service, kit, camera, tilts, line=4.0, switch=None):
    table, device, secret = service.table("props-and-hops")
    cfg = kit.config(tmp_path, service, table, device, secret, tmp_path,
                     game="props-and-hops", lamps={"gpio": [17, 27, 22]})
    (tmp_path / "frames.csv").write_text("file,t_ms\n")  # the camera below stands in
    events, switch = [], switch or Switch()
    runner = EdgeRunner(cfg, on_event=events.append, source=camera,
                        reader=TiltReader(tilts), lamps=switch)
    runner.reading.vcfg = VerdictConfig(lamp_cocked_deg=line)
    runner.run(threading.Event())
    reads = [e for e in events if e["kind"] == "read"]
    return reads, events, runner, switch


def _codes(read) -> set[str]:
    return {r["code"] for r in read["reasons"]}


def test_a_weak_flag_the_lamps_read_level_is_a_valid_roll_668a_3_h(tmp_path, service, kit):
    reads, _, runner, switch = _run(tmp_path, service, kit, LitCamera(None), [0.2, 0.0])
    assert len(reads) == 1 and reads[0]["verdict"] == "valid"
    assert "lamps_level" in _codes(reads[0])
    # every lamp off, each alone, then off again; the switch closed with the runner
    assert switch.shown == [*ORDER, None] and switch.closed
    assert runner.metrics.value("dicecall_edge_lamp_misses_total") == 0


def test_a_lean_only_the_lamps_see_is_held_for_review_668a_3_h(tmp_path, service, kit):
    reads, *_ = _run(tmp_path, service, kit, LitCamera([_tipped(0), _tipped(9)]), [0.0, 0.0])
    assert reads[0]["verdict"] == "needs_review" and "lamps_tilted" in _codes(reads[0])


def test_without_the_lamps_line_the_weak_flag_is_held_as_before(tmp_path, service, kit):
    reads, *_ = _run(tmp_path, service, kit, LitCamera(None), [0.2, 0.0], line=0.0)
    assert reads[0]["verdict"] == "needs_review" and "cocked_doubt" in _codes(reads[0])


def test_a_camera_fault_under_the_lamps_loses_no_roll(tmp_path, service, kit):
    """Read as a table without lamps reads it: the weak flag held for a person; the lamps
    are off again, the fault reported."""
    reads, events, runner, switch = _run(tmp_path, service, kit, LitCamera(None, fail=True),
                                         [0.2, 0.0])
    assert len(reads) == 1 and reads[0]["verdict"] == "needs_review"
    assert "cocked_doubt" in _codes(reads[0])
    assert switch.shown[-1] is None and switch.on is None
    assert [e["error"] for e in events if e["kind"] == "lamp_error"] == [
        "CameraError: no frame under the lamps"]
    assert runner.metrics.value("dicecall_edge_lamp_misses_total") == 1
    assert len(service.rolls(runner.cfg.table_id)) == 1


def test_settle_frames_are_dropped_after_each_switch():
    switch, grabbed = Switch(), []

    def grab():
        grabbed.append(switch.on)
        return np.full((2, 2, 3), len(grabbed), np.uint8)

    frames = switched_frames(switch, grab, 2)
    assert grabbed == [lamp for lamp in ORDER for _ in range(3)]
    assert [int(f[0, 0, 0]) for f in frames] == [3, 6, 9, 12]  # the third after each switch


def test_replayed_lamp_frames_lie_beside_the_frame(tmp_path):
    import cv2

    for k in range(4):
        cv2.imwrite(str(tmp_path / f"s_0000001.lamp{k}.jpg"), still(lamp=k - 1 if k else None,
                                                                    lamps=True))
    frames = replayed_frames(tmp_path, "s_0000001.jpg")
    assert len(frames) == 4 and frames[0].shape == (240, 320, 3)
    assert replayed_frames(tmp_path, "s_0000002.jpg") is None  # none: read without lamps
    (tmp_path / "s_0000001.lamp2.jpg").write_bytes(b"not a jpeg")
    with pytest.raises(CameraError, match=r"lamp frames of s_0000001\.jpg"):
        replayed_frames(tmp_path, "s_0000001.jpg")


def test_gpio_lamps_never_light_two_at_once(monkeypatch):
    log = []

    class Line:
        def __init__(self, pin, active_high=True, initial_value=False):
            if pin == 99:
                raise RuntimeError("GPIO99 in use")
            self.pin = pin

        def on(self):
            log.append((self.pin, "on"))

        def off(self):
            log.append((self.pin, "off"))

        def close(self):
            log.append((self.pin, "closed"))

    monkeypatch.setitem(__import__("sys").modules, "gpiozero",
                        types.SimpleNamespace(DigitalOutputDevice=Line))
    lamps = GpioLamps([17, 27, 22])
    lamps.show(1)
    assert log == [(17, "off"), (22, "off"), (27, "on")]
    lamps.close()
    assert {p for p, what in log if what == "closed"} == {17, 27, 22}
    with pytest.raises(CameraError, match="GPIO99 in use"):
        GpioLamps([17, 99, 22])


@pytest.mark.parametrize(("over", "error"), [
    ({"game": "craps"}, "only in Props & Hops"),
    ({"source": {"kind": "opencv", "uri": 0}}, "three GPIO lines"),
    ({"source": {"kind": "picamera2"}, "lamps": {"gpio": [17, 27, 22]}}, "exposure fixed"),
    ({"lamps": {"gpio": [17, 17, 22]}}, "three different BCM"),
    ({"lamps": {"gpio": [17, 27, 40]}}, "three different BCM"),
    ({"lamps": {"gpio": [17, 27, 22], "rig": {"elevation_deg": ["45", 45, 45]}}},
     "elevation_deg"),
])
def test_lamps_are_configured_only_where_they_can_work(tmp_path, service, kit, over, error):
    table, device, secret = service.table("props-and-hops")
    base = {"game": "props-and-hops", "lamps": {}}
    with pytest.raises(ValidationError, match=error):
        kit.config(tmp_path, service, table, device, secret, tmp_path, **{**base, **over})


def test_the_documented_lamps_section_is_a_valid_configuration(tmp_path):
    """docs/edge-table.example.yaml's commented `lamps` section, taken in on a Props & Hops
    table, loads as written."""
    from pathlib import Path

    from dicecall.edge.config import load_config

    text = (Path(__file__).parents[2] / "docs" / "edge-table.example.yaml").read_text()
    head, _, tail = text.partition("# lamps:")
    lamps = "lamps:" + "\n".join(line.removeprefix("# ") if line.startswith("#  ") else line
                                 for line in tail.splitlines())
    table = tmp_path / "table.yaml"
    table.write_text(head.replace("game: craps", "game: props-and-hops") + lamps + "\n")
    cfg = load_config(table)
    assert cfg.lamps.gpio == (17, 27, 22) and cfg.lamps.settle_frames == 2
    # relative to the YAML file, as every path of the table's file
    assert cfg.lamps.calibration == tmp_path / "calibration" / "table-3-lamps.json"


def test_a_replay_gives_the_lamp_frames_generated_beside_its_frames(tmp_path):
    """`dicecall datasets generate --lamps` writes NAME.lamp0-3.jpg beside NAME.jpg; a
    replay of NAME.jpg gives them for the frame read, and none for a frame without them."""
    from dicecall.datasets.generate import GenerateConfig, generate
    from dicecall.edge.sources import ReplaySource

    generate(GenerateConfig(scene="shaker", count=1, seed=3, workers=1, out=tmp_path,
                            lamps=45.0), progress=False)
    (tmp_path / "plain.jpg").write_bytes((tmp_path / "shaker_0000000.jpg").read_bytes())
    (tmp_path / "frames.csv").write_text("file,t_ms\nshaker_0000000.jpg,0\nplain.jpg,33\n")
    source = ReplaySource(tmp_path, speed=0)
    source.open()
    lit, plain = list(source.frames())
    frames = source.lamp_frames(lit, None, 2)
    assert len(frames) == 4 and all(f.shape == lit.bgr().shape for f in frames)
    assert source.lamp_frames(plain, None, 2) is None


def test_the_rig_may_come_from_its_calibration_file(tmp_path, service, kit):
    """`dicecall calibrate lamps` writes the rig with the lamps' gains; the table names the
    file (relative to the YAML), a missing or wrong one is refused before anything starts,
    and naming both a rig and a file is refused."""
    from dicecall.edge.config import ConfigError, check_paths
    from dicecall.edge.reading import Reading

    table, device, secret = service.table("props-and-hops")
    rig = LampRig(gains=(1.1, 1.0, 0.9))
    (tmp_path / "lamps.json").write_text(rig.model_dump_json())
    (tmp_path / "frames.csv").write_text("file,t_ms\n")
    cfg = kit.config(tmp_path, service, table, device, secret, tmp_path, game="props-and-hops",
                     lamps={"calibration": str(tmp_path / "lamps.json")})
    check_paths(cfg)
    assert Reading(cfg, TiltReader([0, 0])).lamp_rig == rig
    (tmp_path / "lamps.json").write_text('{"gains": [1, 1]}')
    with pytest.raises(ConfigError, match=r"lamps\.calibration"):
        check_paths(cfg)
    with pytest.raises(ValidationError, match="not both"):
        kit.config(tmp_path, service, table, device, secret, tmp_path, game="props-and-hops",
                   lamps={"calibration": "lamps.json", "rig": {}})
