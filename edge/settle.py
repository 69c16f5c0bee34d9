"""Settle detection: (time, lores grey frame) -> motion / settling / settled / unchanged /
blocked.

Pure and deterministic: time comes from the frames (sensor or replay timestamps), never
from the clock, so a replayed sequence gives the same events at any replay speed.

The rule, in order, for every frame:

1. Motion: more pixels than `motion_pixels` changed their grey level by more than
   `motion_threshold` since the previous frame, or since the first frame of the current
   still run (which catches a die creeping by less than the threshold per frame).
   `motion_pixels` is `motion_fraction` of the frame, or a quarter of one die's top face
   (`die_px` squared / 4) when that is smaller: a share of the whole frame alone cannot see
   one small die rolling while the others lie still (0.002 of 320x240 is 154 pixels, more
   than a whole 12 px die). Sensor noise changes scattered single pixels, a moving die a
   compact patch: between the die's count and the frame's share, only changed pixels with
   at least two changed neighbours (3x3) are counted, so noise under the frame's share is
   not motion, as before. Above the frame's share every changed pixel counts, as before.
   Motion arms the detector: only a scene that was preceded by motion is read, so dice left
   lying on the table are read once, not on every frame.
2. Settled: armed, and `frames` consecutive still frames spanning at least `ms`, and at
   least `min_after_motion_ms` since the last moving frame.
3. Unchanged: a scene that would be settled, but matches the last scene read (no more than
   `motion_pixels` of its pixels differ by more than `motion_threshold`, counted as in 1).
   Motion alone does not make a new throw: a hand passing over dice lying there, a camera
   reopened (its exposure ramping up), a corrupt frame all look like motion, and the same
   dice read again would be one physical throw posted and settled twice. So the still
   scene itself must have changed: dice moved, the table cleared (an empty scene is read
   too, and becomes the scene to compare with), a new throw. A new throw landing on exactly
   the last one's spots with no cleared table seen in between is the one case missed, and
   it does not happen at a table: the dice are collected between throws.
4. Blocked: a scene that would be settled, but differs from the empty-table reference in
   more than `block_fraction` of its pixels. Dice are small (two dice cover well under 5 %
   of a table view, ten dice in a throw box under 15 %); a hand or arm resting in view, the
   shaker lid, or a stick covers far more. The reference is `reference_image` when set, else
   the first still scene after start, and it is updated with every scene that is read.
   What this catches: any large object at rest. What it misses: a small object (a finger
   tip, a chip) at rest beside the dice, and a start-up with a hand or the lid in view when
   no reference image is configured (then that scene becomes the reference; configure one).
   A blocked scene stays armed, so removing the hand (motion) and settling again reads it.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .config import SettleConfig

MOTION, SETTLING, SETTLED, BLOCKED = "motion", "settling", "settled", "blocked"
UNCHANGED = "unchanged"
EPS_MS = 0.01


@dataclass(frozen=True)
class SettleEvent:
    """One transition of the detector.

    Attributes:
        kind: "motion" (moving after still), "settling" (first still frame after motion),
            "settled" (read this frame), "blocked" (still, but a hand or the lid in view) or
            "unchanged" (still, but the scene already read: not read again).
        t: time of the frame that caused it, seconds (frame clock).
        still_since: time of the first still frame of the run (the dice came to rest), s.
        changed: share of pixels that changed (motion) or differ from the reference (blocked).
    """

    kind: str
    t: float
    still_since: float | None = None
    changed: float = 0.0


def changed_share(a: np.ndarray, b: np.ndarray, threshold: int) -> float:
    """Share of pixels whose uint8 grey level differs by more than `threshold`."""
    if a.shape != b.shape:
        return 1.0
    diff = np.abs(a.astype(np.int16) - b.astype(np.int16))
    return float(np.count_nonzero(diff > threshold)) / diff.size


def changed_pixels(a: np.ndarray, b: np.ndarray, threshold: int, floor: int,
                   ceiling: int) -> int:
    """Pixels whose uint8 grey level differs by more than `threshold`, noise left out.

    A count of at most `floor` or above `ceiling` is the plain count. In between, only the
    changed pixels with at least two changed neighbours (3x3) count: a die that moves
    changes a compact patch, sensor noise scattered single pixels. Shapes that differ: every
    pixel changed.
    """
    if a.shape != b.shape:
        return max(a.size, b.size)
    mask = cv2.absdiff(a, b) > threshold
    n = int(np.count_nonzero(mask))
    if n <= floor or n > ceiling:
        return n
    m = mask.view(np.uint8)
    around = cv2.boxFilter(m, -1, (3, 3), normalize=False, borderType=cv2.BORDER_CONSTANT)
    return int(np.count_nonzero(m & (around >= 3)))


def motion_pixels(cfg: SettleConfig, shape: tuple[int, int]) -> int:
    """How many changed pixels are motion in a (H, W) frame: `motion_fraction` of it, or a
    quarter of one die (`die_px` squared / 4, at least 1) when that is smaller."""
    frame = int(cfg.motion_fraction * shape[0] * shape[1])
    if cfg.die_px is None:
        return frame
    return min(frame, max(1, int(cfg.die_px ** 2 / 4)))


class SettleDetector:
    """Feeds on (t, grey) and returns the events of that frame (usually none)."""

    def __init__(self, cfg: SettleConfig, reference: np.ndarray | None = None) -> None:
        self.cfg = cfg
        self.reference = reference
        self.armed = False
        self._prev: np.ndarray | None = None
        self._anchor: np.ndarray | None = None  # first frame of the current still run
        self._still_since: float | None = None
        self._still_frames = 0
        self._last_motion: float | None = None
        self._read_scene: np.ndarray | None = None  # the last scene read (rule 3)
        self._read_t: float | None = None
        self._motion_px = 0  # of the frame's size, set by update (motion_pixels)

    def forget(self, t: float) -> None:
        """The read of the scene settled at `t` did not count (the reader or the outbox
        failed): after the next motion that scene may be read again, rather than lost. A
        later scene read since is kept (a High Roll read finishes after the next settle)."""
        if self._read_t == t:
            self._read_scene = self._read_t = None

    def _changed(self, a: np.ndarray, b: np.ndarray) -> int:
        ceiling = int(self.cfg.motion_fraction * a.size)
        return changed_pixels(a, b, self.cfg.motion_threshold, self._motion_px, ceiling)

    def _moving(self, grey: np.ndarray) -> int:
        n = self._changed(grey, self._prev)
        if self._anchor is not None and n <= self._motion_px:
            n = max(n, self._changed(grey, self._anchor))
        return n

    def update(self, t: float, grey: np.ndarray) -> list[SettleEvent]:
        """The events of one frame.

        Args:
            t: frame time in seconds, increasing.
            grey: (H, W) uint8 lores luminance; same shape every frame.
        """
        if grey.ndim != 2 or grey.dtype != np.uint8:
            raise ValueError(f"grey frame must be (H, W) uint8, got {grey.shape} {grey.dtype}")
        events: list[SettleEvent] = []
        self._motion_px = motion_pixels(self.cfg, grey.shape)
        if self._prev is None:
            self._prev = grey
            self._start_still(t, grey)
            return events
        moved = self._moving(grey)
        share = moved / grey.size
        self._prev = grey
        if moved > self._motion_px:
            if self._still_since is not None or not self.armed:
                events.append(SettleEvent(MOTION, t, changed=share))
            self.armed = True
            self._last_motion = t
            self._still_since, self._anchor, self._still_frames = None, None, 0
            return events
        if self._still_since is None:
            self._start_still(t, grey)
            if self.armed:
                events.append(SettleEvent(SETTLING, t, t))
        else:
            self._still_frames += 1
        if self.armed and self._is_settled(t):
            events.append(self._settle(t, grey))
        elif not self.armed and self.reference is None and self._is_settled(t):
            self.reference = grey  # the scene at start-up: the empty-table reference
        return events

    def _start_still(self, t: float, grey: np.ndarray) -> None:
        self._still_since, self._anchor, self._still_frames = t, grey, 1

    def _is_settled(self, t: float) -> bool:
        cfg = self.cfg
        since_motion = (t - self._last_motion) * 1000 if self._last_motion is not None else 1e12
        # EPS_MS: frame times are floats; 4 frames at 30 fps span 100 ms, not 99.99999.
        return (self._still_frames >= cfg.frames
                and (t - self._still_since) * 1000 + EPS_MS >= cfg.ms
                and since_motion + EPS_MS >= cfg.min_after_motion_ms)

    def _judge(self, grey: np.ndarray) -> tuple[str, float]:
        """What a still scene like `grey` settles as (rules 3 and 4), and the share that
        differs from the reference when blocked."""
        if (self._read_scene is not None
                and self._changed(grey, self._read_scene) <= self._motion_px):
            return UNCHANGED, 0.0
        if self.reference is not None and self.cfg.block_fraction < 1.0:
            share = changed_share(grey, self.reference, self.cfg.motion_threshold)
            if share > self.cfg.block_fraction:
                return BLOCKED, share
        return SETTLED, 0.0

    def would_read(self, grey: np.ndarray) -> bool:
        """Whether a still run of frames like `grey` would settle to be read now: not the
        scene read last, no hand or lid in view. Changes nothing."""
        return self._judge(grey)[0] == SETTLED

    def same_still(self, a: np.ndarray, b: np.ndarray) -> bool:
        """Whether two grey frames of one still run show no compact change at all (`b` may
        be read for `a`): stricter than the motion gate, under which a die could still
        settle by a few pixels. Single changed pixels are sensor noise."""
        ceiling = int(self.cfg.motion_fraction * a.size)
        return changed_pixels(a, b, self.cfg.motion_threshold, 0, ceiling) == 0

    def _settle(self, t: float, grey: np.ndarray) -> SettleEvent:
        kind, share = self._judge(grey)
        if kind == UNCHANGED:
            self.armed = False
            return SettleEvent(UNCHANGED, t, self._still_since)
        if kind == BLOCKED:
            # Not read; the hand or lid leaving is motion, which arms the detector again.
            self.armed = False
            return SettleEvent(BLOCKED, t, self._still_since, share)
        self.armed = False
        self._read_scene, self._read_t = grey, t
        if self.reference is None or self.cfg.reference_image is None:
            self.reference = grey
        return SettleEvent(SETTLED, t, self._still_since)
