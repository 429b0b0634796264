"""`tapete serve` from a clean start with no database named, the real command in a subprocess: it prints
where the database is, the administrator's and the demo player's passwords and where to open the page;
the page loads, the printed credentials log in, and a round of Black Jack is played to its payout."""

from __future__ import annotations

import os
import re
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from tests.web.conftest import Shots, free_port, log_in, new_page
from tests.web.helpers import money, signed, until


def tapete_command() -> list[str]:
    """The installed `tapete` console script beside this Python (else the same entry point through it)."""
    script = Path(sys.executable).with_name("tapete")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from tapete.cli import main; main()"]


def read_until(proc: subprocess.Popen[str], pattern: str, timeout: float = 90) -> str:
    """What the command printed up to the first line matching `pattern`."""
    assert proc.stdout is not None
    out = ""
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if not sel.select(timeout=0.2):
            if proc.poll() is not None:
                break
            continue
        line = proc.stdout.readline()
        if not line:
            break
        out += line
        if re.search(pattern, line):
            return out
    raise AssertionError(f"tapete serve did not print {pattern!r}; it printed:\n{out}")


def test_tapete_serve_on_a_fresh_machine(tmp_path: Path, browser: Any, shots: Shots) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TAPETE_")}
    env.update(TAPETE_HOME=str(tmp_path / "home"), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [*tapete_command(), "serve", "--port", str(port)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        printed = read_until(proc, r"open http://")
        assert str(tmp_path / "home" / "tapete.db") in printed  # where the embedded database is
        admin = re.search(r"administrator: admin\s+password: (\S+)", printed)
        demo = re.search(r"demo player: demo\s+password: (\S+)", printed)
        assert admin and demo, printed
        url = f"http://127.0.0.1:{port}"
        assert f"open {url}/" in printed
        until(lambda: _health(url), timeout=30, what="the server to answer")

        page = new_page(browser, url)
        log_in(page, "demo", demo.group(1))
        assert page.inner_text("#my-balance") == money(100_000)
        page.wait_for_selector("#open-table-1")
        shots(page, "lobby")
        page.click("#open-table-1")
        page.click("#take-1")
        page.click("#chip-1000")
        page.click("#spot-1-main")
        page.wait_for_selector("#spot-1-main.spot--on")
        page.wait_for_selector("#timer")  # the demo table deals by itself 15 s after the first bet
        shots(page, "bet-placed")
        http = httpx.Client(base_url=url, timeout=10)
        token = http.post("/api/login", json={"username": "admin", "password": admin.group(1)}).json()[
            "token"
        ]
        auth = {"Authorization": f"Bearer {token}"}
        http.post("/api/tables/1/deal", headers=auth).raise_for_status()  # the administrator deals now
        for _ in range(20):
            state = http.get("/api/tables/1/state", headers=auth).json()
            p = state["pending"]
            if p is None:
                break
            page.wait_for_selector(f'[data-turn="{state["round"]}:{p["seat"]}:{p["hand"]}:{p["decision"]}"]')
            page.click("#act-stand" if "stand" in p["legal"] else "#act-decline")
            until(
                lambda seq=state["seq"]: http.get("/api/tables/1/state", headers=auth).json()["seq"] > seq,
                what="the decision",
            )
        page.wait_for_selector("#my-result")
        recall = http.get("/api/tables/1/rounds/1", headers=auth).json()
        net = recall["bettors"]["demo"]["totals"]["net"]
        assert page.inner_text("#my-result").endswith(signed(net))
        assert page.inner_text("#balance") == money(100_000 + net)
        shots(page, "round-played")
        assert not page.js_errors
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _health(url: str) -> bool:
    try:
        return bool(httpx.get(f"{url}/api/health", timeout=2).json().get("ok"))
    except (httpx.HTTPError, ValueError):
        return False
