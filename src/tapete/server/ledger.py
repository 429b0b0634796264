"""Chips that are never lost: a double-entry ledger. Accounts are each player's wallet, the cage (where
cash becomes chips), each table's chips in play and the house; every movement is a transaction of entries
that sum to zero, written in the same database transaction as what caused it. A wallet never goes below
zero (checked here first, for a clean refusal, and by the database)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from tapete.server.errors import InsufficientFunds
from tapete.server.models import Account, BackBetRequest, Bet, LedgerEntry, User


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
    account = Account(name=name, kind=kind, balance=0, **owner)
    db.add(account)
    await db.flush()
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
) -> list[LedgerEntry]:
    """Write one transaction of entries (their amounts must sum to zero); each account's balance moves
    with its entry. A wallet that would go below zero is InsufficientFunds and nothing is written."""
    if sum(m.amount for m in moves) != 0:
        raise ValueError(f"a ledger transaction must sum to zero, not {sum(m.amount for m in moves)}")
    needs: dict[int, int] = {}
    for m in moves:
        if m.account.kind == "wallet" and m.amount < 0:
            needs[m.account.id] = needs.get(m.account.id, 0) - m.amount
    for account_id, need in needs.items():
        balance = await db.scalar(select(Account.balance).where(Account.id == account_id))
        if balance is None or balance < need:
            owner = next(m.account.name for m in moves if m.account.id == account_id)
            raise InsufficientFunds(
                f"{owner.removeprefix('wallet:')} has {balance or 0} and this takes {need}",
                key="err.api.funds",
                player=owner.removeprefix("wallet:"),
                balance=balance or 0,
                amount=need,
            )
    txn = str(uuid.uuid4())
    out: list[LedgerEntry] = []
    for m in moves:
        if m.amount == 0:
            continue
        balance = await db.scalar(
            update(Account)
            .where(Account.id == m.account.id)
            .values(balance=Account.balance + m.amount)
            .returning(Account.balance)
        )
        assert balance is not None
        m.account.balance = balance
        entry = LedgerEntry(
            txn=txn,
            account_id=m.account.id,
            amount=m.amount,
            balance_after=balance,
            kind=m.kind,
            table_id=table_id,
            round_no=round_no,
            player=m.player,
            spot=m.spot,
            seq=m.seq,
            actor=actor,
        )
        db.add(entry)
        out.append(entry)
    await db.flush()
    return out


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


async def committed(db: AsyncSession, user_id: int) -> int:
    """What the player has promised and not yet staked: his bets waiting for the next deal at every
    table, and his back-bet requests still waiting for a holder's answer."""
    bets = await db.scalar(select(func.coalesce(func.sum(Bet.amount), 0)).where(Bet.user_id == user_id))
    asks = await db.scalar(
        select(func.coalesce(func.sum(BackBetRequest.amount), 0)).where(
            BackBetRequest.user_id == user_id, BackBetRequest.status == "waiting"
        )
    )
    return int(bets or 0) + int(asks or 0)


async def available(db: AsyncSession, user: User, *, lock: bool = False) -> tuple[int, int]:
    """(balance, what he may still bet or cash out: the balance less what he has committed).

    With `lock`, for a change that spends it: the wallet's row is locked for the rest of the transaction
    (PostgreSQL's SELECT … FOR UPDATE; SQLite has one writer) before the balance and the commitments are
    read, so that bets at two tables, a cash-out and a decision taken at once cannot each spend the same
    free chips (each table's own lock does not order them)."""
    account = await wallet(db, user)
    if lock:
        account.balance = (await lock_wallets(db, [user.name]))[user.name]
    return account.balance, account.balance - await committed(db, user.id)


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
