"""Exact Punto y Banca math (src/tapete/math/baccarat.py) against published figures, the Art.11 text
written out as a table, and two independent brute-force counts."""

from __future__ import annotations

import time
from fractions import Fraction
from itertools import permutations

import numpy as np
import pytest

from tapete.cards import BACCARAT_VALUE, pack
from tapete.errors import BadCards, InvalidRules
from tapete.math import baccarat
from tapete.math.baccarat import (
    analyze_baccarat,
    banca_draws,
    class_counts,
    count_outcomes,
    falling,
    is_natural,
    play_coup,
    punto_draws,
)

# Art.11 (rules.md §2), Banca's decision written out by hand. Rows: Banca's two-card total 0-7 (8 and 9 are
# naturals). Columns: "-" = Punto stood, then the value x of Punto's third card 0..9. D = draw, S = stand.
#   Punto stood: Banca draws on 0-5, stands on 6-7.
#   Punto drew x: 0-2 draws; 3 draws unless x = 8; 4 draws when x is 2-7; 5 when x is 4-7;
#   6 when x is 6 or 7; 7 stands.
#                  -  0123456789
BANCA_TABLE = {
    0: "D" + "DDDDDDDDDD",
    1: "D" + "DDDDDDDDDD",
    2: "D" + "DDDDDDDDDD",
    3: "D" + "DDDDDDDDSD",
    4: "D" + "SSDDDDDDSS",
    5: "D" + "SSSSDDDDSS",
    6: "S" + "SSSSSSDDSS",
    7: "S" + "SSSSSSSSSS",
}
# Punto's decision on his two-card total 0..9 when nobody has a natural (8, 9 are naturals: "N").
PUNTO_ROW = "DDDDDDSSNN"

N8 = 416 * 415 * 414 * 413 * 412 * 411
PUBLISHED_8 = (2_292_252_566_437_888, 2_230_518_282_592_256, 475_627_426_473_216)  # Banca, Punto, tie


def _table_col(x: int | None) -> int:
    return 0 if x is None else x + 1


# --- drawing rule ------------------------------------------------------------------------------------


def test_drawing_rule_matches_written_table_for_every_state() -> None:
    """Every Punto total 0-9 x Banca total 0-9 x Punto third card none/0-9: who draws."""
    checked = 0
    for p2 in range(10):
        for b2 in range(10):
            for x in (None, *range(10)):
                natural = p2 >= 8 or b2 >= 8
                assert (is_natural(p2) or is_natural(b2)) is natural
                if natural:
                    # nobody draws; the functions themselves never draw on 8/9 either
                    assert PUNTO_ROW[p2] == "N" or BANCA_TABLE.get(b2) is None
                    if p2 >= 8:
                        assert punto_draws(p2) is False
                    if b2 >= 8:
                        assert banca_draws(b2, x) is False
                    checked += 1
                    continue
                assert punto_draws(p2) is (PUNTO_ROW[p2] == "D")
                assert banca_draws(b2, x) is (BANCA_TABLE[b2][_table_col(x)] == "D")
                checked += 1
    assert checked == 10 * 10 * 11


def test_drawing_rule_rejects_impossible_totals() -> None:
    with pytest.raises(ValueError):
        punto_draws(10)
    with pytest.raises(ValueError):
        banca_draws(3, 10)
    with pytest.raises(ValueError):
        banca_draws(-1, None)


def test_play_coup_examples() -> None:
    # naturals: Punto 4+4 = 8, nobody draws
    assert play_coup([4, 0, 4, 5, 9, 9]) == ((4, 4), (0, 5))
    # Punto 6 stands, Banca 5 draws
    assert play_coup([3, 2, 3, 3, 7, 9]) == ((3, 3), (2, 3, 7))
    # Punto 2 draws an 8; Banca 3 stands on x = 8
    assert play_coup([1, 1, 1, 2, 8, 9]) == ((1, 1, 8), (1, 2))
    # Punto 0 draws a 6; Banca 6 draws on x = 6
    assert play_coup([0, 3, 0, 3, 6, 1]) == ((0, 0, 6), (3, 3, 1))
    # both 7: both stand, only four cards needed
    assert play_coup([3, 2, 4, 5]) == ((3, 4), (2, 5))
    with pytest.raises(BadCards):
        play_coup([0, 0, 0, 0])


# --- published figures -------------------------------------------------------------------------------


def test_eight_deck_counts_are_the_published_ones() -> None:
    a = analyze_baccarat(8)
    assert (a.banca_wins, a.punto_wins, a.ties) == PUBLISHED_8
    assert a.total == N8 == a.banca_wins + a.punto_wins + a.ties


def test_eight_deck_edges_are_the_published_ones() -> None:
    a = analyze_baccarat(8)
    assert round(float(a.edge_banca) * 100, 4) == 1.0579
    assert round(float(a.edge_punto) * 100, 4) == 1.2351
    assert round(float(a.edge_empate) * 100, 4) == 14.3596
    # the same edges straight from the integers, exactly
    b, p, t = PUBLISHED_8
    assert a.edge_punto == Fraction(b - p, N8)
    assert a.edge_banca == Fraction(100 * p - 95 * b, 100 * N8)
    assert a.edge_empate == Fraction(b + p - 8 * t, N8)


@pytest.mark.parametrize(
    ("decks", "banca", "punto", "empate"),
    [(1, 1.0117, 1.2864, 15.7461), (6, 1.0558, 1.2374, 14.4382)],
)
def test_other_published_edges(decks: int, banca: float, punto: float, empate: float) -> None:
    a = analyze_baccarat(decks)
    assert round(float(a.edge_banca) * 100, 4) == banca
    assert round(float(a.edge_punto) * 100, 4) == punto
    assert round(float(a.edge_empate) * 100, 4) == empate


@pytest.mark.parametrize("decks", range(1, 9))
def test_counts_sum_to_falling_factorial(decks: int) -> None:
    a = analyze_baccarat(decks)
    n = 52 * decks
    assert a.total == n * (n - 1) * (n - 2) * (n - 3) * (n - 4) * (n - 5) == falling(n, 6)
    assert a.banca_wins + a.punto_wins + a.ties == a.total
    assert a.p_banca + a.p_punto + a.p_tie == 1


@pytest.mark.parametrize("decks", range(1, 9))
def test_all_edges_favour_the_house_under_defaults(decks: int) -> None:
    a = analyze_baccarat(decks)
    assert a.edge_punto > 0
    assert a.edge_banca > 0
    assert a.edge_empate > 0
    # Banca wins more often than Punto; the commission is what makes it a house bet
    assert a.banca_wins > a.punto_wins


def test_settings_move_edges_the_right_way() -> None:
    base = analyze_baccarat(8)
    no_commission = analyze_baccarat(8, commission_percent=0)
    assert no_commission.edge_banca < 0 < base.edge_banca  # Banca at evens is a player bet
    assert no_commission.edge_punto == base.edge_punto
    nine = analyze_baccarat(8, tie_pays=9)
    assert nine.edge_empate == base.edge_empate - base.p_tie
    assert round(float(nine.edge_empate) * 100, 4) == 4.8440  # published 9:1 figure


def test_invalid_settings_are_refused() -> None:
    with pytest.raises(InvalidRules):
        analyze_baccarat(0)
    with pytest.raises(InvalidRules):
        analyze_baccarat(8, commission_percent=101)
    with pytest.raises(InvalidRules):
        analyze_baccarat(8, tie_pays=-1)
    with pytest.raises(BadCards):
        count_outcomes([1, 1, 1, 1, 1, 0, 0, 0, 0, 0])


def test_to_json_shape() -> None:
    j = analyze_baccarat(8).to_json()
    assert j["game"] == "punto_y_banca"
    assert j["rules"] == {"decks": 8, "commission_percent": 5, "tie_pays": 8}
    assert j["counts"] == {"punto": PUBLISHED_8[1], "banca": PUBLISHED_8[0], "empate": PUBLISHED_8[2]}
    assert j["bets"]["punto"]["house_edge"] == 0.0123508
    assert j["bets"]["banca"]["house_edge"] == 0.0105791
    assert j["bets"]["empate"]["house_edge"] == 0.1435963
    for name in ("punto", "banca", "empate"):
        bet = j["bets"][name]
        assert bet["exact"] is True
        assert set(bet["outcomes"]) == {"win", "push", "lose"}
        assert isinstance(bet["house_edge"], float)
        assert sum(bet["outcomes"].values()) == pytest.approx(1.0)


def test_eight_decks_well_under_a_second() -> None:
    baccarat._count_cached.cache_clear()
    start = time.perf_counter()
    analyze_baccarat(8)
    assert time.perf_counter() - start < 0.5


# --- independent brute force -------------------------------------------------------------------------


def _brute_force_by_values(decks: int) -> tuple[int, int, int]:
    """All 10^6 ordered sequences of six VALUES, each weighted by its number of card sequences, played
    with the table above (vectorised, no code shared with the module)."""
    counts = np.array(class_counts(decks), dtype=np.int64)
    grid = np.indices((10,) * 6).reshape(6, -1).T  # (10^6, 6), every value sequence
    weight = np.ones(len(grid), dtype=np.int64)
    for i in range(6):
        earlier_same = (grid[:, :i] == grid[:, i : i + 1]).sum(axis=1)
        weight *= np.maximum(counts[grid[:, i]] - earlier_same, 0)
    p2 = (grid[:, 0] + grid[:, 2]) % 10
    b2 = (grid[:, 1] + grid[:, 3]) % 10
    natural = (p2 >= 8) | (b2 >= 8)
    p_draw = ~natural & (np.array([c == "D" for c in PUNTO_ROW])[p2])
    table = np.array([[c == "D" for c in BANCA_TABLE.get(b, "S" * 11)] for b in range(10)])
    col = np.where(p_draw, grid[:, 4] + 1, 0)
    b_draw = ~natural & table[b2, col]
    b_third = np.where(p_draw, grid[:, 5], grid[:, 4])
    pf = np.where(p_draw, (p2 + grid[:, 4]) % 10, p2)
    bf = np.where(b_draw, (b2 + b_third) % 10, b2)
    return (
        int(weight[bf > pf].sum()),
        int(weight[pf > bf].sum()),
        int(weight[pf == bf].sum()),
    )


@pytest.mark.parametrize("decks", [1, 8])
def test_matches_brute_force_over_all_value_sequences(decks: int) -> None:
    assert _brute_force_by_values(decks) == count_outcomes(class_counts(decks))


def test_matches_brute_force_over_cards_of_a_small_pack() -> None:
    """Every ordered six of ten distinct cards (151,200 deals), played card by card with play_coup."""
    cards = [0, 0, 0, 1, 2, 3, 5, 6, 7, 9]
    result = [0, 0, 0]
    for seq in permutations(cards, 6):
        punto, banca = play_coup(seq)
        pt, bt = sum(punto) % 10, sum(banca) % 10
        result[0 if bt > pt else 1 if pt > bt else 2] += 1
    counts = [cards.count(v) for v in range(10)]
    assert tuple(result) == count_outcomes(counts)
    assert sum(result) == falling(10, 6)


def test_value_classes_match_the_card_table() -> None:
    one = pack(1)
    assert class_counts(1) == tuple(sum(1 for c in one if BACCARAT_VALUE[c] == v) for v in range(10))
