"""bench/bench_reader.py: the target table of issue 5; here only its refusal of bad input."""

import subprocess
import sys
from pathlib import Path


def test_bench_reader_refuses_a_synth_folder_without_its_test_sets(tmp_path):
    """Without test-{throwbox,shaker,craps} the synthetic rows and the frame timings would
    be left out of the table without a word."""
    (tmp_path / "test-throwbox").mkdir()
    bench = Path(__file__).resolve().parents[2] / "bench" / "bench_reader.py"
    res = subprocess.run([sys.executable, str(bench), "--synth", str(tmp_path)],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 2
    assert "no test-shaker, test-craps" in res.stderr
