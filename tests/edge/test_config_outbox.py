"""The strict per-table YAML, and the outbox's durability, order and bounds."""

from __future__ import annotations

import sqlite3

import pytest

from dicecall.edge.config import ConfigError, load_config
from dicecall.edge.outbox import Outbox

YAML = """
table_id: 3f0c2b7e-0000-4000-8000-000000000001
device_id: 9a1b4c2d-0000-4000-8000-000000000002
device_secret_file: secret.txt
service_url: http://127.0.0.1:8000
game: high-roll-dice-6
zones: cal/zones.json
source: {kind: replay, path: frames, speed: 0}
settle: {frames: 6, ms: 150}
outbox: {path: var/outbox.db}
health: {port: 0}
"""


def test_a_valid_file_with_paths_relative_to_it(tmp_path):
    (tmp_path / "secret.txt").write_text("ab" * 32 + "\n")
    path = tmp_path / "table.yaml"
    path.write_text(YAML)
    cfg = load_config(path)
    assert cfg.game == "high-roll-dice-6" and cfg.settle.frames == 6
    assert cfg.source.path == tmp_path / "frames" and cfg.zones == tmp_path / "cal/zones.json"
    assert cfg.outbox.path == tmp_path / "var/outbox.db"
    assert cfg.secret() == "ab" * 32
    assert cfg.health.port == 0 and cfg.settle.motion_threshold == 12  # defaults kept


@pytest.mark.parametrize(("edit", "message"), [
    (("settle: {frames: 6, ms: 150}", "settle: {frames: 6, ms: 150, frame: 3}"),
     "settle.frame: Extra inputs are not permitted"),
    (("game: high-roll-dice-6", "game: baccarat"), "game: Input should be"),
    (("speed: 0", "speed: -1"), "source.replay.speed"),
    (("kind: replay, path: frames, speed: 0", "kind: webcam"), "source: Input tag 'webcam'"),
    (("device_secret_file: secret.txt", "device_secret: " + "x" * 32),
     "give exactly one of device_secret, device_secret_file"),
])
def test_mistakes_are_named(tmp_path, edit, message):
    path = tmp_path / "table.yaml"
    text = YAML.replace(*edit)
    if "device_secret:" in text:
        text += "device_secret_file: secret.txt\n"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        load_config(path)


PICAM = "source: {kind: picamera2, main_size: [640, 480], lores_size: [320, 240]}"


@pytest.mark.parametrize(("edit", "message"), [
    # a table id the service cannot have: every POST would fail, forever
    (("table_id: 3f0c2b7e-0000-4000-8000-000000000001", "table_id: pit 3"),
     "table_id: Value error, 'pit 3' is not an id the service gives"),
    (("device_id: 9a1b4c2d-0000-4000-8000-000000000002", "device_id: d1"),
     "device_id: Value error, 'd1' is not an id the service gives"),
    (("http://127.0.0.1:8000", "http://127.0.0.1:80a"), "service_url: Value error, Port"),
    (("http://127.0.0.1:8000", "http://127.0.0.1:70000"), "service_url: Value error, Port"),
    (("health: {port: 0}", "health: {port: 0, stale_s: .inf}"),
     "health.stale_s: Input should be a finite number"),
    (("health: {port: 0}", "health: {port: 0, stale_s: 86400}"), "health.stale_s: Input "
     "should be less than or equal to 3600"),
    (("health: {port: 0}", "publisher: {backoff_initial_s: 60, backoff_max_s: 0.01}"),
     "backoff_initial_s may not be larger than backoff_max_s"),
    (("outbox: {path: var/outbox.db}",
      "outbox: {path: var/outbox.db, max_jpeg_bytes: 5000000, max_body_bytes: 4000000}"),
     "max_jpeg_bytes may not be larger than max_body_bytes"),
    (("source: {kind: replay, path: frames, speed: 0}", PICAM.replace("[320, 240]", "[-4, -4]")),
     r"lores_size must be two positive even numbers \(w, h\), got \(-4, -4\)"),
    (("source: {kind: replay, path: frames, speed: 0}", PICAM.replace("[640, 480]", "[0, 0]")),
     "main_size must be two positive even numbers"),
    (("source: {kind: replay, path: frames, speed: 0}", PICAM.replace("[320, 240]", "[321, 241]")),
     "lores_size must be two positive even numbers"),
    (("settle: {frames: 6, ms: 150}", "settle: {frames: '6', ms: 150}"),
     "settle.frames: Input should be a valid integer"),
    (("outbox: {path: var/outbox.db}", "outbox: {path: var/outbox.db, send_jpeg: 'off'}"),
     "outbox.send_jpeg: Input should be a valid boolean"),
    # A size is a list of YAML's own whole numbers: its items stay strict though a list
    # stands for the tuple, and nothing but a list is one (a set has no order).
    (("source: {kind: replay, path: frames, speed: 0}", PICAM.replace("640, 480", "'640', 480")),
     r"source\.picamera2\.main_size\.0: Input should be a valid integer"),
    (("source: {kind: replay, path: frames, speed: 0}", PICAM.replace("640, 480", "640.0, 480")),
     r"source\.picamera2\.main_size\.0: Input should be a valid integer"),
    (("source: {kind: replay, path: frames, speed: 0}", PICAM.replace("640, 480", "true, 480")),
     r"source\.picamera2\.main_size\.0: Input should be a valid integer"),
    (("source: {kind: replay, path: frames, speed: 0}", PICAM.replace("640, 480", "640, 480, 3")),
     r"source\.picamera2\.main_size: Tuple should have at most 2 items"),
    (("source: {kind: replay, path: frames, speed: 0}", PICAM.replace("[640, 480]", "640x480")),
     r"source\.picamera2\.main_size: Input should be a list, written \[a, b, \.\.\.\] in a "
     r"file \(got str\)"),
    (("source: {kind: replay, path: frames, speed: 0}",
      PICAM.replace("[320, 240]", "!!set {320: null, 240: null}")),
     r"source\.picamera2\.lores_size: Input should be a list, written .* \(got set\)"),
])
def test_values_the_edge_cannot_run_with_are_refused_at_check_time(tmp_path, edit, message):
    path = tmp_path / "table.yaml"
    text = YAML.replace(*edit)
    assert text != YAML
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_config(path)


def test_missing_file_bad_yaml_and_missing_secret(tmp_path):
    with pytest.raises(ConfigError, match="No such file"):
        load_config(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("table_id: [unclosed")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)
    path = tmp_path / "table.yaml"
    path.write_text(YAML)
    with pytest.raises(ConfigError, match=r"secret\.txt"):
        load_config(path).secret()


def test_rolls_survive_a_reopen_in_order_and_seq_never_goes_back(tmp_path):
    box = Outbox(tmp_path / "o.db", 10_000_000, 0.8)
    for seq in range(3):
        box.put(seq, f"r{seq}", b'{"x": %d}' % seq, 1.0, ("cursor:x", str(seq * 100)))
    box.done(0, None)
    box.done(1, {"status": 409}, rejected=True)
    box.close()
    box = Outbox(tmp_path / "o.db", 10_000_000, 0.8)
    head = box.head()
    assert (head.seq, head.roll_id, head.body) == (2, "r2", b'{"x": 2}')
    assert box.depth() == 1 and box.meta("cursor:x") == "200"
    box.done(2, None)
    assert box.head() is None and box.next_seq() == 3  # acked rows gone, numbering kept
    with pytest.raises(sqlite3.IntegrityError):
        box.put(3, "r1", b"{}", 1.0)  # a roll_id is stored once
    assert box.next_seq() == 3  # the failed write changed nothing
    box.close()


def test_size_alarm_and_fit(tmp_path):
    box = Outbox(tmp_path / "o.db", 1_000_000, 0.5)
    assert not box.alarm() and box.fits(100_000)
    box.put(0, "r0", b"x" * 600_000, 1.0)
    assert box.alarm() and not box.fits(500_000)
    box.done(0, None)
    assert box.depth() == 0
    box.close()


def test_the_documented_example_is_a_valid_configuration():
    from pathlib import Path

    example = Path(__file__).parents[2] / "docs" / "edge-table.example.yaml"
    cfg = load_config(example)
    assert cfg.source.kind == "picamera2" and cfg.source.lores_size == (320, 240)
    assert cfg.source.main_size == (1920, 1080)  # [1920, 1080] in the file


def test_a_nearly_full_filesystem_alarms_and_refuses_jpegs(tmp_path, monkeypatch):
    import shutil

    from dicecall.edge import outbox as module

    box = Outbox(tmp_path / "o.db", 10**12, 0.8)  # a budget larger than the disk
    free = module.DISK_RESERVE * 2
    monkeypatch.setattr(shutil, "disk_usage", lambda _: shutil._ntuple_diskusage(0, 0, free))
    assert box.alarm() and box.fits(1000) and not box.fits(module.DISK_RESERVE + 1)
    box.close()


def test_the_reader_reads_the_configured_views_unless_the_profile_was_fitted_on_others(
        tmp_path):
    from pathlib import Path

    from dicecall.calibration.model import calibrate_samples
    from dicecall.calibration.scores import synthetic_samples
    from dicecall.edge.reading import _reader

    cfg = load_config(Path(__file__).parents[2] / "docs" / "edge-table.example.yaml")
    cfg = cfg.model_copy(update={"model_profile": None})  # the example's is on the Pi
    assert _reader(cfg).config.views == 4
    one = cfg.model_copy(update={"reader": cfg.reader.model_copy(update={"views": 1})})
    assert _reader(one).config.views == 1
    calibrate_samples(synthetic_samples(4000, 2.0, 0), "synthetic",
                      views=2).profile.save(tmp_path / "p.json")
    fitted = cfg.model_copy(update={"model_profile": tmp_path / "p.json"})
    assert _reader(fitted).config.views == 2


def test_the_reader_puts_dice_in_doubt_by_the_tables_game():
    # Where a cocked die counts (Craps, High Roll), the tilt alone puts no die in doubt; in
    # Props & Hops, where it is a no roll, it does (vision.config.for_game, rule 11).
    from pathlib import Path

    from dicecall.edge.reading import _reader
    from dicecall.vision.config import ReaderConfig

    cfg = load_config(Path(__file__).parents[2] / "docs" / "edge-table.example.yaml")
    cfg = cfg.model_copy(update={"model_profile": None})
    tilt = {game: _reader(cfg.model_copy(update={"game": game})).config.sure_tilt
            for game in ("craps", "high-roll-dice", "props-and-hops")}
    assert tilt == {"craps": 1.0, "high-roll-dice": 1.0,
                    "props-and-hops": ReaderConfig().sure_tilt}
    two = cfg.model_copy(update={"reader": cfg.reader.model_copy(update={"first_views": 2})})
    assert _reader(two).config.first_views == 2


def test_the_thrown_games_read_with_their_own_reader_and_its_profile(tmp_path):
    # models/reader.md, sessions 36-37 and 53, rules 31-32 and 54: Craps and High Roll read
    # with reader.thrown.onnx, Props & Hops with reader.shaker.onnx; a reader the integrator
    # names is used in every game; a model profile is checked against the reader the table
    # reads with (a profile fitted on one reader is refused by a table of the other), so its
    # lines never carry over.
    import shutil
    from pathlib import Path

    from dicecall.calibration import CalibrationError
    from dicecall.calibration.model import calibrate_samples
    from dicecall.calibration.profile import file_sha256
    from dicecall.calibration.scores import synthetic_samples
    from dicecall.edge.reading import Reading, _reader
    from dicecall.vision.config import ReaderConfig
    from dicecall.vision.evidence import model_ids

    plain, thrown = ReaderConfig().shaker_reader, ReaderConfig().thrown_reader
    if plain is None:
        pytest.skip("no reader for Props & Hops alone is the default")
    cfg = load_config(Path(__file__).parents[2] / "docs" / "edge-table.example.yaml")
    cfg = cfg.model_copy(update={"model_profile": None})
    games = ("craps", "high-roll-dice", "props-and-hops")
    used = {g: _reader(cfg.model_copy(update={"game": g})).config.reader for g in games}
    assert used == {"craps": thrown, "high-roll-dice": thrown, "props-and-hops": plain}
    assert file_sha256(thrown) != file_sha256(plain)
    mine = shutil.copy(plain, tmp_path / "mine.onnx")
    named = cfg.model_copy(update={"reader": cfg.reader.model_copy(update={"reader": mine})})
    assert {_reader(named.model_copy(update={"game": g})).config.reader for g in games} == {
        Path(mine)}

    cal = calibrate_samples(synthetic_samples(4000, 2.0, 0), "synthetic",
                            reader_sha256=file_sha256(thrown))
    cal.profile.save(tmp_path / "thrown.json")
    settle = cfg.settle.model_copy(update={"reference_image": None})
    fitted = cfg.model_copy(update={"model_profile": tmp_path / "thrown.json", "zones": None,
                                    "settle": settle})
    reading = Reading(fitted.model_copy(update={"game": "craps"}))
    assert reading.reader.config.reader == thrown
    assert reading.models == {**model_ids(ReaderConfig().thrown_detector, thrown),  # evidence
                              "profile": file_sha256(tmp_path / "thrown.json")}
    assert reading.reader.config.temperature == cal.profile.reader.temperature
    assert reading.vcfg == cal.profile.verdict
    with pytest.raises(CalibrationError, match="another reader model"):
        Reading(fitted.model_copy(update={"game": "props-and-hops"}))
    # A profile fitted without a game reads through the no-game detector's boxes: a Craps
    # table, which shares the reader but not the detector, refuses it.
    plain_fit = calibrate_samples(synthetic_samples(4000, 2.0, 0), "synthetic",
                                  reader_sha256=file_sha256(thrown),
                                  detector_sha256=file_sha256(ReaderConfig().detector))
    plain_fit.profile.save(tmp_path / "nogame.json")
    with pytest.raises(CalibrationError, match="another detector model"):
        Reading(fitted.model_copy(update={"game": "craps",
                                          "model_profile": tmp_path / "nogame.json"}))


def test_int8_reads_each_game_with_its_own_readers_int8_file():
    # models/README.md, session 24: the INT8 reader behind the FP32 detector. Props & Hops's
    # tilt line was judged on reader.shaker.onnx (models/reader.md, session 37), Craps and
    # High Roll's on reader.thrown.onnx (session 53), so each INT8 file is that reader's; a
    # named reader and the switch together are refused, not guessed.
    from pathlib import Path

    from pydantic import ValidationError

    from dicecall.calibration.profile import file_sha256
    from dicecall.edge.reading import _reader
    from dicecall.vision.config import MODELS_DIR, ReaderConfig

    cfg = load_config(Path(__file__).parents[2] / "docs" / "edge-table.example.yaml")
    cfg = cfg.model_copy(update={"model_profile": None,
                                 "reader": cfg.reader.model_copy(update={"int8": True})})
    used = {g: _reader(cfg.model_copy(update={"game": g})).config
            for g in ("craps", "high-roll-dice", "props-and-hops")}
    assert {g: c.reader.name for g, c in used.items()} == {
        "craps": "reader.thrown.int8.onnx", "high-roll-dice": "reader.thrown.int8.onnx",
        "props-and-hops": "reader.shaker.int8.onnx"}
    assert {g: c.detector for g, c in used.items()} == {
        "craps": ReaderConfig().thrown_detector, "high-roll-dice": ReaderConfig().thrown_detector,
        "props-and-hops": ReaderConfig().shaker_detector}  # FP32 detectors
    assert all(c.reader.is_file() for c in used.values())
    assert len({file_sha256(MODELS_DIR / f) for f in (
        "reader.int8.onnx", "reader.thrown.int8.onnx", "reader.shaker.int8.onnx")}) == 3
    with pytest.raises(ValidationError, match="set one of them"):
        cfg.reader.model_validate({"int8": True, "reader": "mine.onnx"})


def test_the_thrown_games_find_dice_with_their_own_detector_unless_one_is_named(tmp_path):
    # docs/verdicts.md, session 25, rule 15: Craps and High Roll behind detector.thrown.onnx,
    # Props & Hops behind the detector its tilt line was set with (detector.shaker.onnx,
    # models/reader.md, session 37); a detector the integrator names is used in every game.
    import shutil
    from pathlib import Path

    from dicecall.edge.reading import _reader
    from dicecall.vision.config import ReaderConfig

    cfg = load_config(Path(__file__).parents[2] / "docs" / "edge-table.example.yaml")
    cfg = cfg.model_copy(update={"model_profile": None})
    games = ("craps", "high-roll-dice", "props-and-hops")
    used = {g: _reader(cfg.model_copy(update={"game": g})).config.detector for g in games}
    assert used == {"craps": ReaderConfig().thrown_detector,
                    "high-roll-dice": ReaderConfig().thrown_detector,
                    "props-and-hops": ReaderConfig().shaker_detector}
    assert used["craps"] != used["props-and-hops"]
    mine = shutil.copy(ReaderConfig().detector, tmp_path / "mine.onnx")
    named = cfg.model_copy(update={"reader": cfg.reader.model_copy(update={"detector": mine})})
    assert {_reader(named.model_copy(update={"game": g})).config.detector for g in games} == {
        Path(mine)}


def _damage_a_page(path):
    box = Outbox(path, 10_000_000, 0.8)
    for seq in range(200):
        box.put(seq, f"r{seq}", b"x" * 2000, 1.0)
    box.close()
    data = bytearray(path.read_bytes())
    page = 4096
    data[3 * page: 5 * page] = b"\x5a" * (2 * page)  # a bad sector in the middle of the file
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", ["not_a_database", "damaged_page"])
def test_a_corrupt_outbox_is_set_aside_and_a_new_one_started(tmp_path, caplog, damage):
    path = tmp_path / "outbox.db"
    if damage == "not_a_database":
        path.write_bytes(b"this is not an SQLite file at all" * 200)
    else:
        _damage_a_page(path)
    original = path.read_bytes()
    with caplog.at_level("ERROR", logger="dicecall.edge.outbox"):
        box = Outbox(path, 10_000_000, 0.8)
    box.put(0, "r0", b"{}", 1.0)  # the new outbox works
    assert box.depth() == 1 and box.next_seq() == 1
    box.close()
    aside = list(tmp_path.glob("outbox.db.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == original  # kept for salvage
    errors = [r for r in caplog.records if r.levelname == "ERROR"]
    assert len(errors) == 1 and aside[0].name in errors[0].getMessage()


def test_a_locked_outbox_is_not_taken_for_corrupt(tmp_path, monkeypatch):
    path = tmp_path / "outbox.db"
    Outbox(path, 10_000_000, 0.8).close()

    def locked(self):
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(Outbox, "_connect", locked)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        Outbox(path, 10_000_000, 0.8)
    assert not list(tmp_path.glob("outbox.db.corrupt-*")) and path.is_file()
