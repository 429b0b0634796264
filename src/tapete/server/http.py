"""What every endpoint module shares: the bounds of numbers and text a request may carry, the strict
request body, the fast JSON answer, and the caller and Idempotency-Key dependencies. A module of its own
so that the endpoint modules (api, control_api, protection, ...) import it and never one another."""

from __future__ import annotations

from typing import Annotated, Any

import pydantic_core
from fastapi import Depends, Header, Query, Request
from fastapi import Path as InPath
from fastapi.responses import JSONResponse
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictInt, model_validator

from tapete.server import state
from tapete.server.accounts import Caller
from tapete.server.app import Casino, Idem
from tapete.server.errors import language

#: the largest id or number a path or query may name: what the database's integer columns hold
MAX_ID = 2**31 - 1
#: the largest amount a request may carry (ten thousand million soles in céntimos): far above any table
#: limit or buy-in, far below what the ledger's 64-bit balances hold
MAX_AMOUNT = 10**12
#: a number in a path: a table's id, a seat, a request, a round
Id = Annotated[int, InPath(ge=0, le=MAX_ID)]
Since = Annotated[int, Query(ge=0, le=MAX_ID, description="events after this id")]
#: integers in bodies: a box, a hand, an amount (the engine judges the values; these bounds only keep
#: what no table can mean from reaching the database)
BodyInt = Annotated[StrictInt, Field(ge=-MAX_ID, le=MAX_ID)]
BodyAmount = Annotated[StrictInt, Field(le=MAX_AMOUNT, description="money units (céntimos by default)")]


def storable(value: Any) -> Any:
    """`value` (a request's text, or JSON holding text) when every string in it can be kept: no NUL
    character (PostgreSQL's text refuses it: it was a 503 "unavailable") and no lone surrogate (JSON's
    ``"\\ud800"`` is no character: UTF-8 cannot carry it, it was a 500); a ValueError otherwise."""
    if isinstance(value, str):
        if "\x00" in value:
            raise ValueError("text may not hold a NUL character")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("text must be valid Unicode (a lone surrogate is not)") from None
    elif isinstance(value, dict):
        for key, item in value.items():
            storable(key)
            storable(item)
    elif isinstance(value, list):
        for item in value:
            storable(item)
    return value


#: a name in a path (a user's): text the database can keep
PathName = Annotated[str, InPath(), AfterValidator(storable)]


# ---------------------------------------------------------------------------------------------- bodies
class Body(BaseModel):
    """A request body: strict JSON types (a number where a number goes), unknown keys ignored, and only
    text the database can keep (`storable`), in every field and in the table settings' free JSON."""

    model_config = ConfigDict(extra="ignore")

    @model_validator(mode="before")
    @classmethod
    def _storable(cls, data: Any) -> Any:
        return storable(data)


class FastJSON(JSONResponse):
    """A JSON answer written by pydantic-core's serializer (several times faster than the standard
    library's, which starlette uses): the table states pushed and answered are the server's biggest
    output."""

    def render(self, content: Any) -> bytes:
        if isinstance(content, state.Rendered):  # a table's state, written once for its viewers
            return bytes(content)
        return pydantic_core.to_json(content)


def _token(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return request.cookies.get("tapete_token")


async def who(request: Request) -> Caller:
    """The caller of the request's Bearer token (Unauthorized without one)."""
    casino: Casino = request.app.state.casino
    return await casino.caller(_token(request))


async def idem_of(request: Request, idempotency_key: Annotated[str | None, Header()] = None) -> Idem | None:
    """The request's Idempotency-Key (server.md), with what identifies the request."""
    lang = language(request.headers.get("accept-language"))
    return Idem.of(idempotency_key, request.method, request.url.path, await request.body(), lang)


Who = Annotated[Caller, Depends(who)]
IdemKey = Annotated[Idem | None, Depends(idem_of)]
