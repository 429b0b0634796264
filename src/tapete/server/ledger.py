"""Chips that are never lost: a double-entry ledger. Accounts are each player's wallet, the cage (where
cash becomes chips), each table's chips in play and the house; every movement is a transaction of entries
that sum to zero, written in the same database transaction as what caused it. A wallet never goes below
zero (checked here first, for a clean refusal, and by the database)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tapete.server.errors import InsufficientFunds
from tapete.server.models import utcnow
from tapete.server.sql import Many, Q, Rows, Tx, q


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


_ACCOUNT = q("SELECT id, name, kind, balance FROM accounts WHERE name = :name")
_ACCOUNTS_LOCKED = q("SELECT id, name, kind, balance FROM accounts WHERE name {in_names} ORDER BY id {lock}")
_NEW_ACCOUNT = q(
    "INSERT INTO accounts (name, kind, user_id, table_id, balance)"
    " VALUES (:name, :kind, :user_id, :table_id, 0) ON CONFLICT (name) DO NOTHING"
)
_USER_ID = q("SELECT id FROM users WHERE name = :name")
_BALANCES_LOCKED = q("SELECT id, balance FROM accounts WHERE id {in_ids} ORDER BY id {lock}")
_SET_BALANCES: dict[int, Q] = {}


def _balances_of(count: int) -> Q:
    """One UPDATE of `count` accounts' balances (``id_i`` gets ``balance_i``), made once per count."""
    found = _SET_BALANCES.get(count)
    if found is None:
        cases = " ".join(f"WHEN :id_{i} THEN :balance_{i}" for i in range(count))
        ids = ", ".join(f":id_{i}" for i in range(count))
        found = _SET_BALANCES[count] = q(
            f"UPDATE accounts SET balance = CASE id {cases} END WHERE id IN ({ids})"
        )
    return found


def _numbered_balances(final: dict[int, int]) -> dict[str, int]:
    out: dict[str, int] = {}
    for i, (account_id, balance) in enumerate(final.items()):
        out[f"id_{i}"], out[f"balance_{i}"] = account_id, balance
    return out


ENTRIES = Rows(
    "ledger_entries",
    (
        ("txn", "varchar"),
        ("account_id", "integer"),
        ("amount", "bigint"),
        ("balance_after", "bigint"),
        ("kind", "varchar"),
        ("table_id", "integer"),
        ("round_no", "integer"),
        ("player", "varchar"),
        ("spot", "varchar"),
        ("seq", "integer"),
        ("actor", "varchar"),
        ("at", "timestamptz"),
    ),
)
_LOCK_ONE = q("SELECT id FROM accounts WHERE name = :name {lock}")
_AVAILABLE = q(
    "SELECT balance,"
    " (SELECT COALESCE(SUM(amount), 0) FROM bets WHERE user_id = :user),"
    " (SELECT COALESCE(SUM(amount), 0) FROM back_bet_requests WHERE user_id = :user AND status = 'waiting')"
    " FROM accounts WHERE name = :name"
)


async def _account(
    tx: Tx, name: str, kind: str, user_id: int | None = None, table_id: int | None = None
) -> Account:
    found = await tx.one(_ACCOUNT, {"name": name})
    if found is not None:
        return Account(*found)
    # two first uses at once (the cage at a new casino's first buy-ins): one inserts, both use it
    await tx.run(_NEW_ACCOUNT, {"name": name, "kind": kind, "user_id": user_id, "table_id": table_id})
    made = await tx.one(_ACCOUNT, {"name": name})
    assert made is not None
    return Account(*made)


async def wallet(tx: Tx, user_id: int, name: str) -> Account:
    """The player's wallet (created on first use)."""
    return await _account(tx, f"wallet:{name}", "wallet", user_id=user_id)


async def cage(tx: Tx) -> Account:
    """Where chips come from at a buy-in and go back at a cash-out."""
    return await _account(tx, "cage", "cage")


async def house(tx: Tx) -> Account:
    """The house's result: what it won (positive) or paid (negative), commissions included."""
    return await _account(tx, "house", "house")


async def table_account(tx: Tx, table_id: int) -> Account:
    """A table's chips in play: stakes come in when bets close, payouts leave at the round's end."""
    return await _account(tx, f"table:{table_id}", "table", table_id=table_id)


async def locked(
    tx: Tx, players: Iterable[str], *, table_id: int | None = None, with_house: bool = False
) -> dict[str, Account]:
    """The wallets of `players` (and the table's account, the house's), locked for the rest of the
    transaction in one statement and one order (by id), by account name; their balances are as locked,
    so that `post_many(..., locked=True)` need not read them again. Accounts not there yet are made."""
    names = {f"wallet:{p}" for p in players}
    if table_id is not None:
        names.add(f"table:{table_id}")
    if with_house:
        names.add("house")
    found = {row[1]: Account(*row) for row in await tx.all(_ACCOUNTS_LOCKED, {"names": Many(sorted(names))})}
    for name in sorted(names - set(found)):  # first use: made, and locked by the insert
        if name.startswith("wallet:"):
            player = name.removeprefix("wallet:")
            user_id = await tx.value(_USER_ID, {"name": player})
            assert user_id is not None, f"no player {player}"
            found[name] = await wallet(tx, user_id, player)
        elif name == "house":
            found[name] = await house(tx)
        else:
            assert table_id is not None
            found[name] = await table_account(tx, table_id)
    return found


async def post(
    tx: Tx,
    moves: Sequence[Move],
    *,
    table_id: int | None = None,
    round_no: int | None = None,
    actor: str | None = None,
    locked: bool = False,
) -> None:
    """Write one transaction of entries (their amounts must sum to zero); each account's balance moves
    with its entry. A wallet that would go below zero is InsufficientFunds and nothing is written."""
    await post_many(tx, [moves], table_id=table_id, round_no=round_no, actor=actor, locked=locked)


async def post_many(
    tx: Tx,
    transactions: Sequence[Sequence[Move]],
    *,
    table_id: int | None = None,
    round_no: int | None = None,
    actor: str | None = None,
    locked: bool = False,
) -> None:
    """Write several transactions of entries at once (each sums to zero and has its own id): the
    accounts they move are locked and read in one statement (in id order, as every step locks them) —
    unless they are `locked` already, their balances as read under the lock (`ledger.locked`) — their
    new balances written in one statement, every entry in one more. A wallet that would go below zero
    is InsufficientFunds and nothing is written (the database's check stands behind this one)."""
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
    if locked:
        have = {account_id: accounts[account_id].balance for account_id in delta}
    else:
        have = dict(await tx.all(_BALANCES_LOCKED, {"ids": Many(sorted(delta))}))
    for account_id, d in delta.items():
        account = accounts[account_id]
        balance = int(have.get(account_id, 0))
        if account.kind == "wallet" and balance + d < 0:
            owner = account.name.removeprefix("wallet:")
            need = -sum(
                m.amount
                for moves in transactions
                for m in moves
                if m.account.id == account_id and m.amount < 0
            )
            raise InsufficientFunds(
                f"{owner} has {balance} and this takes {need}",
                key="err.api.funds",
                player=owner,
                balance=balance,
                amount=need,
            )
    running = {account_id: int(have.get(account_id, 0)) for account_id in delta}
    final = {account_id: running[account_id] + d for account_id, d in delta.items()}
    await tx.run(_balances_of(len(final)), _numbered_balances(final))
    entries: list[dict[str, object]] = []
    at = utcnow()
    for moves in transactions:
        txn = str(uuid.uuid4())
        for m in moves:
            if m.amount == 0:
                continue
            running[m.account.id] += m.amount
            entries.append(
                {
                    "txn": txn,
                    "account_id": m.account.id,
                    "amount": m.amount,
                    "balance_after": running[m.account.id],
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
    for account_id, account in accounts.items():
        account.balance = final[account_id]
    await tx.insert(ENTRIES, entries)


async def lock_wallets(tx: Tx, players: Iterable[str]) -> dict[str, int]:
    """Lock the wallets of `players` for the rest of the transaction, all at once and in one order (by
    account id), and give their balances. A table step that may move several players' chips (a deal, a
    decision, card or timer that ends a round, a void) takes them so before it moves any: two tables
    that seat the same players in other orders then wait for each other instead of deadlocking
    (PostgreSQL; on SQLite there is one writer and FOR UPDATE is not written)."""
    names = sorted({f"wallet:{p}" for p in players})
    if not names:
        return {}
    rows = await tx.all(_ACCOUNTS_LOCKED, {"names": Many(names)})
    return {name.removeprefix("wallet:"): balance for _, name, _, balance in rows}


async def available(tx: Tx, user: Player, *, lock: bool = False) -> tuple[int, int]:
    """(balance, what he may still bet or cash out: the balance less what he has committed), in one
    statement (two with `lock`).

    With `lock`, for a change that spends it: the wallet's row is locked for the rest of the transaction
    (PostgreSQL's SELECT … FOR UPDATE; SQLite has one writer) as the balance and the commitments are
    read, so that bets at two tables, a cash-out and a decision taken at once cannot each spend the same
    free chips (each table's own lock does not order them)."""
    name = f"wallet:{user.name}"
    if lock:  # the lock first, alone: on PostgreSQL a statement that waited for a row lock reads the
        # other tables as they were before it waited, so the commitments are read by the next statement
        await tx.run(_LOCK_ONE, {"name": name})
    row = await tx.one(_AVAILABLE, {"name": name, "user": user.id})
    if row is None:  # no wallet yet: nothing in it
        return 0, 0
    balance, committed_bets, committed_asks = (int(v or 0) for v in row)
    return balance, balance - committed_bets - committed_asks


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
