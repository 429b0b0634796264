"""A first round through the API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.server.conftest import Api, postgres_database
from tests.server.support import serving

pytestmark = pytest.mark.usefixtures("fast_hashing")


def _stand_until_settled(api: Api, player: str, table: int, state: dict[str, Any]) -> dict[str, Any]:
    """The round dealt (`state`) played to its end by `player` standing (declining every offer); the
    last state."""
    steps = 0
    while state["pending"] is not None:
        p = state["pending"]
        assert p["kind"] == "decision"
        action = "stand" if "stand" in p["legal"] else "decline"
        body = {"seat": p["seat"], "action": action, "hand": p["hand"]}
        state = api.ok(player, "POST", f"/api/tables/{table}/actions", json=body)
        steps += 1
        assert steps < 20
    return state


def test_a_virtual_black_jack_round_through_the_api(api: Api) -> None:
    api.user("ana", "player", chips=10_000)
    api.user("dora", "dealer")
    table = api.table("blackjack")
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
    state = _stand_until_settled(api, "ana", table, api.ok("dora", "POST", f"/api/tables/{table}/deal"))
    view = state["view"]
    assert view["finished"]
    net = sum(h["outcome"] != "" for h in view["seats"][0]["hands"])
    assert net >= 1
    balance = api.balance("ana")
    assert balance != 10_000 or view["seats"][0]["hands"][0]["outcome"] == "push"
    verify = api.ok("admin", "GET", f"/api/tables/{table}/verify")
    assert verify["ok"]
    recall = api.ok("admin", "GET", f"/api/tables/{table}/rounds/1")
    assert recall["status"] == "finished" and recall["ledger"]
    assert sum(e["amount"] for e in recall["ledger"]) == 0


@pytest.mark.parametrize("game", ["blackjack", "punto_y_banca", "showdown_poker", "majestic_21"])
def test_a_table_that_dealt_no_round_has_the_state_server_md_shows(api: Api, game: str) -> None:
    """server.md's state from the first moment: `view` an object (no round, no cards, nothing pending),
    for a player, a spectator's role and the inspector alike."""
    api.user("ana", "player", chips=10_000)
    api.user("ivan", "inspector")
    table = api.table(game)
    for who in ("ana", "ivan", "admin"):
        state = api.state(who, table)
        assert {"table", "phase", "round", "pending", "view", "seats"} <= set(state)
        assert {"id", "game", "mode", "rules"} <= set(state["table"]) and state["table"]["game"] == game
        assert (state["phase"], state["round"], state["pending"]) == ("betting", None, None)
        view = state["view"]
        assert isinstance(view, dict) and view["game"] == game and view["round"] is None
        assert view["seats"] == [] and view["pending"] is None and not view["finished"]


def test_a_postgresql_url_through_the_unix_socket_serves_a_round(
    migrated: dict[str, str], tmp_path: Path
) -> None:
    """`postgresql://user@/NAME?host=DIR` (libpq's Unix socket, as a server on the database's host
    reaches it, and as `bench_server --socket` runs) migrates, starts and plays like 127.0.0.1:5432."""
    socket_dir = Path("/var/run/postgresql")
    if not (socket_dir / ".s.PGSQL.5432").exists():
        pytest.skip("no PostgreSQL socket in /var/run/postgresql")
    with postgres_database("tapete_sock", migrated["postgres"]) as tcp_url:
        name = tcp_url.rsplit("/", 1)[1]
        url = f"postgresql://postgres@/{name}?host={socket_dir}"
        with serving(url, tmp_path) as api:
            api.user("ana", "player", chips=10_000)
            table = api.table("blackjack")
            api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
            bet = {"seat": 1, "spot": "main", "amount": 500}
            api.ok("ana", "POST", f"/api/tables/{table}/bets", json=bet)
            deal = api.ok("admin", "POST", f"/api/tables/{table}/deal")
            state = _stand_until_settled(api, "ana", table, deal)
            assert state["view"]["finished"]
            assert api.ok("admin", "GET", f"/api/tables/{table}/verify")["ok"]
            recall = api.ok("admin", "GET", f"/api/tables/{table}/rounds/1")
            assert recall["ledger"] and sum(e["amount"] for e in recall["ledger"]) == 0
        with psycopg.connect(tcp_url) as conn:  # the same database, seen through TCP: the round is there
            found = conn.execute("SELECT count(*) FROM events").fetchone()
        assert found is not None and found[0] > 0
