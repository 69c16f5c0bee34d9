"""The profile the edge loads, and collecting samples through a stand-in reader."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from dicecall.calibration import CalibrationError
from dicecall.calibration.collect import collect
from dicecall.calibration.model import calibrate_samples
from dicecall.calibration.profile import load_profile
from dicecall.calibration.scores import Samples, synthetic_samples
from dicecall.vision.config import ReaderConfig, for_game
from dicecall.vision.verdict import VerdictConfig


def test_profile_loads_into_the_edge_configs(tmp_path):
    cal = calibrate_samples(synthetic_samples(4000, 2.0, 0), "synthetic")
    cal.profile.save(tmp_path / "p.json")
    data = json.loads((tmp_path / "p.json").read_text())
    assert set(data["verdict"]) == set(VerdictConfig.model_fields)  # exact field names
    assert set(data["reader"]) <= set(ReaderConfig.model_fields)
    reader, verdict = load_profile(tmp_path / "p.json", ReaderConfig(threads=1))
    assert reader.temperature == cal.profile.reader.temperature and reader.threads == 1
    assert verdict == cal.profile.verdict
    assert verdict.void_margin == VerdictConfig().void_margin  # not calibrated: kept


def test_a_profile_loaded_first_leaves_the_games_crops_unsoftened(tmp_path):
    # `for_game` leaves a game's crops unsoftened unless the table asked for softening
    # (rule 52 judged softening without a game); a profile sets only its own fields.
    calibrate_samples(synthetic_samples(4000, 2.0, 0), "synthetic").profile.save(
        tmp_path / "p.json")
    reader, _ = load_profile(tmp_path / "p.json")
    assert ReaderConfig().soften_sigma > 0
    assert for_game(reader, cocked_counts=True).soften_sigma == 0.0
    assert for_game(reader, cocked_counts=True).temperature == reader.temperature
    soft, _ = load_profile(tmp_path / "p.json", ReaderConfig(soften_sigma=1.0))
    assert for_game(soft, cocked_counts=False).soften_sigma == 1.0
    # the edge picks the game's files first (edge/reading.py): the profile keeps them
    table = for_game(ReaderConfig(threads=1), cocked_counts=True)
    loaded, _ = load_profile(tmp_path / "p.json", table, check_model=False)
    assert (loaded.detector, loaded.reader, loaded.soften_sigma, loaded.threads) == (
        table.detector, table.reader, 0.0, 1)


def test_profile_makes_the_edge_read_with_the_views_it_was_fitted_on(tmp_path):
    samples = synthetic_samples(4000, 2.0, 0)
    # Fitted on two-view reads: the edge reads two views, whatever its own setting.
    calibrate_samples(samples, "synthetic", views=2).profile.save(tmp_path / "two.json")
    assert load_profile(tmp_path / "two.json", ReaderConfig(views=4))[0].views == 2
    # Views not known (a samples file): the edge's own setting stands.
    calibrate_samples(samples, "synthetic").profile.save(tmp_path / "unknown.json")
    assert load_profile(tmp_path / "unknown.json", ReaderConfig(views=4))[0].views == 4
    # A version 2 profile predates views: its reads were one view each.
    old = json.loads((tmp_path / "unknown.json").read_text())
    old["profile_version"] = 2
    del old["reader"]["views"]
    (tmp_path / "v2.json").write_text(json.dumps(old))
    assert load_profile(tmp_path / "v2.json", ReaderConfig(views=4))[0].views == 1


def test_profile_for_another_model_is_refused(tmp_path):
    cal = calibrate_samples(synthetic_samples(4000, 2.0, 0), "synthetic")
    model = tmp_path / "reader.onnx"
    model.write_bytes(b"model A")
    prof = cal.profile.model_copy(update={"evidence": cal.profile.evidence.model_copy(
        update={"reader_sha256": "0" * 64})})
    prof.save(tmp_path / "p.json")
    with pytest.raises(CalibrationError, match="another reader model"):
        load_profile(tmp_path / "p.json", ReaderConfig(reader=model))
    (tmp_path / "bad.json").write_text('{"reader": {"temperature": 0}}')
    with pytest.raises(CalibrationError, match="not a model profile"):
        load_profile(tmp_path / "bad.json")


def test_profile_behind_another_detector_is_refused(tmp_path):
    # The crops the thresholds were fitted on come from the detector's boxes; the no-game
    # reading and Craps / High Roll share a reader behind different detectors (session 37).
    from dicecall.calibration.profile import file_sha256

    det_a, det_b = tmp_path / "a.onnx", tmp_path / "b.onnx"
    det_a.write_bytes(b"detector A")
    det_b.write_bytes(b"detector B")
    cal = calibrate_samples(synthetic_samples(4000, 2.0, 0), "synthetic",
                            detector_sha256=file_sha256(det_a))
    cal.profile.save(tmp_path / "p.json")
    assert load_profile(tmp_path / "p.json", ReaderConfig(detector=det_a))[0].detector == det_a
    with pytest.raises(CalibrationError, match="another detector model"):
        load_profile(tmp_path / "p.json", ReaderConfig(detector=det_b))
    unrecorded = calibrate_samples(synthetic_samples(4000, 2.0, 0), "synthetic")
    unrecorded.profile.save(tmp_path / "old.json")  # profiles before session 37
    assert load_profile(tmp_path / "old.json", ReaderConfig(detector=det_b))[0].detector == det_b


# Pip-centre cells on a 16 x 16 heatmap, all within pip_radius of the centre.
_PIP_CELLS = [(8, 8), (6, 6), (10, 10), (6, 10), (10, 6), (8, 5), (8, 11)]


class _Session:
    """Reads the face from the crop's centre red level (face * 40) and draws as many pips on
    the pip heatmap as the green level says (pips * 30), as a model would."""

    def get_outputs(self):  # a reader without the die-or-not head keeps every detection
        from types import SimpleNamespace

        return [SimpleNamespace(name=n) for n in ("face_logits", "pip_heatmap", "tilt_logit",
                                                  "stacked_logit")]

    def run(self, names, feeds):
        crops = feeds["crops"]
        c = crops.shape[2] // 2
        face = np.clip(np.round(crops[:, 0, c, c] * 255 / 40), 1, 6).astype(int)
        pips = np.round(crops[:, 1, c, c] * 255 / 30).astype(int)
        logits = np.full((len(crops), 6), -3.0, np.float32)
        logits[np.arange(len(crops)), face - 1] = 5.0
        heat = np.zeros((len(crops), 1, 16, 16), np.float32)
        heat[:, 0, 0, 0] = 0.9  # a neighbouring die's pip at the crop's edge: not counted
        for k, n in enumerate(pips):
            for r, q in _PIP_CELLS[:n]:
                heat[k, 0, r, q] = 0.9
        tilt = (face == 6).astype(np.float32)[:, None] * 6 - 3  # "cocked" dice show a 6 here
        out = {"face_logits": logits, "pip_heatmap": heat, "tilt_logit": tilt,
               "stacked_logit": -tilt}
        return [out[n] for n in names]


class _Reader:
    def __init__(self, truth):
        # One view: the fake's heatmap does not turn with the crop, as a real reader's does.
        # Its pips are marks in listed cells, not a die's layout: they are counted as peaks.
        self.config = ReaderConfig(views=1, pip_reading="peaks")
        self.reader, self.truth = _Session(), truth

    def detect(self, frame):
        boxes = self.truth.pop(0)
        extra = np.array([[5, 5, 25, 25]], np.float32)  # one false detection per image
        boxes = np.concatenate([boxes, extra])
        centers = (boxes[:, :2] + boxes[:, 2:]) / 2 + 1.0
        return centers.astype(np.float32), boxes, np.ones(len(boxes), np.float32)


# Pips shown by each die: agree, agree, none (unreadable), 5 on a 4; 7 is not a face.
PIPS = [(1, 6), (2, 6), (0, 6), (5, 7)]


def test_collect_matches_dice_to_labels(tmp_path):
    truth = []
    for i in range(4):
        img = np.full((240, 320, 3), 90, np.uint8)
        dice, boxes = [], []
        for j, face in enumerate((1 + i, 6)):
            x0, y0 = 60 + 120 * j, 80
            box = [x0, y0, x0 + 40, y0 + 40]
            img[y0:y0 + 40, x0:x0 + 40] = face * 40
            img[y0:y0 + 40, x0:x0 + 40, 1] = PIPS[i][j] * 30  # BGR: green
            dice.append({"face": face, "box": box, "cocked": face == 6, "stacked": False})
            boxes.append(box)
        truth.append(np.array(boxes, np.float32))
        cv2.imwrite(str(tmp_path / f"s{i}.png"), img)
        (tmp_path / f"s{i}.json").write_text(json.dumps({"image": f"s{i}.png", "dice": dice}))
    samples, counts = collect(_Reader(truth), tmp_path)
    assert counts == {"images": 4, "labelled": 8, "matched": 8, "false_detections": 4,
                      "unreadable": 0, "missed": 0, "hidden": 0}
    read = samples.logits.argmax(1) + 1
    assert np.array_equal(read, samples.face)
    assert samples.cocked_label.tolist() == [0, 1] * 4
    assert np.array_equal(samples.tilt > 0.5, samples.cocked_label == 1)
    # The pip reading is kept as the edge counts it: 0 when the count is not a face.
    assert samples.pip_face.tolist() == [1, 6, 2, 6, 0, 6, 5, 0] and samples.has_pips
    samples.save(tmp_path / "s.npz")
    assert np.array_equal(Samples.load(tmp_path / "s.npz").pip_face, samples.pip_face)


def test_a_read_of_a_hidden_die_is_not_a_sample(tmp_path):
    """A die almost hidden under another keeps its box for the matching, but the read that
    lands on it is left out: its labelled face cannot be seen, so it is no evidence of a
    misread (the evaluator leaves it out too)."""
    img = np.full((240, 320, 3), 90, np.uint8)
    img[80:120, 60:100] = 3 * 40
    img[80:120, 60:100, 1] = 3 * 30
    cv2.imwrite(str(tmp_path / "h.png"), img)
    dice = [{"face": 3, "box": [60, 80, 100, 120], "visible": 1.0},
            {"face": 5, "box": [200, 80, 240, 120], "visible": 0.1}]
    (tmp_path / "h.json").write_text(json.dumps({"image": "h.png", "dice": dice}))
    truth = [np.array([d["box"] for d in dice], np.float32)]
    samples, counts = collect(_Reader(truth), tmp_path)
    assert counts["hidden"] == 1 and counts["matched"] == 2
    assert samples.face.tolist() == [3]


def test_collect_refuses_an_unknown_folder(tmp_path):
    with pytest.raises(CalibrationError, match="not a YOLO folder"):
        list(collect(_Reader([]), tmp_path))
