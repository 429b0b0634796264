"""The HTTP and WebSocket API of shared/spec/server.md (and what it adds beside it), served as OpenAPI.

The endpoints are thin: each checks who calls, turns the request into the service's call, and lets the
one error handler turn typed errors into statuses and server.md's body in the caller's language.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError, WebSocketRequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from fastapi.routing import APIRoute
from fastapi_offline import FastAPIOffline
from pydantic import (
    ConfigDict,
    Field,
    StrictBool,
    StrictStr,
    ValidationError,
)
from sqlalchemy import select
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import BaseRoute, Match

from tapete.errors import BadRequest, TapeteError
from tapete.games import GAMES
from tapete.server import (
    accounts,
    betting,
    control_api,
    inspector,
    integrity,
    integrity_api,
    ledger,
    openapi,
    protection,
    protection_api,
    shoeboard,
    state,
    tables,
    words,
)
from tapete.server.accounts import Caller
from tapete.server.app import Casino, Idem, Replay, health, lifespan_of
from tapete.server.config import VERSION
from tapete.server.errors import (
    Conflict,
    Forbidden,
    NotFound,
    Unauthorized,
    error_body,
    headers_of,
    language,
    status_of,
)
from tapete.server.guard import Guard
from tapete.server.http import (
    MAX_ID,
    NO_NUL,
    NOT_BLANK,
    SETTING,
    USER_NAME,
    Body,
    BodyAmount,
    BodyInt,
    CashierAmount,
    FastJSON,
    Id,
    IdemKey,
    PathName,
    Since,
    Text,
    Who,
    _address,
    _token,
    text,
    who,
)
from tapete.server.models import ROLES, CasinoTable, SignificantEvent, User
from tapete.server.sql import Tx, Unavailable, q
from tapete.server.tables import LIVE_PROCEDURES, TableRow, TableRuntime

STATIC = Path(__file__).resolve().parent / "static"
_PLAYER = q("SELECT id, name FROM users WHERE name = :name AND role = 'player'")
_PLAYERS = q(
    "SELECT u.name, COALESCE(a.balance, 0) FROM users u"
    " LEFT JOIN accounts a ON a.user_id = u.id AND a.kind = 'wallet' WHERE u.role = 'player' ORDER BY u.name"
)
_MOVEMENTS = q(
    'SELECT e.id, e.kind, e.amount, e.balance_after, e.table_id, e.round_no, e."at" FROM ledger_entries e'
    " JOIN accounts a ON a.id = e.account_id WHERE a.name = :name ORDER BY e.id DESC LIMIT 20",
    times=[6],
)


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


class CashierBody(Body):
    player: StrictStr = text()
    amount: CashierAmount


class TableBody(Body):
    game: StrictStr = text(enum=list(GAMES))
    name: StrictStr = text(pattern=NOT_BLANK, minLength=1, maxLength=80)
    mode: StrictStr = Field("virtual", json_schema_extra={"enum": ["virtual", "live"]})
    rules: dict[str, Any] = Field(
        default_factory=dict,
        description="scenario.md's keys, turn_seconds, betting_seconds",
        json_schema_extra={"propertyNames": {"pattern": NO_NUL}, "additionalProperties": SETTING},
    )


class TableChange(Body):
    status: StrictStr = Field(
        description="open | suspended | closed", json_schema_extra={"enum": ["open", "suspended", "closed"]}
    )
    reason: StrictStr = text(pattern=NOT_BLANK)


class SeatBody(Body):
    seat: BodyInt


class BetBody(Body):
    seat: BodyInt
    spot: StrictStr = text()
    amount: BodyAmount


class AnswerBody(Body):
    accept: StrictBool


class ActionBody(Body):
    seat: BodyInt
    action: StrictStr = text()
    hand: BodyInt | None = None
    amount: BodyAmount | None = None
    cards: list[Text] | None = None


class CardBody(Body):
    card: StrictStr = text()
    exposed: StrictBool = False


class ProcedureBody(Body):
    #: a deck change says its reason (tables.procedure)
    model_config = ConfigDict(
        extra="ignore",
        json_schema_extra={
            "if": {"properties": {"type": {"const": "deck_change"}}, "required": ["type"]},
            "then": {
                "required": ["reason"],
                "properties": {"reason": {"type": "string", "pattern": NOT_BLANK}},
            },
        },
    )

    type: StrictStr = Field(
        description="new_pack | inspect | show | turn | mix | shuffle | cut | load | burn | deck_change"
        " | cut_card",
        json_schema_extra={"enum": list(LIVE_PROCEDURES)},
    )
    reason: StrictStr | None = Field(None, json_schema_extra={"pattern": NO_NUL, "maxLength": 500})
    cards: list[Text] | None = Field(None, description="burn: the burned cards; inspect: the pack as read")
    result: StrictStr | None = Field(
        None, description="inspect: complete | rejected", json_schema_extra={"enum": ["complete", "rejected"]}
    )
    jokers_removed: BodyInt | None = Field(None, description="inspect: the jokers taken out and counted")
    by: StrictStr | None = Field(
        None,
        description='cut: "dealer" or a player seated at the table',
        json_schema_extra={"pattern": NO_NUL},
    )
    cut_card_depth: BodyInt | None = Field(
        None, description="cut: cards behind the cut card, 40 to half the pack"
    )
    request: BodyInt | None = Field(None, description="deck_change: the deck-change request it answers")


class CorrectionBody(Body):
    card: StrictStr = text()
    reason: StrictStr = text(pattern=NOT_BLANK)


class VoidBody(Body):
    reason: StrictStr = text(pattern=NOT_BLANK)


# ------------------------------------------------------------------------------------------ the app
Handler = Callable[[int, Any, Caller, "Idem | None"], Awaitable[Response]]


@dataclass(frozen=True)
class Lane:
    """A table step its `StepRoute` takes: its body's model (None: no body) and its handler, the very
    coroutine the FastAPI endpoint calls."""

    model: type[Body] | None
    handler: Handler


class StepRoute(BaseRoute):
    """The route of a table step a casino takes hundreds of times a second (a holder's decision, a bet,
    the deal, a live table's card), first in the app's one routing table, so that it passes every
    middleware as any request does. A well-formed request is parsed by the same body model,
    authenticated by the same session check and handled by the same coroutine as its FastAPI endpoint,
    without FastAPI's dependency solving (half of what a decision cost the server, docs/performance.md);
    anything else — a malformed body, a body that is not JSON — is handed whole to that endpoint's own
    route (`endpoint`), so that every refusal of a malformed request is FastAPI's own."""

    def __init__(self, step: str, lane: Lane, endpoint: APIRoute, casino: Casino) -> None:
        self.step, self.lane, self.endpoint, self.casino = step, lane, endpoint, casino
        self.path = re.compile(rf"/api/tables/([0-9]{{1,10}})/{step}")

    def matches(self, scope: Any) -> tuple[Match, dict[str, Any]]:
        """A POST to this step's path with a table id in range (anything else: the other routes)."""
        if scope["type"] == "http" and scope["method"] == "POST":
            found = self.path.fullmatch(scope["path"])
            if found is not None and int(found[1]) <= MAX_ID:
                return Match.FULL, {"path_params": {"table_id": int(found[1])}}
        return Match.NONE, {}

    async def handle(self, scope: Any, receive: Any, send: Any) -> None:
        """Take the step, or hand the request to its FastAPI endpoint when its body does not parse."""
        lane, table_id = self.lane, scope["path_params"]["table_id"]
        request = Request(scope, receive)
        raw = await request.body()
        body: Any = None
        if lane.model is not None:
            kind = request.headers.get("content-type", "")
            if kind.split(";", 1)[0].strip().lower() == "application/json":
                with contextlib.suppress(ValidationError):
                    body = lane.model.model_validate_json(raw)
            if body is None:  # FastAPI says what is wrong with it, as for every endpoint

                async def replay() -> dict[str, Any]:
                    return {"type": "http.request", "body": raw, "more_body": False}

                _, child = self.endpoint.matches(scope)
                await self.endpoint.handle({**scope, **child}, replay, send)
                return
        lang = language(request.headers.get("accept-language"))
        response: Response
        try:
            caller = await self.casino.caller(_token(request))
            idem = Idem.of(request.headers.get("idempotency-key"), "POST", scope["path"], raw, lang)
            response = await lane.handler(table_id, body, caller, idem)
        except TapeteError as exc:
            await self.casino.protection.noted(exc)
            response = FastJSON(error_body(exc, lang), status_code=status_of(exc), headers=headers_of(exc))
        await response(scope, receive, send)


def _step_routes(endpoints: APIRouter, casino: Casino, lanes: dict[str, Lane]) -> list[StepRoute]:
    """The step routes, each with the FastAPI endpoint of its path in `endpoints` (which documents it and
    refuses what does not parse)."""
    found: list[StepRoute] = []
    for step, lane in lanes.items():
        path = f"/api/tables/{{table_id}}/{step}"
        endpoint = next(
            r
            for r in endpoints.routes
            if isinstance(r, APIRoute) and r.path == path and "POST" in (r.methods or ())
        )
        found.append(StepRoute(step, lane, endpoint, casino))
    return found


def create_app(casino: Casino) -> FastAPI:
    """The FastAPI app of one server process."""
    # The API's pages (/docs, /redoc) with Swagger UI and ReDoc served by this server, not from a CDN: a
    # casino's or a lab's network often reaches none, and FastAPI's own pages were blank there.
    app = FastAPIOffline(
        title="tapete",
        version=VERSION,
        description="Casino table games as Peru's regulations write them: the table server's API "
        "(shared/spec/server.md).",
        lifespan=lambda _app: lifespan_of(casino),
        static_url="/docs-assets",
        favicon_url="/favicon.svg",
        docs_url=None,  # its pages start Swagger UI with an inline script: ours start it from a file
        redoc_url=None,
    )
    app.state.casino = casino

    @app.get("/docs", include_in_schema=False)
    async def docs_page() -> HTMLResponse:
        """Swagger UI, served by this server, without inline script (`static/js/docs.js` starts it)."""
        return HTMLResponse(DOCS_PAGE)

    @app.get("/redoc", include_in_schema=False)
    async def redoc_page() -> HTMLResponse:
        """ReDoc, served by this server (its element needs no script of ours)."""
        return HTMLResponse(REDOC_PAGE)

    @app.exception_handler(TapeteError)
    async def _refused(request: Request, exc: TapeteError) -> JSONResponse:
        await casino.protection.noted(exc)  # a refusal of player protection is a significant event
        return FastJSON(
            error_body(exc, language(request.headers.get("accept-language"))),
            status_code=status_of(exc),
            headers=headers_of(exc),
        )

    @app.exception_handler(OperationalError)
    @app.exception_handler(InterfaceError)
    async def _database_away(request: Request, exc: Exception) -> JSONResponse:
        """The people's rows or the inspector's read found the database away (restarting): refused whole,
        503 unavailable, as a table's step is."""
        err = Unavailable("the database did not answer: nothing was changed", key="err.api.unavailable")
        return FastJSON(error_body(err, language(request.headers.get("accept-language"))), status_code=503)

    @app.exception_handler(RequestValidationError)
    async def _malformed(request: Request, exc: RequestValidationError) -> JSONResponse:
        err = _malformed_request(exc.errors())
        return FastJSON(error_body(err, language(request.headers.get("accept-language"))), status_code=400)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        lang = language(request.headers.get("accept-language"))
        if exc.status_code == 404:
            return FastJSON(error_body(NotFound("no such path", key="err.api.path"), lang), status_code=404)
        if exc.status_code == 405:  # with its Allow header (RFC 9110)
            err = BadRequest("this method is not allowed here", key="err.api.method")
            return FastJSON(error_body(err, lang), status_code=405, headers=exc.headers)
        err = BadRequest(str(exc.detail), key="err.api.malformed", problems=[str(exc.detail)])
        return FastJSON(
            error_body(err, lang), status_code=exc.status_code if 400 <= exc.status_code < 500 else 400
        )

    @app.exception_handler(WebSocketRequestValidationError)
    async def _malformed_socket(websocket: WebSocket, exc: WebSocketRequestValidationError) -> None:
        """A WebSocket whose path or query does not parse (a table id that is no number): refused as an
        HTTP request would be, 400 bad_request with the error body (FastAPI closed it with a bare 403)."""
        await _refuse_socket(websocket, _malformed_request(exc.errors()))

    table_router, lanes = router(casino)
    routers = [
        table_router,
        words.router(casino, who),
        control_api.router(casino),
        protection_api.router(casino),
        shoeboard.router(casino),
        betting.router(casino),
        integrity_api.router(casino),
    ]
    stack = app.build_middleware_stack
    # the guard (headers, body limit) in front of everything
    app.build_middleware_stack = lambda: Guard(stack())  # type: ignore[method-assign]
    for each in routers:
        app.include_router(each)
    # the table steps' routes first in the one routing table (`StepRoute`)
    app.router.routes[:0] = _step_routes(table_router, casino, lanes)
    fastapi_document = app.openapi
    shaped: list[dict[str, Any]] = []

    def document() -> dict[str, Any]:
        """FastAPI's OpenAPI document completed by `openapi.shape` (once per process)."""
        if not shaped:
            shaped.append(openapi.shape(fastapi_document()))
        return shaped[0]

    app.openapi = document  # type: ignore[method-assign]
    if STATIC.exists():
        from fastapi.staticfiles import StaticFiles

        routes = [route for each in routers for route in each.routes if isinstance(route, APIRoute)]
        app.mount("/", _Page(routes, StaticFiles(directory=STATIC, html=True)), name="page")
    return app


DOCS_PAGE = """<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>tapete - Swagger UI</title>
    <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
    <link rel="stylesheet" href="/docs-assets/swagger-ui.css" />
  </head>
  <body>
    <div id="swagger-ui" data-url="/openapi.json"></div>
    <script src="/docs-assets/swagger-ui-bundle.js"></script>
    <script src="/js/docs.js"></script>
  </body>
</html>
"""
REDOC_PAGE = """<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>tapete - ReDoc</title>
    <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
  </head>
  <body>
    <redoc spec-url="/openapi.json"></redoc>
    <script src="/docs-assets/redoc.standalone.js"></script>
  </body>
</html>
"""


class _Page:
    """The web page's files at "/", except under /api/: a path there that no route took is 404 whatever
    the method, or 405 with the methods its route takes (the files' mount answered 405 to a POST of an
    unknown path, and 404 to a GET of a POST-only one)."""

    def __init__(self, routes: list[APIRoute], files: Any) -> None:
        self.routes, self.files = routes, files

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"].startswith("/api/"):
            allowed = sorted(
                method
                for route in self.routes
                if route.path_regex.match(scope["path"])
                for method in route.methods or ()
            )
            if allowed:
                raise StarletteHTTPException(405, headers={"Allow": ", ".join(allowed)})
            raise StarletteHTTPException(404)
        await self.files(scope, receive, send)


def _malformed_request(errors: Sequence[Any]) -> BadRequest:
    """bad_request for what FastAPI's validation found (of a body, a path or a query), each problem named
    by where it is."""
    problems = [
        f"{'.'.join(str(p) for p in e.get('loc', ()) if p != 'body') or 'body'}: {e.get('msg')}"
        for e in errors
    ]
    return BadRequest("; ".join(problems) or "malformed request", key="err.api.malformed", problems=problems)


async def _refuse_socket(websocket: WebSocket, exc: TapeteError) -> None:
    """A WebSocket handshake refused with the status and error body of server.md (the ASGI denial
    response); behind a server without that extension, a close code in the 4000s: 4000 + the status."""
    lang = language(websocket.headers.get("accept-language"))
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        await websocket.send_denial_response(FastJSON(error_body(exc, lang), status_code=status_of(exc)))
    else:
        await websocket.close(code=4000 + status_of(exc))


def router(casino: Casino) -> tuple[APIRouter, dict[str, Lane]]:
    """Every endpoint; and the table steps their `StepRoute`s take."""
    api = APIRouter()
    lanes: dict[str, Lane] = {}

    def lane(step: str, model: type[Body] | None) -> Callable[[Handler], Handler]:
        def register(handler: Handler) -> Handler:
            lanes[step] = Lane(model, handler)
            return handler

        return register

    async def guarded(
        caller: Caller, idem: Idem | None, run: Callable[[], Awaitable[Any]], status: int = 200
    ) -> Response:
        """Run a change, answering again with its first answer when the key was seen before."""
        try:
            result = await run()
        except Replay as replay:
            return FastJSON(replay.body, status_code=replay.status)
        except TapeteError as exc:
            if idem is not None and not isinstance(exc, type(None)):
                body = error_body(exc, idem.lang)
                await casino.remember_refusal(caller, idem, status_of(exc), body)
            raise
        return FastJSON(result, status_code=status)

    # -- health, login --------------------------------------------------------------------------------
    @api.get("/api/health", tags=["server"])
    async def get_health() -> dict[str, Any]:
        """``{"ok": true, "version"}`` once the server takes requests."""
        return await health(casino)

    @api.post("/api/login", tags=["people"], responses={429: {"description": "rate_limited"}})
    async def post_login(body: LoginBody, request: Request) -> Response:
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
                await casino.run(
                    lambda db: accounts.record_failure(db, casino.settings, body.username, address)
                )
            raise

    @api.post("/api/logout", tags=["people"])
    async def post_logout(caller: Who, request: Request) -> dict[str, Any]:
        """End this session: its token stops working."""
        await casino.run(lambda db: accounts.logout(db, casino.settings, caller, _address(request)))
        await casino.forget_sessions(session=caller.session_id)
        return {}

    @api.get("/api/me", tags=["people"])
    async def get_me(caller: Who) -> dict[str, Any]:
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

    @api.get("/api/me/rounds", tags=["people"])
    async def get_my_rounds(caller: Who) -> dict[str, Any]:
        """A player's own last 10 rounds, with only what he was allowed to see."""
        caller.need("player")
        async with casino.db() as db:
            user = await db.get(User, caller.user_id)
            assert user is not None
            return {"rounds": await inspector.player_rounds(db, user)}

    # -- users ----------------------------------------------------------------------------------------
    @api.post("/api/users", tags=["people"], status_code=201)
    async def post_user(body: UserBody, caller: Who) -> Response:
        """A new user with one role (admin)."""
        caller.need("admin")
        ident = protection.identity_of(body.document, body.birth_date, casino.protection.today())

        async def run(db: AsyncSession) -> dict[str, Any]:
            user = await accounts.create_user(db, body.username, body.password, body.role, actor=caller.name)
            await casino.protection.set_identity(db, user.id, user.name, user.role, ident, caller.name)
            return {"name": user.name, "role": user.role}

        return FastJSON(await casino.run(run), status_code=201)

    @api.get("/api/users", tags=["people"])
    async def get_users(caller: Who) -> dict[str, Any]:
        """Every user and role (admin, inspector)."""
        caller.need("admin", "inspector")
        async with casino.db() as db:
            users = await db.scalars(select(User).order_by(User.name))
            return {"users": [{"name": u.name, "role": u.role, "active": u.active} for u in users]}

    @api.patch("/api/users/{name}", tags=["people"])
    async def patch_user(name: PathName, body: UserChange, caller: Who) -> dict[str, Any]:
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
                db.add(
                    SignificantEvent(kind="password_changed", actor=caller.name, details={"user": user.name})
                )
            await casino.protection.set_identity(db, user.id, user.name, user.role, ident, caller.name)
            if ended:
                await accounts.end_sessions(db, casino.settings, user.id, ended[-1])
            db.add(SignificantEvent(kind="user_changed", actor=caller.name, details={"user": name, **change}))
            return {"name": user.name, "role": user.role, "active": user.active, "id": user.id}

        changed = await casino.run(run)
        await casino.forget_sessions(user=changed.pop("id"))
        return changed

    # -- cashier --------------------------------------------------------------------------------------
    async def _cashier(caller: Caller, idem: Idem | None, body: CashierBody, out: bool) -> Response:
        caller.need("cashier", "admin")
        if body.amount < 1:
            raise BadRequest("an amount is a positive whole number of money units", key="err.api.amount")

        async def run(tx: Tx) -> dict[str, Any]:
            found = await tx.one(_PLAYER, {"name": body.player})
            if found is None:
                raise NotFound(f"no player {body.player}", key="err.api.no_player", name=body.player)
            player = ledger.Player(*found)
            if not out:  # chips for a player on the register, or excluded by himself: refused
                await casino.protection.check_buy_in(tx, player.id)
            balance = await ledger.cashier(tx, player, body.amount, out=out, actor=caller.name)
            await tables.note(
                tx,
                "cash_out" if out else "buy_in",
                actor=caller.name,
                details={"player": player.name, "amount": body.amount, "balance": balance},
            )
            return {"player": player.name, "balance": balance}

        return await guarded(caller, idem, lambda: casino.run_tx(run, caller=caller, idem=idem))

    @api.post("/api/cashier/buy-in", tags=["cashier"])
    async def post_buy_in(body: CashierBody, caller: Who, idem: IdemKey) -> Response:
        """Chips for a player's cash (cashier, admin)."""
        return await _cashier(caller, idem, body, out=False)

    @api.post("/api/cashier/cash-out", tags=["cashier"])
    async def post_cash_out(body: CashierBody, caller: Who, idem: IdemKey) -> Response:
        """A player's chips back to cash (never the chips on his bets)."""
        return await _cashier(caller, idem, body, out=True)

    @api.get("/api/cashier/players/{name}", tags=["cashier"])
    async def get_player(name: PathName, caller: Who) -> dict[str, Any]:
        """A player's balance and his recent movements (cashier, admin, inspector)."""
        caller.need("cashier", "admin", "inspector")
        async with casino.store.transaction(write=False, snapshot=True) as tx:
            found = await tx.one(_PLAYER, {"name": name})
            if found is None:
                raise NotFound(f"no player {name}", key="err.api.no_player", name=name)
            player = ledger.Player(*found)
            balance, free = await ledger.available(tx, player)
            rows = await tx.all(_MOVEMENTS, {"name": f"wallet:{name}"})
        moves = [
            {
                "id": entry_id,
                "kind": kind,
                "amount": amount,
                "balance_after": after,
                "table": table,
                "round": round_no,
                "at": at.isoformat().replace("+00:00", "Z"),
            }
            for entry_id, kind, amount, after, table, round_no, at in rows
        ]
        return {"player": name, "balance": balance, "available": free, "movements": moves}

    @api.get("/api/players", tags=["cashier"])
    async def get_players(caller: Who) -> dict[str, Any]:
        """Every player with his balance (cashier, admin, inspector)."""
        caller.need("cashier", "admin", "inspector")
        async with casino.store.transaction(write=False) as tx:
            rows = await tx.all(_PLAYERS)
        return {"players": [{"name": name, "balance": int(balance)} for name, balance in rows]}

    # -- tables ---------------------------------------------------------------------------------------
    @api.post("/api/tables", tags=["tables"], status_code=201)
    async def post_table(body: TableBody, caller: Who) -> Response:
        """Open a table from a game, a mode and its settings, checked by the engine's rules (admin)."""
        caller.need("admin")

        async def run(tx: Tx) -> dict[str, Any]:
            table = await tables.open_table(
                tx, caller.name, body.name, body.game, body.mode, body.rules, casino.key
            )
            return tables.table_json(table, [])

        return FastJSON(await casino.run_tx(run), status_code=201)

    @api.get("/api/tables", tags=["tables"])
    async def get_tables(caller: Who) -> dict[str, Any]:
        """Every table with its game, mode, rules and seats taken."""
        async with casino.store.transaction(write=False, snapshot=True) as tx:
            rows = [tables.row_of(found) for found in await tx.all(tables.ALL_TABLES)]
            return {"tables": [tables.table_json(t, await tables.seats_of(tx, t.id)) for t in rows]}

    @api.get("/api/tables/{table_id}", tags=["tables"])
    async def get_table(table_id: Id, caller: Who) -> dict[str, Any]:
        """One table."""
        async with casino.store.transaction(write=False, snapshot=True) as tx:
            found = await tx.one(tables.TABLE, {"id": table_id})
            if found is None:
                raise NotFound(f"no table {table_id}", key="err.api.no_table", table=table_id)
            return tables.table_json(tables.row_of(found), await tables.seats_of(tx, table_id))

    @api.patch("/api/tables/{table_id}", tags=["tables"])
    async def patch_table(table_id: Id, body: TableChange, caller: Who) -> dict[str, Any]:
        """Suspend, reopen (after a failed chain check too) or close a table, with a reason (admin)."""
        caller.need("admin")
        if body.status not in ("open", "suspended", "closed") or not body.reason.strip():
            raise BadRequest("status is open, suspended or closed, with a reason", key="err.api.table_change")

        async def run(tx: Tx, table: TableRow, rt: TableRuntime) -> dict[str, Any]:
            if body.status == "closed" and table.in_round:
                raise Conflict("a table is closed between rounds", key="err.api.close_in_round")
            before, was = table.status, table.status_reason
            table.status = body.status
            table.status_reason = body.reason
            if before == "suspended" and was == integrity.REASON and body.status == "open":
                await integrity.accept(tx, table, caller.name, body.reason)
            await tables.note(
                tx,
                f"table_{body.status}",
                actor=caller.name,
                table_id=table.id,
                details={"from": before, "reason": body.reason},
            )
            return tables.table_json(table, await tables.seats_of(tx, table.id))

        changed: dict[str, Any] = await casino.mutate(table_id, run)
        return changed

    @api.get("/api/tables/{table_id}/state", tags=["play"])
    async def get_state(table_id: Id, caller: Who) -> dict[str, Any]:
        """The caller's view of the table (server.md): never a card the table has not shown him."""
        return await casino.state_for(table_id, caller)

    async def play(
        table_id: int,
        caller: Caller,
        idem: Idem | None,
        fn: Callable[[Tx, TableRow, TableRuntime], Awaitable[Any]],
        status: int = 200,
    ) -> Response:
        async def answer(tx: Tx, rt: TableRuntime, result: Any, snap: state.Snapshot) -> Any:
            if isinstance(result, tables.StepResult):  # the state as committed: new seq, new deadline
                me = snap.balances.get(caller.name)
                if caller.role == "player" and me is None:
                    me = (await state.balances(tx, [caller.name])).get(caller.name)
                return state.Rendered(state.state_json(snap, rt, caller, me))
            return result

        return await guarded(
            caller, idem, lambda: casino.mutate(table_id, fn, caller=caller, idem=idem, then=answer), status
        )

    @api.post("/api/tables/{table_id}/seats", tags=["play"])
    async def post_seat(table_id: Id, body: SeatBody, caller: Who, idem: IdemKey) -> Response:
        """Take a box or zone (players)."""

        async def run(tx: Tx, table: TableRow, rt: TableRuntime) -> dict[str, Any]:
            await casino.protection.check_seat(tx, caller)
            seat = await tables.take_seat(tx, table, rt, caller, body.seat)
            return {"table": table.id, "seat": seat, "holder": caller.name}

        return await play(table_id, caller, idem, run)

    @api.delete("/api/tables/{table_id}/seats/{seat}", tags=["play"])
    async def delete_seat(table_id: Id, seat: Id, caller: Who) -> dict[str, Any]:
        """Leave a box, between rounds (its holder)."""

        async def run(tx: Tx, table: TableRow, rt: TableRuntime) -> dict[str, Any]:
            await tables.leave_seat(tx, table, caller, seat)
            return {"table": table.id, "seat": seat, "holder": None}

        changed: dict[str, Any] = await casino.mutate(table_id, run)
        return changed

    @lane("bets", BetBody)
    async def bet_step(table_id: int, body: BetBody, caller: Caller, idem: Idem | None) -> Response:
        holder_status: dict[str, int] = {}

        async def run(tx: Tx, table: TableRow, rt: TableRuntime) -> dict[str, Any]:
            await casino.protection.check_bet(tx, caller, body.amount)
            out = await tables.place_bet(tx, table, rt, caller, body.seat, body.spot, body.amount)
            holder_status["status"] = 202 if out.get("status") == "waiting" else 200  # its id comes after
            return out

        try:
            if idem is None:  # taken with the other bets waiting for the table (`Casino.place_bet`)
                result = await casino.place_bet(table_id, caller, body.seat, body.spot, body.amount)
                holder_status["status"] = 202 if "request" in result else 200
            else:  # its answer is kept under its key, with its own transaction
                result = await casino.mutate(table_id, run, caller=caller, idem=idem)
        except Replay as replay:
            return FastJSON(
                replay.body, status_code=202 if "request" in (replay.body or {}) else replay.status
            )
        except TapeteError as exc:
            if idem is not None:
                await casino.remember_refusal(caller, idem, status_of(exc), error_body(exc, idem.lang))
            raise
        return FastJSON(result, status_code=holder_status.get("status", 200))

    @api.post(
        "/api/tables/{table_id}/bets",
        tags=["play"],
        responses={202: {"description": "a back-bet request waits"}},
    )
    async def post_bet(table_id: Id, body: BetBody, caller: Who, idem: IdemKey) -> Response:
        """A bet for the next round; on another's box, a back-bet request (202) that waits for him."""
        return await bet_step(table_id, body, caller, idem)

    @api.delete("/api/tables/{table_id}/bets", tags=["play"])
    async def delete_bets(table_id: Id, caller: Who) -> dict[str, Any]:
        """Take back every bet the caller placed for the next round (before the deal; players)."""
        caller.need("player")

        async def run(tx: Tx, table: TableRow, rt: TableRuntime) -> dict[str, Any]:
            if table.in_round:
                raise Conflict(
                    "bets are taken back before the deal", key="err.api.not_betting", round=table.round_no
                )
            await tables.take_back_bets(tx, table.id, caller.user_id)
            if table.deadline_kind == "betting":
                # the deal's countdown runs from the first bet still on the table (none: no countdown)
                table.deadline_version = None
            return {"table": table.id, "bets": []}

        changed: dict[str, Any] = await casino.mutate(table_id, run)
        return changed

    @api.post("/api/tables/{table_id}/requests/{rid}", tags=["play"])
    async def post_answer(table_id: Id, rid: Id, body: AnswerBody, caller: Who, idem: IdemKey) -> Response:
        """The holder accepts or refuses a back-bet request on his box."""
        return await play(
            table_id,
            caller,
            idem,
            lambda tx, t, rt: tables.answer_request(tx, t, rt, caller, rid, body.accept),
        )

    @lane("deal", None)
    async def deal_step(table_id: int, _body: None, caller: Caller, idem: Idem | None) -> Response:
        caller.need("dealer", "admin")
        return await play(
            table_id, caller, idem, lambda tx, t, rt: tables.deal(tx, t, rt, caller.name, casino.key)
        )

    @api.post("/api/tables/{table_id}/deal", tags=["play"])
    async def post_deal(table_id: Id, caller: Who, idem: IdemKey) -> Response:
        """Close the bets ("no va más") and start the round (dealer, admin)."""
        return await deal_step(table_id, None, caller, idem)

    @lane("actions", ActionBody)
    async def action_step(table_id: int, body: ActionBody, caller: Caller, idem: Idem | None) -> Response:
        raw = body.model_dump(exclude_none=True)
        return await play(
            table_id, caller, idem, lambda tx, t, rt: tables.act(tx, t, rt, caller, raw, casino.key)
        )

    @api.post("/api/tables/{table_id}/actions", tags=["play"])
    async def post_action(table_id: Id, body: ActionBody, caller: Who, idem: IdemKey) -> Response:
        """The holder's decision on his box: one of `state.pending.legal`."""
        return await action_step(table_id, body, caller, idem)

    @lane("cards", CardBody)
    async def card_step(table_id: int, body: CardBody, caller: Caller, idem: Idem | None) -> Response:
        raw = body.model_dump()
        return await play(
            table_id, caller, idem, lambda tx, t, rt: tables.post_card(tx, t, rt, caller, raw, casino.key)
        )

    @api.post("/api/tables/{table_id}/cards", tags=["live"])
    async def post_card(table_id: Id, body: CardBody, caller: Who, idem: IdemKey) -> Response:
        """The next card out of the physical shoe (dealer, live tables)."""
        return await card_step(table_id, body, caller, idem)

    @api.post("/api/tables/{table_id}/procedures", tags=["live"])
    async def post_procedure(table_id: Id, body: ProcedureBody, caller: Who, idem: IdemKey) -> Response:
        """A control procedure of a live table, in the regulation's order (conflict naming the expected
        step otherwise): new_pack, inspect, show, turn, mix, shuffle, cut, load, burn, deck_change (with
        its reason; naming a request closes it), or cut_card (the cut card came out)."""
        raw = body.model_dump(exclude_none=True)
        return await play(
            table_id, caller, idem, lambda tx, t, rt: tables.procedure(tx, t, rt, caller, raw, casino.key)
        )

    @api.post("/api/tables/{table_id}/corrections", tags=["live"])
    async def post_correction(table_id: Id, body: CorrectionBody, caller: Who, idem: IdemKey) -> Response:
        """The dealer corrects the last card he entered, with a reason, before any decision on it."""
        raw = body.model_dump()
        return await play(
            table_id, caller, idem, lambda tx, t, rt: tables.correct(tx, t, rt, caller, raw, casino.key)
        )

    @api.post("/api/tables/{table_id}/void", tags=["live"])
    async def post_void(table_id: Id, body: VoidBody, caller: Who, idem: IdemKey) -> Response:
        """Ask to void the round in play (every stake returned); a second staff member confirms."""
        raw = body.model_dump()
        return await play(
            table_id, caller, idem, lambda tx, t, rt: tables.request_void(tx, t, rt, caller, raw)
        )

    @api.post("/api/tables/{table_id}/void/confirm", tags=["live"])
    async def post_void_confirm(table_id: Id, caller: Who, idem: IdemKey) -> Response:
        """A second staff member confirms the void."""
        return await play(
            table_id, caller, idem, lambda tx, t, rt: tables.confirm_void(tx, t, rt, caller, casino.key)
        )

    # -- the inspector ----------------------------------------------------------------------------------
    async def _table(db: AsyncSession, table_id: int) -> CasinoTable:
        table = await db.get(CasinoTable, table_id)
        if table is None:
            raise NotFound(f"no table {table_id}", key="err.api.no_table", table=table_id)
        return table

    @api.get("/api/tables/{table_id}/rounds", tags=["inspector"])
    async def get_rounds(table_id: Id, caller: Who) -> dict[str, Any]:
        """The table's rounds: number, status, times (inspector, admin)."""
        caller.need("inspector", "admin")
        async with casino.db() as db:
            await _table(db, table_id)
            return {"table": table_id, "rounds": await inspector.rounds(db, table_id)}

    @api.get("/api/tables/{table_id}/rounds/{n}", tags=["inspector"])
    async def get_round(table_id: Id, n: Id, caller: Who) -> dict[str, Any]:
        """Recall of a round: cards in deal order, decisions with times, procedures, every ledger entry."""
        caller.need("inspector", "admin")
        async with casino.db() as db:
            return await inspector.recall(db, await _table(db, table_id), n, role=caller.role)

    @api.get("/api/tables/{table_id}/verify", tags=["inspector"])
    async def get_verify(table_id: Id, caller: Who) -> dict[str, Any]:
        """Check the table's hash chain in the database; name the first bad record."""
        caller.need("inspector", "admin")
        async with casino.db() as db:
            return await inspector.verify(db, await _table(db, table_id))

    @api.get("/api/tables/{table_id}/log", tags=["inspector"])
    async def get_log(table_id: Id, caller: Who) -> PlainTextResponse:
        """The table's chain as JSON lines (what `tapete verify FILE` checks), for the inspector. The
        administrator's ends before the round in progress (server.md: nobody but the inspector reads a
        card the table has not shown; a censored record would no longer hash, a prefix still verifies)."""
        caller.need("inspector", "admin")
        from tapete.server import chain

        async with casino.db() as db:
            table = await _table(db, table_id)
            rows = await chain.records(db, table_id)
            if caller.role != "inspector" and table.in_round:
                playing = str(table.round_no)
                cut = next((i for i, r in enumerate(rows) if r.round == playing), len(rows))
                rows = rows[:cut]
            lines = [json.dumps(chain.record_of(r), ensure_ascii=False, sort_keys=True) for r in rows]
            return PlainTextResponse(
                "\n".join(lines) + ("\n" if lines else ""), media_type="application/jsonl"
            )

    @api.get("/api/reports/tables", tags=["inspector"])
    async def get_report(
        caller: Who,
        from_: Annotated[str | None, Query(alias="from", json_schema_extra={"format": "date"})] = None,
        to: Annotated[str | None, Query(json_schema_extra={"format": "date"})] = None,
        format: Annotated[str, Query(json_schema_extra={"enum": ["json", "csv"]})] = "json",
    ) -> Response:
        """Per table and period: rounds, drop, win, hold % (JSON or CSV)."""
        caller.need("inspector", "admin")
        if format not in ("json", "csv"):
            raise BadRequest("format is json or csv", key="err.api.format")
        try:
            async with casino.db() as db:
                rows = await inspector.report(db, from_, to)
        except (ValueError, OverflowError):  # no such date, or the day after the last one there is
            raise BadRequest("from and to are ISO dates (YYYY-MM-DD)", key="err.api.dates") from None
        if format == "csv":
            return PlainTextResponse(inspector.report_csv(rows), media_type="text/csv")
        return FastJSON({"from": from_, "to": to, "tables": rows})

    @api.get("/api/events", tags=["inspector"])
    async def get_significant(caller: Who, since: Since = 0, limit: int = 200) -> dict[str, Any]:
        """The significant-event log (inspector, admin)."""
        caller.need("inspector", "admin")
        async with casino.db() as db:
            return {"events": await inspector.significant(db, max(1, min(limit, 1000)), since)}

    # -- the WebSocket ----------------------------------------------------------------------------------
    @api.websocket("/ws/tables/{table_id}")
    async def ws_table(
        websocket: WebSocket, table_id: Id, token: str | None = None, since: int | None = None
    ) -> None:
        """Every viewer his own state after every change: ``{"type": "state", "seq": N, "state"}``,
        numbered by the table's version; a client that reconnects with ``since`` gets the newest at once."""
        try:
            caller = await casino.caller(token)
            await casino.read(table_id, lambda tx, t, rt: _noop())
        except TapeteError as exc:
            await _refuse_socket(websocket, exc)
            return
        await websocket.accept()
        box = casino.broker.subscribe(table_id, caller)
        sent = -1 if since is None else since

        async def send_state(version: int | None) -> None:
            nonlocal sent
            seq, message = await casino.push_for(table_id, caller, version)
            if seq > sent:
                await websocket.send_text(message.decode())
                sent = seq

        async def pushes() -> None:
            nonlocal sent
            await send_state(None)
            while True:
                version, message = await box.get()
                if message is None:  # another process's version (or his state is read): as it is now
                    await send_state(version)
                elif version > sent:  # written by the step that made it, for this viewer
                    await websocket.send_text(message.decode())
                    sent = version

        async def listen() -> None:
            while True:
                message = await websocket.receive_text()
                with contextlib.suppress(ValueError, TypeError, AttributeError):
                    data = json.loads(message)
                    if data.get("type") == "ping":
                        await websocket.send_json({"type": "pong"})

        async def ended() -> None:  # the session ended: the page goes back to its login (4401)
            await casino.watch_session(caller)
            await websocket.close(code=4401, reason="session ended")

        tasks = [asyncio.create_task(pushes()), asyncio.create_task(listen()), asyncio.create_task(ended())]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(BaseException):
                    await task
            casino.broker.unsubscribe(table_id, box)
            with contextlib.suppress(Exception):
                await websocket.close()

    return api, lanes


async def _noop() -> None:
    return None
