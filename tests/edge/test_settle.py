"""The settle state machine: motion gate, N frames / T ms at rest, time after motion, hand/lid."""

from __future__ import annotations

import numpy as np
import pytest

from dicecall.edge.config import SettleConfig
from dicecall.edge.settle import BLOCKED, MOTION, SETTLED, SETTLING, UNCHANGED, SettleDetector

H, W = 60, 80


def table() -> np.ndarray:
    return np.full((H, W), 80, np.uint8)


def with_dice(x: int, y: int = 20) -> np.ndarray:
    g = table()
    g[y:y + 6, x:x + 6] = 230
    g[y:y + 6, x + 10:x + 16] = 230
    return g


def run(det: SettleDetector, frames, fps: float = 30.0, t0: float = 0.0):
    """Feeds frames at `fps`; returns [(frame index, kind)]."""
    out = []
    for i, g in enumerate(frames):
        out += [(i, e.kind) for e in det.update(t0 + i / fps, g)]
    return out


def throw(landing_x: int, flight: int = 3, rest: int = 10) -> list[np.ndarray]:
    return [with_dice(5 + 15 * k) for k in range(flight)] + [with_dice(landing_x)] * rest


CFG = SettleConfig(frames=4, ms=100, min_after_motion_ms=100, motion_threshold=12,
                   motion_fraction=0.002, block_fraction=0.2)


def test_a_throw_settles_once_after_n_frames_and_t_ms():
    det = SettleDetector(CFG)
    events = run(det, [table()] * 10 + throw(50))
    # frames 0-9 empty table: not armed, nothing read; 10-12 flight; 13 lands (it still
    # differs from 12, so it is motion); 14 is the first frame equal to its predecessor.
    assert (10, MOTION) in events and (14, SETTLING) in events
    settled = [i for i, k in events if k == SETTLED]
    # 4 still frames (14..17) span 100 ms at 30 fps: frame 17; 133 ms after the motion.
    assert settled == [17]


def test_dice_left_lying_are_not_read_again():
    det = SettleDetector(CFG)
    events = run(det, [table()] * 5 + throw(50, rest=200))
    assert [k for _, k in events].count(SETTLED) == 1


def test_each_throw_is_read():
    det = SettleDetector(CFG)
    frames = [table()] * 5 + throw(50) + throw(20) + throw(40)
    assert [k for _, k in run(det, frames)].count(SETTLED) == 3


@pytest.mark.parametrize(("frames", "ms", "after", "expect"), [
    (4, 0, 0, 17), (8, 0, 0, 21), (2, 200, 0, 20), (1, 0, 300, 22)])
def test_frames_ms_and_min_after_motion_each_hold_the_read(frames, ms, after, expect):
    cfg = CFG.model_copy(update={"frames": frames, "ms": ms, "min_after_motion_ms": after})
    events = run(SettleDetector(cfg), [table()] * 10 + throw(50, rest=20))
    # last motion at frame 13 (t=0.433 s); first still at 14 (t=0.467 s)
    assert [i for i, k in events if k == SETTLED] == [expect]


def test_a_die_creeping_below_the_threshold_each_frame_is_not_settled():
    det = SettleDetector(CFG)
    creep = []
    for k in range(12):  # a die brightens by 5 grey levels a frame: < 12 per frame
        g = with_dice(50)
        g[20:26, 50:56] = 150 + 5 * k
        creep.append(g)
    events = run(det, [table()] * 5 + throw(30) + creep)
    settled = [i for i, k in events if k == SETTLED]
    assert settled == [12]  # the first throw's read only (lands at 8, still 9-12)


def test_a_hand_at_rest_in_view_is_blocked_then_read_once_it_leaves():
    det = SettleDetector(CFG)
    hand = with_dice(50)
    hand[:, :40] = 20  # an arm across half the view
    frames = [table()] * 10 + throw(50)[:4] + [hand] * 10 + [with_dice(50)] * 10
    events = run(det, frames)
    kinds = [k for _, k in events]
    assert kinds.count(BLOCKED) == 1
    # the hand leaves at 24 (motion), still from 25: read at 28
    assert [i for i, k in events if k == SETTLED] == [28]


def test_the_lid_on_the_shaker_is_blocked_with_a_reference_image():
    lid = np.full((H, W), 200, np.uint8)  # the lid covers the open shaker
    cfg = CFG.model_copy(update={"reference_image": "empty.png"})
    det = SettleDetector(cfg, reference=table())
    events = run(det, [lid] * 10 + [table()] * 2 + [with_dice(30)] * 10)
    assert [k for _, k in events].count(BLOCKED) == 0  # not armed yet: the lid was there
    events = run(det, [lid] * 3 + [lid] * 10, t0=2.0)  # the lid comes back and rests
    assert [k for _, k in events] == [MOTION, SETTLING, BLOCKED]
    assert not np.array_equal(det.reference, lid)  # a blocked scene never becomes the reference


def test_block_check_off_at_one():
    det = SettleDetector(CFG.model_copy(update={"block_fraction": 1.0}))
    hand = table()
    hand[:, :60] = 20
    events = run(det, [table()] * 10 + [hand] * 10)
    assert [k for _, k in events].count(SETTLED) == 1


def test_bad_frames_are_refused_with_the_shape():
    det = SettleDetector(CFG)
    with pytest.raises(ValueError, match=r"\(H, W\) uint8"):
        det.update(0.0, np.zeros((4, 4, 3), np.uint8))


def test_same_events_at_any_replay_speed():
    frames = [table()] * 10 + throw(50) + throw(20)
    a = run(SettleDetector(CFG), frames)
    b = run(SettleDetector(CFG), frames, t0=1000.0)
    assert a == b


def test_dice_lying_still_are_not_read_again_after_a_hand_passes_over():
    det = SettleDetector(CFG)
    hand = with_dice(50)
    hand[10:40, 30:70] = 20  # the dealer's hand sweeps over the dice, then leaves
    frames = [table()] * 5 + throw(50, rest=10) + [hand] * 3 + [with_dice(50)] * 20
    events = run(det, frames)
    assert [k for _, k in events].count(SETTLED) == 1
    assert [k for _, k in events][-1] == UNCHANGED


def test_dice_lying_still_are_not_read_again_after_a_camera_reopen_brightness_ramp():
    # A reopened camera's auto-exposure ramps up over a few frames: motion, same dice.
    det = SettleDetector(CFG)
    dark = [np.clip(with_dice(50).astype(int) - d, 0, 255).astype(np.uint8) for d in (60, 25)]
    events = run(det, [table()] * 5 + throw(50, rest=10) + dark + [with_dice(50)] * 20)
    assert [k for _, k in events].count(SETTLED) == 1


def test_dice_moved_after_a_read_are_read_again():
    det = SettleDetector(CFG)
    events = run(det, [table()] * 5 + throw(50) + [with_dice(50)] * 5 + throw(20))
    assert [i for i, k in events if k == SETTLED] == [12, 30]


def test_a_throw_landing_like_the_last_is_read_when_the_table_was_cleared_between():
    det = SettleDetector(CFG)
    events = run(det, [table()] * 5 + throw(50) + [table()] * 10 + throw(50))
    # the cleared table is a scene of its own (read as empty), so the same landing is new
    assert [k for _, k in events].count(SETTLED) == 3


def test_a_forgotten_read_may_be_read_again_after_motion():
    det = SettleDetector(CFG)
    read = run(det, [table()] * 5 + throw(50))
    assert read[-1] == (12, SETTLED)
    det.forget(5.0)  # not the scene read: kept
    det.forget(12 / 30)  # the read failed (reader or outbox): it did not count
    hand = with_dice(50)
    hand[10:40, 30:70] = 20
    events = run(det, [hand] * 3 + [with_dice(50)] * 10, t0=2.0)
    assert [k for _, k in events].count(SETTLED) == 1


# -- small dice: a motion gate of one die's size (settle.die_px) --------------------------
LH, LW = 240, 320  # the picamera2 lores default


def small_die(g: np.ndarray, x: int, y: int, d: int = 6) -> None:
    g[y:y + d, x:x + d] = 235
    g[y + d // 2, x + d // 2] = 20  # a pip


def felt() -> np.ndarray:
    return np.full((LH, LW), 70, np.uint8)


def rolling(moves: int, d: int = 6) -> list[np.ndarray]:
    """Die A lands at once; die B (same size) rolls 4 px a frame for `moves` frames."""
    out = []
    for i in range(moves + 12):
        g = felt()
        small_die(g, 100, 100, d)
        small_die(g, 40 + 4 * min(i, moves), 150, d)
        out.append(g)
    return out


SMALL = CFG.model_copy(update={"die_px": 6.0})


def test_one_small_die_rolling_alone_is_motion_until_it_stops():
    # A 6 px die in 320x240 changes ~48 pixels a frame: under 0.002 of the frame (153), so
    # the frame's share alone never saw it (audit t7: no event at all).
    events = run(SettleDetector(SMALL), [felt()] * 5 + rolling(37))
    assert (5, MOTION) in events
    # B's last move is frame 5 + 37; still from the next frame; 4 still frames later: read.
    assert [i for i, k in events if k == SETTLED] == [5 + 37 + 4]
    assert [k for _, k in events].count(SETTLING) == 1


def test_small_dice_thrown_again_elsewhere_are_read_again():
    second = []
    for g in rolling(5):
        g = np.roll(g, 60, axis=1)
        second.append(g)
    events = run(SettleDetector(SMALL), [felt()] * 5 + rolling(5) + second)
    assert [k for _, k in events].count(SETTLED) == 2 and UNCHANGED not in [k for _, k in events]


def test_scattered_sensor_noise_under_the_frames_share_is_not_motion_with_die_px():
    # 70 random single pixels are 40 grey levels off in every frame, so ~140 differ from
    # frame to frame (under the frame's share of 153, which the old gate needed): with a
    # gate of 9 pixels (a quarter of a 6 px die) counted plainly, that would be motion on
    # every frame; counted as compact patches only, it is not.
    rng = np.random.default_rng(7)
    frames = []
    for g in [felt()] * 20 + rolling(10) + [rolling(10)[-1]] * 10:
        g = g.copy()
        ys, xs = rng.integers(0, LH, 70), rng.integers(0, LW, 70)
        g[ys, xs] = np.clip(g[ys, xs].astype(int) + 40, 0, 255).astype(np.uint8)
        frames.append(g)
    events = run(SettleDetector(SMALL), frames)
    assert [i for i, k in events if k == MOTION] == [20]  # the throw, nothing before it
    assert [k for _, k in events].count(SETTLED) == 1


def test_the_gate_is_a_quarter_die_under_the_frames_share():
    from dicecall.edge.settle import motion_pixels

    assert motion_pixels(CFG, (LH, LW)) == 153  # 0.002 of 320x240
    assert motion_pixels(SMALL, (LH, LW)) == 9
    assert motion_pixels(CFG.model_copy(update={"die_px": 40.0}), (LH, LW)) == 153
