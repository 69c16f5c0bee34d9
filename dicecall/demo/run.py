"""`dicecall demo` end to end: service, tables, wagers, three edge readers, summary.

The edge readers run as threads of this process (`EdgeRunner`), each replaying one bundle of
frames from `data/` at `speed` times real time; the service runs as its own process. Events
from the edges arrive on one queue and are handled in the main thread, in arrival order.
"""

from __future__ import annotations

import logging
import queue
import signal
import tempfile
import threading
import time
from pathlib import Path

import httpx

from .players import TABLES, Player
from .service import Service
from .show import agrees, read_line, summary_lines
from .table import DemoTable, load_truth


def _client(url: str, token: str) -> httpx.Client:
    return httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"},
                        timeout=30.0)


def _token(admin: httpx.Client, role: str) -> str:
    r = admin.post("/v1/tokens", json={"name": f"demo-{role}", "role": role})
    return r.raise_for_status().json()["token"]


def setup_tables(url: str, admin: httpx.Client) -> list[DemoTable]:
    """Creates the three tables, binds a device to each, places the first wagers."""
    integration = _client(url, _token(admin, "integration"))
    surveillance = _client(url, _token(admin, "surveillance"))
    out = []
    for bundle, (game, name, options) in TABLES.items():
        table = admin.post("/v1/tables", json={"game": game, "name": name, "options": options})
        table_id = table.raise_for_status().json()["id"]
        dev = admin.post(f"/v1/tables/{table_id}/devices", json={"name": f"{bundle}-camera"})
        dev = dev.raise_for_status().json()
        out.append(DemoTable(bundle, name, game, table_id, dev["id"], dev["secret"],
                             Player(integration, table_id, game), surveillance,
                             load_truth(bundle)))
    return out


def edge_config(t: DemoTable, url: str, work: Path, speed: float):
    from dicecall.edge.config import EdgeConfig

    return EdgeConfig.model_validate({
        "table_id": t.table_id, "device_id": t.device_id, "device_secret": t.secret,
        "service_url": url, "game": t.game, "zones": t.folder / "zones.json",
        "source": {"kind": "replay", "path": t.folder, "speed": speed, "resume": False},
        "outbox": {"path": work / f"outbox-{t.bundle}.db"}, "health": {"port": None},
        "reader": {"threads": 1}, "drain_timeout_s": 30, "log_json": False})


def _handle(ev: dict, by_id: dict[str, DemoTable], echo) -> None:
    t = by_id[ev["table_id"]]
    kind = ev["kind"]
    if kind == "read":
        echo(read_line(t.tag, t.on_read(ev), ev))
    elif kind == "ack":
        t.on_answer(ev["roll_id"], ev["response"], echo)
    elif kind == "blocked":
        echo(f"{t.tag} still scene with a hand or the lid in view at {ev['t']:.1f} s: not read")
    elif kind == "empty":
        echo(f"{t.tag} still scene without dice in play at {ev['t']:.1f} s: not a roll")
    elif kind in ("frame_error", "camera_error", "publish_error", "rejected", "outbox_error"):
        echo(f"{t.tag} edge {kind}: " + str({k: v for k, v in ev.items()
                                              if k not in ("kind", "table_id", "response")}))


def _dispatch(events: queue.Queue, tables: list[DemoTable], edges: list[threading.Thread],
              echo) -> None:
    """Hands each edge event to its table's worker, so that one table's surveillance
    review is not held up behind another table's wagers; returns when the edges are done
    and every event is handled."""
    lock = threading.Lock()

    def say(line: str) -> None:
        with lock:
            echo(line)

    inbox = {t.table_id: queue.Queue() for t in tables}
    by_id = {t.table_id: t for t in tables}

    def work(q: queue.Queue) -> None:
        while (ev := q.get()) is not None:
            try:
                _handle(ev, by_id, say)
            except httpx.HTTPError as exc:
                say(f"{by_id[ev['table_id']].tag} demo could not reach the service: {exc}")

    workers = [threading.Thread(target=work, args=(q,), daemon=True) for q in inbox.values()]
    for w in workers:
        w.start()
    while any(th.is_alive() for th in edges) or not events.empty():
        try:
            ev = events.get(timeout=0.1)
        except queue.Empty:
            continue
        inbox[ev["table_id"]].put(ev)
    for q in inbox.values():
        q.put(None)
    for w in workers:
        w.join()


def _service_view(t: DemoTable) -> dict:
    rolls = t.surveillance.get(f"/v1/tables/{t.table_id}/rolls", params={"limit": 500})
    rolls = rolls.raise_for_status().json()
    ids = [r["roll_id"] for r in rolls]
    settled = [r for r in rolls if r["status"] == "settled" and r["settlement"]]
    return {"ids": ids, "settled": len(settled),
            "no_roll": sum(r["status"] == "no_roll" for r in rolls),
            "reviewed": sum(r["review"] is not None for r in rolls),
            "paid": sum(r["settlement"]["paid"] for r in settled),
            "collected": sum(r["settlement"]["collected"] for r in settled),
            "lines": sum(len(r["settlement"]["lines"]) for r in settled)}


def summarize(t: DemoTable) -> dict:
    s = _service_view(t)
    reads = [r["event"] for r in t.reads.values()]
    agree = sum(1 for r in t.reads.values() if r["throw"] is not None
                and agrees(r["throw"]["truth"], r["event"]))
    kinds = {x["code"] for r in reads for x in r["reasons"] if x["status"] != "valid"
             and x["code"] not in ("readings_disagree", "low_confidence", "die_partly_hidden",
                                   "on_zone_edge", "dice_overlap", "die_faint",
                                   "die_doubtful")}
    truth_kinds = {x["code"] for th in t.truth["throws"] for x in th["truth"]["reasons"]
                   if x["status"] != "valid" or x["code"] == "cocked_counts"}
    return {"name": t.name, "bundle": t.bundle, "throws": len(t.truth["throws"]),
            "reads": {"total": len(reads), **{v: sum(r["verdict"] == v for r in reads)
                                              for v in ("valid", "no_roll", "needs_review")}},
            "matched": {i: len(v) for i, v in t.matched.items()}, "agree": agree,
            "service": s, "no_roll_kinds": sorted(kinds), "truth_kinds": sorted(truth_kinds),
            "exactly_once": sorted(s["ids"]) == sorted(t.reads) and len(set(s["ids"])) ==
            len(s["ids"]), "reviews": t.reviews}


def run_demo(speed: float = 4.0, port: int | None = None, keep_running: bool = False,
             workdir: Path | None = None, echo=print) -> dict:
    """Runs the demo; returns the summary (per table) that it prints last."""
    start = time.monotonic()
    work = Path(workdir or tempfile.mkdtemp(prefix="dicecall-demo-"))
    svc = Service(work, port)
    stop, events = threading.Event(), queue.Queue()
    threads: list[threading.Thread] = []
    logging.getLogger("dicecall.edge").setLevel(logging.ERROR)  # the demo prints events
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)
    svc.start()
    try:
        svc.wait_ready()
        echo(f"service: {svc.url} on SQLite in {work}, up after "
             f"{time.monotonic() - start:.1f} s (log: {svc.log_path})")
        admin = _client(svc.url, svc.admin_token())
        tables = setup_tables(svc.url, admin)
        for t in tables:
            echo(f"{t.tag} table {t.table_id[:8]} ({t.game}), device {t.device_id[:8]}; "
                 f"{len(t.truth['throws'])} throws to replay")
            t.top_up(echo)
        from dicecall.edge.runner import EdgeRunner

        loading = time.monotonic()
        runners = [EdgeRunner(edge_config(t, svc.url, work, speed), on_event=events.put)
                   for t in tables]
        echo(f"edges: readers loaded in {time.monotonic() - loading:.1f} s; replaying "
             f"{', '.join(t.bundle for t in tables)} at {speed:g}x\n")
        threads = [threading.Thread(target=r.run, args=(stop,), name=f"edge-{t.bundle}",
                                    daemon=True) for r, t in zip(runners, tables, strict=True)]
        for th in threads:
            th.start()
        _dispatch(events, tables, threads, echo)
        for t in tables:
            t.follow(echo)
        summary = [summarize(t) for t in tables]
        for line in summary_lines(summary, svc.url, time.monotonic() - start):
            echo(line)
        if keep_running:
            echo(f"\nthe service keeps running at {svc.url}; Ctrl-C stops it")
            _wait_forever()
        return {"url": svc.url, "workdir": str(work), "tables": summary,
                "wall_s": time.monotonic() - start}
    finally:
        stop.set()
        for th in threads:
            th.join(10)
        svc.stop()


def _on_sigterm(signum, frame) -> None:
    raise KeyboardInterrupt  # the same clean stop as Ctrl-C: edges, then the service


def _wait_forever() -> None:
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        return
