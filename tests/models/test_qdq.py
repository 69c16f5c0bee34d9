"""models/qdq.py: which nodes give a QDQ graph's outputs (no torch)."""

import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from dicecall.models.qdq import clipped_outputs, output_heads  # noqa: E402


def _graph(quantized_logit: bool):
    """x -> Gemm -> [Q -> DQ] -> logit; logit -> Slice -> part; x -> Gemm2 -> Sigmoid -> p."""
    f = TensorProto.FLOAT
    init = [helper.make_tensor(n, f, [2, 2], [1, 0, 0, 1]) for n in ("w", "w2")]
    init += [helper.make_tensor("s", f, [], [0.05]),
             helper.make_tensor("z", TensorProto.UINT8, [], [128])]
    init += [helper.make_tensor(n, TensorProto.INT64, [1], [v])
             for n, v in (("a", 0), ("b", 1), ("ax", 1))]
    nodes = [helper.make_node("Gemm", ["x", "w"], ["g"], name="head")]
    logit = "g"
    if quantized_logit:
        nodes += [helper.make_node("QuantizeLinear", ["g", "s", "z"], ["q"], name="q"),
                  helper.make_node("DequantizeLinear", ["q", "s", "z"], ["dq"], name="dq")]
        logit = "dq"
    nodes += [helper.make_node("Identity", [logit], ["logit"], name="id"),
              helper.make_node("Slice", ["logit", "a", "b", "ax"], ["part"], name="slice"),
              helper.make_node("Gemm", ["x", "w2"], ["g2"], name="head2"),
              helper.make_node("Sigmoid", ["g2"], ["p"], name="sig")]
    outs = [helper.make_tensor_value_info(n, f, None) for n in ("logit", "part", "p")]
    return helper.make_graph(nodes, "t", [helper.make_tensor_value_info("x", f, [1, 2])],
                             outs, init)


def test_heads_are_walked_back_through_reshaping_ops_to_the_computing_node():
    assert output_heads(_graph(False)) == ["id", "head", "slice", "sig", "head2"]


def test_an_output_behind_a_dequantize_is_clipped_and_others_are_not():
    assert clipped_outputs(_graph(True)) == ["logit", "part"]
    assert clipped_outputs(_graph(False)) == []
