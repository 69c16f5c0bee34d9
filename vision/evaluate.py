"""Runs the reader over a labelled folder and scores it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .images import ImageError, load_image
from .labelled import IMAGE_EXT, layout, read_crops, read_yolo
from .scoring import Score


@dataclass
class Result:
    score: Score
    by_band: dict = field(default_factory=dict)
    by_kind: dict = field(default_factory=dict)
    by_style: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {**self.score.as_dict(), **({"by_band": self.by_band} if self.by_band else {}),
                **({"by_kind": self.by_kind} if self.by_kind else {}),
                **({"by_style": self.by_style} if self.by_style else {})}


def evaluate_folder(reader, folder: Path) -> Result:
    """Scores `reader` (a `DiceReader`) on every labelled image in `folder`."""
    kind = layout(folder)
    score = Score()
    if kind == "json":
        from .evaluate_synth import evaluate_synthetic

        return evaluate_synthetic(reader, folder)
    unlabelled: list[Path] = []
    items = read_yolo(folder, unlabelled=unlabelled) if kind == "yolo" else read_crops(folder)
    for item in items:
        try:
            frame = load_image(item.image)
        except ImageError:
            score.unreadable.append(item.image.name)
            score.unread_labelled += len(item.faces)
            continue
        if item.boxes is None:  # one die per image, seen from above
            dice = reader.read_crop(frame)
            h, w = frame.shape[:2]
            score.add(item.image.name, dice.centers, dice.face,
                      np.array([[0, 0, w, h]], np.float32), item.faces, dice.pip_face)
        else:
            dice = reader.read(frame)
            score.add(item.image.name, dice.centers, dice.face, item.boxes, item.faces,
                      dice.pip_face)
    score.unlabelled = [p.name for p in unlabelled]
    if score.images == 0 and not score.unreadable:  # rates of nothing would read as 0 %
        why = (f"{len(unlabelled)} images and no label file for any of them in labels/"
               if unlabelled else ", ".join(sorted(IMAGE_EXT)))
        raise ValueError(f"{folder}: no images to score ({why})")
    return Result(score)
