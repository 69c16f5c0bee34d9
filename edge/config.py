"""One strict YAML file per table (`dicecall edge run --config table.yaml`).

Every section forbids unknown keys, so a typo fails at start-up with the key's name instead
of silently running with a default. Relative paths are relative to the YAML file, so a
table's folder can be moved as a whole.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from dicecall.api.schemas.common import UUID_PATTERN
from dicecall.vision.config import FROM_ARRAY
from dicecall.vision.lamps import LampRig
from dicecall.vision.profiles import GAMES

from .redact import redact_text, redact_uri


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message names the file and fields."""


class _Strict(BaseModel):
    # strict: "4" is not an int nor "yes" a bool (YAML gives both natively, so a quoted one is
    # a mistake); no inf or nan, which no bound catches. Paths stay lax, as YAML gives a path
    # as a string; a size is a list in YAML, taken as a tuple of strict ints (FROM_ARRAY).
    # An error never quotes the value it refuses: the source URI may carry a password and
    # device_secret is one (load_config masks its own message; model_validate did not).
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False,
                              hide_input_in_errors=True)


def _lax(*args, **kwargs):
    return Field(*args, strict=False, **kwargs)


# (w, h): [1920, 1080] in YAML. Not lax: a lax tuple takes a set (`!!set`), in no order.
Size = Annotated[tuple[int, int], FROM_ARRAY]


def _even_size(size: tuple[int, int], name: str) -> tuple[int, int]:
    # YUV420 halves the chroma both ways, and libcamera aligns stream sizes: an odd or empty
    # size would not be the size delivered.
    if min(size) < 2 or size[0] % 2 or size[1] % 2:
        raise ValueError(f"{name} must be two positive even numbers (w, h), got {size}")
    return size


class ReplaySource(_Strict):
    kind: Literal["replay"]
    path: Path = _lax(description="folder with frames.csv (file,t_ms) and the images")
    speed: float = Field(1.0, ge=0.0, le=100.0, description="1 = real time, 0 = no waiting")
    loop: bool = Field(False, description="start again at the end (never exhausted)")
    resume: bool = Field(True, description="after a restart, skip frames already read "
                                           "(the outbox keeps the last frame read)")


class OpenCVSource(_Strict):
    kind: Literal["opencv"]
    uri: int | str = Field(description="camera index, RTSP/HTTP URL or video file")
    width: int | None = Field(None, ge=16, le=8192, description="requested frame width")
    height: int | None = Field(None, ge=16, le=8192, description="requested frame height")
    fps: float | None = Field(None, gt=0, le=240, description="requested frame rate")
    # VideoCapture.read() can block forever (USB camera unplugged, RTSP stream stalled):
    # the camera would stay "up", never be reopened, and a stop would hang on it.
    capture_timeout_s: float = Field(2.0, ge=0.1, le=60,
                                     description="a read with no answer for this long is a "
                                                 "camera error (released and reopened); at "
                                                 "least 3 frame times when fps is set")
    failed_reads: int = Field(3, ge=1, le=100,
                              description="failed reads in a row that are a camera error "
                                          "(a video file ends at its first)")
    # VideoCapture() itself can block forever too (a USB camera in a bad state, an RTSP
    # source that never answers), with nothing logged. An RTSP open probes the stream for
    # seconds (FFmpeg), and a camera's first frame comes slower than the next: its own bound.
    open_timeout_s: float = Field(10.0, ge=0.5, le=300,
                                  description="opening the source and its first frame "
                                              "taking longer than this is a camera error "
                                              "(retried with backoff); at least the read "
                                              "timeout")

    def __repr_args__(self):
        # repr() (a config in a log line or a traceback's locals) shows the URI without its
        # password or tokens, as every message does (edge/redact.py)
        for name, value in super().__repr_args__():
            yield name, redact_uri(value) if name == "uri" else value


class Picamera2Source(_Strict):
    kind: Literal["picamera2"]
    camera: int = Field(0, ge=0, le=8, description="camera number")
    main_size: Size = Field((1920, 1080), description="reading stream (w, h), even")
    lores_size: Size = Field((320, 240), description="motion stream (w, h), YUV420, even, "
                                                     "not larger than main")
    fps: float = Field(30.0, gt=0, le=120, description="frame rate")
    lens_position: float | None = Field(None, ge=0, le=32,
                                        description="manual focus in dioptres; None = fixed "
                                                    "-focus module (no AfMode set)")
    buffer_count: int = Field(4, ge=2, le=16, description="request buffers")
    # Picamera2() and start() wait on the kernel: a wedged sensor or driver can hold them
    # for minutes or for good, and the edge with them, nothing logged.
    open_timeout_s: float = Field(10.0, ge=0.5, le=300,
                                  description="opening and starting the camera taking "
                                              "longer than this is a camera error (retried "
                                              "with backoff)")
    # A wedged sensor or driver leaves capture_request() waiting forever (picamera2 has no
    # timeout of its own): the camera would stay "up", never be reopened, and a stop would
    # hang on it. Past this the capture is a camera error: closed and reopened.
    capture_timeout_s: float = Field(2.0, ge=0.1, le=60,
                                     description="no frame for this long is a camera error "
                                                 "(closed and reopened); at least 3 frame "
                                                 "times are always waited")

    @model_validator(mode="after")
    def _lores_fits(self) -> Picamera2Source:
        _even_size(self.main_size, "main_size")
        _even_size(self.lores_size, "lores_size")
        if self.lores_size[0] > self.main_size[0] or self.lores_size[1] > self.main_size[1]:
            raise ValueError("lores_size may not be larger than main_size")
        return self


Source = Annotated[ReplaySource | OpenCVSource | Picamera2Source, Field(discriminator="kind")]


class SettleConfig(_Strict):
    """When dice count as at rest (edge/settle.py explains the rule)."""

    frames: int = Field(4, ge=1, le=300, description="consecutive still frames needed")
    ms: float = Field(100.0, ge=0, le=60_000, description="and spanning at least this long")
    min_after_motion_ms: float = Field(100.0, ge=0, le=60_000,
                                       description="and at least this long after motion")
    # The dice of a still run's first frame are read while the run settles: every later
    # frame of the run is within the motion rule of that one (edge/settle.py compares each
    # with it), and the read (20-36 ms of a two-dice 1920x1080 frame here) is then off the
    # path from rest to the service's answer. A run that moves again before it settles is
    # read anew; one whose settled frame differs at all from the frame read reads that one.
    read_early: bool = Field(True, description="read the first still frame while the "
                                               "settle window runs (False: read the frame "
                                               "that settles it)")
    motion_threshold: int = Field(12, ge=1, le=255,
                                  description="grey change that counts a pixel as changed")
    motion_fraction: float = Field(0.002, gt=0, le=1.0,
                                   description="changed share of the frame that is motion "
                                               "(an upper bound with die_px)")
    # Without it a die smaller than about sqrt(2 * motion_fraction) of the frame's side,
    # moving alone, is not motion (edge/settle.py); `edge run --check` warns.
    die_px: float | None = Field(None, ge=2, le=1024,
                                 description="side of the smallest die in motion-frame "
                                             "(lores) pixels: a quarter of its area is "
                                             "motion when under motion_fraction; None = "
                                             "motion_fraction only")
    block_fraction: float = Field(0.2, gt=0, le=1.0,
                                  description="share differing from the empty-table "
                                              "reference that means a hand or the lid "
                                              "(1.0 turns the check off)")
    reference_image: Path | None = _lax(None, description="the empty table / open shaker; "
                                         "None = the first still scene after start")
    lores_width: int = Field(160, ge=32, le=1024, description="motion frame width (replay, "
                                                              "opencv)")


class OutboxConfig(_Strict):
    path: Path = _lax(Path("outbox.db"), description="SQLite file")
    max_bytes: int = Field(2_000_000_000, ge=1_000_000, description="disk budget")
    alarm_fraction: float = Field(0.8, gt=0, lt=1, description="alarm above this share")
    send_jpeg: bool = Field(True, description="send the JPEGs, not only their sha256")
    jpeg_quality: int = Field(90, ge=30, le=100)
    # The service's own limits (api/settings.py): a roll whose JPEG or body it refuses with
    # 413 would never settle, so the evidence is encoded again at a lower quality to fit.
    max_jpeg_bytes: int = Field(1_500_000, ge=10_000, description="largest evidence JPEG "
                                "the service accepts (its max_jpeg_bytes)")
    max_body_bytes: int = Field(4_000_000, ge=100_000, description="largest request body "
                                "the service accepts (its max_body_bytes)")

    @model_validator(mode="after")
    def _jpeg_fits_body(self) -> OutboxConfig:
        if self.max_jpeg_bytes > self.max_body_bytes:
            raise ValueError("max_jpeg_bytes may not be larger than max_body_bytes: no "
                             "evidence JPEG could ever be sent")
        return self


class PublisherConfig(_Strict):
    timeout_s: float = Field(10.0, gt=0, le=300)
    backoff_initial_s: float = Field(0.2, gt=0, le=60)
    backoff_max_s: float = Field(30.0, gt=0, le=3600)

    @model_validator(mode="after")
    def _backoff_order(self) -> PublisherConfig:
        # The delay is capped at backoff_max_s: below the initial one, every retry after the
        # first would come at the smaller, a hot loop against a service that is down.
        if self.backoff_initial_s > self.backoff_max_s:
            raise ValueError("backoff_initial_s may not be larger than backoff_max_s")
        return self


class HealthConfig(_Strict):
    host: str = Field("127.0.0.1", description="bind address of /healthz and /metrics")
    port: int | None = Field(9108, ge=0, le=65535, description="0 = any free port, "
                                                               "null = no server")
    stale_s: float = Field(5.0, gt=0, le=3600, description="/healthz is 503 when no frame "
                                                           "came for this long")
    pending_max_age_s: float = Field(300.0, gt=0, le=7 * 86400,
                                     description="/healthz is 503 when the oldest roll not "
                                     "yet acknowledged was stored longer ago than this")


class ReaderSection(_Strict):
    threads: int = Field(2, ge=1, le=16, description="onnxruntime intra-op threads")
    views: int = Field(4, ge=1, le=8, description="views of each die's crop read and "
                       "averaged (models/reader.md); a model profile fitted on another "
                       "count overrides it")
    first_views: int | None = Field(None, ge=1, le=8,
                                    description="views read first for every die, the rest "
                                    "only for a die in doubt (default: the reader's, "
                                    "vision/config.py)")
    detector: Path | None = _lax(None, description="detector ONNX for every game (default: "
                                  "bundled, detector.thrown.onnx in Craps and High Roll, "
                                  "detector.shaker.onnx in Props & Hops; vision/config.py)")
    reader: Path | None = _lax(None, description="crop reader ONNX for every game (default: "
                                "bundled, reader.thrown.onnx in Craps and High Roll, "
                                "reader.shaker.onnx in Props & Hops; vision/config.py)")
    # Naming one INT8 file for every game would read a Props & Hops table with the INT8 file
    # of a reader its tilt line was never judged on; this picks the game's own.
    int8: bool = Field(False, description="read with the INT8 file of the game's bundled "
                       "reader (reader.thrown.int8.onnx in Craps and High Roll, "
                       "reader.shaker.int8.onnx in Props & Hops) behind the FP32 detector: "
                       "faster on many dice (models/README.md, session 24); not with `reader`")

    @model_validator(mode="after")
    def _one_reader(self) -> ReaderSection:
        if self.int8 and self.reader is not None:
            raise ValueError("reader.int8 picks the bundled INT8 reader of the game; a named "
                             "`reader` is read as it is: set one of them")
        return self


Pins = Annotated[tuple[int, int, int], FROM_ARRAY]


class LampsSection(_Strict):
    """Lamps the camera switches, for the Props & Hops tilt (edge/lamps.py, vision/lamps.py,
    docs/verdicts.md "Lamps the camera switches")."""

    rig: LampRig = Field(LampRig(), description="the three lamps' azimuth and elevation in "
                                                "the floor's frame, degrees, as mounted")
    calibration: Path | None = _lax(None, description="the rig as `dicecall calibrate lamps` "
                                                      "measured it (with the lamps' gains), "
                                                      "in place of `rig`")
    gpio: Pins | None = Field(None, description="BCM numbers of the three lamps' GPIO lines, "
                                                "in the rig's order (a replay needs none)")
    active_high: bool = Field(True, description="a line drives its lamp on when high")
    settle_frames: int = Field(2, ge=0, le=30, description="frames dropped after each "
                                                           "switch before the one kept")

    @model_validator(mode="after")
    def _one_rig(self) -> LampsSection:
        if self.calibration is not None and "rig" in self.model_fields_set:
            raise ValueError("give the lamps' rig or their calibration file, not both")
        return self

    def load_rig(self) -> LampRig:
        """The rig: from the calibration file when one is named."""
        if self.calibration is None:
            return self.rig
        try:
            return LampRig.model_validate_json(Path(self.calibration).read_text())
        except (OSError, ValueError) as exc:
            raise ConfigError(f"lamps.calibration {self.calibration}: {exc}") from exc

    @field_validator("gpio")
    @classmethod
    def _pins(cls, pins: tuple[int, int, int] | None) -> tuple[int, int, int] | None:
        if pins is not None and (len(set(pins)) != 3 or not all(0 <= p <= 27 for p in pins)):
            raise ValueError(f"three different BCM GPIO numbers 0-27, got {list(pins)}")
        return pins


class EdgeConfig(_Strict):
    # The service's ids are UUIDs (api/services/state.py new_id): any other id is a table or
    # device it cannot have, and would be refused on every POST.
    table_id: str = Field(description="the service's id of the table (dicecall admin table)")
    device_id: str = Field(description="the service's id of the device (dicecall admin "
                           "device)")
    device_secret: str | None = Field(None, min_length=16, repr=False)
    device_secret_file: Path | None = _lax(None)
    service_url: str = Field(pattern=r"^https?://[^/\s]+(/.*)?$")
    game: Literal[GAMES]  # type: ignore[valid-type]
    zones: Path | None = _lax(None, description="TableCalibration JSON")
    model_profile: Path | None = _lax(None, description="ModelProfile JSON")
    exposure: Path | None = _lax(None, description="ExposureResult JSON (picamera2)")
    source: Source
    settle: SettleConfig = SettleConfig()
    outbox: OutboxConfig = OutboxConfig()
    publisher: PublisherConfig = PublisherConfig()
    health: HealthConfig = HealthConfig()
    reader: ReaderSection = ReaderSection()
    high_roll_wait_s: float = Field(3.0, ge=0, le=60, description="High Roll: wait this "
                                    "long for the service's final answer to the previous "
                                    "throw (a review) before posting a throw for review "
                                    "with its phase unknown")
    drain_timeout_s: float = Field(30.0, ge=0, le=3600)
    log_json: bool = True
    lamps: LampsSection | None = Field(None, description="Props & Hops: lamps the camera "
                                                         "switches once the dice are still")

    @field_validator("table_id", "device_id")
    @classmethod
    def _service_id(cls, value: str) -> str:
        if not re.match(UUID_PATTERN, value):
            raise ValueError(f"{value!r} is not an id the service gives (a UUID such as "
                             "3f0c2b7e-0000-4000-8000-000000000001)")
        return value

    @field_validator("service_url")
    @classmethod
    def _valid_port(cls, url: str) -> str:
        parts = urlsplit(url)
        _ = parts.port  # raises ValueError for a port that is not a number in range
        if not parts.hostname:
            raise ValueError(f"no host name in {redact_text(url)!r}")
        return url

    @model_validator(mode="after")
    def _one_secret(self) -> EdgeConfig:
        if (self.device_secret is None) == (self.device_secret_file is None):
            raise ValueError("give exactly one of device_secret, device_secret_file")
        return self

    @model_validator(mode="after")
    def _lamps_fit(self) -> EdgeConfig:
        if self.lamps is None:
            return self
        if self.game != "props-and-hops":
            raise ValueError(f"lamps read a tilt that is a no roll only in Props & Hops "
                             f"(668a.3(h)); in {self.game} a cocked die counts: remove lamps")
        if self.source.kind != "replay" and self.lamps.gpio is None:
            raise ValueError("lamps.gpio: a camera's lamps need their three GPIO lines")
        if self.source.kind == "picamera2" and self.exposure is None:
            raise ValueError("lamps need the exposure fixed over their four frames: set "
                             "exposure (dicecall calibrate exposure)")
        return self

    def secret(self) -> str:
        """The device secret, read from its file when configured so."""
        if self.device_secret is not None:
            return self.device_secret
        path = self.device_secret_file
        try:
            value = Path(path).read_text().strip()
        except OSError as exc:
            raise ConfigError(f"device_secret_file {path}: {exc.strerror}") from exc
        if len(value) < 16:
            raise ConfigError(f"device_secret_file {path}: too short to be a device secret")
        return value


_PATHS = (("zones",), ("model_profile",), ("exposure",), ("device_secret_file",),
          ("source", "path"), ("settle", "reference_image"), ("outbox", "path"),
          ("reader", "detector"), ("reader", "reader"), ("lamps", "calibration"))


def _rebase(raw: dict, base: Path) -> None:
    """Makes relative paths relative to the YAML file's folder (in place)."""
    for keys in _PATHS:
        node = raw
        for k in keys[:-1]:
            node = node.get(k) if isinstance(node, dict) else None
        if isinstance(node, dict) and isinstance(node.get(keys[-1]), str):
            p = Path(node[keys[-1]]).expanduser()
            node[keys[-1]] = str(p if p.is_absolute() else base / p)


def _yaml_problem(exc) -> str:
    """A YAML error without the parser's snippet of the line, which may be a camera URI with
    its password (the line and column say where), masked as any message (edge/redact.py)."""
    import yaml

    if not isinstance(exc, yaml.MarkedYAMLError) or exc.problem_mark is None:
        return redact_text(str(exc))
    mark = exc.problem_mark
    what = ", ".join(x for x in (exc.context, exc.problem) if x)
    return redact_text(f"{what} at line {mark.line + 1}, column {mark.column + 1}")


def load_config(path: str | Path) -> EdgeConfig:
    """Reads and validates one table's YAML file.

    Raises:
        ConfigError: missing file, YAML syntax, or any field out of bounds (all listed).
    """
    import yaml

    p = Path(path)
    try:
        raw = yaml.safe_load(p.read_text())
    except OSError as exc:
        raise ConfigError(f"{p}: {exc.strerror}") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"{p}: not valid YAML ({_yaml_problem(exc)})") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{p}: expected a mapping of settings at the top level")
    _rebase(raw, p.resolve().parent)
    try:
        return EdgeConfig.model_validate(raw)
    except ValidationError as exc:
        lines = [f"  {'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()]
        raise ConfigError(redact_text(f"{p}: invalid configuration\n" + "\n".join(lines))
                          ) from None


def check_debug_output(cfg: EdgeConfig, environ: Mapping[str, str] | None = None) -> None:
    """Refuses a stream URI with a password while OpenCV's videoio debug output is on.

    `OPENCV_VIDEOIO_DEBUG` makes OpenCV print the URI as given on stderr, password and all
    (seen with FFmpeg's backend); OpenCV reads it when cv2 is loaded, so the edge cannot turn
    it off for itself. `OPENCV_LOG_LEVEL` alone did not print it. Called where the source
    is built (`sources.build_source`) and by `dicecall edge run --check`.
    """
    environ = os.environ if environ is None else environ
    src = cfg.source
    flag = environ.get("OPENCV_VIDEOIO_DEBUG", "").strip().lower()
    if (src.kind == "opencv" and isinstance(src.uri, str) and redact_uri(src.uri) != src.uri
            and flag not in ("", "0", "false", "off", "no")):
        raise ConfigError(f"OPENCV_VIDEOIO_DEBUG={flag} prints source.uri with its password on "
                          f"stderr ({redact_uri(src.uri)}); unset it to run this table")


def check_paths(cfg: EdgeConfig) -> None:
    """Refuses a configuration whose files are missing, before anything starts."""
    for name in ("zones", "model_profile", "exposure"):
        path = getattr(cfg, name)
        if path is not None and not path.is_file():
            raise ConfigError(f"{name}: no such file {path}")
    if cfg.source.kind == "replay" and not (cfg.source.path / "frames.csv").is_file():
        raise ConfigError(f"source.path: {cfg.source.path} has no frames.csv")
    if cfg.lamps is not None:
        cfg.lamps.load_rig()  # a missing or wrong calibration file fails here, named
