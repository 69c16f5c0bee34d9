"""The reader's tilt and stacked heads alone, on the labelled boxes of synthetic scenes.

Crops and `geom` are cut around the labelled dice exactly as the runtime cuts them
(`read_train.contract_crops`, so it needs the train extra), and the ONNX reader scores them.
Prints, per folder and head: positives, AUC (chance a cocked or stacked die scores above a
flat one), recall and false-flag rate at a few thresholds, and recall when the threshold
lets 2 % of the other dice be flagged. A reader with the up-margin output (session 11) adds
a "void" row: dice labelled under 10 degrees of margin against all others, scored by a low
margin, at margins under 10, 15, 20 and 25 degrees.

    python bench/bench_flags.py --model models/reader.onnx DIR [DIR ...]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import onnxruntime as ort

from dicecall.models.contract import MARGIN_SPAN_DEG, sigmoid
from dicecall.models.data import load_scene_json
from dicecall.models.evaluate import auc
from dicecall.models.read_train import contract_crops
from dicecall.vision.reader import reader_feeds

THRESHOLDS = (0.1, 0.25, 0.3, 0.5)
VOID_LINES = (10.0, 15.0, 20.0, 25.0)  # degrees of up margin
VOID_DEG = 10.0  # the generated labels' void


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", type=Path, nargs="+")
    ap.add_argument("--model", type=Path, default=Path("models/reader.onnx"))
    args = ap.parse_args()
    sess = ort.InferenceSession(str(args.model), providers=["CPUExecutionProvider"])
    heads = " ".join(f"{'@' + str(t):>14}" for t in THRESHOLDS)
    print(f"{'folder':<16} {'head':<8} {'pos':>4} {'AUC':>6} {heads} {'recall@2%':>10}")
    for folder in args.folders:
        samples = load_scene_json(folder)
        crops, geom, _, flags = contract_crops(samples)
        names = ["tilt_logit", "stacked_logit"]
        if "margin_logit" in {o.name for o in sess.get_outputs()}:
            names.append("margin_logit")
        outs = [sess.run(names, reader_feeds(sess, crops[i : i + 256], geom[i : i + 256]))
                for i in range(0, len(crops), 256)]
        if len(names) == 3:
            _void_row(folder.name, sigmoid(np.concatenate([o[2][:, 0] for o in outs]))
                      * MARGIN_SPAN_DEG, np.concatenate([s.margin for s in samples]))
        for k, head in enumerate(("tilt", "stacked")):
            p = sigmoid(np.concatenate([o[k][:, 0] for o in outs]))
            pos, neg = p[flags[:, k] > 0.5], p[flags[:, k] <= 0.5]
            if len(pos) == 0 or len(neg) == 0:
                continue
            at = " ".join(f"{(pos >= t).mean():>6.1%}/{(neg >= t).mean():>6.1%}"
                          for t in THRESHOLDS)
            t2 = np.quantile(neg, 0.98)
            print(f"{folder.name:<16} {head:<8} {len(pos):>4} {auc(pos, neg):>6.3f} {at} "
                  f"{(pos > t2).mean():>10.1%}")
    print("columns @t: recall / false-flag rate at threshold t; void rows: at a margin under "
          + " / ".join(f"{t:g}" for t in VOID_LINES) + " degrees, recall@2% by a low margin")


def _void_row(name: str, margin: np.ndarray, label: np.ndarray) -> None:
    void = label < VOID_DEG
    pos, neg = margin[void], margin[~void]
    if len(pos) == 0 or len(neg) == 0:
        return
    at = " ".join(f"{(pos < t).mean():>6.1%}/{(neg < t).mean():>6.1%}" for t in VOID_LINES)
    t2 = np.quantile(neg, 0.02)
    print(f"{name:<16} {'void':<8} {len(pos):>4} {auc(-pos, -neg):>6.3f} {at} "
          f"{(pos < t2).mean():>10.1%}")


if __name__ == "__main__":
    main()
