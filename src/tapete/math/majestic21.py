"""Exact Majestic 21 side-bet and insurance math (M21 Art.1a, 2a.2; rules.md §4).

Side bets are settled on the box's first two cards with Aces counted as 1: Under 13 (total below 13 wins
1:1, two Aces pay 3:2), Over 13 (above 13 wins 1:1), Exactly 13 (pays 10:1). They are computed over the
ordered pairs of cards of a full pack of `decks` decks. By exchangeability of a shuffled pack, any two
fixed positions of the shoe (the box's first and second cards, whatever is burned or dealt between them)
have the same joint distribution as the first two cards, so this is the exact edge of the bet.

Insurances: with an Ace up, ``insurance_ace`` pays 2:1 if the dealer's other card is ten-valued; with a
10/J/Q/K up, ``insurance_ten`` pays 10:1 if it is an Ace. Modelling choice: the bet is valued given the
up-card ONLY, so the dealer's other card is uniform over the pack less the up-card (the edge for a
bettor who insures regardless of any other card seen, averaged over everything else on the table; it
does not matter whether the card is dealt now or after the boxes play, nor whether cards were burned).
`insurance` also takes the box's own two cards, and then removes them too: the edge conditional on what
that player holds.

Every probability and edge is an exact Fraction; edges are expected loss per unit staked on the bet,
positive when the house gains.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from fractions import Fraction
from typing import Any, TypedDict

from tapete.cards import BJ_VALUE, DECK_SIZE, Card, check_can_hold, parse_card
from tapete.errors import BadCards, InvalidRules

__all__ = [
    "SIDE_BETS",
    "BetMath",
    "analyze_majestic_side_bets",
    "exactly_13",
    "insurance",
    "insurance_ace",
    "insurance_as_offered",
    "insurance_ten",
    "majestic_side_bets_json",
    "over_13",
    "two_card_totals",
    "under_13",
    "value_counts",
]

#: Machine names of the bets this module values, in display order (issue 6).
SIDE_BETS = ("under_13", "over_13", "exactly_13", "insurance_ace", "insurance_ten")

_ACE_UP = parse_card("As")
_TEN_UP = parse_card("Ks")


class BetMath(TypedDict):
    """One bet's exact result: house edge per unit staked and the probability of each outcome."""

    house_edge: Fraction
    outcomes: dict[str, Fraction]


def value_counts(decks: int, removed: Sequence[Card] = ()) -> tuple[int, ...]:
    """Cards of each Black Jack value in a pack of `decks` decks less the `removed` cards.

    Indexed by value with the Ace as 1 (index 0 is always 0): ``counts[10]`` is the ten-valued cards.
    """
    if decks < 1:
        raise InvalidRules(f"a pack needs at least one deck, got {decks}")
    check_can_hold(removed, decks)
    counts = [0] * 11
    for card in range(DECK_SIZE):
        counts[BJ_VALUE[card]] += decks
    for card in removed:
        counts[BJ_VALUE[card]] -= 1
    return tuple(counts)


def two_card_totals(decks: int) -> dict[int, int]:
    """Ordered two-card sequences of a full pack by hard total (Aces = 1), totals 2-20; they sum to
    N (N-1) with N = 52 * decks. Why: every side bet is a function of this distribution (and of A-A)."""
    c = value_counts(decks)
    out: dict[int, int] = {}
    for a in range(1, 11):
        for b in range(1, 11):
            ways = c[a] * (c[b] - (a == b))
            out[a + b] = out.get(a + b, 0) + ways
    return out


def _pairs(decks: int) -> tuple[dict[int, int], int, int]:
    totals = two_card_totals(decks)
    aces = value_counts(decks)[1]
    return totals, aces * (aces - 1), sum(totals.values())


def under_13(decks: int = 6) -> BetMath:
    """Under 13 (−): total below 13 wins 1:1, two Aces pay 3:2, 13 or more loses."""
    totals, ace_pairs, n = _pairs(decks)
    win_two_aces = Fraction(ace_pairs, n)
    win = Fraction(sum(w for t, w in totals.items() if t < 13), n) - win_two_aces
    lose = Fraction(sum(w for t, w in totals.items() if t >= 13), n)
    return {
        "house_edge": lose - win - Fraction(3, 2) * win_two_aces,
        "outcomes": {"win": win, "win_two_aces": win_two_aces, "lose": lose},
    }


def over_13(decks: int = 6) -> BetMath:
    """Over 13 (+): total above 13 wins 1:1; 13 or less loses."""
    totals, _, n = _pairs(decks)
    win = Fraction(sum(w for t, w in totals.items() if t > 13), n)
    lose = 1 - win
    return {"house_edge": lose - win, "outcomes": {"win": win, "lose": lose}}


def exactly_13(decks: int = 6) -> BetMath:
    """Exactly 13: a two-card total of exactly 13 pays 10:1; anything else loses."""
    totals, _, n = _pairs(decks)
    win = Fraction(totals.get(13, 0), n)
    lose = 1 - win
    return {"house_edge": lose - 10 * win, "outcomes": {"win": win, "lose": lose}}


def insurance(decks: int, up_card: Card, player_cards: Sequence[Card] = ()) -> BetMath:
    """Insurance against the dealer's `up_card` (Art.2a.2): Ace up pays 2:1 on a ten-valued other card;
    10/J/Q/K up pays 10:1 on an Ace. The other card is uniform over the pack less the up-card and less
    `player_cards` (pass the box's two cards to condition on them, or nothing for the up-card-only edge)."""
    up_value = BJ_VALUE[up_card]
    if up_value == 1:
        target, pays = 10, 2
    elif up_value == 10:
        target, pays = 1, 10
    else:
        raise BadCards(f"insurance is offered only with an Ace or a 10/J/Q/K up, not value {up_value}")
    counts = value_counts(decks, (up_card, *player_cards))
    unseen = sum(counts)
    win = Fraction(counts[target], unseen)
    lose = 1 - win
    return {"house_edge": lose - pays * win, "outcomes": {"win": win, "lose": lose}}


def insurance_ace(decks: int = 6, player_cards: Sequence[Card] = ()) -> BetMath:
    """Insurance with an Ace up (pays 2:1 if the other card is ten-valued), given the up-card only
    unless the box's `player_cards` are passed."""
    return insurance(decks, _ACE_UP, player_cards)


def insurance_ten(decks: int = 6, player_cards: Sequence[Card] = ()) -> BetMath:
    """Insurance with a 10/J/Q/K up (pays 10:1 if the other card is an Ace), given the up-card only
    unless the box's `player_cards` are passed. Which ten-valued rank is up does not matter."""
    return insurance(decks, _TEN_UP, player_cards)


def insurance_as_offered(decks: int, up_card: Card, retired: Collection[tuple[int, int]] = ()) -> BetMath:
    """Insurance valued as the table OFFERS it: never to a Black Jack box (it is offered even money, or
    nothing, instead: BJ Art.13) nor to a box that retired (Art.9 comes first), so the box's own two
    cards are not any two cards. `retired` holds the (value, value) pairs, Aces as 1 and 10/J/Q/K as
    10, that retire against this up-card (a strategy's retiro column). This is what a simulation of a
    bettor who insures every time he is asked measures; `insurance` (the up-card only) is the edge
    for a bettor who insures regardless of his cards."""
    up_value = BJ_VALUE[up_card]
    target, pays = (10, 2) if up_value == 1 else (1, 10)
    if up_value not in (1, 10):
        raise BadCards(f"insurance is offered only with an Ace or a 10/J/Q/K up, not value {up_value}")
    counts = list(value_counts(decks, (up_card,)))
    n = sum(counts)
    out = set()
    for a, b in retired:
        out |= {(a, b), (b, a)}
    win = offered = Fraction(0)
    for a in range(1, 11):
        for b in range(1, 11):
            ways = counts[a] * (counts[b] - (a == b))
            if not ways or {a, b} == {1, 10} or (a, b) in out:
                continue
            left = counts[target] - (a == target) - (b == target)
            offered += ways
            win += Fraction(ways * left, n - 2)
    p = win / offered
    return {"house_edge": 1 - (pays + 1) * p, "outcomes": {"win": p, "lose": 1 - p}}


def analyze_majestic_side_bets(decks: int = 6) -> dict[str, BetMath]:
    """Exact house edge and outcome probabilities of every Majestic 21 side bet and insurance for a
    full pack of `decks` decks (the figures the operator declares; see the module docstring)."""
    return {
        "under_13": under_13(decks),
        "over_13": over_13(decks),
        "exactly_13": exactly_13(decks),
        "insurance_ace": insurance_ace(decks),
        "insurance_ten": insurance_ten(decks),
    }


def majestic_side_bets_json(decks: int = 6) -> dict[str, Any]:
    """The side-bet part of `tapete analyze majestic21 --json` (issue 6): floats rounded to 7 decimals,
    and each edge and probability also as the exact fraction (a string, ``"p/q"``)."""
    bets = {
        name: {
            "house_edge": round(float(bet["house_edge"]), 7),
            "house_edge_exact": str(bet["house_edge"]),
            "exact": True,
            "outcomes": {k: round(float(v), 7) for k, v in bet["outcomes"].items()},
            "outcomes_exact": {k: str(v) for k, v in bet["outcomes"].items()},
        }
        for name, bet in analyze_majestic_side_bets(decks).items()
    }
    return {"game": "majestic21", "rules": {"decks": decks}, "bets": bets}
