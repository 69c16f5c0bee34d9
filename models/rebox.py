"""Scene folders relabelled with the runtime detector's boxes, for training the flags.

The reader's crops are cut around a box: in training the labelled one, at run time the
detector's. Session 14 measured what the difference costs. Session 11's reader in the runtime
(four views), on the same dice of a tuning suite (seeds 9300-9302), ranked cocked shaker dice with
a tilt AUC of 0.934 around the labelled boxes and 0.875 around the detector's, craps 0.963
and 0.872 (models/reader.md). On a cocked die the detector's box sits a median 5-8 % of the
side off the labelled one, 15-16 % at the 90th percentile, and is 0.74-1.14 times its size.
A crop cut there shows the die's side faces where the reader did not learn to expect them.
Training on the boxes the runtime will give removes that mismatch.

A copy keeps each scene record as it is but for the `box` of every labelled die the runtime
finds (`DiceReader.detect`: both looks, before the die-or-not head; matched by centre,
visible dice first, as the scoring matches them). A die the detector misses keeps its
labelled box. Images are linked, not copied.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from dicecall.datasets.schema import MIN_VISIBLE
from dicecall.vision.evaluate_synth import match_visible_first
from dicecall.vision.images import load_image


def rebox_folder(reader, src: Path, dst: Path) -> dict[str, int]:
    """Writes `dst` (created): every scene of `src` with the detector's boxes.

    Args:
        reader: a `vision.reader.DiceReader`, the runtime whose boxes the reader will see.

    Returns:
        counts of scenes, visible dice, and dice given the detector's box.
    """
    dst.mkdir(parents=True, exist_ok=True)
    counts = {"scenes": 0, "visible": 0, "reboxed": 0}
    for js in sorted(Path(src).glob("*.json")):
        rec = json.loads(js.read_text())
        if "image" not in rec or "dice" not in rec:
            continue  # not a scene record (a folder's own notes)
        image = (js.parent / rec["image"]).resolve()
        link = dst / rec["image"]
        if not link.exists():
            os.symlink(image, link)
        if rec["dice"]:
            centres, boxes, _ = reader.detect(load_image(image))
            labelled = np.array([d["box"] for d in rec["dice"]], np.float32)
            seen = np.array([d["visible"] >= MIN_VISIBLE for d in rec["dice"]], bool)
            pairs, _ = match_visible_first(centres, labelled, seen)
            for p, g in pairs:
                rec["dice"][g]["box"] = [round(float(v), 2) for v in boxes[p]]
            counts["visible"] += int(seen.sum())
            counts["reboxed"] += len(pairs)
        (dst / js.name).write_text(json.dumps(rec))
        counts["scenes"] += 1
    return counts
