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


@pytest.fixture()
def serve_env(tmp_path, monkeypatch) -> list:
    """A service environment in `tmp_path` whose `serve` does not start: the keyword
    arguments of every `uvicorn.run` it would have made are appended to the list returned.
    DICECALL_MIGRATE_ON_START is set through monkeypatch, so whatever serve sets for its
    workers is undone after the test."""
    from dicecall.api.settings import get_settings

    monkeypatch.chdir(tmp_path)  # where the ./dicecall.db fallback would land
    monkeypatch.setenv("DICECALL_KEY_FILE", str(tmp_path / "key"))
    monkeypatch.setenv("DICECALL_EVIDENCE_DIR", str(tmp_path / "ev"))
    monkeypatch.setenv("DICECALL_MIGRATE_ON_START", "true")
    started: list = []
    monkeypatch.setattr("uvicorn.run", lambda *a, **k: started.append(k))
    get_settings.cache_clear()
    yield started
    get_settings.cache_clear()
