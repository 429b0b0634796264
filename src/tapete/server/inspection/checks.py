"""The checks that the start-up (`integrity`), the inspector's verify and `tapete verify` (`offline`) share,
on rows however they were read: which signed ``legacy`` checkpoint stands for a chain's (or the ledger's)
unsigned rows. Pure functions: no database here."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tapete.server import signing


def legacy_mark(
    rows: Iterable[tuple[str, Any, str, str | None]], keys: signing.Keyring, kind: str, table_id: int | None
) -> tuple[int, str] | None:
    """The highest checkpoint of `kind` (``legacy``, ``legacy_ledger``) among `rows` (kind, seq, hash, sig)
    that a trusted key signed: (seq, hash), the rows up to `seq` predating signatures (and, for a table,
    its record `seq` hashing to `hash`). Only migration 0005 signs one, after verifying what it covers;
    an unsigned one (planted, or left by a migration run without the key) stands for nothing."""
    mark: tuple[int, str] | None = None
    for found, seq, digest, sig in rows:
        if found != kind or not keys.check(signing.checkpoint_message(kind, table_id, int(seq), digest), sig):
            continue
        if mark is None or int(seq) > mark[0]:
            mark = (int(seq), digest)
    return mark
