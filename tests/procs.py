"""Real processes for the tests that need them: `tapete serve` on a free port, and — for the tests that
stop a database or a broker — a private PostgreSQL (initdb/pg_ctl in a temporary folder, run as the
`postgres` user since PostgreSQL refuses root) and a private redis-server, each on a free loopback port.
Never the machine's shared instances for those."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

ADMIN_PASSWORD = "admin-password-1"


def signing_key_pem(seed: int = 64) -> str:
    """A fixed Ed25519 private key (PEM) every test server process shares (a casino's processes share
    their signing key, as they share the shoe key); `TAPETE_SIGNING_KEY` set to "" makes one of its own."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.from_private_bytes(bytes(range(seed, seed + 32)))
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


#: the body each control procedure is posted with unless a test gives its own (server.md)
PROCEDURE_BODIES: dict[str, dict[str, Any]] = {"inspect": {"result": "complete"}, "cut": {"by": "dealer"}}


def run_procedures(
    due: Callable[[], list[str]],
    post: Callable[[dict[str, Any]], Any],
    *,
    upto: str | None = None,
    bodies: dict[str, dict[str, Any]] | None = None,
) -> list[str]:
    """Post the control procedures a live table owes before its next deal, one at a time in the order
    `due()` (its state's `procedures_due`) gives them (server.md), each with its default body or the one
    `bodies` gives its step; stop before `upto`. The steps posted. Every client of the tests uses this."""
    done: list[str] = []
    for _ in range(20):
        now = due()
        if not now or now[0] == upto:
            return done
        step = now[0]
        post({"type": step, **PROCEDURE_BODIES.get(step, {}), **(bodies or {}).get(step, {})})
        done.append(step)
    raise AssertionError(f"the procedures did not end: {done}")


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def listens(pid: int, port: int) -> bool:
    """Whether process `pid` holds the socket listening on loopback `port` (from /proc): a free port
    can be taken by another test's server between `free_port` and this one's bind, and that one's
    /api/health would answer for it."""
    wanted = f"0100007F:{port:04X}"
    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[1] == wanted and fields[3] == "0A":  # LISTEN
            inodes.add(f"socket:[{fields[9]}]")
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:  # it exited
        return False
    for fd in fds:
        with contextlib.suppress(OSError):  # closed since it was listed
            if os.readlink(f"/proc/{pid}/fd/{fd}") in inodes:
                return True
    return False


def wait_for(check: Any, what: str, seconds: float = 60) -> None:
    """Poll `check()` until it is true (AssertionError naming `what` after `seconds`)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except Exception:
            pass
        time.sleep(0.1)
    raise AssertionError(f"{what} did not come up in {seconds} s")


class _PortTaken(Exception):
    """The port chosen for a server was taken before it could listen on it."""


class Server:
    """A `tapete serve` subprocess (with its workers) in its own process group, on a free port, with its
    own TAPETE_HOME and a given database (and broker); its output goes to `home/serve.log`; it speaks as
    users by their tokens. The one server-process helper of the tests and the benchmarks."""

    def __init__(
        self,
        database_url: str,
        home: Path,
        *,
        broker_url: str | None = None,
        workers: int = 1,
        env: dict[str, str] | None = None,
        python: tuple[str, ...] = (),
        admin_password: str = ADMIN_PASSWORD,
        fast_passwords: bool = False,
    ) -> None:
        self.database_url, self.home, self.broker_url, self.workers = database_url, home, broker_url, workers
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.tokens: dict[str, str] = {}
        self.env = env or {}
        #: what runs the server's module instead of ``python -m`` (``-m benchmarks.profiled FILE``: cProfile)
        self.python = python
        self.admin_password = admin_password
        #: argon2id at its cheapest (`tests.fast_passwords`): for tests, never for a benchmark
        self.fast_passwords = fast_passwords
        self.log = home / "serve.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def output(self) -> str:
        """What the server printed so far (its start-up lines, its errors)."""
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def start(self, seconds: float = 90) -> None:
        """Start it and wait until /api/health answers ok from it (AssertionError with its output if it
        exits). One that found its port taken meanwhile (another test's server) starts on another."""
        for attempt in (1, 2, 3):
            try:
                self._start(seconds)
                return
            except _PortTaken:
                if attempt == 3:
                    raise AssertionError(
                        f"tapete serve found its port taken thrice:\n{self.output[-3000:]}"
                    ) from None
                self.port = free_port()

    def _start(self, seconds: float) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        env = {
            **os.environ,
            "TAPETE_HOME": str(self.home),
            "TAPETE_ADMIN_PASSWORD": self.admin_password,
            "TAPETE_SHOE_KEY": "11" * 32,
            "TAPETE_SIGNING_KEY": signing_key_pem(),
            **self.env,
        }
        head = [sys.executable, *self.python] if self.python else [sys.executable, "-m"]
        if self.fast_passwords:
            head.append("tests.fast_passwords")
        cmd = [*head, "tapete.cli", "serve", "--port", str(self.port), "--database-url", self.database_url]
        if self.broker_url:
            cmd += ["--broker-url", self.broker_url]
        if self.workers > 1:
            cmd += ["--workers", str(self.workers)]
        before = len(self.output)  # what an earlier start wrote (a port taken) is not this one's
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                cmd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        deadline = time.monotonic() + seconds
        while True:
            if self.proc.poll() is not None:
                if "address already in use" in self.output[before:]:
                    raise _PortTaken()
                raise AssertionError(f"tapete serve exited:\n{self.output[-3000:]}")
            try:
                if httpx.get(f"{self.url}/api/health", timeout=1).json().get("ok") and listens(
                    self.proc.pid, self.port
                ):
                    return
            except (httpx.HTTPError, ValueError):
                pass
            assert time.monotonic() < deadline, f"tapete serve did not come up:\n{self.output[-3000:]}"
            time.sleep(0.1)

    def kill(self) -> None:
        """SIGKILL (every process of its group: --workers has children): nothing flushed, no shutdown."""
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)

    def cpu_seconds(self) -> float:
        """CPU time (user + system) used so far by this server's processes (its workers included)."""
        return 0.0 if self.proc is None else group_cpu_seconds(self.proc.pid)

    def login(self, name: str, password: str) -> None:
        r = httpx.post(f"{self.url}/api/login", json={"username": name, "password": password}, timeout=10)
        assert r.status_code == 200, r.text
        self.tokens[name] = r.json()["token"]

    def request(self, who: str, method: str, path: str, body: Any = None, **kw: Any) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.tokens[who]}", **kw.pop("headers", {})}
        return httpx.request(method, f"{self.url}{path}", json=body, headers=headers, timeout=30, **kw)

    def call(self, who: str, method: str, path: str, body: Any = None, **kw: Any) -> Any:
        r = self.request(who, method, path, body, **kw)
        assert r.status_code < 300, (method, path, r.status_code, r.text)
        return r.json()

    def procedures(self, dealer: str, table: int) -> list[str]:
        """The control procedures live table `table` owes before its deal, posted by `dealer`."""
        path = f"/api/tables/{table}"
        return run_procedures(
            lambda: self.call(dealer, "GET", f"{path}/state")["procedures_due"],
            lambda body: self.call(dealer, "POST", f"{path}/procedures", body),
        )


def group_cpu_seconds(pgid: int) -> float:
    """User + system CPU seconds of the live processes in process group `pgid` (Linux /proc)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:  # fields after the name: state, ppid, pgrp, ...; utime, stime at 11, 12
            total += int(fields[11]) + int(fields[12])
    return total / ticks


def postgres_tools() -> Path:
    """The folder of initdb and pg_ctl of the installed PostgreSQL."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    if found:
        return found[-1].parent
    which = shutil.which("initdb")
    assert which, "PostgreSQL's initdb is not installed"
    return Path(which).parent


def _as_postgres(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


class PostgresInstance:
    """A private PostgreSQL cluster in a temporary folder, on a free port (trust auth), to stop and
    start in a test."""

    def __init__(self, root: Path | None = None) -> None:
        # its own folder straight under the temporary directory: the `postgres` user must reach it
        # (pytest's folders are private to root)
        import tempfile

        root = Path(tempfile.mkdtemp(prefix="tapete-pg-"))
        self.root = root
        self.dir = root / "pgdata"
        self.port = free_port()
        if os.geteuid() == 0:
            shutil.chown(root, "postgres", "postgres")
        bin_dir = postgres_tools()
        self.pg_ctl = str(bin_dir / "pg_ctl")
        subprocess.run(
            _as_postgres(
                [str(bin_dir / "initdb"), "-D", str(self.dir), "-A", "trust", "-U", "postgres", "--no-sync"]
            ),
            check=True,
            capture_output=True,
        )
        self.log = root / "pg.log"

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        opts = f"-p {self.port} -k /tmp -c listen_addresses=127.0.0.1 -c fsync=off"
        subprocess.run(
            _as_postgres([self.pg_ctl, "-D", str(self.dir), "-o", opts, "-l", str(self.log), "-w", "start"]),
            check=True,
            capture_output=True,
        )

    def stop(self, mode: str = "fast") -> None:
        subprocess.run(
            _as_postgres([self.pg_ctl, "-D", str(self.dir), "-m", mode, "-w", "stop"]),
            check=False,
            capture_output=True,
        )

    def remove(self) -> None:
        """Stop it and delete its folder."""
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


class RedisInstance:
    """A private redis-server on a free port, in a temporary folder, keeping nothing on disk."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.root),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

        def up() -> bool:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")

        wait_for(up, "redis-server", 20)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
