"""Fixtures for the table server's tests: a real database (an SQLite file, or a fresh PostgreSQL database
on 127.0.0.1:5432 dropped afterwards), the app served through Starlette's TestClient (its lifespan runs:
migrations, the first administrator, the chain checks, the timers), and a small client that logs in."""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tapete.server.api import create_app
from tapete.server.app import prepare
from tapete.server.config import Settings

PG = os.environ.get("TAPETE_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432")
ADMIN_PASSWORD = "admin-password-1"


def _pg_admin() -> Any:
    import psycopg

    return psycopg.connect(f"{PG}/postgres", autocommit=True)


@pytest.fixture(scope="session")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """One migrated database of each kind per test process, copied for every test (an SQLite file, a
    PostgreSQL template database): migrations run once, not once per test. Each test's database still
    starts empty of rows and is its own; `prepare` migrates it again, which finds nothing to do."""
    from tapete.server.db import migrate

    folder = tmp_path_factory.mktemp("template")
    sqlite_file = folder / "template.db"
    migrate(f"sqlite:///{sqlite_file}")
    template = f"tapete_tpl_{uuid.uuid4().hex[:12]}"
    with _pg_admin() as conn:
        conn.execute(f'CREATE DATABASE "{template}"')
    migrate(f"{PG}/{template}")
    try:
        yield {"sqlite": str(sqlite_file), "postgres": template}
    finally:
        with _pg_admin() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{template}" WITH (FORCE)')


@contextlib.contextmanager
def postgres_database(prefix: str, template: str | None = None) -> Iterator[str]:
    """A new PostgreSQL database on the test server (a copy of `template`, else empty), dropped afterwards."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    copy = f' TEMPLATE "{template}"' if template else ""
    with _pg_admin() as conn:
        conn.execute(f'CREATE DATABASE "{name}"{copy}')
    try:
        yield f"{PG}/{name}"
    finally:
        with _pg_admin() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def fresh_database(kind: str, tmp_path: Path, migrated: dict[str, str]) -> Iterator[str]:
    """A new database of `kind` (sqlite | postgres), already migrated, dropped afterwards."""
    if kind == "sqlite":
        path = tmp_path / f"casino-{uuid.uuid4().hex[:6]}.db"
        shutil.copyfile(migrated["sqlite"], path)
        yield f"sqlite:///{path}"
        return
    with postgres_database("tapete_test", migrated["postgres"]) as url:
        yield url


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path, migrated: dict[str, str]) -> Iterator[str]:
    """Every server test runs on the embedded SQLite and on PostgreSQL."""
    with fresh_database(request.param, tmp_path, migrated) as url:
        yield url


def _test_signing_key() -> str:
    """One fixed Ed25519 key (PEM) for every test casino: the processes of one casino share their
    signing key, so two test casinos on one database (two writers) must too."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.from_private_bytes(bytes(range(32, 64)))
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


TEST_SIGNING_KEY = _test_signing_key()


def settings_for(url: str, data_dir: Path, **extra: Any) -> Settings:
    """A test casino's settings (fixed shoe and signing keys, fast timers)."""
    extra.setdefault("signing_key", TEST_SIGNING_KEY)
    return Settings(
        database_url=url,
        data_dir=data_dir,
        admin_password=ADMIN_PASSWORD,
        shoe_key=bytes(range(32)),
        timer_interval_seconds=0.05,
        **extra,
    )


class Api:
    """A TestClient that speaks as one user at a time (Bearer token per user)."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.tokens: dict[str, str] = {}

    def login(self, name: str, password: str) -> str:
        r = self.client.post("/api/login", json={"username": name, "password": password})
        assert r.status_code == 200, r.text
        self.tokens[name] = r.json()["token"]
        return self.tokens[name]

    def as_(self, name: str, method: str, path: str, **kw: Any) -> Any:
        headers = dict(kw.pop("headers", {}) or {})
        if name in self.tokens:
            headers["Authorization"] = f"Bearer {self.tokens[name]}"
        return self.client.request(method, path, headers=headers, **kw)

    def ok(self, name: str, method: str, path: str, **kw: Any) -> Any:
        r = self.as_(name, method, path, **kw)
        assert r.status_code < 300, (method, path, r.status_code, r.text)
        return r.json()

    def user(self, name: str, role: str, *, chips: int = 0, password: str = "password-123") -> None:
        self.ok("admin", "POST", "/api/users", json={"username": name, "password": password, "role": role})
        self.login(name, password)
        if chips:
            self.ok("admin", "POST", "/api/cashier/buy-in", json={"player": name, "amount": chips})

    def table(self, game: str, mode: str = "virtual", **rules: Any) -> int:
        doc = self.ok(
            "admin",
            "POST",
            "/api/tables",
            json={"game": game, "name": f"{game} {mode}", "mode": mode, "rules": rules},
        )
        return int(doc["id"])

    def state(self, name: str, table: int) -> Any:
        return self.ok(name, "GET", f"/api/tables/{table}/state")

    def balance(self, name: str) -> int:
        return int(self.ok(name, "GET", "/api/me")["balance"])


@pytest.fixture
def api(database_url: str, tmp_path: Path) -> Iterator[Api]:
    """The server on a fresh database, with `admin` logged in."""
    casino = prepare(settings_for(database_url, tmp_path), say=lambda _: None)
    with TestClient(create_app(casino)) as client:
        a = Api(client)
        a.login("admin", ADMIN_PASSWORD)
        yield a


@pytest.fixture
def fast_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    """argon2id with the smallest costs, for tests that make many users: a real login costs ~0.4 s of
    CPU on this machine (the production parameters are checked in test_people.py)."""
    from tapete.server.people import accounts
    from tests.fast_passwords import cheapest

    monkeypatch.setattr(accounts, "_HASHER", cheapest())


@pytest.fixture
def sql(database_url: str) -> Iterator[Any]:
    """A synchronous SQLAlchemy engine on the test's database, to read (or tamper with) rows behind the
    API's back; disposed before the database is dropped."""
    import sqlalchemy as sa

    from tapete.server.config import sync_url

    engine = sa.create_engine(sync_url(database_url))
    yield engine
    engine.dispose()
