"""One module per game: a pure round state machine with no I/O, no clock and no randomness.

Every round class offers the same typed surface (`tapete.games.base`: the `Round` protocol for a round,
`RoundType` for its class): ``bet_spec(rules)``, ``parse_action(entry)``, ``step_from_event(event)``,
``censor(events, viewer)``, ``OFFERS`` (decisions that are offers, declined by silence), and on a round
``pending`` (a card step or a holder's decision), ``legal()``, ``verify``/``can``/``apply``,
``chips_for``, ``default_action``, ``void``, ``view(viewer)`` and ``result()``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, cast

from tapete.games.base import RoundType

#: game name -> "module:RoundClass"; imported on first use so one game's import cost is not everyone's.
GAMES: dict[str, str] = {
    "blackjack": "tapete.games.blackjack:BlackjackRound",
    "majestic_21": "tapete.games.majestic21:Majestic21Round",
    "punto_y_banca": "tapete.games.punto_y_banca:PuntoYBancaRound",
    "showdown_poker": "tapete.games.showdown:ShowdownRound",
}


def round_class(game: str) -> RoundType:
    """The round class of `game` (KeyError for an unknown game)."""
    module, _, name = GAMES[game].partition(":")
    return cast(RoundType, getattr(importlib.import_module(module), name))


if TYPE_CHECKING:  # mypy checks that every game's round is a Round
    from tapete.games.base import Round
    from tapete.games.blackjack import BlackjackRound
    from tapete.games.majestic21 import Majestic21Round
    from tapete.games.punto_y_banca import PuntoYBancaRound
    from tapete.games.showdown import ShowdownRound

    _ROUNDS: tuple[type[Round], ...] = (BlackjackRound, Majestic21Round, PuntoYBancaRound, ShowdownRound)
