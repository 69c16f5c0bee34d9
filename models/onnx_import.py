"""A committed reader.onnx or detector.onnx back into its torch net, to train on top of it.

The export folds each batch norm into the convolution before it, so a conv + BN pair comes
back as the folded weights in the conv and a batch norm that passes its input through
(mean 0, variance 1 - eps, scale 1) and adds the folded bias. Node names carry the module
path (`/pip32/pip32.0/dw/dw.0/Conv` is `pip32.0.dw.0`); linear layers keep their names.
Layers the ONNX file does not have (a branch added since) keep their initial weights and
are listed, so the caller knows what is left to train.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import nn

from dicecall.models.nets import Detector, Reader


def _module_of(node_name: str, names: list[str]) -> str:
    """The torch module a Conv node came from, by its scope path."""
    scopes = [c for c in node_name.strip("/").split("/")[:-1] if c]
    hits = [n for n in names
            if all(f".{c}." in f".{n}." for c in scopes) and n.endswith(scopes[-1])]
    if len(hits) != 1:
        raise ValueError(f"{node_name}: matches {hits or 'no module'}")
    return hits[0]


def reader_from_onnx(path: Path | str, model: Reader | None = None) -> tuple[Reader, list[str]]:
    """Loads the weights of `path` into `model` (by default a new `Reader`, with the flags'
    own stem when the file has one).

    Returns:
        (model, untouched): the model in eval mode, and the names of its parameters the
        file did not provide.

    Raises:
        ValueError: a node or weight of the file has no place in the model.
    """
    import onnx

    graph = onnx.load(str(path)).graph
    names = [n.name for n in graph.node]
    model = model or Reader(flag_stem=any("/fstem/" in n for n in names),
                            face_stages=sum(any(f"/{s}/" in n for n in names)
                                            for s in ("fb8", "fb4")))
    return _load_into(graph, model)


def whole_reader_from_onnx(path: Path | str) -> Reader:
    """`reader_from_onnx` for a fine-tune that starts from every layer of the file.

    Raises:
        ValueError: the file lacks a layer of the reader (one older than a branch).
    """
    model, untouched = reader_from_onnx(path)
    if untouched:
        raise ValueError(f"{path}: lacks {sorted({n.split('.')[0] for n in untouched})}; "
                         "a fine-tune starts from a reader that has every layer")
    return model


def detector_from_onnx(path: Path | str) -> tuple[Detector, list[str]]:
    """A committed detector as a torch `Detector`, to fine-tune it (`models train --stage
    detector --init`). Same returns and errors as `reader_from_onnx`; a detector file leaves
    nothing untouched."""
    import onnx

    graph = onnx.load(str(path)).graph
    return _load_into(graph, Detector(width=_detector_width(graph)))


def _detector_width(graph) -> int:
    """The first stage's channels of an exported detector: the output channels of its second
    convolution (the stem's 16 -> width), which the export writes second. Its shape is read
    from the file's header, not its values."""
    shapes = {i.name: list(i.dims) for i in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    dims = shapes.get(convs[1].input[1], []) if len(convs) > 1 else []
    if len(dims) != 4 or dims[1] != 16:
        raise ValueError("not a detector: its second convolution does not take the stem's "
                         "16 channels")
    return int(dims[0])


def _load_into(graph, model: nn.Module):
    from onnx import numpy_helper

    weights = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    modules = dict(model.named_modules())
    convs = [n for n, m in modules.items() if isinstance(m, nn.Conv2d)]
    done: set[str] = set()
    tensors = {**dict(model.named_parameters()), **dict(model.named_buffers())}

    def put(name: str, value: np.ndarray) -> None:
        if name not in tensors:
            raise ValueError(f"{name}: no such weight in the model")
        param = tensors[name]
        if tuple(param.shape) != value.shape:
            raise ValueError(f"{name}: model {tuple(param.shape)}, file {value.shape}")
        with torch.no_grad():
            param.copy_(torch.from_numpy(value.copy()))
        done.add(name)

    for node in graph.node:
        if node.op_type == "Conv":
            name = _module_of(node.name, convs)
            w, b = weights[node.input[1]], weights[node.input[2]]
            put(f"{name}.weight", w)
            if modules[name].bias is not None:
                put(f"{name}.bias", b)
                continue
            parent, index = name.rsplit(".", 1)
            bn = modules[f"{parent}.{int(index) + 1}"]
            if not isinstance(bn, nn.BatchNorm2d):
                raise ValueError(f"{name}: folded bias but no batch norm after it")
            bn_name = f"{parent}.{int(index) + 1}"
            put(f"{bn_name}.weight", np.ones_like(b))
            put(f"{bn_name}.bias", b)
            put(f"{bn_name}.running_mean", np.zeros_like(b))
            put(f"{bn_name}.running_var", np.full_like(b, 1.0 - bn.eps))
        elif node.op_type == "Gemm":
            for tensor in node.input[1:]:
                put(tensor, weights[tensor])
    untouched = [n for n, _ in model.named_parameters() if n not in done]
    return model.eval(), untouched
