"""What every endpoint module shares: the bounds of numbers and text a request may carry and what the
document says of them, the strict request body, the fast JSON answer, the casino, caller and
Idempotency-Key dependencies, the Idempotency-Key guard of a change, and what a table step's route
takes (`Lane`). A module of its own so that the endpoint modules (tables_api, control_api,
protection_api, ...) import it and never one another."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any

import pydantic_core
from fastapi import Depends, Header, Query, Request
from fastapi import Path as InPath
from fastapi.responses import JSONResponse, Response
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    model_validator,
)
from starlette.requests import HTTPConnection

from tapete.errors import TapeteError
from tapete.server.app import Casino
from tapete.server.errors import error_body, language, status_of
from tapete.server.idempotency import Idem, Replay
from tapete.server.people.accounts import Caller
from tapete.server.play import state
from tapete.server.play.snapshot import Snapshot
from tapete.server.play.table_row import TableRow
from tapete.server.play.tables import TableRuntime
from tapete.server.sql import Tx

#: the largest id or number a path or query may name: what the database's integer columns hold
MAX_ID = 2**31 - 1
#: the largest amount a request may carry (ten thousand million soles in céntimos): far above any table
#: limit or buy-in, far below what the ledger's 64-bit balances hold
MAX_AMOUNT = 10**12
#: a number in a path: a table's id, a seat, a request, a round
Id = Annotated[int, InPath(ge=0, le=MAX_ID)]
Since = Annotated[int, Query(ge=0, le=MAX_ID, description="events after this id")]
#: integers in bodies (`BodyInt`, `BodyAmount` below): a box, a hand, an amount (the engine judges the
#: values; the bounds only keep what no table can mean from reaching the database)


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


# ------------------------------------------------------------------------- what the document says
# Every constraint the server puts on a body or a parameter is also in /openapi.json (server.md: the
# document tells the truth): a request valid by the document is never refused for its shape. The
# server's own checks stay where they are, with their keys; these schemas say the same to a client.
#: text the database can keep: no NUL character (PostgreSQL's text refuses it; `storable`)
NO_NUL = r"^[^\x00]*$"
#: text with something in it besides spaces (what `str.strip` leaves), and no NUL
NOT_BLANK = r"^[^\x00]*[^\s\x00\x1c-\x1f\x85][^\x00]*$"
#: a user name (`accounts.NAME`); `(?!\n)` because a validator with Python's regexes lets `$` match
#: before a last newline, and the server refuses that name
USER_NAME = r"^[A-Za-z0-9_.@-]{1,64}(?!\n)$"


def text(**schema: Any) -> Any:
    """A text field: what the document says of it (`schema`), no NUL character in any case."""
    return Field(json_schema_extra={"pattern": NO_NUL, **schema})


def _whole(value: Any) -> Any:
    """A number with nothing after the point (``626.0``) is the integer it names: JSON Schema's integer
    type counts it as one, so the server takes it as one (a fraction stays refused)."""
    if type(value) is float and value.is_integer():
        return int(value)
    return value


BodyInt = Annotated[StrictInt, Field(ge=-MAX_ID, le=MAX_ID), BeforeValidator(_whole)]
#: a whole number in a body: ``626.0`` taken as 626, as JSON Schema's integer type counts it (put after
#: the number's bounds in an Annotated, so that the document says them)
WHOLE = BeforeValidator(_whole)


#: a table's, a round's or a request's number in a body
BodyId = Annotated[StrictInt, Field(ge=0, le=MAX_ID), BeforeValidator(_whole)]
#: a bet's or a decision's amount: the engine refuses one below 1 (bad_bet, illegal_action), and the
#: document says so (its refusal stays the engine's, with its code)
BodyAmount = Annotated[
    StrictInt,
    Field(le=MAX_AMOUNT, description="money units (céntimos by default)", json_schema_extra={"minimum": 1}),
    BeforeValidator(_whole),
]
#: a cashier's amount: a positive whole number of money units (the server's err.api.amount)
CashierAmount = Annotated[
    StrictInt,
    Field(le=MAX_AMOUNT, description="money units (céntimos by default)", json_schema_extra={"minimum": 1}),
    BeforeValidator(_whole),
]
#: a table setting's value: what scenario.md's settings are (numbers, texts, flags, a paytable's object)
_SCALAR: list[dict[str, Any]] = [
    {"type": "string", "pattern": NO_NUL},
    {"type": "number"},
    {"type": "boolean"},
    {"type": "null"},
]
SETTING: dict[str, Any] = {
    "anyOf": [
        *_SCALAR,
        {"type": "array", "items": {"anyOf": _SCALAR}},
        {"type": "object", "propertyNames": {"pattern": NO_NUL}, "additionalProperties": {"anyOf": _SCALAR}},
    ]
}

#: a text in a list: no NUL character
Text = Annotated[StrictStr, Field(json_schema_extra={"pattern": NO_NUL})]
#: a name in a path (a user's): text the database can keep
PathName = Annotated[str, InPath(json_schema_extra={"pattern": NO_NUL}), AfterValidator(storable)]


# ---------------------------------------------------------------------------------------------- bodies
class Body(BaseModel):
    """A request body: strict JSON types (a number where a number goes, ``626.0`` as 626), unknown keys
    ignored, and only text the database can keep (`storable`), in every field and in the table settings'
    free JSON."""

    model_config = ConfigDict(extra="ignore")

    @model_validator(mode="before")
    @classmethod
    def _storable(cls, data: Any) -> Any:
        """Every field's text checked (`storable`); a key the model does not know is ignored whole, its
        text too (it is never kept, and the document lets a client send it)."""
        if isinstance(data, dict):
            for name in cls.model_fields:
                if name in data:
                    storable(data[name])
            return data
        return storable(data)


class FastJSON(JSONResponse):
    """A JSON answer written by pydantic-core's serializer (several times faster than the standard
    library's, which starlette uses): the table states pushed and answered are the server's biggest
    output."""

    def render(self, content: Any) -> bytes:
        if isinstance(content, state.Rendered):  # a table's state, written once for its viewers
            return bytes(content)
        return pydantic_core.to_json(content)


def _address(request: Request) -> str:
    """The client's address (behind a proxy, the one uvicorn's forwarded headers give)."""
    return request.client.host if request.client else "?"


def _token(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return request.cookies.get("tapete_token")


def casino_of(connection: HTTPConnection) -> Casino:
    """The server process's casino, which `api.create_app` keeps on the app (a request's or a
    WebSocket's): the endpoint modules' routers are the module's own, built once at import."""
    casino: Casino = connection.app.state.casino
    return casino


async def who(request: Request) -> Caller:
    """The caller of the request's Bearer token (Unauthorized without one)."""
    return await casino_of(request).sessions.caller(_token(request))


async def idem_of(request: Request, idempotency_key: Annotated[str | None, Header()] = None) -> Idem | None:
    """The request's Idempotency-Key (server.md), with what identifies the request."""
    lang = language(request.headers.get("accept-language"))
    return Idem.of(idempotency_key, request.method, request.url.path, await request.body(), lang)


Who = Annotated[Caller, Depends(who)]
IdemKey = Annotated[Idem | None, Depends(idem_of)]
CasinoOf = Annotated[Casino, Depends(casino_of)]


#: an answer's status: one for every answer, or one read from the answer (a bet's 202 when it waits)
Status = int | Callable[[Any], int]


async def guarded(
    casino: Casino, caller: Caller, idem: Idem | None, run: Callable[[], Awaitable[Any]], status: Status = 200
) -> Response:
    """Run a change sent with an Idempotency-Key: answered again with its first answer when the key was
    seen before (a creation kept as 200 is `status` again), a refusal remembered under the key."""
    of = status if callable(status) else (lambda _: status)
    try:
        result = await run()
    except Replay as replay:
        return FastJSON(replay.body, status_code=of(replay.body) if replay.status == 200 else replay.status)
    except TapeteError as exc:
        if idem is not None:
            await casino.remember_refusal(caller, idem, status_of(exc), error_body(exc, idem.lang))
        raise
    return FastJSON(result, status_code=of(result))


async def run_change(
    casino: Casino,
    caller: Caller,
    idem: Idem | None,
    fn: Callable[[Tx], Awaitable[Any]],
    status: Status = 200,
) -> Response:
    """A change that is not a table's step (the cashier, a claim), in one transaction (`Casino.run_tx`)
    under the request's Idempotency-Key (`guarded`)."""
    return await guarded(casino, caller, idem, lambda: casino.run_tx(fn, caller=caller, idem=idem), status)


async def run_step(
    casino: Casino,
    caller: Caller,
    idem: Idem | None,
    table_id: int,
    fn: Callable[[Tx, TableRow, TableRuntime], Awaitable[Any]],
    status: Status = 200,
    then: Callable[[Tx, TableRuntime, Any, Snapshot], Awaitable[Any]] | None = None,
) -> Response:
    """A step of one table (`Casino.mutate`: its lock, its transaction, its push) under the request's
    Idempotency-Key (`guarded`); `then` makes the answer from the step's result and its snapshot."""
    return await guarded(
        casino, caller, idem, lambda: casino.mutate(table_id, fn, caller=caller, idem=idem, then=then), status
    )


#: a table step's handler: (casino, table id, parsed body or None, caller, Idempotency-Key) -> answer
Handler = Callable[[Casino, int, Any, Caller, Idem | None], Awaitable[Response]]


@dataclass(frozen=True)
class Lane:
    """A table step its `api.StepRoute` takes: its body's model (None: no body) and its handler, the very
    coroutine the FastAPI endpoint calls."""

    model: type[Body] | None
    handler: Handler
