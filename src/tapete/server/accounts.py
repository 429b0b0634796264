"""People: users with one role each, passwords hashed with argon2id, sessions kept in the database (a
unique id each, ended after a setting's idle time, surviving a restart), the previous login's time, and
the lockout after repeated failed logins (rate_limited)."""

from __future__ import annotations

import hashlib
import re
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from tapete.errors import BadRequest
from tapete.server.config import Settings
from tapete.server.errors import Conflict, Forbidden, RateLimited, Unauthorized
from tapete.server.models import ROLES, LoginFailure, LoginSession, SignificantEvent, User, utcnow
from tapete.server.sql import Q, Tx, q

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
    if not isinstance(name, str) or not NAME.match(name):
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
    taken = await db.scalar(select(User.id).where(User.name == name))
    if taken is not None:
        raise Conflict(f"the user {name} exists", key="err.api.user_exists", name=name)
    user = User(name=name, role=role, password_hash=hash_password(password))
    db.add(user)
    await db.flush()
    db.add(SignificantEvent(kind="user_created", actor=actor, details={"user": name, "role": role}))
    return user


async def login(
    db: AsyncSession, settings: Settings, name: object, password: object, address: str
) -> tuple[str, User, datetime | None]:
    """A new session for `name`: (token, user, the previous login's time). Repeated failures of the name
    within the window lock it out for a while: RateLimited, even with the right password. An address is
    locked out only where the operator sets `lockout_address_failures` (off by default: behind a balancer
    or a proxy every client has its address, and a few wrong passwords would lock out everyone)."""
    if not isinstance(name, str) or not isinstance(password, str):
        raise BadRequest("login takes a username and a password", key="err.api.login_body")
    now = utcnow()
    since = now - timedelta(seconds=settings.lockout_window_seconds)
    for who, limit in (
        (LoginFailure.name == name, settings.lockout_failures),
        (LoginFailure.address == address, settings.lockout_address_failures),
    ):
        if limit <= 0:
            continue
        failures, last = (
            await db.execute(
                select(func.count(), func.max(LoginFailure.at)).where(LoginFailure.at >= since, who)
            )
        ).one()
        if (
            (failures or 0) >= limit
            and last is not None
            and now - last < timedelta(seconds=settings.lockout_seconds)
        ):
            raise RateLimited(
                "too many failed logins: try again in a minute", key="err.api.locked_out", name=name
            )
    user = await db.scalar(select(User).where(User.name == name))
    ok = user is not None and user.active and check_password(user.password_hash, password)
    if not ok or user is None:
        raise Unauthorized("wrong user name or password", key="err.api.login")  # record_failure counts it
    await db.execute(delete(LoginFailure).where(LoginFailure.name == name))
    previous = user.last_login_at
    user.last_login_at = now
    token = secrets.token_urlsafe(32)
    db.add(
        LoginSession(
            id=str(uuid.uuid4()),
            token_hash=token_hash(token),
            user_id=user.id,
            created_at=now,
            last_seen_at=now,
        )
    )
    return token, user, previous


async def record_failure(db: AsyncSession, name: str, address: str) -> None:
    """Count a failed login of `name` from `address` for the lockout; written in a transaction of its
    own, since the refused login's is rolled back."""
    db.add(LoginFailure(name=name[:64], address=address[:64]))


_BY_TOKEN = q(
    "SELECT s.id, s.last_seen_at, s.ended_at, u.id, u.name, u.role, u.active FROM sessions s"
    " JOIN users u ON u.id = s.user_id WHERE s.token_hash = :hash",
    times=[1, 2],
    bools=[6],
)
_BY_ID = q(
    "SELECT s.last_seen_at, s.ended_at, u.role, u.active FROM sessions s"
    " JOIN users u ON u.id = s.user_id WHERE s.id = :id",
    times=[0, 1],
    bools=[3],
)
_TOUCH = q("UPDATE sessions SET last_seen_at = :now WHERE id = :id")
_END_IDLE = q(
    "UPDATE sessions SET ended_at = :now, ended_reason = 'idle' WHERE id = :id AND ended_at IS NULL"
)


@dataclass(frozen=True)
class Verdict:
    """What a session check found: the caller, or the refusal to raise; and what it must write (the
    session's last-seen time touched, or its end after being idle), committed before either is used."""

    caller: Caller | None
    refusal: Unauthorized | None = None
    write: Q | None = None
    session_id: str = ""


async def authenticate(tx: Tx, settings: Settings, token: str | None) -> Verdict:
    """The caller of a token, or Unauthorized for none, an unknown one, an ended or an idle session
    (which is then ended); the session's last-seen time is touched now and then (`TOUCH_EVERY`). Read
    only: what to write is in the verdict (`write_verdict`), so that an idle end is committed although
    the request is refused, and a read transaction never has to become a writer."""
    if not token:
        return Verdict(None, Unauthorized("log in first: no token", key="err.api.no_token"))
    found = await tx.one(_BY_TOKEN, {"hash": token_hash(token)})
    if found is None:
        return Verdict(None, Unauthorized("this token does not open a session", key="err.api.bad_token"))
    session_id, last_seen, ended, user_id, name, role, active = found
    now = utcnow()
    if ended is not None or not active:
        return Verdict(
            None, Unauthorized("this session has ended: log in again", key="err.api.session_ended")
        )
    idle = timedelta(minutes=settings.session_idle_minutes)
    if now - last_seen > idle:
        refusal = Unauthorized("the session ended after being idle: log in again", key="err.api.session_idle")
        return Verdict(None, refusal, _END_IDLE, session_id)
    caller = Caller(user_id, name, role, session_id)
    if now - last_seen > min(TOUCH_EVERY, idle / 10):
        return Verdict(caller, None, _TOUCH, session_id)
    return Verdict(caller)


async def write_verdict(tx: Tx, verdict: Verdict) -> None:
    """What a session check found to write: the last-seen time touched, or the idle session ended (one
    that already ended keeps its end)."""
    if verdict.write is not None:
        await tx.run(verdict.write, {"id": verdict.session_id, "now": utcnow()})


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
    """Seconds before the caller's session would end idle, or None when it has ended (logged out, its
    user deactivated or given another role, or idle: then to be ended, the verdict to write). Does not
    count as a use: an open WebSocket asks it, and watching a table is not using the session."""
    found = await tx.one(_BY_ID, {"id": caller.session_id})
    if found is None:
        return None, None
    last_seen, ended, role, active = found
    if ended is not None or not active or role != caller.role:
        return None, None
    now = utcnow()
    left = (last_seen + timedelta(minutes=settings.session_idle_minutes) - now).total_seconds()
    if left < 0:
        return None, Verdict(None, None, _END_IDLE, caller.session_id)
    return left, None


async def logout(db: AsyncSession, caller: Caller) -> None:
    """End the caller's session: its token stops working."""
    session = await db.get(LoginSession, caller.session_id)
    if session is not None and session.ended_at is None:
        session.ended_at = utcnow()
        session.ended_reason = "logout"
