"""Two server processes on one PostgreSQL database, as two `Casino` objects in one event loop, with a
commit of one forced to fall in the middle of the other's multi-statement read (the faults the soak run
found): neither may see the table at two moments at once."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tapete.errors import TapeteError
from tapete.server.app import Casino
from tapete.server.inspection import integrity
from tapete.server.people.accounts import Caller
from tapete.server.play import chain, tables
from tapete.server.play import repository as repo
from tapete.server.play.tables import TableRow, TableRuntime
from tapete.server.sql import Tx, q
from tests.server.conftest import Api, fresh_database, settings_for
from tests.server.support import serving


@pytest.fixture
def casino_db(tmp_path: Path, migrated: dict[str, str]) -> Iterator[tuple[str, int, dict[str, str]]]:
    """A PostgreSQL casino with a virtual Black Jack table, p1 on box 1 with a bet, p2 on box 2."""
    with fresh_database("postgres", tmp_path, migrated) as url:
        with serving(url, tmp_path / "setup") as api:
            api.user("dora", "dealer")
            api.user("p1", "player", chips=100_000)
            api.user("p2", "player", chips=100_000)
            table = api.table("blackjack", turn_seconds=None)
            api.ok("p1", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
            api.ok("p2", "POST", f"/api/tables/{table}/seats", json={"seat": 2})
            bet = {"seat": 1, "spot": "main", "amount": 1000}
            api.ok("p1", "POST", f"/api/tables/{table}/bets", json=bet)
            tokens = dict(api.tokens)
        yield url, table, tokens


def test_a_process_started_beside_a_playing_one_does_not_suspend_its_tables(
    casino_db: tuple[str, int, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """B's start-up reads each table's row, then its last records; A deals (appending records) right
    between the two. B must not take A's new records for a broken chain."""
    url, table, _ = casino_db

    async def scenario() -> str:
        a = Casino(settings_for(url, tmp_path / "a"))
        b = Casino(settings_for(url, tmp_path / "b"))
        await a.start()
        real = chain.load
        raced: list[asyncio.Task[Any]] = []

        async def dealt(tx: Tx, t: TableRow, rt: TableRuntime) -> Any:
            return await tables.deal(tx, t, rt, "dora", a.key)

        async def records_with_a_deal_between(tx: Tx, table_id: int, **kw: Any) -> Any:
            if not raced:  # A commits a deal now, while B checks the table (if it can: B may hold it)
                raced.append(asyncio.create_task(a.mutate(table_id, dealt)))
                await asyncio.sleep(0.5)
            return await real(tx, table_id, **kw)

        monkeypatch.setattr(chain, "load", records_with_a_deal_between)
        try:
            await b.start()
        finally:
            monkeypatch.setattr(chain, "load", real)
        await asyncio.gather(*raced)
        async with b.store.transaction(write=False) as tx:
            found = await tx.one(repo.TABLE, {"id": table})
            status = tables.row_of(found).status if found else None
        await a.stop()
        await b.stop()
        assert status is not None
        return status

    assert asyncio.run(scenario()) == "open"


def _deals_while_b_starts(
    url: str, tmp_path: Path, table: int, monkeypatch: pytest.MonkeyPatch, at: str, when: Callable[..., bool]
) -> bool:
    """A is up; B starts on the same database and is held right after `integrity.<at>` returns, the first
    time `when(*its arguments)` holds, until A's deal at `table` is done or 10 s have passed. Whether the
    deal committed meanwhile (it is in the database either way once B goes on)."""

    async def scenario() -> tuple[bool, bool]:
        a = Casino(settings_for(url, tmp_path / "a"))
        b = Casino(settings_for(url, tmp_path / "b"))
        await a.start()
        real = getattr(integrity, at)
        held, release = asyncio.Event(), asyncio.Event()

        async def holding(*args: Any) -> Any:
            found = await real(*args)
            if not held.is_set() and when(*args):  # B holds here what it holds, and waits
                held.set()
                await release.wait()
            return found

        async def dealt(tx: Tx, t: TableRow, rt: TableRuntime) -> Any:
            return await tables.deal(tx, t, rt, "admin", a.key)

        monkeypatch.setattr(integrity, at, holding)
        starting = asyncio.create_task(b.start())
        try:
            await asyncio.wait_for(held.wait(), 30)
            deal = asyncio.create_task(a.mutate(table, dealt))
            done, _ = await asyncio.wait({deal}, timeout=10)
            dealt_meanwhile = deal in done
        finally:
            release.set()
            await starting
            monkeypatch.setattr(integrity, at, real)
        await deal
        async with b.store.transaction(write=False) as tx:
            found = await tx.one(repo.TABLE, {"id": table})
            in_round = tables.row_of(found).in_round if found else False
        await a.stop()
        await b.stop()
        return dealt_meanwhile, in_round

    dealt_meanwhile, in_round = asyncio.run(scenario())
    assert in_round  # the deal is in the database
    return dealt_meanwhile


def _one_bet(api: Api, count: int = 1) -> list[int]:
    """`count` virtual Black Jack tables; p1 on box 1 of the first, with a bet."""
    api.user("p1", "player", chips=100_000)
    ids = [api.table("blackjack", turn_seconds=None) for _ in range(count)]
    api.ok("p1", "POST", f"/api/tables/{ids[0]}/seats", json={"seat": 1})
    api.ok("p1", "POST", f"/api/tables/{ids[0]}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
    return ids


def test_a_process_starting_holds_each_table_only_while_it_checks_that_table(
    tmp_path: Path, migrated: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """B's start-up checks table 1, then table 2. While it is still checking table 2, A deals at table 1:
    the deal commits at once (B's check of table 1 is over and released), where a start-up that held
    every table for its whole check made A's players wait until B was up."""
    with fresh_database("postgres", tmp_path, migrated) as url:
        with serving(url, tmp_path / "setup") as api:
            first, second = _one_bet(api, 2)
        at_second = _deals_while_b_starts(
            url, tmp_path, first, monkeypatch, "check_table", lambda tx, table, *_: table.id == second
        )
        assert at_second, "A's deal at table 1 waited for B's check of table 2"


def test_a_process_starting_reads_the_ledger_with_no_table_held_but_for_its_newest_entries(
    tmp_path: Path, migrated: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """B's start-up reads the ledger's entries but the newest before it locks every table: while it is
    held there, A deals at a table and the deal commits at once, where a start-up that read the whole
    ledger with every table locked made every table wait until B had read it all."""
    monkeypatch.setattr(integrity, "CHECKPOINT_BEHIND", 1)
    with fresh_database("postgres", tmp_path, migrated) as url:
        with serving(url, tmp_path / "setup") as api:
            (table,) = _one_bet(api)
        reading = _deals_while_b_starts(
            url, tmp_path, table, monkeypatch, "accepted_accounts", lambda tx: True
        )
        assert reading, "A's deal waited for B's read of the ledger"


def test_a_read_never_mixes_two_moments_of_a_table(
    casino_db: tuple[str, int, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """B reads the table's row, then its bets; A commits p2's bet between the two. The state B answers
    shows p2's bet only with the version that has it."""
    url, table, tokens = casino_db

    async def scenario() -> dict[str, Any]:
        a = Casino(settings_for(url, tmp_path / "a"))
        b = Casino(settings_for(url, tmp_path / "b"))
        p2 = await a.sessions.caller(tokens["p2"])
        real = tables.bets_in_order
        raced: list[bool] = []

        async def bet(tx: Tx, t: TableRow, rt: TableRuntime) -> Any:
            return await tables.place_bet(tx, t, rt, p2, 2, "main", 500)

        async def bets_with_a_bet_between(tx: Tx, table_id: int) -> Any:
            if not raced:
                raced.append(True)
                await a.mutate(table, bet)  # committed before B reads the bets
            return await real(tx, table_id)

        monkeypatch.setattr(tables, "bets_in_order", bets_with_a_bet_between)
        try:
            seen = await b.state_for(table, p2)
        finally:
            monkeypatch.setattr(tables, "bets_in_order", real)
        after = await b.state_for(table, p2)
        for casino in (a, b):
            await casino.dispose()
        assert raced, "the bet was not placed in the middle of the read"
        return {"seen": seen, "after": after}

    got = asyncio.run(scenario())
    seen, after = got["seen"], got["after"]
    assert after["seq"] == seen["seq"] + 1
    assert after["seats"][1]["bets"] == [{"player": "p2", "spot": "main", "amount": 500}]
    assert seen["seats"][1]["bets"] == [], "the state of one version showed a bet of the next"


async def _warm_pair(url: str, tmp_path: Path, table: int) -> tuple[Casino, Casino]:
    """Two processes on one database, each holding the table at its latest version (read once)."""
    a = Casino(settings_for(url, tmp_path / "a"))
    b = Casino(settings_for(url, tmp_path / "b"))
    for casino in (a, b):
        await casino.read(table, lambda tx, t, rt: _nothing())
        await casino.state_for(table, _admin())  # its snapshot of the version
    return a, b


async def _nothing() -> None:
    return None


def _admin() -> Caller:
    return Caller(user_id=1, name="admin", role="admin", session_id="-")


def test_a_step_from_a_picture_another_process_outdated_is_taken_again_from_the_database(
    casino_db: tuple[str, int, dict[str, str]], tmp_path: Path
) -> None:
    """A holds the table at its latest version; B deals. A's bet, computed from what A knew (bets still
    open), finds at its transaction's start that the table moved, and is taken again from the database:
    refused, as the round is in play; nothing of it is written."""
    url, table, tokens = casino_db

    async def scenario() -> tuple[str, int]:
        a, b = await _warm_pair(url, tmp_path, table)
        p2 = await a.sessions.caller(tokens["p2"])
        p1 = await b.sessions.caller(tokens["p1"])
        await b.mutate(table, lambda tx, t, rt: tables.deal(tx, t, rt, "dora", b.key))
        while (dealt := b.runtimes[table].round) is None or dealt.pending is None:
            # the round ended at the deal (a Black Jack: the CSPRNG's shoe), and bets are open again:
            # p1 bets and B deals again, until a round is in play (A still knows only the first picture)
            await b.mutate(table, lambda tx, t, rt: tables.place_bet(tx, t, rt, p1, 1, "main", 1000))
            await b.mutate(table, lambda tx, t, rt: tables.deal(tx, t, rt, "dora", b.key))
        try:
            await a.mutate(table, lambda tx, t, rt: tables.place_bet(tx, t, rt, p2, 2, "main", 500))
        except TapeteError as exc:
            refused = exc.code
        else:
            refused = "taken"
        async with a.store.transaction(write=False) as tx:
            bets = len(await tables.bets_in_order(tx, table))
        for casino in (a, b):
            await casino.dispose()
        return refused, bets

    assert asyncio.run(scenario()) == ("conflict", 0)


def test_a_refusal_from_a_picture_another_process_outdated_is_checked_first(
    casino_db: tuple[str, int, dict[str, str]], tmp_path: Path
) -> None:
    """A holds the table with no bet on it; through B, p2 bets. A's deal, which its picture would refuse
    (no bets), finds the table moved and deals p2's bet."""
    url, table, tokens = casino_db

    async def scenario() -> dict[str, Any]:
        a0 = Casino(settings_for(url, tmp_path / "a0"))
        p1 = await a0.sessions.caller(tokens["p1"])
        await a0.mutate(table, lambda tx, t, rt: tables.take_back_bets(tx, t.id, p1.user_id))
        await a0.dispose()
        a, b = await _warm_pair(url, tmp_path, table)
        p2 = await b.sessions.caller(tokens["p2"])
        await b.mutate(table, lambda tx, t, rt: tables.place_bet(tx, t, rt, p2, 2, "main", 500))
        await a.mutate(table, lambda tx, t, rt: tables.deal(tx, t, rt, "dora", a.key))
        state = await a.state_for(table, _admin())
        for casino in (a, b):
            await casino.dispose()
        return state

    state = asyncio.run(scenario())
    # p2's bet was dealt: round 1 is in play, or it ended at the deal (the dealer's Black Jack, one deal in
    # twenty or so: the virtual shoe is shuffled by the CSPRNG)
    assert (state["phase"], state["round"]) == ("playing", 1) or state["last_round"] == 1
    assert [s["holder"] for s in state["view"]["seats"]] == ["p2"]


def test_a_warm_decision_is_one_statement(
    casino_db: tuple[str, int, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that holds the table at its latest version writes a decision that moves no chips and
    ends no round in one statement fenced by the row it started from: no transaction is begun. The
    decision that ends the round (it moves the chips) begins one, finds the table as it knew it, and
    nothing is ever rebuilt from the database."""
    url, table, tokens = casino_db

    async def scenario() -> list[tuple[int, int, int]]:
        a = Casino(settings_for(url, tmp_path / "a"))
        p1 = await a.sessions.caller(tokens["p1"])
        await a.mutate(table, lambda tx, t, rt: tables.deal(tx, t, rt, "dora", a.key))
        while (dealt := a.runtimes[table].round) is None or dealt.pending is None:  # a Black Jack at
            await a.mutate(table, lambda tx, t, rt: tables.place_bet(tx, t, rt, p1, 1, "main", 1000))
            await a.mutate(table, lambda tx, t, rt: tables.deal(tx, t, rt, "dora", a.key))  # the deal
        await a.state_for(table, _admin())
        counts = {"once": 0, "begun": 0, "rebuilt": 0}
        once, begun, piped, build = a.store.once, a.store._begun, a.store._begin_piped, tables.build_runtime

        async def counted_once(*args: Any) -> int:
            counts["once"] += 1
            return await once(*args)

        async def counted_begun(*args: Any) -> Any:
            counts["begun"] += 1
            return await begun(*args)

        async def counted_piped(*args: Any) -> Any:  # PostgreSQL: its BEGIN goes with its first read
            counts["begun"] += 1
            return await piped(*args)

        async def counted_build(*args: Any) -> Any:
            counts["rebuilt"] += 1
            return await build(*args)

        monkeypatch.setattr(a.store, "once", counted_once)
        monkeypatch.setattr(a.store, "_begun", counted_begun)
        monkeypatch.setattr(a.store, "_begin_piped", counted_piped)
        monkeypatch.setattr(tables, "build_runtime", counted_build)
        steps = []
        while (rnd := a.runtimes[table].round) is not None and rnd.pending is not None:
            pending = rnd.pending
            action = {"seat": pending.seat, "action": "decline" if "decline" in pending.legal else "stand"}
            counts.update(once=0, begun=0)
            await a.mutate(table, lambda tx, t, rt, x=action: tables.act(tx, t, rt, p1, x, a.key))
            steps.append((counts["once"], counts["begun"], counts["rebuilt"]))
        await a.dispose()
        return steps

    steps = asyncio.run(scenario())
    assert steps[:-1] == [(1, 0, 0)] * (len(steps) - 1)  # each a statement of its own
    assert steps[-1] == (0, 1, 0)  # the round's end: a transaction, begun on what the step knew


def test_a_round_s_steps_leave_nothing_for_the_cyclic_collector(
    casino_db: tuple[str, int, dict[str, str]], tmp_path: Path
) -> None:
    """Every step's objects are freed as it ends, by reference counting alone: a decision that read
    nothing left its transaction in a cycle with the closure that would have begun it, and with it the
    snapshot of the version before, the rows and the records (under load the collector then ran a
    50 ms collection every second). With the collector off for a round's steps, it finds no garbage."""
    import gc

    url, table, tokens = casino_db

    async def scenario() -> int:
        a = Casino(settings_for(url, tmp_path / "a"))
        p1 = await a.sessions.caller(tokens["p1"])
        await a.mutate(table, lambda tx, t, rt: tables.deal(tx, t, rt, "dora", a.key))
        await a.state_for(table, _admin())
        gc.collect()
        gc.disable()
        try:
            for _ in range(3):
                while (rnd := a.runtimes[table].round) is not None and rnd.pending is not None:
                    pending = rnd.pending
                    action = {
                        "seat": pending.seat,
                        "action": "decline" if "decline" in pending.legal else "stand",
                    }
                    await a.mutate(table, lambda tx, t, rt, x=action: tables.act(tx, t, rt, p1, x, a.key))
                await a.mutate(table, lambda tx, t, rt: tables.place_bet(tx, t, rt, p1, 1, "main", 1000))
                await a.mutate(table, lambda tx, t, rt: tables.deal(tx, t, rt, "dora", a.key))
            gc.set_debug(gc.DEBUG_SAVEALL)
            gc.collect()
            found = [o for o in gc.garbage if type(o).__module__.startswith("tapete")]
            return len(found)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()
            await a.dispose()

    assert asyncio.run(scenario()) == 0


def _checked_round_records(monkeypatch: pytest.MonkeyPatch) -> list[tuple[bool, bool]]:
    """Every round's end also reads its records from the database: (whether the process took the ones
    it kept, whether they are the database's)."""
    original = chain.round_records
    seen: list[tuple[bool, bool]] = []

    async def checked(tx: Tx, table: TableRow, round_id: int, kept: Any = None) -> list[chain.Record]:
        got = await original(tx, table, round_id, kept)
        read = await original(tx, table, round_id, None)
        seen.append((chain._kept_before(tx, table, round_id, kept) is not None, got == read))
        return got

    monkeypatch.setattr(chain, "round_records", checked)
    return seen


def test_a_round_s_end_takes_the_records_the_process_kept_only_when_they_are_the_database_s(
    casino_db: tuple[str, int, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process that began a round keeps its records as it commits them, and its end takes them
    instead of reading them back: they are the database's, record for record. When another process took
    a step of the round in between (and the process caught its runtime up with it), they are not taken:
    the end reads the database's."""
    url, table, tokens = casino_db
    seen = _checked_round_records(monkeypatch)

    async def play_out(casino: Casino, p1: Caller) -> None:
        while (rnd := casino.runtimes[table].round) is not None and rnd.pending is not None:
            pending = rnd.pending
            action = {"seat": pending.seat, "action": "decline" if "decline" in pending.legal else "stand"}
            await casino.mutate(table, lambda tx, t, rt, x=action: tables.act(tx, t, rt, p1, x, casino.key))

    async def scenario() -> tuple[list[tuple[bool, bool]], list[tuple[bool, bool]]]:
        a, b = await _warm_pair(url, tmp_path, table)
        p1 = await a.sessions.caller(tokens["p1"])
        await a.mutate(table, lambda tx, t, rt: tables.deal(tx, t, rt, "dora", a.key))
        while (dealt := a.runtimes[table].round) is None or dealt.pending is None:  # ended at the deal
            seen.clear()
            await a.mutate(table, lambda tx, t, rt: tables.place_bet(tx, t, rt, p1, 1, "main", 1000))
            await a.mutate(table, lambda tx, t, rt: tables.deal(tx, t, rt, "dora", a.key))
        await play_out(a, p1)  # a round A began and ended alone
        alone = list(seen)
        seen.clear()
        for _ in range(30):  # a round A began, B took its first decision, A ends it
            await a.mutate(table, lambda tx, t, rt: tables.place_bet(tx, t, rt, p1, 1, "main", 1000))
            await a.mutate(table, lambda tx, t, rt: tables.deal(tx, t, rt, "dora", a.key))
            while (rnd := a.runtimes[table].round) is not None and rnd.pending is not None:
                if "decline" not in rnd.pending.legal:  # past the offers: the box's play
                    break
                offer = {"seat": rnd.pending.seat, "action": "decline"}
                await a.mutate(table, lambda tx, t, rt, x=offer: tables.act(tx, t, rt, p1, x, a.key))
            if rnd is None or rnd.pending is None or "hit" not in rnd.pending.legal:
                seen.clear()  # it ended (a Black Jack): again
                continue
            hit = {"seat": rnd.pending.seat, "action": "hit"}
            await b.mutate(table, lambda tx, t, rt, x=hit: tables.act(tx, t, rt, p1, x, b.key))
            if (after := b.runtimes[table].round) is None or after.pending is None:
                seen.clear()  # the hit ended it (in B): again
                continue
            # A's next step catches its runtime up with B's record (not warm, not rebuilt): it still
            # holds the records it kept, which end before B's
            a.snapshots.pop(table)
            assert a.runtimes[table].round_records is not None
            await play_out(a, p1)
            break
        for casino in (a, b):
            await casino.dispose()
        return alone, list(seen)

    alone, interleaved = asyncio.run(scenario())
    assert alone == [(True, True)]  # kept, and the database's
    assert interleaved == [(False, True)]  # another process's step between: read from the database


async def _to_the_round_s_end(casino: Casino, table: int, p1: Caller) -> None:
    """Deal and answer every decision but the one that ends the round (one box: its stand); a round that
    ended before it (a Black Jack at the deal, or the dealer's after the offers) is bet and dealt again.
    The process holds the table at its latest version."""
    await casino.mutate(table, lambda tx, t, rt: tables.deal(tx, t, rt, "dora", casino.key))
    while True:
        while (rnd := casino.runtimes[table].round) is not None and rnd.pending is not None:
            if "decline" not in rnd.pending.legal:
                break  # the box's play: standing ends the round
            offer = {"seat": rnd.pending.seat, "action": "decline"}
            await casino.mutate(table, lambda tx, t, rt, x=offer: tables.act(tx, t, rt, p1, x, casino.key))
        if rnd is not None and rnd.pending is not None:
            break
        await casino.mutate(table, lambda tx, t, rt: tables.place_bet(tx, t, rt, p1, 1, "main", 1000))
        await casino.mutate(table, lambda tx, t, rt: tables.deal(tx, t, rt, "dora", casino.key))
    await casino.state_for(table, _admin())


def _stand(casino: Casino, table: int, p1: Caller) -> Any:
    rnd = casino.runtimes[table].round
    assert rnd is not None and rnd.pending is not None
    action = {"seat": rnd.pending.seat, "action": "stand"}
    return casino.mutate(table, lambda tx, t, rt: tables.act(tx, t, rt, p1, action, casino.key))


def test_a_warm_round_s_end_settles_every_chip_with_or_without_the_wallets_ids(
    casino_db: tuple[str, int, dict[str, str]], tmp_path: Path
) -> None:
    """A process that holds the table, the round's records and its bettors' wallet ids ends the round
    with its check of the table's row, the wallets' locks, the records, the entries and the COMMIT sent
    together, none of their answers waited for before the COMMIT's; with the wallet's id forgotten the
    end reads it with the row's check. Either way every chip of the rounds is settled."""
    url, table, tokens = casino_db

    async def scenario() -> tuple[int, int]:
        a = Casino(settings_for(url, tmp_path / "a"))
        p1 = await a.sessions.caller(tokens["p1"])
        for forget in (False, False, True):  # the first round's end teaches A the ids it then uses
            await _to_the_round_s_end(a, table, p1)
            if forget:  # the wallet's id forgotten: the end reads it, with the row's check
                a.store.memo = {k: v for k, v in a.store.memo.items() if not k.startswith("wallet-id:")}
            await _stand(a, table, p1)
            await a.mutate(table, lambda tx, t, rt: tables.place_bet(tx, t, rt, p1, 1, "main", 1000))
        async with a.store.transaction(write=False) as tx:
            total = await tx.value(q("SELECT COALESCE(SUM(amount), 0) AS total FROM ledger_entries"))
            rounds = await tx.value(q("SELECT COUNT(*) AS finished FROM rounds WHERE status = 'finished'"))
        await a.dispose()
        return int(total), int(rounds)

    total, rounds = asyncio.run(scenario())
    assert total == 0 and rounds >= 3


def test_a_round_s_end_sent_unread_on_a_table_that_moved_is_taken_again_from_the_database(
    casino_db: tuple[str, int, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A's round's end sends its check of the table's row without waiting for it. When the row moved
    after A last saw it (here another process bumped its version), PostgreSQL refuses the whole
    transaction at the check, nothing of it is written, and the step is taken again from the database:
    the round ends once, on the row as the database holds it."""
    import psycopg

    url, table, tokens = casino_db
    steps: list[bool] = []

    async def scenario() -> tuple[int, tuple[Any, ...], list[tuple[Any, ...]]]:
        a = Casino(settings_for(url, tmp_path / "a"))
        p1 = await a.sessions.caller(tokens["p1"])
        for _ in range(2):  # a first round's end teaches A the wallet's id
            await _to_the_round_s_end(a, table, p1)
            await _stand(a, table, p1)
            await a.mutate(table, lambda tx, t, rt: tables.place_bet(tx, t, rt, p1, 1, "main", 1000))
        await _to_the_round_s_end(a, table, p1)
        version, round_no = a.rows[table].version, a.rows[table].round_no
        with psycopg.connect(url, autocommit=True) as other:
            other.execute("UPDATE tables SET version = version + 1 WHERE id = %s", (table,))
        step = a._step

        async def counted(*args: Any, warm: bool) -> Any:
            steps.append(warm)
            return await step(*args, warm=warm)

        monkeypatch.setattr(a, "_step", counted)
        await _stand(a, table, p1)
        of_round = {"t": table, "r": round_no}
        async with a.store.transaction(write=False) as tx:
            row = await tx.one(
                q(
                    "SELECT t.version, t.in_round, r.status FROM tables t"
                    " JOIN rounds r ON r.table_id = t.id AND r.round_no = :r WHERE t.id = :t"
                ),
                of_round,
            )
            settled = await tx.all(
                q(
                    "SELECT kind, player, amount FROM ledger_entries"
                    " WHERE table_id = :t AND round_no = :r AND kind = 'settle'"
                ),
                of_round,
            )
        await a.dispose()
        assert row is not None
        return version, row, settled

    version, row, settled = asyncio.run(scenario())
    assert steps == [True, False]  # refused by the database's check, then taken from the database
    # the other's bump and this step (not this step written over the bump); the round ended once
    assert row == (version + 2, False, "finished")
    assert settled == [("settle", "p1", -1000)]


def test_a_round_s_end_that_did_not_read_the_table_s_chips_is_refused_when_they_do_not_settle(
    casino_db: tuple[str, int, dict[str, str]], tmp_path: Path
) -> None:
    """A round's end sent unread does not read the table's chips: it settles what its bettors staked and
    the database checks that the table's account is then at zero. Chips on the table that no stake
    explains (put there behind the server's back) fail that check; the step is taken again, reading the
    account — and its entries do not follow from the account's last one (server.md, "a ledger that
    reconciles"): the database refuses them, the table's account is frozen (account_frozen) and the
    step is conflict, err.account.frozen, nothing moved."""
    import psycopg

    url, table, tokens = casino_db

    async def scenario() -> tuple[int, list[tuple[Any, ...]]]:
        a = Casino(settings_for(url, tmp_path / "a"))
        p1 = await a.sessions.caller(tokens["p1"])
        for _ in range(2):
            await _to_the_round_s_end(a, table, p1)
            await _stand(a, table, p1)
            await a.mutate(table, lambda tx, t, rt: tables.place_bet(tx, t, rt, p1, 1, "main", 1000))
        await _to_the_round_s_end(a, table, p1)
        round_no = a.rows[table].round_no
        with psycopg.connect(url, autocommit=True) as other:
            other.execute("UPDATE accounts SET balance = balance + 7 WHERE name = %s", (f"table:{table}",))
        with pytest.raises(TapeteError) as refused:
            await _stand(a, table, p1)
        assert refused.value.key == "err.account.frozen"
        async with a.store.transaction(write=False) as tx:
            left = await tx.value(q("SELECT balance FROM accounts WHERE name = :n"), {"n": f"table:{table}"})
            frozen = await tx.value(q("SELECT frozen FROM accounts WHERE name = :n"), {"n": f"table:{table}"})
            settled = await tx.all(
                q(
                    "SELECT e.kind FROM ledger_entries e"
                    " WHERE e.round_no = :r AND e.table_id = :t AND e.kind = 'settle'"
                ),
                {"r": round_no, "t": table},
            )
        await a.dispose()
        assert frozen and not settled
        return int(left), []

    left, unowned = asyncio.run(scenario())
    assert left > 0 and unowned == []  # the stakes and the 7 stay on the table until it is reopened
