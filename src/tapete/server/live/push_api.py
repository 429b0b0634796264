"""The live pushes: a table's WebSocket, every viewer his own state after every change (server.md,
WebSocket). Apart from the table logic: it subscribes to the process's `push.Broker` and sends what
`Casino.push_for` renders; nothing here decides anything of a table."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Literal

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import BaseModel

from tapete.errors import TapeteError
from tapete.server.errors import error_body, language, status_of
from tapete.server.http import CasinoOf, FastJSON, Id
from tapete.server.play.tables_api import State


class StatePush(BaseModel):
    """A WebSocket message: the caller's state after every committed change (its schema in the OpenAPI
    document's ``x-websockets``)."""

    type: Literal["state"]
    seq: int
    state: State


router = APIRouter()


async def refuse_socket(websocket: WebSocket, exc: TapeteError) -> None:
    """A WebSocket handshake refused with the status and error body of server.md (the ASGI denial
    response); behind a server without that extension, a close code in the 4000s: 4000 + the status."""
    lang = language(websocket.headers.get("accept-language"))
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        await websocket.send_denial_response(FastJSON(error_body(exc, lang), status_code=status_of(exc)))
    else:
        await websocket.close(code=4000 + status_of(exc))


async def _noop() -> None:
    return None


@router.websocket("/ws/tables/{table_id}")
async def ws_table(
    casino: CasinoOf, websocket: WebSocket, table_id: Id, token: str | None = None, since: int | None = None
) -> None:
    """Every viewer his own state after every change: ``{"type": "state", "seq": N, "state"}``,
    numbered by the table's version; a client that reconnects with ``since`` gets the newest at once."""
    try:
        caller = await casino.sessions.caller(token)
        await casino.read(table_id, lambda tx, t, rt: _noop())
    except TapeteError as exc:
        await refuse_socket(websocket, exc)
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
        await casino.sessions.watch(caller)
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
