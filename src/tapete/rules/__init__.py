"""Validated settings models, one per game; regulation bounds are validators (rules.md, scenario.md keys).

``load_rules(game, data)`` is the one entry point the scenario runner, the tables, the CLI and
``tapete analyze`` share.
"""

from __future__ import annotations

from tapete.errors import InvalidRules
from tapete.rules.blackjack import BlackjackRules, Majestic21Rules
from tapete.rules.common import CommonRules
from tapete.rules.punto_y_banca import PuntoYBancaRules
from tapete.rules.showdown import ShowdownRules

RULES: dict[str, type[CommonRules]] = {
    "blackjack": BlackjackRules,
    "majestic_21": Majestic21Rules,
    "punto_y_banca": PuntoYBancaRules,
    "showdown_poker": ShowdownRules,
}


def load_rules(game: str, data: object = None, *, regulation: bool = True) -> CommonRules:
    """The validated settings of `game` from a dict of scenario keys (InvalidRules on any problem)."""
    try:
        model = RULES[game]
    except KeyError:
        raise InvalidRules(
            f"unknown game {game!r}; games: {', '.join(RULES)}",
            key="err.file.game",
            game=game,
            games=list(RULES),
        ) from None
    return model.load(data, regulation=regulation)


__all__ = [
    "RULES",
    "BlackjackRules",
    "CommonRules",
    "Majestic21Rules",
    "PuntoYBancaRules",
    "ShowdownRules",
    "load_rules",
]
