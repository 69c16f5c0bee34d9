"""onnxruntime sessions of the reader: thread count as configured, and no thread left
spinning after a run."""

from __future__ import annotations

from dicecall.models.pipeline import session
from dicecall.vision.config import MODELS_DIR
from dicecall.vision.reader import open_session


def test_sessions_stop_spinning_when_a_run_returns():
    # The detector's and reader's sessions take turns on two cores; a thread of one left
    # spinning after its run slows the other (2.5x on a two-dice frame, session 8). Inside
    # a run spinning is kept: it took about 1 ms off a frame (models/reader.md "Speed").
    for s in (open_session(MODELS_DIR / "detector.onnx", 2), session(MODELS_DIR / "reader.onnx")):
        opts = s.get_session_options()
        assert opts.get_session_config_entry("session.force_spinning_stop") == "1"
        assert opts.get_session_config_entry("session.intra_op.allow_spinning") == "1"
        assert opts.intra_op_num_threads == 2


def test_the_sessions_share_one_arena_and_read_as_their_own_would():
    # The detector and reader never run at once: one arena for both held the edge about
    # 6 MB lower (docs/edge.md, session 60). What it must not change is any output.
    import numpy as np
    import onnxruntime as ort

    shared = open_session(MODELS_DIR / "reader.onnx", 2)
    assert shared.get_session_options().get_session_config_entry(
        "session.use_env_allocators") == "1"
    own = ort.InferenceSession(str(MODELS_DIR / "reader.onnx"),
                               providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(4)
    for n in (1, 7, 3):  # batches of other sizes in turn, as the runtime reads them
        feeds = {i.name: rng.random([d if isinstance(d, int) else n for d in i.shape],
                                    np.float32)
                 for i in own.get_inputs()}
        for a, b in zip(shared.run(None, feeds), own.run(None, feeds), strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
