"""The dice reader: frame -> `Dice` with two ONNX models (detector, crop reader).

Sessions are created once, with the configured thread count, and warmed up, so the first
real frame is not slower than the rest.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path

import numpy as np

from .config import ReaderConfig
from .decode import MARGIN_SPAN_DEG, count_pips, decode_centres, sigmoid, softmax
from .dice import Dice
from .images import check_frame
from .pip_layout import fit_pips
from .preprocess import GEOM_FLOOR_VIEW, GEOM_META, FloorView, crops, die_geometry, letterbox
from .tiles import choose, inner_edge_cut, merge_tiles, tile_side, tile_windows, worth_tiling
from .views import sum_views
from .zoom import box_overlap, merge_looks, zoom_window, zoom_windows

STRIDE = 4


@functools.cache
def _shared_arena() -> bool:
    """Registers one CPU arena for every session of the process that asks for it, once;
    False where this onnxruntime cannot.

    The detector and the reader never run at once, yet each session's own arena kept its
    high-water mark: one arena for both held a reader's process about 6 MB lower (130.4-131.0
    against 136.1-137.0 MB after reading 1920x1080 frames, three runs each; docs/edge.md,
    session 60), with the same outputs at the same speed.
    """
    import onnxruntime as ort

    try:
        info = ort.OrtMemoryInfo("Cpu", ort.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0,
                                 ort.OrtMemType.DEFAULT)
        ort.create_and_register_allocator(info, None)
    except (AttributeError, RuntimeError):  # onnxruntime without shared allocators
        return False
    return True


def open_session(path: Path, threads: int):
    """An onnxruntime CPU session with a fixed number of intra-op threads."""
    import onnxruntime as ort

    if not Path(path).is_file():
        raise FileNotFoundError(f"model file {path} not found (see models/README.md)")
    opts = ort.SessionOptions()
    if _shared_arena():
        opts.add_session_config_entry("session.use_env_allocators", "1")
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    # The detector's and the reader's sessions take turns on the same cores. A thread that
    # spins after its run, waiting for more work, takes the CPU the other session needs:
    # on two cores a two-dice frame took 17 ms with spinning and 7 ms without (session 8).
    # Spinning inside a run, between one operator's parallel parts and the next, is what
    # spinning is for; stopped when the run returns, it took about 1 ms off a ten-dice and
    # a two-dice frame (10.79 -> 9.77 ms p50, interleaved; models/reader.md, Measured,
    # session 38).
    opts.add_session_config_entry("session.intra_op.allow_spinning", "1")
    opts.add_session_config_entry("session.force_spinning_stop", "1")
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


def _check_input(session, path, name: str, side: int, setting: str) -> None:
    """Refuses, when the sessions open, a model that does not take `name` at `side` x
    `side` (a detector and reader swapped, or a size the model was not exported at), which
    would otherwise fail on the first frame with dice, in onnxruntime's words."""
    inputs = {i.name: i.shape for i in session.get_inputs()}
    if name not in inputs:
        raise ValueError(f"{path}: no input {name!r} (it takes {sorted(inputs)}): is it the "
                         f"model this setting names?")
    fixed = [d for d in inputs[name][-2:] if isinstance(d, int)]
    if any(d != side for d in fixed):
        raise ValueError(f"{path} takes {name} of {inputs[name][-2]}x{inputs[name][-1]}; "
                         f"{setting} is {side}")


def reader_feeds(session, batch: np.ndarray, geom: np.ndarray | None) -> dict:
    """The reader's inputs: the crops, and `geom` when the model takes it (readers trained
    before it existed take crops only). A missing `geom` is a lone die mid-frame."""
    names = {i.name for i in session.get_inputs()} if hasattr(session, "get_inputs") else set()
    feeds = {"crops": batch}
    if "geom" in names:
        feeds["geom"] = (np.zeros((len(batch), 3), np.float32) if geom is None
                         else np.asarray(geom, np.float32))
    return feeds


def die_probability(outs: dict) -> np.ndarray:
    """(K,) die-or-not probability from a reader's named outputs; all 1 for a reader trained
    before the head existed, which keeps every detection."""
    if "die_logit" in outs:
        return np.asarray(sigmoid(outs["die_logit"][:, 0]), np.float32)
    return np.ones(len(outs["face_logits"]), np.float32)


def up_margin(outs: dict) -> np.ndarray:
    """(K,) the up margin in degrees from a reader's named outputs; NaN for a reader trained
    before the output existed (session 11), which leaves the verdict's void test to the
    face probabilities alone."""
    if "margin_logit" in outs:
        return np.asarray(sigmoid(outs["margin_logit"][:, 0]) * MARGIN_SPAN_DEG, np.float32)
    return np.full(len(outs["face_logits"]), np.nan, np.float32)


def read_batch(session, batch: np.ndarray, cfg: ReaderConfig, geom: np.ndarray | None = None):
    """The crop reader on a batch of crops, before the temperature.

    One home for the edge and for `dicecall calibrate model`, so the pip reading the
    thresholds are calibrated on is the one the verdict checks. `geom` is
    `preprocess.die_geometry` of the crops' dice. With `cfg.views` > 1 every crop is also read
    turned (and mirrored), and the raw outputs are averaged (`views.py`); with
    `cfg.first_views` < `cfg.views`, every crop is read in that many views first and only
    the crops `in_doubt` in the rest.

    Returns:
        (K, 6) float32 raw face logits, (K,) int8 pip reading (0: not a face), (K,) tilt,
        (K,) stacked and (K,) die-or-not probabilities (all 1 for a reader without the
        die-or-not head), and (K,) up margin in degrees (NaN for a reader without it).
    """
    names = [o.name for o in session.get_outputs()]
    if geom is None:
        geom = np.zeros((len(batch), 3), np.float32)

    def run(crops: np.ndarray, g: np.ndarray) -> dict[str, np.ndarray]:
        return dict(zip(names, session.run(names, reader_feeds(session, crops, g)), strict=True))

    first = min(cfg.first_views, cfg.views)
    total = sum_views(run, batch, geom, range(first))
    read = _readings({k: (v / first).astype(np.float32) for k, v in total.items()}, cfg)
    if first < cfg.views:
        doubt = in_doubt(read, cfg)
        if doubt.any():
            rest = sum_views(run, batch[doubt], geom[doubt], range(first, cfg.views))
            again = _readings({k: ((total[k][doubt] + rest[k]) / cfg.views).astype(np.float32)
                               for k in rest}, cfg)
            for mine, theirs in zip(read, again, strict=True):
                mine[doubt] = theirs
    return read


def _readings(outs: dict[str, np.ndarray], cfg: ReaderConfig) -> tuple:
    """`read_batch`'s tuple from the reader's named outputs, averaged over views."""
    if cfg.pip_reading == "layout":
        pip_face = fit_pips(outs["pip_heatmap"], cfg.pip_radius, cfg.crop_scale)
    else:
        pip_face = count_pips(outs["pip_heatmap"], cfg.pip_threshold, cfg.pip_radius,
                              cfg.crop_scale, cfg.pip_relative)
    return (np.asarray(outs["face_logits"], np.float32), pip_face,
            sigmoid(outs["tilt_logit"][:, 0]), sigmoid(outs["stacked_logit"][:, 0]),
            die_probability(outs), up_margin(outs))


def in_doubt(read: tuple, cfg: ReaderConfig) -> np.ndarray:
    """(K,) bool: the dice whose reading (`read_batch`'s tuple) lies near a line of the
    verdict, by `ReaderConfig.sure_*`, and are worth the other views; a place surely no die
    (`sure_no_die`) is not, whatever its other readings."""
    logits, pip_face, tilt, stacked, die, margin = read
    probs = softmax(logits, cfg.temperature)
    sure = ((probs.max(1) >= cfg.sure_face) & (pip_face == probs.argmax(1) + 1)
            & (tilt < cfg.sure_tilt) & (stacked < cfg.sure_stacked) & (die >= cfg.sure_die)
            & ~(margin < cfg.sure_margin))  # NaN: a reader without the output
    return ~sure & (die >= cfg.sure_no_die)


def _logit(p: np.ndarray) -> np.ndarray:
    """Inverse of the sigmoid, for probabilities the float32 sigmoid may round to 0 or 1."""
    q = np.clip(np.asarray(p, np.float64), 1e-7, 1.0 - 1e-7)
    return np.log(q / (1.0 - q))


def _keep_stacked(added: Dice, replaced: Dice, keep_apart: float) -> Dice:
    """`added` with each die near a die it replaced (as `merge_looks` judges near) given at
    least that die's stacked flag."""
    if not len(added) or not len(replaced):
        return added
    side = np.maximum(replaced.boxes[:, 2] - replaced.boxes[:, 0],
                      replaced.boxes[:, 3] - replaced.boxes[:, 1])
    dist = np.linalg.norm(added.centers[:, None, :] - replaced.centers[None, :, :], axis=2)
    near = dist < keep_apart * side[None, :]  # (added, replaced)
    inherited = np.where(near, replaced.stacked[None, :], 0.0).max(1)
    return replace(added, stacked=np.maximum(added.stacked, inherited).astype(np.float32))


FAINT_CHUNK = 10  # places a batch in the faint look: a High Roll roll, as the runtime reads


def _inside(points: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """(P, B): point p lies in box b."""
    x, y = points[:, None, 0], points[:, None, 1]
    return (x >= boxes[None, :, 0]) & (x <= boxes[None, :, 2]) & \
        (y >= boxes[None, :, 1]) & (y <= boxes[None, :, 3])


class DiceReader:
    """Reads every die in a BGR frame."""

    def __init__(self, config: ReaderConfig | None = None, view: FloorView | None = None
                 ) -> None:
        self.config = config or ReaderConfig()
        # The table camera's calibrated view of the floor, for the flags: without it the
        # reader assumes a straight camera of typical lens (`preprocess.die_geometry`).
        self.view = view
        self.detector = open_session(self.config.detector, self.config.threads)
        self.reader = open_session(self.config.reader, self.config.threads)
        _check_input(self.detector, self.config.detector, "image", self.config.det_size,
                     "det_size")
        _check_input(self.reader, self.config.reader, "crops", self.config.crop_size,
                     "crop_size")
        meta = self.reader.get_modelmeta().custom_metadata_map
        self.uses_view = meta.get(GEOM_META) == GEOM_FLOOR_VIEW
        crop = np.full((1, 3, self.config.crop_size, self.config.crop_size), 0.5, np.float32)
        for _ in range(self.config.warmup):
            # Noise holds no die, so `read` alone never runs the reader's session.
            self.read(np.random.default_rng(0).integers(0, 255, (480, 640, 3), np.uint8))
            read_batch(self.reader, crop, self.config)

    def detect(self, frame: np.ndarray, threshold: float | None = None):
        """Stage 1: centres, boxes and scores in frame pixels.

        The detector looks at the whole letterboxed frame; when the dice it finds are small
        there, it looks again at each cluster of them (at most `zoom_clusters`) cut from the
        full-resolution frame and enlarged (`zoom.py`), where touching dice no longer share
        a peak. `threshold`: the lowest peak kept (None: `det_threshold`).
        """
        cfg = self.config
        found, scale = self._look(frame, threshold=threshold)
        wins = zoom_windows(found[1], found[2], frame.shape, cfg.det_size, scale,
                            cfg.zoom_below, cfg.zoom_to, cfg.zoom_margin, cfg.zoom_min_gain,
                            cfg.zoom_clusters, cfg.zoom_gap)
        for x0, y0, x1, y1 in wins:
            (c, b, s), _ = self._look(frame[y0:y1, x0:x1], threshold=threshold)
            shift = np.array([x0, y0], np.float32)
            found = merge_looks(found, (c + shift, b + np.tile(shift, 2), s),
                                cfg.zoom_keep_apart, cfg.max_dice, cfg.zoom_prefer_first)
        return found

    def detect_tiled(self, frame: np.ndarray, found: tuple):
        """The dice the tiles find (`tiles.py`), with the whole-frame look's `found` where
        the tiles cannot see them; None when the frame is too small to tile."""
        cfg = self.config
        tiled = []
        for win in tile_windows(frame.shape, cfg.tile_zoom, cfg.det_size, cfg.tile_overlap,
                                cfg.tile_enlarge):
            x0, y0, x1, y1 = win
            (c, b, s), _ = self._look(frame[y0:y1, x0:x1])
            shift = np.array([x0, y0], np.float32)
            c, b = c + shift, b + np.tile(shift, 2)
            whole = ~inner_edge_cut(b, win, frame.shape, 0.01 * max(x1 - x0, y1 - y0))
            tiled.append((c[whole], b[whole], s[whole]))
        if not tiled:
            return None
        scale = cfg.det_size / max(frame.shape[:2])
        return merge_tiles(found, tiled, scale, cfg.tile_split, cfg.near_peaks, cfg.max_dice)

    def _look(self, image: np.ndarray, shrink: float = 1.0, threshold: float | None = None):
        # `image` may be a window of the frame, a view: the letterbox's resize reads it in
        # place, the same pixels as a copy (up to 6 MB at 1920x1080) and 0.1-0.6 ms sooner.
        cfg = self.config
        x, scale = letterbox(image, cfg.det_size, shrink)
        heat, wh, off = self.detector.run(["heatmap", "wh", "offset"], {"image": x})
        line = cfg.det_threshold if threshold is None else threshold
        return decode_centres(heat, wh, off, STRIDE, scale, line, cfg.max_dice,
                              cfg.near_peaks, (image.shape[1], image.shape[0])), scale

    def read(self, frame: np.ndarray, view: FloorView | None = None,
             expected: int | None = None) -> Dice:
        """Finds and reads every die.

        Args:
            frame: (H, W, 3) uint8 BGR, any size.
            view: this frame's camera view of the floor; None = the reader's own. A reader
                model not trained on views (`uses_view` False) reads without it.
            expected: the dice the game expects in the frame (its profile's count), or None;
                when fewer are kept, the reader looks closer (`closer`, `short_look`), then
                wide (`wider`, `wide_look`) if still short. Without a count the wide look
                runs where the reader dropped a place the detector found (`wide_on_drops`).

        Returns:
            `Dice` in pixels of `frame`.
        """
        check_frame(frame)
        view = (view or self.view) if self.uses_view else None
        found = self.detect(frame)
        dice = self._read_found(frame, found, view)
        if expected is not None and len(dice) < expected:
            dice = self.closer(frame, dice, view, expected)
        tiled = self._tiled(frame, found, dice, view)
        if tiled is not None:
            return tiled
        # Without the game's count, a place the detector found and the reader dropped is
        # the only sign of a die missed (one found as its pips, `wider`).
        if (len(dice) < expected if expected is not None
                else self.config.wide_on_drops and len(dice) < len(found[0])):
            dice = self.wider(frame, dice, view)
        return self.fainter(frame, dice, view, expected)

    def recount(self, frame: np.ndarray, dice: Dice, expected: int,
                view: FloorView | None = None) -> Dice:
        """`dice`, read from `frame` without a count, as `read` with `expected` reads them
        when the frame is short of it: the closer look, then the wide look while still
        short. For the edge, which reads a settled frame before it knows the roll's count."""
        if len(dice) < expected:
            dice = self.closer(frame, dice, view, expected)
        if len(dice) < expected:
            dice = self.wider(frame, dice, view)
        return self.fainter(frame, dice, view, expected)

    def _tiled(self, frame: np.ndarray, found: tuple, dice: Dice, view: FloorView | None
               ) -> Dice | None:
        """The dice of the tiled look (`tile_zoom`) where they are to replace `dice`, else
        None: off, the dice not small, or the tiles found nothing better."""
        cfg = self.config
        if not cfg.tile_zoom:
            return None
        enlarged = tile_side(frame.shape, cfg.tile_zoom) < cfg.det_size
        scale = cfg.det_size / max(frame.shape[:2])
        if not worth_tiling(dice, scale, enlarged, cfg.tile_small_below):
            return None
        tiled = self.detect_tiled(frame, found)
        if tiled is not None:
            other = self._read_found(frame, tiled, view)
            keep = choose(dice, other, found[1], enlarged, cfg)
            if keep is not None:
                return other[keep]
        return None

    def closer(self, frame: np.ndarray, dice: Dice, view: FloorView | None = None,
               expected: int | None = None) -> Dice:
        """`dice` with those a second, enlarged look around them finds (off: `dice` as given).

        For a frame that holds fewer dice than its game expects. The first look's second
        look (`detect`) spans every peak, the chips' too, so two touching dice far from the
        chips stay one peak; here the window spans only the dice the reader kept, enlarged
        until the median die spans `zoom_to` detector pixels. A die kept keeps its box and
        its reading (`merge_looks` with `prefer_first`), unless two dice of the closer look
        lie within `zoom_keep_apart` of its side: a merged pair, whose two dice are read in
        its place. Only the dice added are read, each beside all the others
        (`die_geometry`), and they pass the die-or-not head like any other. The result has
        more dice than `dice` or is `dice`.

        Args:
            view: as `read` (None: the reader's own, as `read` takes it).
            expected: the roll's count; still short of it after this look with one die
                kept, the reader looks once more at `short_look_again` (0 or no count: not).
        """
        cfg = self.config
        if not cfg.short_look or len(dice) == 0:
            return dice
        view = (view or self.view) if self.uses_view else None
        out = self._closer_at(frame, dice, view, cfg.zoom_to)
        # A lone kept die may be one of a touching pair, or the pair boxed as one; among
        # several the median box is one die's, and enlarging past it found false dice in
        # rolls a die had left (session 57, rule 60).
        if cfg.short_look_again and expected is not None and len(out) == 1 < expected:
            out = self._closer_at(frame, out, view, cfg.short_look_again)
        return out

    def _closer_at(self, frame: np.ndarray, dice: Dice, view: FloorView | None,
                   target: float) -> Dice:
        """`closer`'s look, enlarged until the median kept die spans `target` detector px."""
        cfg = self.config
        scale = cfg.det_size / max(frame.shape[:2])
        # any die size: the dice kept are too few whatever their size
        win = zoom_window(dice.boxes, frame.shape, cfg.det_size, scale, np.inf, target,
                          cfg.zoom_margin, cfg.zoom_min_gain)
        if win is None:
            return dice
        x0, y0, x1, y1 = win
        (c, b, s), _ = self._look(frame[y0:y1, x0:x1])
        shift = np.array([x0, y0], np.float32)
        centers, boxes, scores = merge_looks(
            (dice.centers, dice.boxes, dice.det_score), (c + shift, b + np.tile(shift, 2), s),
            cfg.zoom_keep_apart, cfg.max_dice, prefer_first=True)
        same = (boxes[:, None, :] == dice.boxes[None, :, :]).all(2)  # (merged, kept)
        new = ~same.any(1)
        if not new.any():
            return dice
        side = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
        geom = die_geometry(centers, side, frame.shape, view)
        added = self._read_crops(frame, centers[new], boxes[new], cfg.crop_scale * side[new],
                                 scores[new], cascade=True, view=view, geom=geom[new])
        if cfg.closer_keeps_stacked:
            added = _keep_stacked(added, dice[~same.any(0)], cfg.zoom_keep_apart)
        out = Dice.concat([dice[same.any(0)], added])
        # a pair that read as fewer dice than the one it replaced gains nothing
        return out if len(out) > len(dice) else dice

    def wider(self, frame: np.ndarray, dice: Dice, view: FloorView | None = None) -> Dice:
        """`dice` with those a look at the frame shrunk `wide_look` times finds where no
        die was kept (off: `dice` as given).

        The detector finds some dice only as their pips, each a small bright blob it
        boxes as a die, and the reader rightly drops each pip: dark dice with bright pips
        of a style it was not trained on, and dice much larger than its training dice.
        Shrunk, the pips merge into the die, and the die is of a size the detector knows
        (models/reader.md, session 46). A die of the wide look is added
        only where its box shares no more than `wide_apart` of the smaller box with a kept
        die's (an oblique die's side face is boxed beside its top), and only where the
        die-or-not head is sure of it (`wide_die`): shrunk, a board or a sheet of paper
        is of a die's size too. A die kept keeps its box and reading.

        Args:
            view: as `read` (None: the reader's own, as `read` takes it).
        """
        cfg = self.config
        if cfg.wide_look <= 1.0:
            return dice
        view = (view or self.view) if self.uses_view else None
        (c, b, s), _ = self._look(frame, cfg.wide_look)
        if len(c):
            free = ~(box_overlap(b, dice.boxes) > cfg.wide_apart).any(1)
            c, b, s = c[free], b[free], s[free]
        if len(c) == 0:
            return dice
        added = self._read_beside(frame, dice, (c, b, s), view, cfg.wide_die)
        return Dice.concat([dice, added]) if len(added) else dice

    def _read_beside(self, frame: np.ndarray, dice: Dice, found: tuple,
                     view: FloorView | None, die_line: float, chunk: int = 0) -> Dice:
        """The places `found` (centres, boxes, scores) read as dice, each beside all the
        others, kept ones too, as `closer` reads them; those the die-or-not head passes at
        `die_line`. `chunk` > 0 reads at most that many places a batch: the same readings,
        and the reader's memory no larger than a batch that size needs."""
        c, b, s = found
        every = np.concatenate([dice.boxes, b])
        sides = np.maximum(every[:, 2] - every[:, 0], every[:, 3] - every[:, 1])
        geom = die_geometry(np.concatenate([dice.centers, c]), sides, frame.shape, view)
        k, step = len(dice), chunk or len(c)
        return Dice.concat([
            self._read_crops(frame, c[i:i + step], b[i:i + step],
                             self.config.crop_scale * sides[k + i:k + i + step], s[i:i + step],
                             cascade=True, view=view, geom=geom[k + i:k + i + step],
                             die_line=die_line)
            for i in range(0, len(c), step)])

    def fainter(self, frame: np.ndarray, dice: Dice, view: FloorView | None = None,
                expected: int | None = None) -> Dice:
        """`dice` with the dice of the detector's fainter peaks, for a frame still short of
        its count (off, no count or not short: `dice` as given).

        The detector looks again, keeping peaks down to `faint_det`; a peak inside a kept
        die's box is that die. The others are read beside every die kept and pass only
        where the die-or-not head is sure (`faint_die`): low scores are mostly the chips,
        the rail and the cloth's texture, which the head reads as no die (docs/verdicts.md,
        rule 66). At most the dice the frame is short of are added, the detector's
        strongest first: the look fills a count, it never makes a roll hold more dice than
        the game expects. With `short_die`, a count still short is filled from the places
        the head read under `faint_die` but at least `short_die`, the surest first; their
        `die_prob` tells the verdict they are in doubt (`die_doubtful`, rule 73).
        """
        cfg = self.config
        if not cfg.faint_det or expected is None or len(dice) >= expected:
            return dice
        view = (view or self.view) if self.uses_view else None
        c, b, s = self.detect(frame, cfg.faint_det)
        if len(c) and len(dice):
            # a peak inside a kept die's box is that die; touching dice's boxes overlap,
            # their centres do not fall in each other's box
            free = ~_inside(c, dice.boxes).any(1)
            c, b, s = c[free], b[free], s[free]
        if len(c) == 0:
            return dice
        # the faint peaks of a frame with chips run to dozens (FRESH94 craps: up to 28), a
        # batch larger than any the runtime reads otherwise (bench/bench_edge.py's peak RSS
        # read 149.3-150.2 MB so, 148.2 chunked, 147.1 without the look; runs vary ~1 MB)
        line = min(cfg.faint_die, cfg.short_die) if cfg.short_die else cfg.faint_die
        added = self._read_beside(frame, dice, (c, b, s), view, line, chunk=FAINT_CHUNK)
        if len(added) == 0:
            return dice
        # the places the head is sure of first, the detector's strongest first; then those
        # it doubts (`short_die`), the surest first. Two peaks of one die: the first stands.
        sure = added.die_prob >= cfg.faint_die
        order = np.lexsort((np.where(sure, -added.det_score, -added.die_prob), ~sure))
        keep: list[int] = []
        for i in order:
            if not keep or not _inside(added.centers[[i]], added.boxes[keep]).any():
                keep.append(int(i))
        return Dice.concat([dice, added[np.array(keep[:expected - len(dice)])]])

    def _read_found(self, frame: np.ndarray, found: tuple, view: FloorView | None) -> Dice:
        centers, boxes, scores = found
        if len(centers) == 0:
            return Dice.empty()
        sides = self.config.crop_scale * np.maximum(boxes[:, 2] - boxes[:, 0],
                                                    boxes[:, 3] - boxes[:, 1])
        return self._read_crops(frame, centers, boxes, sides, scores, cascade=True, view=view)

    def read_crop(self, crop: np.ndarray) -> Dice:
        """Stage 2 only, for an image that is already one die seen from above (the caller
        vouches it is a die, so the die-or-not head does not drop it)."""
        check_frame(crop)
        h, w = crop.shape[:2]
        side = max(h, w) / self.config.crop_scale
        c = np.array([[w / 2, h / 2]], np.float32)
        box = np.array([[w / 2 - side / 2, h / 2 - side / 2, w / 2 + side / 2,
                         h / 2 + side / 2]], np.float32)
        return self._read_crops(crop, c, box, np.array([max(h, w)], np.float32),
                                np.ones(1, np.float32), cascade=False)

    def _read_at(self, frame, centers, sides, geom, scale: float) -> tuple:
        """`read_batch` of crops of side `scale` x each die's box side; `geom` is the same
        as the runtime crop's: the die has not moved."""
        cfg = self.config
        return read_batch(self.reader, crops(frame, centers, sides * (scale / cfg.crop_scale),
                                             cfg.crop_size, cfg.soften_sigma), cfg, geom)

    def _second_crops(self, frame, centers, sides, geom, logits, tilt, margin, keep
                      ) -> tuple:
        """The face logits, the tilt and the up margin averaged with those of second crops
        of the kept dice (`ReaderConfig.face_crop_scale`, `tilt_crop_scale`,
        `margin_crop_scale`; all off by default, docs/verdicts.md, session 16). The
        detector's box is often too small or off the die's centre, most on cocked dice, and
        one crop then cuts part of the die away. Logits are averaged, as the views are
        (`views.py`); one read serves every reading whose scale is the same."""
        cfg, reads = self.config, {}

        def at(scale: float) -> tuple:
            if scale not in reads:
                reads[scale] = self._read_at(frame, centers, sides, geom, scale)
            return reads[scale]

        if cfg.face_crop_scale > 0:
            logits = logits.copy()
            logits[keep] = (logits[keep] + at(cfg.face_crop_scale)[0]) / 2.0
        if cfg.tilt_crop_scale > 0:
            tilt = tilt.copy()
            tilt[keep] = sigmoid((_logit(tilt[keep]) + _logit(at(cfg.tilt_crop_scale)[2])) / 2.0)
        if cfg.margin_crop_scale > 0:  # degrees: a reader without the output gives NaN
            margin = margin.copy()
            margin[keep] = (margin[keep] + at(cfg.margin_crop_scale)[5]) / 2.0
        return logits, tilt, margin

    def _read_crops(self, frame, centers, boxes, sides, scores, cascade: bool,
                    view: FloorView | None = None, geom: np.ndarray | None = None,
                    die_line: float | None = None) -> Dice:
        cfg = self.config
        if geom is None:
            geom = die_geometry(centers, sides / cfg.crop_scale, frame.shape, view)
        logits, pip_face, tilt, stacked, die, margin = read_batch(
            self.reader, crops(frame, centers, sides, cfg.crop_size, cfg.soften_sigma), cfg,
            geom)
        # The detector casts a wide net on its 320-pixel view; the reader, seeing each place
        # at full resolution, drops those that hold no die (models/reader.md).
        line = cfg.die_threshold if die_line is None else die_line
        keep = die >= line if cascade else np.ones(len(die), bool)
        if not keep.any():
            return Dice.empty()
        if cascade:
            logits, tilt, margin = self._second_crops(frame, centers[keep], sides[keep],
                                                      geom[keep], logits, tilt, margin, keep)
        probs = softmax(logits[keep], cfg.temperature)
        return Dice(centers=centers[keep], boxes=boxes[keep], face=probs.argmax(1) + 1,
                    face_probs=probs, pip_face=pip_face[keep], tilt=tilt[keep],
                    stacked=stacked[keep], det_score=scores[keep], up_margin=margin[keep],
                    die_prob=die[keep])
