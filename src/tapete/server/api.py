"""The app: one routing table for the HTTP and WebSocket API of shared/spec/server.md (and what it adds
beside it), served as OpenAPI.

The endpoints are each domain's module-level router (people_api, cashier_api, tables_api, inspector_api,
push_api, control_api, protection_api, integrity_api, shoeboard, betting, words): thin, each checks who
calls and hands the request to its domain's service. Here: the app that includes them, the one error
handler that turns typed errors into statuses and server.md's body in the caller's language, and the
table steps' routes (`StepRoute`).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from fastapi import APIRouter, FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError, WebSocketRequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.routing import APIRoute
from fastapi_offline import FastAPIOffline
from pydantic import BaseModel, ValidationError
from sqlalchemy.exc import InterfaceError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import BaseRoute, Match

from tapete.errors import BadRequest, TapeteError
from tapete.server import openapi
from tapete.server.app import Casino, health, lifespan_of
from tapete.server.cashier import cashier_api
from tapete.server.catalogs import words_api
from tapete.server.config import VERSION
from tapete.server.errors import (
    NotFound,
    error_body,
    headers_of,
    language,
    status_of,
)
from tapete.server.guard import Guard
from tapete.server.http import MAX_ID, CasinoOf, FastJSON, Lane, _token
from tapete.server.idempotency import Idem
from tapete.server.inspection import inspector_api, integrity_api
from tapete.server.live import push_api
from tapete.server.people import people_api, protection_api
from tapete.server.play import betting, control_api, shoeboard, tables_api
from tapete.server.sql import Unavailable

STATIC = Path(__file__).resolve().parent / "static"


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
            caller = await self.casino.sessions.caller(_token(request))
            idem = Idem.of(request.headers.get("idempotency-key"), "POST", scope["path"], raw, lang)
            response = await lane.handler(self.casino, table_id, body, caller, idem)
        except TapeteError as exc:
            await self.casino.protection.noted(exc)
            response = FastJSON(error_body(exc, lang), status_code=status_of(exc), headers=headers_of(exc))
        await response(scope, receive, send)


#: the server's own endpoints (the rest are each domain's: people_api, cashier_api, tables_api, ...)
server_router = APIRouter()


class Health(BaseModel):
    """`GET /api/health`: the process answers, and its version."""

    ok: Literal[True]
    version: str


@server_router.get("/api/health", tags=["server"], responses={200: {"model": Health}})
async def get_health(casino: CasinoOf) -> dict[str, Any]:
    """``{"ok": true, "version"}`` once the server takes requests."""
    return await health(casino)


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
        await push_api.refuse_socket(websocket, _malformed_request(exc.errors()))

    routers = [
        server_router,
        people_api.router,
        cashier_api.router,
        tables_api.router,
        inspector_api.router,
        push_api.router,
        words_api.router,
        control_api.router,
        protection_api.router,
        shoeboard.router,
        betting.router,
        integrity_api.router,
    ]
    stack = app.build_middleware_stack
    # the guard (headers, body limit) in front of everything
    app.build_middleware_stack = lambda: Guard(stack())  # type: ignore[method-assign]
    for each in routers:
        app.include_router(each)
    # the table steps' routes first in the one routing table (`StepRoute`)
    app.router.routes[:0] = _step_routes(tables_api.router, casino, tables_api.lanes)
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
