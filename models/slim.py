"""A reader about seven times cheaper per crop than `nets.Reader`, for frames of many dice.

Why (session 43): the reader reads each die's crop, so its cost grows with the dice; at ten
dice (High Roll's first throw) the detector and reader together took 0.65-0.80 of the peer
YOLO11n-320's time on this machine, against the issue's one third (models/reader.md,
Measured). `Reader` spends 43 M multiply-accumulates a crop, most of them in plain 3x3
convolutions at 32x32 and 16x16. This one keeps its inputs, outputs and layout (the same
four stages, the pip branch fed from the first two stages only, the flags kept 4x4 and not
pooled, the margin joining the face's and the flags' 8x8 features) and builds them from
depthwise-separable blocks, with 16 channels where the map is 32x32: 5.8 M a crop.

It is trained by distillation from a finished `Reader` (`distill_train.py`): every output
copies the teacher's, so the verdict's lines, chosen on the teacher, keep their meaning.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from dicecall.models.nets import SepBlock, conv_bn, pw_bn

# The names its state dict has and `Reader`'s has not: how `nets.reader_for` tells them apart.
MARK = "pip_down."


class SlimReader(nn.Module):
    """`nets.Reader`'s contract: crops [N, 3, 64, 64] and geom [N, 3] in; face_logits,
    pip_heatmap [N, 1, 32, 32] (sigmoid), tilt_logit, stacked_logit, die_logit, margin_logit
    out, in that order."""

    def __init__(self, c1: int = 16, c2: int = 48, c3: int = 96, c4: int = 128, f: int = 32,
                 p: int = 32, q: int = 16) -> None:
        super().__init__()
        self.b32 = nn.Sequential(conv_bn(3, c1, 2), SepBlock(c1, c1))  # 32x32
        self.b16 = nn.Sequential(SepBlock(c1, c2, 2), SepBlock(c2, c2))  # 16x16
        self.b8 = nn.Sequential(SepBlock(c2, c3, 2), SepBlock(c3, c3))  # 8x8
        self.b4 = nn.Sequential(SepBlock(c3, c4, 2), SepBlock(c4, c4))  # 4x4
        self.face = nn.Linear(c4, 6)
        self.die = nn.Linear(c4, 1)
        self.flag8 = nn.Sequential(SepBlock(c2, 2 * f, 2), SepBlock(2 * f, 2 * f))
        self.flag4 = SepBlock(2 * f, f, 2)
        self.geom = nn.Sequential(nn.Linear(3, 16), nn.ReLU(True))
        self.flags = nn.Sequential(nn.Linear(16 * f + 16, 64), nn.ReLU(True), nn.Linear(64, 2))
        m = f // 2
        self.margin4 = SepBlock(c3 + 2 * f, m, 2)
        self.margin_geom = nn.Sequential(nn.Linear(3, 16), nn.ReLU(True))
        self.margin = nn.Sequential(nn.Linear(16 * m + 16, 64), nn.ReLU(True), nn.Linear(64, 1))
        # The pips keep their own 8x8 and 16x16 levels (a die's layout around each pip) and
        # come down to q channels before the 32x32 map, where most of `Reader`'s cost was.
        self.pip8 = nn.Sequential(SepBlock(c2, p, 2), SepBlock(p, p))
        self.pip16 = nn.Sequential(SepBlock(c2, p), SepBlock(p, p))
        self.pip_down = pw_bn(p, q)
        self.pip_lat = pw_bn(c1, q)
        self.pip32 = nn.Sequential(SepBlock(q, q), nn.Conv2d(q, 1, 1))
        nn.init.constant_(self.pip32[1].bias, -4.6)

    def heads(self, x: torch.Tensor, geom: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """The outputs with the pip map as logits (the distillation's loss wants them)."""
        f32 = self.b32(x)
        f16 = self.b16(f32)
        f8 = self.b8(f16)
        g = self.b4(f8).mean(dim=(2, 3))
        p16 = self.pip_down(self.pip16(f16)
                            + F.interpolate(self.pip8(f16), scale_factor=2.0, mode="nearest"))
        pip = self.pip32(self.pip_lat(f32) + F.interpolate(p16, scale_factor=2.0, mode="nearest"))
        h8 = self.flag8(f16)
        flags = self.flags(torch.cat([self.flag4(h8).flatten(1), self.geom(geom)], 1))
        m8 = self.margin4(torch.cat([f8, h8], 1)).flatten(1)
        margin = self.margin(torch.cat([m8, self.margin_geom(geom)], 1))
        return self.face(g), pip, flags[:, :1], flags[:, 1:2], self.die(g), margin

    def forward(self, x: torch.Tensor, geom: torch.Tensor) -> tuple[torch.Tensor, ...]:
        face, pip, tilt, stacked, die, margin = self.heads(x, geom)
        return face, torch.sigmoid(pip), tilt, stacked, die, margin
