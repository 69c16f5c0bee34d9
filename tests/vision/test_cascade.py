"""One view first, the other views only for a die in doubt (`ReaderConfig.first_views`;
docs/verdicts.md, session 21, rule 11). A die in doubt must get exactly the reading it gets
when every die is read in all views; a sure die keeps its first reading."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from dicecall.vision.config import MODELS_DIR, ReaderConfig, for_game, for_table
from dicecall.vision.reader import in_doubt, read_batch

SURE, DOUBTFUL = 0.2, 0.8  # the crops' grey level says which die the fake reader sees


class _Session:
    """A reader that reads a SURE crop as a plain 3 (its pips counted right, no flag) and a
    DOUBTFUL one with a tilt of 0.5; each view of the DOUBTFUL die reads a little
    differently, as real views do. Records the batch size of every run."""

    def __init__(self) -> None:
        self.runs: list[int] = []

    def get_inputs(self):
        return [SimpleNamespace(name="crops"), SimpleNamespace(name="geom")]

    def get_outputs(self):
        return [SimpleNamespace(name=n) for n in ("face_logits", "pip_heatmap", "tilt_logit",
                                                  "stacked_logit", "die_logit", "margin_logit")]

    def run(self, names, feeds):
        x = feeds["crops"]
        n, view = len(x), len(self.runs)
        self.runs.append(n)
        doubtful = x.reshape(n, -1).mean(1) > 0.5
        logits = np.zeros((n, 6), np.float32)
        logits[:, 2] = 12.0
        logits[doubtful, 4] = 11.0 + view  # a 5 that grows more likely view by view
        heat = np.zeros((n, 1, 32, 32), np.float32)
        for r, c in ((10, 10), (16, 16), (22, 22)):  # three pips on a diagonal
            heat[:, 0, r, c] = 0.9
        tilt = np.where(doubtful, 0.0, -6.0)[:, None].astype(np.float32)
        out = {"face_logits": logits, "pip_heatmap": heat, "tilt_logit": tilt,
               "stacked_logit": np.full((n, 1), -6.0, np.float32),
               "die_logit": np.full((n, 1), 6.0, np.float32),
               "margin_logit": np.full((n, 1), 6.0, np.float32)}
        return [out[k] for k in names]


def _crops() -> np.ndarray:
    crops = np.empty((2, 3, 64, 64), np.float32)
    crops[0], crops[1] = SURE, DOUBTFUL
    return crops


def test_only_the_die_in_doubt_is_read_again_and_gets_the_all_views_reading():
    session = _Session()
    cascade = read_batch(session, _crops(), ReaderConfig(views=4, first_views=1))
    assert session.runs == [2, 1, 1, 1]  # both dice once, then the doubtful one thrice

    session.runs = []
    every = read_batch(session, _crops(), ReaderConfig(views=4, first_views=4))
    assert session.runs == [2, 2, 2, 2]
    session.runs = []
    once = read_batch(session, _crops(), ReaderConfig(views=1))
    for got, all_views, one_view in zip(cascade, every, once, strict=True):
        np.testing.assert_allclose(got[1], all_views[1], rtol=1e-6)  # the die in doubt
        np.testing.assert_allclose(got[0], one_view[0], rtol=1e-6)  # the sure die
    # The views outvote the first one: the doubtful die reads 5, not the first view's 3.
    assert np.argmax(cascade[0][1]) == 4 and np.argmax(once[0][1]) == 2


def test_no_die_in_doubt_means_one_run():
    session = _Session()
    crops = np.full((3, 3, 64, 64), SURE, np.float32)
    read_batch(session, crops, ReaderConfig(views=4, first_views=1))
    assert session.runs == [3]


def _read(face_p=0.99, pips=3, tilt=0.01, stacked=0.1, die=0.95, margin=44.0):
    """`read_batch`'s tuple for one die reading `face_p` on face 3 after the temperature."""
    cfg = ReaderConfig()
    rest = (1 - face_p) / 5
    logits = np.log(np.array([[rest, rest, face_p, rest, rest, rest]])) * cfg.temperature
    one = lambda v, t=np.float32: np.array([v], t)  # noqa: E731
    return (logits.astype(np.float32), one(pips, np.int8), one(tilt), one(stacked), one(die),
            one(margin))


@pytest.mark.parametrize(("reading", "doubt"), [
    ({}, False),
    ({"face_p": 0.979}, True), ({"face_p": 0.981}, False),   # sure_face 0.98
    ({"pips": 2}, True), ({"pips": 0}, True),                 # the pips disagree / unreadable
    ({"tilt": 0.015}, True), ({"tilt": 0.0149}, False),       # sure_tilt 0.015
    ({"stacked": 0.5}, True), ({"stacked": 0.49}, False),      # sure_stacked 0.5
    ({"die": 0.79}, True), ({"die": 0.8}, False),              # sure_die 0.8
    ({"margin": 41.9}, True), ({"margin": 42.0}, False),       # sure_margin 42
    ({"margin": float("nan")}, False),                         # a reader without the output
    # a place surely no die (sure_no_die 0.05) is dropped on its first reading, however
    # unsure its face or pips: the other views cost three reads to drop it all the same
    ({"die": 0.049, "face_p": 0.3, "pips": 0}, False), ({"die": 0.05, "face_p": 0.3}, True),
])
def test_what_puts_a_die_in_doubt(reading, doubt):
    assert in_doubt(_read(**reading), ReaderConfig()).tolist() == [doubt]


def test_where_a_cocked_die_counts_the_tilt_alone_puts_no_die_in_doubt():
    # Craps and High Roll (623a.9(b), 675a.4(c)): a flat die over the tilt line is only
    # checked for a void or an edge, by its margin and faces, which are doubts of their own.
    cfg = ReaderConfig()
    assert in_doubt(_read(tilt=0.9), for_game(cfg, cocked_counts=True)).tolist() == [False]
    assert in_doubt(_read(tilt=0.9), for_game(cfg, cocked_counts=False)).tolist() == [True]
    assert for_game(cfg, cocked_counts=False).sure_tilt == cfg.sure_tilt


def test_where_a_cocked_die_counts_the_thrown_detector_finds_the_dice():
    # docs/verdicts.md, session 25, rule 15; None keeps one detector for every game.
    cfg = ReaderConfig()
    assert for_game(cfg, cocked_counts=True).detector == cfg.thrown_detector != cfg.detector
    one = cfg.model_copy(update={"thrown_detector": None})
    assert for_game(one, cocked_counts=True).detector == cfg.detector


def test_where_a_cocked_die_counts_the_thrown_reader_reads_the_dice(tmp_path):
    # models/reader.md, session 36, rule 31: Craps and High Roll read with the reader whose
    # flags were tuned behind their detector's boxes; since session 53 (rule 54) the reader
    # without a game is that reader with its face fine-tuned, which no game's lines were
    # judged on. None keeps one reader for every game.
    cfg = ReaderConfig(thrown_reader=tmp_path / "thrown.onnx")
    assert for_game(cfg, cocked_counts=True).reader == tmp_path / "thrown.onnx"
    default = ReaderConfig()
    assert default.thrown_reader is not None and default.thrown_reader.is_file()
    assert default.thrown_reader != default.reader
    assert for_game(default, cocked_counts=True).reader == default.thrown_reader
    one = default.model_copy(update={"thrown_reader": None})
    assert for_game(one, cocked_counts=True).reader == default.reader


def test_the_thrown_reader_reads_with_its_own_temperature_unless_the_table_set_one(tmp_path):
    # models/reader.md, rule 58: a face fine-tuned again is less sure than the one the
    # lines were fitted on, so its temperature goes with its file; a table's calibrated
    # temperature (`dicecall calibrate model`) is fitted on that table and wins.
    cfg = ReaderConfig(thrown_temperature=0.6)
    assert for_game(cfg, cocked_counts=True).temperature == 0.6
    assert for_game(cfg, cocked_counts=False).temperature == cfg.temperature != 0.6
    assert for_game(for_game(cfg, True), True) == for_game(cfg, True)  # a second call: same
    table = ReaderConfig(thrown_temperature=0.6, temperature=1.1)
    assert for_game(table, cocked_counts=True).temperature == 1.1
    # an integrator's own reader in every game (`thrown_reader` None) is not the file the
    # thrown temperature was fitted on
    mine = cfg.model_copy(update={"thrown_reader": None})
    assert for_game(mine, cocked_counts=True).temperature == cfg.temperature
    unset = ReaderConfig()
    assert for_game(unset, True).temperature == (unset.thrown_temperature or unset.temperature)
    with pytest.raises(ValueError):
        ReaderConfig(thrown_temperature=0.0)


def test_where_a_cocked_die_is_a_no_roll_the_shaker_files_read_the_dice():
    # models/reader.md, session 37, rule 32: Props & Hops reads with the files its tilt
    # line was judged on; the reader that knows no game reads new die styles better. None
    # keeps one file for every game.
    cfg = ReaderConfig()
    shaker = for_game(cfg, cocked_counts=False)
    assert (shaker.detector, shaker.reader) == (cfg.shaker_detector, cfg.shaker_reader)
    assert cfg.shaker_detector != cfg.detector and cfg.shaker_reader != cfg.reader
    assert {cfg.detector, cfg.thrown_detector, cfg.shaker_detector} == {
        MODELS_DIR / "detector.onnx", MODELS_DIR / "detector.thrown.onnx",
        MODELS_DIR / "detector.shaker.onnx"}
    one = cfg.model_copy(update={"shaker_detector": None, "shaker_reader": None})
    assert (for_game(one, cocked_counts=False).detector,
            for_game(one, cocked_counts=False).reader) == (cfg.detector, cfg.reader)
    assert for_game(shaker, cocked_counts=False) == shaker  # a second call changes nothing


def test_a_place_surely_no_die_is_read_once_and_then_dropped_as_before():
    """The die-or-not line that drops a place (`die_threshold`, 0.6) is far above
    `sure_no_die`; the runtime's four-view reading dropped such places as well."""
    cfg = ReaderConfig()
    assert cfg.sure_no_die < cfg.die_threshold
    before = cfg.model_copy(update={"sure_no_die": 0.0})
    assert in_doubt(_read(die=0.01, face_p=0.3), before).tolist() == [True]
    assert in_doubt(_read(die=0.01, face_p=0.3), cfg).tolist() == [False]


def test_a_table_reads_by_its_games_profile():
    cfg = ReaderConfig()
    assert for_table(cfg, None) is cfg
    assert for_table(cfg, "mini-craps") == for_game(cfg, cocked_counts=True)
    assert for_table(cfg, "props-and-hops") == for_game(cfg, cocked_counts=False)
    with pytest.raises(ValueError, match="roulette"):
        for_table(cfg, "roulette")
