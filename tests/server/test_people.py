"""People (server.md, Conventions and Roles): passwords kept as argon2id hashes and tokens as their
SHA-256 only; sessions that survive a restart, end after the idle time, and end at logout; the
previous login's time in the login answer and /api/me; repeated failed logins locked out (429
rate_limited, the right password too) for a while."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from starlette.websockets import WebSocketDisconnect

from tapete.server.people.accounts import token_hash
from tests.server.conftest import Api
from tests.server.support import refused, serving


def stored(sql: sa.Engine, moment: datetime) -> datetime:
    """A time as the server stores it: naive UTC on SQLite, with its zone on PostgreSQL."""
    return moment.replace(tzinfo=None) if sql.dialect.name == "sqlite" else moment


def read_time(value: object) -> datetime:
    """A stored time read back (SQLite gives text), in UTC."""
    moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def iso(text: str) -> datetime:
    """A time the API gives (ISO 8601, Z for UTC)."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_passwords_are_argon2id_hashes_and_tokens_are_not_stored(api: Api, sql: sa.Engine) -> None:
    """With the production hasher: the users' rows hold argon2id hashes with argon2-cffi's default
    costs (RFC 9106's low-memory profile), never the password; sessions hold the token's SHA-256."""
    api.user("ana", "player", password="ana's secret pass")
    token = api.tokens["ana"]
    with sql.connect() as conn:
        hashes = dict(conn.execute(sa.text("SELECT name, password_hash FROM users")).all())
        sessions = [r[0] for r in conn.execute(sa.text("SELECT token_hash FROM sessions")).all()]
        dump = " ".join(
            str(row)
            for t in ("users", "sessions", "significant_events")
            for row in conn.execute(sa.text(f"SELECT * FROM {t}"))
        )
    assert set(hashes) == {"admin", "ana"}
    for stored in hashes.values():
        assert stored.startswith("$argon2id$v=19$m=65536,t=3,p=4$"), stored
    assert "ana's secret pass" not in dump and "admin-password-1" not in dump
    assert token not in dump and token_hash(token) in sessions


def test_sessions_survive_a_restart(database_url: str, tmp_path: Path) -> None:
    """A new server on the same database takes the tokens the old one gave."""
    with serving(database_url, tmp_path) as first:
        first.user("ana", "player", chips=700)
        tokens = dict(first.tokens)
    with serving(database_url, tmp_path) as second:
        second.tokens.update(ana=tokens["ana"], admin=tokens["admin"])
        me = second.ok("ana", "GET", "/api/me")
        assert me.pop("session")["started_at"] and me.pop("limits")  # player protection's (server.md)
        assert me == {
            "name": "ana",
            "role": "player",
            "balance": 700,
            "available": 700,
            "previous_login": None,
        }
        assert second.ok("admin", "GET", "/api/me")["role"] == "admin"


@pytest.mark.usefixtures("fast_hashing")
def test_an_idle_session_ends_after_the_setting(database_url: str, tmp_path: Path, sql: sa.Engine) -> None:
    """session_idle_minutes = 0.04 (2.4 s: long enough for a login and its first request on a loaded
    machine): a token left alone for longer is refused (401, the idle key) and stays ended; another login
    works."""
    with serving(database_url, tmp_path, session_idle_minutes=0.04) as api:
        api.user("ana", "player")
        assert api.ok("ana", "GET", "/api/me")["name"] == "ana"
        quiet_since = time.monotonic()
        while time.monotonic() - quiet_since < 5.0:  # idle: no request at all for two idle times
            time.sleep(0.1)
        error = refused(api.as_("ana", "GET", "/api/me"), 401, "unauthorized")
        assert error["key"] == "err.api.session_idle"
        assert (
            refused(api.as_("ana", "GET", "/api/me"), 401, "unauthorized")["key"] == "err.api.session_ended"
        )
        with sql.connect() as conn:
            reasons = [
                r[0]
                for r in conn.execute(sa.text("SELECT ended_reason FROM sessions WHERE ended_at IS NOT NULL"))
            ]
        assert "idle" in reasons
        api.login("ana", "password-123")
        assert api.ok("ana", "GET", "/api/me")["name"] == "ana"


@pytest.mark.usefixtures("fast_hashing")
def test_a_used_session_is_not_idle(database_url: str, tmp_path: Path, sql: sa.Engine) -> None:
    """The idle time counts from the last request: with a 30-second idle limit, a request 20 seconds
    after the last one keeps the session and is remembered as its last use (so the session does not end
    10 seconds later while the player is playing). The test moves the session's time back in the
    database behind the server, so the server must not trust what it checked a moment ago (trust 0)."""
    with serving(database_url, tmp_path, session_idle_minutes=0.5, session_trust_seconds=0) as api:
        api.user("ana", "player")
        earlier = datetime.now(UTC) - timedelta(seconds=20)
        with sql.begin() as conn:
            conn.execute(sa.text("UPDATE sessions SET last_seen_at = :t"), {"t": stored(sql, earlier)})
        asked = datetime.now(UTC)
        assert api.ok("ana", "GET", "/api/me")["name"] == "ana"
        with sql.connect() as conn:
            seen = conn.execute(
                sa.text("SELECT last_seen_at FROM sessions WHERE token_hash = :h"),
                {"h": token_hash(api.tokens["ana"])},
            ).scalar_one()
        assert read_time(seen) >= asked - timedelta(seconds=3), (seen, asked)
        with sql.begin() as conn:  # and 31 seconds of silence end it
            conn.execute(
                sa.text("UPDATE sessions SET last_seen_at = :t"),
                {"t": stored(sql, datetime.now(UTC) - timedelta(seconds=31))},
            )
        assert refused(api.as_("ana", "GET", "/api/me"), 401, "unauthorized")["key"] == "err.api.session_idle"


@pytest.mark.usefixtures("fast_hashing")
def test_a_trusted_session_follows_a_change_of_its_user_at_once(api: Api) -> None:
    """The process trusts a session it just checked (session_trust_seconds), but a role changed (which
    ends every token of the user, server.md) or a user deactivated counts from the next request: the
    change forgets the trust."""
    api.user("ana", "player")
    assert api.ok("ana", "GET", "/api/me")["role"] == "player"  # checked, now trusted
    api.ok("admin", "PATCH", "/api/users/ana", json={"role": "inspector"})
    assert refused(api.as_("ana", "GET", "/api/me"), 401, "unauthorized")["key"] == "err.api.session_ended"
    api.login("ana", "password-123")
    assert api.ok("ana", "GET", "/api/me")["role"] == "inspector"
    buy_in = api.as_("ana", "POST", "/api/cashier/buy-in", json={"player": "ana", "amount": 1})
    assert refused(buy_in, 403, "forbidden")
    api.ok("admin", "PATCH", "/api/users/ana", json={"active": False})
    assert refused(api.as_("ana", "GET", "/api/me"), 401, "unauthorized")["key"] == "err.api.session_ended"


@pytest.mark.usefixtures("fast_hashing")
def test_logout_ends_that_token_only(api: Api) -> None:
    api.user("ana", "player")
    other = api.tokens["ana"]
    api.login("ana", "password-123")
    assert api.ok("ana", "POST", "/api/logout") == {}
    assert refused(api.as_("ana", "GET", "/api/me"), 401, "unauthorized")["key"] == "err.api.session_ended"
    assert refused(api.as_("ana", "POST", "/api/logout"), 401, "unauthorized")
    r = api.client.get("/api/me", headers={"Authorization": f"Bearer {other}"})
    assert r.status_code == 200 and r.json()["name"] == "ana"


@pytest.mark.usefixtures("fast_hashing")
def test_the_previous_login_is_shown(api: Api) -> None:
    """The login answer and /api/me give the previous login's time: none at the first login, then each
    login's time at the next one."""
    api.ok(
        "admin", "POST", "/api/users", json={"username": "ana", "password": "password-123", "role": "player"}
    )
    times, tokens = [], []
    for _ in range(3):
        before = datetime.now(UTC)
        r = api.client.post("/api/login", json={"username": "ana", "password": "password-123"})
        assert r.status_code == 200
        body = r.json()
        api.tokens["ana"] = body["token"]
        tokens.append(body["token"])
        assert body["user"] == {"name": "ana", "role": "player"}
        assert api.ok("ana", "GET", "/api/me")["previous_login"] == body["previous_login"]
        times.append((before, body["previous_login"]))
    assert times[0][1] is None
    assert times[0][0] - timedelta(seconds=1) <= iso(times[1][1]) <= times[1][0]
    assert times[1][0] - timedelta(seconds=1) <= iso(times[2][1]) <= times[2][0]
    assert iso(times[1][1]) < iso(times[2][1])
    for token, (_, previous) in zip(tokens, times, strict=True):  # each session keeps its own previous login
        me = api.client.get("/api/me", headers={"Authorization": f"Bearer {token}"})
        assert me.status_code == 200 and me.json()["previous_login"] == previous


@pytest.mark.usefixtures("fast_hashing")
def test_repeated_failed_logins_are_locked_out_for_a_while(database_url: str, tmp_path: Path) -> None:
    """Three failures (the setting) and the fourth attempt is 429 rate_limited even with the right
    password; once the lockout (1 s here) has passed, the right password works, and the failures are
    forgotten."""
    with serving(database_url, tmp_path, lockout_failures=3, lockout_seconds=1.0) as api:
        api.user("ana", "player")
        for _ in range(3):
            r = api.client.post("/api/login", json={"username": "ana", "password": "wrong-password"})
            refused(r, 401, "unauthorized")
        locked_at = time.monotonic()
        for password in ("wrong-password", "password-123"):
            r = api.client.post("/api/login", json={"username": "ana", "password": password})
            assert refused(r, 429, "rate_limited")["key"] == "err.api.locked_out"
        while time.monotonic() - locked_at < 1.5:  # the lockout's length, not a guess
            time.sleep(0.1)
        api.login("ana", "password-123")
        r = api.client.post("/api/login", json={"username": "ana", "password": "wrong-password"})
        refused(r, 401, "unauthorized")
        api.login("ana", "password-123")


@pytest.mark.usefixtures("fast_hashing")
def test_failed_logins_throttle_the_name_at_that_address_and_the_address_after_its_setting(
    database_url: str, tmp_path: Path
) -> None:
    """Wrong passwords for many names from one address throttle that address once they reach
    `lockout_address_failures` (eva, after four strangers' failures, with the setting at 4); below it
    (the default, 20), wrong passwords for ana and five strangers throttle ana at that address, not the
    others (beto logs in). docs/security.md, "Throttling"."""
    with serving(database_url, tmp_path, lockout_failures=3, lockout_address_failures=4) as api:
        api.user("eva", "player")
        for name in ("y1", "y2", "y3", "y4"):
            r = api.client.post("/api/login", json={"username": name, "password": "wrong-password"})
            refused(r, 401, "unauthorized")
        r = api.client.post("/api/login", json={"username": "eva", "password": "password-123"})
        assert refused(r, 429, "rate_limited")["key"] == "err.api.locked_out"
    with serving(database_url, tmp_path, lockout_failures=3) as api:
        for name in ("ana", "beto"):
            api.user(name, "player")
        for name in ("ana", "ana", "ana", "x1", "x2", "x3", "x4", "x5"):
            r = api.client.post("/api/login", json={"username": name, "password": "wrong-password"})
            refused(r, 401, "unauthorized")
        r = api.client.post("/api/login", json={"username": "ana", "password": "password-123"})
        assert refused(r, 429, "rate_limited")["key"] == "err.api.locked_out"
        api.login("beto", "password-123")


def test_the_administrators_password_from_the_environment_is_taken_as_it_is(
    database_url: str, tmp_path: Path
) -> None:
    """TAPETE_ADMIN_PASSWORD is the operator's: a short one is taken (start-up warns), not a crash that
    left a casino without its administrator."""
    from tapete.server.api import create_app
    from tapete.server.app import prepare
    from tests.server.conftest import settings_for

    said: list[str] = []
    settings = settings_for(database_url, tmp_path)
    settings.admin_password = "admin"
    from starlette.testclient import TestClient

    with TestClient(create_app(prepare(settings, say=said.append))) as client:
        r = client.post("/api/login", json={"username": "admin", "password": "admin"})
        assert r.status_code == 200 and r.json()["user"] == {"name": "admin", "role": "admin"}
    assert any("shorter than 8" in line for line in said), said


def test_the_session_times_come_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """TAPETE_SESSION_IDLE_MINUTES and TAPETE_SESSION_TRUST_SECONDS (0: every request asks the
    database); a value that is not a number of 0 or more is refused by name at start."""
    from tapete.server.config import ConfigError
    from tapete.server.main import build_settings

    monkeypatch.setenv("TAPETE_HOME", str(tmp_path))
    monkeypatch.setenv("TAPETE_SESSION_IDLE_MINUTES", "30")
    monkeypatch.setenv("TAPETE_SESSION_TRUST_SECONDS", "0")
    monkeypatch.setenv("TAPETE_LOCKOUT_ADDRESS_FAILURES", "20")
    settings = build_settings()
    assert (settings.session_idle_minutes, settings.session_trust_seconds) == (30.0, 0.0)
    assert settings.lockout_address_failures == 20
    for bad in ("soon", "-1", "nan"):
        monkeypatch.setenv("TAPETE_SESSION_TRUST_SECONDS", bad)
        with pytest.raises(ConfigError, match="TAPETE_SESSION_TRUST_SECONDS"):
            build_settings()


def _closed_code(ws: Any, within: float = 20.0) -> int | None:
    """The code the server closes a WebSocket with, reading the states pushed before it; None when it
    is still open after `within` seconds (read in a thread, so that a socket left open fails the test
    instead of hanging it)."""
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


@pytest.mark.usefixtures("fast_hashing")
def test_a_websocket_stops_when_its_session_is_logged_out(api: Api) -> None:
    """A logout ends the token (server.md) for the WebSocket it opened too: the socket is closed 4401 at
    once (it went on receiving the table's states after the logout)."""
    api.user("ana", "player")
    table = api.table("blackjack", turn_seconds=None)
    with api.client.websocket_connect(f"/ws/tables/{table}?token={api.tokens['ana']}") as ws:
        assert ws.receive_json()["type"] == "state"
        api.ok("ana", "POST", "/api/logout")
        assert _closed_code(ws) == 4401
    with api.client.websocket_connect(f"/ws/tables/{table}?token={api.tokens['admin']}") as ws:
        assert ws.receive_json()["type"] == "state"  # another session's socket is untouched
        api.user("beto", "player")
        api.ok("beto", "POST", f"/api/tables/{table}/seats", json={"seat": 2})
        assert ws.receive_json()["state"]["seats"][1]["holder"] == "beto"


@pytest.mark.usefixtures("fast_hashing")
def test_a_websocket_stops_when_its_session_ends_idle(database_url: str, tmp_path: Path) -> None:
    """Watching a table is not using the session: with a 2.4-second idle limit, a socket whose player
    sends nothing is closed 4401 once the session is idle, and the session is then ended (idle)."""
    with serving(database_url, tmp_path, session_idle_minutes=0.04) as api:
        api.user("ana", "player")
        table = api.table("blackjack", turn_seconds=None)
        opened = time.monotonic()
        with api.client.websocket_connect(f"/ws/tables/{table}?token={api.tokens['ana']}") as ws:
            assert ws.receive_json()["type"] == "state"
            assert _closed_code(ws) == 4401
        assert time.monotonic() - opened >= 2.0
        error = refused(api.as_("ana", "GET", "/api/me"), 401, "unauthorized")
        assert error["key"] == "err.api.session_ended"


@pytest.mark.usefixtures("fast_hashing")
def test_a_tables_timers_read_as_set_after_a_restart(database_url: str, tmp_path: Path) -> None:
    """The tables' list gives the timers as the administrator set them (30, 12.5): after a restart it
    said 30.0 beside its rules' 30 (the database's float column)."""
    with serving(database_url, tmp_path) as first:
        table = first.table("blackjack", turn_seconds=30, betting_seconds=12.5)
        tokens = dict(first.tokens)
    with serving(database_url, tmp_path) as second:
        second.tokens.update(admin=tokens["admin"])
        row = next(t for t in second.ok("admin", "GET", "/api/tables")["tables"] if t["id"] == table)
        assert (row["turn_seconds"], row["betting_seconds"]) == (30, 12.5)
        assert type(row["turn_seconds"]) is int and row["rules"]["turn_seconds"] == 30
