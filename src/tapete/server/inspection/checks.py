"""The checks that the start-up (`integrity`), the inspector's verify and `tapete verify` (`offline`) share,
on rows however they were read: which signed ``legacy`` checkpoint stands for a chain's (or the ledger's)
unsigned rows, a ledger entry's link and signature, a ledger transaction's completeness, and which
accounts a broken transaction freezes. Pure functions: no database here."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tapete.server import signing


def newest_signed(
    rows: Iterable[tuple[str, Any, str, str | None]],
    keys: signing.Keyring,
    kind: str,
    table_id: int | None,
    *,
    below: int | None = None,
) -> tuple[int, str] | None:
    """The highest checkpoint of `kind` among `rows` (kind, seq, hash, sig), below seq `below` if given,
    that a trusted key signed: (seq, hash); None when there is none. Tried from the highest down, so that
    a table's many checkpoints cost one signature's check, not one each (an unsigned or forged one above
    is passed over)."""
    candidates = sorted(
        ((int(seq), digest, sig) for found, seq, digest, sig in rows if found == kind),
        key=lambda row: row[0],
        reverse=True,
    )
    for seq, digest, sig in candidates:
        if below is not None and seq >= below:
            continue
        if signing.checkpoint_signed(keys, kind, table_id, seq, digest, sig):
            return seq, digest
    return None


def legacy_mark(
    rows: Iterable[tuple[str, Any, str, str | None]], keys: signing.Keyring, kind: str, table_id: int | None
) -> tuple[int, str] | None:
    """The signed checkpoint of `kind` (``legacy``, ``legacy_ledger``) among `rows` (`newest_signed`): the
    rows up to its seq predate signatures (and, for a table, its record there hashes to its hash). Only
    migration 0005 signs one, after verifying what it covers; an unsigned one (planted, or left by a
    migration run without the key) stands for nothing."""
    return newest_signed(rows, keys, kind, table_id)


@dataclass(frozen=True)
class EntryFault:
    """Why a ledger entry fails its check; `held`: how many entries its transaction had when it was signed,
    when that alone is why (entries of its transaction are gone, the entry itself is as written)."""

    why: str
    held: int | None = None


def entry_fault(
    row: Any,
    at: str,
    before: int | None,
    present: int,
    keys: signing.Keyring,
    unsigned_to: int,
    *,
    wallet: bool,
) -> EntryFault | None:
    """A ledger entry's check: its balance after it follows from its account's previous entry's
    (`before`, None: the first) and, above `unsigned_to` (the ledger's legacy mark), its signature holds
    for its transaction as it stands (`present` entries) — else whether it held for a larger one (its
    transaction lost entries). `row` has the entry's columns; `at` is its time as `signing.time_text`;
    `wallet`: its account is a wallet (whose balance the signature may cover)."""
    eid, amount, after = int(row.id), int(row.amount), int(row.balance_after)
    if (0 if before is None else int(before)) + amount != after:
        return EntryFault(f"entry {eid} does not follow from its account's previous entry")
    return signature_fault(row, at, present, keys, unsigned_to, wallet=wallet)


def signature_fault(
    row: Any, at: str, present: int, keys: signing.Keyring, unsigned_to: int, *, wallet: bool
) -> EntryFault | None:
    """A ledger entry's signature alone (`entry_fault` without the link)."""
    eid, after = int(row.id), int(row.balance_after)
    if eid <= unsigned_to:
        return None
    fields = {name: getattr(row, name) for name in signing.ENTRY_FIELDS}
    if signing.entry_signed(keys, fields, at, row.sig, entries=present, balance_after=after, wallet=wallet):
        return None
    held = signing.entry_signed_count(
        keys, fields, at, row.sig, balance_after=after, wallet=wallet, present=present
    )
    if held is not None:
        return EntryFault(missing(str(row.txn), present, held), held)
    return EntryFault(f"entry {eid}'s signature is not the casino's")


def missing(txn: str, present: int, held: int) -> str:
    """What a transaction that lost entries is said to be."""
    return f"transaction {txn} holds {present} of its {held} entries: the others were deleted"


def unbalanced(txn: str, total: int) -> str:
    """What a transaction whose entries do not sum to zero is said to be."""
    return f"transaction {txn} does not sum to zero ({total}): an entry of it was deleted or changed"


def blamed(entries: Iterable[tuple[int, str, int | None]]) -> set[int]:
    """The accounts a broken transaction freezes, from its remaining entries (account id, the account's
    kind, the wallet of the player the entry names or None): the wallets it moves or names — an entry
    deleted from it was one of theirs (every entry of a bettor's chips names him) and a wallet is where
    chips conjured so would be paid out — or, when it names none, every account it moves."""
    entries = list(entries)
    wallets = {a for a, kind, _ in entries if kind == "wallet"} | {w for _, _, w in entries if w is not None}
    return wallets or {a for a, _, _ in entries}
