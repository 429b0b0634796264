"""Fixtures for the web page's browser tests: a real server (uvicorn on a free port in a background
thread, the app of `create_app(prepare(settings))` on a real database), Debian's Chromium driven by
Playwright (never a downloaded browser), a small HTTP client for the setting up that is not the test's
subject, a TCP proxy that can drop the page's connections, and screenshots of each step in artifacts/."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from tapete.server.api import create_app
from tapete.server.app import prepare
from tests.server.conftest import ADMIN_PASSWORD, postgres_database, settings_for

CHROMIUM = os.environ.get("TAPETE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "web"
DESKTOP = {"width": 1360, "height": 900}
PHONE = {"width": 390, "height": 844}
#: the window of the screenshots chosen for docs/ (small files, the table still beside its panels)
DOCS = {"width": 1120, "height": 760}
#: how long the page may take to show what a test waits for (ms): generous, for a busy machine (two test
#: processes, other jobs); a wait ends as soon as what it waits for holds
WAIT = 30_000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    """uvicorn serving the app in a thread of this process (its own event loop)."""

    def __init__(self, settings: Any) -> None:
        self.port = free_port()
        # prepare() runs its own event loop: in a thread of its own, since Playwright's sync API keeps
        # one running in this one
        prepared: list[Any] = []
        worker = threading.Thread(target=lambda: prepared.append(prepare(settings, say=lambda _: None)))
        worker.start()
        worker.join()
        if not prepared:
            raise RuntimeError("the test casino could not be prepared")
        casino = prepared[0]
        config = uvicorn.Config(
            create_app(casino), host="127.0.0.1", port=self.port, log_level="warning", ws_ping_interval=5
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        self.url = f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


class Proxy:
    """A TCP proxy in front of the server: `cut()` drops every connection through it and refuses new
    ones (the page's WebSocket and requests fail as on a network that went away); `restore()` lets them
    through again."""

    def __init__(self, target_port: int) -> None:
        self.target = target_port
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = int(self.listener.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self.open = True
        self.pairs: list[tuple[socket.socket, socket.socket]] = []
        self.lock = threading.Lock()
        self.running = True
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while self.running:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.open:
                client.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                client.close()
                continue
            with self.lock:
                self.pairs.append((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        self.open = False
        with self.lock:
            pairs, self.pairs = self.pairs, []
        for a, b in pairs:
            for s in (a, b):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()

    def restore(self) -> None:
        self.open = True

    def close(self) -> None:
        self.running = False
        self.cut()
        self.listener.close()


class Site:
    """The server under test, and an HTTP client for the setting up a test is not about (users, chips,
    tables, a dealer's card posted by a shoe reader): the page itself is what the tests drive."""

    def __init__(self, server: LiveServer) -> None:
        self.server = server
        self.url = server.url
        self.http = httpx.Client(base_url=self.url, timeout=30)
        self.tokens: dict[str, str] = {}
        self.passwords: dict[str, str] = {"admin": ADMIN_PASSWORD}
        self.login_api("admin", ADMIN_PASSWORD)

    def login_api(self, name: str, password: str) -> None:
        r = self.http.post("/api/login", json={"username": name, "password": password})
        assert r.status_code == 200, r.text
        self.tokens[name] = r.json()["token"]

    def call(self, who: str, method: str, path: str, **kw: Any) -> Any:
        r = self.http.request(method, path, headers={"Authorization": f"Bearer {self.tokens[who]}"}, **kw)
        assert r.status_code < 300, (method, path, r.status_code, r.text)
        return r.json()

    def user(self, name: str, role: str = "player", chips: int = 0) -> str:
        password = f"{name}-password-1"
        self.call("admin", "POST", "/api/users", json={"username": name, "password": password, "role": role})
        self.passwords[name] = password
        self.login_api(name, password)
        if chips:
            self.call("admin", "POST", "/api/cashier/buy-in", json={"player": name, "amount": chips})
        return password

    def table(self, game: str, mode: str = "virtual", name: str | None = None, **rules: Any) -> int:
        doc = self.call(
            "admin",
            "POST",
            "/api/tables",
            json={"game": game, "name": name or f"{game} {mode}", "mode": mode, "rules": rules},
        )
        return int(doc["id"])

    def state(self, who: str, table: int) -> Any:
        return self.call(who, "GET", f"/api/tables/{table}/state")

    def balance(self, who: str) -> int:
        return int(self.call(who, "GET", "/api/me")["balance"])

    def close(self) -> None:
        self.http.close()


@pytest.fixture(autouse=True, scope="package")
def _quick_password_hashes() -> Iterator[None]:
    """argon2id with its cheapest parameters for the in-process test servers: every test creates and logs
    in several people, and the hashing cost is not what these tests are about (the serve test runs the
    real command, with the real parameters)."""
    from argon2 import PasswordHasher

    from tapete.server.people import accounts

    real = accounts._HASHER
    accounts._HASHER = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
    try:
        yield
    finally:
        accounts._HASHER = real


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    """Debian's Chromium under Playwright, once for these tests (a downloaded browser is never used).
    Package-scoped: Playwright's sync API keeps an event loop running in this thread while it is open,
    so it is closed before any test outside tests/web runs (they may call asyncio.run)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"the browser tests need Debian's Chromium at {CHROMIUM}: install it with "
            "`apt-get install -y chromium` (or set TAPETE_CHROMIUM to its path); never `playwright install`",
            pytrace=False,
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


def _sqlite(tmp: Path) -> str:
    return f"sqlite:///{tmp / 'casino.db'}"


def _postgres() -> contextlib.AbstractContextManager[str]:
    return postgres_database("tapete_web")


@pytest.fixture
def site(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Site]:
    """A fresh casino served for the page: SQLite, or PostgreSQL for a test marked ``postgres``."""
    with contextlib.ExitStack() as stack:
        url = (
            stack.enter_context(_postgres())
            if request.node.get_closest_marker("postgres")
            else _sqlite(tmp_path)
        )
        server = LiveServer(settings_for(url, tmp_path))
        stack.callback(server.stop)
        s = Site(server)
        stack.callback(s.close)
        yield s


class Shots:
    """Screenshots of a test's steps: artifacts/web/<test>/<NN>-<step>.png (git-ignored)."""

    def __init__(self, name: str) -> None:
        self.dir = ARTIFACTS / re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.n = 0

    def __call__(self, page: Any, step: str, *, full_page: bool = True) -> Path:
        self.n += 1
        path = self.dir / f"{self.n:02d}-{step}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path

    def doc(self, page: Any, name: str) -> Path:
        """A screenshot of what the window shows, for the documentation: artifacts/web/docs/NAME.png
        (docs/screenshots/ holds the ones chosen; copy them from here after a change to the page)."""
        folder = ARTIFACTS / "docs"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.png"
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(path), full_page=False)
        return path


@pytest.fixture
def shots(request: pytest.FixtureRequest) -> Shots:
    return Shots(request.node.name)


def new_page(
    browser: Any, base: str, *, lang: str | None = "es", viewport: dict[str, int] | None = None
) -> Any:
    """A page in its own browser context (its own storage: another person at another screen), in `lang`
    until the page's switch changes it (None: the page's own default)."""
    context = browser.new_context(viewport=viewport or DESKTOP, locale="en-US" if lang == "en" else "es-PE")
    if lang:
        context.add_init_script(
            "if (!window.localStorage.getItem('tapete.lang')) "
            f"window.localStorage.setItem('tapete.lang', '{lang}')"
        )
    page = context.new_page()
    page.set_default_timeout(WAIT)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors  # type: ignore[attr-defined]
    page.goto(base + "/")
    return page


def log_in(page: Any, name: str, password: str) -> None:
    """Log in through the page's form and wait for the role's home."""
    page.fill("#login-name", name)
    page.fill("#login-password", password)
    page.click("#login-submit")
    page.wait_for_selector("#logout")
