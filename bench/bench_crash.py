"""Crash test: kill -9 the service during a load run, restart it, let the devices retry.

Each device posts its rolls one at a time, as the edge outbox does: the same body (same
roll_id) is re-sent, freshly signed, until the service answers 201 or 200. Meanwhile the
service is killed with SIGKILL and restarted a few times. At the end the database is read
directly: every acknowledged roll must be stored, none settled twice (one settlement event
per settled roll, one round per settlement), and the audit chain must verify.

    python bench/bench_crash.py --db sqlite --db postgres --tables 8 --rolls 120 --kills 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path

from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_service import (
    NON_SEVEN,
    HttpConn,
    free_port,
    pg_database,
    setup_tables,
    start_server,
    stop_server,
)

from dicecall.api import audit
from dicecall.api.db.session import Database
from dicecall.api.signing import sign


def outbox(table: dict, rolls: int) -> list[bytes]:
    rng = random.Random(table["table_id"])
    return [json.dumps({
        "roll_id": str(uuid.uuid4()), "seq": seq, "verdict": "valid",
        "faces": list(rng.choice(NON_SEVEN)), "reasons": [], "confidences": [0.99, 0.99],
        "evidence": {"clean_sha256": "e" * 64, "annotated_sha256": "f" * 64}}).encode()
        for seq in range(1, rolls + 1)]


async def device(port: int, table: dict, bodies: list[bytes], stats: dict,
                 deadline: float) -> None:
    """Sends each body until it is acknowledged; reconnects after any failure."""
    path = f"/v1/tables/{table['table_id']}/rolls"
    conn = None
    for body in bodies:
        while time.monotonic() < deadline:
            try:
                if conn is None:
                    conn = HttpConn("127.0.0.1", port)
                    await conn.open()
                headers = sign(table["secret"], "POST", path, time.time(), body,
                               device_id=table["device_id"])
                status, _ = await asyncio.wait_for(conn.request("POST", path, body, headers),
                                                   timeout=10)
            except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError,
                    IndexError):
                stats["failures"] += 1
                conn = None
                await asyncio.sleep(0.2)
                continue
            if status in (200, 201):
                stats["acked"].append(json.loads(body)["roll_id"])
                stats["replays"] += status == 200
                break
            stats["refused"] += 1
            await asyncio.sleep(0.2)
    if conn is not None:
        await conn.close()


async def killer(env: dict, port: int, holder: list, kills: int, every_s: float,
                 down_s: float, stats: dict) -> None:
    for _ in range(kills):
        await asyncio.sleep(every_s)
        holder[0].kill()  # SIGKILL: no shutdown handler runs
        holder[0].wait()
        stats["kills"] += 1
        await asyncio.sleep(down_s)
        holder[0] = await asyncio.to_thread(start_server, env, port)


async def run(env: dict, port: int, tables: list[dict], args, stats: dict) -> list:
    holder = [start_server(env, port)]
    deadline = time.monotonic() + args.max_seconds
    try:
        await asyncio.gather(
            killer(env, port, holder, args.kills, args.every, args.down, stats),
            *(device(port, t, outbox(t, args.rolls), stats, deadline) for t in tables))
    finally:
        stop_server(holder[0])
    return holder


def check(url: str, tables: list[dict], stats: dict) -> dict:
    """Reads the database after the run: lost, duplicated, chain."""
    db = Database(url, 1)
    with db.read() as s:
        stored = set(s.execute(text("SELECT roll_id FROM rolls")).scalars())
        settled = s.execute(text("SELECT count(*) FROM rolls WHERE status = 'settled'")
                            ).scalar()
        events = s.execute(text("SELECT payload FROM events WHERE kind = 'settlement'")
                           ).scalars().all()
        rounds = s.execute(text("SELECT sum(round_no - 1) FROM dc_tables")).scalar()
        report = audit.verify(s)
    db.dispose()
    per_roll: dict[str, int] = {}
    for payload in events:
        rid = json.loads(payload)["roll_id"]
        per_roll[rid] = per_roll.get(rid, 0) + 1
    return {"acked": len(stats["acked"]), "stored": len(stored),
            "lost": len(set(stats["acked"]) - stored), "settled": settled,
            "settle_events": len(events), "twice": sum(n > 1 for n in per_roll.values()),
            "rounds": rounds, "chain": "ok" if report.ok else f"{len(report.problems)} bad",
            "events": report.checked}


def bench_one(backend: str, args, workdir: Path) -> dict:
    with pg_database(backend, args.pg) as url:
        url = url or f"sqlite:///{workdir / f'crash-{uuid.uuid4().hex[:6]}.db'}"
        env = {**os.environ, "DICECALL_DATABASE_URL": url,
               "DICECALL_SECRET_KEY": "bench-key", "DICECALL_EVIDENCE_DIR": str(workdir)}
        tables = setup_tables(url, args.tables)
        stats = {"acked": [], "failures": 0, "replays": 0, "refused": 0, "kills": 0}
        asyncio.run(run(env, free_port(), tables, args, stats))
        return {"backend": backend, **check(url, tables, stats),
                **{k: stats[k] for k in ("kills", "failures", "replays", "refused")}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", action="append", choices=["sqlite", "postgres"])
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--rolls", type=int, default=120, help="Rolls per device.")
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--every", type=float, default=3.0, help="Seconds between kills.")
    parser.add_argument("--down", type=float, default=1.0, help="Seconds left down.")
    parser.add_argument("--max-seconds", type=float, default=180.0)
    parser.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/test")
    args = parser.parse_args()
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        rows = [bench_one(b, args, Path(tmp)) for b in args.db or ["sqlite", "postgres"]]
    print(f"\ncrash run: {args.tables} devices x {args.rolls} rolls, kill -9 every "
          f"{args.every:g} s ({args.kills}x, down {args.down:g} s); load average "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    cols = ("backend", "kills", "acked", "stored", "lost", "settled", "settle_events",
            "twice", "rounds", "failures", "replays", "refused", "events", "chain")
    print("".join(f"{c:>14}" for c in cols))
    for r in rows:
        print("".join(f"{r[c]!s:>14}" for c in cols))


if __name__ == "__main__":
    main()
