"""Idempotency-Keys (server.md): a change sent with one is answered once; a retry of the same request gets
that first answer again (or its refusal), and the same key for another request is a conflict. The
answers are kept in the database, in the transaction of the change they answer."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from tapete.server import repository as shared
from tapete.server.errors import Conflict
from tapete.server.models import utcnow
from tapete.server.people.accounts import Caller
from tapete.server.sql import Json, Tx


@dataclass(frozen=True)
class Idem:
    """An Idempotency-Key and the request it belongs to."""

    key: str
    fingerprint: str
    #: the caller's language: a refusal is remembered as it was said to him
    lang: str = "es"

    @classmethod
    def of(cls, key: str | None, method: str, path: str, body: bytes, lang: str = "es") -> Idem | None:
        """The key of a request (None without the header)."""
        if not key:
            return None
        digest = hashlib.sha256(method.encode() + b" " + path.encode() + b"\n" + body).hexdigest()
        return cls(cls.stored(key), digest, lang)

    @staticmethod
    def stored(key: str) -> str:
        """The key as the database keeps it: whole up to 200 characters, a longer one by its SHA-256
        (cutting it would make two keys that differ after the 200th character one)."""
        if len(key) <= 200:
            return key
        return "sha256:" + hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


class Replay(Exception):
    """A retried request: its first answer, to send again."""

    def __init__(self, status: int, body: Any) -> None:
        super().__init__(status)
        self.status = status
        self.body = body


async def answered(tx: Tx, caller: Caller, idem: Idem) -> bool:
    """Whether an answer is kept under the caller's key."""
    return await tx.one(shared.ANSWERED, {"user": caller.user_id, "key": idem.key}) is not None


async def replay(tx: Tx, caller: Caller, idem: Idem) -> None:
    """Raise the first answer of a request sent again under its key (`Replay`), or a conflict when the
    key was used for another request; return when the key is new."""
    row = await tx.one(shared.ANSWERED, {"user": caller.user_id, "key": idem.key})
    if row is None:
        return
    if row.fingerprint != idem.fingerprint:
        raise Conflict("this Idempotency-Key was used for another request", key="err.api.idempotency_reused")
    raise Replay(row.status_code, row.body)


async def remember(tx: Tx, caller: Caller, idem: Idem, status: int, body: Any) -> None:
    """Keep a request's answer under its key, in the transaction of the change it answers."""
    await tx.run(
        shared.ANSWER,
        {
            "user": caller.user_id,
            "key": idem.key,
            "fingerprint": idem.fingerprint,
            "status": status,
            "body": Json(body),
            "at": utcnow(),
        },
    )
