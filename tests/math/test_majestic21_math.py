"""Exact Majestic 21 side-bet and insurance math (src/tapete/math/majestic21.py): hand-computed
one-deck figures, a brute force over the real cards of the pack, and the house's sign."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tapete.cards import BJ_VALUE, pack, parse_cards
from tapete.errors import BadCards, InvalidRules
from tapete.math.majestic21 import (
    SIDE_BETS,
    analyze_majestic_side_bets,
    exactly_13,
    insurance,
    insurance_ace,
    insurance_ten,
    majestic_side_bets_json,
    over_13,
    two_card_totals,
    under_13,
    value_counts,
)

ONE_DECK_PAIRS = 52 * 51  # 2652 ordered two-card sequences


# --- one deck, by hand -------------------------------------------------------------------------------


def test_exactly_13_one_deck_by_hand() -> None:
    # 13 = 3+T (T/J/Q/K: 16 cards), 4+9, 5+8, 6+7, each in two orders
    ways = 2 * (4 * 16) + 2 * (4 * 4) + 2 * (4 * 4) + 2 * (4 * 4)
    assert ways == 224
    bet = exactly_13(1)
    assert bet["outcomes"]["win"] == Fraction(224, ONE_DECK_PAIRS) == Fraction(56, 663)
    # pays 10:1: edge = P(lose) - 10 P(win) = 1 - 11 * 56/663 = 47/663
    assert bet["house_edge"] == Fraction(47, 663)


def test_two_aces_one_deck_by_hand() -> None:
    bet = under_13(1)
    assert bet["outcomes"]["win_two_aces"] == Fraction(4 * 3, ONE_DECK_PAIRS) == Fraction(1, 221)


def test_over_13_one_deck_by_hand() -> None:
    # Over 13 wins on 14-20. Unordered value pairs {a, b} with a + b >= 14 (Aces = 1):
    #   T with 4..T: 4..9 -> 6 values x 16 x 4 x 2 orders = 768; T+T: 16 x 15 = 240
    #   9 with 5..9: 5..8 -> 4 x 4 x 4 x 2 = 128; 9+9: 4 x 3 = 12
    #   8 with 6..8: 6, 7 -> 2 x 16 x 2 = 64; 8+8: 12
    #   7 with 7: 12
    ways = 768 + 240 + 128 + 12 + 64 + 12 + 12
    assert ways == 1236
    bet = over_13(1)
    assert bet["outcomes"]["win"] == Fraction(1236, ONE_DECK_PAIRS)
    assert bet["house_edge"] == 1 - 2 * Fraction(1236, ONE_DECK_PAIRS) == Fraction(15, 221)


def test_under_13_one_deck_from_the_two_counts_above() -> None:
    # below 13 = everything that is neither 13 nor above 13
    below = ONE_DECK_PAIRS - 224 - 1236
    assert below == 1192
    bet = under_13(1)
    assert bet["outcomes"]["win"] + bet["outcomes"]["win_two_aces"] == Fraction(below, ONE_DECK_PAIRS)
    # EV = (1192 - 12) * 1 + 12 * 3/2 - (224 + 1236)
    ev = Fraction(1192 - 12) + Fraction(3, 2) * 12 - (224 + 1236)
    assert bet["house_edge"] == -ev / ONE_DECK_PAIRS == Fraction(131, 1326)


def test_insurances_one_deck_by_hand() -> None:
    # Ace up: 16 tens among the 51 other cards, pays 2:1 -> edge 1 - 3 * 16/51 = 1/17
    ace = insurance_ace(1)
    assert ace["outcomes"]["win"] == Fraction(16, 51)
    assert ace["house_edge"] == Fraction(1, 17)
    # Ten up: 4 Aces among 51, pays 10:1 -> edge 1 - 11 * 4/51 = 7/51
    ten = insurance_ten(1)
    assert ten["outcomes"]["win"] == Fraction(4, 51)
    assert ten["house_edge"] == Fraction(7, 51)


def test_insurance_given_the_players_cards() -> None:
    # Ace up, player holds T K: 14 tens among 49 -> edge 1 - 3 * 14/49 = 1/7
    assert insurance_ace(1, parse_cards(["Td", "Kc"]))["house_edge"] == Fraction(1, 7)
    # Queen up, player holds two Aces: 2 Aces among 49 -> edge 1 - 11 * 2/49 = 27/49
    assert insurance(1, parse_cards(["Qh"])[0], parse_cards(["Ad", "Ac"]))["house_edge"] == Fraction(27, 49)
    # six decks, up-card only: 96 tens / 24 Aces among 311
    assert insurance_ace(6)["house_edge"] == 1 - 3 * Fraction(96, 311) == Fraction(23, 311)
    assert insurance_ten(6)["house_edge"] == 1 - 11 * Fraction(24, 311) == Fraction(47, 311)
    # any ten-valued up-card gives the same figure
    for up in parse_cards(["Ts", "Jh", "Qd", "Kc"]):
        assert insurance(6, up)["house_edge"] == Fraction(47, 311)


# --- brute force over the real cards -----------------------------------------------------------------


@pytest.mark.parametrize("decks", [1, 6])
def test_side_bets_match_brute_force_over_cards(decks: int) -> None:
    cards = pack(decks)
    n = len(cards)
    ev_under = ev_over = ev_exact = Fraction(0)
    for i, first in enumerate(cards):
        for j, second in enumerate(cards):
            if i == j:
                continue
            a, b = BJ_VALUE[first], BJ_VALUE[second]  # Ace = 1
            total = a + b
            ev_under += Fraction(3, 2) if a == b == 1 else (1 if total < 13 else -1)
            ev_over += 1 if total > 13 else -1
            ev_exact += 10 if total == 13 else -1
    pairs = n * (n - 1)
    assert under_13(decks)["house_edge"] == -ev_under / pairs
    assert over_13(decks)["house_edge"] == -ev_over / pairs
    assert exactly_13(decks)["house_edge"] == -ev_exact / pairs


@pytest.mark.parametrize("decks", range(1, 9))
def test_totals_and_outcomes_add_up(decks: int) -> None:
    n = 52 * decks
    assert sum(two_card_totals(decks).values()) == n * (n - 1)
    assert sum(value_counts(decks)) == n
    for name, bet in analyze_majestic_side_bets(decks).items():
        assert sum(bet["outcomes"].values()) == 1, name


@pytest.mark.parametrize("decks", range(1, 9))
def test_every_bet_favours_the_house(decks: int) -> None:
    for name, bet in analyze_majestic_side_bets(decks).items():
        assert bet["house_edge"] > 0, name
        assert isinstance(bet["house_edge"], Fraction)


def test_six_deck_figures() -> None:
    r = analyze_majestic_side_bets()
    assert r["under_13"]["house_edge"] == Fraction(791, 8086)
    assert r["over_13"]["house_edge"] == Fraction(265, 4043)
    assert r["exactly_13"]["house_edge"] == Fraction(347, 4043)


# --- errors and JSON ---------------------------------------------------------------------------------


def test_refusals() -> None:
    with pytest.raises(InvalidRules):
        analyze_majestic_side_bets(0)
    with pytest.raises(BadCards):
        insurance(6, parse_cards(["7s"])[0])  # no insurance against a 7
    with pytest.raises(BadCards):
        insurance_ace(1, parse_cards(["As", "Kd"]))  # a one-deck pack holds one As, already up


def test_json_shape() -> None:
    j = majestic_side_bets_json(6)
    assert j["game"] == "majestic21"
    assert j["rules"] == {"decks": 6}
    assert tuple(j["bets"]) == SIDE_BETS
    assert j["bets"]["insurance_ace"]["house_edge"] == round(23 / 311, 7)
    for bet in j["bets"].values():
        assert bet["exact"] is True
        assert isinstance(bet["house_edge"], float)
        assert sum(bet["outcomes"].values()) == pytest.approx(1.0)
