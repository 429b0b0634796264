"""A table in session: settings, a shoe, seats, the hash-chained log and one round after another.

This is what a live table, the terminal table, the server and the simulators share. It enforces the
live-table rules of the card source (rules.md §0: CSPRNG only, or a declared dealer-entered shoe), the
Art.6 reshuffle when the cut card came out, and writes every round's events to the log.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tapete.games import round_class
from tapete.log import EventLog
from tapete.rules import load_rules
from tapete.rules.common import CommonRules
from tapete.shoe import CardSource, RandomSource, SecureRandom, Shoe, check_live_source
from tapete.table import RawBet, place_bets


def make_shoe(rules: CommonRules, rng: RandomSource, *, live: bool) -> Shoe:
    """The virtual shoe for `rules`' game: cut window and burn from the settings (Art.5)."""
    depth = getattr(rules, "cut_depth", None)
    burn = getattr(rules, "burn", 1)
    one_handed = rules.game == "showdown_poker"
    return Shoe(rules.decks, rng, cut_card_depth=depth, burn=burn, live=live, one_handed_cut=one_handed)


class TableSession:
    """Rounds of one game at one table. ``live=True`` refuses any source but the CSPRNG shoe or a
    dealer-entered stacked shoe."""

    def __init__(
        self,
        game: str,
        settings: dict[str, Any] | CommonRules | None = None,
        *,
        live: bool = True,
        rng: RandomSource | None = None,
        source: CardSource | None = None,
        log: EventLog | str | Path | None = None,
    ) -> None:
        self.game = game
        self.rules = settings if isinstance(settings, CommonRules) else load_rules(game, settings)
        self.live = live
        if source is None:
            source = make_shoe(self.rules, rng or SecureRandom(), live=live)
        check_live_source(source, live=live)
        self.source = source
        self.log = log if isinstance(log, EventLog) else EventLog(log)
        self.round_class = round_class(game)
        self.round_no = len(self.log.rounds())
        self.current: Any = None
        self._dealt_since_shuffle = False
        shoe_events = getattr(source, "events", None)
        self._shoe_seen = 0
        if shoe_events:
            self._flush_shoe_events()

    def _flush_shoe_events(self) -> None:
        events = getattr(self.source, "events", [])
        new = events[self._shoe_seen :]
        if new:
            self.log.extend(f"shoe-{self.round_no}", new)
        self._shoe_seen = len(events)

    def start_round(self, bets: Sequence[RawBet], **options: Any) -> Any:
        """Check the bets, prepare the shoe (Art.6 when the cut card came out) and deal a new round.
        `options` go to the round (Punto y Banca: ``shoe_holder``, the zone holding the shoe)."""
        boxes = place_bets(bets, self.round_class.bet_spec(self.rules))
        if getattr(self.source, "cut_card_out", False) and hasattr(self.source, "prepare_round"):
            self.source.prepare_round()
            self._flush_shoe_events()
        elif self._dealt_since_shuffle and getattr(self.round_class, "SHUFFLE_EVERY_ROUND", False):
            reshuffle = getattr(self.source, "reshuffle", None)
            if reshuffle is not None:  # Showdown Art.7: shuffle and cut before every round
                reshuffle()
                self._flush_shoe_events()
        self._dealt_since_shuffle = True
        self.round_no += 1
        self.current = self.round_class(self.rules, self.source, boxes, round_id=self.round_no, **options)
        return self.current

    def finish_round(self) -> None:
        """Write the finished round's events (and any shoe procedure it caused) to the log."""
        rnd = self.current
        if rnd is None or not rnd.finished:
            raise RuntimeError("the round is not finished")
        self.log.extend(self.round_no, rnd.events)
        self._flush_shoe_events()
        self.current = None

    @property
    def last_round_of_shoe(self) -> bool:
        """True when the cut card came out: the next round begins with a reshuffle (Art.6)."""
        return bool(getattr(self.source, "cut_card_out", False))
