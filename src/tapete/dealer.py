"""Who answers a round's card steps: the virtual shoe's dealer loop, and a live table's dealer entering
the cards of a physical shoe (or a shoe reader posting them) one by one.

A round never draws (tapete.games.base): it waits for a card as its pending step. `deal` answers those
steps from a card source (the CSPRNG shoe, a scenario's stacked cards) until a holder must decide or the
round is over. `DealerEntered` is the live table's source: each card is checked against the pack as it
arrives (a card the pack cannot hold any more is `bad_cards` and changes nothing), and the dealer signals
the physical cut card himself.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from tapete.cards import NAMES, Card
from tapete.errors import BadCards
from tapete.games.base import Dealt, Event, Round
from tapete.shoe import CardSource


def deal(rnd: Round, source: CardSource) -> list[Event]:
    """Answer every card step `rnd` waits for with the next card of `source`, until it waits for a
    holder's decision or is over; return the events. A source that runs out raises BadCards before the
    round is touched, so the round stays as it was."""
    start = len(rnd.events)
    rnd.deal_from(source.draw)
    return rnd.events[start:]


class DealerEntered:
    """The cards of a physical shoe as the dealer enters them: each checked against the pack (no more
    copies of a card than the pack's decks hold, counted since the last shuffle). Built from what was
    dealt since that shuffle, so any server process can rebuild it from the table's events."""

    kind = "dealer_entered"
    dealer_entered = True

    def __init__(self, decks: int, dealt: Iterable[Card] = (), *, cut_card_out: bool = False) -> None:
        self.decks = decks
        self.seen: Counter[Card] = Counter(dealt)
        self.cut_card_out = cut_card_out
        self.events: list[Event] = []

    @property
    def dealt(self) -> int:
        """Cards out of the shoe since the last shuffle."""
        return sum(self.seen.values())

    def check(self, card: Card) -> None:
        """BadCards unless the pack can still hold `card` (rules.md §0: each card once per deck)."""
        if self.seen[card] >= self.decks:
            raise BadCards(
                f"{NAMES[card]}: the pack of {self.decks} deck(s) holds {self.decks} of it and all were "
                "dealt since the shuffle",
                key="err.cards.too_many",
                card=NAMES[card],
                count=self.seen[card] + 1,
                decks=self.decks,
            )

    def post(self, rnd: Round, card: Card, *, exposed: bool = False) -> list[Event]:
        """The dealer's next card for `rnd`'s pending card step: checked by the pack and by the round
        first, then taken. A refusal (BadCards, a round not waiting for a card) changes nothing."""
        self.check(card)
        step = Dealt(card, exposed)
        rnd.verify(step)
        events = rnd.apply(step)
        self.seen[card] += 1
        return events

    def burn(self, cards: Iterable[Card]) -> None:
        """Burned cards the dealer named (a shoe reader reads them): counted against the pack."""
        cards = list(cards)
        trial = self.seen.copy()
        for c in cards:
            trial[c] += 1
            if trial[c] > self.decks:
                raise BadCards(
                    f"{NAMES[c]}: the pack cannot hold another",
                    key="err.cards.too_many",
                    card=NAMES[c],
                    count=trial[c],
                    decks=self.decks,
                )
        self.seen = trial

    def signal_cut_card(self) -> Event:
        """The dealer saw the physical cut card: the round in progress is the shoe's last (Art.6)."""
        self.cut_card_out = True
        event: Event = {"type": "cut_card_out", "dealt": self.dealt, "by": "dealer"}
        self.events.append(event)
        return event

    def shuffled(self) -> None:
        """A new pack or a shuffle: every card may come again, the cut card is back in the shoe."""
        self.seen.clear()
        self.cut_card_out = False

    def draw(self) -> Card:
        """Never: a dealer-entered shoe is posted to, card by card (`post`)."""
        raise BadCards("the dealer enters this shoe's cards one by one", key="err.cards.dealer_entered")
