"""Edge benchmark: settle-to-acknowledged latency, frames per second, peak RSS.

Two real processes on loopback: `dicecall serve` (SQLite in a temporary folder) and
`dicecall edge run --config` with the real ONNX reader, fed by a replay folder of rendered
craps scenes (`dicecall datasets generate`, pybullet) at 30 fps, at the camera's main stream
size (`--size`, 1920x1080):

1. latency run (speed 1.0, real time): for each throw, dice at rest (the detector's first
   still frame) -> the service's answer received, from the edge's JSON log
   (`roll acknowledged`, latency_ms); also read time and detection -> ack.
2. throughput run (speed 0): frames processed per second by the whole edge (decode, motion,
   reads of every throw, evidence, outbox, publish), from the `edge stopped` log line.
Peak RSS is the edge process's VmHWM (/proc), the largest of the two runs.

Usage: python bench/bench_edge.py [--throws 20] [--fps 30] [--frames 4 --ms 100 --after 100]
       [--threads 2] [--no-jpeg] [--size 1920x1080]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import cv2
import numpy as np
import yaml

from dicecall.edge.replaykit import write_replay

BIN = Path(sys.executable).parent / "dicecall"


def _size(text: str) -> tuple[int, int]:
    w, _, h = text.lower().partition("x")
    if not (w.isdigit() and h.isdigit()) or int(w) < 64 or int(h) < 64:
        raise argparse.ArgumentTypeError(f"{text!r}: want WxH, e.g. 1920x1080")
    return int(w), int(h)


def camera_size() -> tuple[int, int]:
    """The Pi camera's main stream, (w, h): the frame the edge reads on a table, taken from
    the config so that the bench follows it."""
    from dicecall.edge.config import Picamera2Source

    w, h = Picamera2Source.model_fields["main_size"].default
    return int(w), int(h)


def _scenes(n: int, tmp: Path, size: tuple[int, int]) -> tuple[list[np.ndarray], str]:
    out, (w, h) = tmp / "scenes", size
    try:
        subprocess.run([str(BIN), "datasets", "generate", "--scene", "craps", "--count",
                        str(n), "--out", str(out), "--workers", "1", "--seed", "3",
                        "--width", str(w), "--height", str(h)],
                       check=True, capture_output=True)
        files = sorted(out.glob("*.jpg"))
        return [cv2.imread(str(f)) for f in files], f"rendered craps scenes {w}x{h}"
    except (subprocess.CalledProcessError, FileNotFoundError):
        rng = np.random.default_rng(0)
        scenes, side = [], max(8, round(36 * w / 640))
        for _ in range(n):
            img = np.full((h, w, 3), (40, 110, 30), np.uint8)
            for _ in range(2):
                x, y = rng.integers(0, w - side), rng.integers(0, h - side)
                img[y:y + side, x:x + side] = 235
            scenes.append(img)
        return scenes, f"synthetic felt {w}x{h} (pybullet missing)"


def _admin(env: dict, *args: str) -> dict:
    out = subprocess.run([str(BIN), "admin", *args], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def _serve(env: dict, port: int) -> subprocess.Popen:
    proc = subprocess.Popen([str(BIN), "serve", "--port", str(port)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
            return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("service did not start")


def _hwm_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _cpu_s(pid: int) -> float | None:
    """utime + stime of a process and its threads, seconds (None once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _edge(config: Path, log: Path) -> tuple[list[dict], int, float]:
    proc = subprocess.Popen([str(BIN), "edge", "run", "--config", str(config)],
                            stdout=log.open("w"), stderr=subprocess.STDOUT)
    peak, cpu = 0, 0.0
    while proc.poll() is None:
        peak = max(peak, _hwm_kb(proc.pid))
        cpu = _cpu_s(proc.pid) or cpu
        time.sleep(0.05)
    if proc.returncode != 0:
        raise SystemExit(f"edge exited {proc.returncode}:\n{log.read_text()[-2000:]}")
    lines = [json.loads(x) for x in log.read_text().splitlines() if x.startswith("{")]
    return lines, peak, cpu


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return float(np.percentile(values, q))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--throws", type=int, default=20)
    ap.add_argument("--fps", type=float, default=30.0)
    ap.add_argument("--frames", type=int, default=4)
    ap.add_argument("--ms", type=float, default=100.0)
    ap.add_argument("--after", type=float, default=100.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--port", type=int, default=18765)
    ap.add_argument("--no-jpeg", action="store_true", help="send evidence hashes only")
    ap.add_argument("--size", type=_size, default=camera_size(),
                    help="frame size WxH of the replayed scenes (default: the Pi camera's "
                         "main stream, edge/config.py main_size; before session 59 the "
                         "bench replayed 640x480)")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench_edge_"))
    env = {**os.environ, "DICECALL_DATABASE_URL": f"sqlite:///{tmp / 'svc.db'}",
           "DICECALL_KEY_FILE": str(tmp / "key"), "DICECALL_EVIDENCE_DIR": str(tmp / "ev")}
    table = _admin(env, "table", "craps")["id"]
    device = _admin(env, "device", table)
    scenes, kind = _scenes(args.throws, tmp, args.size)
    replay = tmp / "replay"
    write_replay(replay, scenes, fps=args.fps, motion=6, still=24, lead_in=15)
    n_frames = 15 + args.throws * 30
    service = _serve(env, args.port)
    try:
        results = {}
        for name, speed in (("latency", 1.0), ("throughput", 0.0)):
            config = tmp / f"{name}.yaml"
            config.write_text(yaml.safe_dump({
                "table_id": table, "device_id": device["id"], "device_secret": device["secret"],
                "service_url": f"http://127.0.0.1:{args.port}", "game": "craps",
                "source": {"kind": "replay", "path": str(replay), "speed": speed,
                           "resume": False},
                # Each rendered scene has its own camera pose, so the whole view changes
                # between throws: the hand/lid check (difference from the empty table) is
                # off here; it costs one frame difference per settled scene.
                "settle": {"frames": args.frames, "ms": args.ms,
                           "min_after_motion_ms": args.after, "block_fraction": 1.0},
                "outbox": {"path": str(tmp / f"{name}.db"), "send_jpeg": not args.no_jpeg},
                "health": {"port": None},
                "reader": {"threads": args.threads}, "drain_timeout_s": 60}))
            results[name] = _edge(config, tmp / f"{name}.log")
    finally:
        service.terminate()
        service.wait(10)
    lines, peak_lat, _ = results["latency"]
    acks = [x for x in lines if x.get("msg") == "roll acknowledged"]
    reads = {x["seq"]: x for x in lines if x.get("msg") == "roll read"}
    ack_lat = [x["latency_ms"] for x in acks]
    read_ms = [x["read_ms"] for x in reads.values()]
    detect_to_ack = [x["latency_ms"] - (reads[x["seq"]]["detected_wall"]
                                        - reads[x["seq"]]["rest_wall"]) * 1000
                     for x in acks if x["seq"] in reads]
    lines_tp, peak_tp, cpu_tp = results["throughput"]
    stop = next(x for x in lines_tp if x.get("msg") == "edge stopped")
    tp_reads = sum(x.get("msg") == "roll read" for x in lines_tp)
    print(f"edge benchmark: {args.throws} throws, {kind}, {args.fps:g} fps replay, settle "
          f"frames={args.frames} ms={args.ms:g} min_after_motion_ms={args.after:g}, reader "
          f"threads={args.threads}, JPEGs sent: {not args.no_jpeg}; load average "
          f"{os.getloadavg()[0]:.1f}; CPU: {os.cpu_count()} cores (shared)\n")
    print("| measure | p50 | p99 | max | n |")
    print("|---|---|---|---|---|")
    for label, vals in (("dice at rest -> ack (ms)", ack_lat),
                        ("settle detected -> ack (ms)", detect_to_ack),
                        ("read+verdict+evidence+outbox fsync (ms)", read_ms)):
        print(f"| {label} | {_pct(vals, 50):.1f} | {_pct(vals, 99):.1f} | "
              f"{max(vals) if vals else float('nan'):.1f} | {len(vals)} |")
    print()
    print("| measure | value |")
    print("|---|---|")
    print(f"| frames processed per second (speed 0, {stop['frames']} frames, {tp_reads} reads) "
          f"| {stop['frames'] / stop['seconds']:.1f} |")
    print(f"| edge CPU time per frame, throughput run (incl. start-up and model load) | "
          f"{cpu_tp * 1000 / stop['frames']:.2f} ms |")
    print(f"| latency run: frames / throws acknowledged | {n_frames} / {len(acks)} |")
    print(f"| peak RSS of the edge process (VmHWM) | {max(peak_lat, peak_tp) / 1024:.1f} MB |")
    print(f"| mean rest->ack (ms) | {statistics.fmean(ack_lat):.1f} |")


if __name__ == "__main__":
    main()
