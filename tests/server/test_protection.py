"""Player protection through HTTP (server.md, "Player protection"; docs/protection.md), on SQLite and
PostgreSQL: the register of prohibited persons (Ley 29907) loaded whole and refusing at login, buy-in,
seat and bet; a player's own limits (lower at once, higher after 24 hours, the day Lima's); the
self-exclusion that ends his sessions and his open WebSocket; the identity and --require-identity; and
every refusal a significant event the inspector reads, its body in Spanish and English."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from starlette.websockets import WebSocketDisconnect

from tapete.server.people.protection import Protection, lima_day_start, parse_register
from tests.server.conftest import Api
from tests.server.support import changed, refused, serving, snapshot

pytestmark = pytest.mark.usefixtures("fast_hashing")

#: ana's DNI, on the register; carla's, enrolled while she plays; beto's, never on it
ANA, CARLA, BETO = "40000123", "40000456", "70000001"


def protection(api: Api) -> Protection:
    """The server's protection service (its clock is injected by the tests that need it)."""
    service: Protection = api.client.app.state.casino.protection  # type: ignore[attr-defined]
    return service


def register_csv(documents: list[str], total: int = 10_000) -> bytes:
    """A register of `total` lines, `documents` among them (the others made up, 8 digits each)."""
    lines = ["document,since"]
    lines += [f"{10_000_000 + i:08d},2026-0{1 + i % 9}-15" for i in range(total - len(documents))]
    for i, document in enumerate(documents):
        lines.insert(1 + (i + 1) * (total // (len(documents) + 1)), f"{document},2026-11-30")
    return ("\n".join(lines) + "\n").encode()


def player(api: Api, name: str, document: str | None = None, chips: int = 0) -> None:
    """A player with his identity (18 or older), logged in, with chips."""
    body: dict[str, Any] = {"username": name, "password": "password-123", "role": "player"}
    if document:
        body |= {"document": document, "birth_date": "1990-05-17"}
    api.ok("admin", "POST", "/api/users", json=body)
    api.login(name, "password-123")
    if chips:
        api.ok("admin", "POST", "/api/cashier/buy-in", json={"player": name, "amount": chips})


def events(api: Api, kind: str) -> list[dict[str, Any]]:
    """The significant events of one kind, as the inspector reads them."""
    return [e for e in api.ok("inspector", "GET", "/api/events?limit=1000")["events"] if e["kind"] == kind]


def rows(sql: sa.Engine) -> dict[str, Any]:
    """Every row a refusal leaves as it was (its own significant event aside, checked on its own)."""
    out = snapshot(sql)
    out.pop("significant_events")
    return out


def both_languages(api: Api, name: str, method: str, path: str, status: int, code: str, **kw: Any) -> Any:
    """The same refusal asked in Spanish and in English: the same code, key and params, each message
    in its language; the English body."""
    es = refused(api.as_(name, method, path, headers={"Accept-Language": "es"}, **kw), status, code)
    en = refused(api.as_(name, method, path, headers={"Accept-Language": "en"}, **kw), status, code)
    assert (es["key"], es["params"]) == (en["key"], en["params"])
    assert es["message"] != en["message"], (es, en)
    return es, en


def test_a_register_of_10000_lines_refuses_its_documents_at_login_buy_in_seat_and_bet(
    api: Api, sql: sa.Engine
) -> None:
    """The administrator loads a 10,000-line register in one request: ana, on it, no longer logs in
    and gets no chips; carla, enrolled while logged in and seated, is refused at her next seat and bet
    with nothing moved; beto plays on. Each refusal is a significant event, and the inspector reads the
    register's size and load time."""
    api.user("inspector", "inspector")
    player(api, "ana", ANA, chips=5_000)
    player(api, "carla", CARLA, chips=5_000)
    player(api, "beto", BETO, chips=5_000)
    table = api.table("blackjack", turn_seconds=None, betting_seconds=None)
    api.ok("carla", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    api.ok("beto", "POST", f"/api/tables/{table}/seats", json={"seat": 2})
    api.ok("carla", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 500})

    body = register_csv([ANA, CARLA])
    assert len(body.splitlines()) == 10_001
    started = time.monotonic()
    r = api.as_(
        "admin", "PUT", "/api/protection/register", content=body, headers={"Content-Type": "text/csv"}
    )
    took = time.monotonic() - started
    print(f"a register of 10,000 lines loaded in {took:.2f} s")
    assert r.status_code == 200, r.text
    assert r.json()["entries"] == 10_000 and r.json()["players_on_it"] == ["ana", "carla"]
    assert took < 20, took
    seen = api.ok("inspector", "GET", "/api/protection/register")
    assert seen["entries"] == 10_000 and seen["loaded_at"].endswith("Z")
    refused(api.as_("cashier-less", "GET", "/api/protection/register"), 401, "unauthorized")
    refused(api.as_("beto", "GET", "/api/protection/register"), 403, "forbidden")

    # at login: the right password, and still no session
    es, en = both_languages(
        api,
        "nobody",
        "POST",
        "/api/login",
        403,
        "forbidden",
        json={"username": "ana", "password": "password-123"},
    )
    assert (
        es["key"] == "err.protection.prohibited"
        and "Registro" in es["message"]
        and "register" in en["message"]
    )
    # at buy-in: no chips for her, nothing moved
    before = rows(sql)
    error = refused(
        api.as_("admin", "POST", "/api/cashier/buy-in", json={"player": "ana", "amount": 1_000}),
        403,
        "forbidden",
    )
    assert error["key"] == "err.protection.prohibited"
    assert not changed(before, rows(sql))
    api.ok(
        "admin", "POST", "/api/cashier/cash-out", json={"player": "ana", "amount": 5_000}
    )  # her money back

    # carla logged in before her enrolment: her next bet and seat are refused, nothing moves
    before = rows(sql)
    bet = {"seat": 1, "spot": "main", "amount": 300}
    error = refused(api.as_("carla", "POST", f"/api/tables/{table}/bets", json=bet), 403, "forbidden")
    assert error["key"] == "err.protection.prohibited"
    key = {"Idempotency-Key": "carla-bet-1"}
    refused(api.as_("carla", "POST", f"/api/tables/{table}/bets", json=bet, headers=key), 403, "forbidden")
    refused(api.as_("carla", "POST", f"/api/tables/{table}/seats", json={"seat": 3}), 403, "forbidden")
    assert not changed(before, rows(sql))
    # beto is not on it
    api.ok("beto", "POST", f"/api/tables/{table}/bets", json={"seat": 2, "spot": "main", "amount": 300})

    refusals = events(api, "protection_refused")
    where = sorted((e["details"]["player"], e["details"]["where"]) for e in refusals)
    assert where == [
        ("ana", "buy_in"),
        ("ana", "login"),
        ("ana", "login"),
        ("carla", "bet"),
        ("carla", "bet"),
        ("carla", "seat"),
    ], where
    assert all(e["details"]["reason"] == "prohibited" for e in refusals)
    assert events(api, "register_loaded")[0]["details"]["entries"] == 10_000

    # replaced whole: a register without ana lets her in again
    api.as_("admin", "PUT", "/api/protection/register", content=register_csv([CARLA], 50))
    api.login("ana", "password-123")
    assert api.ok("inspector", "GET", "/api/protection/register")["entries"] == 50


def test_a_register_line_that_does_not_read_loads_nothing(api: Api) -> None:
    """A bad line refuses the whole load (bad_request naming it), and the register in force stays."""
    api.as_("admin", "PUT", "/api/protection/register", content=register_csv([ANA], 100))
    bad = register_csv([], 20) + b"12-34,2026-01-01\n"
    error = refused(api.as_("admin", "PUT", "/api/protection/register", content=bad), 400, "bad_request")
    assert error["key"] == "err.protection.register_line" and error["params"]["line"] == 22
    assert api.ok("admin", "GET", "/api/protection/register")["entries"] == 100
    assert parse_register(b"\xef\xbb\xbfdocument,since\n12345678,\n12345678,2026-01-01\n") == [
        ("12345678", None)
    ]


def test_a_registers_since_may_be_a_date_a_time_or_empty() -> None:
    """`since` is kept as a date: an ISO date, or a date and time (its date); empty is none."""
    assert parse_register(b"12345678,2026-01-01T10:00:00Z\nX1234567,\n") == [
        ("12345678", "2026-01-01"),
        ("X1234567", None),
    ]


def _play_round(api: Api, table: int, holder: str) -> None:
    """Deal (the administrator) and stand on every decision until the round ends."""
    state = api.ok("admin", "POST", f"/api/tables/{table}/deal")
    for _ in range(50):
        pending = state["pending"]
        if pending is None:
            return
        action = "stand" if "stand" in pending["legal"] else "decline"
        body = {"seat": pending["seat"], "action": action, "hand": pending["hand"]}
        state = api.ok(holder, "POST", f"/api/tables/{table}/actions", json=body)
    raise AssertionError("the round did not end")


def test_a_daily_loss_limit_refuses_the_bet_that_would_pass_it_and_nothing_moves(
    api: Api, sql: sa.Engine
) -> None:
    """ana sets a loss limit of 1,000 a day: her bets count as lost whole until settled, so 600 then
    500 is refused (limit_reached, naming the limit, nothing moved) and 400 taken; after the round, the
    bet that would take her day's net loss past 1,000 is refused and the one that reaches it is taken."""
    api.user("inspector", "inspector")
    player(api, "ana", ANA, chips=10_000)
    table = api.table("blackjack", turn_seconds=None, betting_seconds=None)
    limits = api.ok("ana", "PUT", "/api/me/limits", json={"loss_per_day": 1_000})
    assert limits["loss_per_day"] == 1_000 and limits["pending"] == {}
    for seat in (1, 2):
        api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": seat})
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 600})

    before = rows(sql)
    es, en = both_languages(
        api,
        "ana",
        "POST",
        f"/api/tables/{table}/bets",
        403,
        "limit_reached",
        json={"seat": 2, "spot": "main", "amount": 500},
    )
    assert es["key"] == "err.protection.loss_per_day"
    assert es["params"] == {
        "player": "ana",
        "limit": "loss_per_day",
        "value": 1_000,
        "used": 600,
        "amount": 500,
    }
    assert "límite" in es["message"] and "limit" in en["message"]
    assert not changed(before, rows(sql))
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 2, "spot": "main", "amount": 400})

    _play_round(api, table, "ana")
    me = api.ok("ana", "GET", "/api/me")
    assert me["session"]["wagered"] >= 1_000  # both boxes' stakes (a double or a split adds to them)
    lost = -me["session"]["net"]
    if lost < 1_000:  # a round lost whole leaves nothing more to bet today
        before = rows(sql)
        over = {"seat": 1, "spot": "main", "amount": max(1_000 - lost + 1, 1)}
        error = refused(api.as_("ana", "POST", f"/api/tables/{table}/bets", json=over), 403, "limit_reached")
        assert error["params"]["used"] == max(lost, 0)
        assert not changed(before, rows(sql))
        if 1_000 - lost >= 100:  # the table's minimum
            api.ok("ana", "POST", f"/api/tables/{table}/bets", json={**over, "amount": 1_000 - lost})
    else:
        refused(
            api.as_(
                "ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 100}
            ),
            403,
            "limit_reached",
        )
    reached = events(api, "limit_reached")
    assert reached and all(e["details"]["limit"] == "loss_per_day" for e in reached)
    assert events(api, "limits_changed")[0]["details"]["changes"]["loss_per_day"]["value"] == 1_000


def test_a_daily_wager_limit_counts_what_was_staked_today(api: Api, sql: sa.Engine) -> None:
    """A wager limit of 1,000: 1,000 staked in a round leaves nothing more to wager today, whatever the
    round paid."""
    player(api, "ana", ANA, chips=10_000)
    table = api.table("blackjack", turn_seconds=None, betting_seconds=None)
    api.ok("ana", "PUT", "/api/me/limits", json={"wager_per_day": 1_000})
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1_000})
    _play_round(api, table, "ana")
    error = refused(
        api.as_("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 100}),
        403,
        "limit_reached",
    )
    assert error["key"] == "err.protection.wager_per_day" and error["params"]["used"] >= 1_000


def test_a_raised_limit_waits_24_hours_and_a_lowered_one_is_at_once(api: Api) -> None:
    """With the server's clock injected: a loss limit raised from 1,000 to 5,000 stays 1,000 (the raise
    shown as pending, from 24 hours later) until then; a bet of 2,000 is refused a minute before and
    taken after; lowering takes effect at once and drops the raise waiting."""
    player(api, "ana", ANA, chips=10_000)
    table = api.table("blackjack", turn_seconds=None, betting_seconds=None)
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    start = datetime.now(UTC)
    now = [start]
    protection(api).clock = lambda: now[0]

    api.ok("ana", "PUT", "/api/me/limits", json={"loss_per_day": 1_000, "reality_check_minutes": 30})
    raised = api.ok("ana", "PUT", "/api/me/limits", json={"loss_per_day": 5_000, "wager_per_day": 90_000})
    assert raised["loss_per_day"] == 1_000 and raised["wager_per_day"] == 90_000  # a new limit is lower
    assert raised["reality_check_minutes"] == 30
    wait = raised["pending"]["loss_per_day"]
    assert wait["value"] == 5_000
    assert datetime.fromisoformat(wait["from"].replace("Z", "+00:00")) == start + timedelta(hours=24)
    assert api.ok("ana", "GET", "/api/me")["limits"]["pending"] == raised["pending"]

    bet = {"seat": 1, "spot": "main", "amount": 2_000}
    now[0] = start + timedelta(hours=23, minutes=59)
    refused(api.as_("ana", "POST", f"/api/tables/{table}/bets", json=bet), 403, "limit_reached")
    assert api.ok("ana", "GET", "/api/me")["limits"]["loss_per_day"] == 1_000
    now[0] = start + timedelta(hours=24, seconds=1)
    me = api.ok("ana", "GET", "/api/me")["limits"]
    assert me["loss_per_day"] == 5_000 and me["pending"] == {}
    api.ok("ana", "DELETE", f"/api/tables/{table}/bets")
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json=bet)

    # removing a limit is a raise; lowering drops it and is at once
    removed = api.ok("ana", "PUT", "/api/me/limits", json={"loss_per_day": None})
    assert removed["loss_per_day"] == 5_000 and removed["pending"]["loss_per_day"]["value"] is None
    lowered = api.ok(
        "ana", "PUT", "/api/me/limits", json={"loss_per_day": 3_000, "reality_check_minutes": 15}
    )
    assert lowered["loss_per_day"] == 3_000 and lowered["reality_check_minutes"] == 15
    assert lowered["pending"] == {}
    refused(api.as_("ana", "PUT", "/api/me/limits", json={"loss_per_day": 0}), 400, "bad_request")
    refused(api.as_("admin", "PUT", "/api/me/limits", json={"loss_per_day": 10}), 403, "forbidden")


def test_the_session_minutes_limit_refuses_a_seat_and_a_bet_after_them(api: Api) -> None:
    """A session limit of 30 minutes: 31 minutes into the session (clock injected), a seat and a bet are
    limit_reached naming session_minutes."""
    player(api, "ana", ANA, chips=10_000)
    table = api.table("blackjack", turn_seconds=None, betting_seconds=None)
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    api.ok("ana", "PUT", "/api/me/limits", json={"session_minutes": 30})
    later = datetime.now(UTC) + timedelta(minutes=31)
    protection(api).clock = lambda: later
    bet = {"seat": 1, "spot": "main", "amount": 200}
    error = refused(api.as_("ana", "POST", f"/api/tables/{table}/bets", json=bet), 403, "limit_reached")
    assert error["key"] == "err.protection.session_minutes" and error["params"]["limit"] == "session_minutes"
    refused(api.as_("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 2}), 403, "limit_reached")


def _closed_code(ws: Any, within: float = 20.0) -> int | None:
    """The code the server closes a WebSocket with (the states pushed before it read and dropped)."""
    code: list[int] = []

    def read() -> None:
        while True:
            try:
                ws.receive_json()
            except WebSocketDisconnect as closed:
                code.append(int(closed.code))
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(within)
    return code[0] if code else None


def test_a_self_exclusion_ends_the_open_websocket_and_refuses_every_login_until_its_end(
    api: Api, sql: sa.Engine
) -> None:
    """ana excludes herself for 7 days while she watches a table: her WebSocket is closed (4401), her
    token ends, her logins are refused until the 7 days are over (clock injected) whatever staff do, and
    no chips are sold to her meanwhile; then she logs in again."""
    api.user("inspector", "inspector")
    player(api, "ana", ANA, chips=1_000)
    table = api.table("blackjack", turn_seconds=None)
    start = datetime.now(UTC)
    now = [start]
    protection(api).clock = lambda: now[0]
    refused(api.as_("ana", "POST", "/api/me/exclusion", json={"days": 0}), 400, "bad_request")
    refused(api.as_("ana", "POST", "/api/me/exclusion", json={"days": 3651}), 400, "bad_request")
    with api.client.websocket_connect(f"/ws/tables/{table}?token={api.tokens['ana']}") as ws:
        assert ws.receive_json()["type"] == "state"
        out = api.ok("ana", "POST", "/api/me/exclusion", json={"days": 7})
        assert _closed_code(ws) == 4401
    until = datetime.fromisoformat(out["until"].replace("Z", "+00:00"))
    assert until == start + timedelta(days=7)
    refused(api.as_("ana", "GET", "/api/me"), 401, "unauthorized")

    login = {"username": "ana", "password": "password-123"}
    es, _en = both_languages(api, "nobody", "POST", "/api/login", 403, "forbidden", json=login)
    assert es["key"] == "err.protection.excluded" and es["params"]["until"] == out["until"]
    # staff cannot lift it: reactivating her, a new password, changes nothing
    api.ok("admin", "PATCH", "/api/users/ana", json={"active": True, "password": "password-456"})
    login["password"] = "password-456"
    refused(api.as_("nobody", "POST", "/api/login", json=login), 403, "forbidden")
    api.ok("admin", "PATCH", "/api/users/ana", json={"role": "dealer"})  # nor another role
    refused(api.as_("nobody", "POST", "/api/login", json=login), 403, "forbidden")
    api.ok("admin", "PATCH", "/api/users/ana", json={"role": "player"})
    refused(
        api.as_("admin", "POST", "/api/cashier/buy-in", json={"player": "ana", "amount": 100}),
        403,
        "forbidden",
    )
    now[0] = until - timedelta(seconds=1)
    refused(api.as_("nobody", "POST", "/api/login", json=login), 403, "forbidden")
    now[0] = until + timedelta(seconds=1)
    api.login("ana", "password-456")
    assert api.ok("ana", "GET", "/api/me")["name"] == "ana"
    assert events(api, "self_excluded")[0]["details"]["days"] == 7
    assert {e["details"]["where"] for e in events(api, "protection_refused")} == {"login", "buy_in"}
    assert len([e for e in events(api, "protection_refused") if e["details"]["where"] == "login"]) == 5


def test_identity_is_checked_and_entered_by_the_administrator_or_the_cashier(api: Api) -> None:
    """A DNI is 8 digits, a birth date ISO, and nobody under 18 (bad_request); the cashier enters a
    player's identity but changes nothing else; a document is one player's."""
    api.user("caja", "cashier")
    today = lima_day_start(datetime.now(UTC)).date()
    young = today.replace(year=today.year - 17).isoformat()
    body = {"username": "nino", "password": "password-123", "role": "player"}
    error = refused(
        api.as_("admin", "POST", "/api/users", json={**body, "birth_date": young}), 400, "bad_request"
    )
    assert error["key"] == "err.protection.under_age"
    refused(api.as_("admin", "POST", "/api/users", json={**body, "document": "1234567"}), 400, "bad_request")
    refused(
        api.as_("admin", "POST", "/api/users", json={**body, "birth_date": "17/05/1990"}), 400, "bad_request"
    )
    player(api, "ana")
    api.ok("caja", "PATCH", "/api/users/ana", json={"document": ANA, "birth_date": "1990-05-17"})
    seen = api.ok("caja", "GET", "/api/protection/players/ana")
    assert seen == {
        "player": "ana",
        "document": ANA,
        "birth_date": "1990-05-17",
        "identified": True,
        "prohibited": False,
        "excluded_until": None,
    }
    refused(api.as_("caja", "PATCH", "/api/users/ana", json={"role": "admin"}), 403, "forbidden")
    player(api, "beto")
    error = refused(api.as_("caja", "PATCH", "/api/users/beto", json={"document": ANA}), 409, "conflict")
    assert error["key"] == "err.protection.document_taken"
    refused(api.as_("caja", "PATCH", "/api/users/caja", json={"document": BETO}), 400, "bad_request")
    assert [e["details"]["player"] for e in events_as(api, "admin", "identity_set")] == ["ana"]


def events_as(api: Api, who: str, kind: str) -> list[dict[str, Any]]:
    """The significant events of one kind, read by `who`."""
    return [e for e in api.ok(who, "GET", "/api/events?limit=1000")["events"] if e["kind"] == kind]


def test_require_identity_keeps_a_player_without_one_from_sitting_and_betting(
    database_url: str, tmp_path: Path
) -> None:
    """With --require-identity, a player without his document and birth date is forbidden a seat
    (err.protection.identity) until the cashier enters them."""
    with serving(database_url, tmp_path, require_identity=True) as api:
        player(api, "ana", chips=1_000)
        table = api.table("blackjack", turn_seconds=None, betting_seconds=None)
        es, _en = both_languages(
            api, "ana", "POST", f"/api/tables/{table}/seats", 403, "forbidden", json={"seat": 1}
        )
        assert es["key"] == "err.protection.identity"
        api.ok("admin", "PATCH", "/api/users/ana", json={"document": ANA, "birth_date": "1990-05-17"})
        api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
        api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 100})


def test_me_shows_the_session_its_previous_login_and_the_limits(api: Api) -> None:
    """/api/me gives a player his session (when it began, the login before it, what he wagered and
    his net since) and his limits (the reality check every 60 minutes by default)."""
    player(api, "ana", ANA, chips=1_000)
    first = api.ok("ana", "GET", "/api/me")
    assert first["session"]["previous_login"] is None and first["session"]["wagered"] == 0
    assert first["limits"]["reality_check_minutes"] == 60 and first["limits"]["reality_check_default"] == 60
    assert first["limits"]["loss_per_day"] is None and first["limits"]["pending"] == {}
    began = first["session"]["started_at"]
    api.login("ana", "password-123")
    again = api.ok("ana", "GET", "/api/me")["session"]
    assert again["previous_login"] == began and again["started_at"] > began
    assert "session" not in api.ok("admin", "GET", "/api/me")


def test_lima_day_starts_at_five_utc() -> None:
    """The day of the daily limits is Lima's calendar day (UTC-5): 03:00 UTC is still yesterday there."""
    assert lima_day_start(datetime(2026, 12, 6, 3, 0, tzinfo=UTC)) == datetime(2026, 12, 5, 5, 0, tzinfo=UTC)
    assert lima_day_start(datetime(2026, 12, 6, 6, 0, tzinfo=UTC)) == datetime(2026, 12, 6, 5, 0, tzinfo=UTC)
