"""Every scenario file of the repository, played at a LIVE table through the HTTP API: the holders take
their boxes and bet (a back-bettor asks and the holder accepts), the dealer deals and posts the cards one
by one, each holder answers his decisions (the offers the file lacks declined), and every player's balance
changes by exactly the scenario's net. A refusal (invalid_rules, bad_bet, bad_cards, illegal_action)
comes back as a 4xx with its code and changes nothing (state, balances and the chain as they were)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tapete.games import round_class
from tapete.scenario import run_file
from tapete.server.api import create_app
from tapete.server.app import prepare
from tests.server.conftest import ADMIN_PASSWORD, Api, fresh_database, settings_for
from tests.server.support import procedures

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
POOL = 12
CHIPS = 10_000_000


def _files() -> list[Path]:
    return sorted(p for p in SCENARIOS.rglob("*.json") if not p.name.endswith(".expected.json"))


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def casino_api(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, migrated: dict[str, str]
) -> Iterator[Api]:
    """One server per database for every scenario file, with a dealer and a pool of players (argon2id at
    its smallest costs: the pool's logins are not what is tested here)."""
    from tapete.server.people import accounts
    from tests.fast_passwords import cheapest

    tmp = tmp_path_factory.mktemp("scenarios")
    real = accounts._HASHER
    accounts._HASHER = cheapest()
    try:
        with fresh_database(request.param, tmp, migrated) as url:
            casino = prepare(settings_for(url, tmp), say=lambda _: None)
            with TestClient(create_app(casino)) as client:
                api = Api(client)
                api.login("admin", ADMIN_PASSWORD)
                api.user("dealer", "dealer")
                for k in range(1, POOL + 1):
                    api.user(f"sc{k}", "player", chips=CHIPS)
                yield api
    finally:
        accounts._HASHER = real


class Refused(Exception):
    """The server refused a step the way the scenario expects (its code)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def _snapshot(api: Api, table: int, users: list[str]) -> Any:
    state = api.state("admin", table)
    state.pop("deadline", None)
    records = api.ok("admin", "GET", f"/api/tables/{table}/verify")["records"]
    return state, records, {u: api.balance(u) for u in users}


CHECK_REFUSALS = {"on": False}


def _call(api: Api, table: int, users: list[str], who: str, method: str, path: str, body: Any = None) -> Any:
    """One request; a 4xx must leave everything as it was (checked in the files that expect a refusal),
    and is raised as Refused(code)."""
    before = _snapshot(api, table, users) if table and CHECK_REFUSALS["on"] else None
    r = api.as_(who, method, path, json=body)
    if r.status_code >= 500:
        raise AssertionError(f"{method} {path} -> {r.status_code} {r.text}")
    if r.status_code >= 400:
        err = r.json()["error"]
        assert {"code", "message", "key", "params"} <= set(err), err
        if before is not None:
            assert _snapshot(api, table, users) == before, f"a refused {method} {path} changed something"
        raise Refused(err["code"])
    return r.json()


def _play(api: Api, doc: dict[str, Any]) -> tuple[dict[str, str], dict[str, int], int]:
    """Play `doc` at a new live table; (player -> pool user, balances before, table id)."""
    names: dict[str, str] = {}
    for bet in doc["bets"]:
        if isinstance(bet.get("player"), str) and bet["player"] not in names and len(names) < POOL:
            names[bet["player"]] = f"sc{len(names) + 1}"
    users = list(names.values())
    before = {u: api.balance(u) for u in users}
    rules = dict(doc.get("rules") or {})
    r = api.as_(
        "admin",
        "POST",
        "/api/tables",
        json={"game": doc["game"], "name": "scenario", "mode": "live", "rules": rules},
    )
    if r.status_code >= 400:
        raise Refused(r.json()["error"]["code"])
    table = int(r.json()["id"])
    cls = round_class(doc["game"])
    holders: dict[Any, str] = {}
    for bet in doc["bets"]:
        seat = bet["seat"]
        if seat not in holders and isinstance(bet.get("player"), str):
            holders[seat] = bet["player"]
            _call(
                api, table, users, names[bet["player"]], "POST", f"/api/tables/{table}/seats", {"seat": seat}
            )
    for bet in doc["bets"]:
        who = names.get(bet["player"]) if isinstance(bet.get("player"), str) else None
        if who is None:
            raise Refused("bad_bet")
        body = {"seat": bet["seat"], "spot": bet["spot"], "amount": bet["amount"]}
        out = _call(api, table, users, who, "POST", f"/api/tables/{table}/bets", body)
        if "request" in out:  # a back-bettor: his consent is taken as given, the holder's asked (server.md)
            holder = names[holders[bet["seat"]]]
            _call(
                api,
                table,
                users,
                holder,
                "POST",
                f"/api/tables/{table}/requests/{out['request']}",
                {"accept": True},
            )
    procedures(api, "dealer", table)  # the live table's control procedures first (server.md)
    state = _call(api, table, users, "dealer", "POST", f"/api/tables/{table}/deal")
    cards = list(doc["cards"])
    entries = list(doc.get("actions", []))
    i = 0
    while state["pending"] is not None:
        p = state["pending"]
        if p["kind"] == "card":
            if not cards:
                raise Refused("bad_cards")  # the physical shoe has no more of the file's cards
            state = _call(
                api, table, users, "dealer", "POST", f"/api/tables/{table}/cards", {"card": cards.pop(0)}
            )
            continue
        holder = names[holders[p["seat"]]]
        entry = entries[i] if i < len(entries) else None
        if p["decision"] in cls.OFFERS and not (
            entry is not None and entry["seat"] == p["seat"] and entry["action"] in p["legal"]
        ):
            body: dict[str, Any] = {"seat": p["seat"], "action": "decline"}  # silence declines (scenario.md)
        elif entry is None:
            raise Refused("illegal_action")  # the round needs a decision the file lacks
        else:
            body = {k: v for k, v in entry.items() if k in ("seat", "action", "hand", "amount", "cards")}
            i += 1
            actor = names.get(holders.get(entry["seat"], ""), holder)
            state = _call(api, table, users, actor, "POST", f"/api/tables/{table}/actions", body)
            continue
        state = _call(api, table, users, holder, "POST", f"/api/tables/{table}/actions", body)
    if i < len(entries):
        raise Refused("illegal_action")  # an entry left over
    return names, before, table


@pytest.mark.parametrize("path", _files(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_scenario_at_a_live_table_through_the_api(casino_api: Api, path: Path) -> None:
    code, expected = run_file(str(path))
    doc = json.loads(path.read_text(encoding="utf-8"))
    CHECK_REFUSALS["on"] = code != 0
    if code != 0:
        want = expected["error"]["code"]
        with pytest.raises(Refused) as refusal:
            _play(casino_api, doc)
        # the file's first error by the contract's precedence, or what a live table meets first on the same
        # input (its bets are judged before its cards are posted)
        assert refusal.value.code in (want, "bad_bet", "bad_cards", "illegal_action", "invalid_rules"), (
            refusal.value
        )
        if want in ("invalid_rules", "illegal_action"):
            assert refusal.value.code == want
        return
    names, before, table = _play(casino_api, doc)
    for player, user in names.items():
        assert casino_api.balance(user) - before[user] == expected["players"][player]["net"], player
    recall = casino_api.ok("admin", "GET", f"/api/tables/{table}/rounds/1")
    assert recall["status"] == "finished"
    assert sum(e["amount"] for e in recall["ledger"]) == 0
    # every entry names the bettor it concerns (server.md), and each bettor's entries balance: what the
    # house took from him (its net and commission) is his loss
    ledger = recall["ledger"]
    assert all(e["player"] in names.values() for e in ledger), [e for e in ledger if e["player"] is None]
    for player, user in names.items():
        mine = [e for e in ledger if e["player"] == user]
        assert sum(e["amount"] for e in mine) == 0, (player, mine)
        house = sum(e["amount"] for e in mine if e["account"] == "house")
        assert house == -expected["players"][player]["net"], (player, mine)
    assert casino_api.ok("admin", "GET", f"/api/tables/{table}/verify")["ok"]
