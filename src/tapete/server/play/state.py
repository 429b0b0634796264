"""server.md's state of a table for one caller, built from a snapshot taken once per table version.

A change of a table is pushed to every viewer of it (seven players, the dealer, spectators): reading the
table's rows once per viewer made each push cost a dozen queries per connection. A `Snapshot` holds what
every viewer shares at one committed version (the table, its seats and bets, the back-bet requests, the
balances of the players at it, the payouts); each viewer's own part (the engine's view for him, the
pending step as he may see it, his balance) is made from it. It is built inside the transaction that
made the version and kept once that transaction committed, so a push reads no database at all.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pydantic_core

from tapete.games.base import Viewer
from tapete.server.cashier import ledger
from tapete.server.catalogs import words
from tapete.server.people.accounts import Caller
from tapete.server.play import control, tables
from tapete.server.play import repository as repo
from tapete.server.play.snapshot import Snapshot as Snapshot  # built here, named here too
from tapete.server.play.tables import TableRow, TableRuntime, bettors
from tapete.server.sql import Tx


async def balances(tx: Tx, names: Iterable[str]) -> dict[str, tuple[int, int]]:
    """(balance, available) of each named player in one statement: his wallet less what he has committed
    and not yet staked (his bets waiting for a deal at every table, his back-bet requests still waiting);
    as `ledger.available` says it, for many players at once."""
    return await ledger.funds(tx, names)


#: the tables each shared part of a snapshot comes from: a change that wrote none of them keeps that part
HOLDERS = frozenset({"seats", "users"})
BETS = frozenset({"bets", "users"})
REQUESTS = frozenset({"back_bet_requests", "users"})
VOID = frozenset({"rounds"})
DECK_REQUESTS = frozenset({"deck_change_requests", "users"})
#: what a balance (and what is free of it) depends on
MONEY = frozenset({"accounts", "ledger_entries", "bets", "back_bet_requests"})


async def snapshot(
    tx: Tx,
    table: TableRow,
    rt: TableRuntime,
    previous: Snapshot | None = None,
    *,
    money_after: Iterable[str] | None = None,
) -> Snapshot:
    """The shared part of the table's state at its current version. The holders, the bets, the
    requests (a query each) and the balances (one) are those of `previous`, the version before, when
    this transaction wrote none of their tables: a decision that ends no round reads nothing more, a bet
    reads the bets and the balances again. With `money_after` (names to add to the players), balances that
    must be read are sent to be read with the transaction's COMMIT, in its round trip, when the
    transaction began in PostgreSQL's pipeline: `settle_money` takes them once it committed."""
    wrote = tx.wrote
    hint = tx.info.take(tables.SNAPSHOT_HINT) or tables.SnapshotHint()  # tables.hint_snapshot
    last = previous if previous is not None and previous.table_id == table.id else None
    if last is not None and last.version != table.version - 1:
        last = None
    holders = last.holders if last is not None and not wrote & HOLDERS else await _holders(tx, table)
    if "bets" in hint:
        bets = hint["bets"]
    else:
        bets = (
            last.bets if last is not None and not wrote & BETS else await tables.bets_in_order(tx, table.id)
        )
    by_seat = last.by_seat if last is not None and bets is last.bets else tables.bets_by_seat(bets)
    if "requests" in hint:
        requests = hint["requests"]
    else:
        requests = last.requests if last is not None and not wrote & REQUESTS else await _requests(tx, table)
    if "void" in hint:
        void = hint["void"]
    elif not table.in_round:
        void = None
    else:
        void = last.void if last is not None and not wrote & VOID else await _void(tx, table)
    if table.mode != "live":
        deck_requests: list[dict[str, Any]] = []  # a virtual shoe changes no decks
    elif last is not None and not wrote & DECK_REQUESTS:
        deck_requests = last.deck_requests
    else:
        deck_requests = await control.open_requests(tx, table.id)
    due = rt.procedures.procedures_due() if table.mode == "live" and rt.procedures is not None else []
    rnd = rt.round if table.in_round else rt.last
    in_play = bettors(rnd) if rnd is not None else set()
    people: set[str] = set(holders.values()) | {str(r["player"]) for r in requests} | in_play
    people |= {str(b["player"]) for bets in by_seat.values() for b in bets}
    told: dict[str, tuple[int, int]] = hint.get("balances", {})
    owed: frozenset[str] | None = None
    if last is not None and (told or not wrote & MONEY) and people <= set(last.balances) | set(told):
        money = {**last.balances, **told} if told else last.balances
    elif money_after is not None and tx.sends_ahead:
        owed = frozenset(people | set(money_after))
        await ledger.ahead_funds(tx, owed)
        money = {}
    else:
        money = await balances(tx, people)
    spec = rt.cls.bet_spec(rt.rules)
    base: dict[str, Any] = {
        "table": {**tables.describe(table), "status": table.status},
        "phase": "playing" if table.in_round else "betting",
        "round": table.round_no if table.in_round else None,
        "last_round": table.round_no if not table.in_round and table.round_no else None,
        "seats": [
            {"seat": n, "holder": holders.get(n), "bets": by_seat.get(n, [])}
            for n in range(1, spec.seats + 1)
        ],
        "seq": table.version,
        "deadline": table.deadline_at.isoformat().replace("+00:00", "Z") if table.deadline_at else None,
        "deadline_kind": table.deadline_kind,
        "payouts": words.payouts(table.id, table.game, rt.rules, rnd),
        "returned": hint.get("returned", []),
    }
    return Snapshot(
        table_id=table.id,
        version=table.version,
        base=base,
        requests=requests,
        holders=holders,
        by_seat=by_seat,
        bets=bets,
        balances=money,
        in_round=table.in_round,
        void=void,
        owed=owed,
        procedures_due=due,
        deck_requests=deck_requests,
    )


async def settle_money(tx: Tx, snap: Snapshot) -> None:
    """The balances a snapshot sent to be read with its transaction's COMMIT (`money_after`), taken from
    that round trip's answers once it committed (nothing more is asked of the database)."""
    if snap.owed is not None:
        snap.balances = await balances(tx, snap.owed)
        snap.owed = None


async def _holders(tx: Tx, table: TableRow) -> dict[int, str]:
    """Each taken box's holder."""
    return dict(await tables.seats_of(tx, table.id))


async def _void(tx: Tx, table: TableRow) -> dict[str, str] | None:
    """The void asked for the round in play and not yet confirmed (who asked, why), or None."""
    row = await tx.one(repo.ROUND_VOID, {"t": table.id, "n": table.round_no})
    if row is None or row.void_requested_by is None:
        return None
    return {"requested_by": row.void_requested_by, "reason": row.void_reason or ""}


async def _requests(tx: Tx, table: TableRow) -> list[dict[str, Any]]:
    """The back-bet requests waiting for a holder's answer."""
    rows = await tx.all(repo.BACK_BET_REQUESTS, {"t": table.id})
    return [
        {"request": rid, "seat": seat, "player": name, "spot": spot, "amount": amount, "status": status}
        for rid, seat, spot, amount, status, name in rows
    ]


def _no_round(snap: Snapshot, viewer: Viewer) -> dict[str, Any]:
    """The view of a table that has dealt no round yet: the keys every game's view has (server.md shows
    `view` as an object), with no round, no cards and nothing pending."""
    return {
        "game": snap.base["table"]["game"],
        "round": None,
        "viewer": str(viewer),
        "seats": [],
        "finished": False,
        "voided": False,
        "pending": None,
    }


def _made(snap: Snapshot, rt: TableRuntime, viewer: Viewer) -> tuple[str, tuple[Any, Any]]:
    """The engine's view for `viewer` and the pending step as he may see it, made once per version; a
    viewer who sees what another already seen at this version sees (the round's `view_key`) gets that
    view with his own label instead of the engine building it again."""
    key = str(viewer)
    made = snap.views.get(key)
    if made is not None:
        return key, made
    rnd = rt.round if snap.in_round else rt.last
    kind = rnd.view_key(viewer) if rnd is not None else key
    first = snap.kinds.get(kind)
    if first is not None:
        view = dict(first[1][0])
        view["viewer"] = key
        made = snap.views[key] = (view, first[1][1])
        snap.first_of[key] = first[0]
        return key, made
    view = rnd.view(viewer) if rnd is not None else _no_round(snap, viewer)
    deadline = snap.base["deadline"] if snap.base["deadline_kind"] == "turn" else None
    pending = tables.pending_of(rt, viewer, deadline) if snap.in_round else None
    made = snap.views[key] = (view, pending)
    snap.kinds[kind] = (key, made)
    return key, made


def _own(snap: Snapshot, caller: Caller, me: tuple[int, int] | None) -> list[tuple[str, Any]]:
    """The parts of the state that are the caller's own: the requests he may see (his own and those on
    his boxes; staff see all) and, for a player, his balance; for staff, the void that waits."""
    requests = [
        r
        for r in snap.requests
        if caller.role != "player" or r["player"] == caller.name or snap.holders.get(r["seat"]) == caller.name
    ]
    if caller.role == "player":
        balance, free = me if me is not None else (0, 0)
        return [("requests", requests), ("me", {"name": caller.name, "balance": balance, "available": free})]
    return [
        ("requests", requests),
        ("void", snap.void),  # a void waiting for a second staff member
        ("procedures_due", snap.procedures_due),
        ("deck_change_requests", snap.deck_requests),
    ]


def render(snap: Snapshot, rt: TableRuntime, caller: Caller, me: tuple[int, int] | None) -> dict[str, Any]:
    """server.md's state for `caller` from a snapshot whose version the runtime is still at (the caller
    holds the table's lock): the engine's view for him, the pending step as he may see it, the requests
    he may see and, for a player, his balance."""
    _, (view, pending) = _made(snap, rt, tables.viewer_of(caller))
    state = dict(snap.base)
    state["pending"], state["view"] = pending, view
    state.update(_own(snap, caller, me))
    return state


_KEYS: dict[str, bytes] = {}


def _key(name: str) -> bytes:
    found = _KEYS.get(name)
    if found is None:
        found = _KEYS[name] = pydantic_core.to_json(name) + b":"
    return found


class Rendered(bytes):
    """A state already written as JSON (`state_json`): answered as it is, never serialized again."""


_LABEL = b'"viewer":'
_UNSEEN = (b"", b"")  # a view key not yet met at this version (`Snapshot.cuts`)


def state_json(snap: Snapshot, rt: TableRuntime, caller: Caller, me: tuple[int, int] | None) -> bytes:
    """What `render` gives, as JSON, written from parts: what every viewer of the version shares (the
    base) once; the pending step and the view once per view key, cut where the viewer's label goes, so
    that every other viewer of the same key gets it with his own label put in (no view built, copied or
    serialized again); his own parts (requests, balance) each time: a table pushes each version to eight
    viewers and more, and answers the holder with it (docs/performance.md)."""
    viewer = tables.viewer_of(caller)
    key = str(viewer)
    seen = snap.views_json.get(key)
    if seen is None:
        rnd = rt.round if snap.in_round else rt.last
        kind = rnd.view_key(viewer) if rnd is not None else key
        cut = snap.cuts.get(kind, _UNSEEN)
        if cut is not _UNSEEN and cut is not None:
            seen = b"".join((cut[0], _LABEL, pydantic_core.to_json(key), cut[1]))
        else:
            _, (view, pending) = _made(snap, rt, viewer)
            seen = b"".join(
                (
                    b',"pending":',
                    pydantic_core.to_json(pending),
                    b',"view":',
                    pydantic_core.to_json(view),
                    b",",
                )
            )
            if cut is _UNSEEN:  # the first of its key: cut where its label is (once, or no cut at all)
                label = _LABEL + pydantic_core.to_json(key)
                parts = seen.split(label)
                snap.cuts[kind] = (parts[0], parts[1]) if len(parts) == 2 else None
        snap.views_json[key] = seen
    if snap.base_json is None:
        snap.base_json = pydantic_core.to_json(snap.base)[1:-1]  # its members, without the braces
    return b"".join(
        (
            b"{",
            snap.base_json,
            seen,
            b",".join(_key(k) + pydantic_core.to_json(v) for k, v in _own(snap, caller, me)),  # his own
            b"}",
        )
    )


def render_json(snap: Snapshot, rt: TableRuntime, caller: Caller, me: tuple[int, int] | None) -> bytes:
    """A push of `caller`'s state: ``{"type": "state", "seq", "state"}``, as JSON."""
    return b"".join(
        (
            b'{"type":"state","seq":',
            str(snap.version).encode(),
            b',"state":',
            state_json(snap, rt, caller, me),
            b"}",
        )
    )
