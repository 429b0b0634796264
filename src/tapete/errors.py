"""Typed errors shared by the engine, the CLI and the server.

Each error carries the scenario contract's `code` (shared/spec/scenario.md) and, where there is one,
`at`: the index of the offending entry. The CLI and the server map them to exit codes / HTTP statuses
in one place (`tapete.cli`, `tapete.server`).
"""

from __future__ import annotations

import errno
import re
from typing import Any


class Msg(str):
    """An English text that also carries its message id and parameters, so a person can be told it in
    their language (`tapete.i18n` renders ``key`` from the catalogs); the string itself stays the
    machine-facing English. Used where a message is built before it is raised (rules violations)."""

    key: str
    params: dict[str, Any]

    def __new__(cls, text: str, key: str, /, **params: Any) -> Msg:
        self = super().__new__(cls, text)
        self.key = key
        self.params = params
        return self


class TapeteError(Exception):
    """Base of every error a person or a tool may see; `code` is machine-facing, `message` English.

    `key` (a message id of the locale catalogs) and `params` let a person read the same message in
    their language: the raise site gives both next to the English text, so each message has one place.
    A `Msg` given as the message brings its own key and params.
    """

    code = "error"

    def __init__(self, message: str, at: int | None = None, *, key: str | None = None, **params: Any) -> None:
        super().__init__(str(message))
        if key is None and isinstance(message, Msg):
            key, params = message.key, {**message.params, **params}
        self.message = str(message)
        self.at = at
        self.key = key
        self.params = params
        self.details = params  # the older name of `params`

    def to_json(self) -> dict[str, Any]:
        """The error object of the scenario contract: {"error": {"code", "message", "at"?}}."""
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.at is not None:
            body["at"] = self.at
        return {"error": body}


def file_problem(exc: BaseException) -> dict[str, Any]:
    """Params that say where a JSON/TOML parser stopped (``line``, ``column``; 0 when unknown) or why a
    file could not be read (``reason``: the errno name, e.g. ``ENOENT``), for a person's message."""
    if isinstance(exc, OSError):
        return {"reason": errno.errorcode.get(exc.errno or 0, "EIO")}
    line, column = getattr(exc, "lineno", None), getattr(exc, "colno", None)
    if line is None:  # tomllib (3.11) says it only in the text: "... (at line 3, column 7)"
        m = re.search(r"at line (\d+), column (\d+)", str(exc))
        line, column = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
    return {"line": line, "column": column}


class BadFile(TapeteError):
    """The input's shape is wrong (not JSON, missing keys, wrong types)."""

    code = "bad_file"


class InvalidRules(TapeteError):
    """A setting is unknown, malformed, or forbidden by the regulation."""

    code = "invalid_rules"


class BadCards(TapeteError):
    """A card that cannot exist in the pack, an incomplete pack, or a shoe that ran out."""

    code = "bad_cards"


class BadBet(TapeteError):
    """A bet that the table must refuse (limits, seat, back-betting, combinations)."""

    code = "bad_bet"


class IllegalAction(TapeteError):
    """A decision that is not legal at this point of the round (or missing, or out of turn)."""

    code = "illegal_action"


class LiveTableRefused(TapeteError):
    """A live table was given a card source that is only allowed for simulation, tests or replay."""

    code = "live_table_refused"
