"""`dicecall calibrate ...` end to end through the Typer app."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
from typer.testing import CliRunner

from dicecall.calibration.profile import load_profile
from dicecall.cli import app

EXAMPLES = Path(__file__).resolve().parents[2] / "calibration" / "examples"
runner = CliRunner()


def test_help_lists_the_commands_with_examples():
    res = runner.invoke(app, ["calibrate", "--help"])
    assert res.exit_code == 0
    for cmd in ("camera", "zones", "exposure", "lamps", "model", "simulate"):
        assert cmd in res.output
        sub = runner.invoke(app, ["calibrate", cmd, "--help"])
        assert sub.exit_code == 0 and "Example" in sub.output


def test_simulate_then_model_writes_profile_and_report(tmp_path):
    s = tmp_path / "s.npz"
    assert runner.invoke(app, ["calibrate", "simulate", "--n", "6000", "--out", str(s)]
                         ).exit_code == 0
    res = runner.invoke(app, ["calibrate", "model", "--samples", str(s), "--out",
                              str(tmp_path / "p.json"), "--report-dir", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "temperature" in res.output and "NOT certified" in res.output  # 6000 dice: too few
    reader, _ = load_profile(tmp_path / "p.json")
    assert 1.0 < reader.temperature < 3.0
    for name in ("reliability", "confusion", "threshold", "flags"):
        img = cv2.imread(str(tmp_path / f"calibration-{name}.png"))
        assert img is not None and img.shape[0] > 300


def test_model_needs_a_source_and_the_model_files(tmp_path):
    res = runner.invoke(app, ["calibrate", "model"])
    assert res.exit_code == 2 and "DATASET" in res.output
    res = runner.invoke(app, ["calibrate", "model", str(tmp_path), "--out",
                              str(tmp_path / "p.json")])
    assert res.exit_code == 2


def test_camera_with_too_few_images_is_a_clear_error(tmp_path):
    for i in range(2):
        cv2.imwrite(str(tmp_path / f"b{i}.png"), np.full((240, 320, 3), 100 + i, np.uint8))
    res = runner.invoke(app, ["calibrate", "camera", str(tmp_path / "b0.png"),
                              str(tmp_path / "b1.png"), "--out", str(tmp_path / "c.json")])
    assert res.exit_code == 2 and "board not found in any of 2 images" in res.output


def test_zones_from_points(tmp_path):
    pts = "100,80=-600,-370;1180,80=600,-370;1180,700=600,370;100,700=-600,370"
    res = runner.invoke(app, ["calibrate", "zones", "--points", pts, "--zones",
                              str(EXAMPLES / "zones-craps.json"), "--out",
                              str(tmp_path / "t.json")])
    assert res.exit_code == 0, res.output
    table = json.loads((tmp_path / "t.json").read_text())
    assert table["zones_px"]["play"][0] == [100.0, 80.0]
    assert set(table["zones_px"]["no_roll"]) == {"bank_chips", "dice_cup", "rail"}
    bad = runner.invoke(app, ["calibrate", "zones", "--points", "1,1=0,0;2,2=1,1;3,3=2,2;4,4=3,3",
                              "--zones", str(EXAMPLES / "zones-craps.json")])
    assert bad.exit_code == 2 and "one line" in bad.output
    both = runner.invoke(app, ["calibrate", "zones", "--zones", str(EXAMPLES /
                                                                   "zones-shaker.json")])
    assert both.exit_code == 2 and "either --layout" in both.output


def test_zones_warns_where_the_play_zone_leaves_the_frame(tmp_path):
    # The table (play) reaches x 1180 px and the rail (no roll) y 700 + 50 x 620 / 740 = 741.9
    # px. A die on the table past the frame's edge is cut off or unseen (docs/verdicts.md,
    # session 32); one on the rail is a no roll, seen or not, so the rail is not warned of.
    pts = "100,80=-600,-370;1180,80=600,-370;1180,700=600,370;100,700=-600,370"
    for width, warned in ((1150, True), (1280, False)):
        cv2.imwrite(str(tmp_path / "f.png"), np.zeros((720, width, 3), np.uint8))
        res = runner.invoke(app, ["calibrate", "zones", "--points", pts, "--image",
                                  str(tmp_path / "f.png"), "--zones",
                                  str(EXAMPLES / "zones-craps.json"), "--out",
                                  str(tmp_path / "t.json")])
        assert res.exit_code == 0, res.output
        assert ("warning: play zone table runs 30.0 px past the frame's right edge"
                in res.output) is warned, res.output
        assert "rail runs" not in res.output and "unknown" not in res.output
    res = runner.invoke(app, ["calibrate", "zones", "--points", pts, "--zones",
                              str(EXAMPLES / "zones-craps.json"), "--out",
                              str(tmp_path / "t.json")])
    assert res.exit_code == 0 and "frame size unknown" in res.output


def test_exposure_command(tmp_path):
    img = np.full((200, 300, 3), (60, 90, 110), np.uint8)
    img += np.random.default_rng(0).integers(0, 3, img.shape).astype(np.uint8)
    img[:, :80] = np.random.default_rng(1).integers(0, 255, (200, 80, 3), np.uint8)
    cv2.imwrite(str(tmp_path / "card.png"), img)
    res = runner.invoke(app, ["calibrate", "exposure", str(tmp_path / "card.png"), "--out",
                              str(tmp_path / "c.json")])
    assert res.exit_code == 0, res.output
    controls = json.loads((tmp_path / "c.json").read_text())["controls"]
    assert set(controls) == {"AeEnable", "AwbEnable", "ColourGains", "AnalogueGain",
                             "ExposureTime"}


def test_simulated_pips_are_used_and_reported(tmp_path):
    s = tmp_path / "s.npz"
    res = runner.invoke(app, ["calibrate", "simulate", "--n", "6000", "--pip-error", "0.02",
                              "--out", str(s)])
    assert res.exit_code == 0 and "pips misread 0.02" in res.output
    res = runner.invoke(app, ["calibrate", "model", "--samples", str(s), "--out",
                              str(tmp_path / "p.json"), "--report-dir", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "accept rule: confidence and pips agree" in res.output
    evidence = json.loads((tmp_path / "p.json").read_text())["evidence"]
    assert evidence["accept_rule"] == "confidence_and_pips" and evidence["fit_pips_disagree"] > 0
    assert cv2.imread(str(tmp_path / "calibration-threshold.png")) is not None


def test_model_reads_the_dataset_as_the_game_named(tmp_path, built_readers):
    # A Craps table's profile is fitted on the crops that table reads: behind
    # detector.thrown.onnx (docs/verdicts.md, session 25, rule 15); a Props & Hops table's
    # behind detector.shaker.onnx, read by reader.shaker.onnx (models/reader.md, session 37);
    # a Craps table's crops are read by reader.thrown.onnx (session 53, rule 54).
    from pathlib import Path

    from dicecall.vision.config import ReaderConfig

    frames = Path(__file__).resolve().parents[1] / "data" / "frames"
    for game in ("craps", "props-and-hops"):
        res = runner.invoke(app, ["calibrate", "model", str(frames), "--game", game,
                                  "--out", str(tmp_path / "p.json")])
        assert "matched 24" in res.output, res.output  # 7 frames: too few dice to fit
    cfg = ReaderConfig()
    assert [(c.detector, c.reader) for c in built_readers] == [
        (cfg.thrown_detector, cfg.thrown_reader), (cfg.shaker_detector, cfg.shaker_reader)]
    res = runner.invoke(app, ["calibrate", "model", str(frames), "--game", "roulette"])
    assert res.exit_code == 2 and "roulette" in res.output


def test_model_profile_records_the_reader_and_the_detector_it_was_fitted_behind(
        tmp_path, monkeypatch):
    # The edge refuses a profile fitted on other crops (calibration/profile.py): a profile
    # made for a Craps table names detector.thrown.onnx, whose boxes its crops were cut from.
    from dicecall.calibration import collect as collect_module
    from dicecall.calibration.profile import file_sha256
    from dicecall.calibration.scores import synthetic_samples
    from dicecall.vision.config import ReaderConfig

    monkeypatch.setattr(collect_module, "collect",
                        lambda reader, data, limit: (synthetic_samples(4000, 2.0, 0), {}))
    frames = Path(__file__).resolve().parents[1] / "data" / "frames"
    res = runner.invoke(app, ["calibrate", "model", str(frames), "--game", "craps",
                              "--out", str(tmp_path / "p.json")])
    assert res.exit_code == 0, res.output
    evidence = json.loads((tmp_path / "p.json").read_text())["evidence"]
    cfg = ReaderConfig()
    assert evidence["detector_sha256"] == file_sha256(cfg.thrown_detector)
    assert evidence["reader_sha256"] == file_sha256(cfg.thrown_reader)
    assert evidence["detector_sha256"] != file_sha256(cfg.detector)


def test_samples_saved_from_a_set_keep_the_models_and_a_profile_fitted_on_them_binds(
        tmp_path, monkeypatch):
    """`--save-samples`, then `--samples`: the profile named no model before (session 39's
    audit), so it loaded for any reader; now it names the ones that read the set."""
    from dicecall.calibration import collect as collect_module
    from dicecall.calibration.profile import file_sha256
    from dicecall.calibration.scores import synthetic_samples
    from dicecall.vision.config import ReaderConfig

    monkeypatch.setattr(collect_module, "collect",
                        lambda reader, data, limit: (synthetic_samples(4000, 2.0, 0), {}))
    frames = Path(__file__).resolve().parents[1] / "data" / "frames"
    saved = tmp_path / "s.npz"
    assert runner.invoke(app, ["calibrate", "model", str(frames), "--game", "craps", "--out",
                               str(tmp_path / "a.json"), "--save-samples", str(saved)]
                         ).exit_code == 0
    res = runner.invoke(app, ["calibrate", "model", "--samples", str(saved), "--out",
                              str(tmp_path / "b.json")])
    assert res.exit_code == 0, res.output
    first = json.loads((tmp_path / "a.json").read_text())
    again = json.loads((tmp_path / "b.json").read_text())
    cfg = ReaderConfig()
    assert again["evidence"]["reader_sha256"] == file_sha256(cfg.thrown_reader)
    assert again["evidence"]["detector_sha256"] == file_sha256(cfg.thrown_detector)
    assert again["reader"]["views"] == first["reader"]["views"] == cfg.views


def test_lamps_command_measures_each_lamp_on_the_empty_floor(tmp_path):
    """Four frames of a level grey floor: every lamp off, then lamps 10 % over, equal to and
    10 % under the mean; the rig written holds those gains and the edge loads it."""
    from dicecall.vision.lamps import LampRig

    names = []
    for k, level in enumerate((40.0, 40 + 100 * 1.1, 40 + 100 * 1.0, 40 + 100 * 0.9)):
        path = tmp_path / f"lamp{k}.png"
        cv2.imwrite(str(path), np.full((120, 160, 3), level, np.uint8))
        names.append(str(path))
    out = tmp_path / "lamps.json"
    res = runner.invoke(app, ["calibrate", "lamps", *names, "--region", "20,20,100,80",
                              "--out", str(out)])
    assert res.exit_code == 0, res.output
    rig = LampRig.model_validate_json(out.read_text())
    assert [round(g, 2) for g in rig.gains] == [1.1, 1.0, 0.9]
    bad = runner.invoke(app, ["calibrate", "lamps", *names[:3], "--region", "20,20,100,80",
                              "--out", str(tmp_path / "x.json")])
    assert bad.exit_code == 2 and "four frames" in bad.output
    dark = runner.invoke(app, ["calibrate", "lamps", names[0], names[0], names[0], names[0],
                               "--region", "20,20,100,80", "--out", str(tmp_path / "y.json")])
    assert dark.exit_code == 2 and "min_signal" in dark.output
    assert not (tmp_path / "x.json").exists() and not (tmp_path / "y.json").exists()
