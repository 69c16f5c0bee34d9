"""`dicecall demo` end to end: the service, three edge readers on the bundles, wagers.

What is asserted does not depend on how well the committed model reads: every throw of
every bundle is read once and reaches the service exactly once, settlements happen, and
the camera's calls are printed beside the truth. Faces are not asserted.
"""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")


def test_demo_runs_every_bundle_through_the_service(tmp_path):
    from dicecall.demo.run import run_demo

    lines: list[str] = []
    result = run_demo(speed=4.0, workdir=tmp_path, echo=lines.append)
    assert result["wall_s"] < 60
    tables = {t["bundle"]: t for t in result["tables"]}
    assert set(tables) == {"craps", "props-and-hops", "high-roll"}
    for t in tables.values():
        # Each throw settled once on camera: one reading in its rest period, none elsewhere.
        assert t["matched"] == {i: 1 for i in range(t["throws"])}, t["name"]
        assert t["reads"]["total"] == t["throws"]
        assert t["exactly_once"], t["name"]
        assert len(t["service"]["ids"]) == t["throws"]
    assert sum(t["service"]["lines"] for t in tables.values()) > 0
    assert sum(t["service"]["settled"] for t in tables.values()) > 0
    assert sum(t["service"]["no_roll"] for t in tables.values()) > 0
    # The Props & Hops lid resting on the cup is seen and not read.
    assert any("hand or the lid" in line and "Props" in line for line in lines)
    text = "\n".join(lines)
    assert "summary" in text and result["url"] in text
    assert "truth" in text
