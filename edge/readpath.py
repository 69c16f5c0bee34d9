"""The read path of the edge: a settled frame -> dice read -> (empty | roll in the outbox).

The frame read is the still run's first, read while the run settles (`settle.read_early`),
when the frame that settles the run shows no change from it; else the settling frame.

A mixin of EdgeRunner (edge/runner.py), kept apart so each file reads in one sitting. A read
counts as done when its roll is committed to the outbox. A still scene with no dice in play is
not a roll. A High Roll throw whose phase the service has not settled yet waits here as
`_pending` while frames keep flowing (edge/phase.py); it is in the outbox from the start, as
a `held` row with its phase-unknown body, so a crash while it waits does not lose it (a
restarted edge sends it for review as stored); once the phase is known the row gets its
final body and is sent.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from dataclasses import dataclass, replace

from .flow import Expect
from .reading import Roll, Scene
from .settle import SettleEvent
from .sources import Frame

log = logging.getLogger("dicecall.edge")


@dataclass(frozen=True)
class _Settled:
    """A settled scene whose dice were read, before its verdict."""

    frame: Frame
    ev: SettleEvent
    scene: Scene
    detected_wall: float
    detect_s: float
    deadline: float  # monotonic: read with an unknown phase after this
    held: Roll | None = None  # its phase-unknown roll, stored in the outbox as held


@dataclass(frozen=True)
class _Early:
    """The dice of a still run's first frame, read while the run settles (`read_early`)."""

    frame: Frame
    scene: Scene
    detect_s: float


class ReadPath:
    """Needs from its host: cfg, metrics, emit, reading, flow, phase, outbox, detector, source,
    lamps, _seq, _cursor_key, _pending, _early, _outbox_gauges."""

    def _read_early(self, frame: Frame) -> None:
        """Reads the first frame of a still run (`SettleConfig.read_early`); `_settled` takes
        it when this run settles. A fault here is only logged: the frame that settles the
        run is then read, and a fault there is reported."""
        self._early = None
        t0 = time.perf_counter()
        try:
            scene = self.reading.detect(frame)
            if self.reading.in_play(scene):  # its clean evidence too, off the answer's path
                scene = self.reading.with_clean(scene)
        except Exception:  # a reader fault on one frame must not stop the table
            log.warning("reading the first still frame failed; read again when settled",
                        extra={"frame": frame.label}, exc_info=True)
            return
        self._early = _Early(frame, scene, time.perf_counter() - t0)

    def _read_error(self, frame: Frame, exc: Exception, settled_t: float) -> None:
        self.detector.forget(settled_t)  # not read: the same dice may be read after motion
        self.metrics.read_errors.inc()
        log.exception("reading a settled frame failed", extra={"frame": frame.label})
        self.emit("read_error", frame=frame.label, error=f"{type(exc).__name__}: {exc}")

    def _settled(self, frame: Frame, ev: SettleEvent) -> None:
        """Reads the dice; an empty scene is not a roll; a High Roll throw whose phase the
        service has not settled yet waits (see edge/phase.py) while frames keep coming."""
        self._finish_pending("wait")  # a new throw: the one before it is posted first
        t0 = time.perf_counter()
        detected_wall = time.time()
        early, self._early = self._early, None
        try:
            if (early is not None and early.frame.t == ev.still_since
                    and self.detector.same_still(early.frame.grey, frame.grey)):
                # This run's first frame, read while it settled, showing what the frame that
                # settled it shows: the frame read and its evidence are that frame's, and
                # the read's time is counted as before.
                frame, scene, t0 = early.frame, early.scene, t0 - early.detect_s
            else:
                scene = self.reading.detect(frame)
            in_play = self.reading.in_play(scene)
        except Exception as exc:  # a reader fault on one frame must not stop the table
            self._read_error(frame, exc, ev.t)
            return
        if in_play and self.cfg.lamps is not None:
            scene = self._lit(frame, scene)
        if in_play == 0:
            # The dice were collected (or none thrown): nothing to call, nothing to post.
            self.metrics.empty.inc()
            log.info("still scene without dice in play: not a roll",
                     extra={"frame": frame.label, "detections": len(scene.dice)})
            self.emit("empty", frame=frame.label, t=frame.t, detections=len(scene.dice))
            return
        item = _Settled(frame, ev, scene, detected_wall, time.perf_counter() - t0,
                        time.monotonic() + self.cfg.high_roll_wait_s)
        if self.phase is None:
            self._read(item, self.flow.expect())
            return
        expect = self.phase.expect()
        if expect is not None:
            self._read(item, expect)
            return
        held = self._build(item, None)  # the phase is not known yet: stored at once
        if held is not None and self._store(item, held, held=True):
            self._seq += 1  # the held row has this seq
            self._pending = replace(item, held=held)

    def _lit(self, frame: Frame, scene: Scene) -> Scene:
        """The scene with the lamps' reading of each die (edge/lamps.py), taken now that the
        dice are still. Without it (no lamp frames, a camera or lamp fault) the roll is read
        as a table without lamps reads it: the tilt head alone, more rolls held for review."""
        capture = getattr(self.source, "lamp_frames", None)
        try:
            frames = None if capture is None else capture(frame, self.lamps,
                                                          self.cfg.lamps.settle_frames)
            if frames is None:
                log.warning("no lamp frames for this roll: read without the lamps",
                            extra={"frame": frame.label})
                self.metrics.lamp_misses.inc()
                return scene
            return self.reading.with_lamps(scene, frames)
        except Exception as exc:  # a lamp or camera fault must not lose the roll
            log.warning("lamp frames failed: read without the lamps",
                        extra={"frame": frame.label, "error": f"{type(exc).__name__}: {exc}"})
            self.metrics.lamp_misses.inc()
            self.emit("lamp_error", frame=frame.label, error=f"{type(exc).__name__}: {exc}")
            return scene

    def _finish_pending(self, mode: str) -> None:
        """Reads the pending High Roll throw once its phase is known. mode: "poll" (only if
        known or high_roll_wait_s passed), "wait" (wait out the rest), "now"."""
        item = self._pending
        if item is None:
            return
        expect = self.phase.expect()
        if expect is None and mode == "wait":
            expect = self.phase.wait(max(0.0, item.deadline - time.monotonic()))
        if expect is None and mode == "poll" and time.monotonic() < item.deadline:
            return
        self._pending = None
        if expect is None:
            log.warning("High Roll phase unknown at read time: posted for review",
                        extra={"frame": item.frame.label})
        self._read(item, expect)

    def _build(self, item: _Settled, expect: Expect | None) -> Roll | None:
        """The roll's body (seq: the held row's, else the next), or None after a read error."""
        seq = item.held.seq if item.held is not None else self._seq
        try:
            roll = self.reading.roll(item.frame, expect, seq, item.scene)
        except Exception as exc:  # a reader fault on one frame must not stop the table
            if item.held is not None:
                log.exception("reading the held throw again failed: sent as stored",
                              extra={"frame": item.frame.label})
                return item.held
            self._read_error(item.frame, exc, item.ev.t)
            return None
        if roll.with_jpeg and not self.outbox.fits(len(roll.body)):
            log.error("outbox full: this roll is kept with its evidence hashes only",
                      extra={"seq": roll.seq, "max_bytes": self.cfg.outbox.max_bytes})
            roll = self.reading.without_jpeg(roll)
        return roll

    def _store(self, item: _Settled, roll: Roll, held: bool = False) -> bool:
        """Commits the roll (a held row: `held`; the final body of a held row: `release`)."""
        frame = item.frame
        rest_wall = frame.wall - (frame.t - item.ev.still_since)
        cursor = None
        if self._cursor_key is not None:
            cursor = (self._cursor_key, repr(item.ev.t * 1000))  # the frame that settled
        try:
            if item.held is not None:
                self.outbox.release(roll.seq, roll.roll_id, roll.body)
            else:
                self.outbox.put(roll.seq, roll.roll_id, roll.body, rest_wall, cursor, held)
        except sqlite3.Error as exc:
            if item.held is not None:  # still in the outbox, held: sent after a restart
                log.error("outbox write failed; the held throw stays held until a restart",
                          extra={"frame": frame.label, "error": str(exc)})
                self.emit("outbox_error", frame=frame.label, error=str(exc))
                return False
            log.error("outbox write failed; this read is not counted",
                      extra={"frame": frame.label, "error": str(exc)})
            self.emit("outbox_error", frame=frame.label, error=str(exc))
            self.detector.forget(item.ev.t)
            return False
        return True

    def _read(self, item: _Settled, expect: Expect | None) -> None:
        frame, ev = item.frame, item.ev
        t0 = time.perf_counter() - item.detect_s
        detected_wall = item.detected_wall
        rest_wall = frame.wall - (frame.t - ev.still_since)
        # the phase stayed unknown: the stored (held) body is the roll
        roll = item.held if item.held is not None and expect is None \
            else self._build(item, expect)
        if roll is None or not self._store(item, roll):
            return
        if self.phase is not None:
            self.phase.posted(roll.seq)
        if item.held is None:
            self._seq += 1
        read_s = time.perf_counter() - t0
        self.metrics.read_seconds.observe(read_s)
        self.metrics.reads.labels(roll.verdict.status).inc()
        self._outbox_gauges()
        log.info("roll read", extra={"seq": roll.seq, "roll_id": roll.roll_id,
                                     "verdict": roll.verdict.status,
                                     "faces": list(roll.verdict.faces), "frame": frame.label,
                                     "read_ms": round(read_s * 1000, 2),
                                     "rest_wall": rest_wall, "detected_wall": detected_wall})
        self.emit("read", roll_id=roll.roll_id, seq=roll.seq, verdict=roll.verdict.status,
                  faces=list(roll.verdict.faces), reasons=[r.as_dict() for r in
                                                          roll.verdict.reasons],
                  confidences=[round(c, 5) for c in roll.verdict.confidences],
                  expected=expect.dice if expect else None,
                  phase=expect.phase if expect else "unknown", read_ms=round(read_s * 1000, 2),
                  frame=frame.label, t=frame.t, settled_t=ev.t, rest_wall=rest_wall,
                  detected_wall=detected_wall, jpeg=roll.with_jpeg)
