"""The load tool's bots' own HTTP and WebSocket, on asyncio protocols: what 140 players cost the machine
the server runs on should be as little as can be, since on one 2-core machine every core the load tool
takes is one the server and PostgreSQL do not get (a casino's players are browsers on other machines).
aiohttp's client took half a core at 500 decisions/s there: a request built and timed through its layers,
and a task woken for every push of every socket, though a bot reads only the pushes that concern him.

Here a bot's requests go one at a time over one keep-alive HTTP/1.1 connection, the answer parsed by
httptools (uvicorn's parser); its WebSocket's frames (RFC 6455, the client's side: text, ping answered
with pong, close) are read in the protocol's callback, which hands each message to the bot at once,
without a task of its own. What the bots measure is unchanged: a request's round trip, from the moment
it is written until its answer has been read.
"""

from __future__ import annotations

import asyncio
import base64
import os
import urllib.parse
from collections.abc import Callable
from typing import Any, cast

import httptools
import pydantic_core

TIMEOUT = 30.0


def _split(url: str) -> tuple[str, int]:
    parts = urllib.parse.urlsplit(url)
    return parts.hostname or "127.0.0.1", parts.port or 80


class _HttpProtocol(asyncio.Protocol):
    """One keep-alive connection: one request at a time, its answer read by httptools."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpResponseParser(self)
        self.waiter: asyncio.Future[tuple[int, bytes]] | None = None
        self.body: list[bytes] = []
        self.lost = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # (uvloop's is no asyncio.Transport by class)

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self._fail(ConnectionError(f"a malformed answer: {exc}"))
            if self.transport is not None:
                self.transport.close()

    def on_body(self, body: bytes) -> None:
        self.body.append(body)

    def on_message_complete(self) -> None:
        waiter, self.waiter = self.waiter, None
        body, self.body = b"".join(self.body), []
        if waiter is not None and not waiter.done():
            waiter.set_result((self.parser.get_status_code(), body))

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self._fail(ConnectionError(f"the connection closed: {exc!r}"))

    def _fail(self, exc: Exception) -> None:
        waiter, self.waiter = self.waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_exception(exc)


class Http:
    """One bot's requests, over a keep-alive connection to the address its `client` is on now (a new
    connection after a failover, or after the server closed the last one)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.conn: _HttpProtocol | None = None
        self.url = ""

    async def _connection(self) -> _HttpProtocol:
        url = self.client.url
        if self.conn is not None and not self.conn.lost and self.url == url:
            return self.conn
        self.close()
        host, port = _split(url)
        _, conn = await asyncio.get_running_loop().create_connection(_HttpProtocol, host, port)
        self.conn, self.url = conn, url
        return conn

    async def call(
        self, method: str, path: str, body: Any = None, *, key: str | None = None
    ) -> tuple[int, Any]:
        """One request: its status and its answer's JSON. A connection that fails is dropped, the client
        moves to the next address (a load balancer's failover) and `ConnectionError` is raised."""
        payload = pydantic_core.to_json(body) if body is not None else b""
        host, port = _split(self.client.url)
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {self.client.token}"
            f"\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
        )
        if key:
            head += f"Idempotency-Key: {key}\r\n"
        try:
            async with asyncio.timeout(TIMEOUT):
                conn = await self._connection()
                waiter: asyncio.Future[tuple[int, bytes]] = asyncio.get_running_loop().create_future()
                conn.waiter = waiter
                assert conn.transport is not None
                conn.transport.write(head.encode() + b"\r\n" + payload)
                status, raw = await waiter
        except (TimeoutError, OSError) as exc:  # ConnectionError is an OSError
            self.close()
            self.client.failover()
            await asyncio.sleep(0.2)
            raise ConnectionError(f"{method} {path}: {exc!r}") from exc
        return status, pydantic_core.from_json(raw or b"null")

    def close(self) -> None:
        if self.conn is not None and self.conn.transport is not None:
            self.conn.transport.close()
        self.conn = None


class _WsProtocol(asyncio.Protocol):
    """A client's WebSocket: the upgrade's answer, then the server's frames, each text message handed to
    `on_text` as it is read (bytes, as sent)."""

    def __init__(self, request: bytes, on_text: Callable[[bytes], None]) -> None:
        loop = asyncio.get_running_loop()
        self.request, self.on_text = request, on_text
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.upgraded = False
        self.opened: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()
        self.parts: list[bytes] = []

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # (uvloop's is no asyncio.Transport by class)
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        self.buf += data
        if not self.upgraded:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(self.buf[:end])
            del self.buf[: end + 4]
            if not head.startswith(b"HTTP/1.1 101"):
                line = head.split(b"\r\n", 1)[0]
                self._end(ConnectionError(f"the WebSocket was refused: {line!r}"))
                return
            self.upgraded = True
            self.opened.set_result(None)
        self._frames()

    def _frames(self) -> None:
        buf, pos, size = self.buf, 0, len(self.buf)
        while size - pos >= 2:
            first, second = buf[pos], buf[pos + 1]
            length, head = second & 0x7F, 2
            if length == 126:
                if size - pos < 4:
                    break
                length, head = int.from_bytes(buf[pos + 2 : pos + 4], "big"), 4
            elif length == 127:
                if size - pos < 10:
                    break
                length, head = int.from_bytes(buf[pos + 2 : pos + 10], "big"), 10
            if second & 0x80:  # a server never masks its frames
                self._end(ConnectionError("the server sent a masked frame"))
                return
            if size - pos < head + length:
                break
            payload = bytes(buf[pos + head : pos + head + length])
            pos += head + length
            opcode = first & 0x0F
            if opcode in (0, 1, 2):  # (a continuation of) a message
                self.parts.append(payload)
                if first & 0x80:
                    message, self.parts = b"".join(self.parts), []
                    self.on_text(message)
            elif opcode == 9:  # ping: a pong with its payload
                self._send(0xA, payload)
            elif opcode == 8:  # close: answered, and the connection ends
                self._send(0x8, payload[:2])
                self._end(None)
                return
        del buf[:pos]

    def _send(self, opcode: int, payload: bytes) -> None:
        """A client's frame (masked, as RFC 6455 requires of a client; payloads under 126 bytes here)."""
        if self.transport is None or self.transport.is_closing():
            return
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.transport.write(bytes((0x80 | opcode, 0x80 | len(payload))) + mask + masked)

    def _end(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(exc or ConnectionError("the WebSocket closed before it opened"))
        if not self.closed.done():
            self.closed.set_result(None)
        if self.transport is not None:
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self._end(ConnectionError(f"the connection closed: {exc!r}"))

    def close(self) -> None:
        """Say goodbye (a close frame) and end the connection."""
        self._send(0x8, (1000).to_bytes(2, "big"))
        self._end(None)


async def websocket(url: str, target: str, on_text: Callable[[bytes], None]) -> _WsProtocol:
    """A WebSocket to `target` (a path and query) on the server at `url`, open: `on_text` gets each
    message; its `closed` is done when the connection ends."""
    host, port = _split(url)
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET {target} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()
    loop = asyncio.get_running_loop()
    _, ws = await loop.create_connection(lambda: _WsProtocol(request, on_text), host, port)
    try:
        async with asyncio.timeout(TIMEOUT):
            await ws.opened
    except BaseException:
        ws._end(None)
        raise
    return ws
