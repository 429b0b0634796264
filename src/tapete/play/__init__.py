"""`tapete play GAME`: a terminal table (Rich) on a virtual shoe, in Spanish or English, money in soles.

`run_play` builds the context (console, translator, money, table session, input function) and hands it
to ``tapete.play.<game>.play(ctx)``. Tests and demos pass their own console, input function, session or
card source; the command line passes none of them.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from rich.console import Console

from tapete.errors import BadFile, TapeteError, read_settings_file
from tapete.i18n import BadSetting, Money, Translator, resolve_lang
from tapete.play.common import InputFn, PlayContext, terminal_input
from tapete.session import TableSession
from tapete.shoe import CardSource

#: Games with a terminal face: game -> module under tapete.play.
FACES = {
    "blackjack": "tapete.play.blackjack",
    "majestic_21": "tapete.play.majestic_21",
    "punto_y_banca": "tapete.play.punto_y_banca",
    "showdown_poker": "tapete.play.showdown_poker",
}
MAX_SEATS = 7


class PlayRefused(TapeteError):
    """A refusal that stops the table (before it opens, or a shoe that ran out), already said in the
    person's language; keeps the engine's `code`."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


def load_settings_file(path: str | Path | None) -> dict[str, Any] | None:
    """Table settings from a JSON or TOML file (scenario.md's keys); BadFile if unreadable or malformed."""
    return None if path is None else read_settings_file(path, BadFile)


def run_play(
    game: str,
    *,
    seats: int = 1,
    lang: str | None = None,
    currency: str = "PEN",
    rules_file: str | Path | None = None,
    log_file: str | Path | None = None,
    rounds: int = 0,
    console: Console | None = None,
    input_fn: InputFn | None = None,
    session: TableSession | None = None,
    source: CardSource | None = None,
    players: list[str] | None = None,
) -> None:
    """Open a terminal table of `game` and play until the person quits or `rounds` rounds were dealt.

    Refusals before the table opens (unknown game, seats outside 1-7, a bad settings file, settings the
    regulation forbids) raise PlayRefused with the message in the person's language.
    """
    tr = Translator("es")  # says a bad language setting itself in the default language
    try:
        tr = Translator(resolve_lang(lang))
        money = Money(currency.upper())
        if game not in FACES:
            raise BadSetting(
                f"unknown game {game!r}; games: {', '.join(FACES)}",
                key="err.setting.game",
                game=game,
                games=list(FACES),
            )
        if isinstance(seats, bool) or not 1 <= seats <= MAX_SEATS:
            raise BadSetting(
                f"seats must be 1 to {MAX_SEATS}, not {seats}",
                key="err.setting.seats",
                seats=seats,
                limit=MAX_SEATS,
            )
        if rounds < 0:
            raise BadSetting(
                f"rounds must be 0 (until you quit) or more, not {rounds}",
                key="err.setting.rounds",
                rounds=rounds,
            )
        if players is not None and len(players) != seats:
            raise BadSetting(
                f"{len(players)} player names for {seats} seats",
                key="err.setting.players",
                names=len(players),
                seats=seats,
            )
        try:
            face = importlib.import_module(FACES[game])
        except ModuleNotFoundError:
            raise BadSetting(
                f"{game} has no terminal table yet", key="err.setting.no_face", game=game
            ) from None
        if session is None:
            settings = load_settings_file(rules_file)
            session = TableSession(game, settings, live=True, log=log_file, source=source)
    except TapeteError as exc:
        raise PlayRefused(tr.error(exc), exc.code) from exc
    console = console or Console(highlight=False)
    ctx = PlayContext(
        console=console,
        tr=tr,
        money=money,
        session=session,
        input=input_fn or terminal_input(console),
        seats=seats,
        rounds=rounds,
        players=list(players or []),
    )
    try:
        face.play(ctx)
    except TapeteError as exc:  # the table cannot go on (a dealer-entered shoe ran out, ...)
        raise PlayRefused(tr.error(exc, money), exc.code) from exc


__all__ = ["FACES", "PlayRefused", "load_settings_file", "run_play"]
