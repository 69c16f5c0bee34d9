"""The committed ONNX files match their model cards and the contract (onnxruntime only).

This test must not need torch: it reads the cards' "Contract" tables and the models' own
input and output declarations through onnxruntime.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

ort = pytest.importorskip("onnxruntime")

from dicecall.models import contract  # noqa: E402
from dicecall.models.qdq import clipped_outputs  # noqa: E402
from dicecall.vision.reader import reader_feeds  # noqa: E402

MODELS = Path(contract.__file__).resolve().parent
ROW = re.compile(r"^\|\s*(input|output)\s*\|\s*`?(\w+)`?\s*\|\s*(\w+)\s*\|\s*\[([^\]]*)\]\s*\|")
ORT_TYPES = {"tensor(float)": "float32"}
CASES = [
    ("detector", "detector.onnx", contract.DETECTOR_INPUTS, contract.DETECTOR_OUTPUTS),
    ("detector", "detector.int8.onnx", contract.DETECTOR_INPUTS, contract.DETECTOR_OUTPUTS),
    ("detector", "detector.thrown.onnx", contract.DETECTOR_INPUTS, contract.DETECTOR_OUTPUTS),
    ("detector", "detector.shaker.onnx", contract.DETECTOR_INPUTS, contract.DETECTOR_OUTPUTS),
    ("reader", "reader.onnx", contract.READER_INPUTS, contract.READER_OUTPUTS),
    ("reader", "reader.int8.onnx", contract.READER_INPUTS, contract.READER_OUTPUTS),
    ("reader", "reader.thrown.onnx", contract.READER_INPUTS, contract.READER_OUTPUTS),
    ("reader", "reader.thrown.int8.onnx", contract.READER_INPUTS, contract.READER_OUTPUTS),
    ("reader", "reader.shaker.onnx", contract.READER_INPUTS, contract.READER_OUTPUTS),
    ("reader", "reader.shaker.int8.onnx", contract.READER_INPUTS, contract.READER_OUTPUTS),
]


def card_contract(card: Path) -> dict[str, dict[str, tuple[str, list]]]:
    """{"input": {name: (dtype, shape)}, "output": {...}} from the card's table rows."""
    out: dict[str, dict[str, tuple[str, list]]] = {"input": {}, "output": {}}
    for line in card.read_text().splitlines():
        m = ROW.match(line.strip())
        if m:
            dims = [d.strip() for d in m.group(4).split(",")]
            shape = [int(d) if d.isdigit() else d for d in dims]
            out[m.group(1)][m.group(2)] = (m.group(3), shape)
    return out


def onnx_contract(path: Path) -> dict[str, dict[str, tuple[str, list]]]:
    """The same mapping, read from the model through onnxruntime."""
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])

    def side(args):
        return {a.name: (ORT_TYPES.get(a.type, a.type), list(a.shape)) for a in args}

    return {"input": side(sess.get_inputs()), "output": side(sess.get_outputs())}


@pytest.mark.parametrize(("card", "name", "inputs", "outputs"), CASES)
def test_model_matches_card_and_contract(card: str, name: str, inputs: dict, outputs: dict) -> None:
    path = MODELS / name
    if not path.is_file():
        pytest.skip(f"{name} is not committed")
    declared = card_contract(MODELS / f"{card}.md")
    actual = onnx_contract(path)
    assert actual == declared
    assert actual == {
        "input": {k: (d, list(s)) for k, (d, s) in inputs.items()},
        "output": {k: (d, list(s)) for k, (d, s) in outputs.items()},
    }


@pytest.mark.parametrize("name", ["reader.onnx", "reader.int8.onnx", "reader.thrown.onnx",
                                  "reader.thrown.int8.onnx", "reader.shaker.onnx",
                                  "reader.shaker.int8.onnx"])
def test_reader_takes_any_number_of_crops(name: str) -> None:
    path = MODELS / name
    if not path.is_file():
        pytest.skip(f"{name} is not committed")
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    for n in (1, 3):
        crops = np.random.default_rng(n).random((n, 3, 64, 64), np.float32)
        outs = sess.run(None, reader_feeds(sess, crops, None))
        assert [o.shape[0] for o in outs] == [n] * len(contract.READER_OUTPUTS)


def test_card_sha256_matches_file() -> None:
    import hashlib

    for card in ("detector", "reader"):
        text = (MODELS / f"{card}.md").read_text() if (MODELS / f"{card}.md").is_file() else ""
        for name, digest in re.findall(r"`([\w.]+\.onnx)`[^`\n]*`([0-9a-f]{64})`", text):
            assert hashlib.sha256((MODELS / name).read_bytes()).hexdigest() == digest, name


@pytest.mark.parametrize("name", ["reader.int8.onnx", "reader.thrown.int8.onnx",
                                  "reader.shaker.int8.onnx"])
def test_int8_reader_gives_every_output_at_full_range(name: str) -> None:
    """Session 23 found the INT8 reader's up-margin logit clipped to 0-12.4, so it could
    never read a margin under 22.5 degrees nor call a die void (`docs/verdicts.md`)."""
    path = MODELS / name
    if not path.is_file():
        pytest.skip(f"{name} is not committed")
    onnx = pytest.importorskip("onnx")
    assert clipped_outputs(onnx.load(str(path)).graph) == []


def _outputs(path: Path, crops: np.ndarray) -> dict[str, np.ndarray]:
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    return dict(zip(names, sess.run(None, reader_feeds(sess, crops, None)), strict=True))


def test_the_game_readers_read_faces_pips_and_dice_alike() -> None:
    """reader.thrown.onnx is reader.shaker.onnx with only its flags and up margin fine-tuned
    behind the wider detector's and detector.thrown.onnx's boxes (models/reader.md, sessions
    34-37, rules 29, 31, 32), so every face figure measured for one holds in every game."""
    paths = [MODELS / "reader.shaker.onnx", MODELS / "reader.thrown.onnx"]
    if not all(p.is_file() for p in paths):
        pytest.skip("reader.shaker.onnx is not committed")
    crops = np.random.default_rng(5).random((4, 3, 64, 64), np.float32)
    same, tuned = (_outputs(p, crops) for p in paths)
    for name in ("face_logits", "pip_heatmap", "die_logit"):
        np.testing.assert_array_equal(tuned[name], same[name], err_msg=name)
    assert not np.array_equal(tuned["tilt_logit"], same["tilt_logit"])


def test_the_reader_without_a_game_moves_only_its_face_and_pips() -> None:
    """reader.onnx is reader.thrown.onnx with its face and pip branch fine-tuned on scenes
    rendered at the camera's size (models/reader.md, session 53, rule 54): its flags, up
    margin and die-or-not, which the verdict's lines read, are reader.thrown.onnx's."""
    paths = [MODELS / "reader.thrown.onnx", MODELS / "reader.onnx"]
    if not all(p.is_file() for p in paths):
        pytest.skip("reader.thrown.onnx is not committed")
    crops = np.random.default_rng(6).random((4, 3, 64, 64), np.float32)
    base, tuned = (_outputs(p, crops) for p in paths)
    for name in ("tilt_logit", "stacked_logit", "die_logit", "margin_logit"):
        np.testing.assert_allclose(tuned[name], base[name], atol=1e-4, err_msg=name)
    assert not np.allclose(tuned["face_logits"], base["face_logits"], atol=1e-3)
