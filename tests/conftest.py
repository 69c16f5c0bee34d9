"""Fixtures shared across the test folders."""

from __future__ import annotations

import pytest


@pytest.fixture()
def built_readers(monkeypatch) -> list:
    """The config of every `DiceReader` the test builds through `dicecall.vision.reader` (the
    CLIs import it from there when they run); each reader is still built and reads for real."""
    from dicecall.vision import reader as module

    built = []

    class Recording(module.DiceReader):
        def __init__(self, config=None):
            built.append(config)
            super().__init__(config)

    monkeypatch.setattr(module, "DiceReader", Recording)
    return built
