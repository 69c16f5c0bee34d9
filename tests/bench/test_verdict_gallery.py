"""bench/verdict_gallery.py: a captioned picture of the die behind a verdict error."""

import pickle
import sys
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from dicecall.vision.dice import Dice

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import verdict_gallery as vg


def _case(tmp_path: Path, read: bool):
    frame = np.full((300, 400, 3), 90, np.uint8)
    cv2.rectangle(frame, (185, 135), (215, 165), (255, 255, 255), -1)
    (tmp_path / "craps").mkdir(exist_ok=True)
    cv2.imwrite(str(tmp_path / "craps" / "craps_0000001.jpg"), frame)
    labels = [SimpleNamespace(box=[50, 50, 80, 80], face=2, cocked=False, stacked=False),
              SimpleNamespace(box=[185, 135, 215, 165], face=5, cocked=True, stacked=False,
                              tilt_deg=43.6, up_margin_deg=2.9)]
    rec = SimpleNamespace(image="craps_0000001.jpg", dice=labels)
    n = 2 if read else 1
    centers = np.array([[65.0, 65.0], [200.0, 150.0]][:n], np.float32)
    probs = np.zeros((n, 6), np.float32)
    probs[:, 4] = 1.0
    dice = Dice(centers=centers, boxes=np.hstack([centers - 15, centers + 15]),
                face=np.full(n, 5), face_probs=probs, pip_face=np.full(n, 5, np.int8),
                tilt=np.full(n, 0.14, np.float32), stacked=np.zeros(n, np.float32),
                det_score=np.ones(n, np.float32), up_margin=np.full(n, 43.1, np.float32))
    reads = tmp_path / f"reads{int(read)}.pkl"
    reads.write_bytes(pickle.dumps({"key": [("craps", rec, "void", [], dice)]}))
    return reads


def test_the_gallery_shows_the_cocked_die_and_what_was_read(tmp_path, monkeypatch):
    out = tmp_path / "g.png"
    cases = [f"{_case(tmp_path, r)}:{tmp_path}:craps_0000001.jpg:void through" for r in (1, 0)]
    monkeypatch.setattr(sys, "argv", ["verdict_gallery.py", "--out", str(out), *cases])
    vg.main()
    img = cv2.imread(str(out))
    assert img.shape == (vg.SIDE + 60, 2 * (vg.SIDE + 4), 3)
    # The tile is centred on the cocked die (the second label), not the first die.
    centre = img[vg.SIDE // 2 - 5:vg.SIDE // 2 + 5, vg.SIDE // 2 - 5:vg.SIDE // 2 + 5]
    assert centre.mean() > 200


@pytest.mark.parametrize(("read", "word"), [(True, "tilt 0.14"), (False, "missed")])
def test_a_read_of_the_die_is_captioned_and_a_miss_says_so(tmp_path, monkeypatch, read, word):
    frame = np.full((300, 400, 3), 90, np.uint8)
    _, rec, _, _, dice = pickle.loads(_case(tmp_path, read).read_bytes())["key"][0]
    texts, real = [], cv2.putText
    monkeypatch.setattr(vg.cv2, "putText",
                        lambda img, text, *a, **k: texts.append(text) or real(img, text, *a, **k))
    vg.tile(rec, dice, frame, "void")
    assert any(word in t for t in texts), texts


def test_a_roll_not_in_the_reads_is_a_clear_error(tmp_path, monkeypatch):
    case = f"{_case(tmp_path, True)}:{tmp_path}:craps_0000099.jpg:absent"
    monkeypatch.setattr(sys, "argv", ["verdict_gallery.py", "--out", str(tmp_path / "g.png"),
                                      case])
    with pytest.raises(SystemExit, match=r"no roll craps_0000099\.jpg"):
        vg.main()
    assert not (tmp_path / "g.png").exists()
