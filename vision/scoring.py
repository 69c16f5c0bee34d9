"""Scoring a reader against labelled dice by centre matching (shared/data/real-dev/README.md).

A predicted die matches a labelled die when the predicted centre lies inside the labelled
box; pairs are taken one-to-one, nearest centre first.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


def match(pred_centers: np.ndarray, gt_boxes: np.ndarray) -> list[tuple[int, int]]:
    """One-to-one (pred, gt) pairs.

    Args:
        pred_centers: (N, 2) predicted centres (x, y) in pixels.
        gt_boxes: (M, 4) labelled boxes (x0, y0, x1, y1) in pixels.
    """
    if len(pred_centers) == 0 or len(gt_boxes) == 0:
        return []
    px, py = pred_centers[:, 0:1], pred_centers[:, 1:2]
    inside = (px >= gt_boxes[:, 0]) & (px <= gt_boxes[:, 2]) & \
             (py >= gt_boxes[:, 1]) & (py <= gt_boxes[:, 3])
    gcx = (gt_boxes[:, 0] + gt_boxes[:, 2]) / 2
    gcy = (gt_boxes[:, 1] + gt_boxes[:, 3]) / 2
    dist = np.hypot(px - gcx, py - gcy)
    pi, gi = np.nonzero(inside)
    pairs, used_p, used_g = [], set(), set()
    for k in np.argsort(dist[pi, gi], kind="stable"):
        p, g = int(pi[k]), int(gi[k])
        if p not in used_p and g not in used_g:
            pairs.append((p, g))
            used_p.add(p)
            used_g.add(g)
    return pairs


@dataclass
class Score:
    """Counts over a set of images; `confusion[t-1, p-1]` counts truth t read as p."""

    images: int = 0
    labelled: int = 0
    found: int = 0
    face_right: int = 0
    # The independent pip reading (`Dice.pip_face`) equal to the labelled face, over the
    # same dice: what a disagreement with the face (a review) rests on.
    pips_right: int = 0
    false_detections: int = 0
    hidden: int = 0  # labelled dice left out as unreadable (synthetic: mostly hidden)
    # Images that could not be decoded, and the dice labelled on them: not in the rates
    # (no reader could read them), but named, so a broken file does not pass unseen.
    unreadable: list = field(default_factory=list)
    unread_labelled: int = 0
    # YOLO images with no label file: not scored (their dice would all count as false).
    unlabelled: list = field(default_factory=list)
    confusion: np.ndarray = field(default_factory=lambda: np.zeros((6, 6), np.int64))
    misses: list = field(default_factory=list)

    def add(self, name: str, pred_centers, pred_faces, gt_boxes, gt_faces,
            pred_pips=None) -> None:
        pairs = match(np.asarray(pred_centers, np.float32).reshape(-1, 2),
                      np.asarray(gt_boxes, np.float32).reshape(-1, 4))
        self.images += 1
        self.labelled += len(gt_faces)
        self.found += len(pairs)
        self.false_detections += len(pred_centers) - len(pairs)
        for p, g in pairs:
            t, f = int(gt_faces[g]), int(pred_faces[p])
            self.confusion[t - 1, f - 1] += 1 if 1 <= f <= 6 else 0
            if pred_pips is not None and int(pred_pips[p]) == t:
                self.pips_right += 1
            if t == f:
                self.face_right += 1
            else:
                self.misses.append((name, g, t, f))

    def as_dict(self) -> dict:
        n = max(self.labelled, 1)
        return {
            "images": self.images, "labelled": self.labelled, "found": self.found,
            "face_right": self.face_right, "found_rate": self.found / n,
            "read_right_rate": self.face_right / n,
            "pips_right": self.pips_right, "pips_right_rate": self.pips_right / n,
            "false_per_image": self.false_detections / max(self.images, 1),
            "unreadable_images": len(self.unreadable), "unreadable": list(self.unreadable),
            "labelled_in_unreadable_images": self.unread_labelled,
            "unlabelled_images": len(self.unlabelled), "unlabelled": list(self.unlabelled),
            "hidden_not_scored": self.hidden,
            "confusion": self.confusion.tolist(),
        }


def confusion_png(confusion: np.ndarray, path: str, title: str) -> None:
    """Draws the 6x6 confusion matrix (rows: truth, columns: read) as a PNG with OpenCV."""
    import cv2

    cell, margin = 70, 90
    size = margin + 6 * cell + 20
    img = np.full((size, size, 3), 255, np.uint8)
    rows = confusion.sum(axis=1, keepdims=True).clip(min=1)
    for t in range(6):
        for p in range(6):
            frac = confusion[t, p] / rows[t, 0]
            shade = int(255 - 200 * frac)
            if t != p and confusion[t, p]:  # one misread in 60 must still show
                shade = min(shade, 150)
            x, y = margin + p * cell, margin + t * cell
            colour = (shade, shade, 255 if t != p else shade)  # errors in red
            cv2.rectangle(img, (x, y), (x + cell, y + cell), colour, -1)
            cv2.rectangle(img, (x, y), (x + cell, y + cell), (120, 120, 120), 1)
            ink = (255, 255, 255) if shade < 140 else (0, 0, 0)  # readable on dark cells
            cv2.putText(img, str(int(confusion[t, p])), (x + 8, y + 42),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.6, ink, 1, cv2.LINE_AA)
        cv2.putText(img, str(t + 1), (margin - 25, margin + t * cell + 42),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 0), 2)
        cv2.putText(img, str(t + 1), (margin + t * cell + 28, margin - 12),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 0), 2)
    cv2.putText(img, title[:40], (10, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 0), 2)
    cv2.putText(img, "truth \\ read", (5, margin - 40), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                (60, 60, 60), 1)
    cv2.imwrite(path, img)
