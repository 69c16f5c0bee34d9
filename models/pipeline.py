"""The two ONNX models run as the runtime will run them, for scoring and timing.

This is a reference for `vision/`, not the runtime itself: onnxruntime with two intra-op
threads, the contract's letterbox and crops, arg-max face.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import onnxruntime as ort

from dicecall.models.contract import (
    CROP_SCALE,
    crop_die,
    crops_to_input,
    die_geometry,
    letterbox,
)
from dicecall.models.crops import die_size
from dicecall.models.data import Sample, load_crops_folder, read_rgb
from dicecall.models.evaluate import (
    DET_THRESHOLD,
    DIE_THRESHOLD,
    PIP_RADIUS,
    PIP_THRESHOLD,
    count_pips,
    decode,
)
from dicecall.vision.pip_layout import fit_pips
from dicecall.vision.reader import die_probability, reader_feeds
from dicecall.vision.views import average_views


def session(path: Path | str, threads: int = 2) -> ort.InferenceSession:
    """An onnxruntime CPU session with `threads` intra-op threads and one inter-op thread."""
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    # Several sessions take turns on the same cores; one spinning after its run slows the
    # next, so threads spin only while a run lasts (vision.reader.open_session). The peer
    # is timed with the same options.
    so.add_session_config_entry("session.intra_op.allow_spinning", "1")
    so.add_session_config_entry("session.force_spinning_stop", "1")
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


class OnnxPipeline:
    """Detector then reader on one frame; the reader averages `views` turned views of each
    crop as the runtime does (1: each crop read once)."""

    def __init__(
        self,
        detector: Path | str,
        reader: Path | str,
        threshold: float = DET_THRESHOLD,
        threads: int = 2,
        pip_threshold: float = PIP_THRESHOLD,
        die_threshold: float = DIE_THRESHOLD,
        views: int = 1,
        pip_reading: str = "peaks",
    ) -> None:
        self.det = session(detector, threads)
        # "layout": the runtime's layout fit (`vision.pip_layout`), so `models evaluate`
        # counts pips right as `dicecall predict` reads them; "peaks": the training recipe's.
        self.pip_reading = pip_reading
        self.views = views
        self.reader = session(reader, threads)
        self.threshold = threshold
        self.pip_threshold = pip_threshold
        self.die_threshold = die_threshold

    def detect(self, frame_rgb: np.ndarray) -> np.ndarray:
        """[M, 5] cx, cy, w, h (frame pixels), score."""
        x, scale = letterbox(frame_rgb)
        heat, wh, off = self.det.run(["heatmap", "wh", "offset"], {"image": x})
        return decode(heat[0, 0], wh[0], off[0], scale, self.threshold)

    def read(self, frame_rgb: np.ndarray, dice: np.ndarray) -> dict[str, np.ndarray]:
        """Reader outputs for crops around `dice` [M, >=4] cx, cy, w, h (frame pixels)."""
        if len(dice) == 0:
            return {
                "face_logits": np.zeros((0, 6), np.float32),
                "pip_heatmap": np.zeros((0, 1, 32, 32), np.float32),
            }
        crops = np.stack(
            [crop_die(frame_rgb, cx, cy, CROP_SCALE * max(w, h)) for cx, cy, w, h in dice[:, :4]]
        )
        sizes = np.maximum(dice[:, 2], dice[:, 3])
        return self.read_crops(crops, die_geometry(dice[:, :2], sizes, frame_rgb.shape))

    def read_crops(self, crops: np.ndarray, geom: np.ndarray | None = None
                   ) -> dict[str, np.ndarray]:
        """Reader outputs for [N, 64, 64, 3] uint8 RGB crops; `geom` None: lone dice."""
        names = [o.name for o in self.reader.get_outputs()]
        batch = crops_to_input(crops)
        if geom is None:
            geom = np.zeros((len(batch), 3), np.float32)

        def run(b: np.ndarray, g: np.ndarray) -> dict[str, np.ndarray]:
            return dict(zip(names, self.reader.run(names, reader_feeds(self.reader, b, g)),
                            strict=True))

        # The runtime's views (vision/views.py), so `models evaluate --views 4` scores what
        # `dicecall evaluate` and the edge read.
        return average_views(run, batch, geom, self.views)

    def predict(
        self, frame_rgb: np.ndarray, sample: Sample | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(dice [M, 5], faces [M] 1-6, pip counts [M]) for one frame; `sample` is ignored.
        Detections the reader's die-or-not head rejects are dropped, as the runtime does."""
        return self._faces(frame_rgb, self.detect(frame_rgb), cascade=True)

    def _faces(
        self, frame_rgb: np.ndarray, dice: np.ndarray, cascade: bool = False
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        out = self.read(frame_rgb, dice)
        keep = die_probability(out) >= self.die_threshold if cascade else np.ones(len(dice), bool)
        faces = out["face_logits"][keep].argmax(1) + 1
        heat = out["pip_heatmap"][keep]
        pips = fit_pips(heat, PIP_RADIUS) if self.pip_reading == "layout" else \
            count_pips(heat, self.pip_threshold)
        return dice[keep], faces.astype(np.int64), pips

    def predict_oracle(
        self, frame_rgb: np.ndarray, sample: Sample
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Reader only: the labelled dice stand in for the detector's (diagnostics)."""
        size = die_size(sample)
        dice = np.column_stack([sample.centres, size, size, np.ones_like(size)])
        return self._faces(frame_rgb, dice.astype(np.float32))


def score_crops_folder(pipe: OnnxPipeline, folder: Path) -> dict:
    """Reader-only accuracy on single-die crops: the whole image is the crop.

    Greyscale files are read as RGB; each image is resized to 64x64 with INTER_AREA.
    """
    paths, faces = load_crops_folder(folder)
    crops = np.stack(
        [
            crop_die(im, im.shape[1] / 2, im.shape[0] / 2, max(im.shape[:2]))
            for im in (read_rgb(p) for p in paths)
        ]
    )
    pred = np.concatenate(
        [
            pipe.read_crops(crops[i : i + 256])["face_logits"].argmax(1) + 1
            for i in range(0, len(crops), 256)
        ]
    )
    confusion = np.zeros((6, 6), np.int64)
    np.add.at(confusion, (faces - 1, pred - 1), 1)
    wrong = [str(p) for p, f, q in zip(paths, faces, pred, strict=True) if f != q]
    return {
        "crops": len(faces),
        "face_right": int((pred == faces).sum()),
        "face_rate": float((pred == faces).mean()),
        "confusion": confusion.tolist(),
        "wrong": wrong[:50],
    }


def time_models(detector: Path, reader: Path, peer: Path, runs: int, dice: int) -> dict:
    """Median and p90 latency (ms) of each model, interleaved in one loop so that the
    shared CPU's load hits all of them alike."""
    sessions = {"peer": session(peer), "detector": session(detector), "reader": session(reader)}
    rng = np.random.default_rng(0)
    feeds = {
        "peer": {sessions["peer"].get_inputs()[0].name: rng.random((1, 3, 320, 320), np.float32)},
        "detector": {"image": rng.random((1, 3, 320, 320), np.float32)},
        "reader": reader_feeds(sessions["reader"], rng.random((dice, 3, 64, 64), np.float32),
                               None),
    }
    times: dict[str, list[float]] = {k: [] for k in sessions}
    for i in range(runs + 10):
        for name, sess in sessions.items():
            t0 = time.perf_counter()
            sess.run(None, feeds[name])
            if i >= 10:  # the first runs allocate and warm caches
                times[name].append((time.perf_counter() - t0) * 1000)
    out = {
        k: {"median_ms": float(np.median(v)), "p90_ms": float(np.percentile(v, 90))}
        for k, v in times.items()
    }
    ours = out["detector"]["median_ms"] + out["reader"]["median_ms"]
    out["ours_over_peer"] = ours / out["peer"]["median_ms"]
    out["dice_per_reader_call"] = dice
    return out


def score_flags(pipe: OnnxPipeline, samples: list[Sample], threshold: float = 0.5) -> dict:
    """Tilt and stacked heads on the labelled dice (oracle crops) of samples that carry
    those labels: recall of flagged dice and rate of false flags on the others."""
    logits: dict[str, list] = {"tilt_logit": [], "stacked_logit": []}
    labels: dict[str, list] = {"tilt_logit": [], "stacked_logit": []}
    for s in samples:
        if len(s.faces) == 0 or np.isnan(s.tilt).all():
            continue
        size = die_size(s)
        out = pipe.read(read_rgb(s.image), np.column_stack([s.centres, size, size]))
        for key, lab in (("tilt_logit", s.tilt), ("stacked_logit", s.stacked)):
            logits[key].append(out[key][:, 0])
            labels[key].append(lab)
    report = {}
    for key in logits:
        if not logits[key]:
            continue
        z, y = np.concatenate(logits[key]), np.concatenate(labels[key])
        ok = ~np.isnan(y)
        flag, y = (1 / (1 + np.exp(-z[ok])) >= threshold), y[ok] == 1
        report[key.replace("_logit", "")] = {
            "positives": int(y.sum()),
            "negatives": int((~y).sum()),
            "recall": float(flag[y].mean()) if y.any() else None,
            "false_flag_rate": float(flag[~y].mean()) if (~y).any() else None,
        }
    return report
