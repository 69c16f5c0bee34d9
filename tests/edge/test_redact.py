"""A camera URI with credentials (`rtsp://alice:s3cret@10.0.0.5/stream`) is opened as given
but shown everywhere else with its password and query tokens as `***` (edge/redact.py):
log records, camera_error events, /healthz, what is posted to the service, the CLI, the
config's repr. The user name and the host still show which camera it is."""

from __future__ import annotations

import json
import logging
import threading
import time
import traceback
from typing import ClassVar

import httpx
import numpy as np
import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from dicecall.cli import app
from dicecall.edge import camera, sources
from dicecall.edge.config import EdgeConfig
from dicecall.edge.health import JsonFormatter
from dicecall.edge.redact import redact_text, redact_uri
from dicecall.edge.runner import EdgeRunner
from dicecall.edge.sources import CameraError, OpenCVSource

PASSWORD = "s3cret-Pw"
URI = f"rtsp://alice:{PASSWORD}@10.0.0.5/stream"
SHOWN = "rtsp://alice:***@10.0.0.5/stream"
W, H = 320, 240


@pytest.mark.parametrize(("uri", "shown"), [
    (URI, SHOWN),
    ("rtsp://alice:p%40ss-word@10.0.0.5:554/live?channel=1",
     "rtsp://alice:***@10.0.0.5:554/live?channel=1"),
    ("rtsp://alice:p@ss@word@10.0.0.5/s", "rtsp://alice:***@10.0.0.5/s"),  # "@" unencoded
    ("http://10.0.0.5/video.mjpg?token=abc123&channel=2&Password=hunter22&key=K",
     "http://10.0.0.5/video.mjpg?token=***&channel=2&Password=***&key=***"),
    ("http://cam.local/snap?api_key=abcd;user=alice", "http://cam.local/snap?api_key=***;user=alice"),
    ("rtspsrc location=rtsp://10.0.0.5/s user-id=alice user-pw=hunter22 ! appsink",
     "rtspsrc location=rtsp://10.0.0.5/s user-id=alice user-pw=*** ! appsink"),
    # a user name that is the password would give it away
    ("rtsp://admin:admin@10.0.0.5/", "rtsp://***:***@10.0.0.5/"),
    ("rtsp://alice@10.0.0.5/stream", "rtsp://alice@10.0.0.5/stream"),  # no password
    ("rtsp://10.0.0.5:554/stream", "rtsp://10.0.0.5:554/stream"),
    ("/var/lib/dicecall/throws.mp4", "/var/lib/dicecall/throws.mp4"),
    (0, 0),
])
def test_the_password_and_query_tokens_are_masked_the_user_and_host_kept(uri, shown):
    assert redact_uri(uri) == shown
    assert redact_uri(shown) == shown  # masking again changes nothing


def test_a_backend_text_quoting_the_uri_or_its_password_is_masked():
    text = (f"OpenCV(5.0.0) cap_ffmpeg.cpp:1: error: can't open "
            f"'rtsp://alice:{PASSWORD}@10.0.0.5:554/stream' (401 for alice/{PASSWORD})")
    got = redact_text(text, URI)
    assert PASSWORD not in got
    assert "rtsp://alice:***@10.0.0.5:554/stream" in got and "alice/***" in got
    # decoded, as a backend may print it
    assert redact_text("auth p@ss-word refused", "rtsp://alice:p%40ss-word@h/") == \
        "auth *** refused"


class BadCamera:
    """A fake `cv2.VideoCapture`, scripted per opening: ("frames", images) gives them and
    then a read raises with the URI in its text, as an FFmpeg error may; ("closed",) does
    not open; ("raise",) raises in the constructor with the URI."""

    plans: ClassVar[list] = []
    opened: ClassVar[list] = []
    threads: ClassVar[set] = set()

    def __init__(self, uri, *args) -> None:
        plan = BadCamera.plans[min(len(BadCamera.opened), len(BadCamera.plans) - 1)]
        BadCamera.opened.append(self)
        BadCamera.threads.add(threading.current_thread().name)
        if plan[0] == "raise":
            raise RuntimeError(f"OpenCV(5.0.0) cap.cpp:1: error: (-2) could not open {uri}")
        self.plan, self.n, self.uri = plan, 0, uri

    def isOpened(self) -> bool:
        return self.plan[0] == "frames"

    def set(self, prop, value) -> bool:
        return True

    def get(self, prop) -> float:
        return 0.0

    def read(self):
        BadCamera.threads.add(threading.current_thread().name)
        images = self.plan[1]
        if self.n < len(images):
            self.n += 1
            time.sleep(0.002)
            return True, images[self.n - 1].copy()
        raise RuntimeError(f"[rtsp @ 0x55] {self.uri}: method PLAY failed: 401 Unauthorized "
                           f"(password {PASSWORD})")

    def release(self) -> None:
        pass


@pytest.fixture
def bad_camera(monkeypatch):
    monkeypatch.setattr(sources.cv2, "VideoCapture", BadCamera)
    BadCamera.plans, BadCamera.opened, BadCamera.threads = [], [], set()
    return BadCamera


@pytest.mark.parametrize(("plan", "begins"), [
    (("closed",), f"cannot open video source '{SHOWN}'"),
    (("raise",), f"cannot open video source '{SHOWN}': RuntimeError: OpenCV(5.0.0) "
                 f"cap.cpp:1: error: (-2) could not open {SHOWN}"),
])
def test_a_failing_open_names_the_source_without_its_password(bad_camera, plan, begins):
    bad_camera.plans = [plan]
    src = OpenCVSource(URI, open_timeout_s=2)
    with pytest.raises(CameraError) as got:
        src.open()
    assert str(got.value) == begins
    # nor in the traceback a later log.exception would print (no chained backend error)
    assert PASSWORD not in "".join(traceback.format_exception(got.value))
    assert bad_camera.opened  # opened with the real URI, password and all
    assert all(PASSWORD not in name for name in bad_camera.threads)


def test_a_failing_read_names_the_source_without_its_password(bad_camera):
    bad_camera.plans = [("frames", [np.zeros((H, W, 3), np.uint8)])]
    src = OpenCVSource(URI, open_timeout_s=2)
    src.open()
    frames = src.frames()
    next(frames)
    with pytest.raises(CameraError) as got:
        next(frames)
    src.close()
    assert str(got.value).startswith(f"video source '{SHOWN}': read failed: RuntimeError: "
                                     f"[rtsp @ 0x55] {SHOWN}: method PLAY failed")
    assert PASSWORD not in "".join(traceback.format_exception(got.value))


def _until(condition, seconds: float = 15) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert condition()


def test_nothing_leaving_a_running_edge_carries_the_password(bad_camera, tmp_path, kit,
                                                              monkeypatch, caplog):
    # A roll is read and posted, then the stream fails on a read, the camera does not open,
    # then its backend raises: each with the URI in the text it gives.
    monkeypatch.setattr(camera, "BACKOFF_START_S", 0.05)
    empty = np.full((H, W, 3), 60, np.uint8)
    scene = kit.scenes(1, size=(H, W), seed=4)[0]
    bad_camera.plans = [("frames", [empty] * 6 + [scene // 3, scene // 2] + [scene] * 8),
                        ("closed",), ("raise",)]
    svc = kit.FakeService(lambda n: (201, b'{"status":"settled"}'))
    cfg = kit.config(tmp_path, svc, kit.TABLE, kit.DEVICE, "s" * 32, tmp_path,
                     source={"kind": "opencv", "uri": URI, "capture_timeout_s": 0.5},
                     health={"port": 0})
    events: list[dict] = []
    runner = EdgeRunner(cfg, on_event=events.append, reader=kit.Reader([(3, 5)]))
    stop = threading.Event()
    thread = threading.Thread(target=runner.run, args=(stop,), daemon=True)
    try:
        with caplog.at_level(logging.DEBUG, logger="dicecall"):
            thread.start()
            _until(lambda: any(e["kind"] == "ack" for e in events)
                   and sum(e["kind"] == "camera_error" for e in events) >= 3)
            health = httpx.get(runner.health_url + "/healthz")
    finally:
        stop.set()
        thread.join(10)
        svc.close()
    assert health.status_code == 503 and health.json()["camera"] == "down"
    assert PASSWORD not in health.text
    assert svc.posts and not any(PASSWORD.encode() in body for body in svc.posts)
    assert PASSWORD not in json.dumps(events, default=str)
    logged = [JsonFormatter().format(r) for r in caplog.records]
    assert not [line for line in logged if PASSWORD in line]
    assert all(PASSWORD not in name for name in bad_camera.threads)
    errors = [r.error for r in caplog.records if r.getMessage() == "camera error; reopening"]
    assert errors[:3] == [
        f"video source '{SHOWN}': read failed: RuntimeError: [rtsp @ 0x55] {SHOWN}: method "
        "PLAY failed: 401 Unauthorized (password ***)",
        f"cannot open video source '{SHOWN}'",
        f"cannot open video source '{SHOWN}': RuntimeError: OpenCV(5.0.0) cap.cpp:1: error: "
        f"(-2) could not open {SHOWN}"]


class LeakyCamera:
    """A source of another make whose error quotes the configured URI as given."""

    finite = False

    def open(self):
        raise CameraError(f"camera {URI} refused the login")

    def frames(self):
        return iter(())

    def close(self):
        pass


def test_the_runner_masks_a_camera_error_whatever_source_made_it(tmp_path, kit, caplog):
    cfg = kit.config(tmp_path, kit.Service(tmp_path), kit.TABLE, kit.DEVICE, "s" * 32,
                     tmp_path, source={"kind": "opencv", "uri": URI})
    events: list[dict] = []
    runner = EdgeRunner(cfg, on_event=events.append, source=LeakyCamera(),
                        reader=kit.Reader([(1, 1)]))
    with caplog.at_level(logging.ERROR, logger="dicecall.edge"):
        runner._camera_failed(f"camera {URI} refused the login", 0.5)
    runner.outbox.close()
    want = f"camera {SHOWN} refused the login"
    assert [e["error"] for e in events] == [want]
    assert [r.error for r in caplog.records] == [want]


def _yaml(tmp_path, kit, source: str, service_url: str = "http://127.0.0.1:9"):
    path = tmp_path / "t.yaml"
    path.write_text(
        f"table_id: {kit.TABLE}\ndevice_id: {kit.DEVICE}\ndevice_secret: {'s' * 32}\n"
        f"service_url: {service_url}\ngame: craps\nsettle: {{die_px: 6.0}}\n"
        f"source:\n  kind: opencv\n{source}")
    return ["edge", "run", "-c", str(path), "--check"]


def test_check_shows_the_source_with_user_and_host_not_the_password(tmp_path, kit):
    out = CliRunner().invoke(app, _yaml(tmp_path, kit, f"  uri: {URI}?token=abcdef\n"))
    assert out.exit_code == 0, out.output
    assert f"source opencv {SHOWN}?token=***)" in out.output
    assert PASSWORD not in out.output and "abcdef" not in out.output


@pytest.mark.parametrize(("source", "service_url", "says"), [
    # a YAML error on the URI's line: the parser would quote the line
    (f"  uri: {URI}: x\n", "http://127.0.0.1:9",
     "not valid YAML (mapping values are not allowed here at line 9, column"),
    (f'  uri: "{URI}\n', "http://127.0.0.1:9",
     "not valid YAML (while scanning a quoted scalar, found unexpected end of stream"),
    ("  uri: 0\n", f"http://alice:{PASSWORD}@/v1",
     "no host name in 'http://alice:***@/v1'"),
])
def test_a_refused_file_is_reported_without_the_password(tmp_path, kit, source, service_url,
                                                         says):
    out = CliRunner().invoke(app, _yaml(tmp_path, kit, source, service_url))
    assert out.exit_code == 2
    assert says in out.output and PASSWORD not in out.output


def test_the_config_repr_shows_the_source_without_its_password(kit):
    cfg = EdgeConfig.model_validate({
        "table_id": kit.TABLE, "device_id": kit.DEVICE, "device_secret": "s" * 32,
        "service_url": "http://127.0.0.1:9", "game": "craps",
        "source": {"kind": "opencv", "uri": URI}})
    assert cfg.source.uri == URI  # what the camera is opened with
    assert SHOWN in repr(cfg) and PASSWORD not in repr(cfg) and PASSWORD not in str(cfg)


@pytest.mark.parametrize(("settings", "secret"), [
    ({"source": {"kind": "picamera2", "uri": URI}}, PASSWORD),  # a field the kind has not
    ({"device_secret": 12345678901234567890123456789012}, "12345678901234567890123456789012"),
])
def test_validating_in_code_does_not_quote_a_secret(kit, settings, secret):
    """`EdgeConfig.model_validate` called directly (an integrator's own loader, not
    `load_config`, which masks its message) names the field it refuses, not the value."""
    raw = {"table_id": kit.TABLE, "device_id": kit.DEVICE, "device_secret": "s" * 32,
           "service_url": "http://127.0.0.1:9", "game": "craps",
           "source": {"kind": "opencv", "uri": "0"}, **settings}
    with pytest.raises(ValidationError) as err:
        EdgeConfig.model_validate(raw)
    assert secret not in str(err.value)


@pytest.mark.parametrize(("flag", "uri", "code"), [
    ("1", URI, 2), ("true", URI, 2), ("0", URI, 0), ("", URI, 0),
    ("1", "rtsp://10.0.0.5/stream", 0),  # nothing to leak
])
def test_videoio_debug_with_a_password_in_the_uri_is_refused(tmp_path, kit, monkeypatch, flag,
                                                             uri, code):
    """OpenCV's videoio debug output prints the URI as given, and it is read when cv2 loads:
    the edge refuses to start a table whose URI has a password while it is on."""
    monkeypatch.setenv("OPENCV_VIDEOIO_DEBUG", flag)
    out = CliRunner().invoke(app, _yaml(tmp_path, kit, f"  uri: {uri}\n"))
    assert out.exit_code == code, out.output
    assert PASSWORD not in out.output
    if code:
        assert "OPENCV_VIDEOIO_DEBUG" in out.output and SHOWN in out.output


def test_the_source_refuses_videoio_debug_with_a_password_however_configured(kit, monkeypatch):
    """A configuration built in code, not read by `load_config`, is refused where its source
    is built, before OpenCV is handed the URI."""
    from dicecall.edge.config import ConfigError
    from dicecall.edge.sources import build_source

    cfg = EdgeConfig.model_validate({
        "table_id": kit.TABLE, "device_id": kit.DEVICE, "device_secret": "s" * 32,
        "service_url": "http://127.0.0.1:9", "game": "craps",
        "source": {"kind": "opencv", "uri": URI}})
    monkeypatch.setenv("OPENCV_VIDEOIO_DEBUG", "1")
    with pytest.raises(ConfigError, match="OPENCV_VIDEOIO_DEBUG") as err:
        build_source(cfg)
    assert PASSWORD not in str(err.value)
