"""The first frame of a still run is read while the run settles (`settle.read_early`): the
roll is posted only when the run settles, its evidence is the frame read, and a run that
moves again before it settles is read anew."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from dicecall.edge.runner import EdgeRunner
from dicecall.edge.sources import Frame, lores_grey


class ListCamera:
    """A live camera showing `images` at 30 fps, labelled #0, #1, ..."""

    finite = True

    def __init__(self, images) -> None:
        self.images, self.t = images, 0.0

    def open(self) -> None:
        pass

    def frames(self):
        for i, img in enumerate(self.images):
            self.t += 1 / 30
            yield Frame(self.t, time.time(), img, lores_grey(img, 160), f"#{i}")

    def close(self) -> None:
        pass


def _run(tmp_path, service, kit, frames, reader, **settle):
    table, device, secret = service.table("craps")
    cfg = kit.config(tmp_path, service, table, device, secret, tmp_path, settle=settle)
    (tmp_path / "frames.csv").write_text("file,t_ms\n")  # the source below stands in
    events = []
    EdgeRunner(cfg, on_event=events.append, source=ListCamera(frames),
               reader=reader).run(threading.Event())
    return events, service.rolls(table)


def _throw(kit, seed=3):
    dice = kit.scenes(1, seed=seed)[0]
    empty = np.full_like(dice, (40, 110, 30))
    flight = [np.roll(dice, 25 * (k + 1), axis=1) for k in range(3)]
    return dice, [empty] * 10 + flight + [dice] * 10


@pytest.mark.parametrize(("early", "frame"), [(True, "#14"), (False, "#17")])
def test_the_still_runs_first_frame_is_read_and_posted_once_it_settles(tmp_path, service,
                                                                       kit, early, frame):
    # #13 is the dice landing (motion against the flight's last frame), #14 the run's first
    # still frame, #17 its fourth (settle.frames 4): the frame that settles it.
    _, frames = _throw(kit)
    reader = kit.Reader([(3, 4)])
    events, rolls = _run(tmp_path, service, kit, frames, reader, read_early=early)
    reads = [e for e in events if e["kind"] == "read"]
    assert [r["frame"] for r in reads] == [frame] and reader.calls == 1
    assert [r["faces"] for r in rolls] == [[3, 4]]
    # the roll is stored only once the run settled: the settle window is in its latency
    assert reads[0]["detected_wall"] >= reads[0]["rest_wall"]


def test_a_run_that_moves_before_it_settles_is_read_anew(tmp_path, service, kit):
    _, frames = _throw(kit)
    second = kit.scenes(1, seed=8)[0]
    # the dice stop for two frames (#14 read early), then roll on and stop for good at #16
    frames = frames[:15] + [second] * 10
    reader = kit.Reader([(1, 2), (5, 6)])
    events, rolls = _run(tmp_path, service, kit, frames, reader)
    assert reader.calls == 2  # the stop that did not last was read, and its read dropped
    assert [e["frame"] for e in events if e["kind"] == "read"] == ["#16"]
    assert [r["faces"] for r in rolls] == [[5, 6]]


class FailingOnce:
    """A reader whose first read raises, as a fault on one frame would."""

    def __init__(self, inner) -> None:
        self.inner, self.failed = inner, False

    def read(self, image):
        if not self.failed:
            self.failed = True
            raise RuntimeError("reader fault")
        return self.inner.read(image)

    def recount(self, image, dice, expected):
        return self.inner.recount(image, dice, expected)


def test_a_fault_in_the_early_read_reads_the_frame_that_settles(tmp_path, service, kit):
    _, frames = _throw(kit)
    events, rolls = _run(tmp_path, service, kit, frames, FailingOnce(kit.Reader([(2, 2)])))
    assert not [e for e in events if e["kind"] == "read_error"]
    assert [e["frame"] for e in events if e["kind"] == "read"] == ["#17"]
    assert [r["faces"] for r in rolls] == [[2, 2]]


def test_a_run_that_changes_under_the_motion_gate_is_read_where_it_settled(tmp_path,
                                                                         service, kit):
    # A die settling by a few pixels: a compact 3x3 patch of the 160x120 motion frame,
    # under the gate (0.002 of the frame, 38 pixels), so the run goes on and settles; but
    # the first frame is not what the settled frame shows, and that one is read.
    dice, frames = _throw(kit)
    nudged = dice.copy()
    nudged[100:106, 100:106] = 255 - nudged[100:106, 100:106]
    frames = frames[:15] + [nudged] * 8
    reader = kit.Reader([(1, 2), (4, 4)])
    events, rolls = _run(tmp_path, service, kit, frames, reader)
    assert reader.calls == 2
    assert [e["frame"] for e in events if e["kind"] == "read"] == ["#17"]
    assert [r["faces"] for r in rolls] == [[4, 4]]


@pytest.mark.parametrize("hand_rests", [False, True])
def test_scenes_that_would_not_be_read_are_not_read_early(tmp_path, service, kit,
                                                          hand_rests):
    # After the throw is read, a hand passes over the dice (or rests on the table beside
    # them: a blocked scene) and leaves them as they were (an unchanged scene).
    dice, frames = _throw(kit)
    hands = []
    for k in range(6):
        hand = dice.copy()
        x = 80 if hand_rests else 40 + 60 * k
        hand[60:200, x:x + 180] = (150, 120, 110)
        hands.append(hand)
    frames += hands + [dice] * 10
    reader = kit.Reader([(3, 4), (6, 6)])
    events, rolls = _run(tmp_path, service, kit, frames, reader, block_fraction=0.3)
    assert reader.calls == 1
    kinds = [e["kind"] for e in events if e["kind"] in ("read", "unchanged", "blocked")]
    assert kinds == (["read", "blocked", "unchanged"] if hand_rests else ["read", "unchanged"])
    assert [r["faces"] for r in rolls] == [[3, 4]]
