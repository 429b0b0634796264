"""WebSocket: over random rounds of every game, no message a player, a spectator or the dealer receives
holds a card he may not see. A real uvicorn server; every viewer (three seated players, a spectator, the
dealer, the inspector) holds a WebSocket to the table; after every step the test waits until every one of
them has received the new version, then compares each viewer's message, position by position, with the
inspector's message of the same version (the truth)."""

from __future__ import annotations

import asyncio
import json
import random
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
import websockets

from tapete.server.api import create_app
from tapete.server.app import prepare
from tests.procs import free_port
from tests.server.conftest import ADMIN_PASSWORD, settings_for

pytestmark = pytest.mark.usefixtures("fast_hashing")

CARD = re.compile(r"^[A2-9TJQK][shdc]$")
GAMES = ("blackjack", "majestic_21", "punto_y_banca", "showdown_poker")


class Live:
    """The app served by uvicorn in a thread, on a free port."""

    def __init__(self, url: str, tmp: Path) -> None:
        self.port = free_port()
        casino = prepare(settings_for(url, tmp), say=lambda _: None)
        config = uvicorn.Config(create_app(casino), host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)


@pytest.fixture
def live(database_url: str, tmp_path: Path) -> Iterator[Live]:
    server = Live(database_url, tmp_path)
    try:
        yield server
    finally:
        server.stop()


def cards_in(obj: Any) -> list[str]:
    if isinstance(obj, str):
        return [obj] if CARD.match(obj) else []
    if isinstance(obj, dict):
        return [c for v in obj.values() for c in cards_in(v)]
    if isinstance(obj, list):
        return [c for v in obj for c in cards_in(v)]
    return []


def check(game: str, viewer: str, name: str | None, state: dict[str, Any], truth: dict[str, Any]) -> None:
    """`state` (what `viewer` received) against `truth` (the inspector's state of the same version)."""
    view, real = state.get("view"), truth.get("view")
    assert "events" not in (view or {}), "a viewer's view holds the events"
    if view is None or real is None or real["round"] is None:  # no round dealt yet: no card anywhere
        assert not cards_in(state), state
        return
    shown: list[str] = []
    if game in ("blackjack", "majestic_21"):
        hole_turned = real["finished"] or any(e.get("type") == "hole_card" for e in real.get("events", []))
        for i, (mine, true) in enumerate(zip(view["dealer"], real["dealer"], strict=True)):
            if i == 1 and not hole_turned:
                assert mine == "??", f"{viewer} sees the hole card {true}"
            assert mine in ("??", true)
            shown.append(mine)
        for s_mine, s_true in zip(view["seats"], real["seats"], strict=True):
            for h_mine, h_true in zip(s_mine["hands"], s_true["hands"], strict=True):
                assert h_mine["cards"] == h_true["cards"]
                shown += h_mine["cards"]
    elif game == "punto_y_banca":
        assert (
            view["punto"]["cards"] == real["punto"]["cards"]
            and view["banca"]["cards"] == real["banca"]["cards"]
        )
        shown += view["punto"]["cards"] + view["banca"]["cards"]
    else:
        over = real["finished"]
        shown_count = sum(1 for e in real.get("events", []) if e.get("type") == "community_shown")
        for i, (mine, true) in enumerate(zip(view["community"], real["community"], strict=True)):
            assert mine == (true if over or i < shown_count else "??"), (viewer, i, mine)
            shown.append(mine)
        for s_mine, s_true in zip(view["seats"], real["seats"], strict=True):
            own = viewer == "player" and s_true["player"] == name
            if own or over:
                assert s_mine["cards"] == s_true["cards"]
            else:
                assert s_mine["cards"] == ["??"] * len(s_true["cards"]), (
                    f"{viewer} sees {s_true['player']}'s cards"
                )
            if not own:
                assert "discarded" not in s_mine and "dealt" not in s_mine
            shown += s_mine["cards"] + s_mine.get("discarded", []) + s_mine.get("dealt", [])
            shown += s_mine.get("final_hand", {}).get("cards", [])
        pending = state.get("pending") or {}
        if pending.get("replaces") is not None:
            owner = next((s["player"] for s in real["seats"] if s["seat"] == pending.get("seat")), None)
            if not (viewer == "player" and owner == name):
                assert pending["replaces"] == "??"
    allowed = {c for c in shown if c != "??"}
    stray = set(cards_in(state)) - allowed
    assert not stray, f"{viewer} received cards outside the positions he may see: {stray}"


class Client:
    """One viewer: an HTTP token and a WebSocket that keeps every message by its version."""

    def __init__(self, base: str, name: str, role: str) -> None:
        self.base, self.name, self.role = base, name, role
        self.token = ""
        self.by_seq: dict[int, dict[str, Any]] = {}
        self.task: asyncio.Task[None] | None = None

    async def listen(self, table: int) -> None:
        url = f"ws://{self.base}/ws/tables/{table}?token={self.token}"
        async with websockets.connect(url) as ws:
            async for raw in ws:
                msg = json.loads(raw)
                if msg.get("type") == "state":
                    self.by_seq[msg["seq"]] = msg["state"]


@pytest.mark.parametrize("game", GAMES)
def test_no_websocket_message_holds_a_card_its_viewer_may_not_see(live: Live, game: str) -> None:
    asyncio.run(_play(live, game))


async def _play(live: Live, game: str) -> None:
    base = f"127.0.0.1:{live.port}"
    rng = random.Random(hash(game) & 0xFFFF)
    async with httpx.AsyncClient(base_url=f"http://{base}", timeout=30) as http:

        async def call(who: Client | str, method: str, path: str, body: Any = None) -> Any:
            token = who.token if isinstance(who, Client) else tokens[who]
            r = await http.request(method, path, json=body, headers={"Authorization": f"Bearer {token}"})
            assert r.status_code < 300, (path, r.status_code, r.text)
            return r.json()

        tokens: dict[str, str] = {}
        r = await http.post("/api/login", json={"username": "admin", "password": ADMIN_PASSWORD})
        tokens["admin"] = r.json()["token"]
        viewers = [
            Client(base, "p1", "player"),
            Client(base, "p2", "player"),
            Client(base, "p3", "player"),
            Client(base, "spec", "cashier"),
            Client(base, "dora", "dealer"),
            Client(base, "ines", "inspector"),
        ]
        for v in viewers:
            await call(
                "admin",
                "POST",
                "/api/users",
                {"username": v.name, "password": "password-123", "role": v.role},
            )
            v.token = (
                await http.post("/api/login", json={"username": v.name, "password": "password-123"})
            ).json()["token"]
            if v.role == "player":
                await call("admin", "POST", "/api/cashier/buy-in", {"player": v.name, "amount": 1_000_000})
        table = (await call("admin", "POST", "/api/tables", {"game": game, "name": "ws", "mode": "virtual"}))[
            "id"
        ]
        players = viewers[:3]
        for seat, p in enumerate(players, start=1):
            await call(p, "POST", f"/api/tables/{table}/seats", {"seat": seat})
        for v in viewers:
            v.task = asyncio.create_task(v.listen(table))

        async def settle() -> int:
            """Wait until every viewer has the table's newest version."""
            seq = (await call(viewers[5], "GET", f"/api/tables/{table}/state"))["seq"]
            deadline = time.monotonic() + 20
            while any(seq not in v.by_seq for v in viewers):
                assert time.monotonic() < deadline, "a push did not arrive"
                await asyncio.sleep(0.01)
            return int(seq)

        spots = {
            "blackjack": ["main"],
            "majestic_21": ["main"],
            "punto_y_banca": ["punto", "banca"],
            "showdown_poker": ["bet"],
        }
        for _ in range(4):
            for seat, p in enumerate(players, start=1):
                spot = rng.choice(spots[game])
                await call(
                    p, "POST", f"/api/tables/{table}/bets", {"seat": seat, "spot": spot, "amount": 500}
                )
                if game == "showdown_poker":
                    await call(
                        p, "POST", f"/api/tables/{table}/bets", {"seat": seat, "spot": "pot", "amount": 100}
                    )
                if game == "majestic_21" and rng.random() < 0.5:
                    await call(
                        p,
                        "POST",
                        f"/api/tables/{table}/bets",
                        {"seat": seat, "spot": "over_13", "amount": 100},
                    )
            await settle()
            state = await call(viewers[4], "POST", f"/api/tables/{table}/deal")
            await settle()
            while state["pending"] is not None:
                p = state["pending"]
                holder = next(v for v in players if v.name == p["holder"])
                choice = rng.choice(p["legal"])
                body: dict[str, Any] = {"seat": p["seat"], "action": choice, "hand": p["hand"]}
                if choice == "exchange":
                    mine = (await call(holder, "GET", f"/api/tables/{table}/state"))["view"]["seats"]
                    cards = next(s["cards"] for s in mine if s["seat"] == p["seat"])
                    body["cards"] = rng.sample(cards, rng.randint(0, p.get("max_cards", 3)))
                state = await call(holder, "POST", f"/api/tables/{table}/actions", body)
                await settle()
        for v in viewers:
            assert v.task is not None
            v.task.cancel()
        truth = viewers[5].by_seq
        checked = 0
        for v in viewers[:5]:
            for seq, state in v.by_seq.items():
                if seq in truth:
                    check(game, "player" if v.role == "player" else v.role, v.name, state, truth[seq])
                    checked += 1
        assert checked > 40
