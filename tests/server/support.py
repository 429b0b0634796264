"""Helpers for the server's contract tests (roles, malformed input, idempotency, concurrency, people,
the ledger, faults, reports, back-bets): a server on a given database with its own settings (to restart
it, or to shorten the session and lockout times), a live uvicorn server on a free port, a snapshot of
every row a refusal must leave as it was, and live-table rounds with known cards.

Kept beside conftest.py (which others extend too) so that these additions touch nothing there."""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
import uvicorn
from fastapi.testclient import TestClient

from tapete.server.api import create_app
from tapete.server.app import prepare
from tests.procs import run_procedures
from tests.server.conftest import ADMIN_PASSWORD, Api, settings_for

#: the rows a refused request must leave exactly as they were (sessions, login failures and the
#: idempotency keys are not among them: a refusal touches a session, counts a failed login and is
#: remembered under its key, by design)
STATE_TABLES = (
    "users",
    "accounts",
    "ledger_entries",
    "tables",
    "seats",
    "bets",
    "back_bet_requests",
    "events",
    "rounds",
    "shoes",
    "significant_events",
    "deck_change_requests",
    "claims",
)


@contextmanager
def serving(url: str, data_dir: Path, **settings: Any) -> Iterator[Api]:
    """A server on the database at `url` (migrated, the administrator made on first start), with any
    Settings field overridden, through Starlette's TestClient (lifespan included: the start-up checks
    run); `admin` logged in. Leaving it stops the server, so a second `serving` is a restart."""
    casino = prepare(settings_for(url, data_dir, **settings), say=lambda _: None)
    with TestClient(create_app(casino)) as client:
        api = Api(client)
        api.login("admin", ADMIN_PASSWORD)
        yield api


def snapshot(engine: sa.Engine) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the tables a refusal must not change, in id order."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    with engine.connect() as conn:
        for name in STATE_TABLES:
            out[name] = [tuple(r) for r in conn.execute(sa.text(f"SELECT * FROM {name} ORDER BY id"))]
    return out


def changed(before: dict[str, list[tuple[Any, ...]]], after: dict[str, list[tuple[Any, ...]]]) -> list[str]:
    """The names of the tables whose rows differ between two snapshots."""
    return [name for name in before if before[name] != after[name]]


def tables_in(path: str) -> list[int]:
    """The table a request's path names (none for the casino-wide endpoints)."""
    found = re.match(r"^/api/tables/(\d+)", path)
    return [int(found.group(1))] if found else []


def world(api: Api, tables: list[int]) -> dict[str, Any]:
    """What the API says of the casino, read as the administrator: the tables' states and chain checks,
    every player's balance (a refusal must leave all of it as it was; the row snapshot covers the rest)."""
    return {
        "states": {t: api.state("admin", t) for t in tables},
        "verify": {t: api.ok("admin", "GET", f"/api/tables/{t}/verify") for t in tables},
        "players": api.ok("admin", "GET", "/api/players")["players"],
    }


def error_of(response: Any) -> dict[str, Any]:
    """server.md's error body of a refusal, checked for its shape: code, message, key, params."""
    body = response.json()
    assert set(body) == {"error"}, body
    error = body["error"]
    assert isinstance(error, dict)
    assert {"code", "message", "key", "params"} <= set(error), error
    assert isinstance(error["code"], str) and isinstance(error["message"], str) and error["message"]
    assert isinstance(error["key"], str) and isinstance(error["params"], dict)
    return error


def refused(response: Any, status: int, code: str) -> dict[str, Any]:
    """Assert a refusal with this status and code; its error body."""
    assert response.status_code == status, (response.status_code, response.text)
    error = error_of(response)
    assert error["code"] == code, error
    return error


def until(condition: Any, what: str, seconds: float = 20.0) -> Any:
    """Poll `condition()` until it returns something truthy, or fail after `seconds` (never a bare
    sleep: the deadline only bounds a wait for something that does happen)."""
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


# ------------------------------------------------------------------------------------------ live server
@contextmanager
def live_server(url: str, data_dir: Path, **settings: Any) -> Iterator[str]:
    """A real uvicorn server of a casino on `url`, in a thread, on a free port of 127.0.0.1 (the socket
    bound here first, so no other process can take the port meanwhile); its base URL."""
    casino = prepare(settings_for(url, data_dir, **settings), say=lambda _: None)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(create_app(casino), log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        until(lambda: server.started or not thread.is_alive(), "uvicorn to start")
        assert thread.is_alive(), "uvicorn stopped at start"
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()


# ------------------------------------------------------------------------------------- live-table rounds
def procedures(
    api: Api, dealer: str, table: int, *, upto: str | None = None, **bodies: dict[str, Any]
) -> list[str]:
    """Run the control procedures a live table owes before its next deal (`tests.procs.run_procedures`:
    new pack, inspect, show, turn, mix, shuffle, cut, load, burn; after the cut card or at Showdown the
    later ones), each with its default body or the one `bodies` gives for its step; stop before `upto`.
    The steps posted."""
    return run_procedures(
        lambda: api.state(dealer, table)["procedures_due"],
        lambda body: api.ok(dealer, "POST", f"/api/tables/{table}/procedures", json=body),
        upto=upto,
        bodies=bodies,
    )


def live_deal(api: Api, dealer: str, table: int, cards: list[str]) -> Any:
    """Deal at a live table (bets already placed) after the control procedures it owes, and post `cards`
    in shoe order; the last state."""
    procedures(api, dealer, table)
    state = api.ok(dealer, "POST", f"/api/tables/{table}/deal")
    for card in cards:
        assert state["pending"] is not None and state["pending"]["kind"] == "card", state["pending"]
        state = api.ok(dealer, "POST", f"/api/tables/{table}/cards", json={"card": card})
    return state


def play_out(api: Api, table: int, holders: dict[int, str], dealer: str, cards: Iterator[str]) -> Any:
    """Finish a live round: every decision answered by its holder with stand (or decline, on an
    offer), every card taken from `cards`; the last state."""
    state = api.state(dealer, table)
    for _ in range(200):
        pending = state["pending"]
        if pending is None:
            return state
        if pending["kind"] == "card":
            state = api.ok(dealer, "POST", f"/api/tables/{table}/cards", json={"card": next(cards)})
            continue
        action = "stand" if "stand" in pending["legal"] else "decline"
        body = {"seat": pending["seat"], "action": action, "hand": pending["hand"]}
        state = api.ok(holders[pending["seat"]], "POST", f"/api/tables/{table}/actions", json=body)
    raise AssertionError("the round did not end")
