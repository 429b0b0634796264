"""The tables' SQL on the database driver itself: psycopg 3's asyncio connection on PostgreSQL (in its
pipeline mode), aiosqlite on the embedded SQLite, below SQLAlchemy. A table step is one short
transaction of a few statements, taken hundreds of times a second, where SQLAlchemy's asyncio session
costs several times the statements' own work (measured in docs/performance.md). SQLAlchemy keeps the
schema (the models, Alembic's migrations) and the people's and the inspector's queries.

`Q` is one statement written once for both databases (``:name`` parameters, ``{lock}`` where PostgreSQL
locks the rows it reads); `Store` is a process's connections; `Tx` is one transaction on one of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import re
import sqlite3
import time
from collections import namedtuple
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from typing import Any, Generic, TypeVar, cast

import pydantic_core

from tapete.errors import TapeteError

PING_AFTER_IDLE_SECONDS = 1.0
"""A pooled PostgreSQL connection idle this long is pinged before use (one that was just used is not)."""

PREPARED_AT = 0
"""psycopg's `prepare_threshold` on PostgreSQL: a statement is prepared the first time a connection runs
it, so PostgreSQL parses and plans it once. Not later: psycopg checks that a preparation took only for a
statement it prepares at its first run; one prepared at its n-th run (n > 1) inside a pipeline that an
error aborted (a racing step's check) is recorded as prepared though PostgreSQL skipped it ("prepared
statement _pg3_N does not exist" at its next run; docs/server.md)."""
PREPARED_MAX = 1024
"""How many prepared statements a connection keeps (psycopg's `prepared_max`): more than the server's
statements with their parameters' types, so that none is dropped and prepared again."""

_PARAM = re.compile(r"(?<!:):([A-Za-z_][A-Za-z0-9_]*)")
#: SQLite's text form of a timestamp, as SQLAlchemy writes it (so that the ORM reads what this wrote)
_SQLITE_TIME = "%Y-%m-%d %H:%M:%S.%f"


class Unavailable(TapeteError):
    """The database did not answer (restarting, away): the request is refused whole; retry."""

    code = "unavailable"


class Stale(Exception):
    """The table moved under what this process knew of it (another process took a step): the step is
    taken again from the database, under the row lock. Raised by a step's check, or by PostgreSQL
    (`MOVED`) where the check was sent with the step's writes and its answer not waited for."""


#: the SQLSTATE of `tapete_moved` (migration 0004): a check sent without waiting found the table moved
MOVED = "TPMOV"


class Violation(Exception):
    """A constraint of the database refused a write (a unique pair, a wallet below zero); the
    transaction is rolled back. Its text names the constraint (PostgreSQL) or the columns (SQLite)."""


#: the SQLSTATE (and SQLite's message prefix) of a ledger entry refused by the database because its
#: account is frozen or does not reconcile with its last entry (migration 0005)
FROZEN = "TPFRZ"
_ACCOUNT_ID = re.compile(r"account[= ](\d+)")


class Frozen(Violation):
    """The database refused a ledger entry: its account is frozen, or its balance does not follow from
    its last entry's (the account was changed outside the ledger). The account is frozen."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        found = _ACCOUNT_ID.search(text)
        #: the account PostgreSQL's refusal names (None on SQLite, whose RAISE takes a constant text)
        self.account_id = int(found.group(1)) if found else None
        #: the refused transaction's step context (`Store.transaction` puts it here): what it meant to
        #: move, for naming the account when the database could not
        self.step: StepContext | None = None


@dataclass(frozen=True)
class Q:
    """One statement for both databases: `pg` and `lite` are its two texts; `writes` is the table a write
    changes (what a state snapshot asks of a transaction). Its rows come decoded by the columns' types
    in the schema (`models.py`), by the drivers themselves: PostgreSQL's types by psycopg, SQLite's
    declared types (DATETIME, JSON, BOOLEAN) by the converters below."""

    pg: str
    lite: str
    writes: str | None = None


@dataclass(frozen=True)
class Rows:
    """An INSERT of any number of rows in one statement, the rows given as one JSON parameter (read by
    ``json_to_recordset`` on PostgreSQL, ``json_each`` on SQLite): one execution and one parameter where
    a driver's executemany was one execution per row, or a VALUES list one parameter per column and row
    (past fifty parameters psycopg no longer caches a statement's parsing). `columns` are the table's
    columns with their PostgreSQL types."""

    table: str
    columns: tuple[tuple[str, str], ...]

    @property
    def names(self) -> str:
        """The columns, as an INSERT names them."""
        return ", ".join(_quoted(name) for name, _ in self.columns)

    def select(self, source: str = "") -> tuple[str, str]:
        """The SELECT of the rows (PostgreSQL's text, SQLite's), from ``:rows``; `source` joins another
        FROM item before them (a CTE that gates them)."""
        names = self.names
        typed = ", ".join(f"{_quoted(name)} {kind}" for name, kind in self.columns)
        extracted = ", ".join(f"json_extract(value, '$.{name}')" for name, _ in self.columns)
        before = f"{source}, " if source else ""
        return (
            f"SELECT {names} FROM {before}json_to_recordset(CAST(:rows AS json)) AS r({typed})",
            f"SELECT {extracted} FROM {before}json_each(:rows)",
        )

    @cached_property
    def statement(self) -> Q:
        """The INSERT of ``:rows``."""
        pg, lite = self.select()
        head = f"INSERT INTO {self.table} ({self.names})"
        return q(f"{head} {pg}", lite=f"{head} {lite}")


def _quoted(name: str) -> str:
    return f'"{name}"' if name in _RESERVED else name


_RESERVED = frozenset({"round", "at", "by", "key"})

#: a row of a statement's answer: a named tuple of its columns, read by name (``row.balance``), the
#: names being the SELECT's (a column's own, or its alias: an expression is given one with AS)
Row = Any


@functools.lru_cache(1024)
def row_maker(names: tuple[str, ...]) -> Callable[[Iterable[Any]], Row]:
    """What makes a row of a statement's columns from its values: a named tuple's (kept per set of
    names). A column without a name of its own (an expression not given one with AS) or named twice is
    refused: its rows could not be read by name, and PostgreSQL and SQLite would name it differently."""
    try:
        made: Callable[[Iterable[Any]], Row] = cast(Any, namedtuple("Row", names))._make
    except ValueError as exc:
        raise ValueError(f"a statement's columns {names} must each have a name, once: {exc}") from None
    return made


def _pg_rows(cursor: Any) -> Callable[[Sequence[Any]], Any]:
    """psycopg's row factory for the tables' connections: rows made by `row_maker` of the result's
    columns."""
    columns = cursor.description
    if not columns:
        return tuple
    try:
        return row_maker(tuple(column.name for column in columns))
    except ValueError as exc:  # refused when a row is read, not when the answer comes
        refused = exc

        def refuse(values: Sequence[Any]) -> Any:
            raise refused

        return refuse


def _sqlite_row(cursor: sqlite3.Cursor, values: tuple[Any, ...]) -> Any:
    """sqlite3's row factory for the tables' connections: rows made by `row_maker` of the result's
    columns, named as PostgreSQL names them (an unquoted name in lower case)."""
    return row_maker(tuple(d[0].lower() for d in cursor.description))(values)


def q(
    text: str,
    /,
    *,
    lite: str | None = None,
    writes: str | None = None,
) -> Q:
    """A statement from its neutral text: ``:name`` parameters, ``{lock}`` (``FOR UPDATE`` on
    PostgreSQL, nothing on SQLite, whose writer holds the whole database), ``{skip_locked}``, and
    ``{in_x}`` for a `Many` parameter ``x`` (``= ANY(:x)``, or ``IN (SELECT value FROM json_each(:x))``).
    `lite` gives SQLite its own text where the two databases differ."""
    lists = set(re.findall(r"\{in_(\w+)\}", text + (lite or "")))
    pg = _PARAM.sub(
        r"%(\1)s",
        text.replace("%", "%%").format(
            lock="FOR UPDATE",
            skip_locked="FOR UPDATE SKIP LOCKED",
            **{f"in_{x}": f"= ANY(:{x})" for x in lists},
        ),
    )
    sqlite = (lite if lite is not None else text).format(
        lock="", skip_locked="", **{f"in_{x}": f"IN (SELECT value FROM json_each(:{x}))" for x in lists}
    )
    if writes is None:
        found = re.match(r"\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(\w+)", text, re.IGNORECASE)
        writes = found.group(1) if found else None
    return Q(pg, sqlite, writes)


def _sqlite_time(raw: bytes) -> datetime | None:
    return read_time(raw.decode())


# SQLite keeps a timestamp, a JSON document and a boolean as text or an integer; its connections here
# (`Store`) give them back as the schema declares the column (SQLAlchemy's DATETIME, JSON, BOOLEAN), as
# psycopg does PostgreSQL's types. (Registered for this module's connections, opened with
# PARSE_DECLTYPES; SQLAlchemy's own SQLite connections do not ask for them.)
sqlite3.register_converter("DATETIME", _sqlite_time)
sqlite3.register_converter("JSON", pydantic_core.from_json)
sqlite3.register_converter("BOOLEAN", lambda raw: raw not in (b"0", b""))


def sqlite_time(value: datetime) -> str:
    """A timestamp as SQLAlchemy keeps it on SQLite: UTC, without its zone, to the microsecond."""
    return value.astimezone(UTC).strftime(_SQLITE_TIME)


def read_time(value: Any) -> datetime | None:
    """A timestamp read back (SQLite's text or PostgreSQL's own), timezone-aware in UTC."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value if "." in value else value + ".000000"
        return datetime.strptime(text, _SQLITE_TIME).replace(tzinfo=UTC)
    assert isinstance(value, datetime)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def dumps(value: Any) -> bytes:
    """JSON for the database (pydantic-core's serializer: several times the standard library's speed)."""
    return pydantic_core.to_json(value)


class Json:
    """A parameter to keep as JSON."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class Many:
    """A list parameter: an array on PostgreSQL (``= ANY(:x)``), JSON text on SQLite (``IN (SELECT value
    FROM json_each(:x))``)."""

    __slots__ = ("values",)

    def __init__(self, values: Iterable[Any]) -> None:
        self.values = list(values)


T = TypeVar("T")


@dataclass(frozen=True, eq=False)
class Slot(Generic[T]):
    """A typed place in a step's context (`Tx.info`): what one part of a step leaves for another (the
    chain's records for the settlement, the bets for the snapshot), declared by the module that owns it,
    so that its type is checked where it is read (as aiohttp's `AppKey` types an application's state)."""

    name: str
    #: what the slot holds before anything is put in it (`StepContext.slot`); None: it must be put first
    default: Callable[[], T] | None = None


class StepContext:
    """What a step's parts hand each other within its transaction, in typed slots (`Slot`)."""

    __slots__ = ("_held",)

    def __init__(self) -> None:
        self._held: dict[Slot[Any], Any] = {}

    def slot(self, key: Slot[T]) -> T:
        """The slot's value, made from its default on first use (and kept)."""
        if key in self._held:
            return cast(T, self._held[key])
        if key.default is None:
            raise LookupError(f"the step's context holds no {key.name}")
        value = key.default()
        self._held[key] = value
        return value

    def get(self, key: Slot[T]) -> T | None:
        """The slot's value, or None when nothing was put in it."""
        return cast("T | None", self._held.get(key))

    def put(self, key: Slot[T], value: T) -> None:
        """Put `value` in the slot."""
        self._held[key] = value

    def take(self, key: Slot[T]) -> T | None:
        """The slot's value, emptying it (None when it was empty)."""
        return cast("T | None", self._held.pop(key, None))


@dataclass
class Tx:
    """One transaction on one connection: `one`, `all`, `run`, `many`. `info` is the step's typed
    context (`StepContext`: what its parts hand each other); `wrote` the tables it wrote."""

    conn: Any
    postgres: bool
    info: StepContext = field(default_factory=StepContext)
    wrote: set[str] = field(default_factory=set)
    #: begins the transaction before its first statement (`Store.transaction`'s `lazy`), or None
    lazy: Callable[[], Awaitable[None]] | None = None
    #: rows held back until the transaction begins (`defer`)
    deferred: list[tuple[Rows, list[dict[str, Any]]]] = field(default_factory=list)
    #: PostgreSQL's pipeline mode of a write transaction: a write is sent without waiting for its
    #: answer, which comes with the next read's (or the COMMIT's) round trip
    pipe: Any = None
    #: the statements sent with the COMMIT, in one round trip (`close_with`)
    closing: list[tuple[Q, dict[str, Any]]] = field(default_factory=list)
    #: what the process remembers of this database (`Store.memo`): rows that never change once made
    memo: dict[str, Any] = field(default_factory=dict)
    #: what this transaction learned for the memo: kept there once it commits (`remember`)
    learned: dict[str, Any] = field(default_factory=dict)
    #: how many reads were answered (a first one that fails may be retried on a new connection)
    synced: int = 0
    #: reads sent ahead in the pipeline, by statement and parameters (`ahead`), not yet taken
    sent_ahead: dict[tuple[str, tuple[Any, ...]], Any] = field(default_factory=dict)
    #: reads asked ahead before the transaction began: sent right after its check (`ahead`)
    ahead_of_begin: list[tuple[Q, dict[str, Any]]] = field(default_factory=list)
    #: the transaction committed or rolled back: only the answers of reads sent ahead may be taken
    ended: bool = False

    def recall(self, key: str) -> Any:
        """What the process remembers under `key`, or this transaction learned (None: nothing)."""
        found = self.learned.get(key)
        return found if found is not None else self.memo.get(key)

    def remember(self, key: str, value: Any) -> None:
        """Keep `value` (a row that never changes once made) for the process once this transaction
        commits: a row made by a transaction that rolled back must not be remembered."""
        self.learned[key] = value

    async def close_with(self, stmt: Q, params: dict[str, Any]) -> None:
        """Send `stmt` with the transaction's COMMIT, in the same round trip (PostgreSQL's pipeline; on
        SQLite right before it): the rows every table shares (the house's account) are written there,
        so that their lock is held for the shortest time. Nothing may need what it gives back."""
        await self._ready()
        if stmt.writes:
            self.wrote.add(stmt.writes)
        self.closing.append((stmt, params))

    async def begin(self) -> None:
        """Begin a lazy transaction now (with the check its beginning runs), if it has not begun."""
        await self._ready()

    async def _ready(self) -> None:
        if self.lazy is not None:
            start, self.lazy = self.lazy, None
            await start()

    async def defer(self, into: Rows, rows: list[dict[str, Any]]) -> None:
        """Insert `rows` now, or, before a lazy transaction began, when it begins (or in the one
        statement a step that read nothing ends with)."""
        if self.lazy is not None:
            self.wrote.add(into.table)
            self.deferred.append((into, rows))
            return
        await self.insert(into, rows)

    async def flush(self) -> None:
        """Insert what was held back (`defer`)."""
        held, self.deferred = self.deferred, []
        for into, rows in held:
            await self.insert(into, rows)

    def rows_param(self, rows: Sequence[dict[str, Any]]) -> str:
        """Rows as the one JSON parameter of `Rows` (timestamps as each database keeps them)."""
        plain = [
            {
                k: v.value
                if isinstance(v, Json)
                else sqlite_time(v)
                if isinstance(v, datetime) and not self.postgres
                else v
                for k, v in row.items()
            }
            for row in rows
        ]
        return dumps(plain).decode()

    async def insert(self, into: Rows, rows: Sequence[dict[str, Any]]) -> None:
        """Insert `rows` in one statement."""
        if rows:
            await self._execute(into.statement, {"rows": self.rows_param(rows)})

    def _params(self, params: dict[str, Any] | None) -> Any:
        if not params:
            return params or {}
        out: dict[str, Any] = {}
        for key, value in params.items():
            if isinstance(value, Json):
                value = self._json(value.value)
            elif isinstance(value, Many):
                value = value.values if self.postgres else dumps(value.values).decode()
            elif not self.postgres and isinstance(value, datetime):
                value = sqlite_time(value)
            out[key] = value
        return out

    def _json(self, value: Any) -> Any:
        if self.postgres:
            from psycopg.types.json import Json as PgJson

            return PgJson(value)
        return dumps(value).decode()

    async def _execute(self, stmt: Q, params: dict[str, Any] | None) -> Any:
        if self.ended:  # its connection went back to the pool: another transaction's now
            raise RuntimeError("the transaction has ended: only what it sent ahead may be read")
        if self.lazy is not None:
            await self._ready()
        if stmt.writes:
            self.wrote.add(stmt.writes)
        try:
            if self.postgres:
                return await self.conn.execute(stmt.pg, self._params(params))
            return await self.conn.execute(stmt.lite, self._params(params))
        except Exception as exc:
            raise _translated(exc) from exc

    @property
    def sends_ahead(self) -> bool:
        """Whether a read sent ahead now goes out at once, before the COMMIT (a transaction begun in
        PostgreSQL's pipeline), to be answered in the COMMIT's round trip at the latest."""
        return self.postgres and self.lazy is None and self.pipe is not None and not self.ended

    async def ahead(self, stmt: Q, params: dict[str, Any]) -> None:
        """Send a read now without waiting for its answer (PostgreSQL's pipeline; nothing elsewhere): the
        `one` or `all` of the same statement and parameters that follows takes its answer, so that the
        reads a step knows it will need go in one round trip instead of one each. Before a lazy
        transaction began, the read goes right after the check its beginning runs, in that round trip
        (so it must not need the rows held back, `defer`, which are written after the check)."""
        if not self.postgres:
            return
        if self.lazy is not None:
            self.ahead_of_begin.append((stmt, params))
            return
        await self._send_ahead(stmt, params)

    async def _send_ahead(self, stmt: Q, params: dict[str, Any]) -> None:
        key = _read_key(stmt, params)
        if self.pipe is None or key is None or key in self.sent_ahead:
            return
        self.sent_ahead[key] = await self._execute(stmt, params)

    async def _cursor(self, stmt: Q, params: dict[str, Any] | None) -> Any:
        if self.lazy is not None:
            await self._ready()
        if self.sent_ahead:
            key = _read_key(stmt, params or {})
            if key is not None and key in self.sent_ahead:
                return self.sent_ahead.pop(key)
        cursor = await self._execute(stmt, params)
        if self.ahead_of_begin:  # asked before the transaction began: sent behind its first read
            waiting, self.ahead_of_begin = self.ahead_of_begin, []
            for ahead_stmt, ahead_params in waiting:
                await self._send_ahead(ahead_stmt, ahead_params)
        return cursor

    async def send(self, stmt: Q, params: dict[str, Any]) -> Any:
        """Send a statement whose answer may wait (an INSERT's RETURNING) and give its cursor: `fetched`
        takes the answer later, with the next read's round trip (`sends_ahead` must hold)."""
        assert self.sends_ahead, "only a transaction begun in PostgreSQL's pipeline sends ahead"
        return await self._execute(stmt, params)

    async def fetched(self, cursor: Any) -> Any:
        """The first row of a sent statement's answer (`send`, or a read's), as the driver gives it."""
        try:
            return await cursor.fetchone()
        except Exception as exc:  # in a pipeline, a write sent before it may have failed
            raise _translated(exc) from exc

    async def one(self, stmt: Q, params: dict[str, Any] | None = None) -> Row | None:
        """The first row of `stmt`'s result (a `Row`, read by its columns' names), or None."""
        row = await self.fetched(await self._cursor(stmt, params))
        self.synced += 1
        return row

    async def all(self, stmt: Q, params: dict[str, Any] | None = None) -> list[Row]:
        """Every row of `stmt`'s result (each a `Row`, read by its columns' names)."""
        cursor = await self._cursor(stmt, params)
        try:
            rows = await cursor.fetchall()
        except Exception as exc:  # in a pipeline, a write sent before it may have failed
            raise _translated(exc) from exc
        self.synced += 1
        return list(rows)

    async def value(self, stmt: Q, params: dict[str, Any] | None = None) -> Any:
        """The first column of the first row (None when there is none)."""
        row = await self.one(stmt, params)
        return None if row is None else row[0]

    async def run(self, stmt: Q, params: dict[str, Any] | None = None) -> int:
        """Execute a write; how many rows it changed (-1 in a pipeline: its answer is not waited for)."""
        cursor = await self._execute(stmt, params)
        return -1 if self.pipe is not None else int(cursor.rowcount)


def _read_key(stmt: Q, params: dict[str, Any]) -> tuple[str, tuple[Any, ...]] | None:
    """What identifies a read sent ahead (`Tx.ahead`): its text and its parameters' values (None when
    one cannot be compared, which is then read when asked)."""
    items: list[tuple[str, Any]] = []
    for name, value in sorted(params.items()):
        plain = tuple(value.values) if isinstance(value, Many) else value
        try:
            hash(plain)
        except TypeError:
            return None
        items.append((name, plain))
    return stmt.pg, tuple(items)


async def _ended() -> None:
    """What a lazy transaction that never began begins with once its block ended: nothing may."""
    raise RuntimeError("the transaction's block has ended")


def _translated(exc: BaseException) -> BaseException:
    """A driver's error as the server's: a constraint's refusal, the database away, or as it was."""
    if isinstance(exc, sqlite3.IntegrityError):
        return Frozen(str(exc)) if str(exc).startswith(FROZEN) else Violation(str(exc))
    if isinstance(exc, sqlite3.OperationalError | sqlite3.InterfaceError):
        return Unavailable(
            f"the database did not answer ({exc}): nothing was changed", key="err.api.unavailable"
        )
    try:
        import psycopg
    except ImportError:  # pragma: no cover - psycopg is a dependency
        return exc
    if isinstance(exc, psycopg.Error) and exc.sqlstate == MOVED:
        return Stale(str(exc))
    if isinstance(exc, psycopg.Error) and exc.sqlstate == FROZEN:
        return Frozen(str(exc))
    if isinstance(exc, psycopg.errors.IntegrityError):
        return Violation(str(exc))
    if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError):
        return Unavailable("the database did not answer: nothing was changed", key="err.api.unavailable")
    return exc


@dataclass
class _Conn:
    """A pooled connection, with when it was made and when it was last given back."""

    raw: Any
    made: float
    idle_since: float


class Store:
    """A process's connections to the casino's database, for `Tx` transactions. PostgreSQL: a pool of
    psycopg `AsyncConnection`s in autocommit (a statement outside a transaction block is one of its own:
    each transaction says BEGIN and COMMIT itself); one idle for `PING_AFTER_IDLE_SECONDS` is pinged
    before use (a dead one is replaced, and the request never sees it); one that fails under a request
    fails that request whole (`Unavailable`), and every idle one as old as it is dropped (PostgreSQL
    restarted). SQLite: a few aiosqlite connections (WAL, a busy timeout, foreign keys), whose writes are
    ordered by the process's writer lock."""

    def __init__(self, url: str, size: int = 20) -> None:
        self.url = url
        self.postgres = not url.startswith("sqlite")
        self.size = size
        self._idle: list[_Conn] = []
        self._count = 0
        self._freed = asyncio.Condition()
        self._closed = False
        #: rows of this database that never change once made (account ids), shared by its transactions
        self.memo: dict[str, Any] = {}

    async def _connect(self) -> _Conn:
        now = time.monotonic()
        raw: Any
        try:
            if self.postgres:
                import psycopg
                from psycopg.types.json import set_json_dumps, set_json_loads

                raw = await psycopg.AsyncConnection.connect(
                    self.url.replace("postgres://", "postgresql://", 1),
                    autocommit=True,
                    # every statement prepared at its first run (`PREPARED_AT`), a connection keeping
                    # them all (`PREPARED_MAX`)
                    prepare_threshold=PREPARED_AT,
                    row_factory=_pg_rows,  # rows read by their columns' names
                )
                raw.prepared_max = PREPARED_MAX
                set_json_dumps(dumps, context=raw)
                set_json_loads(pydantic_core.from_json, context=raw)
                await raw.execute("SET TIME ZONE 'UTC'")
            else:
                import aiosqlite

                raw = await aiosqlite.connect(
                    self.url.split(":///", 1)[1],
                    timeout=30,
                    isolation_level=None,
                    detect_types=sqlite3.PARSE_DECLTYPES,  # rows decoded by the schema's types
                )
                raw.row_factory = _sqlite_row  # rows read by their columns' names
                for pragma in (
                    "PRAGMA journal_mode=WAL",
                    "PRAGMA synchronous=NORMAL",
                    "PRAGMA foreign_keys=ON",
                    "PRAGMA busy_timeout=30000",
                ):
                    await raw.execute(pragma)
        except Exception as exc:
            raise _translated(exc) from exc
        return _Conn(raw, now, now)

    async def _take(self) -> _Conn:
        async with self._freed:
            while not self._idle and self._count >= self.size:
                await self._freed.wait()
            conn = self._idle.pop() if self._idle else None
            if conn is None:
                self._count += 1  # this slot's connection is made below
        if conn is not None and not (
            self.postgres and time.monotonic() - conn.idle_since >= PING_AFTER_IDLE_SECONDS
        ):
            return conn
        if conn is not None:  # idle a while: pinged, replaced in its slot if it died
            try:
                await conn.raw.execute("SELECT 1 AS alive")
                return conn
            except Exception:
                await self._close(conn)
                await self._drop_older(conn.made)
        try:
            return await self._connect()
        except BaseException:
            await self._release_slot()
            raise

    async def _drop_older(self, made: float) -> None:
        """Close every idle connection made no later than `made` (the server they spoke to went away)."""
        async with self._freed:
            old = [c for c in self._idle if c.made <= made]
            self._idle = [c for c in self._idle if c.made > made]
            self._count -= len(old)
            self._freed.notify(len(old))
        for c in old:
            await self._close(c)

    @staticmethod
    async def _close(conn: _Conn) -> None:
        with contextlib.suppress(Exception):
            await conn.raw.close()

    async def _release_slot(self) -> None:
        async with self._freed:
            self._count -= 1
            self._freed.notify()

    async def _give_back(self, conn: _Conn) -> None:
        conn.idle_since = time.monotonic()
        if self._closed:
            await self._close(conn)
            await self._release_slot()
            return
        async with self._freed:
            self._idle.append(conn)
            self._freed.notify()

    async def _begun(self, begin: str) -> _Conn:
        """A pooled connection with its transaction begun. One whose BEGIN fails (its server went away
        since it was last used) is replaced once: nothing was asked of it yet."""
        conn = await self._take()
        try:
            try:
                await conn.raw.execute(begin)
            except Exception as exc:
                await self._close(conn)
                await self._drop_older(conn.made)
                if not self.postgres:
                    raise _translated(exc) from exc
                conn = await self._connect()  # the server restarted since: a new connection, once
                try:
                    await conn.raw.execute(begin)
                except Exception as again:
                    raise _translated(again) from again
        except BaseException:
            await self._close(conn)
            await self._release_slot()
            raise
        return conn

    async def _begin_piped(
        self, begin: str, tx: Tx, opened: list[_Conn], lazy: Callable[[Tx], Awaitable[None]]
    ) -> None:
        """Begin a lazy write transaction on PostgreSQL in its pipeline: the BEGIN goes with the first
        statement of `lazy` (a table step's check of its row, a read), in its round trip, instead of a
        round trip of its own. A connection whose server went away since its last use fails that first
        round trip, which changed nothing (a BEGIN and a read): it is replaced once, and `lazy` runs again
        on the new one, as `_begun` replaces one whose BEGIN failed."""
        conn = await self._take()
        for attempt in (1, 2):
            opened[:] = [conn]
            tx.conn = conn.raw
            try:
                tx.pipe = conn.raw.pipeline()
                await tx.pipe.__aenter__()
                await conn.raw.execute(begin)
            except Exception as exc:  # the pipeline sends nothing yet: this is a closed connection
                failed: BaseException = _translated(exc)
            else:
                try:
                    await lazy(tx)
                    return
                except Unavailable as exc:
                    failed = exc
            if attempt == 2 or tx.synced:  # answered before it failed: not only a BEGIN and a read
                raise failed
            await self._close(conn)
            await self._drop_older(conn.made)
            tx.sent_ahead.clear()  # sent on the dead connection: read again when asked
            try:
                conn = await self._connect()  # the server restarted since: a new connection, once
            except BaseException:
                opened.clear()
                await self._release_slot()
                raise

    async def _end(self, conn: _Conn, exc: BaseException | None, tx: Tx | None = None) -> None:
        """Commit (`exc` None), with the statements kept for it (`Tx.close_with`), or roll back, and
        give the connection back; a connection that failed, or whose statement was cancelled half way,
        is not used again, and one the server dropped takes every idle one as old as it along (a restart
        ends them all)."""
        away = broken = False
        pipe = tx.pipe if tx is not None else None
        if exc is None:
            try:
                closing = tx.closing if tx is not None else []
                if pipe is not None:  # the writes waiting, the closing ones and COMMIT: one round trip
                    for stmt, params in closing:
                        await conn.raw.execute(stmt.pg, tx._params(params))  # type: ignore[union-attr]
                    await conn.raw.execute("COMMIT")
                    await pipe.__aexit__(None, None, None)
                elif closing and self.postgres:
                    async with conn.raw.pipeline():
                        for stmt, params in closing:
                            await conn.raw.execute(stmt.pg, tx._params(params))  # type: ignore[union-attr]
                        await conn.raw.execute("COMMIT")
                else:
                    for stmt, params in closing:
                        await conn.raw.execute(stmt.lite, tx._params(params))  # type: ignore[union-attr]
                    await conn.raw.execute("COMMIT")
            except Exception as failed:
                translated = _translated(failed)
                if isinstance(translated, Stale) and await self._rolled_back(conn, pipe):
                    raise translated from failed  # its check refused it: nothing committed
                await self._close(conn)  # whether it committed or not, the connection is not trusted
                await self._drop_older(conn.made)
                await self._release_slot()
                raise translated from failed
        else:
            away = isinstance(exc, Unavailable)
            broken = away or isinstance(exc, asyncio.CancelledError)
            if not broken:
                try:
                    if pipe is not None:  # what was sent is answered (and ignored) first
                        await pipe.__aexit__(type(exc), exc, exc.__traceback__)
                    await conn.raw.execute("ROLLBACK")
                except Exception:
                    broken = away = True
        if broken:
            await self._close(conn)
            if away:
                await self._drop_older(conn.made)
            await self._release_slot()
        else:
            await self._give_back(conn)

    async def _rolled_back(self, conn: _Conn, pipe: Any) -> bool:
        """Roll back a transaction that a statement of its pipeline refused (the COMMIT after it was not
        run) and give its connection back; False (nothing given back) when the connection failed. The
        pipeline is left first, every answer of it read (psycopg learns which preparations it skipped)."""
        try:
            if pipe is not None:
                with contextlib.suppress(Exception):  # its refusal is known: the caller raises it
                    await pipe.__aexit__(Stale, Stale(), None)
            await conn.raw.execute("ROLLBACK")
        except Exception:
            return False
        await self._give_back(conn)
        return True

    def _begin_sql(self, write: bool, snapshot: bool) -> str:
        if self.postgres:
            return "BEGIN ISOLATION LEVEL REPEATABLE READ" if snapshot and not write else "BEGIN"
        return "BEGIN IMMEDIATE" if write else "BEGIN"

    @contextlib.asynccontextmanager
    async def transaction(
        self,
        *,
        write: bool = True,
        snapshot: bool = False,
        lazy: Callable[[Tx], Awaitable[None]] | None = None,
    ) -> AsyncIterator[Tx]:
        """One transaction: committed when the block ends, rolled back when it raises. On SQLite a
        write takes the database's write lock at its start (BEGIN IMMEDIATE); on PostgreSQL a read of
        several statements that must see one moment (`snapshot`) is REPEATABLE READ.

        With `lazy`, the transaction begins only when its first statement is sent, and `lazy` runs
        right after its BEGIN (a table step checks there that the table is still as it computed from,
        and writes what it held back, `Tx.defer`); a block that sent none leaves nothing to commit (a
        table step then writes itself in one statement, `once`)."""
        begin = self._begin_sql(write, snapshot)
        opened: list[_Conn] = []
        tx = Tx(None, self.postgres, memo=self.memo)

        async def start() -> None:
            if lazy is not None and self.postgres and write:
                await self._begin_piped(begin, tx, opened, lazy)
                return
            conn = await self._begun(begin)
            opened.append(conn)
            tx.conn = conn.raw
            if self.postgres and write:
                tx.pipe = conn.raw.pipeline()
                await tx.pipe.__aenter__()
            if lazy is not None:
                await lazy(tx)

        if lazy is None:
            await start()
        else:
            tx.lazy = start
        try:
            yield tx
        except BaseException as exc:
            tx.ended = True
            if isinstance(exc, Frozen):
                exc.step = tx.info
            if opened:
                await self._end(opened[0], exc, tx)
            raise
        finally:
            if tx.lazy is not None:  # it never began: `start` holds `tx`, a cycle only the collector frees
                tx.lazy = _ended
        if opened:
            try:
                await self._end(opened[0], None, tx)
            except Frozen as exc:  # refused with the COMMIT (the house's and the cage's entries)
                exc.step = tx.info
                raise
        tx.ended = True
        self.memo.update(tx.learned)

    @contextlib.asynccontextmanager
    async def autocommit(self) -> AsyncIterator[Tx]:
        """A connection whose statements each are a transaction of their own (no BEGIN, no COMMIT):
        for a read of one statement, one round trip where a transaction took three."""
        conn = await self._take()
        tx = Tx(conn.raw, self.postgres, memo=self.memo)
        try:
            yield tx
        except BaseException as exc:
            if isinstance(exc, Unavailable | asyncio.CancelledError):
                await self._close(conn)
                if isinstance(exc, Unavailable):
                    await self._drop_older(conn.made)
                await self._release_slot()
            else:
                await self._give_back(conn)
            raise
        await self._give_back(conn)

    async def once(self, stmt: Q, params: dict[str, Any]) -> int:
        """One statement in a transaction of its own (PostgreSQL's implicit one: no BEGIN, no COMMIT, one
        round trip); how many rows it changed. Not retried on a connection that fails: whether it was
        applied is then unknown, and the caller is told the database is away."""
        async with self.autocommit() as tx:
            return await tx.run(stmt, params)

    async def close(self) -> None:
        """Close every connection (those in use are closed as they come back)."""
        async with self._freed:
            self._closed = True
            idle, self._idle = self._idle, []
            self._count -= len(idle)
        for conn in idle:
            await self._close(conn)
