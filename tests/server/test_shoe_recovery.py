"""A virtual table whose sealed shoe no longer opens (the server restarted with another shoe key): the shoe
is recovered by reshuffling what is still in it (docs/engine.md), and the first change logs that reshuffle
as the table's records, by "recovery", with a significant event; a change that wrote nothing (a timer that
found nothing to do) does not swallow it, and the round goes on with every balance right."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tapete.server.api import create_app
from tapete.server.app import prepare
from tapete.server.play import tables
from tests.server.conftest import ADMIN_PASSWORD, Api, settings_for

pytestmark = pytest.mark.usefixtures("fast_hashing")


@contextmanager
def serving_with_key(url: str, data_dir: Path, key: bytes) -> Iterator[Api]:
    settings = settings_for(url, data_dir)
    settings.shoe_key = key
    casino = prepare(settings, say=lambda _: None)
    with TestClient(create_app(casino)) as client:
        api = Api(client)
        api.login("admin", ADMIN_PASSWORD)
        yield api


def _recovered(api: Api, table: int) -> list[dict[str, Any]]:
    events = api.ok("admin", "GET", "/api/events")["events"]
    return [e for e in events if e["kind"] == "shoe_recovered" and e["table"] == table]


def test_a_shoe_that_no_longer_opens_is_recovered_and_the_first_change_logs_it(
    database_url: str, tmp_path: Path
) -> None:
    with serving_with_key(database_url, tmp_path, bytes(range(32))) as api:
        api.user("ana", "player", chips=50_000)
        table = api.table("blackjack", turn_seconds=None)
        api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
        api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1_000})
        state = api.ok("admin", "POST", f"/api/tables/{table}/deal")
        while state["pending"] is not None:  # stand and decline: the round ends
            legal = state["pending"]["legal"]
            action = "stand" if "stand" in legal else "decline"
            state = api.ok("ana", "POST", f"/api/tables/{table}/actions", json={"seat": 1, "action": action})
        balance = api.balance("ana")
        records = api.ok("admin", "GET", f"/api/tables/{table}/verify")["records"]
    with serving_with_key(database_url, tmp_path, bytes(32)) as api:  # another key: the seal does not open
        api.login("ana", "password-123")
        assert api.state("ana", table)["phase"] == "betting"  # a read shows the table, logs nothing
        casino = api.client.app.state.casino  # type: ignore[attr-defined]

        async def nothing(db: Any, t: Any, rt: Any) -> None:
            raise tables.NoChange()  # what a timer that finds nothing to do raises, after the runtime

        assert api.client.portal.call(casino.mutate, table, nothing) is None  # type: ignore[union-attr]
        assert api.ok("admin", "GET", f"/api/tables/{table}/verify")["records"] == records  # rolled back
        api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1_000})
        report = api.ok("admin", "GET", f"/api/tables/{table}/verify")
        assert report["ok"] and report["records"] > records  # the reshuffle is in the chain now
        (logged,) = _recovered(api, table)  # once, by the bet: not by the change that was rolled back
        assert logged["details"]["events"][0]["type"] == "shoe_recovered"
        state = api.ok("admin", "POST", f"/api/tables/{table}/deal")
        while state["pending"] is not None:
            legal = state["pending"]["legal"]
            action = "stand" if "stand" in legal else "decline"
            state = api.ok("ana", "POST", f"/api/tables/{table}/actions", json={"seat": 1, "action": action})
        recall = api.ok("admin", "GET", f"/api/tables/{table}/rounds/2")
        net = sum(e["amount"] for e in recall["ledger"] if e["account"] == "wallet:ana")
        assert api.balance("ana") == balance + net
        assert api.ok("admin", "GET", f"/api/tables/{table}/verify")["ok"]
