"""One module per game: a pure round state machine with no I/O, no clock and no randomness.

Every round class offers the same surface (OpenSpiel/PokerKit shape): ``bet_spec(rules)``,
``parse_action(entry)``, ``OFFERS`` (decisions that are offers, declined by silence), ``pending``,
``legal()``, ``verify``/``can``/``apply``, ``view(viewer)`` and ``result()``.
"""

from __future__ import annotations

import importlib
from typing import Any

#: game name -> "module:RoundClass"; imported on first use so one game's import cost is not everyone's.
GAMES: dict[str, str] = {
    "blackjack": "tapete.games.blackjack:BlackjackRound",
    "majestic_21": "tapete.games.majestic21:Majestic21Round",
    "punto_y_banca": "tapete.games.punto_y_banca:PuntoYBancaRound",
    "showdown_poker": "tapete.games.showdown:ShowdownRound",
}


def round_class(game: str) -> Any:
    """The round class of `game` (KeyError for an unknown game; ImportError if not built yet)."""
    module, _, name = GAMES[game].partition(":")
    return getattr(importlib.import_module(module), name)
