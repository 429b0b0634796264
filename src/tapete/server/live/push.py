"""Pushes to WebSockets, kept apart from the game (as lila-ws is from lila): after every committed change
a table's new version is published; each connection holds its own one-slot mailbox, so a client that
never reads cannot slow the table for the others, and a lost push costs a client one catch-up (the
state it is sent is whole, numbered by the table's version). `LocalBroker` serves one process;
`RedisBroker` (redis-py's asyncio client) carries the versions between processes."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Protocol


class Mailbox:
    """One connection's mailbox: only the newest version waits (older ones are superseded), with its
    push already written when the process that made the version wrote it for this connection's
    `caller` (`Casino.prerender`); None when it must be read (a version another process made)."""

    def __init__(self, caller: Any = None) -> None:
        self.caller = caller
        self._latest: int | None = None
        self._message: bytes | None = None
        self._event = asyncio.Event()

    def put(self, version: int, message: bytes | None = None) -> None:
        """A newer table version, or the push of the newest one (never blocks)."""
        if self._latest is None or version > self._latest:
            self._latest, self._message = version, message
        elif version == self._latest and message is not None:
            self._message = message
        self._event.set()

    async def get(self) -> tuple[int, bytes | None]:
        """The newest version published since the last get, and its push if it was written."""
        await self._event.wait()
        self._event.clear()
        assert self._latest is not None
        message, self._message = self._message, None
        return self._latest, message


class Broker(Protocol):
    """Where committed changes are announced."""

    #: called when another process says sessions ended (None: anything may have ended meanwhile)
    on_forget: Callable[[dict[str, Any] | None], None]

    async def publish(self, table_id: int, version: int) -> None:
        """Announce a table's new version (after its commit)."""
        ...

    def subscribe(self, table_id: int, caller: Any = None) -> Mailbox:
        """A mailbox for one connection to a table (whose viewer is `caller`)."""
        ...

    def local(self, table_id: int) -> Iterable[Mailbox]:
        """This process's mailboxes of a table."""
        ...

    def unsubscribe(self, table_id: int, box: Mailbox) -> None:
        """Forget a connection's mailbox."""
        ...

    async def forget(self, what: dict[str, Any]) -> None:
        """Tell the other processes that sessions ended (``{"session": id}`` or ``{"user": id}``)."""
        ...

    async def start(self) -> None:
        """Connect (a remote broker)."""
        ...

    async def stop(self) -> None:
        """Disconnect."""
        ...


class LocalBroker:
    """Pushes within one process."""

    def __init__(self) -> None:
        self.boxes: dict[int, set[Mailbox]] = {}
        #: what to do when another process says sessions ended (None: everything may have changed)
        self.on_forget: Callable[[dict[str, Any] | None], None] = lambda _what: None

    def deliver(self, table_id: int, version: int) -> None:
        """Put `version` in every local mailbox of the table."""
        for box in list(self.boxes.get(table_id, ())):
            box.put(version)

    async def publish(self, table_id: int, version: int) -> None:
        """Deliver at once to this process's connections."""
        self.deliver(table_id, version)

    def subscribe(self, table_id: int, caller: Any = None) -> Mailbox:
        """A new mailbox for a table."""
        box = Mailbox(caller)
        self.boxes.setdefault(table_id, set()).add(box)
        return box

    def local(self, table_id: int) -> Iterable[Mailbox]:
        """This process's mailboxes of a table."""
        return self.boxes.get(table_id, ())

    def unsubscribe(self, table_id: int, box: Mailbox) -> None:
        """Drop a mailbox."""
        self.boxes.get(table_id, set()).discard(box)

    async def forget(self, what: dict[str, Any]) -> None:
        """One process: nobody else to tell."""

    async def start(self) -> None:
        """Nothing to connect."""

    async def stop(self) -> None:
        """Nothing to disconnect."""


CHANNEL = "tapete:tables"


def channel_of(casino: str) -> str:
    """The pub/sub channel of one casino (its database), so that casinos sharing a Redis never hear each
    other's tables."""
    import hashlib

    return f"{CHANNEL}:{hashlib.sha256(casino.encode()).hexdigest()[:16]}"


class RedisBroker(LocalBroker):
    """Pushes between processes through Redis pub/sub (redis-py's asyncio client): every process
    publishes the versions it commits and delivers the ones it hears to its own connections. Pub/sub drops
    what a subscriber missed while away; the clients catch up from the version they last saw."""

    def __init__(
        self, url: str, casino: str = "", on_error: Callable[[BaseException], Awaitable[None]] | None = None
    ) -> None:
        super().__init__()
        self.url = url
        self.channel = channel_of(casino)
        self.sessions_channel = self.channel + ":sessions"
        self._task: asyncio.Task[None] | None = None
        self._client: Any = None
        self._on_error = on_error

    async def start(self) -> None:
        """Connect and listen (reconnecting when Redis goes away and comes back)."""
        import redis.asyncio as redis

        self._client = redis.from_url(self.url)
        self._task = asyncio.create_task(self._listen())

    async def _listen(self) -> None:
        import redis.asyncio as redis

        while True:
            client = redis.from_url(self.url)
            try:
                pubsub = client.pubsub()
                await pubsub.subscribe(self.channel, self.sessions_channel)
                self.on_forget(None)  # what was said while this process was not listening is lost
                async for message in pubsub.listen():
                    if message.get("type") != "message":
                        continue
                    data = json.loads(message["data"])
                    channel = message.get("channel")
                    if channel in (self.sessions_channel, self.sessions_channel.encode()):
                        self.on_forget(data)
                    else:
                        self.deliver(int(data["table"]), int(data["version"]))
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis away: wait and listen again; clients catch up by version
                if self._on_error is not None:
                    await self._on_error(exc)
                await asyncio.sleep(0.5)
            finally:
                with contextlib.suppress(Exception):
                    await client.aclose()

    async def publish(self, table_id: int, version: int) -> None:
        """Deliver here at once, and to the other processes through Redis (a failure costs a catch-up)."""
        self.deliver(table_id, version)
        if self._client is None:
            return
        with contextlib.suppress(Exception):
            await self._client.publish(self.channel, json.dumps({"table": table_id, "version": version}))

    async def forget(self, what: dict[str, Any]) -> None:
        """Tell the other processes through Redis (a failure leaves them the trust time)."""
        if self._client is None:
            return
        with contextlib.suppress(Exception):
            await self._client.publish(self.sessions_channel, json.dumps(what))

    async def stop(self) -> None:
        """Stop listening and close."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self._client is not None:
            with contextlib.suppress(Exception):
                await self._client.aclose()
