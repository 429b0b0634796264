"""A lean asyncio connection to PostgreSQL on psycopg 3's own libpq binding (`psycopg.pq`) and its
adapters (`psycopg.adapt.Transformer`): what `sql.Store` needs of a connection (`execute`, a cursor's
`fetchone`/`fetchall`/`rowcount`, `pipeline()`, `close`) and nothing more.

psycopg's asyncio connection drives every statement through its Python layers (the cursor, the query
conversion, the generators, `waiting`) and flushes its pipeline after every statement, which costs more
than libpq's own work on each statement (docs/performance.md); a table step sends a few statements
hundreds of times a second. Here:

- the connection stays in libpq's pipeline mode: a statement outside a transaction block is followed by
  a Sync (a transaction of its own, as in autocommit); inside `pipeline()` statements are queued and
  sent together, in one write, when an answer is needed (a Flush request) or at its end (a Sync);
- a statement's text is converted from psycopg's ``%(name)s`` form once, and prepared on its second use;
- the socket's reader is registered once, not per wait.

Errors are psycopg's own (`psycopg.errors`, `psycopg.OperationalError`), so that callers translate them
as they did. The connection is made by psycopg (`psycopg.AsyncConnection.connect`, in `sql.Store`), whose
connection object keeps the adapters (our JSON dumps and loads), the encoding and the time zone the
loaders read; its own statement methods are not used once this layer has it.
"""

from __future__ import annotations

import asyncio
import re
from collections import deque
from typing import Any

import psycopg
from psycopg import errors as e
from psycopg import pq
from psycopg.adapt import PyFormat, Transformer

_PARAM = re.compile(rb"%\((\w+)\)s|%%")
_OK = (pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK, pq.ExecStatus.EMPTY_QUERY)
_ERROR = pq.ExecStatus.FATAL_ERROR
_ABORTED = pq.ExecStatus.PIPELINE_ABORTED
_SYNC = pq.ExecStatus.PIPELINE_SYNC
#: a statement is prepared on its second use on a connection, up to this many statements each
PREPARE_AT = 2
MAX_PREPARED = 256

_compiled: dict[str, tuple[bytes, tuple[str, ...]]] = {}


def compiled(sql: str) -> tuple[bytes, tuple[str, ...]]:
    """A statement in psycopg's ``%(name)s`` form as PostgreSQL's ``$n`` text and the parameters' names
    in their order (each name once, at its first place), kept per text."""
    found = _compiled.get(sql)
    if found is not None:
        return found
    names: list[str] = []

    def place(m: re.Match[bytes]) -> bytes:
        if m.group(0) == b"%%":
            return b"%"
        name = m.group(1).decode()
        if name not in names:
            names.append(name)
        return b"$%d" % (names.index(name) + 1)

    found = (_PARAM.sub(place, sql.encode()), tuple(names))
    if len(_compiled) < 4096:  # the server's statements are a fixed set; anything else is not kept
        _compiled[sql] = found
    return found


class _Item:
    """Something sent whose answer is read in order: a statement (`Cursor`), a PREPARE, a Sync."""

    __slots__ = ("done", "raised", "result")

    def __init__(self) -> None:
        self.result: pq.abc.PGresult | None = None
        self.done = False
        #: its error was raised (an error is raised once)
        self.raised = False

    def failed(self) -> bool:
        """Whether PostgreSQL refused it."""
        return self.result is not None and self.result.status == _ERROR


class _Prepare(_Item):
    __slots__ = ("key",)

    def __init__(self, key: tuple[bytes, tuple[int, ...]]) -> None:
        super().__init__()
        self.key = key


class _Sync(_Item):
    __slots__ = ()


class Cursor(_Item):
    """One statement's answer: read when asked (`fetchone`, `fetchall`), waited for if not in yet."""

    __slots__ = ("_rows", "conn")

    def __init__(self, conn: Connection) -> None:
        super().__init__()
        self.conn = conn
        self._rows: list[tuple[Any, ...]] | None = None

    @property
    def rowcount(self) -> int:
        """How many rows the statement changed or gave (-1 before its answer came)."""
        res = self.result
        if res is None:
            return -1
        count = res.command_tuples
        return -1 if count is None else count

    async def _answered(self) -> list[tuple[Any, ...]]:
        if not self.done:
            await self.conn.wait_for(self)
        self.check()
        if self._rows is None:
            self._rows = self.conn.rows_of(self.result)
        return self._rows

    def check(self) -> None:
        """Raise the error this statement met, or, when an earlier one's error aborted it, that error
        (as psycopg does; each error once)."""
        res = self.result
        if res is None or res.status in _OK:
            return
        if res.status == _ABORTED:
            first = self.conn.first_error
            if first is None or first.raised:
                raise e.PipelineAborted("an earlier statement of the pipeline failed")
            first.raised = True
            assert first.result is not None
            raise e.error_from_result(first.result, encoding=self.conn.encoding)
        self.raised = True
        raise e.error_from_result(res, encoding=self.conn.encoding)

    async def fetchone(self) -> tuple[Any, ...] | None:
        """The first row, or None."""
        rows = await self._answered()
        return rows[0] if rows else None

    async def fetchall(self) -> list[tuple[Any, ...]]:
        """Every row."""
        return await self._answered()


class Pipeline:
    """Statements sent together (`Connection.pipeline`): each waits for no answer; what was sent goes
    out in one write when an answer is asked for, or at the end (a Sync), where the first error not yet
    raised is raised when the block itself did not raise."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    async def __aenter__(self) -> Pipeline:
        self.conn.piped = True
        return self

    async def __aexit__(self, kind: Any, exc: Any, tb: Any) -> None:
        self.conn.piped = False
        try:
            sent = await self.conn.sync()
        except Exception:
            if exc is None:
                raise
            return
        if exc is None:
            self.conn.raise_first(sent)


def _wake(ready: asyncio.Future[None]) -> None:
    if not ready.done():
        ready.set_result(None)


class Connection:
    """One PostgreSQL connection for a `sql.Store`, in libpq's pipeline mode (module docstring)."""

    def __init__(self, conn: psycopg.AsyncConnection[Any]) -> None:
        self._conn = conn
        self.pg = conn.pgconn
        self.encoding = conn.info.encoding
        self._dump = Transformer(conn)
        self._load = Transformer(conn)
        self.loop = asyncio.get_running_loop()
        #: sent, not yet answered, in the order PostgreSQL answers
        self.queue: deque[_Item] = deque()
        #: statements prepared (or being prepared) on this connection, and how often each was used
        self.prepared: dict[tuple[bytes, tuple[int, ...]], bytes] = {}
        self.uses: dict[tuple[bytes, tuple[int, ...]], int] = {}
        self._names = 0
        #: the first statement refused since the last Sync (what the statements it aborted raise)
        self.first_error: _Item | None = None
        #: something was queued since the socket was last written to
        self.unsent = False
        self.piped = False
        #: whether PostgreSQL was asked (a Sync or a Flush request) to answer everything sent so far
        self.marked = True
        self.waiter: asyncio.Future[None] | None = None
        self.failed: BaseException | None = None
        #: how many times the connection wrote to its socket and waited for an answer (for tests)
        self.round_trips = 0
        self.pg.nonblocking = 1
        self.pg.enter_pipeline_mode()
        self.fd = self.pg.socket
        self.loop.add_reader(self.fd, self._readable)

    # -- the socket -------------------------------------------------------------------------------------
    def _readable(self) -> None:
        waiter = self.waiter
        if waiter is not None:
            self.waiter = None
            if not waiter.done():
                waiter.set_result(None)
            return
        try:  # nobody waits (a notice, or the server going away): read it, so the socket quiets
            self.pg.consume_input()
        except Exception as exc:
            self._fail(exc)

    def _fail(self, exc: BaseException) -> None:
        if self.failed is None:
            self.failed = exc
            self.loop.remove_reader(self.fd)

    def _alive(self) -> None:
        if self.failed is not None:
            raise psycopg.OperationalError(f"the connection is lost: {self.failed}")
        if self.pg.status != pq.ConnStatus.OK:
            self._fail(psycopg.OperationalError("the connection is closed"))
            raise psycopg.OperationalError("the connection is closed")

    async def _flush(self) -> None:
        while True:
            try:
                if self.pg.flush() == 0:
                    return
            except Exception as exc:
                self._fail(exc)
                raise psycopg.OperationalError(f"sending failed: {exc}") from exc
            ready: asyncio.Future[None] = self.loop.create_future()
            self.loop.add_writer(self.fd, _wake, ready)
            try:
                await ready
            finally:
                self.loop.remove_writer(self.fd)

    def _take(self) -> None:
        """Read what has come in and hand each answer to what was sent, in order, without waiting."""
        pg = self.pg
        try:
            pg.consume_input()
        except Exception as exc:
            self._fail(exc)
            raise psycopg.OperationalError(f"reading failed: {exc}") from exc
        queue = self.queue
        while queue and not pg.is_busy():
            item = queue[0]
            res = pg.get_result()
            if res is None:
                if item.result is None:  # nothing of its answer yet (as psycopg reads it)
                    break
                queue.popleft()  # the end of a statement's answers
                self._settle(item)
                continue
            if res.status == _SYNC:  # a Sync's own answer, which no end follows
                if not isinstance(item, _Sync):
                    self._fail(e.InternalError("a Sync answered out of order"))
                    raise e.InternalError("a Sync answered out of order")
                queue.popleft()
                item.result, item.done = res, True
                self.first_error = None
                continue
            item.result = res

    def _settle(self, item: _Item) -> None:
        item.done = True
        if self.first_error is None and item.failed():
            self.first_error = item
        if isinstance(item, _Prepare):
            res = item.result
            if res is None or res.status not in _OK:  # not made (an earlier error aborted it)
                self.prepared.pop(item.key, None)

    async def wait_for(self, item: _Item) -> None:
        """Send what waits to be sent and read answers until `item`'s is in."""
        self._alive()
        if not self.marked:
            self.pg.send_flush_request()
            self.marked = True
        if self.unsent:
            self.round_trips += 1
            self.unsent = False
        await self._flush()
        self._take()
        while not item.done:
            waiter = self.loop.create_future()
            self.waiter = waiter
            try:
                await waiter
            finally:
                self.waiter = None
            self._take()

    # -- statements ------------------------------------------------------------------------------------
    async def execute(self, sql: str, params: dict[str, Any] | None = None) -> Cursor:
        """Send a statement (``%(name)s`` parameters). Outside `pipeline()` it is a transaction of its own
        (a Sync follows it) and its answer is read before this returns (its error raised); inside, it
        is only queued."""
        self._alive()
        cursor = Cursor(self)
        if params:
            query, names = compiled(sql)
            values = [params[name] for name in names]
            dumped = self._dump.dump_sequence(values, [PyFormat.AUTO] * len(values))
            types: tuple[int, ...] = tuple(self._dump.types or ())
            formats: Any = self._dump.formats
        else:
            query, names = compiled(sql) if params is not None else (sql.encode(), ())
            dumped, types, formats = None, (), None
        pg = self.pg
        key = (query, types)
        name = self.prepared.get(key)
        if name is None:
            uses = self.uses.get(key, 0) + 1
            self.uses[key] = uses
            if uses >= PREPARE_AT and len(self.prepared) < MAX_PREPARED:
                self._names += 1
                name = b"_tapete_%d" % self._names
                self.prepared[key] = name
                pg.send_prepare(name, query, types or None)
                self.queue.append(_Prepare(key))
        if name is not None:
            pg.send_query_prepared(name, dumped, formats)
        else:
            pg.send_query_params(query, dumped, types or None, formats)
        self.queue.append(cursor)
        self.marked = False
        self.unsent = True
        if self.piped:
            return cursor
        self.raise_first(await self.sync())
        return cursor

    async def sync(self) -> list[_Item]:
        """End what was sent with a Sync and read every answer up to it; what it answered, in order."""
        self._alive()
        sent = list(self.queue)
        mark = _Sync()
        self.pg.pipeline_sync()
        self.queue.append(mark)
        self.marked = self.unsent = True
        await self.wait_for(mark)
        return sent

    def raise_first(self, answered: list[_Item]) -> None:
        """Raise the first refusal among `answered` not raised yet (those it aborted raise nothing)."""
        for item in answered:
            if item.failed() and not item.raised:
                item.raised = True
                assert item.result is not None
                raise e.error_from_result(item.result, encoding=self.encoding)

    def pipeline(self) -> Pipeline:
        """Statements sent together until the block ends (class `Pipeline`)."""
        return Pipeline(self)

    def rows_of(self, res: pq.abc.PGresult | None) -> list[tuple[Any, ...]]:
        """The rows of an answer, loaded by psycopg's adapters (our JSON loads among them)."""
        if res is None or res.status != pq.ExecStatus.TUPLES_OK:
            return []
        load = self._load
        load.set_pgresult(res)
        return load.load_rows(0, res.ntuples, tuple)

    async def close(self) -> None:
        """Close the connection (its socket's reader first)."""
        if self.failed is None:
            self.failed = psycopg.OperationalError("the connection was closed")
            self.loop.remove_reader(self.fd)
        await self._conn.close()
