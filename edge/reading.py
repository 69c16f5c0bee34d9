"""One settled frame -> the roll posted to the service (reader, verdict, evidence, body).

The calibration files are loaded once: the table calibration (`calibration.zones.load_table`:
the verdict's zones and, when the camera's intrinsics were calibrated, its view of the felt
for the reader's flags), the model profile (`calibration.profile.load_profile` -> reader
temperature and verdict thresholds). Without a zones file the whole frame is the play area,
sized from the first frame read, and the reader assumes a straight camera of typical lens.
"""

from __future__ import annotations

import base64
import json
import logging
import uuid
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np

from dicecall.vision.evidence import Evidence, encode, evidence, model_ids, reason_counts
from dicecall.vision.images import imread
from dicecall.vision.profiles import Zones, profile
from dicecall.vision.verdict import (
    NO_ROLL,
    REVIEW,
    Reason,
    RollVerdict,
    VerdictConfig,
    thrown,
    verdict,
)

from .config import EdgeConfig
from .flow import Expect
from .sources import Frame

log = logging.getLogger("dicecall.edge")

MAX_FACES = 10  # RollIn.faces: the most dice any game throws
COUNT_CODES = ("die_missing", "extra_object")  # findings that depend on the dice expected


@dataclass(frozen=True)
class Roll:
    roll_id: str
    seq: int
    body: bytes
    verdict: RollVerdict
    with_jpeg: bool


def _reader(cfg: EdgeConfig, view=None):
    from dicecall.vision.config import MODELS_DIR, ReaderConfig, for_game
    from dicecall.vision.reader import DiceReader

    base = {"threads": cfg.reader.threads, "views": cfg.reader.views}
    if cfg.reader.first_views is not None:
        base["first_views"] = cfg.reader.first_views
    if cfg.reader.detector is not None:  # the integrator's detector, in every game
        base.update(detector=cfg.reader.detector, thrown_detector=None, shaker_detector=None)
    if cfg.reader.reader is not None:  # the integrator's reader, in every game
        base.update(reader=cfg.reader.reader, thrown_reader=None, shaker_reader=None)
    if cfg.reader.int8:  # each game's own reader, as INT8 (models/README.md, session 24)
        base.update(reader=MODELS_DIR / "reader.int8.onnx",
                    thrown_reader=MODELS_DIR / "reader.thrown.int8.onnx",
                    shaker_reader=MODELS_DIR / "reader.shaker.int8.onnx")
    # The game picks the files first, so a model profile is checked against the reader this
    # table reads with (a Craps table's profile was fitted on the thrown reader).
    rcfg = for_game(ReaderConfig(**base), profile(cfg.game).cocked_counts)
    if cfg.model_profile is not None:
        from dicecall.calibration.profile import load_profile

        rcfg, _ = load_profile(cfg.model_profile, rcfg)
    return DiceReader(rcfg, view)


@dataclass(frozen=True)
class Scene:
    image: np.ndarray
    dice: Any
    zones: Zones
    clean: tuple[int, bytes] | None = None  # (quality, the clean evidence JPEG) made early


def _phase_unknown(v: RollVerdict, section: str) -> RollVerdict:
    kept = [r for r in v.reasons if r.code not in COUNT_CODES]
    kept.append(Reason("phase_unknown", REVIEW, section, (),
                       "the previous throw is held for review: first throw or Extra Roll "
                       "is not known, so the dice count is left to the reviewer"))
    status = NO_ROLL if any(r.status == NO_ROLL for r in kept) else REVIEW
    kept.sort(key=lambda r: r.status != NO_ROLL)
    return replace(v, status=status, reasons=tuple(kept))


class Reading:
    """Holds the reader and calibration of one table and turns frames into rolls."""

    def __init__(self, cfg: EdgeConfig, reader: Any = None) -> None:
        self.cfg = cfg
        self.vcfg = VerdictConfig()
        if cfg.model_profile is not None:
            from dicecall.calibration.profile import load_profile

            # The verdict's lines only: `_reader` checks the profile against the reader file
            # this table reads with (the integrator's, or the game's bundled one).
            _, self.vcfg = load_profile(cfg.model_profile, check_model=False)
        self.zones: Zones | None = None
        self.view = None
        self.table, self._checked_size = None, None
        if cfg.zones is not None:
            from dicecall.calibration.zones import load_table

            self.table = load_table(cfg.zones)
            self.zones, self.view = self.table.zones_px, self.table.pose.floor_view()
        self.reader = reader if reader is not None else _reader(cfg, self.view)
        self.lamp_rig = None if cfg.lamps is None else cfg.lamps.load_rig()
        # Hashed once: every roll's annotated evidence names the files that read it.
        rc = getattr(self.reader, "config", None)
        self.models = None if rc is None else model_ids(rc.detector, rc.reader)
        if self.models is not None and cfg.model_profile is not None:
            # The lines that made the call are the profile's: the evidence names it too.
            from dicecall.calibration.profile import file_sha256

            self.models["profile"] = file_sha256(cfg.model_profile)
        self._reference = None
        if cfg.settle.reference_image is not None:
            image = imread(cfg.settle.reference_image, cv2.IMREAD_GRAYSCALE)
            if image is None:
                from .config import ConfigError

                raise ConfigError(f"settle.reference_image {cfg.settle.reference_image}: "
                                  "cannot be read as an image")
            self._reference = image

    def reference_grey(self) -> np.ndarray | None:
        return self._reference

    def fit_reference(self, current: np.ndarray | None, grey: np.ndarray) -> np.ndarray | None:
        """The configured reference image scaled to the motion frames' size (once)."""
        if current is None or current.shape == grey.shape:
            return current
        h, w = grey.shape
        return cv2.resize(current, (w, h), interpolation=cv2.INTER_AREA)

    def detect(self, frame: Frame) -> Scene:
        """Runs the reader on a settled frame (the costly part; no verdict yet)."""
        image = frame.bgr()
        self._check_frame(image.shape[1], image.shape[0])
        zones = self.zones or Zones.whole_frame(image.shape[1], image.shape[0])
        return Scene(image, self.reader.read(image), zones)

    def _check_frame(self, width: int, height: int) -> None:
        """Warns, once per frame size, of each calibrated play zone that runs past the frame's
        edge: the camera has moved or the zones were drawn for another picture, and a die
        there is cut off or unseen (`calibration.zones.outside_frame`)."""
        if self.table is None or self._checked_size == (width, height):
            return
        from dicecall.calibration.zones import outside_frame

        self._checked_size = (width, height)
        for name, edge, d in outside_frame(self.table, width, height):
            log.warning("play zone %s runs %.1f px past the %s edge of the %dx%d frames: a die "
                        "there is cut off or unseen", name, d, edge, width, height)

    def in_play(self, scene: Scene) -> int:
        """Dice that count as thrown: in the play zone or a no-roll zone, not held. Held dice
        are left out in either phase: a still scene of the holding boxes alone, once the
        rest were collected for the Extra Roll, is not a throw."""
        return int(thrown(scene.dice, scene.zones, holding=True).sum())

    def roll(self, frame: Frame, expect: Expect | None, seq: int,
             scene: Scene | None = None) -> Roll:
        """Builds the exact body that the outbox stores and posts.

        `expect` None: High Roll with the previous throw still held for review, so whether
        this is a first throw or an Extra Roll is not known. The dice count is then not
        judged; the roll goes to review (`phase_unknown`, 675a.4(d); 675a.6(h) for six dice)
        with every other finding, and a no-roll finding that holds for any dice count still
        wins. Dice on the holding boxes are left out, as on the Extra Roll.
        """
        scene = scene or self.detect(frame)
        image = scene.image
        extra = expect is not None and expect.phase == "extra"
        prof = profile(self.cfg.game, expect.dice if extra else None)
        if expect is None:  # it may be the Extra Roll: dice on the holding boxes stay out
            prof = replace(prof, extra_roll=True)
        elif len(scene.dice) < prof.expected:
            # Too few dice: touching dice may share one peak (docs/verdicts.md, rule 41), a
            # die may be found only as its pips (models/reader.md, rule 42).
            scene = replace(scene, dice=self.reader.recount(scene.image, scene.dice,
                                                            prof.expected))
        v = verdict(scene.dice, prof, scene.zones, self.vcfg,
                    (image.shape[1], image.shape[0]))
        if expect is None:
            v = _phase_unknown(v, prof.sections["dispute"])
        ev = self._evidence(image, v, scene.clean)
        roll_id = str(uuid.uuid4())
        faces = list(v.faces)[:MAX_FACES]
        confidences = [min(1.0, max(0.0, float(c))) for c in v.confidences][:MAX_FACES]
        status_of: dict = {}
        for r in v.reasons:  # strictest first: a code's first finding gives its call
            status_of.setdefault((r.code, r.section), r.status)
        body: dict = {
            "roll_id": roll_id, "seq": seq, "verdict": v.status, "faces": faces,
            # Each finding once: the body carries no die numbers, so ten dice held for the
            # same reason would be ten equal entries, and past 20 the rest were cut.
            "reasons": [{"code": code[:64], "section": section[:64],
                         "status": status_of[code, section]}
                        for code, section in reason_counts(v)][:20],
            "confidences": confidences,
            "evidence": {"clean_sha256": ev.clean_sha256,
                         "annotated_sha256": ev.annotated_sha256},
            "captured_at": round(frame.wall, 3)}
        with_jpeg = False
        if self.cfg.outbox.send_jpeg and not _fits(ev, self.cfg.outbox):
            log.error("evidence too large for the service even at quality 30: this roll is "
                      "sent with its evidence hashes only", extra={"roll_id": roll_id})
        elif self.cfg.outbox.send_jpeg:
            jpeg = {"clean_jpeg_b64": base64.b64encode(ev.clean_jpeg).decode(),
                    "annotated_jpeg_b64": base64.b64encode(ev.annotated_jpeg).decode()}
            body["evidence"].update(jpeg)
            with_jpeg = True
        raw = json.dumps(body, separators=(",", ":")).encode()
        return Roll(roll_id, seq, raw, v, with_jpeg)

    def with_lamps(self, scene: Scene, frames: list[np.ndarray]) -> Scene:
        """`scene` with each die's top face angle read from the lamps' four frames
        (`vision.lamps.lamp_tilt`; the verdict's `lamp_cocked_deg` judges it).

        Raises:
            ValueError: frames of another size than the frame read, or not four.
        """
        from dicecall.vision.lamps import lamp_tilt

        if any(f.shape != scene.image.shape for f in frames):
            raise ValueError(f"lamp frames of {[f.shape for f in frames]}, the frame read is "
                             f"{scene.image.shape}")
        tilt = lamp_tilt(frames, scene.dice.boxes, self.lamp_rig)
        return replace(scene, dice=replace(scene.dice, lamp_tilt=tilt))

    def with_clean(self, scene: Scene) -> Scene:
        """`scene` with its clean evidence JPEG encoded now, at the configured quality (the
        edge does it while the dice settle)."""
        quality = self.cfg.outbox.jpeg_quality
        return replace(scene, clean=(quality, encode(scene.image, quality)))

    def _evidence(self, image: np.ndarray, v: RollVerdict,
                  clean: tuple[int, bytes] | None = None) -> Evidence:
        """The evidence at the configured quality, or at a lower one (by 10, down to 30)
        until it fits the service's limits when the JPEGs are sent; past 30 it is kept as it
        is and `roll` sends its hashes only."""
        out = self.cfg.outbox
        quality = out.jpeg_quality
        while True:
            early = clean[1] if clean is not None and clean[0] == quality else None
            ev = evidence(image, v, quality, self.models, early)
            if not out.send_jpeg or quality <= 30 or _fits(ev, out):
                return ev
            quality = max(30, quality - 10)
            log.warning("evidence over the service's size limits: encoded again",
                        extra={"quality": quality})

    def without_jpeg(self, roll: Roll) -> Roll:
        """The same roll with only the evidence hashes (the outbox is full)."""
        return Roll(roll.roll_id, roll.seq, hashes_only(roll.body), roll.verdict, False)


def _fits(ev: Evidence, out) -> bool:
    """Both JPEGs under the service's limit, and the body with both in base64 (4/3 of their
    bytes) and the rest of the roll (a few kB) under its body limit."""
    jpegs = len(ev.clean_jpeg) + len(ev.annotated_jpeg)
    return (max(len(ev.clean_jpeg), len(ev.annotated_jpeg)) <= out.max_jpeg_bytes
            and 4 * jpegs // 3 + 16_384 <= out.max_body_bytes)


def hashes_only(body: bytes) -> bytes:
    """A roll body with its evidence reduced to the two sha256, the JPEGs left out."""
    roll = json.loads(body)
    roll["evidence"] = {k: roll["evidence"][k] for k in ("clean_sha256", "annotated_sha256")}
    return json.dumps(roll, separators=(",", ":")).encode()
