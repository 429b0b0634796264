"""The sessions a server process trusts (people and sessions): a token's caller, checked in the
database and then trusted for a few seconds without asking again; the WebSockets that must close when
their session ends; and the forgetting of sessions that ended or changed, here and, through the broker,
in every other process."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from tapete.server.people.accounts import Caller, authenticate, session_left, token_hash, write_verdict
from tapete.server.sql import Unavailable

log = logging.getLogger("tapete.server")


class Sessions:
    """A process's trusted sessions and watched WebSockets (what `app.Casino` holds as `sessions`)."""

    #: the process's `app.Casino` (its store, settings, broker, writer's lock, protection)
    casino: Any

    def __init__(self, casino: Any) -> None:
        self.casino = casino
        #: sessions checked in the database lately: token hash → (caller, monotonic time trusted until)
        self.trusted: dict[str, tuple[Caller, float]] = {}
        #: the open WebSockets' sessions: each is woken when its session may have ended (`watch`)
        self.watchers: list[tuple[Caller, asyncio.Event]] = []

    async def caller(self, token: str | None) -> Caller:
        """The caller of a token (Unauthorized otherwise). A session checked in the database is trusted
        for `session_trust_seconds` (at most a tenth of the idle time) without asking again: checking it
        was a connection, a transaction and a query on every request. A logout or a change of the user
        forgets it at once here and, through the broker, in the other processes."""
        hashed = token_hash(token) if token else None
        if hashed is not None:
            known = self.trusted.get(hashed)
            if known is not None and time.monotonic() < known[1]:
                return known[0]
        async with self.casino.store.autocommit() as tx:  # one statement: no transaction around it
            verdict = await authenticate(tx, self.casino.settings, token)
        if verdict.write is not None:  # the session touched, or ended idle: committed before the answer
            async with self.casino.write_lock(), self.casino.store.transaction() as tx:
                await write_verdict(tx, verdict)
        if verdict.refusal is not None:
            raise verdict.refusal
        found = verdict.caller
        assert hashed is not None and found is not None  # authenticate refuses a request without a token
        trust = min(
            self.casino.settings.session_trust_seconds,
            self.casino.settings.session_idle_minutes * 6,
            verdict.left,
        )
        if trust > 0:
            if len(self.trusted) > 10_000:  # drop what expired (many clients, or a flood of tokens)
                now = time.monotonic()
                self.trusted = {k: v for k, v in self.trusted.items() if v[1] > now}
            self.trusted[hashed] = (found, time.monotonic() + trust)
        return found

    async def watch(self, caller: Caller) -> None:
        """Return when the caller's session has ended (a logout, a change of its user, or idle), so that
        the WebSocket it opened is closed: a token that stopped working must stop receiving the table.
        Woken at once by a logout or a change heard from any process; otherwise it looks again when the
        session would be idle. A database that does not answer ends nothing."""
        woken = asyncio.Event()
        watcher = (caller, woken)
        self.watchers.append(watcher)
        try:
            while True:
                try:
                    async with self.casino.store.transaction(write=False) as tx:
                        left, ended = await session_left(tx, self.casino.settings, caller)
                    if ended is not None:
                        async with self.casino.write_lock(), self.casino.store.transaction() as tx:
                            await write_verdict(tx, ended)
                except Unavailable:
                    left = 5.0  # the database is away: ask again in a moment
                except Exception:  # anything else must not drop a viewer's socket: said, and asked again
                    log.exception("checking a WebSocket's session failed")
                    left = 5.0
                if left is None:
                    return
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(woken.wait(), min(max(left + 0.5, 0.5), 300.0))
                woken.clear()
        finally:
            self.watchers.remove(watcher)

    async def forget(self, *, session: str | None = None, user: int | None = None) -> None:
        """Sessions that ended or changed (a logout, a user's role, activity or password): no longer
        trusted here, and the other processes are told."""
        what: dict[str, Any] = {"session": session} if session is not None else {"user": user}
        self.heard(what)
        await self.casino.broker.forget(what)

    def heard(self, what: dict[str, Any] | None) -> None:
        """What another process (or this one) said of sessions that ended or changed: forgotten here, and
        the WebSockets of those sessions woken."""
        self.casino.protection.forget(what)
        for who, woken in self.watchers:
            if what is None or who.session_id == what.get("session") or who.user_id == what.get("user"):
                woken.set()
        if what is None:
            self.trusted.clear()
            return
        self.trusted = {
            k: v
            for k, v in self.trusted.items()
            if v[0].session_id != what.get("session") and v[0].user_id != what.get("user")
        }
