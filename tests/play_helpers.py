"""Drive a terminal table with a scripted person on a dealer-entered stacked shoe (shared by the
terminal-table tests of every game)."""

from __future__ import annotations

import re
from io import StringIO
from typing import Any

from rich.console import Console

from tapete.cards import parse_cards
from tapete.play import run_play
from tapete.play.common import Script
from tapete.shoe import StackedSource


def flat(text: str) -> str:
    """The transcript with line wrapping undone (Rich wraps long prompts at the console width)."""
    return re.sub(r"\s+", " ", text)


def play_game(
    game: str,
    cards: str,
    answers: list[str],
    *,
    decks: int,
    seats: int = 1,
    lang: str = "es",
    rounds: int = 1,
    **kwargs: Any,
) -> tuple[str, Script]:
    """Play `rounds` rounds of `game`; return the flattened transcript and the script (its prompts).
    A `session` keyword replaces the stacked shoe with that session's source."""
    out = StringIO()
    console = Console(file=out, width=100)
    script = Script(console, answers)
    source = (
        None
        if kwargs.get("session")
        else StackedSource(parse_cards(cards.split()), decks, dealer_entered=True)
    )
    run_play(
        game, seats=seats, lang=lang, rounds=rounds, console=console, input_fn=script, source=source, **kwargs
    )
    return flat(out.getvalue()), script
