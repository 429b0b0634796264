"""The outermost layer of the app (server.md, "Logins and sessions"): every HTTP answer carries the
security headers (a Content-Security-Policy without inline script, nosniff, no referrer, no framing;
``Cache-Control: no-store`` on the API's answers), and a request body over 1 MiB is refused with 413
before it is read whole. A pure ASGI middleware around everything, the table steps' routes included:
it adds a few header lines to each answer and reads no database."""

from __future__ import annotations

from typing import Any

import pydantic_core

from tapete.errors import BadRequest
from tapete.server.errors import error_body, language

#: the largest request body the server reads (bytes)
MAX_BODY = 1 << 20

#: the page and everything else: scripts and styles from this server's files only (none inline),
#: nothing framed, nothing framing it
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self';"
    " connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
#: ReDoc's page (/redoc): its script is a file too, but ReDoc writes its styles into the page and
#: searches in a worker made from a blob (Swagger UI's page, /docs, runs under `CSP` itself)
DOCS_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:;"
    " font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; object-src 'none';"
    " base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
_COMMON = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]
PAGE_HEADERS = [(b"content-security-policy", CSP.encode()), *_COMMON]
DOCS_HEADERS = [(b"content-security-policy", DOCS_CSP.encode()), *_COMMON]
API_HEADERS = [*PAGE_HEADERS, (b"cache-control", b"no-store")]
_DOCS = ("/redoc",)


def headers_for(path: str) -> list[tuple[bytes, bytes]]:
    """The security headers of an answer to `path` (the API's answers are never stored by a cache)."""
    if path[:5] == "/api/" or path == "/openapi.json":
        return API_HEADERS
    if path in _DOCS:
        return DOCS_HEADERS
    return PAGE_HEADERS


class TooLarge(Exception):
    """A request body past `MAX_BODY` (found while it streamed in)."""


class Guard:
    """Security headers on every answer, and the body limit, around the whole app."""

    def __init__(self, app: Any, max_body: int = MAX_BODY) -> None:
        self.app, self.max_body = app, max_body

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":  # a refused handshake is an HTTP answer too (its denial)

            async def deny_guarded(message: Any) -> None:
                if message["type"] == "websocket.http.response.start":
                    message["headers"] = [*message.get("headers", ()), *API_HEADERS]
                await send(message)

            await self.app(scope, receive, deny_guarded)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = headers_for(scope["path"])

        async def send_guarded(message: Any) -> None:
            if message["type"] == "http.response.start":  # the app sets none of these headers itself
                message["headers"] = [*message.get("headers", ()), *extra]
            await send(message)

        length = _content_length(scope)
        if length is not None and length > self.max_body:
            await self._too_large(scope, send_guarded)
            return
        if length is None and _may_have_body(scope):
            # chunked (or no length said): read up to the limit here, refuse past it, hand the rest on
            parts: list[bytes] = []
            size = 0
            while True:
                message = await receive()
                if message["type"] != "http.request":  # the client went away
                    return
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > self.max_body:
                    await self._too_large(scope, send_guarded)
                    return
                parts.append(chunk)
                if not message.get("more_body", False):
                    break
            body = b"".join(parts)
            given = False

            async def replay() -> Any:
                nonlocal given
                if not given:
                    given = True
                    return {"type": "http.request", "body": body, "more_body": False}
                return await receive()  # after the body: the disconnect, when it comes

            await self.app(scope, replay, send_guarded)
            return
        await self.app(scope, receive, send_guarded)

    async def _too_large(self, scope: Any, send: Any) -> None:
        """413 with server.md's error body (code bad_request: a malformed request), and the connection
        closed, since the rest of the body is never read."""
        lang = "es"
        for name, value in scope.get("headers", ()):
            if name == b"accept-language":
                lang = language(value.decode("latin-1"))
        err = BadRequest(
            "the request body is larger than the server takes (1 MiB)",
            key="err.api.too_large",
            limit=self.max_body,
        )
        body = pydantic_core.to_json(error_body(err, lang))
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body, "more_body": False})


def _content_length(scope: Any) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _may_have_body(scope: Any) -> bool:
    """A request that may carry a body without saying its length (chunked)."""
    if scope["method"] in ("GET", "HEAD", "OPTIONS"):
        return any(name == b"transfer-encoding" for name, _ in scope.get("headers", ()))
    return True
