"""Chips that are never lost: a double-entry ledger. Accounts are each player's wallet, the cage (where
cash becomes chips), each table's chips in play and the house; every movement is a transaction of entries
that sum to zero, written in the same database transaction as what caused it. A wallet never goes below
zero (checked here first, for a clean refusal, and by the database)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tapete.server import signing
from tapete.server.cashier import repository as repo
from tapete.server.errors import InsufficientFunds
from tapete.server.models import utcnow
from tapete.server.sql import Many, Slot, Tx


@dataclass
class Account:
    """An account of the ledger as a step uses it: its id, name, kind and balance."""

    id: int
    name: str
    kind: str
    balance: int


@dataclass(frozen=True)
class Move:
    """One entry to write: `amount` (signed) on an account, its kind and the bettor it concerns."""

    account: Account
    amount: int
    kind: str
    player: str | None = None
    spot: str | None = None
    seq: int | None = None


@dataclass(frozen=True)
class Player:
    """A player as the ledger needs him (his id and name), without loading his user row."""

    id: int
    name: str


#: the memo's key of a wallet's id (a wallet is made once and never renamed or removed)
_WALLET_ID = "wallet-id:"


def _numbered(values: dict[int, int]) -> dict[str, int]:
    """``id_i``/``value_i`` parameters of `_balance_update`."""
    out: dict[str, int] = {}
    for i, (account_id, value) in enumerate(values.items()):
        out[f"id_{i}"], out[f"value_{i}"] = account_id, value
    return out


async def _account(
    tx: Tx, name: str, kind: str, user_id: int | None = None, table_id: int | None = None
) -> Account:
    known = tx.recall("account:" + name)
    if known is not None:  # the house, the cage, a table's account: made once, never renamed
        return Account(known[0], name, kind, 0)
    found = await tx.one(repo.ACCOUNT, {"name": name})
    if found is None:
        # two first uses at once (the cage at a new casino's first buy-ins): one inserts, both use it
        await tx.run(repo.NEW_ACCOUNT, {"name": name, "kind": kind, "user_id": user_id, "table_id": table_id})
        found = await tx.one(repo.ACCOUNT, {"name": name})
        assert found is not None
    account = Account(*found)
    if kind != "wallet":
        tx.remember("account:" + name, (account.id,))
    return account


async def wallet(tx: Tx, user_id: int, name: str) -> Account:
    """The player's wallet (created on first use)."""
    return await _account(tx, f"wallet:{name}", "wallet", user_id=user_id)


async def cage(tx: Tx) -> Account:
    """Where chips come from at a buy-in and go back at a cash-out."""
    return await _account(tx, "cage", "cage")


async def house(tx: Tx) -> Account:
    """The house's result: what it won (positive) or paid (negative), commissions included."""
    return await _account(tx, "house", "house")


async def table_account(tx: Tx, table_id: int, *, with_balance: bool = False) -> Account:
    """A table's chips in play: stakes come in when bets close, payouts leave at the round's end. Its
    balance is read only `with_balance` (only the table's own steps move it, under the table's lock)."""
    if with_balance:
        found = await tx.one(repo.ACCOUNT, {"name": f"table:{table_id}"})
        if found is not None:
            return Account(*found)
    return await _account(tx, f"table:{table_id}", "table", table_id=table_id)


#: the wallets the step locked so far, by account name, their balances as they now are (`_held`)
LOCKED: Slot[dict[str, Account]] = Slot("ledger.locked", dict)
#: (balance, available) of the players whose wallets the step locked and read (`lock_funds`)
FUNDS: Slot[dict[str, tuple[int, int]]] = Slot("ledger.funds", dict)
#: the players among those whose wallets are frozen (`funds`)
FROZEN: Slot[set[str]] = Slot("ledger.frozen", set)
#: the accounts the transaction wrote entries on (`post_many`): a refusal of the database that cannot name
#: its account (SQLite's) is one of these
POSTED: Slot[set[int]] = Slot("ledger.posted", set)


def _held(tx: Tx) -> dict[str, Account]:
    """The wallets this transaction locked so far, by name, their balances as they now are (`post_many`
    moves them): a step that locked them (a deal, a decision that costs chips) does not lock and read
    them again to move them."""
    return tx.info.slot(LOCKED)


def _unheld(tx: Tx, players: Iterable[str]) -> list[str]:
    held = _held(tx)
    return sorted({f"wallet:{p}" for p in players} - held.keys())


async def ahead_locked(tx: Tx, players: Iterable[str]) -> None:
    """Send the lock and read of `locked` ahead (`Tx.ahead`), to be taken in one round trip with others."""
    names = _unheld(tx, players)
    if names:
        await tx.ahead(repo.ACCOUNTS_LOCKED, {"names": Many(names)})


async def ahead_table_balance(tx: Tx, table_id: int) -> None:
    """Send the read of `table_account(..., with_balance=True)` ahead (`Tx.ahead`)."""
    await tx.ahead(repo.ACCOUNT, {"name": f"table:{table_id}"})


async def locked(
    tx: Tx, players: Iterable[str], *, table_id: int | None = None, with_house: bool = False
) -> dict[str, Account]:
    """The wallets of `players`, locked for the rest of the transaction in one statement and one order
    (by id), their balances as locked (`post_many(..., locked=True)` need not read them again); and the
    table's account and the house's, by name. Those two are not locked here: every table's round moves
    the house, and its row is written last (`post_many`). Accounts not there yet are made. Wallets this
    transaction locked already are not asked again."""
    held = _held(tx)
    names = _unheld(tx, players)
    if names:
        for row in await tx.all(repo.ACCOUNTS_LOCKED, {"names": Many(names)}):
            held[row.name] = Account(row.id, row.name, row.kind, row.balance)
            tx.remember(_WALLET_ID + row.name, row.id)
    for name in sorted(set(names) - held.keys()):  # first use: made, and locked by the insert
        player = name.removeprefix("wallet:")
        user_id = await tx.value(repo.USER_ID, {"name": player})
        assert user_id is not None, f"no player {player}"
        held[name] = await wallet(tx, user_id, player)
        tx.remember(_WALLET_ID + name, held[name].id)
    found = {f"wallet:{p}": held[f"wallet:{p}"] for p in players}
    if table_id is not None:
        found[f"table:{table_id}"] = await table_account(tx, table_id)
    if with_house:
        found["house"] = await house(tx)
    return found


def remembered_wallets(tx: Tx, players: Iterable[str]) -> dict[str, Account] | None:
    """The wallets of `players` by name, from the ids the process remembers (`locked` remembers them),
    their balances not known (0 here: only `post_many(..., unread=True)` may move them); None when one
    is not remembered."""
    found: dict[str, Account] = {}
    for player in players:
        name = f"wallet:{player}"
        known = tx.recall(_WALLET_ID + name)
        if known is None:
            return None
        found[name] = Account(known, name, "wallet", 0)
    return found


async def lock_unread(tx: Tx, players: Iterable[str]) -> None:
    """Lock the wallets of `players` in the one order every step locks them (by id) without waiting for
    the answer (PostgreSQL's pipeline): a round's end only credits them (`post_many(..., unread=True)`),
    so it needs their locks, not their balances."""
    names = _unheld(tx, players)
    if names:
        await tx.run(repo.ACCOUNTS_LOCKED, {"names": Many(names)})


async def post(
    tx: Tx,
    moves: Sequence[Move],
    *,
    table_id: int | None = None,
    round_no: int | None = None,
    actor: str | None = None,
    locked: bool = False,
    unread: bool = False,
) -> None:
    """Write one transaction of entries (their amounts must sum to zero); each account's balance moves
    with its entry. A wallet that would go below zero is InsufficientFunds and nothing is written."""
    await post_many(
        tx, [moves], table_id=table_id, round_no=round_no, actor=actor, locked=locked, unread=unread
    )


async def post_many(
    tx: Tx,
    transactions: Sequence[Sequence[Move]],
    *,
    table_id: int | None = None,
    round_no: int | None = None,
    actor: str | None = None,
    locked: bool = False,
    unread: bool = False,
) -> None:
    """Write several transactions of entries at once (each sums to zero and has its own id): the
    accounts they move are locked and read in one statement (in id order, as every step locks them) —
    unless they are `locked` already, their balances as read under the lock (`ledger.locked`) — their
    new balances written in one statement, every entry in one more. A wallet that would go below zero
    is InsufficientFunds and nothing is written (the database's check stands behind this one).

    `unread`: the wallets are locked (`lock_unread`) but their balances were not read; they may only be
    credited, moved by their amounts and their entries' balances read from their rows as moved, as a
    table's are (a round's end: no answer to wait for before its COMMIT)."""
    for moves in transactions:
        if sum(m.amount for m in moves) != 0:
            raise ValueError(f"a ledger transaction must sum to zero, not {sum(m.amount for m in moves)}")
    delta: dict[int, int] = {}
    accounts: dict[int, Account] = {}
    for moves in transactions:
        for m in moves:
            if m.amount:
                delta[m.account.id] = delta.get(m.account.id, 0) + m.amount
                accounts[m.account.id] = m.account
    if not delta:
        return
    tx.info.slot(POSTED).update(delta)
    at = utcnow()
    entries: list[dict[str, Any]] = []
    #: how many entries each transaction has (under each entry's signature)
    sizes: dict[str, int] = {}
    for moves in transactions:
        txn = str(uuid.uuid4())
        sizes[txn] = sum(1 for m in moves if m.amount)
        for m in moves:
            if m.amount:
                entries.append(
                    {
                        "txn": txn,
                        "account_id": m.account.id,
                        "amount": m.amount,
                        "kind": m.kind,
                        "table_id": table_id,
                        "round_no": round_no,
                        "player": m.player,
                        "spot": m.spot,
                        "seq": m.seq,
                        "actor": actor,
                        "at": at,
                    }
                )
    wallets = sorted(a for a in delta if accounts[a].kind == "wallet")
    if unread:
        if any(delta[a] < 0 for a in wallets):
            raise ValueError("a wallet whose balance was not read may only be credited")
        wallets = []  # moved by their amounts below, as a table's chips are
    if wallets:  # locked and checked now: a wallet never goes below zero
        if locked:
            have = {a: accounts[a].balance for a in wallets}
        else:
            have = {a: int(b) for a, b in await tx.all(repo.BALANCES_LOCKED, {"ids": Many(wallets)})}
        for account_id in wallets:
            account, balance = accounts[account_id], int(have.get(account_id, 0))
            if balance + delta[account_id] < 0:
                need = -sum(e["amount"] for e in entries if e["account_id"] == account_id and e["amount"] < 0)
                owner = account.name.removeprefix("wallet:")
                raise short_of(owner, balance, need)
        final = {a: int(have.get(a, 0)) + delta[a] for a in wallets}
        await tx.run(repo.set_balances(len(final)), _numbered(final))
        for account_id, balance in final.items():
            accounts[account_id].balance = balance
    tables = sorted(a for a in delta if accounts[a].kind == "table")
    added = sorted(
        a for a in delta if accounts[a].kind == "table" or (unread and accounts[a].kind == "wallet")
    )
    if added:  # a table's chips (only its own steps move them, under the table's lock); wallets unread
        await tx.run(repo.balance_update(len(added), added=True), _numbered({a: delta[a] for a in added}))
    late = sorted(a for a in delta if accounts[a].kind in LATE)
    # the entries' balances: a wallet's from its balance as locked; a table's (and a wallet credited
    # `unread`) read from its row as just moved (no answer to wait for: in PostgreSQL's pipeline, no
    # round trip of its own); the house's (or the cage's) from its row as moved with the COMMIT, in its
    # round trip (its row is locked from there on only): each the row's balance less what the entries
    # after it in this transaction add
    from_row = set(late) | set(added)
    running = {a: accounts[a].balance - delta[a] for a in delta if a not in from_row}
    after = dict.fromkeys(from_row, 0)
    for entry in reversed(entries):
        account_id = entry["account_id"]
        if account_id in after:
            entry["late"], entry["later"], entry["balance_after"] = True, after[account_id], 0
            after[account_id] += entry["amount"]
        else:
            entry["late"], entry["later"] = False, 0
    for entry in entries:
        if entry["account_id"] in running:
            running[entry["account_id"]] += entry["amount"]
            entry["balance_after"] = running[entry["account_id"]]
    # signed now (as many signatures as before): each entry's statement covers its transaction's size and,
    # where this process knows it (a wallet it read), its balance after it (`signing.entry_message`)
    at_text = signing.time_text(at)
    signer = signing.current()
    for entry in entries:
        known = None if entry["late"] else entry["balance_after"]
        message = signing.entry_message(entry, at_text, entries=sizes[entry["txn"]], balance_after=known)
        entry["sig"] = signer.sign(message)
    now = [e for e in entries if e["account_id"] not in late]
    if now:
        if added:
            await tx.run(repo.ENTRIES_LATE, {"rows": tx.rows_param(now)})
        else:
            await tx.insert(repo.ENTRIES, now)
    if late:  # written with the COMMIT, after every other statement of the transaction
        await tx.close_with(
            repo.balance_update(len(late), added=True), _numbered({a: delta[a] for a in late})
        )
        await tx.close_with(
            repo.ENTRIES_LATE, {"rows": tx.rows_param([e for e in entries if e["account_id"] in late])}
        )
    for account_id in tables:  # not read: its balance as moved is the row's
        accounts[account_id].balance += delta[account_id]


#: the accounts every table (the house) or every cashier (the cage) moves: written with the COMMIT
LATE = frozenset({"house", "cage"})


async def lock_wallets(tx: Tx, players: Iterable[str]) -> dict[str, int]:
    """Lock the wallets of `players` for the rest of the transaction, all at once and in one order (by
    account id), and give their balances. A table step that may move several players' chips (a deal, a
    decision, card or timer that ends a round, a void) takes them so before it moves any: two tables
    that seat the same players in other orders then wait for each other instead of deadlocking
    (PostgreSQL; on SQLite there is one writer and FOR UPDATE is not written)."""
    players = set(players)
    if not players:
        return {}
    accounts = await locked(tx, players)
    return {name.removeprefix("wallet:"): a.balance for name, a in accounts.items()}


async def available(tx: Tx, user: Player, *, lock: bool = False) -> tuple[int, int]:
    """(balance, what he may still bet or cash out: the balance less what he has committed), in one
    statement (two with `lock`).

    With `lock`, for a change that spends it: the wallet's row is locked for the rest of the transaction
    (PostgreSQL's SELECT … FOR UPDATE; SQLite has one writer) as the balance and the commitments are
    read, so that bets at two tables, a cash-out and a decision taken at once cannot each spend the same
    free chips (each table's own lock does not order them)."""
    known = tx.info.slot(FUNDS).get(user.name)
    if known is not None:  # locked and read by `lock_funds` in this transaction, kept up to date since
        if user.name in tx.info.slot(FROZEN):
            _refuse_frozen(user.name)
        return known
    name = f"wallet:{user.name}"
    if lock:  # the lock first, alone: on PostgreSQL a statement that waited for a row lock reads the
        # other tables as they were before it waited, so the commitments are read by the next statement
        await tx.run(repo.LOCK_ONE, {"name": name})
    row = await tx.one(repo.AVAILABLE, {"name": name, "user": user.id})
    if row is None:  # no wallet yet: nothing in it
        return 0, 0
    if lock and row.frozen is not None:  # frozen: no chips of his move (nor a bet: it would stop the deal)
        _refuse_frozen(user.name)
    balance = int(row.balance or 0)
    return balance, balance - int(row.on_bets or 0) - int(row.on_requests or 0)


async def funds(tx: Tx, names: Iterable[str]) -> dict[str, tuple[int, int]]:
    """(balance, available) of each named player in one statement, as `available` says it."""
    wanted = _funds_params(names)
    if wanted is None:
        return {}
    rows = await tx.all(repo.FUNDS, wanted)
    frozen = {name for name, *_, why in rows if why is not None}
    if frozen:  # `available` refuses them
        tx.info.slot(FROZEN).update(frozen)
    return {name: (int(balance), int(balance) - int(b) - int(a)) for name, balance, b, a, _ in rows}


def _refuse_frozen(player: str) -> None:
    """A frozen wallet's chips do not move (server.md): conflict, err.account.frozen."""
    from tapete.server.errors import Conflict

    raise Conflict(
        f"the account wallet:{player} is frozen until an administrator reopens it",
        key="err.account.frozen",
        account=f"wallet:{player}",
    )


def _funds_params(names: Iterable[str]) -> dict[str, Any] | None:
    """`repo.FUNDS`'s parameters for these players (None: nobody), one form for the read and its send
    ahead."""
    wanted = sorted(set(names))
    return {"names": Many(wanted)} if wanted else None


async def ahead_funds(tx: Tx, names: Iterable[str]) -> None:
    """Send `funds`'s read ahead (`Tx.ahead`)."""
    wanted = _funds_params(names)
    if wanted is not None:
        await tx.ahead(repo.FUNDS, wanted)


async def ahead_lock_funds(tx: Tx, names: Iterable[str]) -> None:
    """Send `lock_funds`'s two reads ahead (`Tx.ahead`), in their order."""
    wanted = sorted(set(names))
    await ahead_locked(tx, wanted)
    await ahead_funds(tx, wanted)


async def lock_funds(tx: Tx, names: Iterable[str]) -> None:
    """Lock the wallets of `names` (one statement, in id order) and read what each may still bet (one
    more), for the bets a table takes together in one transaction: `available` answers from what this
    reads, which each bet keeps up to date (`spent`), instead of two statements per bet."""
    wanted = sorted(set(names))
    await lock_wallets(tx, wanted)
    tx.info.put(FUNDS, await funds(tx, wanted))


def short_of(player: str, have: int, amount: int) -> InsufficientFunds:
    """The refusal of what a player's chips cannot cover (``err.api.funds``), for a bet, an accepted
    back-bet, a decision that takes chips or a ledger movement: he has `have` (his balance, or what is
    free of his other bets, as the check read it) and it takes `amount`."""
    return InsufficientFunds(
        f"{player} has {have} and this takes {amount}",
        key="err.api.funds",
        player=player,
        balance=have,
        amount=amount,
    )


def spent(tx: Tx, name: str, balance: int, free: int) -> None:
    """What a player may still bet after a bet or a back-bet request of this transaction."""
    known = tx.info.slot(FUNDS)
    if name in known:
        known[name] = (balance, free)


async def cashier(tx: Tx, user: Player, amount: int, *, out: bool, actor: str) -> int:
    """A buy-in (cage → wallet) or a cash-out (wallet → cage, never of chips committed to a bet);
    returns the new balance."""
    account = await wallet(tx, user.id, user.name)
    if out:
        balance, free = await available(tx, user, lock=True)
        if amount > free:
            raise InsufficientFunds(
                f"{user.name} may cash out {free} (balance {balance}, the rest is on bets)",
                key="err.api.cash_out",
                player=user.name,
                balance=balance,
                free=free,
                amount=amount,
            )
    the_cage = await cage(tx)
    sign = -1 if out else 1
    await post(
        tx,
        [
            Move(account, sign * amount, "cash_out" if out else "buy_in", player=user.name),
            Move(the_cage, -sign * amount, "cash_out" if out else "buy_in", player=user.name),
        ],
        actor=actor,
    )
    return account.balance
