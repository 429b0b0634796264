"""`tapete serve`: settings from the command line and the environment, migrations, the first users, then
uvicorn serving the app (one process, or `--workers N` processes on PostgreSQL with a broker)."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable
from pathlib import Path

from tapete.server.config import ConfigError, Settings, check_database_url, default_data_dir

ENV = {
    "database_url": "TAPETE_DATABASE_URL",
    "broker_url": "TAPETE_BROKER_URL",
    "admin_password": "TAPETE_ADMIN_PASSWORD",
    "session_idle_minutes": "TAPETE_SESSION_IDLE_MINUTES",
    "session_trust_seconds": "TAPETE_SESSION_TRUST_SECONDS",
    "session_max_hours": "TAPETE_SESSION_MAX_HOURS",
    "lockout_address_failures": "TAPETE_LOCKOUT_ADDRESS_FAILURES",
    "require_identity": "TAPETE_REQUIRE_IDENTITY",
    "lockout_failures": "TAPETE_LOCKOUT_FAILURES",
    "lockout_name_failures": "TAPETE_LOCKOUT_NAME_FAILURES",
}


def build_settings(database_url: str | None = None, broker_url: str | None = None) -> Settings:
    """The settings of this casino: the options given, else the environment, else the embedded
    SQLite file in the data directory (a fresh one gets a demo table and player)."""
    data_dir = default_data_dir()
    url = database_url or os.environ.get(ENV["database_url"]) or ""
    embedded = not url
    if embedded:
        url = f"sqlite:///{data_dir / 'tapete.db'}"
    url = check_database_url(url)
    fresh = embedded and not (data_dir / "tapete.db").exists()
    settings = Settings(
        database_url=url,
        broker_url=broker_url or os.environ.get(ENV["broker_url"]) or None,
        data_dir=data_dir,
        admin_password=os.environ.get(ENV["admin_password"]) or None,
        demo_table=fresh,
    )
    for name, unit in (
        ("session_idle_minutes", "minutes"),
        ("session_trust_seconds", "seconds"),
        ("session_max_hours", "hours"),
    ):
        value = os.environ.get(ENV[name])
        if value:
            try:
                number = float(value)
            except ValueError:
                raise ConfigError(f"{ENV[name]} must be a number of {unit}") from None
            if not number >= 0:  # also refuses nan
                raise ConfigError(f"{ENV[name]} must be a number of {unit}, 0 or more")
            setattr(settings, name, number)
    for name in ("lockout_address_failures", "lockout_failures", "lockout_name_failures"):
        value = os.environ.get(ENV[name])
        if value:
            if not value.isdigit():
                raise ConfigError(f"{ENV[name]} must be a whole number, 0 (off) or more")
            setattr(settings, name, int(value))
    settings.require_identity = os.environ.get(ENV["require_identity"], "").strip().lower() in (
        "1",
        "true",
        "yes",
    )
    return settings


#: the cyclic collector's thresholds while serving: its default (700 allocations) ran a collection many
#: times a second under load, 2.8 % of a process's CPU; a request allocates thousands of short-lived
#: objects that reference counting frees. Memory is not at stake: the cycles are few and small.
GC_THRESHOLDS = (50_000, 20, 100)


def _tune_collector() -> None:
    """Fewer collections of the cyclic garbage collector, and none over what start-up built."""
    gc.collect()
    gc.freeze()  # the modules, the app and its routes stay out of every later collection
    gc.set_threshold(*GC_THRESHOLDS)


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    database_url: str | None = None,
    broker_url: str | None = None,
    workers: int = 1,
    say: Callable[[str], None] = print,
    require_identity: bool = False,
    signing_key: str | None = None,
) -> None:
    """Prepare the database and serve until stopped."""
    import uvicorn

    from tapete.server.api import create_app
    from tapete.server.app import prepare

    settings = build_settings(database_url, broker_url)
    if require_identity:  # --require-identity (else TAPETE_REQUIRE_IDENTITY)
        settings.require_identity = True
        os.environ[ENV["require_identity"]] = "1"  # the workers of --workers read it too
    settings.signing_key = signing_key
    if settings.sqlite and workers > 1:
        raise ConfigError(
            "the embedded SQLite database is for one process: use --database-url postgresql://… and "
            "--broker-url redis://… for --workers"
        )
    where = settings.database_path or settings.database_url.split("@")[-1]
    say(f"tapete serve: database {where}")
    casino = prepare(settings, say)
    say(f"open http://{host}:{port}/ in a browser (API: /docs, /openapi.json)")
    sys.stdout.flush()
    _tune_collector()
    if workers > 1:
        os.environ[ENV["database_url"]] = settings.database_url
        if settings.broker_url:
            os.environ[ENV["broker_url"]] = settings.broker_url
        os.environ["TAPETE_SHOE_KEY"] = settings.shoe_key.hex()
        if signing_key:  # every worker signs with the same key
            os.environ["TAPETE_SIGNING_KEY"] = str(Path(signing_key).resolve())
        uvicorn.run(
            "tapete.server.main:app_from_env",
            factory=True,
            host=host,
            port=port,
            workers=workers,
            log_level="warning",
        )
        return
    uvicorn.run(create_app(casino), host=host, port=port, log_level="warning", ws_ping_interval=20)


def app_from_env() -> object:
    """The app of one worker process (`--workers`): settings from the environment `serve` set."""
    from tapete.server.api import create_app
    from tapete.server.app import Casino
    from tapete.server.config import load_shoe_key

    settings = build_settings()
    settings.demo_table = False
    settings.shoe_key = load_shoe_key(settings)
    app = create_app(Casino(settings))
    _tune_collector()
    return app


def data_dir() -> Path:
    """Where the embedded database lives."""
    return default_data_dir()
