"""Tests of the combinatorial Black Jack analyzer (tapete.math.blackjack).

Fast: every full analysis takes about a second (after Numba's first compile, cached on disk), and the
analyses are shared through a cache. The brute-force references below are deliberately naive
(plain recursion over ordered draws, exact fractions for the dealer) so they share no code or idea with
the analyzer's tries and multiset tables.
"""

from __future__ import annotations

import time
from fractions import Fraction
from functools import cache

import pytest

from tapete.errors import InvalidRules
from tapete.math.blackjack import (
    OUTCOMES,
    BlackjackAnalysis,
    analyze_blackjack,
    dealer_probabilities,
    shoe_counts,
)

A, T = 0, 9  # value indices: Ace, ten-value
OUT_INDEX = {name: i for i, name in enumerate(OUTCOMES)}


@cache
def analysis(**kwargs: object) -> BlackjackAnalysis:
    return analyze_blackjack(**kwargs)  # type: ignore[arg-type]


def edge(**kwargs: object) -> float:
    return analysis(**kwargs).house_edge


# ---- brute force ---------------------------------------------------------------------------------


def brute_dealer(shoe: tuple[int, ...], up: int, h17: bool = False) -> dict[str, Fraction]:
    """Dealer outcomes by naive recursion over every ordered draw, in exact fractions (no peek)."""
    out = dict.fromkeys(OUTCOMES, Fraction(0))

    def go(counts: list[int], cards: list[int], p: Fraction) -> None:
        hard = sum(c + 1 for c in cards)
        soft = 0 in cards and hard + 10 <= 21
        total = hard + 10 if soft else hard
        if len(cards) == 2 and total == 21:
            out["blackjack"] += p
            return
        if total > 21:
            out["bust"] += p
            return
        if total > 17 or (total == 17 and not (h17 and soft)):
            out[str(total)] += p
            return
        n = sum(counts)
        assert n > 0, "tiny shoe ran out"
        for v in range(10):
            if counts[v]:
                counts[v] -= 1
                go(counts, [*cards, v], p * Fraction(counts[v] + 1, n))
                counts[v] += 1

    go(list(shoe), [up], Fraction(1))
    return out


def brute_values(shoe: tuple[int, ...], up: int, hand: tuple[int, ...]) -> tuple[float, float, float]:
    """Stand, hit (best continuation) and double EVs of `hand` vs `up`, no peek, original bets only.

    `shoe` is what remains after the up-card and the hand. Written the textbook way: condition on the
    dealer having no Black Jack and add the branch where he has one: -1 (the original bet), and for a
    double the doubled stake too when the hand busted first (rules.md §1: busts are final).
    """

    def bj_prob(counts: tuple[int, ...]) -> float:
        n = sum(counts)
        if up == A:
            return counts[T] / n
        if up == T:
            return counts[A] / n
        return 0.0

    def total_of(cards: tuple[int, ...]) -> int:
        hard = sum(c + 1 for c in cards)
        return hard + 10 if 0 in cards and hard + 10 <= 21 else hard

    def stand_cond(counts: tuple[int, ...], cards: tuple[int, ...]) -> float:
        """EV of standing given the dealer has no Black Jack."""
        d = brute_dealer(counts, up)
        pn = 1 - float(d["blackjack"])
        t = total_of(cards)
        ev = float(d["bust"])
        for k in ("17", "18", "19", "20", "21"):
            ev += float(d[k]) * ((t > int(k)) - (t < int(k)))
        return ev / pn

    def draws(counts: tuple[int, ...]) -> list[tuple[int, float, tuple[int, ...]]]:
        """Next card given the dealer has no Black Jack: the hole card is one of the unseen cards."""
        n = sum(counts)
        pb = bj_prob(counts)
        res = []
        for v in range(10):
            if not counts[v]:
                continue
            rest = list(counts)
            rest[v] -= 1
            rest_t = tuple(rest)
            # P(v and no BJ) / P(no BJ) = P(v) * P(no BJ | v removed) / P(no BJ)
            p = counts[v] / n * (1 - bj_prob(rest_t)) / (1 - pb)
            res.append((v, p, rest_t))
        return res

    @cache
    def best(counts: tuple[int, ...], cards: tuple[int, ...]) -> float:
        if total_of(cards) > 21:
            return -1.0
        return max(stand_cond(counts, cards), hit(counts, cards))

    @cache
    def hit(counts: tuple[int, ...], cards: tuple[int, ...]) -> float:
        return sum(p * best(rest, tuple(sorted((*cards, v)))) for v, p, rest in draws(counts))

    def double(counts: tuple[int, ...], cards: tuple[int, ...]) -> float:
        ev = 0.0
        for v, p, rest in draws(counts):
            nxt = tuple(sorted((*cards, v)))
            ev += p * (-2.0 if total_of(nxt) > 21 else 2.0 * stand_cond(rest, nxt))
        return ev

    def double_on_bj(counts: tuple[int, ...], cards: tuple[int, ...]) -> float:
        """The dealer has Black Jack (his hole card out of `counts`): the original bet is lost, and the
        doubled stake too when the card drawn busts the hand; else it is returned."""
        hole = T if up == A else A
        rest = list(counts)
        rest[hole] -= 1
        n = sum(rest)
        busts = sum(rest[v] for v in range(10) if rest[v] and total_of((*cards, v)) > 21)
        return -1.0 - busts / n

    pb = bj_prob(shoe)
    pn = 1 - pb
    return (
        pn * stand_cond(shoe, hand) - pb,
        pn * hit(shoe, hand) - pb,
        pn * double(shoe, hand) + (pb * double_on_bj(shoe, hand) if pb else 0.0),
    )


# ---- dealer ----------------------------------------------------------------------------------------


def test_dealer_probabilities_sum_to_one_for_every_upcard() -> None:
    res = analysis(decks=6, surrender=False)
    for up in range(10):
        assert sum(res.dealer[up].values()) == pytest.approx(1.0, abs=1e-12)
    assert res.dealer[T]["blackjack"] == pytest.approx(24 / 311)  # 24 aces among 311 unseen cards
    assert res.dealer[A]["blackjack"] == pytest.approx(96 / 311)
    assert res.dealer[5]["bust"] == pytest.approx(0.4229, abs=5e-4)  # dealer 6: the classic ~42.3%


@pytest.mark.parametrize("h17", [False, True])
@pytest.mark.parametrize("up", range(10))
def test_dealer_matches_brute_force_on_tiny_shoe(up: int, h17: bool) -> None:
    shoe = (2, 1, 1, 0, 2, 1, 1, 0, 1, 5)  # 14 cards, enough that the dealer can never run out
    got = dealer_probabilities(shoe, up, h17=h17)
    ref = brute_dealer(shoe, up, h17)
    for k in OUTCOMES:
        assert got[k] == pytest.approx(float(ref[k]), abs=1e-13), k
    assert sum(got.values()) == pytest.approx(1.0, abs=1e-13)


def test_dealer_probabilities_validate_input() -> None:
    with pytest.raises(InvalidRules):
        dealer_probabilities([1, 2, 3], 0)
    with pytest.raises(InvalidRules):
        dealer_probabilities(shoe_counts(1), 10)


# ---- hand values -----------------------------------------------------------------------------------

SMALL = (2, 2, 2, 2, 2, 2, 2, 2, 2, 8)  # half a deck: every value present, tens in proportion


@pytest.mark.parametrize(
    ("a", "b", "up"),
    [(T, 6 - 1, T), (T, 2 - 1, 5), (6 - 1, 5 - 1, 5), (A, 6 - 1, A), (7, 8, 0), (2, 3, T)],
)
def test_hand_values_match_brute_force(a: int, b: int, up: int) -> None:
    res = analysis(counts=SMALL, surrender=False)
    h = res.hands[(min(a, b), max(a, b), up)]
    rest = list(SMALL)
    for c in (a, b, up):
        rest[c] -= 1
    stand, hit, dbl = brute_values(tuple(rest), up, tuple(sorted((a, b))))
    assert h.stand == pytest.approx(stand, abs=1e-12)
    assert h.hit == pytest.approx(hit, abs=1e-12)
    assert h.double == pytest.approx(dbl, abs=1e-12)


def test_art13_a_split_hand_that_busted_stays_lost_to_a_dealer_blackjack() -> None:
    """rules.md §1, busts are final: the dealer's Black Jack (no peek, OBO) takes the original bet and the
    stake of a later split hand that already busted; the others are returned. With one split on 6 decks
    the CDZ- edge is 0.218076482309 % (split hands played as unsplit hands of the same cards; stop 21's
    spec-only audit gave 0.2172384034 % with split hands played best for the split shoe, the old
    analyzer's play). The peek game's valuation (a busted extra stake returned) gives less: the
    difference is the branch. With no split at all the branch cannot arise."""
    assert analysis(decks=6, max_splits=1).house_edge_cd == pytest.approx(0.002180764823093, abs=2e-14)
    peekish = analyze_blackjack(decks=6, max_splits=1, peek=True, surrender=False).house_edge_cd
    no_peek = analysis(decks=6, max_splits=1, surrender=False).house_edge_cd
    assert no_peek > peekish
    assert analysis(decks=6, max_splits=0).house_edge_cd == pytest.approx(0.007205438657727, abs=1e-14)


def test_probabilities_of_deals_sum_to_one_and_blackjacks_are_symmetric() -> None:
    res = analysis(decks=6, surrender=False)
    assert sum(h.probability for h in res.hands.values()) == pytest.approx(1.0, abs=1e-12)
    o = res.outcome_probabilities
    assert o["player_blackjack"] == pytest.approx(o["dealer_blackjack"], abs=1e-12)
    assert o["player_blackjack"] == pytest.approx(2 * 24 * 96 / (312 * 311), abs=1e-12)


# ---- known figures and rule effects ----------------------------------------------------------------


def test_six_deck_edge_matches_published_figure() -> None:
    # 6 decks, S17, DAS, split to 4, no RSA, no surrender, peek (= no peek with OBO): published
    # total-dependent basic strategy figures are 0.40-0.42 %; we get 0.404 %.
    assert 0.0039 <= edge(decks=6, surrender=False) <= 0.0042
    cd = analysis(decks=6, surrender=False).house_edge_cd
    assert 0.0 < edge(decks=6, surrender=False) - cd < 0.0001  # CD play gains a little in 6 decks


def test_rule_effects_have_the_right_sign_and_size() -> None:
    # Same pack first (the dealer tables are shared), then the other packs.
    base = edge(decks=6, surrender=False)
    das = edge(decks=6, surrender=False, das=False) - base
    assert 0.0010 <= das <= 0.0018  # DAS is worth about 0.14 %
    late = base - edge(decks=6, surrender=True, surrender_type="late")
    assert 0.0004 <= late <= 0.0010  # late surrender about 0.07 %
    early = base - edge(decks=6, surrender=True)
    assert late < early <= 0.0030  # early (no peek, vs 2-10) is worth more: about 0.24 %
    enhc = edge(decks=6, surrender=False, obo=False) - base
    assert 0.0008 <= enhc <= 0.0014  # losing doubles/splits to a dealer BJ costs about 0.11 %
    rsa = base - edge(decks=6, surrender=False, resplit_aces=True)
    assert 0.0004 <= rsa <= 0.0010
    no_resplit = edge(decks=6, surrender=False, max_splits=1) - base
    assert 0.0002 <= no_resplit <= 0.0009
    h17 = edge(decks=6, surrender=False, h17=True) - base
    assert 0.0018 <= h17 <= 0.0025  # dealer hitting soft 17 costs about 0.2 %
    one_deck = base - edge(decks=1, surrender=False)
    assert 0.0045 <= one_deck <= 0.0065  # 1 deck vs 6: about 0.5 %
    assert edge(decks=4, surrender=False) < base < edge(decks=8, surrender=False)


# ---- strategy --------------------------------------------------------------------------------------


def chart_of(res: BlackjackAnalysis) -> dict[str, dict[str, str]]:
    ups = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "A")
    return {label: dict(zip(ups, codes, strict=True)) for label, codes in res.chart()}


def test_basic_strategy_spot_checks() -> None:
    ch = chart_of(analysis(decks=6, surrender=True))
    assert ch["hard 16"]["T"] == "Rh"  # retire, else hit
    assert ch["hard 16"]["A"] == "H"  # no retiring against an Ace
    assert ch["hard 11"]["6"] == "D"
    assert ch["A-A"]["A"] == "P" and ch["8-8"]["7"] == "P"
    assert all(code == "S" for code in ch["T-T"].values())
    assert ch["hard 12"]["4"] == "S" and ch["hard 12"]["3"] == "H"
    assert ch["soft 18"]["3"] == "Ds" and ch["soft 18"]["9"] == "H"
    ns = chart_of(analysis(decks=6, surrender=False))
    assert ns["hard 16"]["T"] == "H"
    assert ns["8-8"]["T"] == "P"
    assert all(code in {"S", "H", "D", "Ds", "P"} for row in ns.values() for code in row.values())


def test_split_values_are_sensible() -> None:
    res = analysis(decks=6, surrender=False)
    aa6 = res.hands[(A, A, 5)]
    assert aa6.split is not None and aa6.split > 0.5 > aa6.hit  # A-A vs 6: split, clearly
    e8 = res.hands[(7, 7, T)]
    assert e8.split is not None and e8.split > max(e8.hit, e8.stand)
    assert e8.split < 0  # ... but it still loses on average against a ten
    tt = res.hands[(T, T, 5)]
    assert tt.split is not None and tt.stand > tt.split
    # More resplits never hurt; resplitting aces helps A-A.
    assert analysis(decks=6, surrender=False, max_splits=1).hands[(7, 7, T)].split < e8.split  # type: ignore[operator]
    rsa = analysis(decks=6, surrender=False, resplit_aces=True).hands[(A, A, 5)].split
    assert rsa is not None and rsa > aa6.split


def test_chart_shape_and_json() -> None:
    res = analysis(decks=6, surrender=True)
    rows = res.chart()
    assert len(rows) == 17 + 9 + 10
    assert rows[0][0] == "hard 5" and rows[-1][0] == "A-A"
    doc = res.to_json()
    main = doc["bets"]["main"]
    assert main["house_edge"] == res.house_edge and main["exact"] is True and main["exactness"]
    assert doc["strategy"]["upcards"][-1] == "A"
    assert doc["strategy"]["multi_card_exceptions"] == ["hard 16 vs T: H with two cards, S with 3+"]
    assert len(res.to_json(detail=True)["hands"]) == 550


def test_progress_is_reported_per_upcard() -> None:
    seen: list[tuple[int, int]] = []
    analyze_blackjack(decks=2, surrender=False, progress=lambda d, t: seen.append((d, t)))
    assert seen == [(i, 10) for i in range(1, 11)]


def test_max_splits_beyond_the_pack_is_the_packs_limit_exact_and_fast() -> None:
    """Art.11 bounds the splits only from below: a box cannot split more than the pack's tens less one
    (127 at 8 decks), so 10**18 is analysed as 127, at once. Splits that deep weigh next to nothing, so
    the edge is 40 splits' to the last bits: the weights of a hundred-hand split are exact integers (in
    floats they overflowed and the edge came out wrong)."""
    t0 = time.perf_counter()
    huge = analyze_blackjack(decks=8, max_splits=10**18)
    assert time.perf_counter() - t0 < 60  # was: a hang (arrays and loops sized by the setting)
    assert huge.rules.max_splits == 127
    deepest = analyze_blackjack(decks=8, max_splits=127)
    assert (huge.house_edge, huge.house_edge_cd) == (deepest.house_edge, deepest.house_edge_cd)
    forty = analyze_blackjack(decks=8, max_splits=40)
    assert huge.house_edge == pytest.approx(forty.house_edge, abs=1e-15)
    assert huge.house_edge_cd == pytest.approx(forty.house_edge_cd, abs=1e-15)
    one_deck = analyze_blackjack(decks=1, max_splits=30)  # was: ZeroDivisionError
    assert one_deck.rules.max_splits == 15
    assert one_deck.house_edge == analyze_blackjack(decks=1, max_splits=15).house_edge


def test_bad_settings_are_refused() -> None:
    with pytest.raises(InvalidRules):
        analyze_blackjack(decks=9)
    with pytest.raises(InvalidRules):
        analyze_blackjack(max_splits=-1)
