"""Tables at the server: opening them, seats, bets and back-bet requests, and every step of a round —
the deal, the holders' decisions, the dealer's cards and procedures at a live table, corrections, voids,
the timers — each one database transaction that writes the round's events, their hash chain and the
ledger entries together.

A table's state is its rows. `TableRuntime` is a process's cache of it (the round rebuilt from its events,
the shoe from its sealed snapshot or the cards since the shuffle), valid only for the table version it was
built at: any process can take any request, rebuilding what it does not have.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, TypedDict, cast

from tapete.cards import NAMES, Card, parse_card
from tapete.dealer import DealerEntered
from tapete.errors import BadBet, BadRequest, ShoeSealBroken, TapeteError
from tapete.games import GAMES, round_class
from tapete.games.base import CARD, Action, Dealt, Decision, Event, Round, RoundType, Viewer
from tapete.games.punto_y_banca import next_shoe_holder
from tapete.i18n import LANGUAGES
from tapete.log import GENESIS, canonical, rebuild
from tapete.procedures import STEPS, ProcedureSequence, cut_event, inspect_event, step_of
from tapete.rules import load_rules
from tapete.rules.common import CommonRules
from tapete.server.cashier import ledger
from tapete.server.errors import Conflict, Forbidden, InsufficientFunds, NotFound, error_body
from tapete.server.inspection.journal import note as note  # the steps' significant events
from tapete.server.inspection.journal import seats_of as seats_of  # a table's holders
from tapete.server.models import utcnow
from tapete.server.people.accounts import Caller
from tapete.server.play import chain, control
from tapete.server.play import repository as repo
from tapete.server.play.chain import AnyRecord, Record
from tapete.server.play.snapshot import Snapshot
from tapete.server.play.table_row import COLUMNS
from tapete.server.play.table_row import TableRow as TableRow  # the type the steps take, named here too
from tapete.server.sql import Json, Q, Slot, Stale, Store, Tx
from tapete.session import make_shoe
from tapete.settlement import round_money
from tapete.shoe import SecureRandom, Shoe, burn_count, open_shoe, seal_shoe
from tapete.table import RawBet, check_entry, check_seat, place_bets

#: the server's own settings beside the scenario keys (server.md)
SERVER_KEYS = ("turn_seconds", "betting_seconds")
#: events the server writes inside a round that the engine does not (left out when the round is rebuilt)
SERVER_EVENTS = frozenset({"correction"})
#: the longest turn or betting time a table may set (a day): a deadline must be a time the clock can
#: reach (a larger one overflowed the deadline's date; NaN passed the old "positive" check)
MAX_SECONDS = 86_400
LIVE_PROCEDURES = STEPS  # server.md: new_pack, inspect, show, turn, mix, shuffle, cut, load, burn, ...
#: what a payout's outcome is called in the ledger


def row_of(values: Sequence[Any]) -> TableRow:
    """A table's row from its columns as read (`repo.TABLE`)."""
    return TableRow(*values)


# ---------------------------------------------------------------------------------------------- runtime
@dataclass
class TableRuntime:
    """A process's picture of one table at one version: the rules, the round in progress (or the last
    one, finished), the shoe or the dealer-entered source, and who holds Punto y Banca's shoe."""

    table_id: int
    version: int
    game: str
    mode: str
    rules: CommonRules
    cls: RoundType
    round: Round | None = None
    last: Round | None = None
    shoe: Shoe | None = None
    live: DealerEntered | None = None
    dealt_since_shuffle: bool = False
    shoe_flushed: int = 0
    #: the table's chain (its next seq and head) and shuffle this picture was made from: a version that
    #: appended no record (a seat, a bet, a status) leaves the picture as it is
    next_seq: int = -1
    head: str = ""
    shuffle_no: int = -1
    #: a live table's procedures posted during the round, not yet logged (the cut card's signal)
    pending_shoe: dict[str, Any] | None = None
    pyb_holder: int | None = None
    pyb_winner: str | None = None
    holders: dict[int, str] = field(default_factory=dict)
    #: a live table's control procedures: what it owes before its next deal (`tapete.procedures`)
    procedures: ProcedureSequence | None = None
    #: the records of the round in progress this process committed, from the round's first (None when
    #: it did not see the round begin): its end takes them instead of reading them back
    #: (`chain.round_records`, `keep_round_records`)
    round_records: chain.Kept | None = None

    def made_at(self, table: TableRow) -> None:
        """This picture is now the table's as its row stands: its version, chain, shuffle and waiting
        procedures (what `catch_up` compares)."""
        self.version, self.next_seq, self.head = table.version, table.next_seq, table.head_hash
        self.shuffle_no, self.pending_shoe = table.shuffle_no, table.pending_shoe_events


def keep_round_records(rt: TableRuntime, start: TableRow, table: TableRow, tx: Tx) -> None:
    """After a step committed (`start` the table's row before it, `table` after): the records of the
    round in progress it appended join those the runtime keeps (`TableRuntime.round_records`); a round
    it began starts them anew; anything else (records of the round this picture did not see appended,
    a gap) forgets them, and the round's end reads them."""
    if not table.in_round:
        rt.round_records = None
        return
    ours = [r for r in chain.appended(tx, table.id) if r.round == str(table.round_no)]
    kept = rt.round_records
    if start.round_no != table.round_no:
        rt.round_records = (table.round_no, ours)
    elif (
        kept is not None
        and kept[0] == table.round_no
        and (not ours or (kept[1] and ours[0].seq == kept[1][-1].seq + 1))
    ):
        kept[1].extend(ours)
    else:
        rt.round_records = None


def parse_settings(game: object, rules: object, mode: object) -> tuple[str, CommonRules, dict[str, Any]]:
    """A table's game, its rules model and its server settings, from an administrator's request:
    invalid_rules for anything the regulation forbids, bad_request for a malformed request."""
    if not isinstance(game, str) or game not in GAMES:
        raise BadRequest(
            f"unknown game {game!r}; games: {', '.join(GAMES)}", key="err.api.game", game=str(game)
        )
    if mode not in ("virtual", "live"):
        raise BadRequest("mode is virtual or live", key="err.api.mode", mode=str(mode))
    if rules is None:
        rules = {}
    if not isinstance(rules, dict):
        raise BadRequest("rules must be an object of settings", key="err.rules.object")
    from tapete.errors import InvalidRules, Msg

    engine_keys = {k: v for k, v in rules.items() if k not in SERVER_KEYS}
    problems: list[Msg] = []  # the engine's and the server's, told at once
    model: CommonRules | None = None
    try:
        model = load_rules(game, engine_keys)
    except InvalidRules as exc:
        if exc.key != "err.rules.problems":
            raise
        problems.extend(p for p in exc.params.get("problems", []) if isinstance(p, Msg))
    if model is not None:
        check_amounts(model.played_settings())  # no payout may leave the database's integers
    server: dict[str, Any] = {"turn_seconds": 30 if mode == "virtual" else None, "betting_seconds": None}
    for key in SERVER_KEYS:
        if key in rules:
            value = rules[key]
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= MAX_SECONDS
            ):
                problems.append(
                    Msg(
                        f"{key} must be a positive number of seconds up to {MAX_SECONDS}, or null",
                        "err.api.seconds",
                        setting=key,
                        max=MAX_SECONDS,
                    )
                )
                continue
            server[key] = value
    if mode == "live" and server["betting_seconds"] is not None:
        problems.append(
            Msg(
                "betting_seconds is for virtual tables: at a live table the dealer deals",
                "err.api.betting_live",
            )
        )
    if len(problems) == 1 and model is not None:
        only = problems[0]
        raise InvalidRules(str(only), key=only.key, **only.params)
    if problems or model is None:
        raise InvalidRules("; ".join(problems), key="err.rules.problems", problems=problems)
    return game, model, server


#: the database's integers (BIGINT): no amount a table's settings can produce may pass this
BIGINT_MAX = 2**63 - 1
#: a round's stakes on one seat's spots (a bet, increments, a bonus, the pot bet) and seats at a table,
#: each bounded generously: the bound below stands for the sum of everything a round can pay
_SPOTS_BOUND, _SEATS_BOUND = 8, 8
_MONEY = re.compile(r"(^|_)(min|max|bet|limit)($|_)")


def check_amounts(settings: dict[str, Any]) -> None:
    """invalid_rules when a table's settings could make an amount beyond the database's 64-bit integers
    (a payout, a round's sum of payouts, a balance moved by it): the largest stake the settings allow
    (every ``*_min``/``*_max``/``*_bet``/``*_limit``) times one more than the largest ratio they name
    (every other whole number, paytables included), for every spot of every seat. A settlement then
    never leaves the database's integers, so it can never raise (server.md)."""
    money, ratio = 1, 1

    def ratios(value: Any) -> None:
        nonlocal ratio
        if isinstance(value, bool):
            return
        if isinstance(value, int):
            ratio = max(ratio, value)
        elif isinstance(value, dict):
            for each in value.values():
                ratios(each)
        elif isinstance(value, list | tuple):
            for each in value:
                ratios(each)

    for key, value in settings.items():
        if isinstance(value, int) and not isinstance(value, bool) and _MONEY.search(key):
            money = max(money, value)
        else:
            ratios(value)
    if money * (ratio + 1) * _SPOTS_BOUND * _SEATS_BOUND > BIGINT_MAX:
        from tapete.errors import InvalidRules

        raise InvalidRules(
            f"these settings could pay beyond the database's integers: a stake of up to {money} paid "
            f"up to {ratio}:1 (at most {BIGINT_MAX} in all)",
            key="err.rules.overflow",
            stake=money,
            ratio=ratio,
            most=BIGINT_MAX,
        )


def viewer_of(caller: Caller) -> Viewer:
    """What a caller may see of a table: a player his own, the dealer the dealt table (no hole card), the
    inspector everything; an administrator sees as the dealer, anyone else as a spectator."""
    if caller.role == "player":
        return Viewer("player", caller.name)
    if caller.role == "inspector":
        return Viewer("inspector")
    if caller.role in ("dealer", "admin"):
        return Viewer("dealer")
    return Viewer("spectator")


def effective_events(rows: Sequence[AnyRecord]) -> list[Event]:
    """A round's events as the engine made them: without the records a correction superseded, nor the
    server's own records (the corrections)."""
    superseded: set[int] = set()
    for row in rows:
        if row.event.get("type") == "correction":
            superseded.update(row.event.get("supersedes", []))
    return [r.event for r in rows if r.seq not in superseded and r.event.get("type") not in SERVER_EVENTS]


def shoe_context(table_id: int, shuffle_no: int) -> str:
    """What a sealed shoe is bound to: its table and shuffle (it opens nowhere else)."""
    return f"tapete:table:{table_id}:shuffle:{shuffle_no}"


def cards_out(rows: Sequence[AnyRecord]) -> list[Card]:
    """The cards that left the shoe in these records, in order: burns and dealt cards (the records a
    correction superseded left out: the card a dealer mistyped never left the shoe)."""
    superseded: set[int] = set()
    for row in rows:
        if row.event.get("type") == "correction":
            superseded.update(row.event.get("supersedes", []))
    out: list[Card] = []
    for row in rows:
        ev = row.event
        if row.seq in superseded:
            continue
        if ev.get("type") == CARD:
            out.append(parse_card(ev["card"]))
        elif ev.get("type") == "procedure" and ev.get("step") == "burn":
            out.extend(parse_card(c) for c in ev.get("cards", []) if c != "??")
    return out


async def build_runtime(tx: Tx, table: TableRow, key: bytes) -> tuple[TableRuntime, list[Event]]:
    """The table's runtime rebuilt from its rows; also the shoe events a recovery owes the log (a sealed
    shoe that does not open is recovered by reshuffling what is still in it, docs/engine.md)."""
    rules = load_rules(table.game, {k: v for k, v in table.rules.items() if k not in SERVER_KEYS})
    cls = round_class(table.game)
    rt = TableRuntime(table.id, table.version, table.game, table.mode, rules, cls)
    rt.made_at(table)
    owed: list[Event] = []
    if table.round_no:
        rows = await chain.load(tx, table.id, round_id=table.round_no)
        events = effective_events(rows)
        try:
            rnd = rebuild(events) if events else None
        except TapeteError as exc:  # records altered behind the server's back (verify names them)
            if table.in_round:
                raise Conflict(
                    f"the records of round {table.round_no} do not rebuild it ({exc.message}): "
                    "the table cannot go on with it",
                    key="err.api.round_records",
                    round=table.round_no,
                ) from None
            rnd = None  # a finished round: nothing of it to show, and the table may play on
        if table.in_round:
            rt.round = rnd
        else:
            rt.last = rnd
        if rnd is not None:
            rt.holders = _holders(events)
        if table.game == "punto_y_banca" and events:
            rt.pyb_holder = events[0].get("shoe_holder", {}).get("seat")
            rt.pyb_winner = next((e["winner"] for e in events if e.get("type") == "outcome"), None)
    if table.mode == "virtual":
        sealed = await tx.one(repo.LAST_SHOE, {"t": table.id})
        if sealed is not None:
            shuffle_no, from_seq, sealed_text = sealed
            since = await chain.load(tx, table.id, start=from_seq)
            out = cards_out(since)
            rt.dealt_since_shuffle = any(r.event.get("type") == CARD for r in since)
            try:
                snapshot = open_shoe(sealed_text, key, shoe_context(table.id, shuffle_no))
                rt.shoe = Shoe.restore(snapshot, SecureRandom(), out, live=True)
            except (ShoeSealBroken, TapeteError):
                rt.shoe = Shoe.recover(
                    rules.decks,
                    SecureRandom(),
                    out,
                    cut_card_depth=getattr(rules, "cut_depth", None),
                    burn=getattr(rules, "burn", 1),
                    live=True,
                    one_handed_cut=table.game == "showdown_poker",
                )
                owed = list(rt.shoe.events)
            rt.shoe_flushed = len(rt.shoe.events)
            if rt.shoe.cut_card_out and not any(r.event.get("type") == "cut_card_out" for r in since):
                rt.shoe.events.append(
                    {"type": "cut_card_out", "dealt": len(out)}
                )  # to log at the round's end
    else:
        rows = await chain.load(tx, table.id)
        start = 0
        cut = False
        for row in rows:
            step = step_of(row.event)
            if step in ("new_pack", "deck_change", "shuffle"):
                start, cut = row.seq + 1, False
            elif step == "cut_card":
                cut = True
        # the dealer's cut-card signal during a round waits in the table's row until the round's end
        pending = (table.pending_shoe_events or {}).get("events", [])
        cut = cut or any(ev.get("type") == "cut_card_out" for ev in pending)
        rt.procedures = procedures_of(rules, cls).replay([*(r.event for r in rows), *pending])
        counted = [r for r in rows if r.seq >= start]
        if getattr(cls, "SHUFFLE_EVERY_ROUND", False):  # Showdown Art.7: the whole deck before every round
            counted = [r for r in counted if table.in_round and r.round == str(table.round_no)]
        rt.live = DealerEntered(rules.decks, cards_out(counted), cut_card_out=cut)
    return rt, owed


def procedures_of(rules: CommonRules, cls: RoundType) -> ProcedureSequence:
    """A new table's control procedures (the engine's sequence for its game and settings)."""
    return ProcedureSequence.for_rules(rules, every_round=bool(getattr(cls, "SHUFFLE_EVERY_ROUND", False)))


async def catch_up(tx: Tx, table: TableRow, rt: TableRuntime) -> bool:
    """Bring a runtime another process moved on to the table's version without rebuilding it, where that
    is plain: nothing was appended (seats, bets, a status), or, at a virtual table in the middle of the
    same round and shoe, decisions were (each taken again on the engine and the cards that follow drawn
    from the same shoe, then every event compared with the record, as a rebuild does). True: it is at the
    table's version. False otherwise, and the runtime may then have moved: the caller rebuilds it. Any
    process takes any request (`--workers` spreads a table's requests over them): rebuilding on every one
    of them was the cost of that."""
    if (
        table.next_seq == rt.next_seq
        and table.head_hash == rt.head
        and table.shuffle_no == rt.shuffle_no
        and table.pending_shoe_events == rt.pending_shoe
    ):
        rt.made_at(table)
        return True
    rnd, shoe = rt.round, rt.shoe
    if (
        table.mode != "virtual"
        or not table.in_round
        or rnd is None
        or shoe is None
        or rnd.round_id != table.round_no
        or table.shuffle_no != rt.shuffle_no
        or table.next_seq <= rt.next_seq
    ):
        return False
    rows = await chain.load(tx, table.id, start=rt.next_seq)
    if not rows or rows[0].seq != rt.next_seq or rows[0].prev != rt.head:
        return False
    logged = [row.event for row in rows]
    if any(row.round != str(table.round_no) for row in rows) or any(
        ev.get("type") == "round_voided" for ev in logged
    ):
        return False
    start = len(rnd.events)
    try:
        for ev in logged:
            step = rt.cls.step_from_event(ev)
            if isinstance(step, Action):
                rnd.apply(step)
                rnd.deal_from(shoe.draw)
    except TapeteError:
        return False
    if canonical(list(rnd.events[start:])) != canonical(logged):
        return False
    if any(ev.get("type") == CARD for ev in logged):
        rt.dealt_since_shuffle = True
    rt.made_at(table)
    return True


def bettors(rnd: Round) -> set[str]:
    """Everyone who staked in the round (holders and back-bettors): the wallets its end moves."""
    return {ev["player"] for ev in rnd.events if ev.get("type") == "stake"}


def _holders(events: Sequence[Event]) -> dict[int, str]:
    """Each box's holder in a round (the first bettor staked on it)."""
    out: dict[int, str] = {}
    for ev in events:
        if ev.get("type") == "stake" and "hand" not in ev:
            out.setdefault(ev["seat"], ev["player"])
        if ev.get("type") == "bets_closed":
            break
    return out


# ------------------------------------------------------------------------------------------ opening
async def open_table(
    tx: Tx, caller_name: str, name: object, game: object, mode: object, rules: object, key: bytes
) -> TableRow:
    """A new table (its settings checked by the engine's rules model); a virtual table loads its first
    shoe (new decks, shuffle, cut, burn: events) and seals it."""
    game_name, model, server = parse_settings(game, rules, mode)  # every setting's refusal first, at once
    if not isinstance(name, str) or not name.strip() or len(name) > 80:
        raise BadRequest("a table needs a name (1 to 80 characters)", key="err.api.table_name")
    settings = dict(model.settings())
    settings.update(server)
    now = utcnow()
    values = {"name": name.strip(), "game": game_name, "mode": str(mode), "rules": settings, **server}
    table_id = await tx.value(
        repo.NEW_TABLE, {**values, "rules": Json(settings), "head": GENESIS, "no": False, "at": now}
    )
    table = TableRow(
        id=int(table_id),
        status="open",
        status_reason=None,
        version=0,
        next_seq=0,
        head_hash=GENESIS,
        round_no=0,
        in_round=False,
        shuffle_no=0,
        deadline_at=None,
        deadline_kind=None,
        deadline_version=None,
        pending_shoe_events=None,
        created_at=now,
        **values,
    )
    before = table.copy()
    await ledger.table_account(tx, table.id)
    if table.mode == "virtual":
        shoe = make_shoe(model, SecureRandom(), live=True)
        await _new_shoe(tx, table, shoe, list(shoe.events), key, caller_name)
    await write_row(tx, table, before)
    await note(tx, "table_opened", actor=caller_name, table_id=table.id, details=describe(table))
    return table


async def _new_shoe(
    tx: Tx, table: TableRow, shoe: Shoe, events: Sequence[Event], key: bytes, by: str | None
) -> None:
    """Log a (re)shuffle's procedures and seal the shoe's new order outside the public log."""
    first = table.next_seq
    await chain.append(tx, table, f"shoe-{table.round_no}", events, by)
    table.shuffle_no += 1
    await tx.run(
        repo.NEW_SHOE,
        {
            "table_id": table.id,
            "shuffle_no": table.shuffle_no,
            "from_seq": first,
            "sealed": seal_shoe(shoe.snapshot(), key, shoe_context(table.id, table.shuffle_no)),
            "at": utcnow(),
        },
    )


async def write_row(tx: Tx, table: TableRow, before: TableRow | None) -> None:
    """Write the columns of the table's row that moved since `before` (every one without it), in one
    UPDATE. (A JSON column is changed by giving it a new value, never in place.)"""
    changed = _changed(table, before)
    if changed:
        await tx.run(repo.update_of(tuple(changed)), {**changed, "id": table.id})


def _changed(table: TableRow, before: TableRow | None) -> dict[str, Any]:
    """The row's columns that moved since `before`, as parameters (JSON columns wrapped)."""
    changed = {
        key: getattr(table, key)
        for key in COLUMNS
        if key != "id" and (before is None or getattr(before, key) != getattr(table, key))
    }
    for key in repo.JSON_COLUMNS:
        if key in changed and changed[key] is not None:
            changed[key] = Json(changed[key])
    return changed


def fence_of(start: TableRow) -> dict[str, Any]:
    """The parameters of `repo.FENCE`: the table's row as the step started from it."""
    return {
        "id": start.id,
        "fence_version": start.version,
        "fence_seq": start.next_seq,
        "fence_head": start.head_hash,
    }


class SnapshotHint(TypedDict, total=False):
    """What a step tells the state snapshot it already knows (`hint_snapshot`, `hint_void`), so that the
    snapshot does not read it again: a key that is absent was not told."""

    bets: tuple[tuple[int, str, str, int], ...]
    requests: list[dict[str, Any]]
    balances: dict[str, tuple[int, int]]
    returned: list[dict[str, Any]]
    void: dict[str, str] | None


# The step's context (`sql.StepContext`): what its parts hand each other within its transaction.
#: what the step tells its state snapshot (`state.snapshot` takes it)
SNAPSHOT_HINT: Slot[SnapshotHint] = Slot("tables.snapshot_hint", SnapshotHint)
#: the snapshot of the version the step starts from (`Casino.mutate` puts it; `state_before`)
STATE_BEFORE: Slot[Snapshot] = Slot("tables.state_before")
#: the step's check of the table's row may go unread with its writes (`unread_check`)
UNREAD_CHECK: Slot[bool] = Slot("tables.unread_check")
#: the inserts whose ids come with the next round trip: (answer, its key, the insert's cursor)
IDS_OWED: Slot[list[tuple[dict[str, Any], str, Any]]] = Slot("tables.ids_owed", list)


def unread_check(tx: Tx) -> bool:
    """Whether this step's check of the table's row may go with its writes, unread (`repo.FENCE_CHECK`): a
    step that has not begun its transaction (it holds the table as it was) on PostgreSQL, marked so by
    what it does (`Stepper.close_round`) before its first statement."""
    return tx.info.get(UNREAD_CHECK) is True


async def commit_fenced(store: Store, start: TableRow, table: TableRow, deferred: Sequence[Any]) -> None:
    """Write a step that read nothing (a holder's decision that moves no chips and ends no round): its
    records and the table's row, fenced by the row it started from, in one statement and one round trip
    on PostgreSQL (BEGIN, the row's lock, the records, the row and COMMIT were five), in one short
    transaction on SQLite. Stale when the fence did not hold: nothing was written."""
    records = [row for into, rows in deferred for row in rows if into is repo.RECORDS]
    assert len(records) == sum(len(rows) for _, rows in deferred), "only a step's records are held back"
    changed = _changed(table, start)
    columns = tuple(changed)
    fence = fence_of(start)
    if not store.postgres:
        async with store.transaction() as tx:
            if await tx.run(repo.update_of(columns, fenced=True), {**changed, **fence}) != 1:
                raise Stale()
            await tx.insert(repo.RECORDS, records)
        return
    params: dict[str, Any] = {**changed, **fence}
    if records:
        params["rows"] = Tx(None, True).rows_param(records)
    done = await store.once(repo.fenced_statement(columns, bool(records)), params)
    if done != max(len(records), 1):
        raise Stale()


def describe(table: TableRow) -> dict[str, Any]:
    """What names a table wherever it is shown (its list, its state, the event of its opening): id,
    name, game, mode and rules."""
    return {"id": table.id, "name": table.name, "game": table.game, "mode": table.mode, "rules": table.rules}


def table_json(table: TableRow, seats: Sequence[tuple[int, str]]) -> dict[str, Any]:
    """A table as the API lists it: game, mode, rules, seats taken."""
    spec = round_class(table.game).bet_spec(
        load_rules(table.game, {k: v for k, v in table.rules.items() if k not in SERVER_KEYS})
    )
    return {
        **describe(table),
        "status": table.status,
        # why it is suspended or closed (``integrity``: its records failed their check)
        "reason": table.status_reason if table.status != "open" else None,
        "seats_total": spec.seats,
        "seats_taken": [{"seat": s, "holder": h} for s, h in seats],
        "phase": "playing" if table.in_round else "betting",
        "round": table.round_no if table.in_round else None,
        "turn_seconds": _seconds(table.turn_seconds),
        "betting_seconds": _seconds(table.betting_seconds),
    }


def _seconds(value: float | None) -> float | int | None:
    """A timer's seconds as they were set: 30, not the 30.0 the database's float column gives back."""
    return int(value) if value is not None and float(value).is_integer() else value


# ------------------------------------------------------------------------------------- seats and bets
def _check_open(table: TableRow) -> None:
    if table.status != "open":
        raise Conflict(
            f"table {table.id} is {table.status}: no play", key="err.api.table_status", status=table.status
        )


def _check_betting(table: TableRow) -> None:
    _check_open(table)
    if table.in_round:
        raise Conflict(
            "a round is in play: bets and seats wait for its end",
            key="err.api.not_betting",
            round=table.round_no,
        )


def _seat_number(rt: TableRuntime, seat: object) -> int:
    spec = rt.cls.bet_spec(rt.rules)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= spec.seats:
        raise BadBet(
            f"unknown seat {seat!r}: seats are 1 to {spec.seats}",
            key="err.bet.seat",
            seat=seat,
            seats=spec.seats,
        )
    return seat


async def take_seat(tx: Tx, table: TableRow, rt: TableRuntime, caller: Caller, seat: object) -> int:
    """The caller takes a free box or zone (between rounds or during one: he plays from the next)."""
    caller.need("player")
    _check_open(table)
    number = _seat_number(rt, seat)
    held = await seats_of(tx, table.id)
    if any(s == number for s, _ in held):
        raise Conflict(f"seat {number} is taken", key="err.api.seat_taken", seat=number)
    joined = {s for s, player, _, _ in await bets_in_order(tx, table.id) if player == caller.name}
    check_seat(caller.name, number, rt.cls.bet_spec(rt.rules), dict(held), joined)  # the engine judges
    await tx.run(repo.TAKE_SEAT, {"t": table.id, "seat": number, "user": caller.user_id, "at": utcnow()})
    return number


async def leave_seat(tx: Tx, table: TableRow, caller: Caller, seat: int) -> None:
    """The holder leaves his box between rounds; his bets on it go too, with the back-bets on it, and the
    requests to join it lapse (its next holder never answers another holder's request)."""
    row = await tx.one(repo.SEAT, {"t": table.id, "seat": seat})
    if row is None:
        raise NotFound(f"seat {seat} is free", key="err.api.seat_free", seat=seat)
    if row.user_id != caller.user_id:
        raise Forbidden(f"seat {seat} is not {caller.name}'s", key="err.api.not_your_seat", seat=seat)
    if table.in_round:
        raise Conflict("a seat is left between rounds", key="err.api.not_betting", round=table.round_no)
    await tx.run(repo.DROP_SEAT_BETS, {"t": table.id, "seat": seat})
    await tx.run(repo.LAPSE_SEAT_WAITING, {"t": table.id, "seat": seat, "at": utcnow()})
    await tx.run(repo.FREE_SEAT, {"id": row.id})


async def _raw_bets(tx: Tx, table_id: int) -> list[RawBet]:
    """The table's bets as the engine takes them (`_engine_order`), from the snapshot of the version the
    change starts at when there is one (`state_before`), else from the database."""
    before = state_before(tx)
    if before is not None:
        return _engine_order(before.bets, before.holders)
    return _engine_order(await bets_in_order(tx, table_id), dict(await seats_of(tx, table_id)))


async def _holders_now(tx: Tx, table_id: int) -> dict[int, str]:
    """The table's boxes and their holders (the seats), from the snapshot the change starts at when
    there is one (`state_before`), else from the database."""
    before = state_before(tx)
    if before is not None:
        return dict(before.holders)
    return dict(await seats_of(tx, table_id))


async def take_back_bets(tx: Tx, table_id: int, user_id: int) -> None:
    """Every bet and waiting back-bet request a player placed at a table for its next round, taken back."""
    await tx.run(repo.DROP_PLAYER_BETS, {"t": table_id, "user": user_id})
    await tx.run(repo.DROP_PLAYER_WAITING, {"t": table_id, "user": user_id, "at": utcnow()})


def _engine_order(bets: Sequence[tuple[Any, ...]], holders: dict[int, str]) -> list[RawBet]:
    """Bets (seat, player, spot, amount) in placing order → the engine's order (`_engine_indexes`)."""
    return [RawBet(*bets[i]) for i in _engine_indexes(bets, holders)]


def _engine_indexes(bets: Sequence[tuple[Any, ...]], holders: dict[int, str]) -> list[int]:
    """The placing indexes of `bets` in the engine's order: every holder's bets in seat and placing order
    first (the first bettor named on a box is its holder), then the back-bets."""
    mine = [holders.get(seat) == player for seat, player, *_ in bets]
    own = sorted((i for i in range(len(bets)) if mine[i]), key=lambda i: (bets[i][0], i))
    backs = [i for i in range(len(bets)) if not mine[i]]
    return own + backs


def state_before(tx: Tx) -> Snapshot | None:
    """The snapshot of the version the table is at as this change starts (`Casino.mutate` hands it over
    when it has one): its holders and bets are the database's, since every change of them moves the
    table's version, and the version was checked under the row lock."""
    return tx.info.get(STATE_BEFORE)


def _check_one(rt: TableRuntime, bets: list[RawBet], at: int, holders: dict[int, str]) -> None:
    """The refusals that concern bet `at` of the table's bets in the engine's order (its seat, spot,
    amount, the table's limits on its bettor's total, what it may not be combined with, a back-bet
    where the regulation does not allow one); the whole list's are for the deal. The engine judges."""
    check_entry(bets, at, rt.cls.bet_spec(rt.rules), holders)


async def place_bet(
    tx: Tx,
    table: TableRow,
    rt: TableRuntime,
    caller: Caller,
    seat: object,
    spot: object,
    amount: object,
) -> dict[str, Any]:
    """A bet for the next round on the caller's box, or a back-bet request on another's box (server.md):
    the bet checked alone now, the whole table when the bets close; the funds now."""
    caller.need("player")
    _check_betting(table)
    number = _seat_number(rt, seat)
    before = state_before(tx)
    if before is not None:
        held = sorted(before.holders.items())
        placed_before = before.bets
    else:
        held = await seats_of(tx, table.id)
        placed_before = await bets_in_order(tx, table.id)
    placed_before = tx.info.slot(SNAPSHOT_HINT).get("bets", placed_before)  # with the bets placed
    # before this one in the same transaction (a table takes the bets that wait for it together)
    holder = dict(held).get(number)
    if holder is None:
        raise Conflict(f"seat {number} is free: take it first", key="err.api.seat_free", seat=number)
    placed = (*placed_before, (number, caller.name, spot, amount))  # the table's bets with this one
    order = _engine_indexes(placed, dict(held))
    bets, at = [RawBet(*placed[i]) for i in order], order.index(len(placed) - 1)
    _check_one(rt, bets, at, dict(held))
    assert isinstance(amount, int) and isinstance(spot, str)
    balance, free = await ledger.available(tx, ledger.Player(caller.user_id, caller.name), lock=True)
    if amount > free:
        raise ledger.short_of(caller.name, free, amount)
    values = {
        "t": table.id,
        "seat": number,
        "user": caller.user_id,
        "spot": spot,
        "amount": amount,
        "at": utcnow(),
    }
    ledger.spent(tx, caller.name, balance, free - amount)
    if holder != caller.name:
        asked: dict[str, Any] = {
            "request": None,  # its id, when its insert answers (`_new_id`)
            "status": "waiting",
            "seat": number,
            "spot": spot,
            "amount": amount,
        }
        await _new_id(tx, repo.NEW_BACK_BET_REQUEST, values, asked, "request")
        return asked
    now = cast(tuple[tuple[int, str, str, int], ...], placed)  # the table's bets, in placing order (checked)
    hint_snapshot(tx, bets=now, balances={caller.name: (balance, free - amount)})
    taken: dict[str, Any] = {"bet": None, "seat": number, "spot": spot, "amount": amount, "status": "placed"}
    await _new_id(tx, repo.NEW_BET, values, taken, "bet")
    return taken


async def _new_id(tx: Tx, stmt: Q, values: dict[str, Any], answer: dict[str, Any], key: str) -> None:
    """Insert a bet (or a request) and put its id in `answer` under `key` (its first member, held for it):
    in PostgreSQL's pipeline the id is taken with the step's next round trip (`settle_ids`), so that the
    bets a table takes together are one round trip, not one each."""
    if tx.sends_ahead:
        tx.info.slot(IDS_OWED).append((answer, key, await tx.send(stmt, values)))
        return
    answer[key] = await tx.value(stmt, values)


async def settle_ids(tx: Tx) -> None:
    """The ids of the bets and requests this step inserted (`_new_id`), from their round trip."""
    owed = tx.info.take(IDS_OWED)
    for answer, key, cursor in owed or ():
        row = await tx.fetched(cursor)
        assert row is not None
        answer[key] = row.id


async def bets_in_order(tx: Tx, table_id: int) -> tuple[tuple[int, str, str, int], ...]:
    """The table's bets for the next round, (seat, player, spot, amount) in placing order, from the
    database (what a state snapshot keeps as its `bets`)."""
    rows = await tx.all(repo.BETS, {"t": table_id})
    return tuple((seat, name, spot, amount) for seat, name, spot, amount in rows)


def bets_by_seat(bets: Iterable[tuple[int, object, object, object]]) -> dict[int, list[dict[str, Any]]]:
    """The table's bets (seat, player, spot, amount) by box, in the order given: what a state shows."""
    by_seat: dict[int, list[dict[str, Any]]] = {}
    for seat, player, spot, amount in bets:
        by_seat.setdefault(seat, []).append({"player": player, "spot": spot, "amount": amount})
    return by_seat


def hint_snapshot(
    tx: Tx,
    *,
    bets: tuple[tuple[int, str, str, int], ...] | None = None,
    requests: list[dict[str, Any]] | None = None,
    balances: dict[str, tuple[int, int]] | None = None,
    returned: list[dict[str, Any]] | None = None,
) -> None:
    """Tell this transaction's state snapshot what the step already knows, so that it need not read it
    again: the table's bets as they now are, and the balances of everyone whose money the step moved
    (a step that gives balances answers for all its money: the others' are kept from the version before)."""
    hint = tx.info.slot(SNAPSHOT_HINT)
    if bets is not None:
        hint["bets"] = bets
    if requests is not None:
        hint["requests"] = requests
    if balances is not None:
        hint["balances"] = {**hint.get("balances", {}), **balances}
    if returned is not None:  # bets the betting timer gave back (`_timed_deal`)
        hint["returned"] = [*hint.get("returned", []), *returned]


def hint_void(tx: Tx, void: dict[str, str] | None) -> None:
    """Tell this transaction's state snapshot the void that now waits for a confirmation (None: none, a
    round just opened), so that it need not read the round's row again."""
    tx.info.slot(SNAPSHOT_HINT)["void"] = void


async def answer_request(
    tx: Tx, table: TableRow, rt: TableRuntime, caller: Caller, rid: int, accept: object
) -> dict[str, Any]:
    """The box's holder accepts (the back-bet is placed) or refuses a request to join his box."""
    if not isinstance(accept, bool):
        raise BadRequest('the answer is {"accept": true | false}', key="err.api.accept")
    request = await tx.one(repo.BACK_BET_REQUEST, {"id": rid})
    if request is None or request.table_id != table.id:
        raise NotFound(f"no request {rid} at this table", key="err.api.request", request=rid)
    holder = await tx.one(repo.SEAT, {"t": table.id, "seat": request.seat})
    if holder is None or holder.user_id != caller.user_id:
        raise Forbidden("only the box's holder answers a request to join it", key="err.api.not_holder")
    if request.status != "waiting":
        raise Conflict(
            f"request {rid} was already {request.status}", key="err.api.request_answered", request=rid
        )
    _check_betting(table)
    if not accept:
        await tx.run(repo.ANSWER, {"id": rid, "status": "refused", "at": utcnow()})
        return {"request": rid, "status": "refused"}
    found = await tx.one(repo.USER, {"id": request.user_id})
    assert found is not None
    requester = ledger.Player(found.id, found.name)
    new = RawBet(request.seat, requester.name, request.spot, request.amount)
    bets = [*await _raw_bets(tx, table.id), new]  # a back-bet comes after every bet before it
    _check_one(rt, bets, len(bets) - 1, dict(await seats_of(tx, table.id)))
    await tx.run(repo.ANSWER, {"id": rid, "status": "accepted", "at": utcnow()})
    await tx.value(
        repo.NEW_BET,
        {
            "t": table.id,
            "seat": request.seat,
            "user": request.user_id,
            "spot": request.spot,
            "amount": request.amount,
            "at": utcnow(),
        },
    )
    balance, free = await ledger.available(tx, requester, lock=True)  # the back-bet now among his bets
    if free < 0:
        raise ledger.short_of(requester.name, balance, request.amount)
    return {"request": rid, "status": "accepted"}


# --------------------------------------------------------------------------------------- the round
@dataclass
class StepResult:
    """What a step wrote: its events (by record), whether the round ended."""

    events: list[Event] = field(default_factory=list)
    finished: bool = False


class Stepper:
    """One transaction's work on one table: append events, move chips, close the round."""

    def __init__(self, tx: Tx, table: TableRow, rt: TableRuntime, by: str, key: bytes) -> None:
        self.tx, self.table, self.rt, self.by, self.key = tx, table, rt, by, key
        self.out = StepResult()

    async def log(self, events: Sequence[Event], *, round_id: int | str | None = None) -> list[Record]:
        """Chain the round's (or the shoe's) events."""
        if not events:
            return []
        rows = await chain.append(
            self.tx, self.table, self.table.round_no if round_id is None else round_id, events, self.by
        )
        self.out.events.extend(events)
        return rows

    async def round_events(self, events: Sequence[Event]) -> None:
        """Log a step's round events, move the chips its stakes took, and close the round if it ended."""
        rows = await self.log(events)
        await self._stakes(rows)
        rnd = self.rt.round
        if rnd is not None and rnd.finished:
            await self.close_round()

    async def _stakes(self, rows: Sequence[Record]) -> None:
        """Every stake event is a wallet → table transaction, written with it (all of a step's at once)."""
        stakes = [row for row in rows if row.event.get("type") == "stake"]
        if not stakes:
            return
        players = {row.event["player"] for row in stakes}
        accounts = await ledger.locked(self.tx, players, table_id=self.table.id)
        table_account = accounts[f"table:{self.table.id}"]
        await ledger.post_many(
            self.tx,
            [
                [
                    ledger.Move(
                        accounts[f"wallet:{ev['player']}"],
                        -ev["amount"],
                        "stake",
                        ev["player"],
                        ev["spot"],
                        row.seq,
                    ),
                    ledger.Move(table_account, ev["amount"], "stake", ev["player"], ev["spot"], row.seq),
                ]
                for row in stakes
                for ev in [row.event]
            ],
            table_id=self.table.id,
            round_no=self.table.round_no,
            actor=self.by,
            locked=True,
        )

    def deal_from_shoe(self) -> list[Event]:
        """The card steps the virtual shoe answers up to the next decision (or the end), not yet logged."""
        rnd, shoe = self.rt.round, self.rt.shoe
        if rnd is None or shoe is None:
            return []
        start = len(rnd.events)
        rnd.deal_from(shoe.draw)
        if len(rnd.events) > start:
            self.rt.dealt_since_shuffle = True
        return list(rnd.events[start:])

    async def close_round(self) -> None:
        """The round's result settles every bettor in this transaction: payouts and returns from the
        table's chips to the wallets, commission and the house's net to the house; then the shoe's
        procedures the round caused; the round's row closed."""
        rnd = self.rt.round
        assert rnd is not None and rnd.finished
        staking = bettors(rnd)
        # a step that holds the table as it was, on PostgreSQL, whose round's records the process kept and
        # whose bettors' wallets it knows: nothing to read before its writes, which go with its check
        # (`repo.FENCE_CHECK`) and its COMMIT in one round trip, the wallets only credited unread
        known = (
            ledger.remembered_wallets(self.tx, staking)
            if self.tx.postgres
            and self.tx.lazy is not None
            and chain.kept_hold(self.tx, self.table, self.table.round_no, self.rt.round_records)
            else None
        )
        unread = known is not None
        if known is not None:
            self.tx.info.put(UNREAD_CHECK, True)
            await ledger.lock_unread(self.tx, staking)
            accounts = {**known, "house": await ledger.house(self.tx)}
            table_account = await ledger.table_account(self.tx, self.table.id)
        else:  # the three reads in one round trip (PostgreSQL's pipeline): with the step's check when its
            # transaction has not begun yet (the round's records read are those committed before it)
            await ledger.ahead_locked(self.tx, staking)
            await ledger.ahead_table_balance(self.tx, self.table.id)
            await chain.ahead_round(self.tx, self.table, self.table.round_no, self.rt.round_records)
            accounts = await ledger.locked(self.tx, staking, with_house=True)
            table_account = await ledger.table_account(self.tx, self.table.id, with_balance=True)
        wallets = {
            name.removeprefix("wallet:"): a for name, a in accounts.items() if name.startswith("wallet:")
        }
        house = accounts["house"]
        rows = await chain.round_records(self.tx, self.table, self.table.round_no, self.rt.round_records)
        moves: list[ledger.Move] = []

        async def wallet_of(name: str) -> Any:
            if name not in wallets:  # locked too: every balance the entries move is read under its lock
                wallets[name] = (await ledger.locked(self.tx, [name]))[f"wallet:{name}"]
            return wallets[name]

        events = effective_events(rows)
        seq_of = {id(r.event): r.seq for r in rows}
        money = round_money(events)  # the round's money, one pure function of its events (engine)
        for credit in money.credits:
            moves.append(
                ledger.Move(
                    await wallet_of(credit.player),
                    credit.amount,
                    credit.kind,
                    credit.player,
                    credit.spot,
                    seq_of.get(id(events[credit.event])),
                )
            )
        staked: dict[str | None, int] = {player: amount for player, amount in money.staked.items()}
        commission = money.commission
        paid: dict[str | None, int] = {}
        for m in moves:
            paid[m.player] = paid.get(m.player, 0) + m.amount
        # 0: every chip on the table was a stake (unread: checked by the database once moved, below)
        unowned = 0 if unread else table_account.balance - sum(staked.values())
        if unowned:
            staked[None] = staked.get(None, 0) + unowned
        for player in sorted(
            staked.keys() | commission.keys() | paid.keys(), key=lambda p: (p is None, p or "")
        ):
            # the house's side of each bettor's round: the commission on it, the rest of its net, and the
            # table's chips he staked settled to zero
            if commission.get(player):
                moves.append(ledger.Move(house, commission[player], "commission", player))
            net = staked.get(player, 0) - paid.get(player, 0) - commission.get(player, 0)
            if net:
                moves.append(ledger.Move(house, net, "house", player))
            if staked.get(player):
                moves.append(ledger.Move(table_account, -staked[player], "settle", player))
        await ledger.post(
            self.tx,
            moves,
            table_id=self.table.id,
            round_no=self.table.round_no,
            actor=self.by,
            locked=True,
            unread=unread,
        )
        if unread:
            await self.tx.run(repo.CHIPS_SETTLED, {"id": table_account.id})
        await self.flush_shoe()  # within the round's records: what the shoe did during it (the cut card)
        await self.tx.run(
            repo.END_ROUND,
            {
                "t": self.table.id,
                "n": self.table.round_no,
                "status": "voided" if rnd.voided else "finished",
                "at": utcnow(),
                "last": self.table.next_seq - 1,
            },
        )
        self.table.in_round = False
        self.table.deadline_at = None
        self.table.deadline_kind = None
        self.rt.last, self.rt.round = rnd, None
        if self.table.game == "punto_y_banca":
            self.rt.pyb_winner = getattr(rnd, "winner", None)
        self.out.finished = True

    async def flush_shoe(self) -> None:
        """Log the shoe's procedures the round caused (the cut card coming out), and a live table's
        procedures posted during it."""
        shoe = self.rt.shoe
        if shoe is not None and len(shoe.events) > self.rt.shoe_flushed:
            await self.log(shoe.events[self.rt.shoe_flushed :], round_id=f"shoe-{self.table.round_no}")
            self.rt.shoe_flushed = len(shoe.events)
        pending = (self.table.pending_shoe_events or {}).get("events", [])
        if pending:
            await self.log(pending, round_id=f"shoe-{self.table.round_no}")
            self.table.pending_shoe_events = None


async def deal(tx: Tx, table: TableRow, rt: TableRuntime, by: str, key: bytes) -> StepResult:
    """Close the bets ("no va más") and start the round: the whole table's bets checked (bad_bet and
    nothing moves), every stake moved from its wallet, the shoe prepared (Art.6, Showdown Art.7) and, at a
    virtual table, the cards dealt up to the first decision."""
    _check_betting(table)
    if table.mode == "live" and rt.procedures is not None:
        rt.procedures.check_deal()  # conflict naming the steps due (Art.4-6, Showdown Art.7)
    raws = await _raw_bets(tx, table.id)
    if not raws:
        raise BadBet("no bets: a round needs at least one box in play", key="err.bet.none")
    boxes = place_bets(raws, rt.cls.bet_spec(rt.rules), await _holders_now(tx, table.id))
    need: dict[str, int] = {}
    for raw in raws:
        assert isinstance(raw.player, str) and isinstance(raw.amount, int)
        need[raw.player] = need.get(raw.player, 0) + raw.amount
    await ledger.ahead_locked(tx, need)  # with the step's check, in its round trip
    balances = await ledger.lock_wallets(tx, need)
    for player, amount in need.items():
        balance = balances.get(player, 0)
        if balance < amount:
            raise ledger.short_of(player, balance, amount)
    if table.mode == "live" and rt.live is not None and getattr(rt.cls, "SHUFFLE_EVERY_ROUND", False):
        # Showdown Art.7 shuffles the whole deck before every round: its cards are counted afresh, whether
        # or not the dealer reported the shuffle (a card of the last round may come again)
        rt.live = DealerEntered(rt.rules.decks, [], cut_card_out=False)
    step = Stepper(tx, table, rt, by, key)
    options: dict[str, Any] = {}
    if table.game == "punto_y_banca":
        zones = [b.seat for b in boxes]
        rt.pyb_holder = next_shoe_holder(
            rt.pyb_holder, rt.pyb_winner, zones, passes=getattr(rt.rules, "shoe_passes", "banca_loses")
        )
        options["shoe_holder"] = rt.pyb_holder
    shoe = rt.shoe
    if shoe is not None:
        reshuffled: list[Event] = []
        if shoe.cut_card_out:
            reshuffled = shoe.prepare_round()
        elif rt.dealt_since_shuffle and getattr(rt.cls, "SHUFFLE_EVERY_ROUND", False):
            reshuffled = shoe.reshuffle()  # Showdown Art.7: shuffle and cut before every round
        if reshuffled:
            await _new_shoe(tx, table, shoe, reshuffled, key, by)
            rt.shoe_flushed = len(shoe.events)
            rt.dealt_since_shuffle = False
    table.round_no += 1
    table.in_round = True
    if rt.procedures is not None:
        rt.procedures.round_dealt()  # Showdown Art.7: the next round is shuffled and cut again
    rnd = rt.cls(rt.rules, boxes, round_id=table.round_no, **options)
    rt.round = rnd
    rt.holders = {b.seat: b.holder for b in boxes}
    await tx.run(repo.NEW_ROUND, {"t": table.id, "n": table.round_no, "at": utcnow(), "seq": table.next_seq})
    opening = list(rnd.events)
    if table.mode == "virtual":  # the shoe deals up to the first decision: logged with the stakes, one write
        opening += step.deal_from_shoe()
    await step.round_events(opening)
    await tx.run(repo.DROP_BETS, {"t": table.id})
    await tx.run(repo.DROP_WAITING, {"t": table.id, "at": utcnow()})
    hint_snapshot(tx, bets=(), requests=[])  # what the state shows of them now, without reading it
    hint_void(tx, None)
    return step.out


def _current(table: TableRow, rt: TableRuntime) -> Round:
    _check_open(table)
    if not table.in_round or rt.round is None:
        raise Conflict("no round is in play", key="err.api.no_round")
    return rt.round


async def act(
    tx: Tx, table: TableRow, rt: TableRuntime, caller: Caller, body: object, key: bytes
) -> StepResult:
    """A holder's decision on his box: verified by the engine, paid for from his wallet (double, split,
    insurance, increment: what `chips_for` says), then, at a virtual table, the cards it calls for."""
    if caller.role != "player":  # whatever the phase: staff never decide for a box
        raise Forbidden("only the box's holder decides for it", key="err.api.not_holder")
    rnd = _current(table, rt)
    action = rt.cls.parse_action(body)
    pending = rnd.pending
    holder = rt.holders.get(action.seat)
    if holder is not None and holder != caller.name:
        raise Forbidden(
            f"seat {action.seat} is {holder}'s box: only its holder decides",
            key="err.api.not_holder",
        )
    if not isinstance(pending, Decision):
        rnd.verify(action)  # raises: the round waits for a card
    cost = rnd.chips_for(action)
    if cost:  # his wallet is spent before the round may settle: every bettor's locked first, in one order
        await ledger.lock_wallets(tx, bettors(rnd))
        player = ledger.Player(caller.user_id, caller.name)
        _, free = await ledger.available(tx, player, lock=True)  # not the chips his other bets wait with
        if free < cost:
            raise ledger.short_of(caller.name, free, cost)
    return await _take(tx, table, rt, caller.name, action, key)


async def _take(tx: Tx, table: TableRow, rt: TableRuntime, by: str, action: Action, key: bytes) -> StepResult:
    rnd = rt.round
    assert rnd is not None
    step = Stepper(tx, table, rt, by, key)
    events = list(rnd.apply(action))
    if table.mode == "virtual" and not rnd.finished:
        events += step.deal_from_shoe()  # logged with the decision: one write for the step
    await step.round_events(events)
    return step.out


async def post_card(
    tx: Tx, table: TableRow, rt: TableRuntime, caller: Caller, body: object, key: bytes
) -> StepResult:
    """The dealer's next card out of the physical shoe (or a shoe reader's): checked against the pack and
    by the round, then taken (bad_cards, or conflict when the round waits for a decision)."""
    caller.need("dealer")  # server.md gives the cards to the dealer alone (the admin may deal, not post)
    if table.mode != "live":
        raise Conflict("a virtual table deals its own cards", key="err.api.virtual_cards")
    rnd = _current(table, rt)
    card = Dealt.from_json(body)
    assert rt.live is not None
    step = Stepper(tx, table, rt, caller.name, key)
    events = rt.live.post(rnd, card.card, exposed=card.exposed)
    await step.round_events(events)
    return step.out


async def procedure(
    tx: Tx, table: TableRow, rt: TableRuntime, caller: Caller, body: object, key: bytes
) -> StepResult:
    """A live table's control procedure (Art.4-7), one step at a time in the regulation's order (the
    engine's `ProcedureSequence` says what may come: conflict naming the expected step otherwise): new
    pack, inspection, show, turn, mix, shuffle, cut (who cut, the cut card's depth), load, burn, deck
    change (its reason; naming a request closes it), or the dealer's signal that the cut card came out.
    Each is an event of the table's chain, attributed to the dealer, that the inspector sees."""
    caller.need("dealer")  # server.md gives the procedures to the dealer alone
    _check_open(table)
    if table.mode != "live":
        raise Conflict("a virtual table's shoe runs its own procedures", key="err.api.virtual_procedures")
    if not isinstance(body, dict) or body.get("type") not in LIVE_PROCEDURES:
        raise BadRequest(
            f"a procedure's type is one of {', '.join(LIVE_PROCEDURES)}",
            key="err.api.procedure",
            types=list(LIVE_PROCEDURES),
        )
    kind = body["type"]
    reason = body.get("reason")
    if reason is not None and (not isinstance(reason, str) or len(reason) > 500):
        raise BadRequest("a reason is a text", key="err.api.reason")
    live, order = rt.live, rt.procedures
    assert live is not None and order is not None
    step = Stepper(tx, table, rt, caller.name, key)
    if kind == "cut_card":
        signal = live.signal_cut_card()
        order.apply("cut_card")
        if table.in_round:  # written after the round's events, with the shoe's
            pending = dict(table.pending_shoe_events or {"events": []})
            pending["events"] = [*pending["events"], signal]
            table.pending_shoe_events = pending
            return step.out
        await step.log([signal], round_id=f"shoe-{table.round_no}")
        return step.out
    if table.in_round:
        raise Conflict("procedures are for between rounds", key="err.api.not_betting", round=table.round_no)
    order.check(kind)  # conflict naming what is expected; nothing changed
    event: Event
    rejected = False
    if kind == "new_pack":
        event = {"type": "new_pack", "decks": rt.rules.decks, "reason": reason or "new decks"}
    elif kind == "deck_change":
        event = await control.deck_change_event(tx, table, caller, body, reason)
    elif kind == "inspect":
        event, rejected = inspect_event(body, rt.rules.decks)
    elif kind == "cut":
        event = cut_event(body, rt.rules, [name for _, name in await seats_of(tx, table.id)])
    elif kind == "burn":
        raw = body.get("cards", [])
        if not isinstance(raw, list):
            raise BadRequest("burn's cards are a list", key="err.api.burn_cards")
        cards = [parse_card(c) for c in raw]
        _check_burn_count(rt.rules, cards)
        live.burn(cards)
        event = {"type": "procedure", "step": "burn", "cards": [NAMES[c] for c in cards]}
    else:  # show, turn, mix, shuffle, load
        event = {"type": "procedure", "step": kind}
        if kind == "shuffle":
            event["generator"] = "physical"
    if kind in ("new_pack", "deck_change", "shuffle"):
        live.shuffled()
    if reason and kind not in ("deck_change", "new_pack", "inspect"):
        event["reason"] = reason
    order.take(kind, rejected=rejected)
    await step.log([event], round_id=f"shoe-{table.round_no}")
    return step.out


def _check_burn_count(rules: object, cards: list[Card]) -> None:
    """A burn that names its cards names as many as the table burns (Art.5g, `shoe.burn_count`): a fixed
    count, or at Punto y Banca the first card and as many more as its value. A burn without its cards (the
    dealer did not read them out) is recorded as the procedure alone."""
    burn = getattr(rules, "burn", None)
    if not cards or burn is None:
        return
    want = burn_count(burn, cards[0])
    if len(cards) != want:
        how = (
            f"the first card {NAMES[cards[0]]} and as many more as its value"
            if burn == "first_card_value"
            else f"{want}"
        )
        raise BadRequest(
            f"this table burns {how}: {want} cards, not {len(cards)}",
            key="err.api.burn_count",
            want=want,
            got=len(cards),
        )


async def correct(
    tx: Tx, table: TableRow, rt: TableRuntime, caller: Caller, body: object, key: bytes
) -> StepResult:
    """The dealer typed the wrong card: he corrects the last one posted, with a reason, as long as no
    decision was taken since (an attributed correction event, never an edit). After a decision, only a
    void of the round (with a second staff member's confirmation) can undo it."""
    caller.need("dealer", "admin")
    if table.mode != "live":
        raise Conflict("corrections are for cards a dealer entered", key="err.api.virtual_cards")
    rnd = _current(table, rt)
    if not isinstance(body, dict) or not isinstance(body.get("reason"), str) or not body["reason"].strip():
        raise BadRequest('a correction is {"card": "Kd", "reason": "…"}', key="err.api.correction")
    new = parse_card(body.get("card"))
    rows = await chain.load(tx, table.id, round_id=table.round_no)
    live_rows = [
        r for r in rows if r.seq not in _superseded(rows) and r.event.get("type") not in SERVER_EVENTS
    ]
    steps = [r for r in live_rows if rt.cls.step_from_event(r.event) is not None]
    if not steps or steps[-1].event.get("type") != CARD:
        raise Conflict(
            "a decision was taken on that card: only a void of the round can undo it",
            key="err.api.correct_late",
        )
    last = steps[-1]
    superseded = [r.seq for r in live_rows if r.seq >= last.seq]
    kept = [r.event for r in live_rows if r.seq < last.seq]
    rebuilt = rebuild(kept)
    assert rt.live is not None
    was = parse_card(last.event["card"])
    rt.live.seen[was] -= 1
    try:
        step_events = rt.live.post(rebuilt, new, exposed=bool(last.event.get("exposed", False)))
    except TapeteError:
        rt.live.seen[was] += 1
        raise
    step = Stepper(tx, table, rt, caller.name, key)
    correction = {
        "type": "correction",
        "supersedes": superseded,
        "was": NAMES[was],
        "now": NAMES[new],
        "reason": body["reason"].strip(),
        "by": caller.name,
    }
    await step.log([correction])
    rt.round = rebuilt
    await step.round_events(step_events)
    await note(
        tx,
        "correction",
        actor=caller.name,
        table_id=table.id,
        details={**correction, "round": table.round_no},
    )
    del rnd
    return step.out


def _superseded(rows: Sequence[AnyRecord]) -> set[int]:
    out: set[int] = set()
    for row in rows:
        if row.event.get("type") == "correction":
            out.update(row.event.get("supersedes", []))
    return out


async def request_void(
    tx: Tx, table: TableRow, rt: TableRuntime, caller: Caller, body: object
) -> dict[str, Any]:
    """A staff member asks to void the round in play (every stake returned); a second one confirms."""
    caller.need("dealer", "admin")
    _current(table, rt)
    if not isinstance(body, dict) or not isinstance(body.get("reason"), str) or not body["reason"].strip():
        raise BadRequest('a void is {"reason": "…"}', key="err.api.void_reason")
    row = await tx.one(repo.ROUND_VOID, {"t": table.id, "n": table.round_no})
    assert row is not None
    asked_by = row.void_requested_by
    if asked_by is not None:  # the second staff member confirms it; nobody replaces it
        raise Conflict(
            f"a void of this round already waits for a second staff member: {asked_by} asked it",
            key="err.api.void_waiting",
            requested_by=asked_by,
        )
    reason = body["reason"].strip()
    await tx.run(repo.ASK_VOID, {"t": table.id, "n": table.round_no, "by": caller.name, "reason": reason})
    hint_void(tx, {"requested_by": caller.name, "reason": reason})
    await note(
        tx,
        "void_requested",
        actor=caller.name,
        table_id=table.id,
        details={"round": table.round_no, "reason": reason},
    )
    return {"round": table.round_no, "void_requested_by": caller.name, "reason": reason, "status": "waiting"}


async def confirm_void(tx: Tx, table: TableRow, rt: TableRuntime, caller: Caller, key: bytes) -> StepResult:
    """A second staff member (not the one who asked) confirms the void: round_voided, every stake back."""
    caller.need("dealer", "admin")
    rnd = _current(table, rt)
    row = await tx.one(repo.ROUND_VOID, {"t": table.id, "n": table.round_no})
    assert row is not None
    asked_by, reason = row
    if asked_by is None or reason is None:
        raise Conflict("nobody asked to void this round", key="err.api.no_void")
    if asked_by == caller.name:
        raise Forbidden("a void is confirmed by a second staff member", key="err.api.void_second")
    step = Stepper(tx, table, rt, caller.name, key)
    await step.round_events(rnd.void(reason))
    await note(
        tx,
        "round_voided",
        actor=caller.name,
        table_id=table.id,
        details={"round": table.round_no, "reason": reason, "requested_by": asked_by},
    )
    return step.out


class NoChange(Exception):
    """A table operation that found nothing to do (a timer another process already answered): the
    transaction is dropped, the table's version does not move, nothing is pushed."""


async def timer_step(tx: Tx, table: TableRow, rt: TableRuntime, key: bytes) -> StepResult:
    """A deadline came due: the turn timer answers the pending decision with the engine's default; the
    betting timer deals. NoChange when it is not due, or the table moved on since it was set (its fence:
    the chain's next seq when it was set; another process answered first), or the table is not open (no
    play at a suspended or closed table, not even the timer's)."""
    if table.deadline_at is None or table.deadline_at > utcnow() or table.deadline_version != table.next_seq:
        raise NoChange()
    if table.status != "open":
        raise NoChange()
    kind = table.deadline_kind
    table.deadline_at = None
    table.deadline_kind = None
    if kind == "turn" and table.in_round and rt.round is not None and isinstance(rt.round.pending, Decision):
        return await _take(tx, table, rt, "timer", rt.round.default_action(), key)
    if kind == "betting" and not table.in_round:
        return await _timed_deal(tx, table, rt, key)
    return StepResult()


async def _timed_deal(tx: Tx, table: TableRow, rt: TableRuntime, key: bytes) -> StepResult:
    """The betting timer's deal at a virtual table. A bettor whose bets on a box cannot be dealt as the
    bets close (a Showdown bet without its pot bet, a side bet without its main bet, a back-bet off its
    holder's side or on a box no longer full) has them returned, each return a significant event, and
    the rest are dealt; with no bet left there is no round. (No dealer stands at a virtual table: a
    refused timed deal left the table waiting for good.)"""
    while True:
        try:
            return await deal(tx, table, rt, "timer", key)
        except (BadBet, InsufficientFunds) as exc:
            raws = await _raw_bets(tx, table.id)
            if isinstance(exc, BadBet):
                if exc.at is None or not raws:
                    return StepResult()  # no bets at all: nothing to deal, no timer runs
                seat, player = raws[exc.at].seat, raws[exc.at].player
            else:
                seat, player = None, exc.params["player"]
            returned = [b for b in raws if b.player == player and seat in (None, b.seat)]
            user_id = int(await tx.value(repo.USER_ID, {"name": player}))
            if seat is None:
                await tx.run(repo.DROP_PLAYER_BETS, {"t": table.id, "user": user_id})
            else:
                await tx.run(repo.DROP_PLAYER_SEAT_BETS, {"t": table.id, "user": user_id, "seat": seat})
            tx.info.take(STATE_BEFORE)  # the bets moved: `_raw_bets` reads them anew
            balance, free = await ledger.available(tx, ledger.Player(user_id, str(player)))
            details = {
                "player": player,
                "bets": [{"seat": b.seat, "spot": b.spot, "amount": b.amount} for b in returned],
                "code": exc.code,
                "key": exc.key,
                "reason": str(exc),
            }
            await note(tx, "bets_returned", actor="timer", table_id=table.id, details=details)
            said = {lang: error_body(exc, lang)["error"]["message"] for lang in LANGUAGES}
            hint_snapshot(  # his chips free again; the state says what was returned, this once
                tx, balances={str(player): (balance, free)}, returned=[{**details, "reason": said}]
            )
            if len(returned) == len(raws):
                hint_snapshot(tx, bets=())
                return StepResult()


async def set_deadline(tx: Tx, table: TableRow, rt: TableRuntime) -> None:
    """The timer the table now runs: the turn timer on a holder's decision, at a virtual table the
    betting timer from the first bet of the round. Fenced by the chain's next seq when it was set: a
    change that writes no event (a seat, a bet) keeps a running timer as it is."""
    if table.status != "open":  # no timer at a suspended or closed table; reopening gives a whole turn
        table.deadline_at = table.deadline_kind = table.deadline_version = None
        return
    if table.deadline_at is not None and table.deadline_version == table.next_seq:
        still = (table.deadline_kind == "turn" and table.in_round) or (
            table.deadline_kind == "betting" and not table.in_round
        )
        if still:
            return
    now = utcnow()
    table.deadline_at = table.deadline_kind = table.deadline_version = None
    if table.in_round:
        rnd = rt.round
        if rnd is not None and isinstance(rnd.pending, Decision) and table.turn_seconds:
            table.deadline_at = now + timedelta(seconds=table.turn_seconds)
            table.deadline_kind = "turn"
    elif table.mode == "virtual" and table.betting_seconds:
        first = await tx.value(repo.FIRST_BET_AT, {"t": table.id})
        if first is not None:
            table.deadline_at = first + timedelta(seconds=table.betting_seconds)
            table.deadline_kind = "betting"
    if table.deadline_at is not None:
        table.deadline_version = table.next_seq


def pending_json(table: TableRow, rt: TableRuntime, viewer: Viewer) -> dict[str, Any] | None:
    """server.md's ``state.pending``: the card a live table waits for, the decision with its legal
    answers and deadline, or null between rounds (a virtual table's cards are dealt at once)."""
    if not table.in_round:
        return None
    deadline = None
    if table.deadline_kind == "turn" and table.deadline_at is not None:
        deadline = table.deadline_at.isoformat().replace("+00:00", "Z")
    return pending_of(rt, viewer, deadline)


def pending_of(rt: TableRuntime, viewer: Viewer, deadline: str | None) -> dict[str, Any] | None:
    """The round's pending step as `viewer` may see it (a replaced Showdown card only to its holder and
    the inspector), with the turn's `deadline` on a decision."""
    rnd = rt.round
    if rnd is None or rnd.pending is None:
        return None
    p = rnd.pending
    if isinstance(p, Decision):
        out = p.to_json()
        if deadline is not None:
            out["deadline"] = deadline
        out["holder"] = rt.holders.get(p.seat)
        return out
    out = p.to_json()
    if out.get("replaces") is not None and not (
        viewer.inspector or (viewer.role == "player" and rt.holders.get(p.seat or 0) == viewer.name)
    ):
        out["replaces"] = "??"
    return out
