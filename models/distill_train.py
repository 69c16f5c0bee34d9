"""Training a cheaper reader to read as a finished one does (`--stage distill`): a
`slim.SlimReader` from its seed, or a narrower `Reader` cut from the teacher (`prune.py`,
`--student pruned`).

Why: the slim reader costs a seventh of the committed one per crop (slim.py), the pruned one
a quarter (prune.py). Trained on the labels it would read differently, and every verdict
line (the face's 0.98, the tilt's 0.05 and 0.015, the stacked 0.7, the margin's 10 and 40
degrees) was chosen on the committed reader's outputs, against untouched suites, over many
sessions (docs/verdicts.md). So it learns the teacher's outputs, not the labels: the logits
themselves, where the lines sit, on the crops the teacher was trained on, turned, moved and
recoloured as in training, and on the places that are not dice (the die-or-not head). The
labels are only logged beside the agreement that chooses the epoch.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch.nn import functional as F

from dicecall.models.crops import CropCache, build_cache
from dicecall.models.data import Sample
from dicecall.models.onnx_import import whole_reader_from_onnx
from dicecall.models.read_train import NEG_PER_DIE, REAL_REPEAT, contract_crops, make_batch
from dicecall.models.slim import SlimReader
from dicecall.models.trainloop import (
    RunLog,
    load_checkpoint,
    run_epochs,
    seed_everything,
)
from dicecall.vision.config import ReaderConfig
from dicecall.vision.decode import count_pips, softmax
from dicecall.vision.verdict import VerdictConfig

PLAIN = 16000  # plain synthetic dice drawn afresh each epoch; every flagged and real die too
PIP_WEIGHT = 10.0  # the heatmap's BCE is a mean over 1,024 cells, nearly all near 0
# With the cells weighed alike, a first run (30 epochs planned, stopped at 8) counted one
# pip more than the teacher on 16 % of validation dice, peaks of 0.4-0.7 beside the die.
PEAK_WEIGHT = 20.0
LOGIT_CLIP = 10.0  # past this a flag or die logit is as sure as it gets; not worth fitting
FACE_CLIP = 12.0  # likewise the face's logits about their mean
# The tilt lines the epochs are scored at: the one-view doubt where a cocked die is a no
# roll (ReaderConfig.sure_tilt) and the thrown games' flag (VerdictConfig.tilt_threshold).
TILT_LINES = (ReaderConfig().sure_tilt, VerdictConfig().tilt_threshold)
STUDENTS = ("slim", "pruned")
SLIM_LR = 3e-3
# A pruned student starts from the teacher's features; the rate that trains the slim one from
# noise would move them as far as noise in the first epochs.
PRUNED_LR = 1e-3
PRUNE_CROPS = 1024  # crops whose activations choose the channels kept and set the batch norms


def teacher_outputs(teacher: torch.nn.Module, crops: torch.Tensor, geom: torch.Tensor
                    ) -> tuple[torch.Tensor, ...]:
    with torch.no_grad():
        return teacher(crops, geom)


def distill_loss(student: torch.nn.Module, teacher: torch.nn.Module, batch: dict[str, torch.Tensor]
                 ) -> tuple[torch.Tensor, dict]:
    """Face: squared error of the logits about their mean, plus the KL divergence of the
    runtime's probabilities (temperature 0.79); pips: BCE of the student's map on the
    teacher's; tilt, stacked, die-or-not and margin: smooth L1 on the logits."""
    t_face, t_pip, *t_flags = teacher_outputs(teacher, batch["crops"], batch["geom"])
    s_face, s_pip, *s_flags = student.heads(batch["crops"], batch["geom"])
    t_c = (t_face - t_face.mean(1, keepdim=True)).clamp(-FACE_CLIP, FACE_CLIP)
    s_c = s_face - s_face.mean(1, keepdim=True)
    temp = ReaderConfig().temperature
    kl = F.kl_div(F.log_softmax(s_face / temp, 1), F.log_softmax(t_face / temp, 1),
                  log_target=True, reduction="batchmean")
    lf = F.mse_loss(s_c, t_c) + kl
    # A cell weighs more where either map has a pip: a neighbour's pip the student sees
    # and the teacher does not is a miscount (readings_disagree), not a faint error.
    weight = 1.0 + PEAK_WEIGHT * torch.maximum(t_pip, torch.sigmoid(s_pip).detach())
    lp = PIP_WEIGHT * F.binary_cross_entropy_with_logits(s_pip, t_pip, weight=weight)
    parts = {"face": lf.item(), "pip": lp.item()}
    loss = lf + lp
    for name, s, t in zip(("tilt", "stacked", "die", "margin"), s_flags, t_flags, strict=True):
        part = F.smooth_l1_loss(s, t.clamp(-LOGIT_CLIP, LOGIT_CLIP))
        parts[name] = part.item()
        loss = loss + part
    return loss, parts


def epoch_order(cache: CropCache, rng: np.random.Generator) -> np.ndarray:
    """Every real die REAL_REPEAT times, every cocked or stacked synthetic die once, PLAIN
    other synthetic dice drawn afresh, and NEG_PER_DIE negatives per die, shuffled."""
    die = cache.is_die > 0.5
    flagged = (np.nan_to_num(cache.tilt) > 0) | (np.nan_to_num(cache.stacked) > 0)
    real = np.nonzero(die & cache.real)[0]
    flags = np.nonzero(die & ~cache.real & flagged)[0]
    plain = np.nonzero(die & ~cache.real & ~flagged)[0]
    if len(plain) > PLAIN:
        plain = rng.choice(plain, PLAIN, replace=False)
    dice = np.concatenate([np.tile(real, REAL_REPEAT), flags, plain])
    neg = np.nonzero(~die)[0]
    if len(neg):
        n = int(NEG_PER_DIE * len(dice))
        neg = rng.choice(neg, n, replace=n > len(neg))
    return rng.permutation(np.concatenate([dice, neg]))


@torch.no_grad()
def _outputs(model: torch.nn.Module, crops: np.ndarray, geom: np.ndarray) -> list[np.ndarray]:
    was = model.training
    model.eval()
    outs = [model(torch.from_numpy(crops[i : i + 256]), torch.from_numpy(geom[i : i + 256]))
            for i in range(0, len(crops), 256)]
    model.train(was)
    return [torch.cat([o[k] for o in outs]).numpy() for k in range(6)]


def agreement(student: list[np.ndarray], teacher: list[np.ndarray], faces: np.ndarray) -> dict:
    """How often the student's reading, taken at the verdict's lines, is the teacher's, on
    labelled dice (`faces` 1-6; 0 marks a negative, scored on the die-or-not head only)."""
    cfg, line = ReaderConfig(), VerdictConfig()
    dice = faces > 0

    def taken(o: list[np.ndarray]) -> dict[str, np.ndarray]:
        p = softmax(o[0], cfg.temperature)
        face = p.argmax(1) + 1
        pips = count_pips(o[1], cfg.pip_threshold, cfg.pip_radius)
        sig = [1 / (1 + np.exp(-o[k][:, 0])) for k in (2, 3, 4, 5)]
        return {"face": face, "accept": (p.max(1) >= line.min_confidence) & (pips == face),
                "pips": pips, **{f"tilt{t}": sig[0] >= t for t in TILT_LINES},
                "stacked": sig[1] >= line.stacked_threshold, "die": sig[2] >= cfg.die_threshold,
                "margin": 45.0 * sig[3]}

    s, t = taken(student), taken(teacher)
    out = {k: float((s[k][dice] == t[k][dice]).mean()) if dice.any() else float("nan")
           for k in ("face", "accept", "pips", *(f"tilt{x}" for x in TILT_LINES), "stacked")}
    out["die"] = float((s["die"] == t["die"]).mean()) if len(faces) else float("nan")
    out["margin_mae"] = (float(np.abs(s["margin"] - t["margin"])[dice].mean()) if dice.any()
                         else float("nan"))
    if dice.any():
        out["right_student"] = float((s["face"][dice] == faces[dice]).mean())
        out["right_teacher"] = float((t["face"][dice] == faces[dice]).mean())
    return out


def selected(a: dict) -> float:
    """What the best epoch maximises: the agreements at the lines, the margin's error (in
    degrees, out of 45) against them."""
    keys = ("face", "accept", "pips", *(f"tilt{x}" for x in TILT_LINES), "stacked", "die")
    return float(sum(np.nan_to_num(a[k]) for k in keys)
                 - np.nan_to_num(a["margin_mae"], nan=45.0) / 45.0)


def train_distill(train: list[Sample], valid: list[Sample], teacher_path: Path, out: Path,
                  epochs: int, seed: int, resume: bool, batch_size: int = 128,
                  lr: float | None = None, stop_after: int | None = None,
                  negatives: tuple[list[np.ndarray], list[np.ndarray]] | None = None,
                  student_kind: str = "slim") -> Path:
    """Trains a student (`student_kind`: a SlimReader from `seed`, or a Reader pruned from
    the teacher, `prune.WIDTHS`; `lr` by default SLIM_LR or PRUNED_LR) on the outputs of the
    reader ONNX `teacher_path`; returns best.pt's path. `negatives`: (train, valid) places
    that are not dice, one [M, 3] array per sample (`negatives.mine`), for the die-or-not
    head.

    Raises:
        ValueError: an unknown `student_kind`.
    """
    if student_kind not in STUDENTS:
        raise ValueError(f"student {student_kind!r}: one of {', '.join(STUDENTS)}")
    log = RunLog(out)
    teacher = whole_reader_from_onnx(teacher_path)
    for p in teacher.parameters():
        p.requires_grad_(False)
    seed_everything(seed)
    student = SlimReader() if student_kind == "slim" else None  # from the seed, as in session 43
    cache = build_cache(train, None if negatives is None else negatives[0])
    if student is None:
        from dicecall.models.prune import WIDTHS, pruned_reader

        pick = epoch_order(cache, np.random.default_rng(seed))[:PRUNE_CROPS]
        batch = make_batch(cache, pick, np.random.default_rng(seed))
        student = pruned_reader(teacher, batch["crops"], batch["geom"])
        log(event="pruned", widths=list(WIDTHS), crops=len(pick))
    if lr is None:
        lr = SLIM_LR if student_kind == "slim" else PRUNED_LR
    opt = torch.optim.AdamW(student.parameters(), lr=lr, weight_decay=5e-4)
    start, best = 0, -np.inf
    if resume and (out / "last.pt").is_file():
        start, best, _ = load_checkpoint(out / "last.pt", student, opt)
        log(event="resume", epoch=start)
    crops, geom, faces, _ = contract_crops(valid)
    if negatives is not None:
        ncrops, ngeom, nfaces, _ = contract_crops(valid, negatives[1])
        crops, geom = np.concatenate([crops, ncrops]), np.concatenate([geom, ngeom])
        faces = np.concatenate([faces, nfaces])
    t_valid = _outputs(teacher, crops, geom)
    steps = max(1, len(epoch_order(cache, np.random.default_rng(0))) // batch_size)
    log(event="cache", dice=int(cache.is_die.sum()), negatives=int((cache.is_die < 0.5).sum()),
        real=int(cache.real.sum()), steps=steps, teacher=str(teacher_path),
        valid_dice=int((faces > 0).sum()), valid_negatives=int((faces == 0).sum()))
    last = epochs if stop_after is None else min(epochs, start + stop_after)

    def score(epoch: int) -> float:
        a = agreement(_outputs(student, crops, geom), t_valid, faces)
        log(event="valid", epoch=epoch, **a)
        return selected(a)

    if student_kind == "pruned" and start == 0:
        score(0)  # where the cut teacher starts, before any step
    student.train()
    return run_epochs(student, opt, out, log, seed=seed, start=start, last=last, epochs=epochs,
                      lr=lr, steps=steps, batch_size=batch_size,
                      order_of=lambda rng: epoch_order(cache, rng),
                      batch_of=lambda idx, rng: make_batch(cache, idx, rng),
                      loss_fn=lambda model, batch: distill_loss(model, teacher, batch),
                      log_every=20, score=score, best=best)

