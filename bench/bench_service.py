"""Load test of the game-resolution service over loopback, printed as a table.

Starts `dicecall serve` on 127.0.0.1 (a separate process), creates N craps tables with one
device each and 6 players x 10 wagers per table (place_to_win 4-10 and buy 4, 5, 9, 10:
they stay up when they win), then every device posts signed rolls one after another, as an
edge box does, from this process. Dice are drawn from the 30 outcomes that are not a 7 so
the 60 wagers stay on the layout and every roll settles a full table (each roll pays one
place and one buy bet per player on 4-10). Requests are bounded in count and time.

Besides rolls/s and latency it prints the CPU seconds per roll of the service process (its
workers included) and of this load generator, read from /proc: on a shared machine the CPU
cost is the figure that does not depend on what else runs. On PostgreSQL it also prints the
CPU per roll of all PostgreSQL processes of the machine during the load (from /proc; the
background writers included, and whatever else uses the server meanwhile: the last column
counts the transactions of its other databases during the load, which should be 0).
`--count-sql` (one worker) counts the SQL statements the service executes during the load
(`sql_count.py`) and prints them per roll.

    python bench/bench_service.py --db sqlite --db postgres --tables 32 --rolls 150
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

from dicecall.api.signing import sign

NON_SEVEN = [(a, b) for a in range(1, 7) for b in range(1, 7) if a + b != 7]
PLAYBOOK = [("place_to_win", n) for n in (4, 5, 6, 8, 9, 10)] + [("buy", n) for n in (4, 5, 9, 10)]


class HttpConn:
    """A minimal HTTP/1.1 keep-alive client: the load generator must cost little CPU."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader = self.writer = None

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def request(self, method: str, path: str, body: bytes,
                      headers: dict[str, str]) -> tuple[int, bytes]:
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        self.writer.write(f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\n"
                          f"Content-Type: application/json\r\nContent-Length: {len(body)}"
                          f"\r\n{head}\r\n".encode() + body)
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("server closed the connection")
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        return int(status_line.split()[1]), await self.reader.readexactly(length)

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


@contextmanager
def pg_database(backend: str, admin_url: str):
    """A fresh PostgreSQL database for one run (dropped after), or None for SQLite."""
    if backend != "postgres":
        yield None
        return
    import psycopg

    name = f"dicecall_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        base = admin_url.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://")
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def setup_tables(url: str, n: int, game: str = "craps") -> list[dict]:
    """Migrates, then creates n tables, a device each and 6 players x 10 wagers."""
    from dicecall.api.db.migrate import upgrade
    from dicecall.api.db.session import Database
    from dicecall.api.services import tables, wagers

    upgrade(url)
    db = Database(url, 2)
    out = []
    for i in range(n):
        table = tables.create_table(db, game, f"bench {i}", {})
        device = tables.create_device(db, b"bench-key", table["id"], "cam")
        for seat in range(6):
            for name, number in PLAYBOOK:
                wagers.place(db, table["id"], {"name": name, "amount": 3000, "seat": seat,
                                               "params": {"number": number}}, "bench")
        out.append({"table_id": table["id"], "device_id": device["id"],
                    "secret": device["secret"]})
    db.dispose()
    return out


def start_server(env: dict, port: int, workers: int = 1,
                 count_sql: bool = False) -> subprocess.Popen:
    """`dicecall serve` on loopback; returns once /healthz answers."""
    args = ["serve", "--port", str(port), "--workers", str(workers)]
    if count_sql:  # the same command with the counter imported first (one process)
        code = ("import sys; sys.path.insert(0, sys.argv.pop(1)); import sql_count; "
                "from dicecall.cli import main; sys.argv[0] = 'dicecall'; main()")
        cmd = [sys.executable, "-c", code, str(Path(__file__).parent), *args]
    else:
        cmd = [str(Path(sys.executable).with_name("dicecall")), *args]
    proc = subprocess.Popen(cmd, env=env)
    for _ in range(300):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as s:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                if b" 200 " in s.recv(200):
                    return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the service did not start")


def stop_server(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process and its children that are still running (Linux)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / tick
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return total
    return total + sum(cpu_seconds(int(c)) for c in children)


def pg_server_seconds() -> float:
    """User + system CPU of every PostgreSQL process of this machine, those that exited
    included (the postmaster's reaped children), from /proc (Linux)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if (proc / "comm").read_text().strip() != "postgres":
                continue
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
        if fields[1] == "1" or _comm(int(fields[1])) != "postgres":  # the postmaster
            total += int(fields[13]) + int(fields[14])
    return total / tick


def other_transactions(admin_url: str, database: str) -> int:
    """Transactions of the server's other databases so far: whether something else used
    PostgreSQL (and its CPU) during the load."""
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        return conn.execute("SELECT sum(xact_commit + xact_rollback) FROM pg_stat_database "
                            "WHERE datname <> %s", (database,)).fetchone()[0]


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def sql_counts(proc: subprocess.Popen, path: Path) -> dict:
    """The service's statement counts since the last call (see sql_count.py)."""
    path.unlink(missing_ok=True)
    proc.send_signal(signal.SIGUSR1)
    for _ in range(100):
        if path.exists() and path.stat().st_size:
            time.sleep(0.05)
            return json.loads(path.read_text())
        time.sleep(0.05)
    raise RuntimeError("the service did not write its SQL counts")


def roll_payload(seq: int, rng: random.Random) -> bytes:
    faces = list(rng.choice(NON_SEVEN))
    return json.dumps({
        "roll_id": str(uuid.uuid4()), "seq": seq, "verdict": "valid", "faces": faces,
        "reasons": [], "confidences": [0.99, 0.98],
        "evidence": {"clean_sha256": "c" * 64, "annotated_sha256": "d" * 64}}).encode()


async def device_loop(port: int, table: dict, rolls: int, deadline: float,
                      latencies: list[float], errors: list[str]) -> int:
    """Posts `rolls` rolls one at a time (an edge box waits for each answer)."""
    rng = random.Random(table["table_id"])
    conn = HttpConn("127.0.0.1", port)
    await conn.open()
    path = f"/v1/tables/{table['table_id']}/rolls"
    done = 0
    try:
        for seq in range(1, rolls + 1):
            if time.monotonic() > deadline:
                break
            body = roll_payload(seq, rng)
            headers = sign(table["secret"], "POST", path, time.time(), body,
                           device_id=table["device_id"])
            t0 = time.perf_counter()
            status, _ = await conn.request("POST", path, body, headers)
            latencies.append(time.perf_counter() - t0)
            if status != 201:
                errors.append(str(status))
            done += 1
    finally:
        await conn.close()
    return done


async def run_load(port: int, tables: list[dict], rolls: int, max_s: float) -> dict:
    latencies: list[float] = []
    errors: list[str] = []
    deadline = time.monotonic() + max_s
    t0 = time.perf_counter()
    done = await asyncio.gather(*(device_loop(port, t, rolls, deadline, latencies, errors)
                                  for t in tables))
    elapsed = time.perf_counter() - t0
    lat = sorted(latencies)
    return {"rolls": sum(done), "seconds": elapsed, "rate": sum(done) / elapsed,
            "p50_ms": 1000 * lat[len(lat) // 2],
            "p99_ms": 1000 * lat[min(len(lat) - 1, int(len(lat) * 0.99))],
            "mean_ms": 1000 * statistics.fmean(lat), "errors": len(errors)}


def bench_one(backend: str, args, workdir: Path) -> dict:
    with pg_database(backend, args.pg) as url:
        if url is None:
            url = f"sqlite:///{workdir / f'bench-{uuid.uuid4().hex[:6]}.db'}"
        env = {**os.environ, "DICECALL_DATABASE_URL": url,
               "DICECALL_SECRET_KEY": "bench-key", "DICECALL_EVIDENCE_DIR": str(workdir)}
        count_file = workdir / "sql-counts.json"
        env["DICECALL_SQL_COUNT_FILE"] = str(count_file)
        tables = setup_tables(url, args.tables)
        port = free_port()
        server = start_server(env, port, args.workers, args.count_sql)
        database = url.rsplit("/", 1)[1] if backend == "postgres" else None
        try:
            if args.count_sql:
                sql_counts(server, count_file)  # from zero: the start-up is not counted
            server_cpu, own_cpu = cpu_seconds(server.pid), sum(os.times()[:2])
            others = other_transactions(args.pg, database) if database else 0
            pg_cpu = pg_server_seconds() if database else 0.0
            result = asyncio.run(run_load(port, tables, args.rolls, args.max_seconds))
            n = result["rolls"]
            result["server_ms"] = 1000 * (cpu_seconds(server.pid) - server_cpu) / n
            result["client_ms"] = 1000 * (sum(os.times()[:2]) - own_cpu) / n
            result["pg_ms"] = (1000 * (pg_server_seconds() - pg_cpu) / n
                               if database else None)
            # Minus the two of the measure itself (the connection's and the statistics').
            result["pg_others"] = (other_transactions(args.pg, database) - others - 2
                                   if database else None)
            if args.count_sql:
                result["sql"] = sql_counts(server, count_file)
        finally:
            stop_server(server)
        result["backend"] = backend
        return result


def print_sql(r: dict) -> None:
    n = r["rolls"]
    sql = r["sql"]
    calls = sum(v["calls"] for v in sql.values())
    rows = sum(v["rows"] for v in sql.values())
    print(f"\n{r['backend']}: {calls / n:.2f} statement executions per roll "
          f"({rows / n:.2f} counting each executemany row), {sql.get('COMMIT', {}).get('calls', 0)}"
          f" commits for {n} rolls")
    print(f"{'calls/roll':>11}{'rows/roll':>10}  statement")
    for key, v in sorted(sql.items(), key=lambda kv: -kv[1]["calls"]):
        print(f"{v['calls'] / n:>11.3f}{v['rows'] / n:>10.3f}  {key}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", action="append", choices=["sqlite", "postgres"])
    parser.add_argument("--tables", type=int, default=32)
    parser.add_argument("--rolls", type=int, default=150, help="Rolls per device.")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--max-seconds", type=float, default=60.0)
    parser.add_argument("--count-sql", action="store_true",
                        help="Count the service's SQL statements (one worker).")
    parser.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/test")
    args = parser.parse_args()
    load = os.getloadavg()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for backend in args.db or ["sqlite", "postgres"]:
            rows.append(bench_one(backend, args, Path(tmp)))
    print(f"\nservice load: {args.tables} tables x 1 device, 6 players x 10 wagers each, "
          f"{args.workers} worker(s); load average before {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f}, after {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'backend':<10}{'rolls':>7}{'secs':>7}{'rolls/s':>9}{'p50 ms':>8}{'p99 ms':>8}"
          f"{'mean ms':>9}{'errors':>7}{'svc cpu ms/roll':>16}{'gen cpu ms/roll':>16}"
          f"{'pg cpu ms/roll':>15}{'pg other xacts':>15}")
    for r in rows:
        pg = "-" if r["pg_ms"] is None else f"{r['pg_ms']:.2f}"
        others = "-" if r["pg_others"] is None else str(r["pg_others"])
        print(f"{r['backend']:<10}{r['rolls']:>7}{r['seconds']:>7.1f}{r['rate']:>9.0f}"
              f"{r['p50_ms']:>8.1f}{r['p99_ms']:>8.1f}{r['mean_ms']:>9.1f}{r['errors']:>7}"
              f"{r['server_ms']:>16.2f}{r['client_ms']:>16.2f}{pg:>15}{others:>15}")
    for r in rows:
        if "sql" in r:
            print_sql(r)


if __name__ == "__main__":
    main()
