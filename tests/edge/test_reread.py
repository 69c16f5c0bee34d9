"""One physical throw is one roll: dice lying still are not read again after motion that did
not change them (a hand passing over, a camera reopened), so the service settles it once."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from dicecall.edge.runner import EdgeRunner
from dicecall.edge.sources import CameraError, Frame, lores_grey


class ListCamera:
    """A live camera showing `images` at 30 fps; raises CameraError once at `fail_at`."""

    finite = True

    def __init__(self, images, fail_at: int | None = None) -> None:
        self.images, self.fail_at = images, fail_at
        self.i, self.t, self.opened = 0, 0.0, 0

    def open(self) -> None:
        self.opened += 1

    def frames(self):
        while self.i < len(self.images):
            i = self.i
            self.i += 1
            if i == self.fail_at:
                self.fail_at = None
                raise CameraError(f"camera stopped at frame {i}")
            self.t += 1 / 30
            img = self.images[i]
            yield Frame(self.t, time.time(), img, lores_grey(img, 160), f"#{i}")

    def close(self) -> None:
        pass


def _one_throw(kit):
    dice = kit.scenes(1, seed=3)[0]
    empty = np.full_like(dice, (40, 110, 30))
    flight = [np.roll(dice, 25 * (k + 1), axis=1) for k in range(3)]
    return dice, [empty] * 10 + flight + [dice] * 10


@pytest.mark.parametrize("disturbance", ["hand", "reopen"])
def test_dice_lying_still_are_settled_once_after_motion_over_them(tmp_path, service, kit,
                                                                 disturbance):
    table, device, secret = service.table("craps")
    dice, frames = _one_throw(kit)
    fail_at = None
    if disturbance == "hand":  # the dealer's hand passes over the dice lying there
        hand = dice.copy()
        hand[60:200, 80:260] = (150, 120, 110)
        frames += [hand] * 3 + [dice] * 10
    else:  # the camera stops; reopened, its exposure ramps up over two frames
        fail_at = len(frames)
        frames += [np.clip(dice.astype(int) - d, 0, 255).astype(np.uint8) for d in (60, 25)]
        frames += [dice] * 10
    cfg = kit.config(tmp_path, service, table, device, secret, tmp_path)
    (tmp_path / "frames.csv").write_text("file,t_ms\n")
    events = []
    camera = ListCamera(frames, fail_at)
    runner = EdgeRunner(cfg, on_event=events.append, source=camera,
                        reader=kit.Reader([(3, 4), (5, 6)]))
    runner.run(threading.Event())
    assert camera.opened == (2 if disturbance == "reopen" else 1)
    assert [e["kind"] for e in events if e["kind"] in ("read", "unchanged")] == \
        ["read", "unchanged"]
    assert [r["faces"] for r in service.rolls(table)] == [[3, 4]]
