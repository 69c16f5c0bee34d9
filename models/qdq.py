"""Where a QDQ (quantize-dequantize) ONNX graph gives its outputs; no torch, no onnxruntime.

A graph output computed by a quantized node is clipped to the range its calibration inputs
gave it (session 23 found the INT8 reader's up-margin logit spanning 0 to 12.4, so it could
never read a margin under 22.5 degrees nor call a die void; `models/reader.md`).
"""

from __future__ import annotations

# Ops that only reshape, pick from or squash a tensor: a graph output made by one of them
# takes its values from the node before it, so that node is part of the output's head.
PASS_THROUGH = frozenset({"Slice", "Split", "Reshape", "Squeeze", "Unsqueeze", "Flatten",
                          "Identity", "Sigmoid", "Exp", "Clip", "Transpose"})


def _walks(graph):
    """Per graph output: the nodes from the output back through pass-through ops to and
    including the first node that computes (or None when an input is reached)."""
    made_by = {o: n for n in graph.node for o in n.output}
    for out in graph.output:
        path, node = [], made_by.get(out.name)
        while node is not None:
            path.append(node)
            if node.op_type not in PASS_THROUGH:
                break
            node = made_by.get(node.input[0])
        yield out.name, path


def output_heads(graph) -> list[str]:
    """Names of the nodes that compute each output: what `export.quantize` keeps float."""
    names: list[str] = []
    for _, path in _walks(graph):
        names += [n.name for n in path if n.name not in names]
    return names


def clipped_outputs(graph) -> list[str]:
    """The outputs a QDQ graph computes through a DequantizeLinear: their values can never
    leave the uint8 range of the calibration inputs."""
    return [name for name, path in _walks(graph)
            if path and path[-1].op_type == "DequantizeLinear"]
