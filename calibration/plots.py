"""Minimal line and bar charts drawn with OpenCV (matplotlib is not a dependency)."""

from __future__ import annotations

import cv2
import numpy as np

FONT = cv2.FONT_HERSHEY_SIMPLEX
BLACK, GREY, LIGHT = (0, 0, 0), (120, 120, 120), (225, 225, 225)
BLUE, RED, GREEN, ORANGE = (200, 90, 30), (40, 40, 210), (40, 150, 40), (0, 140, 255)


class Axes:
    """One plot panel on a BGR canvas; data coordinates are mapped linearly to pixels.

    Args:
        canvas: (H, W, 3) uint8 image drawn on in place.
        rect: (x, y, w, h) of the plot area in pixels.
        xlim, ylim: data ranges shown.
    """

    def __init__(self, canvas: np.ndarray, rect, xlim, ylim, title: str = "",
                 xlabel: str = "", ylabel: str = "") -> None:
        self.img, self.rect, self.xlim, self.ylim = canvas, rect, xlim, ylim
        x, y, w, h = rect
        cv2.rectangle(canvas, (x, y), (x + w, y + h), BLACK, 1)
        text(canvas, title, (x, y - 12), 0.55, BLACK, 2)
        text(canvas, xlabel, (x + w // 2 - 4 * len(xlabel), y + h + 42), 0.5, BLACK)
        text(canvas, ylabel, (max(2, x - 60), y - 30 + 0 * h), 0.45, GREY)
        self.legend_row = 0
        self.legend_top = rect[1] + 18  # move down to keep the legend off the curves

    def px(self, xs, ys) -> np.ndarray:
        """(N, 2) int32 pixel positions of data points (clipped to the panel)."""
        x, y, w, h = self.rect
        (x0, x1), (y0, y1) = self.xlim, self.ylim
        u = x + (np.asarray(xs, float) - x0) / (x1 - x0) * w
        v = y + h - (np.asarray(ys, float) - y0) / (y1 - y0) * h
        return np.stack([np.clip(u, x, x + w), np.clip(v, y, y + h)], 1).round().astype(np.int32)

    def ticks(self, xt, yt, xfmt=str, yfmt=str, grid: bool = True) -> None:
        x, y, w, h = self.rect
        for t in xt:
            u = self.px([t], [self.ylim[0]])[0, 0]
            if grid:
                cv2.line(self.img, (u, y), (u, y + h), LIGHT, 1)
            text(self.img, xfmt(t), (u - 12, y + h + 18), 0.42, BLACK)
        for t in yt:
            v = self.px([self.xlim[0]], [t])[0, 1]
            if grid:
                cv2.line(self.img, (x, v), (x + w, v), LIGHT, 1)
            label = yfmt(t)
            text(self.img, label, (x - 9 * len(label) - 6, v + 5), 0.42, BLACK)
        cv2.rectangle(self.img, (x, y), (x + w, y + h), BLACK, 1)

    def line(self, xs, ys, colour, thickness: int = 2, label: str = "",
             dashed: bool = False) -> None:
        pts = self.px(xs, ys)
        if dashed:
            for a, b in zip(pts[:-1:2], pts[1::2], strict=False):
                cv2.line(self.img, tuple(map(int, a)), tuple(map(int, b)), colour, thickness,
                         cv2.LINE_AA)
        else:
            cv2.polylines(self.img, [pts.reshape(-1, 1, 2)], False, colour, thickness,
                          cv2.LINE_AA)
        self._legend(label, colour)

    def points(self, xs, ys, colour, radius: int = 4, label: str = "",
               hollow: bool = False) -> None:
        for u, v in self.px(xs, ys):
            cv2.circle(self.img, (int(u), int(v)), radius, colour, 2 if hollow else -1,
                       cv2.LINE_AA)
        self._legend(label, colour)

    def bars(self, centres, heights, width: float, colour, label: str = "") -> None:
        for c, hgt in zip(centres, heights, strict=True):
            (u0, v0), (u1, v1) = self.px([c - width / 2, c + width / 2], [0, hgt])
            cv2.rectangle(self.img, (int(u0), int(v1)), (int(u1), int(v0)), colour, -1)
            cv2.rectangle(self.img, (int(u0), int(v1)), (int(u1), int(v0)), BLACK, 1)
        self._legend(label, colour)

    def vline(self, x, colour, label: str = "") -> None:
        self.line([x, x], self.ylim, colour, 1, label, dashed=False)

    def _legend(self, label: str, colour) -> None:
        if not label:
            return
        x = self.rect[0]
        v = self.legend_top + 20 * self.legend_row
        cv2.line(self.img, (x + 10, v - 4), (x + 34, v - 4), colour, 3)
        text(self.img, label, (x + 40, v), 0.45, BLACK)
        self.legend_row += 1


def text(img: np.ndarray, s: str, org, scale: float = 0.5, colour=BLACK,
         thickness: int = 1) -> None:
    cv2.putText(img, s, (int(org[0]), int(org[1])), FONT, scale, colour, thickness, cv2.LINE_AA)


def canvas(width: int, height: int) -> np.ndarray:
    return np.full((height, width, 3), 255, np.uint8)
