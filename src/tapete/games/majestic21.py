"""Majestic 21 as the reglamento of 21-10-2005 writes it (rules.md §4): the Black Jack round of
`tapete.games.blackjack` with three side bets and a second insurance, reached only through its hooks.

- Side bets (Art.1a) on each box's first two cards, Aces counted as 1: Under 13 (−) wins 1:1 below 13 and
  3:2 on two Aces; Over 13 (+) wins 1:1 above 13; Exactly 13 (13) pays 10:1. They are settled once the deal
  is complete, before any offer, so no split, double, surrender or dealer Black Jack can touch them.
- Insurance (Art.2a.2): with an Ace up it pays 2:1 on a ten-value hole card (as Black Jack Art.10); with a
  10, J, Q or K up it pays 10:1 on an Ace in the hole, with the same half-bet cap and timing, after the
  surrender offers. A Black Jack box is offered even money with an Ace up and nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from tapete.cards import BJ_VALUE, Card
from tapete.errors import IllegalAction
from tapete.games.blackjack import BlackjackRound, is_ten
from tapete.money import EVEN, THREE_TO_TWO, TWO_TO_ONE, Ratio
from tapete.rules.blackjack import BlackjackRules, Majestic21Rules

UNDER_13 = "under_13"
OVER_13 = "over_13"
EXACTLY_13 = "exactly_13"
SIDE_BETS: tuple[str, ...] = (UNDER_13, OVER_13, EXACTLY_13)
#: Art.1a: Exactly 13 pays 10 to 1.
TEN_TO_ONE = Ratio(10, 1)
#: Art.2a.2: insurance against an Ace with a 10, J, Q or K up pays 10 to 1.
INSURANCE_TEN_PAYS = TEN_TO_ONE


def side_total(cards: Sequence[Card]) -> int:
    """Total of the box's first two cards for the side bets, every Ace counted as 1 (Art.1a)."""
    return BJ_VALUE[cards[0]] + BJ_VALUE[cards[1]]


def side_bet_ratio(spot: str, cards: Sequence[Card]) -> Ratio | None:
    """What side bet `spot` pays on the box's first two `cards` (Art.1a), or None when it loses.

    Under 13: below 13 wins 1:1, two Aces 3:2, 13 or more loses. Over 13: above 13 wins 1:1, 13 or less
    loses. Exactly 13: 13 pays 10:1, anything else loses.
    """
    total = side_total(cards)
    if spot == UNDER_13:
        if total >= 13:
            return None
        return THREE_TO_TWO if BJ_VALUE[cards[0]] == BJ_VALUE[cards[1]] == 1 else EVEN
    if spot == OVER_13:
        return EVEN if total > 13 else None
    if spot == EXACTLY_13:
        return TEN_TO_ONE if total == 13 else None
    raise ValueError(f"unknown Majestic 21 side bet {spot!r}")


class Majestic21Round(BlackjackRound):
    """One round of Majestic 21: Black Jack's round plus the (−), (+), (13) side bets and the insurance
    against an Ace under a ten."""

    GAME: ClassVar[str] = "majestic_21"
    SIDE_SPOTS: ClassVar[tuple[str, ...]] = SIDE_BETS
    SPOTS: ClassVar[tuple[str, ...]] = ("main", *SIDE_BETS)

    @classmethod
    def _limits(cls, rules: BlackjackRules, spot: str) -> tuple[int, int]:
        """A side bet's own limits (operator settings side_bet_min/max, the table's by default)."""
        if isinstance(rules, Majestic21Rules):
            return rules.side_limits
        return rules.table_min, rules.table_max

    def _refuse_exposed(self) -> None:
        """No Majestic 21 page has Black Jack's Art.8: the deal follows Black Jack by rules.md §4 [A]."""
        raise IllegalAction(
            "only the dealer's second card can be exposed by error (rules.md §4 [A]: Majestic 21 deals as "
            "Black Jack does)",
            key="err.step.exposed_m21",
        )

    def _after_deal(self) -> None:
        """Art.1a: every box now has its first two cards; settle its side bets, seat by seat."""
        for box in self.boxes:
            cards = box.hands[0].cards
            for spot in self.SIDE_SPOTS:
                bet = box.side.get(spot)
                if bet is None:
                    continue
                ratio = side_bet_ratio(spot, cards)
                bet[1] = self._pay(
                    box.holder, bet[0], ratio, "lose" if ratio is None else "win", box.seat, spot
                )

    def _insurance_kind(self) -> str | None:
        """Art.2a.2: 'ace' with an Ace up (pays 2:1), 'ten' with a 10, J, Q or K up (pays 10:1)."""
        up = BJ_VALUE[self.dealer[0]]
        if up == 1:
            return "ace"
        if up == 10:
            return "ten"
        return None

    def _insurance_ratio(self, kind: str) -> Ratio:
        """Art.2a.2: "Seguro con As paga dos por uno, seguro con 10,J,Q,K paga 10 a 1"."""
        return INSURANCE_TEN_PAYS if kind == "ten" else TWO_TO_ONE

    def _insurance_wins(self, kind: str) -> bool:
        """Ace up: the hole card is ten-valued; ten up: the hole card is an Ace."""
        hole = self.dealer[1]
        return BJ_VALUE[hole] == 1 if kind == "ten" else is_ten(hole)

    def insurance_kind(self) -> str | None:
        """Which insurance the up-card allows ('ace', 'ten' or None), for front ends that word the offer."""
        return self._insurance_kind() if self.dealer else None
