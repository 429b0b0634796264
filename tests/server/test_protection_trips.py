"""Player protection keeps the hot path as it was (docs/protection.md, "Cost"): on PostgreSQL a bet taken
by a process that knows its bettor costs the round trips it cost without protection, whether he set
a daily limit or not (the day's read is sent ahead with the bets' own reads), and a decision asks
protection nothing at all."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tapete.server import tables
from tapete.server.app import Casino
from tests.server.conftest import fresh_database, settings_for
from tests.server.support import serving

pytestmark = pytest.mark.usefixtures("fast_hashing")


@pytest.fixture
def casino_db(tmp_path: Path, migrated: dict[str, str]) -> Iterator[tuple[str, int, dict[str, str]]]:
    """A PostgreSQL casino: a virtual Black Jack table dealt by the administrator; free seated on box 1
    without limits, held on box 2 with a daily loss and wager limit."""
    with fresh_database("postgres", tmp_path, migrated) as url:
        with serving(url, tmp_path / "setup") as api:
            api.user("free", "player", chips=100_000)
            api.user("held", "player", chips=100_000)
            api.ok("held", "PUT", "/api/me/limits", json={"loss_per_day": 50_000, "wager_per_day": 80_000})
            table = api.table("blackjack", turn_seconds=None, betting_seconds=None)
            api.ok("free", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
            api.ok("held", "POST", f"/api/tables/{table}/seats", json={"seat": 2})
            tokens = dict(api.tokens)
        yield url, table, tokens


def _round_trips(casino: Casino) -> int:
    """Round trips to PostgreSQL on the process's idle connections (every one, between steps)."""
    return sum(conn.raw.round_trips for conn in casino.store._idle)


def test_a_bet_costs_no_round_trip_more_with_a_daily_limit_than_without(
    casino_db: tuple[str, int, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each bettor's bet is placed, taken back and placed again (the second one measured: the process
    knows the table and the bettor). The bet of the player with daily limits costs what the bet of the
    player without costs, and what either cost with protection's checks taken out."""
    url, table, tokens = casino_db

    async def bet_trips(casino: Casino, name: str, seat: int) -> int:
        who = await casino.caller(tokens[name])
        trips = []
        for _ in range(2):
            before = _round_trips(casino)
            await casino.place_bet(table, who, seat, "main", 1_000)
            trips.append(_round_trips(casino) - before)
            await casino.mutate(table, lambda tx, t, rt: tables.take_back_bets(tx, t.id, who.user_id))
        return trips[1]

    async def scenario(checked: bool) -> dict[str, Any]:
        casino = Casino(settings_for(url, tmp_path / "a"))
        if not checked:

            async def nothing(*_args: Any, **_kw: Any) -> None:
                return None

            monkeypatch.setattr(casino.protection, "check_bet", nothing)
            monkeypatch.setattr(casino.protection, "ahead_bets", nothing)
        out = {"free": await bet_trips(casino, "free", 1), "held": await bet_trips(casino, "held", 2)}
        await casino.dispose()
        return out

    with_protection = asyncio.run(scenario(True))
    without = asyncio.run(scenario(False))
    print("round trips of a warm bet:", with_protection, "without protection:", without)
    assert with_protection["held"] == with_protection["free"] == without["free"], (with_protection, without)
    assert without["held"] == without["free"]


def test_a_decision_asks_protection_nothing(
    casino_db: tuple[str, int, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Decisions are not bets: a round dealt and played to its end never calls protection's checks."""
    url, table, tokens = casino_db
    calls: list[str] = []

    async def scenario() -> None:
        casino = Casino(settings_for(url, tmp_path / "a"))
        held = await casino.caller(tokens["held"])
        await casino.place_bet(table, held, 2, "main", 1_000)
        for name in ("check_bet", "check_seat", "check_buy_in", "ahead_bets"):
            monkeypatch.setattr(casino.protection, name, lambda *a, _n=name, **k: calls.append(_n))
        await casino.mutate(table, lambda tx, t, rt: tables.deal(tx, t, rt, "admin", casino.key))
        for _ in range(30):
            rnd = casino.runtimes[table].round
            if rnd is None or rnd.pending is None:
                break
            pending = rnd.pending
            action = {"seat": pending.seat, "action": "stand" if "stand" in pending.legal else "decline"}
            await casino.mutate(table, lambda tx, t, rt, x=action: tables.act(tx, t, rt, held, x, casino.key))
        await casino.dispose()

    asyncio.run(scenario())
    assert calls == []
