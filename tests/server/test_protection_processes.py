"""Player protection across the processes of one casino (PostgreSQL and Redis, as `--workers` or several
hosts run it): what one process kept of a player is forgotten when another process loads the register
or the player changes his limits, so a bet taken by the first process is refused at once."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tapete.errors import TapeteError
from tapete.server.app import Casino
from tapete.server.people.accounts import Caller
from tapete.server.play import tables
from tests.server.conftest import fresh_database, settings_for
from tests.server.support import serving

pytestmark = pytest.mark.usefixtures("fast_hashing")
BROKER = "redis://127.0.0.1:6379/0"


@pytest.fixture
def casino_db(tmp_path: Path, migrated: dict[str, str]) -> Iterator[tuple[str, int, dict[str, str]]]:
    """A PostgreSQL casino: carla (DNI 40000456) seated at a virtual Black Jack table."""
    with fresh_database("postgres", tmp_path, migrated) as url:
        with serving(url, tmp_path / "setup") as api:
            body = {"username": "carla", "password": "password-123", "role": "player"}
            api.ok(
                "admin",
                "POST",
                "/api/users",
                json=body | {"document": "40000456", "birth_date": "1990-01-01"},
            )
            api.login("carla", "password-123")
            api.ok("admin", "POST", "/api/cashier/buy-in", json={"player": "carla", "amount": 10_000})
            table = api.table("blackjack", turn_seconds=None, betting_seconds=None)
            api.ok("carla", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
            tokens = dict(api.tokens)
        yield url, table, tokens


async def _until(condition: object, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "not heard in time"
        await asyncio.sleep(0.02)


def test_a_register_loaded_by_one_process_refuses_the_next_bet_another_process_takes(
    casino_db: tuple[str, int, dict[str, str]], tmp_path: Path
) -> None:
    """B knows carla (her bet taken, her profile kept). A loads a register holding her DNI: B hears it
    through the broker, forgets her, and refuses her next bet (forbidden, err.protection.prohibited);
    then she lowers a limit at A and B's next bet of hers past it is limit_reached."""
    url, table, tokens = casino_db

    async def scenario() -> tuple[str | None, str | None]:
        a = Casino(settings_for(url, tmp_path / "a", broker_url=BROKER))
        b = Casino(settings_for(url, tmp_path / "b", broker_url=BROKER))
        for casino in (a, b):
            await casino.broker.start()
        try:
            carla = await b.sessions.caller(tokens["carla"])
            await b.place_bet(table, carla, 1, "main", 500)  # B keeps what it read of her
            assert carla.user_id in b.protection.profiles
            await b.mutate(table, lambda tx, t, rt: tables.take_back_bets(tx, t.id, carla.user_id))
            await asyncio.sleep(0.3)  # both listening
            admin = Caller(user_id=1, name="admin", role="admin", session_id="-")
            await a.protection.load_register(admin, b"document,since\n40000456,2026-11-30\n")
            await _until(lambda: carla.user_id not in b.protection.profiles)
            refused: list[str | None] = []
            try:
                await b.place_bet(table, carla, 1, "main", 500)
            except TapeteError as exc:
                refused.append(exc.key)
            await a.protection.load_register(admin, b"")  # an empty register: she may bet again
            await _until(lambda: carla.user_id not in b.protection.profiles)
            await b.place_bet(table, carla, 1, "main", 500)
            at_a = await a.sessions.caller(tokens["carla"])
            await a.protection.set_limits(at_a, {"wager_per_day": 600})
            await _until(lambda: carla.user_id not in b.protection.profiles)
            try:
                await b.place_bet(table, carla, 1, "main", 200)
            except TapeteError as exc:
                refused.append(exc.key)
            return refused[0], refused[1] if len(refused) > 1 else None
        finally:
            for casino in (a, b):
                await casino.broker.stop()
                await casino.dispose()

    prohibited, limited = asyncio.run(scenario())
    assert prohibited == "err.protection.prohibited"
    assert limited == "err.protection.wager_per_day"
