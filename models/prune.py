"""A narrower `Reader` cut from a finished one, the start of a distillation (`--stage distill
--student pruned`).

Why: rule 39's slim reader (slim.py), trained from its seed for an hour, copied the teacher's
face on 96 % of dice but not its confidence at the verdict's lines (models/reader.md,
session 43). A student with the teacher's own layout, each layer keeping the channels the
teacher uses most, starts from the teacher's features instead of noise.

The cut: every convolution keeps the output channels whose activations, on the crops given,
are largest on average; where outputs are added or joined (the pip branch's levels and its
residual blocks, the margin's concatenation, the flattened 4x4 maps the linear heads read),
one choice serves every layer that shares the channels. The teacher's batch norms are folded
(onnx_import), so each of the student's is then set to the statistics of its input on the
same crops: in training mode it normalises to what the folded layer gave, and its function
at the start is the cut teacher's, not a re-normalised one.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from dicecall.models.nets import Reader

#: The student's widths (face trunk, flags, pips): 11.1 M multiply-accumulates a crop against
#: the teacher's 43.0 M. Session 43 timed fifteen crops of the cost that gives one third of
#: the peer at ten dice at about 1.6 ms; an untrained reader of these widths, timed with the
#: committed detector and thirteen crops against the peer, gave 0.333 (session 44).
WIDTHS = (12, 16, 16)

# Each convolution: (its conv_bn's module path, the channel group of its output, the groups its
# input channels come from, in order). "rgb" is the image; a depthwise convolution's input is
# its output's group.
_CONVS = (
    ("b32.0", "b32a", ("rgb",)), ("b32.1", "f32", ("b32a",)),
    ("b16.0", "b16a", ("f32",)), ("b16.1", "f16", ("b16a",)),
    ("b8.0", "b8a", ("f16",)), ("b8.1", "f8", ("b8a",)),
    ("b4.0", "b4a", ("f8",)), ("b4.1", "f4", ("b4a",)),
    ("flag8.0", "fl8a", ("f16",)), ("flag8.1", "h8", ("fl8a",)), ("flag4", "fl4", ("h8",)),
    ("margin8.0", "m8a", ("f16",)), ("margin8.1", "m8", ("m8a",)),
    ("margin4", "m4", ("m8", "f8", "h8")),
    ("pip8.0", "p8a", ("f16",)), ("pip8.1", "P", ("p8a",)), ("pip16", "P", ("f16",)),
    ("pip_lat", "P", ("f32",)),
    ("pip32.0.dw", "P", ("P",)), ("pip32.0.pw", "P", ("P",)),
    ("pip32.1.dw", "P", ("P",)), ("pip32.1.pw", "P", ("P",)),
    ("pip32.2", "p32c", ("P",)),
)
# Linear layers reading a group: (name, group, cells per channel: 16 for a flattened 4x4 map,
# 1 for a pooled vector). The geometry's 16 inputs that follow a flattened map are kept.
_LINEARS = (("face", "f4", 1), ("die", "f4", 1), ("flags.0", "fl4", 16), ("margin.0", "m4", 16))


def _group_sizes(model: Reader) -> dict[str, int]:
    mods = dict(model.named_modules())
    sizes = {"rgb": 3}
    for path, group, _ in _CONVS:
        sizes[group] = mods[f"{path}.0"].out_channels
    return sizes


@torch.no_grad()
def _importance(teacher: Reader, crops: torch.Tensor, geom: torch.Tensor
                ) -> dict[str, np.ndarray]:
    """Mean activation of each output channel of each group over `crops`, summed over the
    layers that share the group."""
    mods = dict(teacher.named_modules())
    score: dict[str, np.ndarray] = {}
    hooks = []
    for path, group, _ in _CONVS:
        def hook(_m, _i, out, group=group):
            s = out.abs().mean(dim=(0, 2, 3)).double().numpy()
            score[group] = score.get(group, 0) + s
        hooks.append(mods[path].register_forward_hook(hook))
    try:
        teacher.eval()(crops, geom)
    finally:
        for h in hooks:
            h.remove()
    return score


def _slice_conv(dst: nn.Sequential, src: nn.Sequential, out_idx: np.ndarray,
                in_idx: np.ndarray | None) -> None:
    conv_d, conv_s = dst[0], src[0]
    w = conv_s.weight[out_idx]
    if in_idx is not None:
        w = w[:, in_idx]
    conv_d.weight.copy_(w)
    bn_d, bn_s = dst[1], src[1]
    for name in ("weight", "bias", "running_mean", "running_var"):
        getattr(bn_d, name).copy_(getattr(bn_s, name)[out_idx])


def _conv_inputs(groups: tuple[str, ...], keep: dict[str, np.ndarray],
                 sizes: dict[str, int]) -> np.ndarray:
    """The teacher's input channel indices the student keeps, for inputs joined in order."""
    parts, offset = [], 0
    for g in groups:
        parts.append(offset + (keep[g] if g in keep else np.arange(sizes[g])))
        offset += sizes[g]
    return np.concatenate(parts)


@torch.no_grad()
def _recalibrate(model: Reader, crops: torch.Tensor, geom: torch.Tensor) -> None:
    """Each batch norm that passes its input through plus a bias (a folded one) is given its
    input's statistics, so that training mode normalises to the same output."""
    stats: dict[str, tuple[torch.Tensor, torch.Tensor]] = {}
    hooks = []
    for name, mod in model.named_modules():
        if isinstance(mod, nn.BatchNorm2d):
            def hook(_m, inp, _o, name=name):
                x = inp[0]
                stats[name] = (x.mean(dim=(0, 2, 3)), x.var(dim=(0, 2, 3), unbiased=False))
            hooks.append(mod.register_forward_hook(hook))
    try:
        model.eval()(crops, geom)
    finally:
        for h in hooks:
            h.remove()
    mods = dict(model.named_modules())
    for name, (mean, var) in stats.items():
        bn = mods[name]
        # The folded output is x + bias; with these it is (x - mean) / std * std + mean + bias.
        bn.bias.copy_(bn.bias + mean)
        bn.weight.copy_(torch.sqrt(var + bn.eps))
        bn.running_mean.copy_(mean)
        bn.running_var.copy_(var)


def kept_channels(teacher: Reader, crops: torch.Tensor, geom: torch.Tensor,
                  widths: tuple[int, int, int] = WIDTHS) -> dict[str, np.ndarray]:
    """For each channel group, the teacher's channels a `Reader(*widths)` keeps: the most
    active on `crops`, in the teacher's order.

    Raises:
        ValueError: the teacher has its own flag stem or face stages (no such student), or
            a width is wider than the teacher's.
    """
    if teacher.fstem is not None or teacher.fb4 is not None:
        raise ValueError("the teacher has the flags' own stem or the face's own stages")
    big, small = _group_sizes(teacher), _group_sizes(Reader(*widths))
    if any(small[g] > big[g] for g in big):
        raise ValueError(f"widths {widths}: wider than the teacher's {big}")
    score = _importance(teacher, crops, geom)
    return {g: np.sort(np.argsort(-score[g], kind="stable")[: small[g]]) for g in score}


def pruned_reader(teacher: Reader, crops: torch.Tensor, geom: torch.Tensor,
                  widths: tuple[int, int, int] = WIDTHS) -> Reader:
    """A `Reader(*widths)` holding the channels of `teacher` (read back from ONNX, batch
    norms folded) most active on `crops` [N, 3, 64, 64] with `geom` [N, 3]
    (`kept_channels`, whose errors it raises).
    """
    student = Reader(*widths)
    big = _group_sizes(teacher)
    keep = kept_channels(teacher, crops, geom, widths)
    t_mods, s_mods = dict(teacher.named_modules()), dict(student.named_modules())
    with torch.no_grad():
        for path, group, inputs in _CONVS:
            depthwise = s_mods[f"{path}.0"].groups > 1
            in_idx = None if depthwise else _conv_inputs(inputs, keep, big)
            _slice_conv(s_mods[path], t_mods[path], keep[group], in_idx)
        last_s, last_t = student.pip32[3], teacher.pip32[3]
        last_s.weight.copy_(last_t.weight[:, keep["p32c"]])
        last_s.bias.copy_(last_t.bias)
        for name, group, cells in _LINEARS:
            src, dst = t_mods[name], s_mods[name]
            cols = (keep[group][:, None] * cells + np.arange(cells)).ravel()
            extra = np.arange(big[group] * cells, src.in_features)  # the geometry's inputs
            dst.weight.copy_(src.weight[:, np.concatenate([cols, extra])])
            dst.bias.copy_(src.bias)
        for name in ("geom", "margin_geom", "flags.2", "margin.2"):
            s_mods[name].load_state_dict(t_mods[name].state_dict())
    _recalibrate(student, crops, geom)
    return student
