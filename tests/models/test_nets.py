"""The networks build and give the contract's shapes (needs torch)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from dicecall.models import contract  # noqa: E402
from dicecall.models.nets import Detector, Reader, count_params  # noqa: E402


def _shape(spec: list, n: int) -> list[int]:
    return [n if d == "N" else d for d in spec]


def test_detector_forward_matches_contract() -> None:
    model = Detector().eval()
    with torch.no_grad():
        outs = model(torch.rand(*contract.DETECTOR_INPUTS["image"][1]))
    for out, (name, (_, shape)) in zip(outs, contract.DETECTOR_OUTPUTS.items(), strict=True):
        assert list(out.shape) == shape, name
    heat, wh, offset = outs
    assert float(heat.min()) >= 0 and float(heat.max()) <= 1
    assert float(wh.min()) > 0
    assert float(offset.min()) >= 0 and float(offset.max()) <= 1


@pytest.mark.parametrize("n", [1, 5])
def test_reader_forward_matches_contract(n: int) -> None:
    model = Reader().eval()
    with torch.no_grad():
        outs = model(torch.rand(*_shape(contract.READER_INPUTS["crops"][1], n)),
                     torch.rand(*_shape(contract.READER_INPUTS["geom"][1], n)))
    for out, (name, (_, shape)) in zip(outs, contract.READER_OUTPUTS.items(), strict=True):
        assert list(out.shape) == _shape(shape, n), name


def test_models_are_small() -> None:
    # Each exported file must stay under ~3 MB: 4 bytes a parameter leaves room to spare.
    assert count_params(Detector()) < 500_000
    assert count_params(Reader()) < 700_000
