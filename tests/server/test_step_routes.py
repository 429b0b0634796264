"""The table steps' routes (`api.StepRoute`, first in the app's one routing table) take a well-formed
decision, bet, deal or card themselves, with the same body model, session check and handler as FastAPI's
endpoint; anything they do not take whole — a malformed body, a body that is not JSON — goes to the
endpoint's own FastAPI route and gets FastAPI's own answer; an id out of range or another method is
never theirs. Every request, theirs included, passes the same middleware (the guard's headers)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.routing import APIRoute

from tapete.server import api as api_module
from tests.server.conftest import Api


@pytest.fixture
def lane_calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many step requests the step routes answered themselves, and how many they handed to FastAPI."""
    seen = {"lane": 0, "fastapi": 0}
    handle = api_module.StepRoute.handle

    class Counted:
        """The endpoint's FastAPI route, counting what is handed to it."""

        def __init__(self, route: APIRoute, handed: list[bool]) -> None:
            self.route, self.handed = route, handed

        def matches(self, scope: Any) -> Any:
            return self.route.matches(scope)

        async def handle(self, scope: Any, receive: Any, send: Any) -> None:
            self.handed.append(True)
            await self.route.handle(scope, receive, send)

    async def counted(self: Any, scope: Any, receive: Any, send: Any) -> None:
        inner, handed = self.endpoint, []
        self.endpoint = Counted(inner, handed)
        try:
            await handle(self, scope, receive, send)
        finally:
            self.endpoint = inner
        seen["fastapi" if handed else "lane"] += 1

    monkeypatch.setattr(api_module.StepRoute, "handle", counted)
    return seen


def _seated(api: Api) -> int:
    api.user("ana", "player", chips=10_000)
    api.user("dora", "dealer")
    table = api.table("blackjack", turn_seconds=None)
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    return table


def test_a_well_formed_bet_deal_and_decision_take_the_step_route(
    api: Api, lane_calls: dict[str, int]
) -> None:
    table = _seated(api)
    sent = 0
    while True:  # a Black Jack dealt to the box ends the round at the deal: another round
        bet = {"seat": 1, "spot": "main", "amount": 500}
        assert api.ok("ana", "POST", f"/api/tables/{table}/bets", json=bet)["status"] == "placed"
        state = api.ok("dora", "POST", f"/api/tables/{table}/deal")
        sent += 2
        if state["phase"] == "playing":
            break
    assert state["pending"]["seat"] == 1
    legal = state["pending"]["legal"]
    answer = api.ok(
        "ana",
        "POST",
        f"/api/tables/{table}/actions",
        json={"seat": 1, "action": "decline" if "decline" in legal else "stand"},
    )
    assert answer["seq"] == state["seq"] + 1
    assert lane_calls["lane"] == sent + 1 and lane_calls["fastapi"] == 0


def test_what_the_step_route_does_not_take_whole_gets_fastapi_s_answer(
    api: Api, lane_calls: dict[str, int]
) -> None:
    table = _seated(api)
    broken = api.as_(
        "ana",
        "POST",
        f"/api/tables/{table}/bets",
        content=b'{"seat": 1, "spot": "main", "amount": ',
        headers={"Content-Type": "application/json"},
    )
    wrong = api.as_(
        "ana", "POST", f"/api/tables/{table}/bets", json={"seat": "1", "spot": "main", "amount": 5}
    )
    fraction = api.as_(
        "ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 5.5}
    )
    for r in (broken, wrong, fraction):
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request", r.text
    assert "seat" in wrong.json()["error"]["message"]
    assert lane_calls["fastapi"] == 3  # each handed over whole, its body replayed to FastAPI
    out_of_range = api.as_(
        "ana", "POST", f"/api/tables/{2**31}/bets", json={"seat": 1, "spot": "main", "amount": 5}
    )
    assert out_of_range.status_code == 400  # FastAPI's path validation: not a step route's request at all
    assert lane_calls["lane"] == 0


def test_the_step_route_refuses_as_the_endpoint_does(api: Api, lane_calls: dict[str, int]) -> None:
    table = _seated(api)
    body = {"seat": 1, "spot": "main", "amount": 500}
    no_token = api.client.post(f"/api/tables/{table}/bets", json=body)
    assert no_token.status_code == 401 and no_token.json()["error"]["code"] == "unauthorized"
    dealer = api.as_(
        "dora", "POST", f"/api/tables/{table}/bets", json=body, headers={"Accept-Language": "en"}
    )
    assert dealer.status_code == 403 and dealer.json()["error"]["code"] == "forbidden"
    assert "player" in dealer.json()["error"]["message"]
    player_deals = api.as_("ana", "POST", f"/api/tables/{table}/deal")
    assert player_deals.status_code == 403
    no_table = api.as_("ana", "POST", "/api/tables/999/bets", json=body)
    assert no_table.status_code == 404 and no_table.json()["error"]["code"] == "not_found"
    assert lane_calls["lane"] == 4 and lane_calls["fastapi"] == 0


def test_one_routing_table_every_request_through_the_same_middleware(api: Api) -> None:
    table = _seated(api)
    app = api.client.app
    steps = [r for r in app.router.routes if isinstance(r, api_module.StepRoute)]
    assert [r.step for r in steps] == ["bets", "deal", "actions", "cards"]
    assert app.router.routes[: len(steps)] == steps  # tried first, in the app's own router
    for route in steps:  # each documented by (and handing malformed bodies to) its FastAPI endpoint
        assert isinstance(route.endpoint, APIRoute) and route.endpoint.path.endswith(route.step)
    paths = app.openapi()["paths"]
    assert all("post" in paths[f"/api/tables/{{table_id}}/{r.step}"] for r in steps)
    assert app.user_middleware == []  # nothing routes around the router: the guard wraps the whole app
    bet = api.as_("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 500})
    listing = api.as_("ana", "GET", "/api/tables")
    for answer in (bet, listing):
        assert answer.status_code == 200
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["cache-control"] == "no-store"
        assert "script-src 'self'" in answer.headers["content-security-policy"]


def test_every_endpoint_is_a_domain_modules_own_route(api: Api) -> None:
    """Each endpoint is declared once, at import, on its domain module's router (people_api, tables_api,
    ...), not built per casino in a closure: every route of the app but the documents' pages is one of
    those modules' routes, and the table steps' lanes are tables_api's own endpoints' handlers."""
    from tapete.server.cashier import cashier_api
    from tapete.server.catalogs import words_api
    from tapete.server.inspection import inspector_api, integrity_api
    from tapete.server.live import push_api
    from tapete.server.people import people_api, protection_api
    from tapete.server.play import betting, control_api, shoeboard, tables_api

    modules = (betting, cashier_api, control_api, inspector_api, integrity_api, people_api)
    modules += (protection_api, push_api, shoeboard, tables_api, words_api)
    routers = [m.router for m in modules] + [api_module.server_router]
    declared = {
        (route.path, method.lower())
        for router in routers
        for route in router.routes
        if isinstance(route, APIRoute)
        for method in route.methods or ()
    }
    documented = {(path, method) for path, ops in api.client.app.openapi()["paths"].items() for method in ops}
    assert len(documented) >= 50 and documented == declared
    assert set(tables_api.lanes) == {"bets", "deal", "actions", "cards"}
    assert tables_api.lanes["actions"].handler is tables_api.action_step
