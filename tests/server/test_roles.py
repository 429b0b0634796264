"""Role boundaries (server.md, Roles and Endpoints): every endpoint the server serves, asked by every
role, by nobody, with a made-up token and with a token that was logged out. One table drives it: each
operation of the served OpenAPI document with the roles that may call it. Every refusal is checked for
its status and code, and for changing nothing (every row of the casino, and — for the inspector — the
tables' states, the balances and the chains as the API reports them)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest
import sqlalchemy as sa

from tests.server.conftest import Api
from tests.server.support import changed, live_deal, refused, snapshot, tables_in, world

pytestmark = pytest.mark.usefixtures("fast_hashing")

ANY = frozenset({"admin", "cashier", "dealer", "inspector", "player"})
#: the user who speaks for each role (ana, a player, holds every box the world below has)
SPEAKER = {"admin": "admin", "cashier": "cash", "dealer": "dora", "inspector": "ivan", "player": "ana"}


@dataclass(frozen=True)
class Endpoint:
    """One operation, the body that would be accepted from a caller allowed to make it (in the world
    `build_world` sets up), and the roles server.md gives it."""

    method: str
    path: str
    allowed: frozenset[str]
    body: dict[str, Any] | None = None
    mutates: bool = True

    @property
    def label(self) -> str:
        return f"{self.method} {self.path}"


def endpoints(w: dict[str, int]) -> list[Endpoint]:
    """The table of server.md's endpoints (and those the server adds beside them) with their roles, in an
    order where each allowed call still finds the world it needs."""
    bet, card, dec, proc, back = w["bet"], w["card"], w["dec"], w["proc"], w["back"]
    return [
        Endpoint("GET", "/api/me", ANY, mutates=False),
        Endpoint("GET", "/api/me/rounds", frozenset({"player"}), mutates=False),
        Endpoint("GET", "/api/users", frozenset({"admin", "inspector"}), mutates=False),
        Endpoint(
            "POST",
            "/api/users",
            frozenset({"admin"}),
            {"username": "zed", "password": "password-123", "role": "player"},
        ),
        Endpoint("PATCH", "/api/users/spare", frozenset({"admin"}), {"role": "dealer"}),
        Endpoint(
            "POST", "/api/cashier/buy-in", frozenset({"cashier", "admin"}), {"player": "ana", "amount": 100}
        ),
        Endpoint(
            "POST", "/api/cashier/cash-out", frozenset({"cashier", "admin"}), {"player": "ana", "amount": 100}
        ),
        Endpoint(
            "GET", "/api/cashier/players/ana", frozenset({"cashier", "admin", "inspector"}), mutates=False
        ),
        Endpoint("GET", "/api/players", frozenset({"cashier", "admin", "inspector"}), mutates=False),
        Endpoint("GET", "/api/tables", ANY, mutates=False),
        Endpoint("GET", "/api/games", ANY, mutates=False),
        Endpoint("GET", f"/api/tables/{w['bet']}/house-rules", ANY, mutates=False),
        Endpoint(
            "POST",
            "/api/tables",
            frozenset({"admin"}),
            {"game": "blackjack", "name": "new", "mode": "virtual", "rules": {}},
        ),
        Endpoint("GET", f"/api/tables/{bet}", ANY, mutates=False),
        Endpoint("PATCH", f"/api/tables/{proc}", frozenset({"admin"}), {"status": "open", "reason": "check"}),
        Endpoint("GET", f"/api/tables/{bet}/state", ANY, mutates=False),
        Endpoint("POST", f"/api/tables/{bet}/seats", frozenset({"player"}), {"seat": 2}),
        Endpoint(
            "POST",
            f"/api/tables/{bet}/bets",
            frozenset({"player"}),
            {"seat": 1, "spot": "main", "amount": 500},
        ),
        Endpoint("POST", f"/api/tables/{back}/requests/{w['rid']}", frozenset({"player"}), {"accept": True}),
        Endpoint(
            "POST", f"/api/tables/{dec}/actions", frozenset({"player"}), {"seat": 1, "action": "decline"}
        ),
        Endpoint("POST", f"/api/tables/{card}/cards", frozenset({"dealer"}), {"card": "9c"}),
        Endpoint(
            "POST",
            f"/api/tables/{card}/corrections",
            frozenset({"dealer", "admin"}),
            {"card": "5c", "reason": "typo"},
        ),
        Endpoint("POST", f"/api/tables/{proc}/procedures", frozenset({"dealer"}), {"type": "shuffle"}),
        Endpoint(
            "POST",
            f"/api/tables/{proc}/deck-change-requests",
            frozenset({"player", "inspector"}),
            {"reason": "a bent card"},
        ),
        Endpoint(
            "GET", "/api/deck-change-requests", frozenset({"inspector", "admin", "dealer"}), mutates=False
        ),
        Endpoint(
            "POST", "/api/claims", frozenset({"player"}), {"table": card, "round": 1, "text": "a claim"}
        ),
        Endpoint("GET", "/api/claims", frozenset({"inspector", "admin", "player"}), mutates=False),
        Endpoint("GET", "/api/claims/1", frozenset({"inspector", "admin", "player"}), mutates=False),
        Endpoint(
            "POST",
            "/api/claims/1/resolution",
            frozenset({"inspector"}),
            {"outcome": "rejected", "text": "no"},
        ),
        Endpoint("POST", f"/api/tables/{card}/void/confirm", frozenset({"dealer", "admin"})),
        Endpoint(
            "POST", f"/api/tables/{card}/void", frozenset({"dealer", "admin"}), {"reason": "a broken shoe"}
        ),
        Endpoint("GET", f"/api/tables/{card}/rounds", frozenset({"inspector", "admin"}), mutates=False),
        Endpoint("GET", f"/api/tables/{card}/rounds/1", frozenset({"inspector", "admin"}), mutates=False),
        Endpoint("GET", f"/api/tables/{card}/verify", frozenset({"inspector", "admin"}), mutates=False),
        Endpoint("GET", f"/api/tables/{card}/log", frozenset({"inspector", "admin"}), mutates=False),
        Endpoint("GET", "/api/reports/tables", frozenset({"inspector", "admin"}), mutates=False),
        Endpoint("GET", "/api/events", frozenset({"inspector", "admin"}), mutates=False),
        Endpoint("GET", "/api/integrity", frozenset({"inspector", "admin"}), mutates=False),
        Endpoint("GET", "/api/accounts/frozen", frozenset({"admin", "inspector", "cashier"}), mutates=False),
        Endpoint(
            "POST", "/api/accounts/reopen", frozenset({"admin"}), {"account": "ana", "reason": "checked"}
        ),
        Endpoint("POST", f"/api/tables/{bet}/deal", frozenset({"dealer", "admin"})),
        Endpoint("GET", f"/api/tables/{bet}/scoreboard", ANY, mutates=False),
        Endpoint("DELETE", f"/api/tables/{proc}/bets/last", frozenset({"player"})),
        Endpoint("DELETE", f"/api/tables/{proc}/bets", frozenset({"player"})),
        Endpoint("DELETE", f"/api/tables/{proc}/seats/1", frozenset({"player"})),
        # player protection (server.md): a limit lowered; a self-exclusion's length refused after his role
        # is checked (a real one would end ana's sessions); a register holding nobody of this world
        Endpoint("PUT", "/api/me/limits", frozenset({"player"}), {"reality_check_minutes": 30}),
        Endpoint("POST", "/api/me/exclusion", frozenset({"player"}), {"days": 0}),
        Endpoint("GET", "/api/protection/register", frozenset({"admin", "inspector"}), mutates=False),
        Endpoint("PUT", "/api/protection/register", frozenset({"admin"})),  # an empty register
        Endpoint(
            "GET", "/api/protection/players/ana", frozenset({"cashier", "admin", "inspector"}), mutates=False
        ),
        Endpoint(
            "PATCH",
            "/api/users/luis",
            frozenset({"cashier", "admin"}),
            {"document": "12345679", "birth_date": "1990-01-01"},
        ),
        Endpoint("POST", "/api/logout", ANY),
    ]


#: operations of the OpenAPI document that need no token
OPEN = {"GET /api/health", "POST /api/login", "GET /api/i18n/{lang}"}  # the login page speaks before a login


def build_world(api: Api) -> dict[str, int]:
    """Users of every role, and tables where each guarded call would succeed for its own role:
    `bet` (virtual, ana's valid bet waits for the deal), `card` (live, a round waits for the dealer's
    next card, a void asked by the admin), `dec` (live, ana's surrender offer waits), `proc` (live,
    between rounds, ana seated with a bet), `back` (virtual, every box ana's, luis's back-bet request
    waits for her)."""
    api.user("ana", "player", chips=100_000)
    api.user("luis", "player", chips=100_000)
    api.user("cash", "cashier")
    api.user("dora", "dealer")
    api.user("ivan", "inspector")
    api.user("spare", "player")
    w = {
        "bet": api.table("blackjack", turn_seconds=None),
        "card": api.table("blackjack", "live"),
        "dec": api.table("blackjack", "live"),
        "proc": api.table("blackjack", "live"),
        "back": api.table("blackjack", turn_seconds=None),
    }
    for name in ("bet", "card", "dec", "proc"):
        api.ok("ana", "POST", f"/api/tables/{w[name]}/seats", json={"seat": 1})
        api.ok("ana", "POST", f"/api/tables/{w[name]}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
    live_deal(api, "dora", w["card"], ["6h"])
    api.ok("admin", "POST", f"/api/tables/{w['card']}/void", json={"reason": "a broken shoe"})
    live_deal(api, "dora", w["dec"], ["6h", "9c", "5d", "7s"])
    for seat in range(1, 8):
        api.ok("ana", "POST", f"/api/tables/{w['back']}/seats", json={"seat": seat})
    r = api.as_(
        "luis", "POST", f"/api/tables/{w['back']}/bets", json={"seat": 1, "spot": "main", "amount": 500}
    )
    assert r.status_code == 202, r.text
    w["rid"] = r.json()["request"]
    return w


def test_the_role_table_covers_every_served_operation(api: Api) -> None:
    """Nothing is missed: every operation of /openapi.json (but the two that need no token; the
    WebSocket is not in it) is in the table, and everything in the table is served."""
    doc = api.client.get("/openapi.json").json()
    served = {
        (method.upper(), re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", path) + "$"), path)
        for path, ops in doc["paths"].items()
        for method in ops
    }
    w = {"bet": 1, "card": 2, "dec": 3, "proc": 4, "back": 5, "rid": 6}
    covered = set()
    for e in endpoints(w):
        matches = [path for method, pattern, path in served if method == e.method and pattern.match(e.path)]
        assert len(matches) == 1, (e.label, matches)
        covered.add(f"{e.method} {matches[0]}")
    assert {f"{m} {p}" for m, _, p in served} - OPEN == covered


def _call(api: Api, who: str | None, e: Endpoint, token: str | None = None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    if who is not None:
        return api.as_(who, e.method, e.path, json=e.body)
    return api.client.request(e.method, e.path, json=e.body, headers=headers)


def test_every_role_does_only_its_own(api: Api, sql: sa.Engine) -> None:
    """Every (endpoint, role) pair: a role the table does not name is refused with 403 forbidden and
    nothing changes; then every named role is let through (no 401/403), in the table's order."""
    w = build_world(api)
    engine = sql
    problems: list[str] = []
    forbidden_count = 0
    for e in endpoints(w):
        for role in sorted(ANY - e.allowed):
            before = snapshot(engine)
            seen = world(api, tables_in(e.path)) if role == "inspector" and e.mutates else None
            r = _call(api, SPEAKER[role], e)
            forbidden_count += 1
            if r.status_code != 403 or r.json().get("error", {}).get("code") != "forbidden":
                problems.append(f"{role} {e.label}: {r.status_code} {r.text[:160]}")
                continue
            refused(r, 403, "forbidden")
            if changed(before, snapshot(engine)):
                problems.append(f"{role} {e.label}: refused but changed {changed(before, snapshot(engine))}")
            if seen is not None and world(api, tables_in(e.path)) != seen:
                problems.append(f"{role} {e.label}: refused but the API shows a change")
    assert not problems, "\n".join(problems)
    assert forbidden_count > 60
    for e in endpoints(w):
        for role in ("dealer", "admin", "cashier", "inspector", "player"):
            if role not in e.allowed:
                continue
            r = _call(api, SPEAKER[role], e)
            if r.status_code in (401, 403):
                problems.append(f"{role} {e.label}: {r.status_code} {r.text[:160]}")
            elif not e.mutates and r.status_code != 200:
                problems.append(f"{role} {e.label}: a read answered {r.status_code} {r.text[:160]}")
    assert not problems, "\n".join(problems)


def test_no_token_a_made_up_token_and_an_ended_token_are_401(api: Api, sql: sa.Engine) -> None:
    """Every endpoint but health and login: 401 unauthorized without a token, with a token nobody was
    given, and with a token that was logged out; nothing changes."""
    w = build_world(api)
    engine = sql
    ended = api.login("luis", "password-123")
    api.ok("luis", "POST", "/api/logout")
    api.login("luis", "password-123")
    before = snapshot(engine)
    problems = []
    for e in endpoints(w):
        for token in (None, "not-a-token", ended, ""):
            r = _call(api, None, e, token)
            if r.status_code != 401 or r.json()["error"]["code"] != "unauthorized":
                problems.append(f"{token!r} {e.label}: {r.status_code} {r.text[:120]}")
            else:
                refused(r, 401, "unauthorized")
    assert not problems, "\n".join(problems)
    assert not changed(before, snapshot(engine))
    assert api.client.get("/api/health").status_code == 200


def test_a_player_cannot_act_for_another_box_nor_post_cards(api: Api, sql: sa.Engine) -> None:
    """luis (a player) deciding on ana's box, answering her back-bet request or leaving her seat, and any
    player dealing, posting a card or a procedure: 403, and nothing changes; ana's own decision then
    goes through."""
    w = build_world(api)
    engine = sql
    attempts = [
        ("luis", "POST", f"/api/tables/{w['dec']}/actions", {"seat": 1, "action": "decline"}),
        ("luis", "POST", f"/api/tables/{w['dec']}/actions", {"seat": 1, "action": "surrender"}),
        ("luis", "POST", f"/api/tables/{w['back']}/requests/{w['rid']}", {"accept": True}),
        ("luis", "DELETE", f"/api/tables/{w['proc']}/seats/1", None),
    ]
    for who in ("ana", "luis"):
        attempts += [
            (who, "POST", f"/api/tables/{w['card']}/cards", {"card": "9c"}),
            (who, "POST", f"/api/tables/{w['proc']}/procedures", {"type": "shuffle"}),
            (who, "POST", f"/api/tables/{w['bet']}/deal", None),
        ]
    for who, method, path, body in attempts:
        before = snapshot(engine)
        refused(api.as_(who, method, path, json=body), 403, "forbidden")
        assert not changed(before, snapshot(engine)), (who, method, path)
    state = api.ok("ana", "POST", f"/api/tables/{w['dec']}/actions", json={"seat": 1, "action": "decline"})
    assert state["pending"]["decision"] == "play"


@pytest.mark.parametrize("lang", ["es", "en"])
def test_a_forbidden_call_is_said_in_the_callers_language(api: Api, lang: str) -> None:
    """The 403's message follows Accept-Language (Spanish without one)."""
    api.user("ana", "player")
    headers = {"Accept-Language": lang} if lang == "en" else {}
    error = refused(api.as_("ana", "GET", "/api/users", headers=headers), 403, "forbidden")
    assert error["key"] == "err.api.role"
    english = "cannot do this" in error["message"]
    assert english == (lang == "en"), error["message"]


def test_staff_are_refused_a_decision_whatever_the_phase(api: Api, sql: sa.Engine) -> None:
    """A decision is the box's holder's: staff get 403 forbidden between rounds too (the phase's 409 came
    first before), and nothing changes."""
    w = build_world(api)
    body = {"seat": 1, "action": "stand"}
    for who in ("admin", "dora", "ivan", "cash"):
        for table in (w["proc"], w["dec"]):
            before = snapshot(sql)
            r = api.as_(who, "POST", f"/api/tables/{table}/actions", json=body)
            refused(r, 403, "forbidden")
            assert not changed(before, snapshot(sql))
    r = api.as_("luis", "POST", f"/api/tables/{w['proc']}/actions", json=body)
    refused(r, 409, "conflict")  # a player between rounds: no round to decide in
