"""A table in session: settings, a shoe, seats, the hash-chained log and one round after another.

This is what a live table, the terminal table, the server and the simulators share. It enforces the
live-table rules of the card source (rules.md §0: CSPRNG only, or a declared dealer-entered shoe), the
Art.6 reshuffle when the cut card came out, deals the cards each round waits for from its source (the
dealer loop of `tapete.dealer`), and writes every step's events to the log as they are handed out.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tapete.dealer import deal
from tapete.games import round_class
from tapete.games.base import CARD, Event, Round, Step
from tapete.log import EventLog
from tapete.rules import load_rules
from tapete.rules.common import CommonRules
from tapete.shoe import CardSource, RandomSource, SecureRandom, Shoe, check_live_source
from tapete.table import RawBet, place_bets


def make_shoe(rules: CommonRules, rng: RandomSource, *, live: bool) -> Shoe:
    """The virtual shoe for `rules`' game: cut window and burn from the settings (Art.5)."""
    depth: int | None = getattr(rules, "cut_depth", None)
    burn: int | str = getattr(rules, "burn", 1)
    one_handed = rules.game == "showdown_poker"
    return Shoe(rules.decks, rng, cut_card_depth=depth, burn=burn, live=live, one_handed_cut=one_handed)


class TableSession:
    """Rounds of one game at one table. ``live=True`` refuses any source but the CSPRNG shoe or a
    dealer-entered shoe. ``log=False`` keeps no log at all (simulations, benchmarks)."""

    def __init__(
        self,
        game: str,
        settings: dict[str, Any] | CommonRules | None = None,
        *,
        live: bool = True,
        rng: RandomSource | None = None,
        source: CardSource | None = None,
        log: EventLog | str | Path | bool | None = None,
    ) -> None:
        self.game = game
        self.rules = settings if isinstance(settings, CommonRules) else load_rules(game, settings)
        self.live = live
        if source is None:
            source = make_shoe(self.rules, rng or SecureRandom(), live=live)
        check_live_source(source, live=live)
        self.source = source
        self.log: EventLog | None
        if log is False:
            self.log = None
        elif isinstance(log, EventLog):
            self.log = log
        else:
            self.log = EventLog(log if isinstance(log, str | Path) else None)
        self.round_class = round_class(game)
        self.bet_spec = self.round_class.bet_spec(self.rules)  # the rules never change in a session
        # The next round's number follows the highest logged (shoe-N records are not rounds).
        self.round_no = self.log.last_round if self.log is not None else 0
        self.current: Round | None = None
        self._dealt_since_shuffle = False
        self._shoe_seen = 0
        if getattr(source, "events", None):
            self._flush_shoe_events()

    def _record(self, round_id: int | str, events: Sequence[Event]) -> None:
        if self.log is not None and events:
            self.log.extend(round_id, events)

    def _flush_shoe_events(self) -> None:
        events: list[Event] = getattr(self.source, "events", [])
        new = events[self._shoe_seen :]
        self._record(f"shoe-{self.round_no}", new)
        self._shoe_seen = len(events)

    def start_round(self, bets: Sequence[RawBet], **options: Any) -> Round:
        """Check the bets, prepare the shoe (Art.6 when the cut card came out), open a new round and deal
        its cards up to the first decision. `options` go to the round (Punto y Banca: ``shoe_holder``)."""
        boxes = place_bets(bets, self.bet_spec)
        source: Any = self.source
        if getattr(source, "cut_card_out", False) and hasattr(source, "prepare_round"):
            source.prepare_round()
            self._flush_shoe_events()
        elif self._dealt_since_shuffle and getattr(self.round_class, "SHUFFLE_EVERY_ROUND", False):
            reshuffle = getattr(source, "reshuffle", None)
            if reshuffle is not None:  # Showdown Art.7: shuffle and cut before every round
                reshuffle()
                self._flush_shoe_events()
        self._dealt_since_shuffle = True
        self.round_no += 1
        rnd = self.round_class(self.rules, boxes, round_id=self.round_no, **options)
        self.current = rnd
        if self.log is None:
            rnd.deal_from(self.source.draw)
            return rnd
        self._record(self.round_no, rnd.events)
        self.deal()
        return rnd

    def deal(self) -> list[Event]:
        """Deal from the source every card the current round waits for, and log them (also those dealt
        before a source that runs out stops the deal)."""
        rnd = self.current
        if rnd is None:
            return []
        if self.log is None:
            return deal(rnd, self.source)
        start = len(rnd.events)
        try:
            deal(rnd, self.source)
        finally:
            self._record(self.round_no, rnd.events[start:])
        return rnd.events[start:]

    def apply(self, step: Step) -> list[Event]:
        """Take a holder's decision (or a card) on the current round, log it, and deal what follows."""
        rnd = self.current
        if rnd is None:
            raise RuntimeError("no round in progress")
        start = len(rnd.events)
        if self.log is None:
            rnd.apply(step)
            p = rnd.pending
            if p is not None and p.kind == CARD:
                rnd.deal_from(self.source.draw)
        else:
            self._record(self.round_no, rnd.apply(step))
            self.deal()
        return rnd.events[start:]

    def finish_round(self) -> None:
        """Close the finished round: log the shoe's procedures it caused (the cut card coming out)."""
        rnd = self.current
        if rnd is None or not rnd.finished:
            raise RuntimeError("the round is not finished")
        self._flush_shoe_events()
        self.current = None

    @property
    def last_round_of_shoe(self) -> bool:
        """True when the cut card came out: the next round begins with a reshuffle (Art.6)."""
        return bool(getattr(self.source, "cut_card_out", False))
