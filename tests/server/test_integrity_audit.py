"""The integrity audit's findings, replayed as its attacker did them: the server stopped, the database
changed as its superuser would (triggers bypassed, `tampering.superuser`), the server started again, on
SQLite and PostgreSQL.

- D7: a request refused for a frozen account names it on both databases."""

from __future__ import annotations

import sqlalchemy as sa

from tests.server.conftest import Api
from tests.server.support import procedures, refused


def _casino(api: Api) -> int:
    """ana (10,000 in chips), dora (dealer) and ines (inspector); ana seated at a live Black Jack table."""
    api.user("ana", "player", chips=10_000)
    api.user("dora", "dealer")
    api.user("ines", "inspector")
    table = api.table("blackjack", "live")
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    return table


# -- D7 ------------------------------------------------------------------------------------------------
def test_a_request_refused_for_a_frozen_account_names_it(api: Api, sql: sa.Engine) -> None:
    """The audit's D7: a buy-in, and a deal whose bet was placed before the wallet was frozen, refused by
    the database's trigger (SQLite's refusal cannot name the account) answer with the account named,
    as a bet and a cash-out do, on both databases."""
    table = _casino(api)
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 100})
    with sql.begin() as conn:
        conn.execute(sa.text("UPDATE accounts SET frozen = 'audit' WHERE name = 'wallet:ana'"))
    r = api.as_("admin", "POST", "/api/cashier/buy-in", json={"player": "ana", "amount": 100})
    error = refused(r, 409, "conflict")
    assert error["key"] == "err.account.frozen" and error["params"]["account"] == "wallet:ana", error
    assert "wallet:ana" in error["message"], error
    procedures(api, "dora", table)
    r = api.as_("dora", "POST", f"/api/tables/{table}/deal")
    error = refused(r, 409, "conflict")
    assert error["key"] == "err.account.frozen" and error["params"]["account"] == "wallet:ana", error
    assert "wallet:ana" in error["message"], error
