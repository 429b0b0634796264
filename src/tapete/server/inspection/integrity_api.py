"""The integrity endpoints (server.md, "Integrity of the records and the money"): the public key every
record and entry is signed with, the frozen accounts, and an administrator's reopening of one."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field, StrictStr

from tapete.server.errors import Conflict, NotFound
from tapete.server.http import NO_NUL, NOT_BLANK, Body, CasinoOf, who
from tapete.server.inspection import integrity
from tapete.server.inspection import repository as repo
from tapete.server.inspection.journal import note
from tapete.server.sql import Tx


class IntegrityKey(BaseModel):
    """The casino's public key."""

    algorithm: str = Field(description="ed25519")
    public_key: str = Field(description="PEM (SubjectPublicKeyInfo): what `tapete verify --public-key` reads")
    public_key_raw: str = Field(description="the 32 bytes of the key, base64")
    fingerprint: str = Field(description="SHA-256 of the raw key, hex (printed by the first start)")


class FrozenAccount(BaseModel):
    """An account no chips move in until an administrator reopens it."""

    account: str
    kind: str
    balance: int
    reason: str


class FrozenAccounts(BaseModel):
    """The frozen accounts."""

    accounts: list[FrozenAccount]


class Reopening(Body):
    """An administrator's reopening of a frozen account: its name (``wallet:NAME``, or a player's name)
    and why; only text the database can keep (`Body`: no NUL character, a 500 on PostgreSQL before)."""

    model_config = ConfigDict(extra="forbid")

    account: Annotated[StrictStr, Field(min_length=1, max_length=80, json_schema_extra={"pattern": NO_NUL})]
    #: refused when blank (`pattern`); the document says no NUL character either (`Body` refuses it)
    reason: Annotated[
        StrictStr,
        Field(min_length=1, max_length=500, pattern=r"\S", json_schema_extra={"pattern": NOT_BLANK}),
    ]


class Reopened(BaseModel):
    """The account reopened: its balance is its last entry's again."""

    account: str
    balance: int
    was: int = Field(description="the balance the account's row held (what did not reconcile)")


router = APIRouter()


@router.get("/api/integrity", tags=["inspector"], response_model=IntegrityKey)
async def get_integrity(casino: CasinoOf, request: Request) -> dict[str, Any]:
    """The public key every chain record, ledger entry and checkpoint is signed with (inspector,
    admin)."""
    caller = await who(request)
    caller.need("inspector", "admin")
    return casino.signer.verifier.to_json()


@router.get("/api/accounts/frozen", tags=["cashier"], response_model=FrozenAccounts)
async def get_frozen(casino: CasinoOf, request: Request) -> dict[str, Any]:
    """The frozen accounts and why (admin, inspector, cashier)."""
    caller = await who(request)
    caller.need("admin", "inspector", "cashier")
    async with casino.store.transaction(write=False) as tx:
        rows = await tx.all(repo.FROZEN)
    return {
        "accounts": [
            {"account": name, "kind": kind, "balance": int(balance), "reason": why}
            for _, name, kind, balance, why in rows
        ]
    }


@router.post("/api/accounts/reopen", tags=["cashier"], response_model=Reopened)
async def post_reopen(casino: CasinoOf, body: Reopening, request: Request) -> dict[str, Any]:
    """Reopen a frozen account (admin), with a reason: its balance becomes its last entry's again (the
    ledger is the truth), its entries up to that one are accepted as they stand (a signed ``account``
    checkpoint: the start-up's check of it begins after it), and a significant event
    ``account_reopened`` says who, why, and the balance it held."""
    caller = await who(request)
    caller.need("admin")
    name = (
        body.account if ":" in body.account or body.account in ("cage", "house") else f"wallet:{body.account}"
    )

    async def run(tx: Tx) -> dict[str, Any]:
        found = await tx.one(repo.ACCOUNT, {"name": name})
        if found is None:
            raise NotFound(f"no account {name}", key="err.account.unknown", account=name)
        account_id, _, balance, frozen = found
        if frozen is None:
            raise Conflict(f"the account {name} is not frozen", key="err.account.not_frozen", account=name)
        last = await tx.one(repo.LAST_ENTRY, {"id": account_id})
        entry, after = (int(last.id), int(last.balance_after)) if last is not None else (0, 0)
        await tx.run(repo.REOPEN, {"balance": after, "id": account_id})
        await integrity.accept_account(tx, int(account_id), entry, after)
        await note(
            tx,
            "account_reopened",
            actor=caller.name,
            details={
                "account": name,
                "reason": body.reason,
                "was": int(balance),
                "balance": after,
                "frozen_for": frozen,
            },
        )
        return {"account": name, "balance": after, "was": int(balance)}

    result: dict[str, Any] = await casino.run_tx(run)
    return result
