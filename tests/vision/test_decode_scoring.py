"""Decoding model outputs and scoring by centre matching, without a model."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicecall.vision.decode import _peaks, count_pips, decode_centres
from dicecall.vision.evaluate_synth import match_visible_first
from dicecall.vision.images import ImageError, check_frame, load_image
from dicecall.vision.preprocess import crops, letterbox
from dicecall.vision.scoring import Score, match


def test_decode_centres_maps_back_to_frame_pixels():
    heat = np.zeros((1, 1, 20, 20), np.float32)
    heat[0, 0, 5, 7] = 0.9
    heat[0, 0, 5, 8] = 0.6  # a shoulder of the same peak, not a second die
    wh = np.full((1, 2, 20, 20), 8.0, np.float32)
    off = np.full((1, 2, 20, 20), 0.5, np.float32)
    centers, boxes, scores = decode_centres(heat, wh, off, 4, 0.5, 0.3, 10)
    assert centers.tolist() == [[60.0, 44.0]]
    assert boxes.tolist() == [[52.0, 36.0, 68.0, 52.0]] and scores.tolist() == [pytest.approx(0.9)]


def test_pip_count_is_the_number_of_peaks():
    maps = np.zeros((3, 1, 32, 32), np.float32)
    for k, n in enumerate((1, 5, 7)):
        for j in range(n):
            maps[k, 0, 10 + 3 * (j % 4), 12 + 6 * (j // 4)] = 0.9
    assert count_pips(maps, 0.5).tolist() == [1, 5, 0]  # 7 pips is no face


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.integers(0, 2**32 - 1),
       st.floats(0.0, 1.0), st.booleans())
def test_peaks_are_the_local_maxima_of_every_3x3_neighbourhood(h, w, seed, threshold, plateau):
    """`_peaks` is the 3x3 maximum filter with -inf outside the map: every cell at or over the
    threshold that no neighbour exceeds (ties all count), strongest first."""
    rng = np.random.default_rng(seed)
    heat = rng.random((h, w), dtype=np.float32)
    if plateau:  # equal neighbours, as a saturated sigmoid gives
        heat = np.round(heat * 4) / 4
    padded = np.pad(heat, 1, constant_values=-np.inf)
    neigh = np.max(np.stack([padded[dy:dy + h, dx:dx + w]
                             for dy in range(3) for dx in range(3)]), axis=0)
    want = {(int(r), int(c)) for r, c in zip(*np.nonzero((heat >= neigh) & (heat >= threshold)),
                                             strict=True)}
    got = _peaks(heat, threshold)
    assert {(int(r), int(c)) for r, c in got} == want
    values = heat[got[:, 0], got[:, 1]] if len(got) else np.zeros(0)
    assert (np.diff(values) <= 0).all()


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 6), st.integers(0, 2**32 - 1), st.sampled_from([0.0, 0.3, 0.6]))
def test_pip_counts_of_a_batch_are_each_maps_own(n, seed, relative):
    """Counted together (one pass over the batch), each crop's pips are those of its own map:
    peaks within the radius, over the threshold and `relative` x its strongest inside."""
    rng = np.random.default_rng(seed)
    maps = (rng.random((n, 1, 32, 32), dtype=np.float32) ** 8).astype(np.float32)
    yy, xx = np.mgrid[0:32, 0:32]
    inside = np.hypot(xx + 0.5 - 16, yy + 0.5 - 16) <= 0.5 * 32 / 1.5
    want = []
    for m in maps[:, 0]:
        line = max(0.4, relative * float(m[inside].max())) if relative else 0.4
        k = int(inside[tuple(_peaks(m, line).T)].sum())
        want.append(k if 1 <= k <= 6 else 0)
    assert count_pips(maps, 0.4, 0.5, 1.5, relative).tolist() == want


def test_pips_of_a_neighbouring_die_at_the_crop_edge_do_not_count():
    """A 32-cell map spans 1.5 die sides (21.3 cells): a top face's pips lie within 0.42 side
    (9 cells) of the centre; a touching neighbour's nearest pips lie beyond 0.7 side."""
    heat = np.zeros((1, 1, 32, 32), np.float32)
    for r, c in ((10, 10), (16, 16), (22, 22)):  # a three, turned 45 degrees
        heat[0, 0, r, c] = 0.9
    heat[0, 0, 16, 31] = 0.9  # a neighbour's pip, 15 cells out
    assert count_pips(heat, 0.5).tolist() == [3]
    assert count_pips(heat, 0.5, radius=1.0).tolist() == [4]


def test_a_relative_pip_line_drops_a_faint_peak_beside_clear_pips():
    """A three read clearly (0.9) with a faint fourth peak (0.45) inside the radius counts 4
    at the absolute line 0.4, and 3 when a pip must also reach 0.6 x the strongest; a die
    whose pips are all faint keeps the absolute line (0.6 x 0.45 is under 0.4)."""
    heat = np.zeros((2, 1, 32, 32), np.float32)
    for r, c in ((10, 10), (16, 16), (22, 22)):
        heat[0, 0, r, c] = 0.9
        heat[1, 0, r, c] = 0.45
    heat[:, 0, 10, 22] = 0.45
    assert count_pips(heat, 0.4).tolist() == [4, 4]
    assert count_pips(heat, 0.4, relative=0.6).tolist() == [3, 4]


def test_match_is_one_to_one_nearest_first():
    gt = np.array([[0, 0, 10, 10], [8, 0, 18, 10]], np.float32)
    pred = np.array([[9, 5], [14, 5], [50, 50]], np.float32)
    assert sorted(match(pred, gt)) == [(0, 0), (1, 1)]
    s = Score()
    s.add("a", pred, [1, 2, 3], gt, [1, 5])
    d = s.as_dict()
    assert (d["found"], d["face_right"], d["false_per_image"]) == (2, 1, 1.0)
    assert d["confusion"][4][1] == 1


def test_the_score_counts_the_pip_reading_right_on_the_matched_dice_only():
    """`pips_right_rate` is over the labelled dice, as `read_right_rate`: the false die's
    pips and a missed die count for nothing; a pip reading of 0 (none) is never right."""
    gt = np.array([[0, 0, 10, 10], [20, 0, 30, 10], [40, 0, 50, 10]], np.float32)
    pred = np.array([[5, 5], [25, 5], [45, 5], [90, 90]], np.float32)
    s = Score()
    s.add("a", pred, [1, 2, 3, 4], gt, [1, 2, 3], pred_pips=[1, 0, 6, 4])
    d = s.as_dict()
    assert (d["face_right"], d["pips_right"]) == (3, 1)
    assert d["pips_right_rate"] == pytest.approx(1 / 3)
    s.add("b", pred[:1], [6], gt[:1], [6])  # a caller without pips: faces only
    assert (s.face_right, s.pips_right, s.labelled) == (4, 1, 4)


def test_a_die_on_a_hidden_die_keeps_its_detection():
    # The top die (visible) sits over the die beneath (hidden, unscored); the detection lies
    # in both boxes, nearer the hidden one's centre. It is the top die's: found, not false.
    boxes = np.array([[10, 10, 40, 40], [20, 20, 44, 44], [100, 100, 120, 120]], np.float32)
    seen = np.array([True, False, True])
    pred = np.array([[30, 30], [110, 110], [60, 60]], np.float32)
    pairs, keep = match_visible_first(pred, boxes, seen)
    assert sorted(pairs) == [(0, 0), (1, 2)]
    assert keep.tolist() == [True, True, True]  # (60, 60) is on nothing: a false die
    # A second detection on the hidden die alone is neither found nor false.
    pred2 = np.vstack([pred, [[42, 42]]]).astype(np.float32)
    pairs2, keep2 = match_visible_first(pred2, boxes, seen)
    assert sorted(pairs2) == [(0, 0), (1, 2)] and keep2.tolist() == [True, True, True, False]


def test_letterbox_and_crops_shapes():
    frame = np.random.default_rng(1).integers(0, 255, (300, 600, 3), np.uint8)
    x, s = letterbox(frame, 320)
    assert x.shape == (1, 3, 320, 320) and s == pytest.approx(320 / 600)
    assert np.allclose(x[0, :, 200:, :], 127 / 255)  # padding below the frame
    # The models were trained on RGB planes in [0, 1]: the frame's own pixels, turned
    # from OpenCV's BGR, exactly as OpenCV would convert and scale them.
    small = cv2.cvtColor(cv2.resize(frame, (320, 160), interpolation=cv2.INTER_AREA),
                         cv2.COLOR_BGR2RGB)
    assert np.array_equal(x[0, :, :160], (small.astype(np.float32) * (1 / 255)).transpose(2, 0, 1))
    centers = np.array([[5, 5], [300, 150]], np.float32)
    c = crops(frame, centers, np.array([40, 2000], np.float32), 64)
    assert c.shape == (2, 3, 64, 64) and c.min() >= 0 and c.max() <= 1


@pytest.mark.parametrize("content", [b"", b"not an image at all", b"\xff\xd8\xff\xe0broken"])
def test_bad_image_files_give_clear_errors(tmp_path, content):
    path = tmp_path / "bad.jpg"
    path.write_bytes(content)
    with pytest.raises(ImageError, match=r"bad\.jpg"):
        load_image(path)


def test_blank_and_missing_frames_are_refused(tmp_path):
    with pytest.raises(ImageError, match="blank"):
        check_frame(np.full((100, 100, 3), 40, np.uint8))
    with pytest.raises(ImageError, match="no such file"):
        load_image(tmp_path / "nope.png")


def test_two_peaks_of_one_large_die_decode_as_one():
    heat = np.zeros((1, 1, 20, 20), np.float32)
    heat[0, 0, 5, 5], heat[0, 0, 5, 7], heat[0, 0, 15, 15] = 0.9, 0.8, 0.7
    wh = np.full((1, 2, 20, 20), 40.0, np.float32)  # 40 px dice: peaks 8 px apart are one
    off = np.zeros((1, 2, 20, 20), np.float32)
    centers, _, scores = decode_centres(heat, wh, off, 4, 1.0, 0.3, 10)
    assert centers.tolist() == [[20.0, 20.0], [60.0, 60.0]]
    assert scores.tolist() == [pytest.approx(0.9), pytest.approx(0.7)]


@pytest.mark.parametrize(("frame", "flagged"), [("shaker_0000001", 1), ("craps_0000004", 0)])
def test_cocked_recall_uses_the_games_tilt_line(tmp_path, monkeypatch, frame, flagged):
    """With lines of 0.05 in Props & Hops and 0.1 in Craps (the defaults replaced: session
    17's are both 0.05), a tilt of 0.07 is cocked in Props & Hops (668a.3(h)) and flat in
    Craps (623a.9(b)): the synthetic evaluation counts recall at the line the verdict applies
    to the scene's game."""
    from dicecall.vision import verdict as verdict_module
    from dicecall.vision.evaluate_synth import evaluate_synthetic

    lines = verdict_module.VerdictConfig(tilt_threshold=0.1, no_roll_tilt_threshold=0.05)
    monkeypatch.setattr(verdict_module, "VerdictConfig", lambda: lines)
    rec, boxes = _one_scene(tmp_path, frame, lambda r: r["dice"][0].update(
        cocked=True, tilt_deg=10.0, up_margin_deg=80.0))

    class Stub:
        def read(self, frame, view=None, expected=None):
            return _dice_at(boxes, [d["face"] for d in rec["dice"]], tilt=0.07)

    bands = evaluate_synthetic(Stub(), tmp_path).by_band
    assert sum(b["labelled"] for k, b in bands.items() if k.startswith("cocked")) == 1
    assert sum(b["flagged"] for k, b in bands.items() if k.startswith("cocked")) == flagged


def test_a_cocked_die_the_detector_misses_counts_against_recall(tmp_path):
    """Recall is over every scored cocked die: one never found is never flagged."""
    from dicecall.vision.evaluate_synth import evaluate_synthetic

    rec, boxes = _one_scene(tmp_path, "craps_0000004", lambda r: r["dice"][0].update(
        cocked=True, tilt_deg=20.0, up_margin_deg=60.0))

    class MissesIt:
        def read(self, frame, view=None, expected=None):
            return _dice_at(boxes[1:], [d["face"] for d in rec["dice"][1:]], tilt=0.99)

    bands = evaluate_synthetic(MissesIt(), tmp_path).by_band
    cocked = [b for k, b in bands.items() if k.startswith("cocked") and b["labelled"]]
    assert cocked == [{"labelled": 1, "found": 0, "flagged": 0, "recall": 0.0}]


def _one_scene(tmp_path, frame: str, edit) -> tuple[dict, np.ndarray]:
    """A committed sample scene copied into tmp_path with its record changed by `edit`."""
    import json
    import shutil
    from pathlib import Path

    src = Path(__file__).resolve().parents[1] / "data" / "frames" / f"{frame}.json"
    rec = json.loads(src.read_text())
    edit(rec)
    (tmp_path / src.name).write_text(json.dumps(rec))
    shutil.copy(src.with_name(rec["image"]), tmp_path / rec["image"])
    return rec, np.array([d["box"] for d in rec["dice"]], np.float32)


def _dice_at(boxes: np.ndarray, faces: list[int], tilt: float = 0.0):
    from dicecall.vision.dice import Dice

    n = len(boxes)
    return Dice(centers=(boxes[:, :2] + boxes[:, 2:]) / 2, boxes=boxes, face=np.array(faces),
                face_probs=np.full((n, 6), 1 / 6, np.float32), pip_face=np.zeros(n, np.int8),
                tilt=np.full(n, tilt, np.float32), stacked=np.zeros(n, np.float32),
                det_score=np.ones(n, np.float32))


def test_synthetic_scenes_are_read_with_their_own_camera(tmp_path):
    """The verdict's lines were chosen on reads given each scene's camera, as a calibrated
    table gives it; the evaluation's flag recall must come from reads made the same way."""
    from dicecall.vision.evaluate_synth import evaluate_synthetic
    from dicecall.vision.preprocess import FloorView

    up = [0.05, -0.1, -0.99]

    def add_camera(rec):
        rec["camera_up"] = up

    rec, boxes = _one_scene(tmp_path, "craps_0000004", add_camera)
    seen = []

    class Stub:
        def read(self, frame, view=None, expected=None):
            seen.append(view)
            counts.append(expected)
            return _dice_at(boxes, [d["face"] for d in rec["dice"]])

    counts: list = []
    evaluate_synthetic(Stub(), tmp_path)
    assert counts == [rec["expected_dice"]] == [2]  # and the table's count (rule 41)
    assert len(seen) == 1 and isinstance(seen[0], FloorView)
    assert np.allclose(seen[0].up, np.array(up) / np.linalg.norm(up))
    assert np.allclose(seen[0].k, rec["camera_k"])


def test_synthetic_evaluation_counts_found_and_read_by_kind(tmp_path):
    """A partly hidden die read wrong, a small die missed, and whole dice read right are
    each counted under their kind, so a labeller sees where the errors are."""
    from dicecall.vision.evaluate_synth import SMALL_PX, evaluate_synthetic

    def edit(rec):
        rec["dice"][0]["visible"] = 0.6  # partly hidden, still scored (>= 0.3)
        x0, y0 = rec["dice"][1]["box"][:2]
        rec["dice"][1]["box"] = [x0, y0, x0 + SMALL_PX - 5, y0 + SMALL_PX - 5]

    rec, boxes = _one_scene(tmp_path, "throwbox_0000005", edit)
    faces = [d["face"] for d in rec["dice"]]
    faces[0] = faces[0] % 6 + 1  # read wrong

    class Stub:
        def read(self, frame, view=None, expected=None):
            keep = np.arange(len(boxes)) != 1  # the small die is missed
            return _dice_at(boxes[keep], [f for k, f in enumerate(faces) if keep[k]])

    kinds = evaluate_synthetic(Stub(), tmp_path).by_kind
    n = len(boxes)
    assert kinds["flat"] == {"labelled": n, "found": n - 1, "read_right": n - 2,
                             "read_rate": (n - 2) / n}
    assert kinds["partly hidden"] == {"labelled": 1, "found": 1, "read_right": 0,
                                      "read_rate": 0.0}
    small = kinds[f"small (< {SMALL_PX:.0f} px)"]
    assert (small["labelled"], small["found"], small["read_right"]) == (1, 0, 0)
    assert kinds["cocked"]["labelled"] == kinds["stacked"]["labelled"] == 0


def test_synthetic_evaluation_counts_found_and_read_by_style(tmp_path):
    """A style the reader misreads shows as that style's own rate (bench_reader --unseen)."""
    from dicecall.vision.evaluate_synth import evaluate_synthetic

    def edit(rec):
        for k, d in enumerate(rec["dice"]):
            d["visible"] = 1.0
            d["style"] = "gold" if k < 2 else "plain"

    rec, boxes = _one_scene(tmp_path, "throwbox_0000005", edit)
    faces = [d["face"] for d in rec["dice"]]
    faces[1] = faces[1] % 6 + 1  # the second gold die is read wrong

    class Stub:
        def read(self, frame, view=None, expected=None):
            return _dice_at(boxes[1:], faces[1:])  # the first gold die is missed

    styles = evaluate_synthetic(Stub(), tmp_path).by_style
    n = len(boxes)
    assert styles["gold"] == {"labelled": 2, "found": 1, "read_right": 0, "read_rate": 0.0}
    assert styles["plain"] == {"labelled": n - 2, "found": n - 2, "read_right": n - 2,
                               "read_rate": 1.0}

