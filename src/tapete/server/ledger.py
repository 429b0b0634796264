"""Chips that are never lost: a double-entry ledger. Accounts are each player's wallet, the cage (where
cash becomes chips), each table's chips in play and the house; every movement is a transaction of entries
that sum to zero, written in the same database transaction as what caused it. A wallet never goes below
zero (checked here first, for a clean refusal, and by the database)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import case, func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.attributes import set_committed_value

from tapete.server.errors import InsufficientFunds
from tapete.server.models import Account, BackBetRequest, Bet, LedgerEntry, User, utcnow


@dataclass(frozen=True)
class Move:
    """One entry to write: `amount` (signed) on an account, its kind and the bettor it concerns."""

    account: Account
    amount: int
    kind: str
    player: str | None = None
    spot: str | None = None
    seq: int | None = None


async def _account(db: AsyncSession, name: str, kind: str, **owner: int) -> Account:
    found = await db.scalar(select(Account).where(Account.name == name))
    if found is not None:
        return found
    # two first uses at once (the cage at a new casino's first buy-ins): one inserts, both use it
    dialect = db.bind.dialect.name if db.bind is not None else "sqlite"
    make = pg_insert if dialect == "postgresql" else sqlite_insert
    await db.execute(
        make(Account)
        .values(name=name, kind=kind, balance=0, **owner)
        .on_conflict_do_nothing(index_elements=["name"])
    )
    account = (await db.scalars(select(Account).where(Account.name == name))).one()
    return account


async def wallet(db: AsyncSession, user: User | int, name: str | None = None) -> Account:
    """The player's wallet (created on first use)."""
    if isinstance(user, User):
        return await _account(db, f"wallet:{user.name}", "wallet", user_id=user.id)
    assert name is not None
    return await _account(db, f"wallet:{name}", "wallet", user_id=user)


async def cage(db: AsyncSession) -> Account:
    """Where chips come from at a buy-in and go back at a cash-out."""
    return await _account(db, "cage", "cage")


async def house(db: AsyncSession) -> Account:
    """The house's result: what it won (positive) or paid (negative), commissions included."""
    return await _account(db, "house", "house")


async def table_account(db: AsyncSession, table_id: int) -> Account:
    """A table's chips in play: stakes come in when bets close, payouts leave at the round's end."""
    return await _account(db, f"table:{table_id}", "table", table_id=table_id)


async def post(
    db: AsyncSession,
    moves: Sequence[Move],
    *,
    table_id: int | None = None,
    round_no: int | None = None,
    actor: str | None = None,
) -> None:
    """Write one transaction of entries (their amounts must sum to zero); each account's balance moves
    with its entry. A wallet that would go below zero is InsufficientFunds and nothing is written."""
    await post_many(db, [moves], table_id=table_id, round_no=round_no, actor=actor)


async def post_many(
    db: AsyncSession,
    transactions: Sequence[Sequence[Move]],
    *,
    table_id: int | None = None,
    round_no: int | None = None,
    actor: str | None = None,
) -> None:
    """Write several transactions of entries at once (each sums to zero and has its own id): one
    statement moves every account's balance, one writes every entry. A wallet that would go below zero
    is InsufficientFunds and nothing is written (the database's check stands behind this one)."""
    for moves in transactions:
        if sum(m.amount for m in moves) != 0:
            raise ValueError(f"a ledger transaction must sum to zero, not {sum(m.amount for m in moves)}")
    needs: dict[int, int] = {}
    delta: dict[int, int] = {}
    accounts: dict[int, Account] = {}
    for moves in transactions:
        for m in moves:
            if m.account.kind == "wallet" and m.amount < 0:
                needs[m.account.id] = needs.get(m.account.id, 0) - m.amount
            if m.amount:
                delta[m.account.id] = delta.get(m.account.id, 0) + m.amount
                accounts[m.account.id] = m.account
    if needs:
        rows = await db.execute(select(Account.id, Account.balance).where(Account.id.in_(list(needs))))
        have = {account_id: balance for account_id, balance in rows.all()}
        for account_id, need in needs.items():
            balance = have.get(account_id)
            if balance is None or balance < need:
                owner = accounts[account_id].name.removeprefix("wallet:")
                raise InsufficientFunds(
                    f"{owner} has {balance or 0} and this takes {need}",
                    key="err.api.funds",
                    player=owner,
                    balance=balance or 0,
                    amount=need,
                )
    if not delta:
        return
    moved = await db.execute(
        update(Account)
        .where(Account.id.in_(list(delta)))
        .values(balance=Account.balance + case(delta, value=Account.id, else_=0))
        .returning(Account.id, Account.balance)
        .execution_options(synchronize_session=False)
    )
    final = {account_id: balance for account_id, balance in moved.all()}
    running = {account_id: final[account_id] - d for account_id, d in delta.items()}
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
    for account_id, account in accounts.items():  # as committed: no second UPDATE at the next flush
        set_committed_value(account, "balance", final[account_id])
    if entries:
        await db.execute(insert(LedgerEntry), entries)


async def wallets(db: AsyncSession, players: Iterable[str], *, lock: bool = False) -> dict[str, Account]:
    """The wallets of `players` in one query (created for a player who has none yet); with `lock`, locked
    for the rest of the transaction all at once and in one order (by account id), as `lock_wallets`."""
    names = sorted({f"wallet:{p}" for p in players})
    if not names:
        return {}
    query = select(Account).where(Account.name.in_(names)).order_by(Account.id)
    if lock:
        query = query.with_for_update()
    found = {a.name.removeprefix("wallet:"): a for a in await db.scalars(query)}
    for name in sorted({n.removeprefix("wallet:") for n in names} - set(found)):
        user_id = await db.scalar(select(User.id).where(User.name == name))
        assert user_id is not None, f"no player {name}"
        found[name] = await wallet(db, user_id, name)
    return found


async def lock_wallets(db: AsyncSession, players: Iterable[str]) -> dict[str, int]:
    """Lock the wallets of `players` for the rest of the transaction, all at once and in one order (by
    account id), and give their balances. A table step that may move several players' chips (a deal, a
    decision, card or timer that ends a round, a void) takes them so before it moves any: two tables
    that seat the same players in other orders then wait for each other instead of deadlocking
    (PostgreSQL; on SQLite there is one writer and FOR UPDATE is not written)."""
    names = sorted({f"wallet:{p}" for p in players})
    if not names:
        return {}
    rows = await db.execute(
        select(Account.name, Account.balance)
        .where(Account.name.in_(names))
        .order_by(Account.id)
        .with_for_update()
    )
    return {name.removeprefix("wallet:"): balance for name, balance in rows.all()}


@dataclass(frozen=True)
class Player:
    """A player as the ledger needs him (his id and name), without loading his user row."""

    id: int
    name: str


async def available(db: AsyncSession, user: User | Player, *, lock: bool = False) -> tuple[int, int]:
    """(balance, what he may still bet or cash out: the balance less what he has committed), in one
    statement (two with `lock`).

    With `lock`, for a change that spends it: the wallet's row is locked for the rest of the transaction
    (PostgreSQL's SELECT … FOR UPDATE; SQLite has one writer) as the balance and the commitments are
    read, so that bets at two tables, a cash-out and a decision taken at once cannot each spend the same
    free chips (each table's own lock does not order them)."""
    bets = select(func.coalesce(func.sum(Bet.amount), 0)).where(Bet.user_id == user.id).scalar_subquery()
    asks = (
        select(func.coalesce(func.sum(BackBetRequest.amount), 0))
        .where(BackBetRequest.user_id == user.id, BackBetRequest.status == "waiting")
        .scalar_subquery()
    )
    if lock:  # the lock first, alone: on PostgreSQL a statement that waited for a row lock reads the
        # other tables as they were before it waited, so the commitments are read by the next statement
        await db.execute(select(Account.id).where(Account.name == f"wallet:{user.name}").with_for_update())
    query = select(Account.balance, bets, asks).where(Account.name == f"wallet:{user.name}")
    row = (await db.execute(query)).first()
    if row is None:  # no wallet yet: nothing in it
        return 0, 0
    balance, committed_bets, committed_asks = (int(v or 0) for v in row)
    return balance, balance - committed_bets - committed_asks


async def cashier(db: AsyncSession, user: User, amount: int, *, out: bool, actor: str) -> int:
    """A buy-in (cage → wallet) or a cash-out (wallet → cage, never of chips committed to a bet);
    returns the new balance."""
    account = await wallet(db, user)
    if out:
        balance, free = await available(db, user, lock=True)
        if amount > free:
            raise InsufficientFunds(
                f"{user.name} may cash out {free} (balance {balance}, the rest is on bets)",
                key="err.api.cash_out",
                player=user.name,
                balance=balance,
                free=free,
                amount=amount,
            )
    the_cage = await cage(db)
    sign = -1 if out else 1
    await post(
        db,
        [
            Move(account, sign * amount, "cash_out" if out else "buy_in", player=user.name),
            Move(the_cage, -sign * amount, "cash_out" if out else "buy_in", player=user.name),
        ],
        actor=actor,
    )
    return account.balance
