"""Fine-tuning the reader's face and pip readings on its frozen rest (`--stage faces`).

Why (session 26, docs/verdicts.md): in Craps and High Roll most good rolls the verdict holds
back carry a die read right but under the acceptance line (`low_confidence`) or whose pips
counted another number (`readings_disagree`). On the tuning suite (seeds 9200-9202) such
holds fall on small dice: flat, fully visible dice 16-23 px wide in the frame were held 9.7 %
of the time, 24-31 px 5.2 %, over 55 px under 1 %. Replacing the face probability and pip
count of the dice read right by the truth would call 85.4 % of good Craps rolls valid
instead of 79.3 %, and 83.9 % of High Roll's instead of 75.0 %.

The shared stages also feed the flags, the up margin and the die-or-not head, whose verdict
lines were chosen on them, so they stay as they are: the face classifier gets its own copy
of the last one or two stages (`nets.Reader.fb8`, `fb4`, copied from the shared ones, so the
start reads exactly as the committed reader) and trains it with its linear layer, and the
pip branch, which has its own layers already, trains them. Tilt, stacked, margin and
die-or-not outputs do not move. Crops are cut around the boxes the runtime gives
(`models rebox`), real photos around their labels.

The start is a committed ONNX read back into torch (`onnx_import.py`); its batch norms are
folded, so every layer stays in eval mode and only weights and biases train.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
import torch
from torch.nn import functional as F

from dicecall.models.crops import CropCache, build_cache, die_size
from dicecall.models.data import Sample
from dicecall.models.det_train import focal_loss
from dicecall.models.margin_train import trainable
from dicecall.models.nets import Reader
from dicecall.models.onnx_import import whole_reader_from_onnx
from dicecall.models.read_train import contract_crops, make_batch
from dicecall.models.trainloop import (
    RunLog,
    load_checkpoint,
    run_epochs,
    save_checkpoint,
    seed_everything,
)
from dicecall.vision.config import ReaderConfig
from dicecall.vision.decode import count_pips, softmax
from dicecall.vision.verdict import VerdictConfig

PARTS = ("fb8", "fb4", "face", "pip8", "pip16", "pip_lat", "pip32")
SMALL_PX = 32.0  # dice narrower than this in their frame are the ones held back
SMALL_REPEAT = 2  # each small synthetic die appears this often per epoch
REAL_REPEAT = 2  # each real die this often: the real photos are few and must not be forgotten
PLAIN = 12000  # other synthetic dice drawn afresh each epoch
# An accepted wrong face settles a wager wrongly; a held right one costs a review. The best
# epoch weighs one against the other as the verdict's targets do (0.1 % wrong faces allowed
# against 1 % good rolls held), ten to one.
WRONG_COST = 10.0


def with_own_face(model: Reader, stages: int) -> Reader:
    """`model` with the face reading its own copy of the last `stages` shared stages, copied
    so that it reads exactly as before; a model that has them is returned as is."""
    if model.fb4 is not None:
        return model
    own = Reader(flag_stem=model.fstem is not None, face_stages=stages)
    copies = {f"fb4.{k}": v for k, v in model.b4.state_dict().items()}
    if stages == 2:
        copies.update({f"fb8.{k}": v for k, v in model.b8.state_dict().items()})
    own.load_state_dict({**own.state_dict(), **model.state_dict(), **copies})
    return own.eval()


def face_outputs(model: Reader, crops: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(face logits, pip heatmap): the frozen shared stages without a graph, then the face's
    own stages and the pip branch."""
    with torch.no_grad():
        f32 = model.b32(crops)
        f16 = model.b16(f32)
        f8 = model.b8(f16)
        g = model.b4(f8).mean(dim=(2, 3)) if model.fb4 is None else None
    return model.face(model.face_features(f16, f8, g)), model.pip_head(f32, f16)


def faces_loss(model: Reader, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, dict]:
    """Face cross-entropy (label smoothing 0.05, as the reader's recipe) + pip focal loss."""
    face, pip = face_outputs(model, batch["crops"])
    lf = F.cross_entropy(face, batch["face"], label_smoothing=0.05)
    known = batch["pips"][:, 0, 0, 0] >= 0
    lp = focal_loss(pip[known], batch["pips"][known]) if known.any() else pip.sum() * 0.0
    return lf + lp, {"face": lf.item(), "pip": lp.item()}


def epoch_order(cache: CropCache, small: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Real dice REAL_REPEAT times, small synthetic dice SMALL_REPEAT times, PLAIN other
    synthetic dice drawn afresh, shuffled."""
    die = cache.is_die > 0.5
    real = np.nonzero(die & cache.real)[0]
    tiny = np.nonzero(die & ~cache.real & small)[0]
    others = np.nonzero(die & ~cache.real & ~small)[0]
    if len(others) > PLAIN:
        others = rng.choice(others, PLAIN, replace=False)
    return rng.permutation(np.concatenate([np.tile(real, REAL_REPEAT),
                                           np.tile(tiny, SMALL_REPEAT), others]))


@torch.no_grad()
def readings(model: Reader, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(face read [D], its probability at the runtime's temperature [D], pip count [D]) on
    contract crops, one view, counted as the runtime counts."""
    cfg = ReaderConfig()
    logits, counts = [], []
    for i in range(0, len(crops), 256):
        face, heat = face_outputs(model, torch.from_numpy(crops[i : i + 256]))
        logits.append(face.numpy())
        counts.append(count_pips(heat.numpy(), cfg.pip_threshold, cfg.pip_radius))
    if not logits:
        return np.zeros(0, np.int64), np.zeros(0, np.float32), np.zeros(0, np.int64)
    probs = softmax(np.concatenate(logits), cfg.temperature)
    return probs.argmax(1) + 1, probs.max(1), np.concatenate(counts)


def scores(model: Reader, syn: tuple[np.ndarray, np.ndarray, np.ndarray],
           real: tuple[np.ndarray, np.ndarray]) -> dict:
    """On synthetic validation dice (crops, faces, small): the share accepted and right
    (probability at the verdict's line and the pips agreeing), accepted and wrong, the same
    for the small dice; on real ones (crops, faces): the face read right."""
    line = VerdictConfig().min_confidence
    out: dict = {}
    if len(syn[1]):
        face, p, pips = readings(model, syn[0])
        accepted = (p >= line) & (pips == face)
        right, small = face == syn[1], syn[2]
        out.update(syn_face=float(right.mean()), syn_ok=float((accepted & right).mean()),
                   syn_wrong=float((accepted & ~right).mean()),
                   small_ok=float((accepted & right)[small].mean()) if small.any() else np.nan,
                   small_wrong=float((accepted & ~right)[small].mean()) if small.any()
                   else np.nan)
    if len(real[1]):
        out["real_face"] = float((readings(model, real[0])[0] == real[1]).mean())
    return out


def selected(s: dict) -> float:
    """What the best epoch maximises: synthetic dice accepted right, less WRONG_COST times
    those accepted wrong, plus the real faces read right."""
    return float(np.nan_to_num(s.get("syn_ok", 0.0)) - WRONG_COST * np.nan_to_num(
        s.get("syn_wrong", 0.0)) + np.nan_to_num(s.get("real_face", 0.0)))


def _valid_sets(valid: list[Sample], soften: float = 0.0) -> tuple[tuple, tuple]:
    synth = [s for s in valid if s.source.startswith("synthetic")]
    real = [s for s in valid if not s.source.startswith("synthetic")]
    crops, _, faces, _ = contract_crops(synth, soften=soften)
    small = (np.concatenate([die_size(s) for s in synth]) < SMALL_PX) if synth else \
        np.zeros(0, bool)
    rcrops, _, rfaces, _ = contract_crops(real, soften=soften)
    return (crops, faces, small), (rcrops, rfaces)


def train_faces(train: list[Sample], valid: list[Sample], init: Path, out: Path, epochs: int,
                seed: int, resume: bool, stages: int = 1, batch_size: int = 128,
                lr: float = 2e-4, stop_after: int | None = None, duotone: float = 0.0,
                soften: float = 0.0) -> Path:
    """Fine-tunes the face (on its own copy of the last `stages` stages) and the pip branch
    of the reader in `init` (ONNX); returns best.pt's path. The best epoch maximises
    `selected` on `valid`, the start (epoch 0) included; the checkpoints hold the whole
    reader, so `models export` takes them as any reader run. `duotone`: the share of crops
    recoloured in two random colours (`augment.two_colours`), for dice of unseen colours.
    `soften`: crops the runtime would soften are softened alike (`crops.random_crop`), in
    training and in validation.

    Raises:
        ValueError: `init` lacks a layer this stage trains or keeps, or `stages` is not 1
            or 2.
    """
    if stages not in (1, 2):
        raise ValueError(f"stages {stages}: 1 or 2")
    log = RunLog(out)
    model = with_own_face(whole_reader_from_onnx(init), stages)
    seed_everything(seed)
    opt = torch.optim.AdamW(trainable(model, PARTS), lr=lr, weight_decay=5e-4)
    cache = build_cache(train)
    small = np.concatenate([die_size(s) for s in train if len(s.faces)]) < SMALL_PX
    syn, real = _valid_sets(valid, soften)  # scored on the crops it will be given
    start, best = 0, -np.inf
    if resume and (out / "last.pt").is_file():
        start, best, _ = load_checkpoint(out / "last.pt", model, opt)
        log(event="resume", epoch=start)
    model.eval()  # folded batch norms: statistics and all stay as exported
    order_of = partial(epoch_order, cache, small)
    steps = max(1, len(order_of(np.random.default_rng(0))) // batch_size)
    s = scores(model, syn, real)
    log(event="cache", dice=len(cache.faces), small=int(small.sum()),
        real=int(cache.real.sum()), steps=steps, init=str(init), stages=stages,
        duotone=duotone, soften=soften, **s)
    if start == 0:
        best = selected(s)
        save_checkpoint(out / "best.pt", model, opt, 0, best)
    last = epochs if stop_after is None else min(epochs, start + stop_after)

    def score(epoch: int) -> float:
        s = scores(model, syn, real)
        log(event="valid", epoch=epoch, **s)
        return selected(s)

    return run_epochs(model, opt, out, log, seed=seed, start=start, last=last, epochs=epochs,
                      lr=lr, steps=steps, batch_size=batch_size, order_of=order_of,
                      batch_of=partial(make_batch, cache, duotone=duotone, soften=soften),
                      loss_fn=faces_loss, log_every=20,
                      score=score, best=best)
