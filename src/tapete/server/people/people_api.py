"""The people's endpoints: logging in and out, who I am and my rounds, the administrator's users
(server.md, Logins and sessions; Roles). The service is `accounts` (sessions, passwords) and
`protection` (a player's identity and limits)."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field, StrictBool, StrictStr
from pydantic.json_schema import SkipJsonSchema
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from tapete.errors import BadRequest
from tapete.server.cashier import ledger
from tapete.server.errors import Forbidden, NotFound, Unauthorized
from tapete.server.http import (
    NO_NUL,
    USER_NAME,
    Body,
    CasinoOf,
    FastJSON,
    PathName,
    Who,
    _address,
    text,
)
from tapete.server.inspection import inspector
from tapete.server.models import ROLES, SignificantEvent, User
from tapete.server.people import accounts, protection
from tapete.server.people.protection_api import LimitsOut

router = APIRouter()

#: a DNI (protection.DNI): what the document says of a player's document
DNI_PATTERN = r"^[0-9]{8}$"


class LoginBody(Body):
    username: StrictStr = text()
    password: StrictStr = text()


class UserBody(Body):
    username: StrictStr = text(pattern=USER_NAME)
    password: StrictStr = text(minLength=8, maxLength=256)
    role: StrictStr = text(enum=list(ROLES))
    document: StrictStr | None = Field(
        default=None, description="a player's DNI: 8 digits", json_schema_extra={"pattern": DNI_PATTERN}
    )
    birth_date: StrictStr | None = Field(
        default=None,
        description="a player's birth date (ISO); 18 or older",
        json_schema_extra={"format": "date"},
    )


class UserChange(Body):
    role: StrictStr | None = Field(None, json_schema_extra={"enum": [*ROLES, None]})
    active: StrictBool | None = None
    password: StrictStr | None = Field(
        None, json_schema_extra={"pattern": NO_NUL, "minLength": 8, "maxLength": 256}
    )
    document: StrictStr | None = Field(
        default=None,
        description="a player's DNI (admin, cashier)",
        json_schema_extra={"pattern": DNI_PATTERN},
    )
    birth_date: StrictStr | None = Field(
        default=None,
        description="a player's birth date (admin, cashier)",
        json_schema_extra={"format": "date"},
    )


class LoginUser(BaseModel):
    """Who logged in."""

    name: str
    role: str


class LoginAnswer(BaseModel):
    """`POST /api/login`: the token to send as ``Authorization: Bearer``, and who it is."""

    token: str
    user: LoginUser


class Nothing(BaseModel):
    """An answer with nothing to say (``{}``)."""


class MeSession(BaseModel):
    """A player's session (player protection): when it began, his previous login, what he wagered
    and his net in it."""

    started_at: str
    previous_login: str | None
    wagered: int
    net: int


class Me(BaseModel):
    """`GET /api/me`: who I am; a player's balance, session and limits too."""

    name: str
    role: str
    balance: int | SkipJsonSchema[None] = None
    session: MeSession | SkipJsonSchema[None] = None
    limits: LimitsOut | SkipJsonSchema[None] = None


class UserMade(BaseModel):
    """`POST /api/users`: the user made."""

    name: str
    role: str


@router.post(
    "/api/login",
    tags=["people"],
    responses={200: {"model": LoginAnswer}, 429: {"description": "rate_limited"}},
)
async def post_login(casino: CasinoOf, body: LoginBody, request: Request) -> Response:
    """A token for `username`, whatever its case (rate_limited, with Retry-After, after repeated
    failures from the address or for the name). A failed login answers the same whether the name
    exists or not."""
    address = _address(request)

    async def run(db: AsyncSession) -> dict[str, Any]:
        token, user, previous = await accounts.login(
            db, casino.settings, body.username, body.password, address
        )
        await casino.protection.check_login(user.id, user.role)  # the register, a self-exclusion
        return {
            "token": token,
            "user": {"name": user.name, "role": user.role},
            "previous_login": previous.isoformat().replace("+00:00", "Z") if previous else None,
        }

    try:
        return FastJSON(await casino.run(run))
    except Unauthorized as exc:  # the refusal rolled its transaction back: count it in its own
        if exc.key == "err.api.login":
            await casino.run(lambda db: accounts.record_failure(db, casino.settings, body.username, address))
        raise


@router.post("/api/logout", tags=["people"], responses={200: {"model": Nothing}})
async def post_logout(casino: CasinoOf, caller: Who, request: Request) -> dict[str, Any]:
    """End this session: its token stops working."""
    await casino.run(lambda db: accounts.logout(db, casino.settings, caller, _address(request)))
    await casino.sessions.forget(session=caller.session_id)
    return {}


@router.get("/api/me", tags=["people"], responses={200: {"model": Me}})
async def get_me(casino: CasinoOf, caller: Who) -> dict[str, Any]:
    """Who I am: name, role, balance (players: also what is free to bet), the previous login."""
    async with casino.db() as db:
        user = await db.get(User, caller.user_id)
        assert user is not None
        previous = await accounts.login_before(db, caller)
        out: dict[str, Any] = {
            "name": user.name,
            "role": user.role,
            "previous_login": previous.isoformat().replace("+00:00", "Z") if previous else None,
        }
    if user.role == "player":
        async with casino.store.transaction(write=False) as tx:
            balance, free = await ledger.available(tx, ledger.Player(user.id, user.name))
        out["balance"] = balance
        out["available"] = free
        out.update(await casino.protection.me(caller))  # his session and his limits
    return out


@router.get("/api/me/rounds", tags=["people"])
async def get_my_rounds(casino: CasinoOf, caller: Who) -> dict[str, Any]:
    """A player's own last 10 rounds, with only what he was allowed to see."""
    caller.need("player")
    async with casino.db() as db:
        user = await db.get(User, caller.user_id)
        assert user is not None
        return {"rounds": await inspector.player_rounds(db, user)}


# -- users ----------------------------------------------------------------------------------------
@router.post("/api/users", tags=["people"], status_code=201, responses={201: {"model": UserMade}})
async def post_user(casino: CasinoOf, body: UserBody, caller: Who) -> Response:
    """A new user with one role (admin)."""
    caller.need("admin")
    ident = protection.identity_of(body.document, body.birth_date, casino.protection.today())

    async def run(db: AsyncSession) -> dict[str, Any]:
        user = await accounts.create_user(db, body.username, body.password, body.role, actor=caller.name)
        await casino.protection.set_identity(db, user.id, user.name, user.role, ident, caller.name)
        return {"name": user.name, "role": user.role}

    return FastJSON(await casino.run(run), status_code=201)


@router.get("/api/users", tags=["people"])
async def get_users(casino: CasinoOf, caller: Who) -> dict[str, Any]:
    """Every user and role (admin, inspector)."""
    caller.need("admin", "inspector")
    async with casino.db() as db:
        users = await db.scalars(select(User).order_by(User.name))
        return {"users": [{"name": u.name, "role": u.role, "active": u.active} for u in users]}


@router.patch("/api/users/{name}", tags=["people"])
async def patch_user(casino: CasinoOf, name: PathName, body: UserChange, caller: Who) -> dict[str, Any]:
    """Change a user's role, active flag or password (admin); an administrator cannot demote himself. A
    player's identity (document, birth_date): admin or cashier."""
    caller.need("admin", "cashier")
    if caller.role != "admin" and (body.role, body.active, body.password) != (None, None, None):
        caller.need("admin")
    ident = protection.identity_of(body.document, body.birth_date, casino.protection.today())

    async def run(db: AsyncSession) -> dict[str, Any]:
        user = await accounts.user_named(db, name)
        if user is None:
            raise NotFound(f"no user {name}", key="err.api.no_user", name=name)
        change: dict[str, Any] = {}
        ended: list[str] = []  # why his tokens end: a new password, a new role, deactivated
        if body.role is not None:
            if body.role not in ROLES:
                raise BadRequest(f"unknown role {body.role!r}", key="err.api.role_name", role=body.role)
            if user.id == caller.user_id and body.role != "admin":
                raise Forbidden("an administrator cannot demote himself", key="err.api.self_demote")
            if body.role != user.role:
                ended.append("role")
                db.add(
                    SignificantEvent(
                        kind="role_changed",
                        actor=caller.name,
                        details={"user": user.name, "from": user.role, "to": body.role},
                    )
                )
            user.role = body.role
            change["role"] = body.role
        if body.active is not None:
            if user.id == caller.user_id and not body.active:
                raise Forbidden("an administrator cannot lock himself out", key="err.api.self_demote")
            if user.active and not body.active:
                ended.append("deactivated")
            user.active = body.active
            change["active"] = body.active
        if body.password is not None:
            password = accounts.check_new_password(body.password)
            user.password_hash = await asyncio.to_thread(accounts.hash_password, password)
            change["password"] = "changed"
            ended.append("password")
            db.add(SignificantEvent(kind="password_changed", actor=caller.name, details={"user": user.name}))
        await casino.protection.set_identity(db, user.id, user.name, user.role, ident, caller.name)
        if ended:
            await accounts.end_sessions(db, casino.settings, user.id, ended[-1])
        db.add(SignificantEvent(kind="user_changed", actor=caller.name, details={"user": name, **change}))
        return {"name": user.name, "role": user.role, "active": user.active, "id": user.id}

    changed = await casino.run(run)
    await casino.sessions.forget(user=changed.pop("id"))
    return changed
