"""Exact Showdown Póker math (SP Art.9.2-9.5 exchange and increments, Art.10-11 paytable).

Fast checks: single starting hands brute-forced independently (NumPy evaluator, explicit decisions,
exact fractions) against both kernels, the symmetric accumulation against the hand-centred kernel, and
sanity / monotonicity. The full analysis (about 11-17 s on the 2-core machine) is marked slow.
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import numpy as np
import pytest

from tapete import poker
from tapete.cards import parse_cards
from tapete.errors import InvalidRules
from tapete.math import showdown as sd

pytest.importorskip("numba")

BET_PAY = np.array([-1, -1, 0, 2, 3, 5, 7, 9, 25, 100, 250])  # Art.10-11 by outcome class


def bet_payout(strengths: np.ndarray) -> np.ndarray:
    """Net result per unit of each strength, written out from Art.10-11 independently of the module."""
    cat = strengths >> poker.CATEGORY_SHIFT
    pair_rank = (strengths >> 16) & 0xF
    out = BET_PAY[np.minimum(cat + 1, 10)]
    out[cat == 0] = -1  # high card loses
    out[(cat == 1) & (pair_rank < poker.JACK)] = -1  # pair below jacks loses
    out[(cat == 1) & (pair_rank >= poker.JACK)] = 0  # Art.10: J, Q, K, A pairs push
    return out


def brute_force_option(start: list[int], keep: list[int]) -> Fraction:
    """Value of keeping `keep` from `start`: every replacement set, every ordered pair of community cards,
    the increments decided by their definitions (made only when strictly better)."""
    dead = [c for c in start if c not in keep]
    d = len(dead)
    deck = [c for c in range(52) if c not in start]
    values: list[Fraction] = []
    for repl in itertools.combinations(deck, d):
        hand = list(keep) + list(repl)
        rest = np.array([c for c in deck if c not in repl])  # the community cards come from here
        c1, c2 = np.meshgrid(rest, rest, indexing="ij")
        off_diagonal = c1 != c2
        pairs = np.column_stack([c1[off_diagonal], c2[off_diagonal]])  # ordered, row-major by c1
        five = np.column_stack([np.tile(hand, (len(pairs), 1)), pairs])
        strengths = poker.evaluate_many(five, use_numba=False)
        pay = bet_payout(strengths).reshape(len(rest), len(rest) - 1)
        e_c1 = [Fraction(int(row.sum()), len(rest) - 1) for row in pay]  # E[m | community card 1]
        stand = sum(e_c1, Fraction(0)) / len(rest)  # no increment: 1 unit at risk
        raised = sum((2 * e + max(e, Fraction(0)) for e in e_c1), Fraction(0)) / len(rest)
        values.append(max(stand, raised))
    return sum(values, Fraction(0)) / len(values)


def cards(text: str) -> list[int]:
    return parse_cards(text.split())


@pytest.mark.parametrize(
    ("start", "keep"),
    [
        ("As Ah Ad", "As Ah Ad"),
        ("Qs Qh 7d", "Qs Qh 7d"),
        ("Qs Qh 7d", "Qs Qh"),
        ("9s Ts Js", "9s Ts"),
        ("2s 7h Kd", "7h Kd"),
        ("5c 5d Ah", "5c Ah"),
    ],
)
def test_keep_two_or_three_matches_brute_force(start: str, keep: str) -> None:
    options = sd.hand_options(cards(start))
    kept = tuple(sorted(cards(keep)))
    assert options[kept] == brute_force_option(cards(start), cards(keep))


def test_keep_one_matches_brute_force() -> None:
    start, keep = cards("Kh 4c 9s"), cards("Kh")
    assert sd.hand_options(start)[tuple(keep)] == brute_force_option(start, keep)


@pytest.fixture(scope="module")
def analysis2() -> sd.ShowdownAnalysis:
    return sd.analyze_showdown(max_exchange=2)


def test_symmetric_accumulation_matches_hand_centred_kernel(analysis2: sd.ShowdownAnalysis) -> None:
    rng = np.random.default_rng(9)
    picks = sorted({0, 1, 500, 1754, *rng.choice(len(analysis2.strategy), 5, replace=False).tolist()})
    for i in picks:
        entry = analysis2.strategy[i]
        direct = sd.hand_options(list(entry.cards), max_exchange=2)
        assert direct == dict(entry.options)
        assert entry.ev == max(direct.values())


def test_classes_cover_every_starting_hand(analysis2: sd.ShowdownAnalysis) -> None:
    assert len(analysis2.strategy) == 1755
    assert sum(h.combos for h in analysis2.strategy) == 22_100
    assert sum(analysis2.exchanges.values()) == 1
    assert sum(analysis2.increments.values()) == 1
    assert sum(analysis2.final_hands.values()) == 1


def test_trips_never_exchange_and_always_increment(analysis2: sd.ShowdownAnalysis) -> None:
    for h in analysis2.strategy:
        ranks = {c // 4 for c in h.cards}
        if len(ranks) == 1:
            assert h.keep == h.cards
            assert h.p_increment1 == 1 and h.p_increment2 == 1  # trips are paid 3:1 at worst
    trips = sd.hand_options(cards("7s 7h 7d"))
    assert max(trips, key=lambda k: trips[k]) == tuple(sorted(cards("7s 7h 7d")))


def test_high_pairs_are_kept(analysis2: sd.ShowdownAnalysis) -> None:
    for h in analysis2.strategy:
        ranks = [c // 4 for c in h.cards]
        pair = [r for r in set(ranks) if ranks.count(r) == 2]
        if pair and (pair[0] == 0 or pair[0] >= 10):  # A, J, Q, K
            kept_ranks = [c // 4 for c in h.keep]
            assert kept_ranks.count(pair[0]) == 2


def test_more_exchange_is_worth_more_and_house_keeps_an_edge() -> None:
    evs = [sd.analyze_showdown(max_exchange=k).bet_ev for k in range(3)]
    assert evs[0] < evs[1] < evs[2] < 0


def test_best_keep_follows_suits_of_the_actual_hand(analysis2: sd.ShowdownAnalysis) -> None:
    assert analysis2.best_keep(["Qc", "Qd", "7h"]) == tuple(sorted(cards("Qc Qd")))
    assert analysis2.best_keep(["Kc", "Kd", "Kh"]) == tuple(sorted(cards("Kc Kd Kh")))


def test_richer_paytable_raises_the_value() -> None:
    base = sd.hand_options(cards("Ts Js Qs"), max_exchange=1)
    richer = sd.hand_options(
        cards("Ts Js Qs"), max_exchange=1, paytable={**sd.SHOWDOWN_PAYTABLE, "royal_flush": 1000}
    )
    assert all(richer[k] >= base[k] for k in base)
    assert richer[tuple(sorted(cards("Ts Js Qs")))] > base[tuple(sorted(cards("Ts Js Qs")))]


def test_settings_are_checked() -> None:
    with pytest.raises(InvalidRules):
        sd.analyze_showdown(max_exchange=4)
    with pytest.raises(InvalidRules):
        sd.analyze_showdown(paytable={"pair": 1})


def test_json_shape(analysis2: sd.ShowdownAnalysis) -> None:
    body = json.loads(json.dumps(analysis2.to_json()))
    assert body["bets"]["bet"]["exact"] is True
    assert body["bets"]["bet"]["house_edge"] > 0
    assert 0 < body["bets"]["bonus"]["house_edge"] < 1
    assert body["bets"]["pot"]["house_edge"] == 0.05
    assert body["bets"]["pot"]["by_players"]["1"] == 0
    assert len(body["strategy"]) == 1755


@pytest.mark.slow
def test_full_analysis_default_settings() -> None:
    """Reference figures for the regulation's game (exchange up to 3); see docs/math-showdown.md."""
    a = sd.analyze_showdown()
    assert a.house_edge == Fraction(683043419, 35118447000)
    assert round(float(a.house_edge), 7) == 0.0194497
    assert a.exchanges[0] + a.exchanges[1] + a.exchanges[2] + a.exchanges[3] == 1
    # the symmetric accumulation agrees with the hand-centred kernel on discard-all hands too
    for i in (3, 700, 1400):
        entry = a.strategy[i]
        assert sd.hand_options(list(entry.cards)) == dict(entry.options)
    # keeping nothing: brute force of one exchange-all option is too slow for the suite;
    # its value is cross-checked above through the second kernel.


def test_paytable_without_royal_pays_it_as_the_straight_flush_as_the_engine_does() -> None:
    from tapete.math.showdown import OUTCOMES, _pay_vector

    pay = dict(
        zip(
            OUTCOMES,
            (int(x) for x in _pay_vector({"straight_flush": 200, "flush": 8}, {}, False)),
            strict=True,
        )
    )
    assert pay["royal_flush"] == pay["straight_flush"] == 200
