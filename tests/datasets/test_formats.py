"""Our JSON schema, YOLO and COCO round trips, the real-dev import, and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dicecall.datasets.formats import (
    export_coco,
    export_yolo,
    import_folder,
    load_coco,
    load_yolo,
)
from dicecall.datasets.schema import DatasetError, load_folder, load_record

REAL_DEV = Path(__file__).parents[2] / ".." / "shared" / "data" / "real-dev"


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    pytest.importorskip("pybullet")
    from dicecall.datasets.generate import GenerateConfig, generate

    out = tmp_path_factory.mktemp("synthetic")
    generate(
        GenerateConfig(
            scene="throwbox", count=3, seed=5, out=out, width=320, height=240, workers=1
        ),
        progress=False,
    )
    return out


def _kept(rec):
    return sorted((d.face, *d.box) for d in rec.dice if d.visible >= 0.3 and d.box[2] > d.box[0])


def test_yolo_round_trip_keeps_every_box_and_face(dataset, tmp_path):
    export_yolo(dataset, tmp_path)
    assert sorted(p.name for p in (tmp_path / "labels").iterdir())
    back = {rec.image: rec for _, rec in load_yolo(tmp_path)}
    for _, rec in load_folder(dataset):
        got = sorted((d.face, *d.box) for d in back[rec.image].dice)
        want = _kept(rec)
        assert [g[0] for g in got] == [w[0] for w in want]
        for g, w in zip(got, want, strict=True):
            assert g[1:] == pytest.approx(w[1:], abs=0.01)


def test_coco_round_trip_keeps_every_box_and_face(dataset, tmp_path):
    export_coco(dataset, tmp_path)
    doc = json.loads((tmp_path / "annotations.json").read_text())
    assert [c["name"] for c in doc["categories"]] == [f"face_{k}" for k in range(1, 7)]
    back = {rec.image: rec for _, rec in load_coco(tmp_path)}
    for _, rec in load_folder(dataset):
        got = sorted((d.face, *d.box) for d in back[rec.image].dice)
        want = _kept(rec)
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert g == pytest.approx(w, abs=1e-6)


def test_import_writes_our_schema(dataset, tmp_path):
    export_yolo(dataset, tmp_path / "yolo")
    n = import_folder("yolo", tmp_path / "yolo", tmp_path / "ours")
    pairs = load_folder(tmp_path / "ours")
    assert n == len(pairs) == 3 and all(rec.source == "yolo" for _, rec in pairs)


@pytest.mark.skipif(
    not (REAL_DEV / "epanemu" / "valid").is_dir(), reason="../shared/data/real-dev is not present"
)
def test_import_real_epanemu_valid():
    pairs = load_yolo(REAL_DEV / "epanemu" / "valid")
    assert len(pairs) > 50
    dice = [d for _, rec in pairs for d in rec.dice]
    assert len(dice) > 100 and {d.face for d in dice} == {1, 2, 3, 4, 5, 6}
    for _, rec in pairs:
        for d in rec.dice:
            assert -1 <= d.box[0] < d.box[2] <= rec.width + 1


def test_missing_folder_is_a_clear_error(tmp_path):
    with pytest.raises(DatasetError, match=r"no such dataset folder"):
        load_folder(tmp_path / "nope")
    with pytest.raises(DatasetError, match=r"images/ and labels/"):
        load_yolo(tmp_path)
    with pytest.raises(DatasetError, match=r"annotations\.json"):
        load_coco(tmp_path)


def test_corrupt_json_is_a_clear_error(tmp_path):
    (tmp_path / "a.json").write_text("{not json")
    with pytest.raises(DatasetError, match=r"not valid JSON"):
        load_record(tmp_path / "a.json")
    (tmp_path / "a.json").write_text(json.dumps({"schema_version": 99}))
    with pytest.raises(DatasetError, match="schema_version"):
        load_folder(tmp_path)
    (tmp_path / "a.json").write_text(json.dumps({"schema_version": 1, "image": "a.jpg"}))
    with pytest.raises(DatasetError, match=r"a\.json"):
        load_record(tmp_path / "a.json")


def test_bad_yolo_line_is_a_clear_error(tmp_path):
    import cv2
    import numpy as np

    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "x.jpg"), np.zeros((8, 8, 3), np.uint8))
    (tmp_path / "labels" / "x.txt").write_text("7 0.5 0.5 0.1 0.1")
    with pytest.raises(DatasetError, match=r"x\.txt:1"):
        load_yolo(tmp_path)
