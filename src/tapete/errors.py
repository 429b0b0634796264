"""Typed errors shared by the engine, the CLI and the server.

Each error carries the scenario contract's `code` (shared/spec/scenario.md) and, where there is one,
`at`: the index of the offending entry. The CLI and the server map them to exit codes / HTTP statuses
in one place (`tapete.cli`, `tapete.server`).
"""

from __future__ import annotations

from typing import Any


class TapeteError(Exception):
    """Base of every error a person or a tool may see; `code` is machine-facing, `message` human."""

    code = "error"

    def __init__(self, message: str, at: int | None = None, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.at = at
        self.details = details

    def to_json(self) -> dict[str, Any]:
        """The error object of the scenario contract: {"error": {"code", "message", "at"?}}."""
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.at is not None:
            body["at"] = self.at
        return {"error": body}


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
