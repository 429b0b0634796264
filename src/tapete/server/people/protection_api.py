"""Player protection's endpoints (server.md, "Player protection"): the player's limits and
self-exclusion, the prohibited-persons register, a player's identity for the cashier. Thin: the rules
are `protection.Protection`'s."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError

from tapete.server.errors import NotFound
from tapete.server.http import WHOLE, casino_of, who
from tapete.server.people.accounts import NAME
from tapete.server.people.protection import LIMITS, MAX_EXCLUSION_DAYS, MAX_LIMIT_AMOUNT, MAX_MINUTES

#: a limit's amount and minutes: whole numbers within their bounds (said in the document too)
_Amount = Annotated[StrictInt, Field(ge=1, le=MAX_LIMIT_AMOUNT), WHOLE]
_Minutes = Annotated[StrictInt, Field(ge=1, le=MAX_MINUTES), WHOLE]
_Days = Annotated[StrictInt, Field(ge=1, le=MAX_EXCLUSION_DAYS), WHOLE]


#: what the register's body reads as (protection.parse_register): an optional header, then lines of a
#: document (4 to 20 letters or digits) and an optional ISO date
REGISTER_PATTERN = (
    r"^(?:document,since\n)?(?:[A-Za-z0-9]{4,20}"
    r"(?:,[1-9][0-9]{3}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8]))?\n)*$"
)


class LimitsBody(BaseModel):
    """A player's limits: a key absent stays as it is; null removes the limit (after 24 hours)."""

    model_config = ConfigDict(extra="ignore")

    loss_per_day: _Amount | None = Field(default=None, description="money units")
    wager_per_day: _Amount | None = Field(default=None, description="money units")
    session_minutes: _Minutes | None = None
    reality_check_minutes: _Minutes | None = Field(default=None, description="null: the default, 60")


class ExclusionBody(BaseModel):
    """A self-exclusion's length."""

    model_config = ConfigDict(extra="ignore")

    days: _Days


class PendingLimit(BaseModel):
    """A raise (or a removal) that waits its 24 hours."""

    model_config = ConfigDict(populate_by_name=True)

    value: int | None = Field(description="the limit it will be; null: none")
    from_: str = Field(alias="from", description="when it takes effect (UTC, ISO)")


class LimitsOut(BaseModel):
    """The limits in force (null: none) and those that wait."""

    loss_per_day: int | None
    wager_per_day: int | None
    session_minutes: int | None
    reality_check_minutes: int
    reality_check_default: int
    pending: dict[str, PendingLimit]


class ExclusionOut(BaseModel):
    """The end of a self-exclusion."""

    until: str = Field(description="UTC, ISO")


class RegisterOut(BaseModel):
    """The register in force."""

    entries: int
    loaded_at: str | None
    loaded_by: str | None = None


class RegisterLoaded(BaseModel):
    """A register just loaded."""

    entries: int
    loaded_at: str
    players_on_it: list[str] = Field(description="the players whose document it holds")


class ProtectedPlayer(BaseModel):
    """A player's identity and protection, as staff see them."""

    player: str
    document: str | None
    birth_date: str | None
    identified: bool
    prohibited: bool
    excluded_until: str | None


router = APIRouter()


@router.put("/api/me/limits", tags=["protection"], response_model=LimitsOut, response_model_by_alias=True)
async def put_limits(body: LimitsBody, request: Request) -> dict[str, Any]:
    """The player's own limits: lowering takes effect at once, raising or removing 24 hours later
    (shown under `pending`)."""
    caller = await who(request)
    caller.need("player")
    asked = {name: getattr(body, name) for name in LIMITS if name in body.model_fields_set}
    return await casino_of(request).protection.set_limits(caller, asked)


@router.post(
    "/api/me/exclusion",
    tags=["protection"],
    response_model=ExclusionOut,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": ExclusionBody.model_json_schema()}},
        }
    },
)
async def post_exclusion(request: Request) -> dict[str, Any]:
    """The player excludes himself for `days` (1 to 3650): his tokens end at once; no login until
    `until`; nobody can lift it early. (The caller's role is checked before his body.)"""
    caller = await who(request)
    caller.need("player")
    try:
        body = ExclusionBody.model_validate_json(await request.body())
    except ValidationError as exc:
        raise RequestValidationError(exc.errors()) from None
    return await casino_of(request).protection.exclude(caller, body.days)


@router.put(
    "/api/protection/register",
    tags=["protection"],
    response_model=RegisterLoaded,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "text/csv": {
                    "schema": {
                        "type": "string",
                        "description": "document,since lines",
                        "pattern": REGISTER_PATTERN,
                    }
                }
            },
        }
    },
)
async def put_register(request: Request) -> dict[str, Any]:
    """The register of persons prohibited from the games, replaced whole (admin): CSV lines
    ``document,since``. From this moment a player whose document it holds is refused at login,
    buy-in, seat and bet."""
    caller = await who(request)
    caller.need("admin")
    return await casino_of(request).protection.load_register(caller, await request.body())


@router.get("/api/protection/register", tags=["protection"], response_model=RegisterOut)
async def get_register(request: Request) -> dict[str, Any]:
    """How many entries the register holds and when it was loaded (admin, inspector)."""
    caller = await who(request)
    caller.need("admin", "inspector")
    return await casino_of(request).protection.register()


@router.get("/api/protection/players/{name}", tags=["protection"], response_model=ProtectedPlayer)
async def get_protected_player(name: str, request: Request) -> dict[str, Any]:
    """A player's identity, whether the register holds him and whether he excluded himself
    (cashier, admin, inspector)."""
    caller = await who(request)
    caller.need("cashier", "admin", "inspector")
    if not NAME.match(name):
        raise NotFound(f"no player {name}", key="err.api.no_player", name=name[:64])
    return await casino_of(request).protection.player(name)
