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
