"""The casino a server process runs: its database, its tables' runtimes, the per-table locks, the broker,
the timers, and the start-up checks (migrations, the first administrator, every table's chain head).

Every change is one database transaction under the table's row lock (PostgreSQL ``SELECT … FOR UPDATE``;
SQLite is one process with one writer), committed before its answer is sent and before it is pushed. A
process's runtime of a table is a cache valid for one table version; any process can take any request.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any, TypeVar, cast

import pydantic_core
from sqlalchemy import func, select
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncSession

from tapete.errors import TapeteError
from tapete.server import idempotency, signing
from tapete.server import repository as shared
from tapete.server.cashier import ledger
from tapete.server.config import VERSION, Settings, load_shoe_key
from tapete.server.db import holds_signatures, make_engine, migrate, sessions
from tapete.server.errors import Conflict, InsufficientFunds, NotFound
from tapete.server.idempotency import Idem
from tapete.server.inspection import integrity
from tapete.server.inspection import repository as inspection_repo
from tapete.server.live.push import Broker, LocalBroker, RedisBroker
from tapete.server.models import User, utcnow
from tapete.server.people.accounts import (
    Caller,
    create_user,
    dummy_hash,
)
from tapete.server.people.protection import Protection
from tapete.server.people.sessions import Sessions
from tapete.server.play import chain, state, tables
from tapete.server.play import repository as repo
from tapete.server.play.tables import TableRow, TableRuntime, note
from tapete.server.sql import Frozen, Many, Stale, Store, Tx, Unavailable, Violation

log = logging.getLogger("tapete.server")
T = TypeVar("T")


#: how often a running server verifies its tables' new records and checkpoints them
CHECKPOINT_SECONDS = 60.0


class Casino:
    """One server process's view of the casino."""

    def __init__(self, settings: Settings, say: Callable[[str], None] | None = None) -> None:
        self.settings = settings
        #: the casino's Ed25519 key: every chain record and ledger entry this process writes is signed
        self.signer = signing.load_signer(settings.data_dir, settings.signing_key, say=say)
        self.keys = signing.keyring(self.signer, settings.data_dir)
        signing.use(self.signer, self.keys)
        #: SQLAlchemy's engine: the people's rows (users, sessions, logins) and the inspector's reads
        self.engine = make_engine(settings.database_url)
        self.db = sessions(self.engine)
        #: the driver's connections: the tables, their rounds and the ledger (`sql`)
        self.store = Store(settings.database_url)
        self.key = settings.shoe_key
        self.runtimes: dict[int, TableRuntime] = {}
        #: each table's state at the version this process last committed or read (pushes read no database)
        self.snapshots: dict[int, state.Snapshot] = {}
        #: each table's row as this process last committed or read it
        self.rows: dict[int, TableRow] = {}
        self.locks: dict[int, asyncio.Lock] = {}
        self.writer = asyncio.Lock()  # SQLite: one writer at a time
        self.broker: Broker = (
            RedisBroker(settings.broker_url, settings.database_url) if settings.broker_url else LocalBroker()
        )
        self._timer: asyncio.Task[None] | None = None
        self._checkpointer: asyncio.Task[None] | None = None
        self.postgres = not settings.sqlite
        #: bets waiting for their table (`place_bet`), and the task that takes them, per table
        self.bets_waiting: dict[int, list[tuple[Caller, Any, Any, Any, asyncio.Future[Any]]]] = {}
        self.bets_taker: dict[int, asyncio.Task[None]] = {}
        #: player protection's checks and what this process knows of each player (`protection`)
        self.protection = Protection(self)
        #: the sessions this process trusts, and the WebSockets that end with theirs (`people.sessions`)
        self.sessions = Sessions(self)
        self.broker.on_forget = self.sessions.heard

    # -- start and stop ------------------------------------------------------------------------------
    async def start(self, say: Callable[[str], None] | None = None) -> integrity.StartupReport:
        """Connect the broker, verify every table's chain and the ledger (`integrity.startup`: a table
        that fails is suspended, an account frozen, and the output says so), start the timers."""
        await self.broker.start()
        await asyncio.to_thread(dummy_hash)  # the first login of an absent name costs what the others do

        async def recovered(tx: Tx, table: TableRow) -> None:
            if table.in_round:
                await note(tx, "round_recovered", table_id=table.id, details={"round": table.round_no})
            if table.in_round and table.status == "open" and table.deadline_kind == "turn":
                await self._turn_again(tx, table)

        async def started(tx: Tx) -> None:
            await note(tx, "server_started", details={"version": VERSION})

        report = await integrity.startup(
            self.store, say or _say, writer=self.write_lock, each=recovered, end=started
        )
        verified = (
            f"integrity: {report.records} chain records and {report.entries} ledger entries verified"
            f" (every table held {report.held:.2f} s for the ledger's newest entries)"
        )
        if say is not None:
            say(verified)
        else:  # all is well: information
            _say(verified, logging.INFO)
        self._timer = asyncio.create_task(self._timers())
        self._checkpointer = asyncio.create_task(self._checkpoints())
        return report

    @staticmethod
    async def _turn_again(tx: Tx, table: TableRow) -> None:
        """The holder whose turn it was could not play while the server was down: his whole turn time
        again from now (the timer's fence, the chain's next seq, is kept)."""
        if not table.turn_seconds:
            return
        before = table.copy()
        table.deadline_at = utcnow() + timedelta(seconds=table.turn_seconds)
        table.version += 1  # every process's picture of the table is now stale
        await tables.write_row(tx, table, before)

    async def stop(self) -> None:
        """Stop the timers and the broker, record the stop."""
        for task in (self._timer, self._checkpointer):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        with contextlib.suppress(Exception):
            async with self.write_lock(), self.store.transaction() as tx:
                await note(tx, "server_stopped", details={"version": VERSION})
        await self.broker.stop()
        await self.dispose()

    async def dispose(self) -> None:
        """Close this process's connections to the database (both kinds)."""
        await self.store.close()
        await self.engine.dispose()

    # -- transactions --------------------------------------------------------------------------------
    async def run(self, fn: Callable[[AsyncSession], Awaitable[T]]) -> T:
        """One transaction of the people's rows (users, logins) through the ORM: committed before the
        answer."""
        async with self.write_lock():
            try:
                async with self.db() as db, db.begin():
                    return await fn(db)
            except IntegrityError:
                raise Conflict("another request changed this first: try again", key="err.api.race") from None
            except (OperationalError, DBAPIError) as exc:
                raise Unavailable(
                    "the database did not answer: nothing was changed", key="err.api.unavailable"
                ) from exc

    async def run_tx(
        self, fn: Callable[[Tx], Awaitable[T]], *, caller: Caller | None = None, idem: Idem | None = None
    ) -> T:
        """One transaction that is not a table's step (the cashier, a table opened): committed before the
        answer, its first answer kept under the request's Idempotency-Key."""
        async with self.write_lock():
            try:
                async with self.store.transaction() as tx:
                    if idem is not None and caller is not None:
                        await idempotency.replay(tx, caller, idem)
                    result = await fn(tx)
                    if idem is not None and caller is not None:
                        await idempotency.remember(tx, caller, idem, 200, _jsonable(result))
                return result
            except Violation as exc:
                await self._refused_by_database(exc, caller, idem)
                raise AssertionError("unreachable") from None

    async def _refused_by_database(self, exc: Violation, caller: Caller | None, idem: Idem | None) -> None:
        """What a constraint's refusal says to the caller (the transaction was rolled back): a wallet
        below zero is insufficient_funds; a ledger entry on an account that is frozen or does not
        reconcile freezes it and is conflict (err.account.frozen); the same Idempotency-Key committed by
        a request at the same moment gives that request's answer; anything else is a race to try
        again."""
        if isinstance(exc, Frozen):
            await self.frozen(exc)
        if "wallet_never_negative" in str(exc):
            raise InsufficientFunds("the wallet cannot cover this", key="err.api.funds_db") from None
        if (
            caller is not None
            and idem is not None
            and ("one_answer_per_key" in str(exc) or "idempotency_keys" in str(exc))
        ):
            async with self.store.transaction(write=False) as tx:
                await idempotency.replay(tx, caller, idem)
        raise Conflict("another request changed this first: try again", key="err.api.race") from None

    async def frozen(self, exc: Frozen) -> None:
        """A ledger entry the database refused (migration 0005's trigger): its account is frozen now (in
        a transaction of its own: the refused one was rolled back) and the request is conflict."""
        name = None
        # (the caller holds the writer's lock: SQLite's one writer)
        async with self.store.transaction() as tx:
            if exc.account_id is not None:
                why = "its balance does not follow from its last ledger entry"
                name = await integrity.freeze(tx, exc.account_id, why) or await tx.value(
                    inspection_repo.ACCOUNT_NAME, {"id": exc.account_id}
                )
            else:  # SQLite's refusal does not name the account: every balance against its last entry,
                # else the frozen ones among those the refused transaction moved
                name = ", ".join(await integrity.reconcile(tx)) or None
                posted = exc.step.get(ledger.POSTED) if exc.step is not None else None
                if name is None and posted:
                    found = await tx.all(inspection_repo.FROZEN_AMONG, {"ids": Many(sorted(posted))})
                    name = ", ".join(str(row.name) for row in found) or None
        raise Conflict(
            f"the account {name} is frozen until an administrator reopens it",
            key="err.account.frozen",
            account=name or "?",
        ) from None

    async def integrity_failed(self, exc: chain.IntegrityFailure) -> None:
        """A round's records failed their check before it settled: the table is suspended (in a
        transaction of its own: the step was rolled back), and the request is conflict. (The caller
        holds the writer's lock: SQLite's one writer.)"""
        async with self.store.transaction() as tx:
            found = await tx.one(repo.TABLE_LOCKED, {"id": exc.table_id})
            if found is not None:
                await integrity.suspend(tx, tables.row_of(found), exc.seq, exc.reason)
        self.rows.pop(exc.table_id, None)
        log.error("integrity failure at table %s, record %s: %s", exc.table_id, exc.seq, exc.reason)
        raise Conflict(
            f"table {exc.table_id} is suspended: its record {exc.seq} failed its check",
            key="err.api.table_status",
            status="suspended",
        ) from None

    def write_lock(self) -> Any:
        """The writer's lock a write transaction is taken under: SQLite's one writer; nothing on
        PostgreSQL, whose row locks order the writers (the sessions and protection services take it too)."""
        return self.writer if not self.postgres else contextlib.nullcontext()

    async def remember_refusal(self, caller: Caller, idem: Idem, status: int, body: Any) -> None:
        """Keep a refused request's answer under its key, so that a retry gets it again."""
        with contextlib.suppress(Exception):
            async with self.write_lock(), self.store.transaction() as tx:
                if not await idempotency.answered(tx, caller, idem):
                    await idempotency.remember(tx, caller, idem, status, body)

    def lock(self, table_id: int) -> asyncio.Lock:
        """This process's lock of a table (the database row lock orders the processes)."""
        lock = self.locks.get(table_id)
        if lock is None:
            lock = self.locks[table_id] = asyncio.Lock()
        return lock

    async def _table(self, tx: Tx, table_id: int, *, for_update: bool) -> TableRow:
        """The table's row, locked for a change on PostgreSQL, as a copy a change may write: it writes
        what it changed itself (`tables.write_row`). The row this process last saw is kept, and while its
        version, chain length and head are the database's (one small query, the lock's), it is used as it
        is. Every write of a table's row moves its version, so a row another process changed is read
        anew."""
        cached = self.rows.get(table_id)
        if cached is not None:
            found = await tx.one(repo.FRESH_LOCKED if for_update else repo.FRESH, {"id": table_id})
            if found is None:
                self.rows.pop(table_id, None)
                raise NotFound(f"no table {table_id}", key="err.api.no_table", table=table_id)
            if found == (cached.version, cached.next_seq, cached.head_hash):
                return cached.copy()
        found = await tx.one(repo.TABLE_LOCKED if for_update else repo.TABLE, {"id": table_id})
        if found is None:
            raise NotFound(f"no table {table_id}", key="err.api.no_table", table=table_id)
        table = tables.row_of(found)
        self.rows[table_id] = table.copy()
        return table

    async def _runtime(self, tx: Tx, table: TableRow, *, writable: bool) -> TableRuntime:
        rt = self.runtimes.get(table.id)
        if rt is not None and rt.version == table.version:
            return rt
        if rt is not None:
            if await tables.catch_up(tx, table, rt):
                return rt
            self.runtimes.pop(table.id, None)  # it may have moved on the way: rebuilt whole
            self.snapshots.pop(table.id, None)
        rt, owed = await tables.build_runtime(tx, table, self.key)
        if owed and writable:  # a shoe recovered by reshuffling says so in the log
            await chain.append(tx, table, f"shoe-{table.round_no}", owed, "recovery")
            table.version += 1
            rt.made_at(table)  # if this rolls back, the chain it expects is not the table's: no catch-up
            await note(tx, "shoe_recovered", table_id=table.id, details={"events": owed})
        elif owed:  # a read cannot log the reshuffle it owes: not kept, so the next change logs it
            return rt
        self.runtimes[table.id] = rt
        return rt

    async def mutate(
        self,
        table_id: int,
        fn: Callable[[Tx, TableRow, TableRuntime], Awaitable[T]],
        *,
        caller: Caller | None = None,
        idem: Idem | None = None,
        then: Callable[[Tx, TableRuntime, T, state.Snapshot], Awaitable[T]] | None = None,
    ) -> T:
        """A change of one table: under its locks, in one transaction (events, their chain and the
        ledger together), its version moved, its timer set, its state's snapshot taken, committed, then
        pushed. `then` makes the answer from what `fn` returned and the new snapshot, so that it shows the
        new version and timer.

        A table this process holds at its latest version (its row, runtime and snapshot) takes the step
        optimistically: nothing is asked of the database until the step reads or writes beyond its
        records; then the transaction begins, the row is locked and must still be the one the step
        started from (else `Stale`). A step that read nothing (a decision that moves no chips and
        ends no round) is written in one statement fenced by that row (`tables.commit_fenced`). A stale
        step is taken again from the database under the row's lock."""
        async with self.lock(table_id), self.write_lock():
            try:
                done = await self._step(table_id, fn, caller, idem, then, warm=idem is None)
            except Stale:
                done = await self._step(table_id, fn, caller, idem, then, warm=False)
            if done is None:
                return cast(T, None)  # nothing happened: nothing to commit, no new version, no push
            result, version = done
            self.prerender(table_id, version)
        await self.broker.publish(table_id, version)
        return result

    def prerender(self, table_id: int, version: int) -> None:
        """Write the push of a version this process just committed for each of its connections to the
        table, while the table's runtime is at that version (under its lock), and put it in their
        mailboxes: each connection then sends it as it is, without taking the table's lock or reading
        anything. A player whose balance the snapshot lacks (he watches a table he does not play at)
        gets the version alone, and his connection reads his state as `push_for` does."""
        snap, rt = self.snapshots.get(table_id), self.runtimes.get(table_id)
        if snap is None or rt is None or not snap.version == rt.version == version:
            return
        for box in self.broker.local(table_id):
            caller = box.caller
            if caller is None:
                continue
            me = snap.balances.get(caller.name)
            if caller.role == "player" and me is None:
                continue
            box.put(version, state.render_json(snap, rt, caller, me))

    async def _verify_unread(self, table_id: int, known: TableRow) -> None:
        """An optimistic step that asked nothing of the database refused, or found nothing to do, from
        what this process knew of the table: Stale (taken again from the database) unless the table is
        still as it knew it."""
        async with self.store.autocommit() as tx:
            found = await tx.one(repo.FRESH, {"id": table_id})
        if found != (known.version, known.next_seq, known.head_hash):
            raise Stale()

    def _warm(self, table_id: int) -> tuple[TableRow, TableRuntime] | None:
        """The table's row and runtime as this process last committed or read them, when its snapshot is
        of the same version (what an optimistic step starts from)."""
        row, rt, snap = self.rows.get(table_id), self.runtimes.get(table_id), self.snapshots.get(table_id)
        if row is None or rt is None or snap is None or not row.version == rt.version == snap.version:
            return None
        return row.copy(), rt

    async def _step(
        self,
        table_id: int,
        fn: Callable[[Tx, TableRow, TableRuntime], Awaitable[T]],
        caller: Caller | None,
        idem: Idem | None,
        then: Callable[[Tx, TableRuntime, T, state.Snapshot], Awaitable[T]] | None,
        *,
        warm: bool,
    ) -> tuple[T, int] | None:
        held = self._warm(table_id) if warm else None
        known = held[0].copy() if held is not None else None  # the row the step starts from

        async def still(tx: Tx) -> None:  # the optimistic step's transaction began: the row as it knew it
            assert known is not None
            if tables.unread_check(tx):  # sent with the step's writes; the database refuses them if moved
                await tx.run(repo.FENCE_CHECK, tables.fence_of(known))
            else:
                found = await tx.one(repo.FRESH_LOCKED, {"id": table_id})
                if found != (known.version, known.next_seq, known.head_hash):
                    raise Stale()
            await tx.flush()

        begun: list[Tx] = []
        try:
            async with self.store.transaction(lazy=still if held is not None else None) as tx:
                begun.append(tx)
                if held is not None:
                    table, rt = held
                    start = table.copy()
                else:
                    if idem is not None and caller is not None:
                        await idempotency.replay(tx, caller, idem)
                    table = await self._table(tx, table_id, for_update=True)
                    start = table.copy()  # the row as it is: what the step writes is its diff
                    rt = await self._runtime(tx, table, writable=True)
                before = self.snapshots.get(table_id)
                if before is not None and before.version == table.version == rt.version:
                    tx.info.put(tables.STATE_BEFORE, before)
                result = await fn(tx, table, rt)
                if idem is not None:  # the answer kept under its key: the ids its inserts gave back now
                    await tables.settle_ids(tx)
                table.version += 1
                rt.made_at(table)
                await tables.set_deadline(tx, table, rt)
                # without a key to keep the answer under, the balances the state must read again go with
                # the COMMIT, in its round trip (the answer is made once it committed)
                also = (caller.name,) if caller is not None and caller.role == "player" else ()
                snap = await state.snapshot(
                    tx, table, rt, self.snapshots.get(table_id), money_after=also if idem is None else None
                )
                if then is not None and snap.owed is None:
                    result = await then(tx, rt, result, snap)
                if idem is not None and caller is not None:
                    await idempotency.remember(tx, caller, idem, 200, _jsonable(result))
                if tx.lazy is not None:  # it read nothing: one statement, fenced by the row it started from
                    await tables.commit_fenced(self.store, start, table, tx.deferred)
                else:
                    await tables.write_row(tx, table, start)
        except tables.NoChange:  # only the timers' sweep raises it, and reads None as "nothing fired"
            if known is not None and begun and begun[0].lazy is not None:
                await self._verify_unread(table_id, known)
            kept, last = self.runtimes.get(table_id), self.rows.get(table_id)
            if kept is not None and (last is None or kept.version != last.version):
                self.runtimes.pop(table_id, None)  # it moved in what was rolled back (a shoe recovered)
            return None
        except BaseException as exc:
            # the engine may have moved: rebuild from what was committed
            self.runtimes.pop(table_id, None)
            self.snapshots.pop(table_id, None)
            self.rows.pop(table_id, None)
            if isinstance(exc, TapeteError) and known is not None and begun and begun[0].lazy is not None:
                await self._verify_unread(table_id, known)  # a refusal from what it knew: still so?
            if isinstance(exc, Violation):
                await self._refused_by_database(exc, caller, idem)
            if isinstance(exc, chain.IntegrityFailure):
                await self.integrity_failed(exc)
            raise
        await tables.settle_ids(tx)  # committed: the ids its inserts gave back, in the COMMIT's round trip
        tables.keep_round_records(rt, start, table, tx)
        if snap.owed is not None:  # committed: the balances read with the COMMIT, then the answer
            await state.settle_money(tx, snap)
            if then is not None:
                result = await then(tx, rt, result, snap)
        self.snapshots[table_id] = snap
        self.rows[table_id] = table.copy()
        return result, table.version

    async def place_bet(
        self, table_id: int, caller: Caller, seat: Any, spot: Any, amount: Any
    ) -> dict[str, Any]:
        """A bet (or a back-bet request) at a table, taken together with the bets that wait for the
        table as it takes it: between two rounds every box's holder bets at once, and each bet was a
        transaction of its own, one after the other (seven statements each, the last bettor waiting for
        the six before him). The table's bets waiting are taken in one transaction (the wallets locked
        and read in two statements, each bet checked in turn as the engine and `tables.place_bet` check
        it), one version, one push; a bet refused is refused alone. Its answer is its own."""
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.bets_waiting.setdefault(table_id, []).append((caller, seat, spot, amount, done))
        if table_id not in self.bets_taker:
            self.bets_taker[table_id] = asyncio.create_task(self._take_bets(table_id))
        answer: dict[str, Any] = await done
        return answer

    async def _take_bets(self, table_id: int) -> None:
        try:
            while self.bets_waiting.get(table_id):
                await self._bets(table_id, self.bets_waiting.pop(table_id))
        finally:
            self.bets_taker.pop(table_id, None)

    async def _bets(
        self, table_id: int, waiting: list[tuple[Caller, Any, Any, Any, asyncio.Future[Any]]]
    ) -> None:
        answers: list[Any] = [None] * len(waiting)

        async def together(tx: Tx, table: TableRow, rt: TableRuntime) -> None:
            bettors = {caller.name for caller, *_ in waiting if caller.role == "player"}
            await ledger.ahead_lock_funds(tx, bettors)  # with the check its beginning runs
            await self.protection.ahead_bets(tx, [caller for caller, *_ in waiting])
            await tx.begin()  # the table as the database has it: every refusal below is from it as it is
            await ledger.lock_funds(tx, bettors)
            for i, (caller, seat, spot, amount, _) in enumerate(waiting):
                try:
                    await self.protection.check_bet(tx, caller, amount)
                    answers[i] = await tables.place_bet(tx, table, rt, caller, seat, spot, amount)
                except TapeteError as exc:  # refused alone: it wrote nothing (every check comes first)
                    answers[i] = exc
            if all(isinstance(a, TapeteError) for a in answers):
                raise tables.NoChange()  # nothing placed: no version, no push

        try:
            await self.mutate(table_id, together)
        except Exception as exc:  # the transaction failed whole: each bet on its own then, or the error
            if len(waiting) > 1 and isinstance(exc, Conflict):
                for item in waiting:
                    await self._bets(table_id, [item])
                return
            answers = [exc] * len(waiting)
        for (*_, done), answer in zip(waiting, answers, strict=True):
            if done.done():  # its request went away: the bet stands, nobody to tell
                continue
            if isinstance(answer, BaseException):
                done.set_exception(answer)
            else:
                done.set_result(answer)

    def _reading(self) -> Any:
        """A read of a table in several statements sees one moment: on PostgreSQL its transaction is
        REPEATABLE READ (under READ COMMITTED another process's commit could fall between the table's row
        and its events, bets or seats, and a viewer would be shown a state that never was). A change
        needs none: it holds the table's row lock, so no other writer of the table commits meanwhile;
        SQLite is one process whose table lock orders its reads and writes."""
        return self.store.transaction(write=False, snapshot=True)

    async def state_for(self, table_id: int, caller: Caller) -> dict[str, Any]:
        """server.md's state of a table for `caller`, read as it is now (a player's balance too)."""
        return (await self._state(table_id, caller, None, state.render))[1]

    async def push_for(self, table_id: int, caller: Caller, at_least: int | None) -> tuple[int, bytes]:
        """A WebSocket push of the table's state to `caller` (its version, its JSON). Made from this
        process's snapshot when it is as new as the version announced (`at_least`), without the
        database; otherwise (the first push, or a version another process made) read as `state_for`."""
        return await self._state(table_id, caller, at_least, state.render_json)

    async def _state(
        self,
        table_id: int,
        caller: Caller,
        at_least: int | None,
        render: Callable[[state.Snapshot, TableRuntime, Caller, tuple[int, int] | None], T],
    ) -> tuple[int, T]:
        """The state of `render`'s kind, with the version it shows."""
        async with self.lock(table_id):
            snap, rt = self.snapshots.get(table_id), self.runtimes.get(table_id)
            if (
                at_least is not None
                and snap is not None
                and rt is not None
                and rt.version == snap.version >= at_least
            ):
                me = snap.balances.get(caller.name)
                if caller.role != "player" or me is not None:
                    return snap.version, render(snap, rt, caller, me)
            async with self._reading() as tx:
                table = await self._table(tx, table_id, for_update=False)
                rt = await self._runtime(tx, table, writable=False)
                snap = self.snapshots.get(table_id)
                if snap is None or snap.version != table.version:
                    snap = await state.snapshot(tx, table, rt)
                    self.snapshots[table_id] = snap
                me = None
                if caller.role == "player":
                    me = (await state.balances(tx, [caller.name])).get(caller.name)
                return snap.version, render(snap, rt, caller, me)

    async def read(self, table_id: int, fn: Callable[[Tx, TableRow, TableRuntime], Awaitable[T]]) -> T:
        """A read of one table's committed state (its runtime rebuilt when another process moved it)."""
        async with self.lock(table_id), self._reading() as tx:
            table = await self._table(tx, table_id, for_update=False)
            rt = await self._runtime(tx, table, writable=False)
            return await fn(tx, table, rt)

    # -- timers ----------------------------------------------------------------------------------------
    async def _timers(self) -> None:
        """Fire the deadlines that came due (turn and betting timers), whichever process sees them first:
        each one is fenced by the table version it was set at, so it fires once."""
        while True:
            await asyncio.sleep(self.settings.timer_interval_seconds)
            try:
                await self.fire_due()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("timer sweep failed")

    async def _checkpoints(self) -> None:
        """Every `CHECKPOINT_SECONDS`, the chains' new records and the ledger's new entries verified and
        checkpointed (`integrity.checkpoint_tables`, `integrity.checkpoint_ledger`)."""
        while True:
            await asyncio.sleep(CHECKPOINT_SECONDS)
            try:
                await integrity.checkpoint_tables(self.store, writer=self.write_lock)
                await integrity.checkpoint_ledger(self.store, writer=self.write_lock)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("checkpoint sweep failed")

    async def fire_due(self) -> int:
        """One sweep: every due deadline answered; how many fired."""
        async with self.store.autocommit() as tx:
            due = [table_id for (table_id,) in await tx.all(repo.DUE_TABLES, {"now": utcnow()})]
        fired = 0
        for table_id in due:

            async def fire(tx: Tx, table: TableRow, rt: TableRuntime) -> bool:
                await tables.timer_step(tx, table, rt, self.key)
                return True

            with contextlib.suppress(TapeteError):
                if await self.mutate(table_id, fire):
                    fired += 1
        return fired


def _jsonable(value: Any) -> Any:
    if isinstance(value, state.Rendered):  # already JSON: kept as the caller was answered
        return pydantic_core.from_json(value)
    return json.loads(json.dumps(value, default=str))


# ------------------------------------------------------------------------------------------ bootstrap
async def bootstrap(casino: Casino, say: Callable[[str], None]) -> None:
    """The first start: the administrator (TAPETE_ADMIN_PASSWORD, else a generated password printed
    once); on a fresh embedded casino, also a demo player with chips and a Black Jack table."""
    settings = casino.settings
    demo: tuple[ledger.Player, str] | None = None
    async with casino.db() as db, db.begin():
        admin = await db.scalar(select(User).where(func.lower(User.name) == "admin"))
        if admin is not None:
            return
        password = settings.admin_password or secrets.token_urlsafe(12)
        await create_user(db, "admin", password, "admin", actor="bootstrap", policy=False)
        if settings.demo_table:
            demo_password = secrets.token_urlsafe(9)
            player = await create_user(db, "demo", demo_password, "player", actor="bootstrap")
            demo = ledger.Player(player.id, player.name), demo_password
    if settings.admin_password:
        say("administrator: admin (password from TAPETE_ADMIN_PASSWORD)")
        if len(settings.admin_password) < 8:  # the operator's own choice: taken, but said
            say("warning: TAPETE_ADMIN_PASSWORD is shorter than 8 characters; choose a longer one")
    else:
        say(f"administrator: admin  password: {password}   (shown once: keep it)")
    if demo is not None:
        async with casino.store.transaction() as tx:
            await ledger.cashier(tx, demo[0], 100_000, out=False, actor="bootstrap")
            await tables.open_table(
                tx,
                "bootstrap",
                "Mesa 1 · Black Jack",
                "blackjack",
                "virtual",
                {"betting_seconds": 15, "turn_seconds": 45},
                casino.key,
            )
        say(f"demo player: demo  password: {demo[1]}  (S/ 1,000.00 in chips, a Black Jack table)")


def _say(text: str, level: int = logging.WARNING) -> None:
    """The start-up's output: the server's standard output, and its log at `level` where the operator
    gave the log a handler (without one, Python's last resort would print it to the console again)."""
    print(text, flush=True)
    if log.hasHandlers():
        log.log(level, text)


@asynccontextmanager
async def lifespan_of(casino: Casino) -> AsyncIterator[None]:
    """Start and stop the casino with the app."""
    await casino.start()
    try:
        yield
    finally:
        await casino.stop()


def prepare(settings: Settings, say: Callable[[str], None] = print) -> Casino:
    """Migrate the database (with the casino's signing key: migration 0005 signs what predates
    signatures, verified, with it), load the shoe key, bootstrap the first users; the casino to serve.
    A start with no key named nor kept, on a database that already holds signatures, is refused
    (SigningKeyError): only the first start makes a key (server.md)."""
    if not signing.key_named(settings.data_dir, settings.signing_key) and holds_signatures(
        settings.database_url
    ):
        raise signing.SigningKeyError(
            f"no signing key: {settings.data_dir / signing.FILE} is missing and none is named, but the"
            " database holds records signed with the casino's key; a new key would leave every table"
            " suspended and every account frozen. Put the casino's signing.key back in $TAPETE_HOME,"
            " or name it with --signing-key or TAPETE_SIGNING_KEY"
        )
    signer = signing.load_signer(settings.data_dir, settings.signing_key, say=say)
    migrate(settings.database_url, signer)
    if not settings.shoe_key:
        settings.shoe_key = load_shoe_key(settings)
    casino = Casino(settings, say)
    say(f"signing key: Ed25519, public key fingerprint SHA256:{casino.signer.verifier.fingerprint}")
    asyncio.run(_bootstrap_then_dispose(casino, say))
    return Casino(settings)


async def _bootstrap_then_dispose(casino: Casino, say: Callable[[str], None]) -> None:
    try:
        await bootstrap(casino, say)
    finally:
        await casino.dispose()


async def health(casino: Casino) -> dict[str, Any]:
    """``{"ok": true, "version"}`` once the database answers."""
    async with casino.store.transaction(write=False) as tx:
        await tx.value(shared.PING)
    return {"ok": True, "version": VERSION}
