"""Chips are never lost (server.md: every stake, payout and commission is a ledger entry): over random
sequences of buy-ins, cash-outs, bets, rounds (with doubles, splits, insurance, exchanges and
increments where the holder picks them) and bets taken back, at Black Jack, Punto y Banca and Showdown
tables, every transaction's entries sum to zero, the balances of all accounts sum to zero, every account's
balance is the sum of its entries, no wallet is ever below zero, and the API shows the same balances. The
database itself refuses a negative wallet, whatever the service would do."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.server.conftest import Api

pytestmark = pytest.mark.usefixtures("fast_hashing")

PLAYERS = ("ana", "luis", "eva")


def check_books(api: Api, sql: sa.Engine) -> dict[str, int]:
    """The ledger's invariants, read from the rows; the wallets' balances."""
    with sql.connect() as conn:
        unbalanced = conn.execute(
            sa.text("SELECT txn, SUM(amount) FROM ledger_entries GROUP BY txn HAVING SUM(amount) != 0")
        ).all()
        assert unbalanced == [], unbalanced
        total = conn.execute(sa.text("SELECT COALESCE(SUM(balance), 0) FROM accounts")).scalar_one()
        assert total == 0
        drift = conn.execute(
            sa.text(
                "SELECT a.name, a.balance, COALESCE(SUM(e.amount), 0) FROM accounts a "
                "LEFT JOIN ledger_entries e ON e.account_id = a.id GROUP BY a.id, a.name, a.balance "
                "HAVING a.balance != COALESCE(SUM(e.amount), 0)"
            )
        ).all()
        assert drift == [], drift
        last = conn.execute(
            sa.text(
                "SELECT a.name, a.balance, e.balance_after FROM accounts a JOIN ledger_entries e "
                "ON e.id = (SELECT MAX(id) FROM ledger_entries WHERE account_id = a.id) "
                "WHERE a.balance != e.balance_after"
            )
        ).all()
        assert last == [], last
        # every entry's balance is its account's after it and every entry before it (by id), whether the
        # step knew it (a wallet's, locked and read) or it was read from the row as moved (a table's, the
        # house's at the COMMIT)
        running = conn.execute(
            sa.text(
                "SELECT id, account_id, balance_after, total FROM (SELECT id, account_id, balance_after,"
                " SUM(amount) OVER (PARTITION BY account_id ORDER BY id) AS total FROM ledger_entries) r"
                " WHERE balance_after != total"
            )
        ).all()
        assert running == [], running
        wallets = dict(
            conn.execute(sa.text("SELECT name, balance FROM accounts WHERE kind = 'wallet'")).all()
        )
    assert all(isinstance(b, int) and b >= 0 for b in wallets.values()), wallets
    shown = {p["name"]: p["balance"] for p in api.ok("admin", "GET", "/api/players")["players"]}
    assert {f"wallet:{n}": b for n, b in shown.items() if f"wallet:{n}" in wallets} == wallets
    return {k.removeprefix("wallet:"): v for k, v in wallets.items()}


def setup_casino(api: Api) -> dict[str, int]:
    """Three players seated at three virtual tables (no timers)."""
    for name in PLAYERS:
        api.user(name, "player", chips=20_000)
    tables = {
        "blackjack": api.table("blackjack", turn_seconds=None),
        "punto_y_banca": api.table("punto_y_banca", turn_seconds=None),
        "showdown_poker": api.table("showdown_poker", turn_seconds=None),
    }
    for t in tables.values():
        for seat, name in enumerate(PLAYERS, start=1):
            api.ok(name, "POST", f"/api/tables/{t}/seats", json={"seat": seat})
    return tables


SPOTS = {"blackjack": ["main"], "punto_y_banca": ["punto", "banca", "empate"], "showdown_poker": ["bet"]}

operations = st.one_of(
    st.tuples(st.just("buy_in"), st.sampled_from(PLAYERS), st.integers(1, 30_000)),
    st.tuples(st.just("cash_out"), st.sampled_from(PLAYERS), st.integers(1, 30_000)),
    st.tuples(
        st.just("bet"),
        st.sampled_from(PLAYERS),
        st.sampled_from(sorted(SPOTS)),
        st.integers(0, 2),
        st.sampled_from([100, 250, 1000, 5000, 20_000]),
    ),
    st.tuples(st.just("take_back"), st.sampled_from(PLAYERS), st.sampled_from(sorted(SPOTS))),
    st.tuples(
        st.just("round"),
        st.sampled_from(sorted(SPOTS)),
        st.lists(
            st.tuples(st.sampled_from(PLAYERS), st.integers(0, 2), st.sampled_from([100, 1000, 5000])),
            max_size=4,
        ),
    ),
)


def apply(api: Api, tables: dict[str, int], op: tuple[Any, ...], choose: Any) -> None:
    """One operation; refusals are allowed (they must change nothing, which the books then show)."""
    kind = op[0]
    if kind in ("buy_in", "cash_out"):
        _, who, amount = op
        r = api.as_(
            "admin", "POST", f"/api/cashier/{kind.replace('_', '-')}", json={"player": who, "amount": amount}
        )
        assert r.status_code in (200, 422), r.text
        return
    if kind == "bet":
        _, who, game, spot_index, amount = op
        spots = SPOTS[game]
        seat = PLAYERS.index(who) + 1
        bets = [spots[spot_index % len(spots)]] + (["pot"] if game == "showdown_poker" else [])
        for spot in bets:
            body = {"seat": seat, "spot": spot, "amount": amount if spot != "pot" else 100}
            r = api.as_(who, "POST", f"/api/tables/{tables[game]}/bets", json=body)
            assert r.status_code in (200, 409, 422), r.text
        return
    if kind == "take_back":
        _, who, game = op
        assert api.as_(who, "DELETE", f"/api/tables/{tables[game]}/bets").status_code == 200
        return
    _, game, bets = op
    table = tables[game]
    for who, spot_index, amount in bets:
        apply(api, tables, ("bet", who, game, spot_index, amount), choose)
    r = api.as_("admin", "POST", f"/api/tables/{table}/deal")
    if r.status_code != 200:  # no bets, or a table's bets that do not stand together: take them back
        assert r.status_code in (409, 422), r.text
        for who in PLAYERS:
            api.ok(who, "DELETE", f"/api/tables/{table}/bets")
        return
    play_round(api, table, r.json(), choose)


def play_round(api: Api, table: int, state: Any, choose: Any) -> None:
    """Answer every decision of the round in play with the holder's `choose`, to its end."""
    for _ in range(100):
        pending = state["pending"]
        if pending is None:
            assert state["view"]["finished"]
            return
        assert pending["kind"] == "decision"
        who = pending["holder"]
        action = choose(pending["legal"])
        body: dict[str, Any] = {"seat": pending["seat"], "action": action, "hand": pending["hand"]}
        if action == "exchange":
            hand = next(s for s in api.state(who, table)["view"]["seats"] if s["seat"] == pending["seat"])
            body["cards"] = hand["cards"][: choose([0, 1, 2, 3])]
        r = api.as_(who, "POST", f"/api/tables/{table}/actions", json=body)
        if r.status_code == 422 and r.json()["error"]["code"] == "insufficient_funds":
            fallback = "stand" if "stand" in pending["legal"] else "decline"
            r = api.as_(who, "POST", f"/api/tables/{table}/actions", json={**body, "action": fallback})
        assert r.status_code == 200, (body, r.text)
        state = r.json()
    raise AssertionError("the round did not end")


def run_sequences(api: Api, sql: sa.Engine, examples: int) -> None:
    tables = setup_casino(api)

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(ops=st.lists(operations, min_size=1, max_size=12), data=st.data())
    def sequence(ops: list[tuple[Any, ...]], data: st.DataObject) -> None:
        def choose(options: list[Any]) -> Any:
            return data.draw(st.sampled_from(options))

        for table in tables.values():  # a round an earlier example left (Hypothesis may stop one midway)
            state = api.state("admin", table)
            if state["pending"] is not None:
                play_round(api, table, state, lambda legal: "stand" if "stand" in legal else "decline")
        for op in ops:
            apply(api, tables, op, choose)
            check_books(api, sql)

    sequence()
    rounds = sum(len(api.ok("admin", "GET", f"/api/tables/{t}/rounds")["rounds"]) for t in tables.values())
    assert rounds > 0


def test_chips_are_never_lost_over_random_operations(api: Api, sql: sa.Engine) -> None:
    run_sequences(api, sql, examples=8)


@pytest.mark.slow
def test_chips_are_never_lost_over_many_random_operations(api: Api, sql: sa.Engine) -> None:
    run_sequences(api, sql, examples=300)


def test_the_database_refuses_a_negative_wallet(api: Api, sql: sa.Engine) -> None:
    """Bypassing the service: an UPDATE that would put a wallet below zero fails on the database's
    CHECK, on SQLite and PostgreSQL alike; the cage (or the house) may go below zero."""
    api.user("ana", "player", chips=500)
    with pytest.raises(sa.exc.IntegrityError, match="wallet_never_negative"), sql.begin() as conn:
        conn.execute(sa.text("UPDATE accounts SET balance = balance - 501 WHERE name = 'wallet:ana'"))
    with pytest.raises(sa.exc.IntegrityError, match="wallet_never_negative"), sql.begin() as conn:
        conn.execute(
            sa.text("INSERT INTO accounts (name, kind, balance) VALUES ('wallet:ghost', 'wallet', -1)")
        )
    with sql.begin() as conn:
        conn.execute(sa.text("UPDATE accounts SET balance = balance - 1 WHERE name = 'wallet:ana'"))
        conn.execute(sa.text("UPDATE accounts SET balance = balance + 1 WHERE name = 'wallet:ana'"))
    assert api.balance("ana") == 500
    assert check_books(api, sql)["ana"] == 500


def test_the_cashier_finds_a_player_by_his_name_in_any_case(api: Api) -> None:
    """server.md: user names are unique whatever their case (`Admin` is `admin`): the cashier's buy-in,
    cash-out and lookups find `Ana` as `ana` or `ANA`, and answer with the name as it was made."""
    api.user("Ana", "player")
    assert api.ok("admin", "POST", "/api/cashier/buy-in", json={"player": "ana", "amount": 500}) == {
        "player": "Ana",
        "balance": 500,
    }
    assert (
        api.ok("admin", "POST", "/api/cashier/cash-out", json={"player": "ANA", "amount": 200})["balance"]
        == 300
    )
    found = api.ok("admin", "GET", "/api/cashier/players/aNa")
    assert found["player"] == "Ana" and found["balance"] == 300
    assert [m["amount"] for m in found["movements"]] == [-200, 500]
    assert api.ok("admin", "GET", "/api/protection/players/ANA")["player"] == "Ana"
