"""Evidence that the service can take, for every roll (issue 6; an audit in session 39).

A roll whose JPEG or body the service refuses (413) would never settle; a box the reader
gave as NaN stopped the evidence, and with it the roll; ten dice held for one reason were
ten equal entries in the body, and past 20 the rest were cut without a word.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from dicecall.edge.flow import Expect
from dicecall.edge.outbox import Pending
from dicecall.edge.publisher import Publisher
from dicecall.edge.reading import Reading, hashes_only
from dicecall.edge.sources import Frame
from dicecall.vision.dice import Dice
from dicecall.vision.evidence import encode, evidence, reason_counts
from dicecall.vision.profiles import Zones, profile
from dicecall.vision.verdict import Reason, verdict


class _Doubtful:
    """Two dice in mid-frame, both read at p 0.85 (under rule 46's floor, 0.9): two
    `low_confidence` findings."""

    def recount(self, image: np.ndarray, dice: Dice, expected: int) -> Dice:
        return dice

    def read(self, image: np.ndarray) -> Dice:
        h, w = image.shape[:2]
        c = np.array([[w * 0.4, h / 2], [w * 0.6, h / 2]], np.float32)
        probs = np.zeros((2, 6), np.float32)
        probs[:, 2], probs[:, 3] = 0.85, 0.15
        return Dice(centers=c, boxes=np.concatenate([c - 12, c + 12], 1), face=[3, 3],
                    face_probs=probs, pip_face=[3, 3], tilt=np.zeros(2), stacked=np.zeros(2),
                    det_score=np.ones(2))


def _reading(tmp_path, kit, **outbox) -> Reading:
    svc = SimpleNamespace(url="http://127.0.0.1:9")
    cfg = kit.config(tmp_path, svc, kit.TABLE, kit.DEVICE, "s" * 32, tmp_path, outbox=outbox)
    return Reading(cfg, reader=_Doubtful())


def _noisy(h: int = 480, w: int = 640) -> np.ndarray:
    # Sensor noise is what makes a JPEG large; a flat test card compresses to nothing.
    return np.random.default_rng(0).integers(0, 255, (h, w, 3), np.uint8)


def _roll(reading: Reading, image: np.ndarray) -> dict:
    frame = Frame(t=1.0, wall=1_700_000_000.0, image=image, grey=None, label="f")
    return json.loads(reading.roll(frame, Expect(dice=2, phase="throw"), 1).body)


def test_each_finding_is_in_the_body_once(tmp_path, kit):
    body = _roll(_reading(tmp_path, kit), _noisy(240, 320))
    assert body["reasons"] == [{"code": "low_confidence", "section": "623a.9(c)",
                                "status": "needs_review"}]


def test_evidence_over_the_service_limit_is_encoded_again_smaller(tmp_path, kit):
    image = _noisy()
    big = len(encode(image, 90))
    small = len(encode(image, 30))
    limit = (big + small) // 2
    body = _roll(_reading(tmp_path, kit, max_jpeg_bytes=limit), image)
    ev = body["evidence"]
    for kind in ("clean", "annotated"):
        jpeg = base64.b64decode(ev[f"{kind}_jpeg_b64"])
        assert len(jpeg) <= limit
        assert hashlib.sha256(jpeg).hexdigest() == ev[f"{kind}_sha256"]
        assert cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR).shape == image.shape


def test_evidence_too_large_even_at_quality_30_goes_as_hashes(tmp_path, kit):
    image = _noisy()
    assert len(encode(image, 30)) > 10_000
    body = _roll(_reading(tmp_path, kit, max_jpeg_bytes=10_000), image)
    assert set(body["evidence"]) == {"clean_sha256", "annotated_sha256"}


def test_the_body_limit_counts_both_jpegs_in_base64(tmp_path, kit):
    image = _noisy()
    both = len(encode(image, 90)) * 2
    # Room for the two JPEGs as bytes, not as base64 (4/3 as many): not sent at quality 90.
    limit = max(100_000, both + 20_000)  # each JPEG alone fits: the body is what binds
    body = _roll(_reading(tmp_path, kit, max_body_bytes=limit, max_jpeg_bytes=limit), image)
    sent = sum(len(body["evidence"].get(k, "")) for k in ("clean_jpeg_b64",
                                                           "annotated_jpeg_b64"))
    assert sent > 0  # sent smaller, not dropped: at quality 30 both fit in base64
    assert sent + 16_384 <= limit


class _Client:
    """Answers 413 to a body with JPEGs, 201 to one without; keeps what it was sent."""

    def __init__(self) -> None:
        self.bodies: list[dict] = []

    def request(self, method, path, body=b""):
        roll = json.loads(body)
        self.bodies.append(roll)
        too_big = "clean_jpeg_b64" in roll["evidence"]
        return (413, {"code": "too_large"}) if too_big else (201, {"roll_id": roll["roll_id"]})


def test_a_roll_refused_as_too_large_is_sent_again_with_its_hashes():
    body = json.dumps({"roll_id": "r1", "seq": 3, "evidence": {
        "clean_sha256": "a" * 64, "annotated_sha256": "b" * 64,
        "clean_jpeg_b64": "AAAA", "annotated_jpeg_b64": "BBBB"}}).encode()
    client = _Client()
    pub = Publisher(SimpleNamespace(), client, "t", on_ack=None, on_error=None, on_reject=None)
    outcome, status, _ = pub.send(Pending(seq=3, roll_id="r1", body=body, settled_wall=0.0))
    assert (outcome, status) == ("ack", 201)
    assert [b["roll_id"] for b in client.bodies] == ["r1", "r1"]
    assert client.bodies[1]["evidence"] == {"clean_sha256": "a" * 64,
                                            "annotated_sha256": "b" * 64}
    assert json.loads(hashes_only(body)) == client.bodies[1]


def _verdict(boxes, n_extra_reasons: int = 0):
    n = len(boxes)
    c = np.array([[100 + 40 * k, 100] for k in range(n)], np.float32)
    # under rule 46's floor (0.9), which would let an agreeing face count (rule 62)
    probs = np.full((n, 6), 0.03, np.float32)
    probs[:, 1] = 0.85
    dice = Dice(centers=c, boxes=np.array(boxes, np.float32), face=[2] * n, face_probs=probs,
                pip_face=[2] * n, tilt=np.zeros(n), stacked=np.zeros(n), det_score=np.ones(n))
    return verdict(dice, profile("high-roll-dice", n) if n <= 10 else profile("craps"),
                   Zones.whole_frame(640, 480))


@pytest.mark.parametrize("bad", [np.nan, np.inf, 1e10, -1e12])
def test_evidence_is_made_whatever_box_the_reader_gave(bad):
    v = _verdict([[90, 90, 110, 110], [130, 90, bad, 110]])
    ev = evidence(np.full((480, 640, 3), 90, np.uint8), v)
    assert hashlib.sha256(ev.annotated_jpeg).hexdigest() == ev.annotated_sha256


def _drawn(frame: np.ndarray, v) -> list[str]:
    """The text lines `annotate` draws, each once (it draws each twice: outline, fill)."""
    import dicecall.vision.evidence as module

    lines, real = [], module.cv2.putText

    def spy(img, text, *a, **k):
        lines.append(text)
        return real(img, text, *a, **k)

    module.cv2.putText = spy
    try:
        module.annotate(frame, v)
    finally:
        module.cv2.putText = real
    return list(dict.fromkeys(lines))


def test_one_reason_on_ten_dice_is_one_line_with_its_count():
    v = _verdict([[100 + 40 * k - 10, 90, 100 + 40 * k + 10, 110] for k in range(10)])
    assert reason_counts(v) == {("low_confidence", "675a.4(d)"): 10}
    assert "low_confidence (675a.4(d)) x10" in _drawn(np.full((480, 640, 3), 90, np.uint8), v)


def test_reasons_past_the_frame_foot_are_counted_not_dropped():
    v = _verdict([[90, 90, 110, 110]])
    many = tuple(Reason(f"code_{k}", "review", "675a.4(d)", (0,), "") for k in range(40))
    lines = _drawn(np.full((480, 640, 3), 90, np.uint8), dataclasses.replace(v, reasons=many))
    room = int((480 / 0.8 - 40) / 22)  # the lines a 480-high frame holds above the footer
    # the die's label, the status line, as many reasons as fit, and the count of the rest
    assert lines[2:room] == [f"code_{k} (675a.4(d))" for k in range(room - 2)]
    assert lines[room:] == [f"+{41 - room + 1} more reasons"]


@pytest.mark.parametrize("quality", [0, 101, True, "90", 1.5])
def test_jpeg_quality_must_be_1_to_100(quality):
    with pytest.raises(ValueError, match="JPEG quality"):
        encode(np.zeros((32, 32, 3), np.uint8), quality)


def test_the_evidence_names_the_profile_that_set_the_lines(tmp_path, kit):
    """The annotated JPEG's comment and footer name the models; a calibrated profile's lines
    made the call, so it is named too (and so is under the roll's annotated sha256)."""
    from dicecall.calibration.model import calibrate_samples
    from dicecall.calibration.scores import synthetic_samples
    from dicecall.vision.config import ReaderConfig

    path = tmp_path / "profile.json"
    calibrate_samples(synthetic_samples(4000, 2.0, 0), "synthetic").profile.save(path)
    svc = SimpleNamespace(url="http://127.0.0.1:9")
    cfg = kit.config(tmp_path, svc, kit.TABLE, kit.DEVICE, "s" * 32, tmp_path,
                     model_profile=str(path))
    reader = kit.Reader([(3, 4)])
    reader.config = ReaderConfig()
    reading = Reading(cfg, reader=reader)
    assert reading.models["profile"] == hashlib.sha256(path.read_bytes()).hexdigest()
    body = _roll(reading, _noisy(240, 320))
    jpeg = base64.b64decode(body["evidence"]["annotated_jpeg_b64"])
    assert f"profile={reading.models['profile']}".encode() in jpeg


@pytest.mark.parametrize("fits", [True, False])
def test_a_clean_jpeg_made_early_is_the_evidence_only_at_the_quality_sent(tmp_path, kit,
                                                                         fits):
    # The edge encodes the clean frame while the dice settle (settle.read_early); when the
    # evidence must be encoded again smaller to fit the service, the early one is not sent.
    image = _noisy()
    limit = 1_500_000 if fits else (len(encode(image, 90)) + len(encode(image, 30))) // 2
    reading = _reading(tmp_path, kit, max_jpeg_bytes=limit)
    frame = Frame(t=1.0, wall=1_700_000_000.0, image=image, grey=None, label="f")
    scene = reading.with_clean(reading.detect(frame))
    assert scene.clean == (90, encode(image, 90))
    ev = json.loads(reading.roll(frame, Expect(dice=2, phase="throw"), 1, scene).body)["evidence"]
    clean = base64.b64decode(ev["clean_jpeg_b64"])
    assert (clean == scene.clean[1]) is fits
    assert hashlib.sha256(clean).hexdigest() == ev["clean_sha256"] and len(clean) <= limit
