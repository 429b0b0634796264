"""A table's row as a table step reads and changes it (`models.CasinoTable`'s columns): a module of its
own so that the chain, the state and the steps share the type without importing one another."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass
class TableRow:
    """A table's row (`models.CasinoTable`'s columns) as a step reads and changes it: its game, mode and
    settings, its state version (what pushes are numbered by), its chain's head, the round in play, the
    timer that may be running."""

    id: int
    name: str
    game: str
    mode: str
    rules: dict[str, Any]
    turn_seconds: float | None
    betting_seconds: float | None
    status: str
    status_reason: str | None
    version: int
    next_seq: int
    head_hash: str
    round_no: int
    in_round: bool
    shuffle_no: int
    deadline_at: datetime | None
    deadline_kind: str | None
    deadline_version: int | None
    pending_shoe_events: dict[str, Any] | None
    created_at: datetime | None

    def copy(self) -> TableRow:
        """A copy to change (its columns are values, or JSON replaced whole, never changed in place): a
        step copies the row four times, and `dataclasses.replace` cost more than the step's engine."""
        twin = object.__new__(TableRow)
        twin.__dict__.update(self.__dict__)
        return twin


#: the row's columns, in the dataclass's order (a step writes back those it changed)
COLUMNS = tuple(TableRow.__dataclass_fields__)
