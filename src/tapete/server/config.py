"""The server's settings: where the database and the broker are, the session and lockout policy, the key
that seals virtual shoes. Read once at start from the command line and the environment (TAPETE_*)."""

from __future__ import annotations

import base64
import binascii
import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from tapete import __version__

VERSION = __version__


def utc_clock() -> datetime:
    """Now, in UTC: the clock of sessions and logins (a test gives the server its own, `Settings.clock`)."""
    return datetime.now(UTC)


def default_data_dir() -> Path:
    """Where the embedded database and the shoe key live when nothing else is said: $TAPETE_HOME, else
    ~/.local/share/tapete (created on first use)."""
    home = os.environ.get("TAPETE_HOME")
    return Path(home) if home else Path.home() / ".local" / "share" / "tapete"


@dataclass
class Settings:
    """Everything a server process needs to know; the same for every process of one casino."""

    database_url: str = ""
    broker_url: str | None = None
    data_dir: Path = field(default_factory=default_data_dir)
    session_idle_minutes: float = 15.0
    #: how long a process trusts a session it checked in the database without checking it again (at
    #: most a tenth of the idle time); a logout or a user's change ends it at once in every process
    #: that hears the broker, and within this time in one that does not (docs/server.md)
    session_trust_seconds: float = 5.0
    #: a session's longest life, whatever its activity (server.md: 12 hours after login)
    session_max_hours: float = 12.0
    #: failed logins of one name from one address within `lockout_window_seconds` that throttle that
    #: address for that name (another address, the owner's, is not throttled by them)
    lockout_failures: int = 5
    #: failed logins from one address, whatever the names, that throttle the address (0: off); behind a
    #: proxy, uvicorn's forwarded headers give each client his own address (TAPETE_LOCKOUT_ADDRESS_FAILURES)
    lockout_address_failures: int = 20
    #: failed logins of one name from every address together that put the name under attack: then an
    #: address that failed for it once is throttled, an address that never failed keeps its try (0: off)
    lockout_name_failures: int = 20
    lockout_window_seconds: float = 300.0
    lockout_seconds: float = 60.0
    #: the clock of sessions and logins (idle and longest life, throttling): tests inject their own
    clock: Callable[[], datetime] = utc_clock
    admin_password: str | None = None
    shoe_key: bytes = b""
    #: the Ed25519 private key's file (``--signing-key``; else $TAPETE_SIGNING_KEY, else the data
    #: directory's ``signing.key``, made on the first start): `signing.load_signer`
    signing_key: str | None = None
    #: how often each process looks for deadlines that came due (turn and betting timers)
    timer_interval_seconds: float = 0.25
    #: the table a fresh embedded casino opens so a newcomer can play at once (tapete serve)
    demo_table: bool = False
    #: a player without his identity (document and birth date) may not sit or bet (--require-identity)
    require_identity: bool = False

    @property
    def sqlite(self) -> bool:
        """True for the embedded database (one process)."""
        return self.database_url.startswith("sqlite")

    @property
    def database_path(self) -> Path | None:
        """The SQLite file, for the embedded database."""
        if not self.sqlite:
            return None
        return Path(self.database_url.split(":///", 1)[1])


class ConfigError(ValueError):
    """A setting the server cannot start with (said to the operator, not a traceback)."""


def sync_url(url: str) -> str:
    """The SQLAlchemy URL for migrations (psycopg 3 in its synchronous mode, or sqlite3)."""
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def async_url(url: str) -> str:
    """The SQLAlchemy URL of the running server (psycopg 3's async mode, or aiosqlite)."""
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    if url.startswith("sqlite:///"):
        return "sqlite+aiosqlite:///" + url.split(":///", 1)[1]
    return url


def check_database_url(url: str) -> str:
    """`url` if it is one the server speaks (``sqlite:///PATH`` or ``postgresql://…``), else ConfigError."""
    if url.startswith(("sqlite:///", "postgresql://", "postgres://")):
        return url
    raise ConfigError(f"--database-url must be sqlite:///PATH or postgresql://…, not {url!r}")


def load_shoe_key(settings: Settings) -> bytes:
    """The key that seals virtual shoes (docs/engine.md): $TAPETE_SHOE_KEY (64 hex digits or base64 of 32
    bytes), else the file `shoe.key` in the data directory, created once with 32 random bytes (mode 0600).
    Several processes or hosts of one casino must share it."""
    text = os.environ.get("TAPETE_SHOE_KEY", "").strip()
    if text:
        try:
            key = bytes.fromhex(text) if len(text) == 64 else base64.b64decode(text, validate=True)
        except (ValueError, binascii.Error):
            raise ConfigError("TAPETE_SHOE_KEY must be 64 hex digits or the base64 of 32 bytes") from None
        if len(key) != 32:
            raise ConfigError("TAPETE_SHOE_KEY must hold 32 bytes")
        return key
    path = settings.data_dir / "shoe.key"
    if path.exists():
        key = path.read_bytes()
        if len(key) != 32:
            raise ConfigError(f"{path} must hold 32 bytes")
        return key
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(key)
    return key
