"""Logins and sessions (server.md, "Logins and sessions"), in the app's own process on both databases:
tokens that end when their user's password or role changes, the idle and longest lifetimes on a clock
the test moves, names unique whatever their case (and the migration that refuses to run on names that
collide), the login events in the significant-event log, and the security headers and the body limit on
every kind of answer. The tests that need real addresses or real timing are in test_logins_procs.py."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command

from tapete.server.db import alembic_config, migrate, sync_url
from tests.server.conftest import ADMIN_PASSWORD, Api, postgres_database
from tests.server.support import error_of, live_deal, serving

pytestmark = pytest.mark.usefixtures("fast_hashing")


def refused(response: Any, status: int, code: str) -> dict[str, Any]:
    """The error body of a refusal with this status and code."""
    assert response.status_code == status, (response.status_code, response.text)
    error = error_of(response)
    assert error["code"] == code, error
    return error


class Clock:
    """A clock the test moves by hand (`Settings.clock`)."""

    def __init__(self) -> None:
        self.now = datetime(2026, 12, 6, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


# ------------------------------------------------------------------------------ tokens that end
def test_old_tokens_are_dead_after_a_password_change(api: Api) -> None:
    """Every token of a user ends when an administrator changes his password (two sessions here, one of
    them trusted by the process a moment ago); the new password opens a new one."""
    api.user("ana", "player")
    first = api.tokens["ana"]
    api.login("ana", "password-123")
    second = api.tokens["ana"]
    for token in (first, second):
        assert api.client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    api.ok("admin", "PATCH", "/api/users/ana", json={"password": "another-password-9"})
    for token in (first, second):
        r = api.client.get("/api/me", headers={"Authorization": f"Bearer {token}"})
        assert refused(r, 401, "unauthorized")["key"] == "err.api.session_ended"
    r = api.client.post("/api/login", json={"username": "ana", "password": "password-123"})
    refused(r, 401, "unauthorized")
    api.login("ana", "another-password-9")
    assert api.ok("ana", "GET", "/api/me")["name"] == "ana"


def test_a_role_change_ends_the_tokens_and_the_same_role_does_not(api: Api, sql: sa.Engine) -> None:
    """A new role ends every token of the user (reason `role`); a change that gives him the role he has
    ends nothing."""
    api.user("dora", "dealer")
    api.ok("admin", "PATCH", "/api/users/dora", json={"role": "dealer"})
    assert api.ok("dora", "GET", "/api/me")["role"] == "dealer"
    api.ok("admin", "PATCH", "/api/users/dora", json={"role": "cashier"})
    r = api.as_("dora", "GET", "/api/me")
    assert refused(r, 401, "unauthorized")["key"] == "err.api.session_ended"
    with sql.connect() as conn:
        reasons = conn.execute(
            sa.text(
                "SELECT s.ended_reason FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.name = 'dora'"
            )
        ).all()
    assert [r[0] for r in reasons] == ["role"]


def test_a_session_ends_after_15_idle_minutes_and_12_hours_whatever_its_use(
    database_url: str, tmp_path: Path
) -> None:
    """On the server's clock (moved by the test): a token used every 14 minutes lives on, one left alone
    for more than 15 minutes ends (idle); used every 14 minutes, it still ends 12 hours after its login
    (`err.api.session_expired`), and a new login works."""
    clock = Clock()
    with serving(database_url, tmp_path, clock=clock, session_trust_seconds=0) as api:
        api.user("ana", "player")
        ana = api.tokens["ana"]
        idle = api.client.post("/api/login", json={"username": "ana", "password": "password-123"}).json()
        clock.advance(minutes=14)
        assert api.ok("ana", "GET", "/api/me")["name"] == "ana"
        clock.advance(minutes=2)  # 16 minutes since the second token's login, without a request
        r = api.client.get("/api/me", headers={"Authorization": f"Bearer {idle['token']}"})
        assert refused(r, 401, "unauthorized")["key"] == "err.api.session_idle"
        assert api.ok("ana", "GET", "/api/me")["name"] == "ana"  # 2 minutes after its last use
        used = 16.0
        while used + 14 < 12 * 60:
            clock.advance(minutes=14)
            used += 14
            r = api.client.get("/api/me", headers={"Authorization": f"Bearer {ana}"})
            assert r.status_code == 200, (used, r.text)
        clock.advance(minutes=12 * 60 - used + 0.5)  # 12 hours and half a minute after the login
        r = api.client.get("/api/me", headers={"Authorization": f"Bearer {ana}"})
        assert refused(r, 401, "unauthorized")["key"] == "err.api.session_expired"
        r = api.client.get("/api/me", headers={"Authorization": f"Bearer {ana}"})
        assert refused(r, 401, "unauthorized")["key"] == "err.api.session_ended"
        api.login("ana", "password-123")
        assert api.ok("ana", "GET", "/api/me")["name"] == "ana"


def test_throttling_answers_retry_after_and_ends_on_the_clock(database_url: str, tmp_path: Path) -> None:
    """Five wrong passwords for a name from one address: the sixth attempt, even with the right password,
    is 429 rate_limited with Retry-After (the seconds left, also in the body); when they have passed,
    the right password works."""
    clock = Clock()
    with serving(database_url, tmp_path, clock=clock) as api:
        api.user("ana", "player")
        for _ in range(5):
            r = api.client.post("/api/login", json={"username": "ana", "password": "wrong-password"})
            refused(r, 401, "unauthorized")
        clock.advance(seconds=10)
        r = api.client.post("/api/login", json={"username": "ana", "password": "password-123"})
        error = refused(r, 429, "rate_limited")
        assert error["key"] == "err.api.locked_out"
        assert r.headers["Retry-After"] == "50" and error["params"]["seconds"] == 50
        clock.advance(seconds=50)
        api.login("ana", "password-123")


# ------------------------------------------------------------------------------ names and events
def test_admin_is_refused_beside_admin_whatever_the_case(api: Api) -> None:
    """`Admin` and `ADMIN` cannot be created beside `admin` (conflict, err.api.user_exists); a login
    names a user whatever its case, and the answer gives his name as it was made."""
    for name in ("Admin", "ADMIN", "aDmIn"):
        r = api.as_(
            "admin", "POST", "/api/users", json={"username": name, "password": "password-1", "role": "admin"}
        )
        assert refused(r, 409, "conflict")["key"] == "err.api.user_exists"
    api.user("Ana", "player")
    r = api.as_(
        "admin", "POST", "/api/users", json={"username": "ana", "password": "password-1", "role": "player"}
    )
    refused(r, 409, "conflict")
    r = api.client.post("/api/login", json={"username": "ADMIN", "password": ADMIN_PASSWORD})
    assert r.status_code == 200 and r.json()["user"]["name"] == "admin"
    assert api.ok("admin", "PATCH", "/api/users/ana", json={"role": "player"})["name"] == "Ana"


@pytest.fixture(params=["sqlite", "postgres"])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database of each kind."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'old.db'}"
        return
    with postgres_database("tapete_names") as url:
        yield url


def test_the_names_migration_refuses_to_run_on_names_that_collide(empty_url: str) -> None:
    """A database at 0005 (the revision before it) holding `ana` and `Ana`: migration 0006 refuses with a
    message that names both and says what to do, and changes nothing; once one is renamed it runs, and
    the database itself then refuses a name that differs only by its case."""
    from tapete.server.config import ConfigError

    command.upgrade(alembic_config(empty_url), "0005")
    engine = sa.create_engine(sync_url(empty_url))
    insert = sa.text(
        "INSERT INTO users (name, role, password_hash, active, created_at)"
        " VALUES (:n, 'player', 'x', true, :t)"
    )
    try:
        with engine.begin() as conn:
            for name in ("ana", "Ana", "beto"):
                conn.execute(insert, {"n": name, "t": "2026-12-01 10:00:00"})
        with pytest.raises(ConfigError) as refusal:
            migrate(empty_url)
        said = str(refusal.value)
        assert "Ana, ana" in said and "0006" in said and "Rename" in said and "beto" not in said
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar() == "0005"
            assert conn.execute(sa.text("SELECT count(*) FROM users")).scalar() == 3
        with engine.begin() as conn:
            conn.execute(sa.text("UPDATE users SET name = 'ana2' WHERE name = 'Ana'"))
        migrate(empty_url)
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:
            conn.execute(insert, {"n": "BETO", "t": "2026-12-01 10:00:00"})
    finally:
        engine.dispose()


def test_logins_failures_throttling_logouts_and_changes_are_significant_events(
    database_url: str, tmp_path: Path
) -> None:
    """GET /api/events shows each login (with its address), each failed login (an absent name too, said
    as it was typed), the throttling that five failures start, each logout, and each password and role
    change with who made it; no password is in any of them."""
    with serving(database_url, tmp_path) as api:
        api.user("ana", "player")
        api.ok("ana", "POST", "/api/logout")
        for _ in range(5):
            api.client.post("/api/login", json={"username": "ana", "password": "wrong-password"})
        api.client.post("/api/login", json={"username": "Nadie", "password": "wrong-password"})
        api.ok("admin", "PATCH", "/api/users/ana", json={"password": "new-password-1", "role": "cashier"})
        events = api.ok("admin", "GET", "/api/events?limit=1000")["events"]
    kinds = [e["kind"] for e in events]
    logins = [e for e in events if e["kind"] == "login"]
    assert [e["actor"] for e in logins] == ["admin", "ana"]
    assert all(e["details"]["address"] == "testclient" for e in logins)
    failed = [e["details"]["name"] for e in events if e["kind"] == "login_failed"]
    assert failed == ["ana"] * 5 + ["Nadie"]
    throttled = [e["details"] for e in events if e["kind"] == "login_throttled"]
    assert throttled == [
        {"name": "ana", "address": "testclient", "scope": "name", "seconds": throttled[0]["seconds"]}
    ]
    assert [e["actor"] for e in events if e["kind"] == "logout"] == ["ana"]
    assert [(e["actor"], e["details"]) for e in events if e["kind"] == "password_changed"] == [
        ("admin", {"user": "ana"})
    ]
    assert [e["details"] for e in events if e["kind"] == "role_changed"] == [
        {"user": "ana", "from": "player", "to": "cashier"}
    ]
    assert kinds.index("logout") < kinds.index("login_failed") < kinds.index("login_throttled")
    text = str(events)
    assert "wrong-password" not in text and "new-password-1" not in text and "password-123" not in text


# ------------------------------------------------------------------------------ headers and limits
SECURITY = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
}


def assert_guarded(response: Any, *, api: bool) -> None:
    """The security headers server.md asks of every answer (no-store on the API's)."""
    for name, value in SECURITY.items():
        assert response.headers.get(name) == value, (name, dict(response.headers))
    csp = response.headers["content-security-policy"]
    directives = {d.split()[0]: d.split()[1:] for d in csp.split(";") if d.strip()}
    assert directives["script-src"] == ["'self'"], csp  # no 'unsafe-inline', no other host
    assert directives["frame-ancestors"] == ["'none'"], csp
    if api:
        assert response.headers.get("cache-control") == "no-store"


def test_every_answer_carries_the_security_headers(api: Api) -> None:
    """The page, its files, the API's document, a login (and its refusal), a table step of the fast lane
    (POST …/actions, answered and refused), a 404, a malformed body and a 401: every answer."""
    api.user("ana", "player", chips=10_000)
    api.user("dora", "dealer")
    table = api.table("blackjack", "live")
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
    live_deal(api, "dora", table, ["9h", "7c", "6d", "5s"])
    for path in ("/", "/js/main.js", "/tapete.css", "/docs", "/redoc"):
        r = api.client.get(path)
        assert r.status_code == 200, path
        assert_guarded(r, api=False)
    assert_guarded(api.client.get("/openapi.json"), api=True)
    login = api.client.post("/api/login", json={"username": "ana", "password": "password-123"})
    assert login.status_code == 200
    assert_guarded(login, api=True)
    assert_guarded(
        api.client.post("/api/login", json={"username": "ana", "password": "wrong-pass"}), api=True
    )
    action = api.as_("ana", "POST", f"/api/tables/{table}/actions", json={"seat": 1, "action": "decline"})
    assert action.status_code == 200, action.text
    assert_guarded(action, api=True)
    again = api.as_("ana", "POST", f"/api/tables/{table}/actions", json={"seat": 1, "action": "split"})
    assert 400 <= again.status_code < 500
    assert_guarded(again, api=True)
    for response in (
        api.as_("ana", "GET", "/api/tables/999999"),
        api.as_("ana", "POST", f"/api/tables/{table}/actions", json={"seat": "one"}),
        api.client.post(f"/api/tables/{table}/actions", json={"seat": 1, "action": "hit"}),
        api.client.get("/api/nowhere"),
    ):
        assert 400 <= response.status_code < 500, response.text
        assert_guarded(response, api=True)


def test_a_body_over_1_mib_is_answered_413(api: Api) -> None:
    """A 2 MiB body is refused with 413 and server.md's error body, at a table step and at the login;
    exactly 1 MiB is read (and refused for what it is)."""
    big = b'{"username": "' + b"a" * (2 << 20) + b'", "password": "x"}'
    for path in ("/api/login", "/api/tables/1/actions"):
        r = api.client.post(path, content=big, headers={"Content-Type": "application/json"})
        error = refused(r, 413, "bad_request")
        assert error["key"] == "err.api.too_large"
        assert_guarded(r, api=True)
    exact = b'{"username": "ana", "password": "' + b"x" * ((1 << 20) - 35) + b'"}'
    assert len(exact) == 1 << 20
    r = api.client.post("/api/login", content=exact, headers={"Content-Type": "application/json"})
    assert r.status_code in (400, 401), r.text


def test_the_session_and_throttling_settings_come_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """TAPETE_SESSION_MAX_HOURS, TAPETE_LOCKOUT_FAILURES and TAPETE_LOCKOUT_NAME_FAILURES (0: off); their
    defaults are server.md's and docs/security.md's; a value that is no number is refused by name."""
    from tapete.server.config import ConfigError
    from tapete.server.main import build_settings

    monkeypatch.setenv("TAPETE_HOME", str(tmp_path))
    defaults = build_settings()
    assert (defaults.session_idle_minutes, defaults.session_max_hours) == (15.0, 12.0)
    assert (defaults.lockout_failures, defaults.lockout_address_failures, defaults.lockout_name_failures) == (
        5,
        20,
        20,
    )
    monkeypatch.setenv("TAPETE_SESSION_MAX_HOURS", "8")
    monkeypatch.setenv("TAPETE_LOCKOUT_FAILURES", "3")
    monkeypatch.setenv("TAPETE_LOCKOUT_NAME_FAILURES", "0")
    settings = build_settings()
    assert (settings.session_max_hours, settings.lockout_failures, settings.lockout_name_failures) == (
        8.0,
        3,
        0,
    )
    monkeypatch.setenv("TAPETE_LOCKOUT_FAILURES", "many")
    with pytest.raises(ConfigError, match="TAPETE_LOCKOUT_FAILURES"):
        build_settings()
