"""Player protection keeps the hot path as it was (docs/protection.md, "Cost"): a decision asks protection
nothing at all (the day's read of a bet is sent ahead with the bets' own reads)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from tapete.server.app import Casino
from tapete.server.play import tables
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


def test_a_decision_asks_protection_nothing(
    casino_db: tuple[str, int, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Decisions are not bets: a round dealt and played to its end never calls protection's checks."""
    url, table, tokens = casino_db
    calls: list[str] = []

    async def scenario() -> None:
        casino = Casino(settings_for(url, tmp_path / "a"))
        held = await casino.sessions.caller(tokens["held"])
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
