"""A process keeps the table's row as it last committed or read it, and uses it only while the database
agrees on its version, chain length and head: a row changed by another writer (its version moved) or a
head moved behind the server's back is read anew, never overwritten with what the process remembered."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from tests.server.conftest import Api
from tests.server.support import refused
from tests.server.test_faults import one_round

pytestmark = pytest.mark.usefixtures("fast_hashing")


def _row(sql: sa.Engine, table: int) -> Any:
    with sql.connect() as conn:
        return conn.execute(
            sa.text("SELECT version, next_seq, head_hash, status FROM tables WHERE id = :id"), {"id": table}
        ).one()


def _players(api: Api) -> int:
    api.user("ana", "player", chips=50_000)
    table = api.table("blackjack")
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    return table


def test_a_row_another_writer_changed_is_read_anew(api: Api, sql: sa.Engine) -> None:
    table = _players(api)
    one_round(api, table)
    before = _row(sql, table)
    with sql.begin() as conn:  # what another process's change looks like: the row and its version move
        moved = "UPDATE tables SET status = 'closed', version = version + 1 WHERE id = :id"
        conn.execute(sa.text(moved), {"id": table})
    body = {"seat": 1, "spot": "main", "amount": 1000}
    refused(api.as_("ana", "POST", f"/api/tables/{table}/bets", json=body), 409, "conflict")
    assert api.state("ana", table)["table"]["status"] == "closed"
    after = _row(sql, table)
    assert after.status == "closed" and after.version == before.version + 1  # the refusal wrote nothing


def test_each_change_writes_the_row_it_made(api: Api, sql: sa.Engine) -> None:
    table = _players(api)
    for _ in range(3):
        one_round(api, table)
        row = _row(sql, table)
        state = api.state("admin", table)
        assert row.version == state["seq"]
        with sql.connect() as conn:
            last = conn.execute(
                sa.text("SELECT seq, hash FROM events WHERE table_id = :id ORDER BY seq DESC LIMIT 1"),
                {"id": table},
            ).one()
        assert (row.next_seq, row.head_hash) == (last.seq + 1, last.hash)
    assert api.ok("admin", "GET", f"/api/tables/{table}/verify")["ok"]


def test_a_head_moved_behind_the_servers_back_is_not_papered_over(api: Api, sql: sa.Engine) -> None:
    """The version did not move, the head did: the row is read anew, the next record links to the head
    the database holds, and verify names that record."""
    table = _players(api)
    one_round(api, table)
    moved = _row(sql, table)
    with sql.begin() as conn:
        conn.execute(sa.text("UPDATE tables SET head_hash = :h WHERE id = :id"), {"h": "e" * 64, "id": table})
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
    api.ok("admin", "POST", f"/api/tables/{table}/deal")
    report = api.ok("admin", "GET", f"/api/tables/{table}/verify")
    assert not report["ok"] and report["first_bad"] == moved.next_seq
