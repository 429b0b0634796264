"""What every viewer of one table version shares (`state.snapshot` builds it, a step hands the one it
started from to the next): a module of its own so that the steps can name it without the state."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Snapshot:
    """What every viewer of one table version shares."""

    table_id: int
    version: int
    base: dict[str, Any]
    requests: list[dict[str, Any]]
    holders: dict[int, str]
    by_seat: dict[int, list[dict[str, Any]]]
    #: the table's bets for the next round, (seat, player, spot, amount) in placing order
    bets: tuple[tuple[int, str, str, int], ...]
    #: player name → (balance, available) as of this version
    balances: dict[str, tuple[int, int]]
    in_round: bool
    #: the round's void asked for and waiting for a second staff member's confirmation, or None
    void: dict[str, str] | None = None
    #: viewer → (view, pending), made on first use while the runtime is at this version
    views: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    #: the round's view key → the first viewer of it and his (view, pending); a viewer → that first one
    kinds: dict[str, tuple[str, tuple[Any, Any]]] = field(default_factory=dict)
    first_of: dict[str, str] = field(default_factory=dict)
    #: the JSON written once per version (`state_json`): the base's members, each viewer's view, and
    #: per view key that view's JSON cut where a viewer's label goes (None: its label is not found once)
    base_json: bytes | None = None
    views_json: dict[str, bytes] = field(default_factory=dict)
    cuts: dict[str, tuple[bytes, bytes] | None] = field(default_factory=dict)
    #: the players whose balances were sent to be read with the transaction's COMMIT (`money_after`)
    owed: frozenset[str] | None = None
    #: staff only: the control procedures due before the next deal, and the open deck-change requests
    procedures_due: list[str] = field(default_factory=list)
    deck_requests: list[dict[str, Any]] = field(default_factory=list)
