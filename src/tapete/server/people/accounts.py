"""People: users with one role each (names unique whatever their case), passwords hashed with argon2id,
sessions kept in the database (a unique id each, ended at logout, after the idle time, at their longest
life and when their user's password or role changes; surviving a restart), the previous login's time,
and the throttling of failed logins per address and per name (rate_limited with Retry-After). A failed
login answers the same, in the same time, whether its name exists or not (server.md, "Logins and
sessions"); every login, failure, throttling and logout is a significant event."""

from __future__ import annotations

import asyncio
import hashlib
import math
import re
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from sqlalchemy import and_, case, delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from tapete.errors import BadRequest
from tapete.server.config import Settings
from tapete.server.errors import Conflict, Forbidden, RateLimited, Unauthorized
from tapete.server.models import ROLES, LoginFailure, LoginSession, SignificantEvent, User, utcnow
from tapete.server.people import repository as repo
from tapete.server.sql import Q, Tx

#: argon2id (argon2-cffi's default type) with its library defaults (RFC 9106's low-memory profile).
_HASHER = PasswordHasher()
NAME = re.compile(r"^[A-Za-z0-9_.@-]{1,64}$")
#: Touching a session's last-seen time on every request would write on every read: it is touched at
#: most every 30 seconds, and at least ten times per idle limit (a short limit must not end a session
#: that is in use because its last touch is older than the limit).
TOUCH_EVERY = timedelta(seconds=30)


def hash_password(password: str) -> str:
    """An argon2id hash of `password`."""
    return _HASHER.hash(password)


_DUMMY: dict[int, str] = {}


def dummy_hash() -> str:
    """A hash of no one's password, made with the hasher's own parameters: a login of a name that does not
    exist (or of a deactivated user) is checked against it, so that it costs what a wrong password does."""
    found = _DUMMY.get(id(_HASHER))
    if found is None:
        found = _DUMMY[id(_HASHER)] = _HASHER.hash(secrets.token_urlsafe(24))
    return found


def name_key(name: str) -> str:
    """A user name as names are compared: whatever its case (`Admin` is `admin`)."""
    return name.lower()


def check_password(stored: str, password: str) -> bool:
    """Whether `password` matches the stored hash (never raises for a wrong or broken hash)."""
    try:
        return _HASHER.verify(stored, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def token_hash(token: str) -> str:
    """The stored form of a session token (the token itself is never stored nor logged)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Caller:
    """Who is asking: a logged-in user and his session."""

    user_id: int
    name: str
    role: str
    session_id: str

    def need(self, *roles: str) -> None:
        """Forbidden unless the caller has one of `roles`."""
        if self.role not in roles:
            raise Forbidden(
                f"a {self.role} cannot do this (it is for: {', '.join(roles)})",
                key="err.api.role",
                role=self.role,
                roles=list(roles),
            )


def check_name(name: object) -> str:
    """A user name as the API takes it."""
    if not isinstance(name, str) or not NAME.fullmatch(name):  # fullmatch: `$` lets a last newline in
        raise BadRequest(
            "a user name is 1 to 64 letters, digits or _ . @ -", key="err.api.user_name", name=str(name)
        )
    return name


def check_new_password(password: object) -> str:
    """A password long enough to keep (8 characters at least)."""
    if not isinstance(password, str) or len(password) < 8 or len(password) > 256:
        raise BadRequest("a password has 8 to 256 characters", key="err.api.password")
    return password


async def create_user(
    db: AsyncSession, name: str, password: str, role: str, *, actor: str | None, policy: bool = True
) -> User:
    """A new user (Conflict when the name is taken; BadRequest for an unknown role). `policy=False` takes
    a password the operator set himself (TAPETE_ADMIN_PASSWORD) as it is, however short."""
    check_name(name)
    if policy:
        check_new_password(password)
    if role not in ROLES:
        raise BadRequest(
            f"unknown role {role!r}; roles: {', '.join(ROLES)}", key="err.api.role_name", role=role
        )
    taken = await db.scalar(select(User.id).where(func.lower(User.name) == name_key(name)))
    if taken is not None:
        raise Conflict(f"the user {name} exists", key="err.api.user_exists", name=name)
    user = User(name=name, role=role, password_hash=await asyncio.to_thread(hash_password, password))
    db.add(user)
    await db.flush()
    db.add(SignificantEvent(kind="user_created", actor=actor, details={"user": name, "role": role}))
    return user


async def user_named(db: AsyncSession, name: str) -> User | None:
    """The user of a name, whatever its case."""
    found: User | None = await db.scalar(select(User).where(func.lower(User.name) == name_key(name)))
    return found


@dataclass(frozen=True)
class Throttle:
    """Why a login is throttled now, and for how many more seconds (its Retry-After)."""

    scope: str
    seconds: int


async def throttled(db: AsyncSession, settings: Settings, name: str, address: str) -> Throttle | None:
    """Whether a login of `name` from `address` is throttled now (one query over the window's failures):
    - the name from this address, after `lockout_failures` of them: the owner at another address is not;
    - the address, after `lockout_address_failures` failures of any names (forty names, one password);
    - the name from every address together, after `lockout_name_failures`: then an address that failed
      for it at least once waits, and an address that never failed for it keeps its try.
    Each lasts `lockout_seconds` after the last failure it counts."""
    now = settings.clock()
    key = name_key(name)[:64]
    since = now - timedelta(seconds=settings.lockout_window_seconds)
    pair = and_(LoginFailure.name == key, LoginFailure.address == address)
    here = LoginFailure.address == address
    named = LoginFailure.name == key
    row = (
        await db.execute(
            select(
                func.sum(case((pair, 1), else_=0)),
                func.max(case((pair, LoginFailure.at), else_=None)),
                func.sum(case((here, 1), else_=0)),
                func.max(case((here, LoginFailure.at), else_=None)),
                func.sum(case((named, 1), else_=0)),
                func.max(case((named, LoginFailure.at), else_=None)),
            ).where(LoginFailure.at >= since, named | here)
        )
    ).one()
    pair_n, pair_last, here_n, here_last, name_n, name_last = row
    lasting = timedelta(seconds=settings.lockout_seconds)
    found: Throttle | None = None
    for scope, count, last, limit in (
        ("name", pair_n or 0, pair_last, settings.lockout_failures),
        ("address", here_n or 0, here_last, settings.lockout_address_failures),
        ("name_everywhere", name_n or 0, name_last, settings.lockout_name_failures),
    ):
        if limit <= 0 or count < limit or last is None or now - last >= lasting:
            continue
        if scope == "name_everywhere" and not pair_n:  # this address never failed for the name
            continue
        seconds = max(1, math.ceil((last + lasting - now).total_seconds()))
        if found is None or seconds > found.seconds:
            found = Throttle(scope, seconds)
    return found


async def login(
    db: AsyncSession, settings: Settings, name: object, password: object, address: str
) -> tuple[str, User, datetime | None]:
    """A new session for `name` (whatever its case): (token, user, the previous login's time). A throttled
    name or address is refused first (RateLimited, with its seconds). A name that does not exist, or a
    deactivated user, is checked against a dummy hash: the refusal is the same, in the same time. The
    password is checked in a thread: argon2id's tenth of a second of CPU does not hold the event loop."""
    if not isinstance(name, str) or not isinstance(password, str):
        raise BadRequest("login takes a username and a password", key="err.api.login_body")
    now = settings.clock()
    throttle = await throttled(db, settings, name, address)
    if throttle is not None:
        raise RateLimited(
            f"too many failed logins: try again in {throttle.seconds} seconds",
            key="err.api.locked_out",
            seconds=throttle.seconds,
        )
    user = await user_named(db, name)
    usable = user is not None and user.active
    stored = user.password_hash if user is not None and usable else dummy_hash()
    ok = await asyncio.to_thread(check_password, stored, password)
    if not ok or not usable or user is None:
        raise Unauthorized("wrong user name or password", key="err.api.login")  # record_failure counts it
    await db.execute(
        delete(LoginFailure).where(LoginFailure.name == name_key(name)[:64], LoginFailure.address == address)
    )
    previous = user.last_login_at
    user.last_login_at = now
    token = secrets.token_urlsafe(32)
    session_id = str(uuid.uuid4())
    db.add(
        LoginSession(
            id=session_id,
            token_hash=token_hash(token),
            user_id=user.id,
            created_at=now,
            last_seen_at=now,
        )
    )
    db.add(
        SignificantEvent(
            at=now,
            kind="login",
            actor=user.name,
            details={"user": user.name, "address": address, "session": session_id},
        )
    )
    return token, user, previous


async def record_failure(db: AsyncSession, settings: Settings, name: str, address: str) -> None:
    """Count a failed login of `name` from `address` (written in a transaction of its own, since the
    refused login's is rolled back), as the significant event `login_failed`; a failure that starts a
    throttling is also `login_throttled`, naming what is throttled and for how long. The same writes
    whether the name exists or not."""
    now = settings.clock()
    db.add(LoginFailure(name=name_key(name)[:64], address=address[:64], at=now))
    db.add(
        SignificantEvent(at=now, kind="login_failed", details={"name": name[:64], "address": address[:64]})
    )
    await db.flush()
    throttle = await throttled(db, settings, name, address[:64])
    if throttle is not None:
        db.add(
            SignificantEvent(
                at=now,
                kind="login_throttled",
                details={
                    "name": name[:64],
                    "address": address[:64],
                    "scope": throttle.scope,
                    "seconds": throttle.seconds,
                },
            )
        )


async def end_sessions(db: AsyncSession, settings: Settings, user_id: int, reason: str) -> None:
    """End every open session of a user (his password or role changed, or he was deactivated): every
    token of his stops working."""
    await db.execute(
        update(LoginSession)
        .where(LoginSession.user_id == user_id, LoginSession.ended_at.is_(None))
        .values(ended_at=settings.clock(), ended_reason=reason)
    )


@dataclass(frozen=True)
class Verdict:
    """What a session check found: the caller, or the refusal to raise; and what it must write (the
    session's last-seen time touched, or its end after being idle or at its longest life), committed
    before either is used; and the seconds the session has left before its longest life ends it."""

    caller: Caller | None
    refusal: Unauthorized | None = None
    write: Q | None = None
    session_id: str = ""
    at: datetime | None = None
    left: float = 0.0


async def authenticate(tx: Tx, settings: Settings, token: str | None) -> Verdict:
    """The caller of a token, or Unauthorized for none, an unknown one, an ended session, an idle one or
    one past its longest life (which is then ended); the session's last-seen time is touched now and then
    (`TOUCH_EVERY`). Read only: what to write is in the verdict (`write_verdict`), so that an end is
    committed although the request is refused, and a read transaction never has to become a writer."""
    if not token:
        return Verdict(None, Unauthorized("log in first: no token", key="err.api.no_token"))
    found = await tx.one(repo.BY_TOKEN, {"hash": token_hash(token)})
    if found is None:
        return Verdict(None, Unauthorized("this token does not open a session", key="err.api.bad_token"))
    session_id, last_seen, ended, user_id, name, role, active, created = found
    now = settings.clock()
    if ended is not None or not active:
        return Verdict(
            None, Unauthorized("this session has ended: log in again", key="err.api.session_ended")
        )
    left = (created + timedelta(hours=settings.session_max_hours) - now).total_seconds()
    if left <= 0:
        refusal = Unauthorized(
            "the session reached its longest life (12 hours): log in again", key="err.api.session_expired"
        )
        return Verdict(None, refusal, repo.END_EXPIRED, session_id, now)
    idle = timedelta(minutes=settings.session_idle_minutes)
    if now - last_seen > idle:
        refusal = Unauthorized("the session ended after being idle: log in again", key="err.api.session_idle")
        return Verdict(None, refusal, repo.END_IDLE, session_id, now)
    caller = Caller(user_id, name, role, session_id)
    if now - last_seen > min(TOUCH_EVERY, idle / 10):
        return Verdict(caller, None, repo.TOUCH, session_id, now, left)
    return Verdict(caller, left=left)


async def write_verdict(tx: Tx, verdict: Verdict) -> None:
    """What a session check found to write: the last-seen time touched, or the session ended (one that
    already ended keeps its end)."""
    if verdict.write is not None:
        await tx.run(verdict.write, {"id": verdict.session_id, "now": verdict.at or utcnow()})


async def login_before(db: AsyncSession, caller: Caller) -> datetime | None:
    """When the caller's user last logged in before this session began: "the previous login" as this
    session's user sees it (the user's latest login is this session's own, or a later one elsewhere)."""
    began = select(LoginSession.created_at).where(LoginSession.id == caller.session_id).scalar_subquery()
    found: datetime | None = await db.scalar(
        select(func.max(LoginSession.created_at)).where(
            LoginSession.user_id == caller.user_id, LoginSession.created_at < began
        )
    )
    return found


async def session_left(tx: Tx, settings: Settings, caller: Caller) -> tuple[float | None, Verdict | None]:
    """Seconds before the caller's session would end (idle, or at its longest life), or None when it has
    ended (logged out, its user deactivated or given another role, idle or too old: then to be ended, the
    verdict to write). Does not count as a use: an open WebSocket asks it, and watching a table is not
    using the session."""
    found = await tx.one(repo.BY_ID, {"id": caller.session_id})
    if found is None:
        return None, None
    last_seen, ended, role, active, created = found
    if ended is not None or not active or role != caller.role:
        return None, None
    now = settings.clock()
    oldest = (created + timedelta(hours=settings.session_max_hours) - now).total_seconds()
    if oldest <= 0:
        return None, Verdict(None, None, repo.END_EXPIRED, caller.session_id, now)
    left = (last_seen + timedelta(minutes=settings.session_idle_minutes) - now).total_seconds()
    if left < 0:
        return None, Verdict(None, None, repo.END_IDLE, caller.session_id, now)
    return min(left, oldest), None


async def logout(db: AsyncSession, settings: Settings, caller: Caller, address: str) -> None:
    """End the caller's session: its token stops working (a significant event, `logout`)."""
    session = await db.get(LoginSession, caller.session_id)
    if session is not None and session.ended_at is None:
        now = settings.clock()
        session.ended_at = now
        session.ended_reason = "logout"
        db.add(
            SignificantEvent(
                at=now,
                kind="logout",
                actor=caller.name,
                details={"user": caller.name, "address": address, "session": caller.session_id},
            )
        )
