"""The five-card evaluator (rules.md §3 "hands rank as in standard poker"; SP Art.10-11 categories).

Checked against the known category counts and against two independent evaluators (phevaluator, pokerkit)
on every hand class and on random pairs of hands.
"""

from __future__ import annotations

import numpy as np
import pytest
from phevaluator import evaluate_cards
from pokerkit import StandardHighHand

from tapete import poker
from tapete.cards import NAMES, parse_cards
from tapete.errors import BadCards
from tapete.poker import Category, category, describe, evaluate5

N_DISTINCT_CLASSES = 7462  # distinct five-card hand values in standard poker


def ev(text: str) -> int:
    return evaluate5(parse_cards(text.split()))


def ph_card(card: int) -> int:
    """Our card int -> phevaluator's (rank deuce=0..ace=12, suit c,d,h,s = 0..3)."""
    return poker.POKER_RANK[card] * 4 + (3 - card % 4)


def ph_rank(cards: np.ndarray) -> int:
    """phevaluator's rank: 1 (royal) .. 7462 (7-5-4-3-2 offsuit), smaller is better."""
    return int(evaluate_cards(*(ph_card(int(c)) for c in cards)))


@pytest.fixture(scope="module")
def all_hands() -> np.ndarray:
    return poker.all_5card_hands()


@pytest.fixture(scope="module")
def all_strengths() -> np.ndarray:
    return poker.rank_all_5card_hands()


def test_category_counts_over_all_2598960_hands(all_strengths: np.ndarray) -> None:
    assert len(all_strengths) == poker.N_5CARD_HANDS
    assert poker.category_counts(all_strengths) == poker.CATEGORY_COUNTS
    assert len(np.unique(all_strengths)) == N_DISTINCT_CLASSES


def test_bulk_paths_agree_with_scalar_evaluator(all_hands: np.ndarray, all_strengths: np.ndarray) -> None:
    rng = np.random.default_rng(5)
    idx = rng.choice(len(all_hands), 20_000, replace=False)
    sample = all_hands[idx]
    scalar = np.array([evaluate5([int(c) for c in h]) for h in sample])
    assert (scalar == all_strengths[idx]).all()
    assert (poker.evaluate_many(sample) == scalar).all()
    assert (poker.evaluate_many(sample, use_numba=False) == scalar).all()


def test_numpy_fallback_ranks_all_hands_identically(all_strengths: np.ndarray) -> None:
    assert (poker.rank_all_5card_hands(use_numba=False) == all_strengths).all()


def test_every_hand_class_orders_as_phevaluator(all_hands: np.ndarray, all_strengths: np.ndarray) -> None:
    """One hand of each of the 7,462 classes: our order is exactly phevaluator's (reversed)."""
    values, first = np.unique(all_strengths, return_index=True)  # ascending strength
    ranks = np.array([ph_rank(all_hands[i]) for i in first])
    assert (np.diff(ranks) < 0).all()  # strictly stronger for us <=> strictly smaller for phevaluator
    assert sorted(ranks.tolist()) == list(range(1, N_DISTINCT_CLASSES + 1))
    assert len(values) == N_DISTINCT_CLASSES


def test_random_pairs_compare_as_phevaluator(all_hands: np.ndarray, all_strengths: np.ndarray) -> None:
    rng = np.random.default_rng(2000)
    n = 100_000
    a = rng.integers(0, len(all_hands), n)
    b = rng.integers(0, len(all_hands), n)
    ours = np.sign(all_strengths[a].astype(np.int64) - all_strengths[b])
    ra = np.array([ph_rank(all_hands[i]) for i in a])
    rb = np.array([ph_rank(all_hands[i]) for i in b])
    assert (ours == np.sign(rb - ra)).all()


def test_ties_across_suits_compare_equal_in_both(all_hands: np.ndarray, all_strengths: np.ndarray) -> None:
    rng = np.random.default_rng(17)
    order = np.argsort(all_strengths, kind="stable")
    sorted_s = all_strengths[order]
    picks = rng.integers(0, len(order) - 1, 5_000)
    same = sorted_s[picks] == sorted_s[picks + 1]
    assert same.sum() > 1_000
    for i in picks[same]:
        assert ph_rank(all_hands[order[i]]) == ph_rank(all_hands[order[i + 1]])


def test_random_pairs_compare_as_pokerkit(all_hands: np.ndarray, all_strengths: np.ndarray) -> None:
    rng = np.random.default_rng(11)
    for _ in range(5_000):
        i, j = rng.integers(0, len(all_hands), 2)
        hi = StandardHighHand("".join(NAMES[int(c)] for c in all_hands[i]))
        hj = StandardHighHand("".join(NAMES[int(c)] for c in all_hands[j]))
        expected = (hi > hj) - (hi < hj)
        si, sj = int(all_strengths[i]), int(all_strengths[j])
        assert (si > sj) - (si < sj) == expected


def test_pokerkit_on_one_hand_of_each_category(all_hands: np.ndarray, all_strengths: np.ndarray) -> None:
    cats = all_strengths >> poker.CATEGORY_SHIFT
    one_deck = [c for c in Category if c is not Category.FIVE_OF_A_KIND]  # five of a kind needs two decks
    reps = [int(np.flatnonzero(cats == c)[0]) for c in one_deck]
    hands = [StandardHighHand("".join(NAMES[int(c)] for c in all_hands[i])) for i in reps]
    assert all(hands[k] < hands[k + 1] for k in range(len(hands) - 1))


@pytest.mark.parametrize(
    ("text", "cat", "words"),
    [
        ("As 2d 3c 4h 5s", Category.STRAIGHT, "straight, five high (wheel)"),
        ("Ah Kh Qd Jc Ts", Category.STRAIGHT, "straight, ace high"),
        ("Ts Js Qs Ks As", Category.ROYAL_FLUSH, "royal flush"),
        ("As 2s 3s 4s 5s", Category.STRAIGHT_FLUSH, "straight flush, five high"),
        ("Qs Qh 8d 5c 4s", Category.PAIR, "pair of queens, kickers 8 5 4"),
        ("7s 7h 7d 2c 2s", Category.FULL_HOUSE, "full house, sevens over twos"),
        ("Ks Kd 4h 4c 9s", Category.TWO_PAIR, "two pair, kings and fours, kicker 9"),
        ("9s 9d 9h 9c Ks", Category.FOUR_OF_A_KIND, "four nines, kicker K"),
        ("2s 3s 4s 5s 7s", Category.FLUSH, "flush, seven high: 7 5 4 3 2"),
        ("3s 3d 3h Kc 9s", Category.THREE_OF_A_KIND, "three threes, kickers K 9"),
        ("As Kd 9c 5h 3s", Category.HIGH_CARD, "high card ace, kickers K 9 5 3"),
    ],
)
def test_worked_hands(text: str, cat: Category, words: str) -> None:
    s = ev(text)
    assert category(s) is cat
    assert describe(s) == words


def test_worked_orderings() -> None:
    assert ev("Qs Qh 8d 5c 4s") > ev("Qd Qc 8h 5s 2s")  # last kicker decides
    assert ev("Qs Qh 8d 5c 4s") == ev("Qd Qc 8h 5s 4d")  # suits never rank
    assert ev("As 2d 3c 4h 5s") < ev("2s 3d 4c 5h 6s")  # the wheel is the lowest straight
    assert ev("As 2d 3c 4h 5s") > ev("As Ad Ac Kh Qs")  # ... but still beats three of a kind
    assert ev("Ah Kh Qd Jc Ts") > ev("Kh Qd Jc Ts 9s")  # Broadway is the top straight
    assert ev("Ks Kd 4h 4c 9s") > ev("Ks Kd 3h 3c As")  # second pair before kicker
    assert ev("Ks Kd 4h 4c 9s") > ev("Ks Kd 4h 4c 8s")
    assert ev("7s 7h 7d 2c 2s") > ev("6s 6h 6d As Ad")  # full house: trips first
    assert ev("2s 3s 4s 5s 7s") > ev("As Kd Qc Jh Ts")  # any flush beats any straight
    assert ev("As 2s 3s 4s 5s") > ev("Ac Ad Ah As Ks")  # steel wheel beats quads
    assert ev("Ts Js Qs Ks As") > ev("9h Th Jh Qh Kh")  # royal above the king-high straight flush
    assert ev("As Kd 9c 5h 3s") > ev("As Kd 9c 5h 2s")
    assert ev("2s 2d 3c 4h 5s") > ev("As Kd Qc Jh 9s")  # any pair beats any high card
    assert ev("As Ad 3c 4h 5s") > ev("Ks Kd Qc Jh 9s")  # aces are high in pairs


@pytest.mark.parametrize("bad", [[0, 1, 2, 3], [0, 0, 1, 2, 3], [0, 1, 2, 3, 52], [0, 1, 2, 3, 4, 5]])
def test_refuses_anything_but_five_distinct_cards(bad: list[int]) -> None:
    with pytest.raises(BadCards):
        evaluate5(bad)


def test_evaluate_many_refuses_bad_shapes() -> None:
    with pytest.raises(BadCards):
        poker.evaluate_many(np.zeros((3, 4), dtype=np.int64))
    with pytest.raises(BadCards):
        poker.evaluate_many(np.full((1, 5), 60))
