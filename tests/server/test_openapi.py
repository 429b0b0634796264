"""The OpenAPI document describes the API as it answers (server.md: "document the whole API in the OpenAPI
document the server serves"): the Bearer token, server.md's error body on every refusal (not FastAPI's
422 validation shape, which the server never sends), the answers server.md names, and the WebSocket. Each
documented answer is checked against what the server really says, over a played live round."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from tapete.server.openapi import OPEN
from tests.server.conftest import Api
from tests.server.support import live_deal, play_out

pytestmark = pytest.mark.usefixtures("fast_hashing")


def _resolved(node: Any, doc: dict[str, Any]) -> Any:
    """`node` with every `#/components/schemas/…` reference replaced by the schema it names."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            return _resolved(doc["components"]["schemas"][ref.rsplit("/", 1)[1]], doc)
        return {k: _resolved(v, doc) for k, v in node.items()}
    if isinstance(node, list):
        return [_resolved(v, doc) for v in node]
    return node


def _documented(doc: dict[str, Any], method: str, path: str, status: int) -> dict[str, Any]:
    answer = doc["paths"][path][method]["responses"][str(status)]
    schema: dict[str, Any] = _resolved(answer["content"]["application/json"]["schema"], doc)
    return schema


def test_the_document_names_the_token_the_refusals_and_the_websocket(api: Api) -> None:
    doc = api.client.get("/openapi.json").json()
    assert doc["components"]["securitySchemes"]["bearer"] == {
        "type": "http",
        "scheme": "bearer",
        "description": doc["components"]["securitySchemes"]["bearer"]["description"],
    }
    assert "HTTPValidationError" not in doc["components"]["schemas"]
    operations = [(m, p, op) for p, item in doc["paths"].items() for m, op in item.items()]
    assert len(operations) >= 30
    for method, path, op in operations:
        assert ((method, path) in OPEN) == ("security" not in op), (method, path)
        for status in ("400", "401", "403", "404", "409", "422"):
            schema = op["responses"][status]["content"]["application/json"]["schema"]
            assert schema == {"$ref": "#/components/schemas/Error"}, (method, path, status)
    log = doc["paths"]["/api/tables/{table_id}/log"]["get"]["responses"]["200"]["content"]
    assert set(log) == {"application/jsonl"}
    report = doc["paths"]["/api/reports/tables"]["get"]["responses"]["200"]["content"]
    assert set(report) == {"application/json", "text/csv"}
    assert "/ws/tables/{table_id}" in doc["info"]["description"]
    assert doc["x-websockets"]["/ws/tables/{table_id}"]["messages"] == {
        "$ref": "#/components/schemas/StatePush"
    }


def test_every_documented_answer_is_what_the_server_says(api: Api) -> None:
    """A live Black Jack round (a back-bet request, a card, a decision, the round's end) and the
    inspector's reads: each answer valid against its documented schema; refusals against Error."""
    doc = api.client.get("/openapi.json").json()
    checked: set[tuple[str, str, int]] = set()

    def call(who: str | None, method: str, path: str, template: str, **kw: Any) -> Any:
        r = api.as_(who, method, path, **kw) if who else api.client.request(method, path, **kw)
        schema = _documented(doc, method.lower(), template, r.status_code)
        assert schema.get("properties") or schema.get("type"), (method, template, r.status_code, schema)
        jsonschema.validate(r.json(), schema)
        checked.add((method, template, r.status_code))
        return r.json()

    call(None, "GET", "/api/health", "/api/health")
    call(None, "POST", "/api/login", "/api/login", json={"username": "admin", "password": "wrong"})
    api.user("ana", "player")
    api.user("dora", "dealer")
    api.user("ivan", "inspector")
    call(
        "admin",
        "POST",
        "/api/users",
        "/api/users",
        json={"username": "luis", "password": "pw-123456", "role": "player"},
    )
    call(
        "admin",
        "POST",
        "/api/cashier/buy-in",
        "/api/cashier/buy-in",
        json={"player": "ana", "amount": 50_000},
    )
    call(
        "admin", "POST", "/api/cashier/cash-out", "/api/cashier/cash-out", json={"player": "ana", "amount": 1}
    )
    call("ana", "GET", "/api/me", "/api/me")
    body = {"game": "blackjack", "name": "T", "mode": "live", "rules": {}}
    table = call("admin", "POST", "/api/tables", "/api/tables", json=body)["id"]
    call("admin", "POST", "/api/tables", "/api/tables", json={**body, "rules": {"decks": 2}})  # 422
    call("ana", "GET", "/api/tables", "/api/tables")
    one = "/api/tables/{table_id}"
    call("ana", "GET", f"/api/tables/{table}", one)
    call("ana", "GET", f"/api/tables/{table}/state", one + "/state")
    for seat in range(1, 8):
        api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": seat})
    bet = {"seat": 1, "spot": "main", "amount": 1000}
    call("ana", "POST", f"/api/tables/{table}/bets", one + "/bets", json=bet)
    api.login("luis", "pw-123456")
    api.ok("admin", "POST", "/api/cashier/buy-in", json={"player": "luis", "amount": 5_000})
    call(
        "luis", "POST", f"/api/tables/{table}/bets", one + "/bets", json={**bet, "amount": 500}
    )  # 202: waits
    call("ana", "POST", f"/api/tables/{table}/actions", one + "/actions", json={"seat": 1, "action": "stand"})
    call("ana", "POST", f"/api/tables/{table}/cards", one + "/cards", json={"card": "As"})  # 403
    call("dora", "POST", f"/api/tables/{table}/procedures", one + "/procedures", json={"type": "shuffle"})
    call("dora", "POST", f"/api/tables/{table}/deal", one + "/deal")
    for card in ("9h", "7c", "9c", "6d"):  # box 1, the dealer's first, box 1, the hole card
        call("dora", "POST", f"/api/tables/{table}/cards", one + "/cards", json={"card": card})
    while (p := api.state("ana", table)["pending"]) is not None:
        if p["kind"] == "card":
            call("dora", "POST", f"/api/tables/{table}/cards", one + "/cards", json={"card": "Ts"})
        else:
            action = "stand" if "stand" in p["legal"] else "decline"
            call(
                "ana",
                "POST",
                f"/api/tables/{table}/actions",
                one + "/actions",
                json={"seat": 1, "action": action},
            )
    call("ivan", "GET", f"/api/tables/{table}/rounds", one + "/rounds")
    call("ivan", "GET", f"/api/tables/{table}/rounds/1", one + "/rounds/{n}")
    call("ivan", "GET", f"/api/tables/{table}/rounds/9", one + "/rounds/{n}")  # 404
    call("ivan", "GET", f"/api/tables/{table}/verify", one + "/verify")
    call("ivan", "GET", "/api/reports/tables", "/api/reports/tables")
    call(None, "GET", "/api/me", "/api/me")  # 401
    r = api.as_("ivan", "GET", f"/api/tables/{table}/log")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/jsonl")
    r = api.as_("ivan", "GET", "/api/reports/tables?format=csv")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    r = api.as_("ivan", "PUT", f"/api/tables/{table}/state")  # a method the path does not take
    assert r.status_code == 405 and "GET" in r.headers["allow"]
    jsonschema.validate(r.json(), _resolved({"$ref": "#/components/schemas/Error"}, doc))
    played = api.table("blackjack", "live")  # a round played whole, to claim about
    api.ok("ana", "POST", f"/api/tables/{played}/seats", json={"seat": 1})
    api.ok("ana", "POST", f"/api/tables/{played}/bets", json={"seat": 1, "spot": "main", "amount": 100})
    live_deal(api, "dora", played, ["Ts", "9h", "9c", "7d"])
    play_out(api, played, {1: "ana"}, "dora", iter(["Ts"] * 5))
    claim = {"table": played, "round": 1, "text": "the third card"}
    filed = call("ana", "POST", "/api/claims", "/api/claims", json=claim)
    assert "id" in filed, filed
    call("ivan", "GET", "/api/claims", "/api/claims")
    call("admin", "GET", f"/api/claims/{filed['id']}", "/api/claims/{claim_id}")
    resolution = {"outcome": "rejected", "text": "the card was as recorded"}
    path = "/api/claims/{claim_id}/resolution"
    call("ivan", "POST", f"/api/claims/{filed['id']}/resolution", path, json=resolution)
    call("ana", "GET", "/api/claims", "/api/claims")
    call("admin", "POST", "/api/logout", "/api/logout")
    statuses = {status for _, _, status in checked}
    assert {200, 201, 202, 401, 403, 404, 422} <= statuses, checked
