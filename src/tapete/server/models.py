"""The casino's rows (SQLAlchemy 2): people and their sessions, the double-entry ledger, tables with their
seats, bets and back-bet requests, the hash-chained event records, rounds, sealed shoes, idempotency keys
and the significant-event log. The database is the truth: a table is its rows."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    func,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator


def utcnow() -> datetime:
    """Now, in UTC (every time the server keeps is UTC)."""
    return datetime.now(UTC)


def iso(moment: datetime | None) -> str | None:
    """A time as the API writes it: UTC, ISO 8601 with ``Z`` (None stays None)."""
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z") if moment is not None else None


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp kept in UTC and given back timezone-aware, on SQLite (which keeps no zone) as on
    PostgreSQL."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetimes are not stored: use UTC")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    """The declarative base of every row."""

    type_annotation_map: ClassVar[dict[Any, Any]] = {dict[str, Any]: JSON, datetime: UTCDateTime}


ROLES = ("admin", "cashier", "dealer", "inspector", "player")


class User(Base):
    """A person who logs in, with one role (server.md)."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    role: Mapped[str] = mapped_column(String(16))
    password_hash: Mapped[str] = mapped_column(String(256))
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    last_login_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)

    __table_args__ = (CheckConstraint(f"role IN {ROLES!r}", name="user_role"),)


#: names are unique whatever their case (server.md: `Admin` is `admin`); migration 0006
Index("users_name_lower", func.lower(User.name), unique=True)


class LoginSession(Base):
    """A login: its id, the hash of its token (the token itself is never stored), when it was last used
    and when it ended. Sessions live in the database, so they survive a restart."""

    __tablename__ = "sessions"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    ended_reason: Mapped[str | None] = mapped_column(String(32), default=None)


class LoginFailure(Base):
    """A failed login (name and address), for the lockout (rate_limited)."""

    __tablename__ = "login_failures"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), index=True)
    address: Mapped[str] = mapped_column(String(64), index=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, index=True)


ACCOUNT_KINDS = ("wallet", "cage", "table", "house")


class Account(Base):
    """An account of the double-entry ledger: a player's wallet, the cage, a table's chips in play, the
    house. Its balance is the sum of its entries; a wallet can never go below zero (a database check)."""

    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    kind: Mapped[str] = mapped_column(String(16))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), default=None)
    table_id: Mapped[int | None] = mapped_column(Integer, default=None)
    balance: Mapped[int] = mapped_column(BigInteger, default=0)
    #: why the account is frozen (its balance does not reconcile with its entries): no chips move
    frozen: Mapped[str | None] = mapped_column(Text, default=None)
    #: no longer written nor read (migration 0005's column): an unsigned watermark anyone with the database
    #: could move. A reopening's acceptance is a signed ``account`` checkpoint (`integrity.accept_account`)
    checked_to: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")

    __table_args__ = (
        CheckConstraint("kind != 'wallet' OR balance >= 0", name="wallet_never_negative"),
        CheckConstraint(f"kind IN {ACCOUNT_KINDS!r}", name="account_kind"),
    )


class LedgerEntry(Base):
    """One movement of chips on one account. The entries of one transaction (`txn`) sum to zero; every
    stake, payout, commission and return of a round is one, written with the round's events."""

    __tablename__ = "ledger_entries"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    txn: Mapped[str] = mapped_column(String(36), index=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    amount: Mapped[int] = mapped_column(BigInteger)
    balance_after: Mapped[int] = mapped_column(BigInteger)
    kind: Mapped[str] = mapped_column(String(16))
    table_id: Mapped[int | None] = mapped_column(Integer, default=None, index=True)
    round_no: Mapped[int | None] = mapped_column(Integer, default=None)
    player: Mapped[str | None] = mapped_column(String(64), default=None)
    spot: Mapped[str | None] = mapped_column(String(32), default=None)
    seq: Mapped[int | None] = mapped_column(Integer, default=None)
    actor: Mapped[str | None] = mapped_column(String(64), default=None)
    at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, index=True)
    #: the server's Ed25519 signature of the entry (`signing.entry_message`: its fields, its transaction's
    #: size and, where the server knew it, its balance after it), base64
    sig: Mapped[str | None] = mapped_column(Text, default=None)

    __table_args__ = (
        Index("ledger_by_account", "account_id", "id"),
        Index("ledger_by_account_time", "account_id", "at"),  # a wallet's entries of one day (the limits)
    )


TABLE_STATUSES = ("open", "suspended", "closed")


class CasinoTable(Base):
    """A table: its game, mode and settings, its state version (what WebSocket pushes are numbered by),
    its hash chain's head, the round in play and the timer that may be running."""

    __tablename__ = "tables"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    game: Mapped[str] = mapped_column(String(32))
    mode: Mapped[str] = mapped_column(String(8))
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    turn_seconds: Mapped[float | None] = mapped_column(default=None)
    betting_seconds: Mapped[float | None] = mapped_column(default=None)
    status: Mapped[str] = mapped_column(String(16), default="open")
    status_reason: Mapped[str | None] = mapped_column(Text, default=None)
    version: Mapped[int] = mapped_column(Integer, default=0)
    next_seq: Mapped[int] = mapped_column(Integer, default=0)
    head_hash: Mapped[str] = mapped_column(String(64), default="0" * 64)
    round_no: Mapped[int] = mapped_column(Integer, default=0)
    in_round: Mapped[bool] = mapped_column(Boolean, default=False)
    shuffle_no: Mapped[int] = mapped_column(Integer, default=0)
    # no index (migration 0003): the row is updated at every step, and the timers read the few rows whole
    deadline_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    deadline_kind: Mapped[str | None] = mapped_column(String(16), default=None)
    deadline_version: Mapped[int | None] = mapped_column(Integer, default=None)
    pending_shoe_events: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    __table_args__ = (
        CheckConstraint("mode IN ('virtual', 'live')", name="table_mode"),
        CheckConstraint(f"status IN {TABLE_STATUSES!r}", name="table_status"),
    )


class Seat(Base):
    """A box (or zone) taken by a player: its holder."""

    __tablename__ = "seats"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"))
    seat: Mapped[int] = mapped_column(Integer)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    taken_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    __table_args__ = (UniqueConstraint("table_id", "seat", name="one_holder_per_seat"),)


class Bet(Base):
    """A bet for the next round, placed and not yet closed (chips move when the bets close)."""

    __tablename__ = "bets"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    spot: Mapped[str] = mapped_column(String(32))
    amount: Mapped[int] = mapped_column(BigInteger)
    placed_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    __table_args__ = (CheckConstraint("amount > 0", name="bet_positive"),)


class BackBetRequest(Base):
    """A patron's request to join a box behind its holder, waiting for the holder's consent."""

    __tablename__ = "back_bet_requests"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    spot: Mapped[str] = mapped_column(String(32))
    amount: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16), default="waiting")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    answered_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)


class EventRecord(Base):
    """One record of a table's hash chain: ``{"seq", "round", "event", "prev", "at", "by", "hash"}``. The
    pair (table, seq) is unique, so two writers can never both append the next step of a round."""

    __tablename__ = "events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"))
    seq: Mapped[int] = mapped_column(Integer)
    round: Mapped[str] = mapped_column(String(32))
    round_no: Mapped[int | None] = mapped_column(Integer, default=None)
    event: Mapped[dict[str, Any]] = mapped_column(JSON)
    prev: Mapped[str] = mapped_column(String(64))
    at: Mapped[str] = mapped_column(String(40))
    by: Mapped[str | None] = mapped_column(String(64), default=None)
    hash: Mapped[str] = mapped_column(String(64))
    #: the server's Ed25519 signature of (table, seq, hash) (`signing.record_message`), base64
    sig: Mapped[str | None] = mapped_column(Text, default=None)

    __table_args__ = (
        UniqueConstraint("table_id", "seq", name="one_record_per_seq"),
        Index("events_by_round", "table_id", "round_no"),
    )


ROUND_STATUSES = ("in_progress", "finished", "voided")


class RoundRow(Base):
    """A round of a table: its status and times, and a void that waits for a second staff member."""

    __tablename__ = "rounds"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"))
    round_no: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default="in_progress")
    started_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    first_seq: Mapped[int] = mapped_column(Integer)
    last_seq: Mapped[int] = mapped_column(Integer)
    void_requested_by: Mapped[str | None] = mapped_column(String(64), default=None)
    void_reason: Mapped[str | None] = mapped_column(Text, default=None)

    __table_args__ = (
        UniqueConstraint("table_id", "round_no", name="one_round_per_number"),
        CheckConstraint(f"status IN {ROUND_STATUSES!r}", name="round_status"),
    )


class SealedShoe(Base):
    """A virtual table's shoe after a shuffle, sealed (AES-GCM) under the server's key: never in the
    public log. `from_seq` is the first record after the shuffle (the log counts the cards since)."""

    __tablename__ = "shoes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"))
    shuffle_no: Mapped[int] = mapped_column(Integer)
    from_seq: Mapped[int] = mapped_column(Integer)
    sealed: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    __table_args__ = (UniqueConstraint("table_id", "shuffle_no", name="one_shoe_per_shuffle"),)


class IdempotencyKey(Base):
    """The first answer to a request sent with an Idempotency-Key, kept with the change it made."""

    __tablename__ = "idempotency_keys"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    key: Mapped[str] = mapped_column(String(200))
    fingerprint: Mapped[str] = mapped_column(String(64))
    status_code: Mapped[int] = mapped_column(Integer)
    body: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    __table_args__ = (UniqueConstraint("user_id", "key", name="one_answer_per_key"),)


class SignificantEvent(Base):
    """The significant-event log: start and stop, recoveries, tables opened/closed/changed, users and
    roles, cashier operations, corrections and voids. Times are UTC."""

    __tablename__ = "significant_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, index=True)
    kind: Mapped[str] = mapped_column(String(40))
    actor: Mapped[str | None] = mapped_column(String(64), default=None)
    table_id: Mapped[int | None] = mapped_column(Integer, default=None)
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class DeckChangeRequest(Base):
    """A deck change asked for by a player seated at the table or by an inspector (BJ/PyB/M21 Art.4: the
    deck is changed "a solicitud de los participantes, del Inspector"): who asked and why, open until
    the dealer's `deck_change` that names it closes it (the chain's record of it: `closed_seq`)."""

    __tablename__ = "deck_change_requests"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    role: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="open")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    closed_by: Mapped[str | None] = mapped_column(String(64), default=None)
    closed_seq: Mapped[int | None] = mapped_column(Integer, default=None)

    __table_args__ = (CheckConstraint("status IN ('open', 'closed')", name="deck_change_request_status"),)


class Claim(Base):
    """A player's written claim about a round he bet in (rules.md §0, Errors), and the inspector's
    resolution of it: an outcome (upheld or rejected) and a text. Nothing of the round changes."""

    __tablename__ = "claims"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"), index=True)
    round_no: Mapped[int] = mapped_column(Integer)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    text: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="open")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    outcome: Mapped[str | None] = mapped_column(String(16), default=None)
    resolution: Mapped[str | None] = mapped_column(Text, default=None)
    resolved_by: Mapped[str | None] = mapped_column(String(64), default=None)
    resolved_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)

    __table_args__ = (
        CheckConstraint("status IN ('open', 'resolved')", name="claim_status"),
        CheckConstraint("outcome IS NULL OR outcome IN ('upheld', 'rejected')", name="claim_outcome"),
    )


class Checkpoint(Base):
    """A signed statement that a table's chain (kind ``table``) or the ledger (``ledger``: every entry up to
    id `seq`) was verified whole up to `seq`, its record there hashing to `hash`: the start-up's check
    begins above it. ``legacy`` and ``legacy_ledger`` ones mark what was written before signatures (signed
    by migration 0005 alone, once verified); an ``account`` one is an administrator's reopening of account
    `hash` = ``"ID:BALANCE"`` accepting its entries up to id `seq`. Append-only (migration 0009); one
    without a valid signature counts for nothing."""

    __tablename__ = "checkpoints"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    table_id: Mapped[int | None] = mapped_column(Integer, default=None)
    seq: Mapped[int] = mapped_column(BigInteger)
    hash: Mapped[str] = mapped_column(String(64))
    at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    sig: Mapped[str | None] = mapped_column(Text, default=None)

    __table_args__ = (Index("checkpoints_by_table", "kind", "table_id", "seq"),)


class PlayerProtection(Base):
    """A player's identity and protection (migration 0008): his document and birth date, a
    self-exclusion's end, his daily loss and wager limits, session and reality-check minutes, and a
    raised limit waiting its cooling-off (`pending`)."""

    __tablename__ = "player_protection"

    user_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id"), primary_key=True)
    document: Mapped[str | None] = mapped_column(String(20), default=None)
    birth_date: Mapped[str | None] = mapped_column(String(10), default=None)
    excluded_until: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    loss_per_day: Mapped[int | None] = mapped_column(BigInteger, default=None)
    wager_per_day: Mapped[int | None] = mapped_column(BigInteger, default=None)
    session_minutes: Mapped[int | None] = mapped_column(Integer, default=None)
    reality_check_minutes: Mapped[int | None] = mapped_column(Integer, default=None)
    pending: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)

    __table_args__ = (UniqueConstraint("document", name="one_player_per_document"),)


class ProhibitedPerson(Base):
    """A document in the register of persons prohibited from the games, as the administrator loaded it."""

    __tablename__ = "prohibited_persons"

    document: Mapped[str] = mapped_column(String(20), primary_key=True)
    since: Mapped[str | None] = mapped_column(String(10), default=None)


class ProtectionRegister(Base):
    """The register's last load (one row): how many entries, when and by whom."""

    __tablename__ = "protection_register"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    entries: Mapped[int] = mapped_column(Integer)
    loaded_at: Mapped[datetime] = mapped_column(UTCDateTime())
    loaded_by: Mapped[str | None] = mapped_column(String(64), default=None)
