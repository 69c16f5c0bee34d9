"""onnxruntime sessions of the reader: thread count as configured, and no spinning threads."""

from __future__ import annotations

from dicecall.models.pipeline import session
from dicecall.vision.config import MODELS_DIR
from dicecall.vision.reader import open_session


def test_sessions_do_not_spin_after_a_run():
    # The detector's and reader's sessions take turns on two cores; a spinning thread of one
    # slows the other (2.5x on a two-dice frame, models/reader.md "Speed").
    for s in (open_session(MODELS_DIR / "detector.onnx", 2), session(MODELS_DIR / "reader.onnx")):
        opts = s.get_session_options()
        assert opts.get_session_config_entry("session.intra_op.allow_spinning") == "0"
        assert opts.intra_op_num_threads == 2
