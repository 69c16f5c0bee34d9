"""The edge fixes glibc's mmap threshold so whole frames are mapped, not left in the heap."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from dicecall.edge import memory


def _rss_growth(fix: bool) -> float:
    """MB the process's RSS grows over 40 frames of 1920x1080 allocated and freed, with a
    small object kept alive after each (as a read leaves log records and a roll behind)."""
    code = textwrap.dedent(f"""
        import numpy as np
        from dicecall.edge.memory import map_large_buffers
        def rss():
            for line in open("/proc/self/status"):
                if line.startswith("VmRSS"):
                    return int(line.split()[1]) / 1024
        if {fix}:
            assert map_large_buffers()
        kept = []
        frame = np.ones((1080, 1920, 3), np.uint8); del frame
        start = rss()
        for k in range(40):
            frame = np.full((1080, 1920, 3), k, np.uint8)
            kept.append(bytearray(200_000 + k))
            del frame
        print(rss() - start)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    return float(out.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_whole_frames_freed_are_given_back_to_the_system():
    if not memory.map_large_buffers():
        pytest.skip("this C library has no mallopt (not glibc)")
    fixed, raised = _rss_growth(True), _rss_growth(False)
    # the kept objects are 8 MB: with the threshold fixed, the frames add nothing to them
    assert fixed < 12 and raised > fixed + 4, (fixed, raised)


def test_a_c_library_without_mallopt_changes_nothing(monkeypatch):
    monkeypatch.setattr(memory.ctypes.util, "find_library", lambda name: "no-such-libc.so")
    assert memory.map_large_buffers() is False


def test_edge_run_fixes_the_threshold_before_the_runner_starts(monkeypatch, tmp_path):
    from typer.testing import CliRunner

    from dicecall.edge import cli, runner

    calls = []
    monkeypatch.setattr(memory, "map_large_buffers", lambda: calls.append("mallopt") or True)

    class Stop(Exception):
        pass

    def refuse(cfg, **kw):
        calls.append("runner")
        raise Stop

    monkeypatch.setattr(runner, "EdgeRunner", refuse)
    (tmp_path / "frames.csv").write_text("file,t_ms\n")
    (tmp_path / "t.yaml").write_text(textwrap.dedent(f"""
        table_id: 3f0c2b7e-0000-4000-8000-000000000001
        device_id: 3f0c2b7e-0000-4000-8000-000000000002
        device_secret: {"s" * 32}
        service_url: http://127.0.0.1:9
        game: craps
        source: {{kind: replay, path: {tmp_path}}}
        outbox: {{path: {tmp_path / "o.db"}}}
    """))
    result = CliRunner().invoke(cli.group, ["run", "--config", str(tmp_path / "t.yaml")])
    assert isinstance(result.exception, Stop) and calls == ["mallopt", "runner"]
