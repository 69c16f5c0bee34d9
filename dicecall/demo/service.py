"""The game-resolution service for the demo: `dicecall serve` on SQLite in a work folder.

It runs as its own process (as in production), on the loopback interface, so the three edge
readers in the demo process do not share an interpreter with it.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx


class ServiceError(RuntimeError):
    """The service did not start; the message carries the end of its log."""


def free_port(host: str = "127.0.0.1") -> int:
    """A port the OS has just handed out (free now; the service binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class Service:
    """Starts `dicecall serve` and hands out an admin client.

    Args:
        workdir: holds the database, the server key, the evidence JPEGs and the log.
        port: TCP port on 127.0.0.1; None picks a free one.
    """

    def __init__(self, workdir: Path, port: int | None = None) -> None:
        self.workdir = Path(workdir)
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.db_url = f"sqlite:///{self.workdir / 'dicecall.db'}"
        self.log_path = self.workdir / "service.log"
        self.proc: subprocess.Popen | None = None
        self._log = None

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update({"DICECALL_DATABASE_URL": self.db_url,
                    "DICECALL_KEY_FILE": str(self.workdir / "dicecall.key"),
                    "DICECALL_EVIDENCE_DIR": str(self.workdir / "evidence")})
        env.pop("DICECALL_SECRET_KEY", None)
        return env

    def start(self) -> None:
        """Launches the process; `wait_ready` blocks until it answers."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        cmd = [sys.executable, "-c", "from dicecall.cli import main; main()", "serve",
               "--host", "127.0.0.1", "--port", str(self.port)]
        self.proc = subprocess.Popen(cmd, env=self.env(), stdout=self._log,
                                     stderr=subprocess.STDOUT)

    def wait_ready(self, timeout_s: float = 60.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise ServiceError(f"the service exited with code {self.proc.returncode}:\n"
                                   + self.log_tail())
            try:
                if httpx.get(self.url + "/healthz", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise ServiceError(f"the service did not answer on {self.url} in {timeout_s:.0f} s:\n"
                           + self.log_tail())

    def admin_token(self) -> str:
        """Creates an admin token the way `dicecall admin token` does (the database is
        migrated by `serve` before it answers)."""
        from dicecall.api.db.session import Database
        from dicecall.api.services.tables import create_token

        db = Database(self.db_url, 1)
        try:
            return create_token(db, f"demo-admin-{secrets.token_hex(3)}", "admin")["token"]
        finally:
            db.engine.dispose()

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self._log is not None:
            self._log.close()
            self._log = None
