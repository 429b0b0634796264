"""The state a push is made of (the snapshot a change took in its own transaction, which keeps parts the
change did not write and takes what the step told it) is the state a fresh read of the database gives,
for every viewer, after every kind of change: seats, bets (which hint the snapshot their bets and the
bettor's balance), a back-bet request, the deal, decisions, a round's end."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tapete.server.app import Casino
from tapete.server.people.accounts import Caller
from tapete.server.play import tables
from tapete.server.play.tables import TableRow, TableRuntime
from tapete.server.sql import Tx
from tests.server.conftest import fresh_database, settings_for
from tests.server.support import serving

Step = Callable[[Tx, TableRow, TableRuntime], Awaitable[Any]]


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_every_pushed_state_is_what_a_fresh_read_gives(
    kind: str, tmp_path: Path, migrated: dict[str, str]
) -> None:
    with fresh_database(kind, tmp_path, migrated) as url:
        with serving(url, tmp_path / "setup") as api:
            api.user("dora", "dealer")
            api.user("insp", "inspector")
            for k in range(1, 9):
                api.user(f"p{k}", "player", chips=100_000)
            table = api.table("blackjack", turn_seconds=None)
            tokens = dict(api.tokens)
        asyncio.run(_compare(url, tmp_path, table, tokens))


async def _compare(url: str, tmp_path: Path, table: int, tokens: dict[str, str]) -> None:
    a = Casino(settings_for(url, tmp_path / "a"))
    fresh = Casino(settings_for(url, tmp_path / "fresh"))
    who = {name: await a.sessions.caller(token) for name, token in tokens.items()}
    viewers = [who[n] for n in ("p1", "p2", "p8", "dora", "insp")]
    # each viewer's connection: the step that commits a version writes its push for him (`prerender`)
    boxes = {viewer.name: a.broker.subscribe(table, viewer) for viewer in viewers}
    prerendered: dict[str, int] = {}
    steps = [0]

    async def step(fn: Step) -> None:
        await a.mutate(table, fn)
        steps[0] += 1
        version = a.snapshots[table].version
        for viewer in viewers:
            seq, message = await a.push_for(table, viewer, version)
            boxed, written = await boxes[viewer.name].get()
            pushed = json.loads(message)  # the push's own JSON, written from its parts
            fresh.snapshots.clear()
            fresh.runtimes.clear()
            read = await fresh.state_for(table, viewer)
            assert seq == version == pushed["seq"] == boxed and pushed["type"] == "state", (
                viewer.name,
                version,
            )
            assert pushed["state"] == read, (viewer.name, version)
            assert list(pushed["state"]) == list(read), "the same members in the same order"
            if written is not None:  # the push the step wrote is the very same JSON
                assert written == message, (viewer.name, version)
                prerendered[viewer.name] = prerendered.get(viewer.name, 0) + 1

    def seat(name: str, number: int) -> Step:
        return lambda tx, t, rt: tables.take_seat(tx, t, rt, who[name], number)

    def bet(name: str, number: int, amount: int) -> Step:
        return lambda tx, t, rt: tables.place_bet(tx, t, rt, who[name], number, "main", amount)

    for k in range(1, 8):  # every box taken: Black Jack allows back-bets then
        await step(seat(f"p{k}", k))
    await step(bet("p1", 1, 1_000))
    await step(bet("p2", 2, 2_500))
    await step(bet("p8", 1, 500))  # a back-bet request on p1's box: it waits for p1
    await step(lambda tx, t, rt: tables.deal(tx, t, rt, "dora", a.key))
    for _ in range(12):  # the holders stand (declining the offers) until the round ends
        rt = a.runtimes[table]
        pending = rt.round.pending if rt.round is not None else None
        if pending is None or not hasattr(pending, "legal"):
            break
        holder = who[rt.holders[pending.seat]]
        action = {"seat": pending.seat, "action": "stand" if "stand" in pending.legal else "decline"}
        await step(lambda tx, t, rt, h=holder, x=action: tables.act(tx, t, rt, h, x, a.key))
    await step(bet("p1", 1, 1_000))  # the next round's first bet, after the settlement
    assert isinstance(who["p1"], Caller)
    # every staff member got every version written by the step that made it, and every player each one
    # from the moment he was at the table (p2 sat at the second step); p8 never took a box
    total = steps[0]  # 7 seats, 3 bets, the deal, the round's decisions (none after a dealer's Black Jack)
    assert total >= 12 and prerendered["dora"] == prerendered["insp"] == prerendered["p1"] == total
    assert prerendered["p2"] == total - 1
    await a.dispose()
    await fresh.dispose()


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_the_bets_a_change_takes_from_its_snapshot_are_the_databases_in_the_engines_order(
    kind: str, tmp_path: Path, migrated: dict[str, str]
) -> None:
    """A bet and the deal read the table's bets and holders from the snapshot of the version they start
    at: the same bets, in the same order (each holder's in seat and placing order, then the back-bets in
    placing order), as the database gives; a back-bet placed before the holder's own bet included."""
    with fresh_database(kind, tmp_path, migrated) as url:
        with serving(url, tmp_path / "setup") as api:
            for k in range(1, 9):
                api.user(f"p{k}", "player", chips=100_000)
            table = api.table("blackjack", turn_seconds=None)
            tokens = dict(api.tokens)
        asyncio.run(_same_bets(url, tmp_path, table, tokens))


async def _same_bets(url: str, tmp_path: Path, table: int, tokens: dict[str, str]) -> None:
    a = Casino(settings_for(url, tmp_path / "a"))
    who = {name: await a.sessions.caller(token) for name, token in tokens.items()}

    def bet(name: str, number: int, amount: int) -> Step:
        return lambda tx, t, rt: tables.place_bet(tx, t, rt, who[name], number, "main", amount)

    for k in range(1, 8):
        await a.mutate(table, lambda tx, t, rt, k=k: tables.take_seat(tx, t, rt, who[f"p{k}"], k))
    await a.mutate(table, bet("p3", 3, 1_500))
    asked = await a.mutate(table, bet("p8", 1, 500))  # a back-bet request on p1's box
    rid = asked["request"]
    await a.mutate(table, lambda tx, t, rt: tables.answer_request(tx, t, rt, who["p1"], rid, True))
    for name, number, amount in (("p1", 1, 1_000), ("p2", 2, 2_000), ("p7", 7, 700)):
        await a.mutate(table, bet(name, number, amount))
    seen: dict[str, Any] = {}

    async def compare(tx: Tx, t: TableRow, rt: TableRuntime) -> None:
        assert tables.state_before(tx) is not None  # the change starts from this process's snapshot
        seen["snapshot"] = await tables._raw_bets(tx, t.id)
        tx.info.take(tables.STATE_BEFORE)
        seen["database"] = await tables._raw_bets(tx, t.id)
        raise tables.NoChange()

    await a.mutate(table, compare)
    assert seen["snapshot"] == seen["database"]
    assert [(b.seat, b.player) for b in seen["database"]] == [
        (1, "p1"),
        (2, "p2"),
        (3, "p3"),
        (7, "p7"),
        (1, "p8"),
    ]
    await a.dispose()


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_runtime_another_process_moved_catches_up_to_what_a_rebuild_gives(
    kind: str, tmp_path: Path, migrated: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes take a virtual table's steps in turn (what `--workers` does): each brings its
    runtime up to the other's version without rebuilding it (seats and bets append nothing; decisions in
    the middle of a round are taken again on the engine with the same shoe), and every state it then
    shows is what a process that rebuilds from the database shows."""
    with fresh_database(kind, tmp_path, migrated) as url:
        with serving(url, tmp_path / "setup") as api:
            for k in range(1, 8):
                api.user(f"p{k}", "player", chips=100_000)
            api.user("dora", "dealer")
            table = api.table("blackjack", turn_seconds=None)
            tokens = dict(api.tokens)
        rebuilt: list[int] = []
        build = tables.build_runtime

        async def counting(tx: Tx, t: TableRow, key: bytes) -> Any:
            rebuilt.append(t.version)
            return await build(tx, t, key)

        monkeypatch.setattr(tables, "build_runtime", counting)
        asyncio.run(_alternate(url, tmp_path, table, tokens, rebuilt))


async def _alternate(
    url: str, tmp_path: Path, table: int, tokens: dict[str, str], rebuilt: list[int]
) -> None:
    procs = [Casino(settings_for(url, tmp_path / "a")), Casino(settings_for(url, tmp_path / "b"))]
    fresh = Casino(settings_for(url, tmp_path / "fresh"))
    who = {name: await procs[0].sessions.caller(token) for name, token in tokens.items()}
    turn = 0
    caught_up = 0
    decisions_caught_up = 0

    async def step(make: Callable[[TableRuntime], Step | None]) -> bool:
        """The next process reads the table (its runtime brought to the table's version) and takes the
        step `make` gives for what it then sees; False when there is none."""
        nonlocal turn, caught_up, decisions_caught_up
        casino = procs[turn % 2]
        had = casino.runtimes.get(table)
        before = len(rebuilt)
        await casino.read(table, lambda tx, t, rt: _noop())
        fn = make(casino.runtimes[table])
        if fn is None:
            return False
        turn += 1
        await casino.mutate(table, fn)
        if had is not None and len(rebuilt) == before:
            caught_up += 1
            if rt_in_round(casino.runtimes[table]):
                decisions_caught_up += 1
        for viewer in (who["p1"], who["dora"]):
            shown = await casino.state_for(table, viewer)
            fresh.snapshots.clear()
            fresh.runtimes.clear()
            assert shown == await fresh.state_for(table, viewer), (turn, viewer.name)
        return True

    def decision(rt: TableRuntime) -> Step | None:
        pending = rt.round.pending if rt.round is not None else None
        if pending is None or not hasattr(pending, "legal"):
            return None
        holder = who[rt.holders[pending.seat]]
        hit = "hit" in pending.legal and len(rt.round.events) % 3  # type: ignore[union-attr]
        answer = "hit" if hit else ("stand" if "stand" in pending.legal else "decline")
        action = {"seat": pending.seat, "action": answer}
        return lambda tx, t, rt: tables.act(tx, t, rt, holder, action, procs[0].key)

    for k in range(1, 8):
        await step(lambda rt, k=k: lambda tx, t, rt: tables.take_seat(tx, t, rt, who[f"p{k}"], k))
    for _ in range(3):  # three rounds: bets, the deal, every decision, each step on the other process
        for k in range(1, 8):
            await step(
                lambda rt, k=k: lambda tx, t, rt: tables.place_bet(tx, t, rt, who[f"p{k}"], k, "main", 1_000)
            )
        await step(lambda rt: lambda tx, t, rt: tables.deal(tx, t, rt, "dora", procs[0].key))
        while await step(decision):
            pass
    assert caught_up > 30 and decisions_caught_up > 5  # the bets, and the decisions in the middle of a round
    for casino in (*procs, fresh):
        await casino.dispose()


def rt_in_round(rt: TableRuntime) -> bool:
    """Whether the runtime is in the middle of a round (a decision that did not end it)."""
    return rt.round is not None


async def _noop() -> None:
    return None
