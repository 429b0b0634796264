"""The analyzer's exact split values (CDZ-) against a literal evaluator that shares none of its code.

The evaluator below plays the regulation's round card by card in exact fractions on a small shoe: the
hole card is dealt at the deal and stays unknown to the player (no peek); the split hands are dealt and
played one after the other, first hand first, a pair card making one more hand while the box may still
split; the dealer then draws to 17 from what is left, and the round is settled as rules.md §1 says (a
dealer Black Jack takes the original bet, which sits on the first hand, and the stake of every hand that
already busted; the other extra stakes are returned). Its decisions are CDZ- as Farmer defines it: an
unsplit hand's decisions are the best for the exact cards seen (up-card and the hand, the hole card
averaged over what it can be), and a split hand takes the decision an unsplit hand of the same cards
would (stand, hit, or double on two cards). No tries, no multiset tables, no exchangeability argument:
every card of the round is drawn in the order the table deals it.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import pytest

from tapete.math.blackjack import analyze_blackjack

A, T = 0, 9
Shoe = tuple[int, ...]
Hand = tuple[int, ...]


def _total(cards: Hand) -> int:
    hard = sum(c + 1 for c in cards)
    return hard + 10 if A in cards and hard + 10 <= 21 else hard


def _take(shoe: Shoe, v: int) -> Shoe:
    out = list(shoe)
    out[v] -= 1
    assert out[v] >= 0
    return tuple(out)


def _draws(shoe: Shoe) -> list[tuple[int, Fraction, Shoe]]:
    n = sum(shoe)
    assert n > 0, "the small shoe ran out"
    return [(v, Fraction(shoe[v], n), _take(shoe, v)) for v in range(10) if shoe[v]]


class Literal:
    """One up-card of the regulation's game on a small shoe (stand on all 17s, DAS, no peek)."""

    def __init__(self, shoe: Shoe, up: int, max_splits: int, resplit_aces: bool, surrender: bool) -> None:
        self.rest = _take(shoe, up)  # what the player and the hole card come from
        self.up = up
        self.max_splits = max_splits
        self.resplit_aces = resplit_aces
        self.surrender = surrender

    def dealer_bj(self, hole: int) -> bool:
        return {self.up, hole} == {A, T}

    @cache  # noqa: B019 - one instance per test, freed with it
    def dealer(self, shoe: Shoe, cards: Hand) -> dict[int, Fraction]:
        """The dealer's final total (22 = bust) drawing from `shoe`, his cards so far `cards`."""
        t = _total(cards)
        if t >= 17:
            return {min(t, 22): Fraction(1)}
        out: dict[int, Fraction] = {}
        for v, p, rest in _draws(shoe):
            for k, q in self.dealer(rest, tuple(sorted((*cards, v)))).items():
                out[k] = out.get(k, Fraction(0)) + p * q
        return out

    def holes(self, seen: Hand) -> list[tuple[int, Fraction, Shoe]]:
        """The hole card given the cards the player has seen (besides the up-card)."""
        shoe = self.rest
        for c in seen:
            shoe = _take(shoe, c)
        return _draws(shoe)

    # ---- an unsplit hand: its values, and the decision function every hand of CDZ- uses -----------

    @cache  # noqa: B019
    def unsplit(self, hand: Hand, hole: int, shoe: Shoe, action: str) -> Fraction:
        """Payoff of an unsplit hand taking `action`, the hole card known to us (not to the player)."""
        if action == "D":
            ev = Fraction(0)
            for v, p, rest in _draws(shoe):
                nxt = tuple(sorted((*hand, v)))
                if _total(nxt) > 21:
                    ev += p * -2  # the original and the double, on either branch
                elif self.dealer_bj(hole):
                    ev += p * -1  # the original only: the double is returned
                else:
                    ev += p * 2 * self.compare(_total(nxt), rest, hole)
            return ev
        if action == "H":
            ev = Fraction(0)
            for v, p, rest in _draws(shoe):
                nxt = tuple(sorted((*hand, v)))
                if _total(nxt) > 21:
                    ev += p * -1
                else:
                    ev += p * self.unsplit(nxt, hole, rest, self.decide(nxt, two_card_double=False))
            return ev
        if self.dealer_bj(hole):
            return Fraction(-1)
        return self.compare(_total(hand), shoe, hole)

    def compare(self, total: int, shoe: Shoe, hole: int) -> Fraction:
        """A standing total against the dealer (no Black Jack) who draws from `shoe`."""
        ev = Fraction(0)
        for d, p in self.dealer(shoe, tuple(sorted((self.up, hole)))).items():
            ev += p * (1 if d == 22 or total > d else -1 if total < d else 0)
        return ev

    def value(self, hand: Hand, action: str) -> Fraction:
        """What the player expects from `action`: the hole card averaged over the unseen cards."""
        ev = Fraction(0)
        for hole, p, shoe in self.holes(hand):
            ev += p * self.unsplit(hand, hole, shoe, action)
        return ev

    @cache  # noqa: B019
    def decide(self, hand: Hand, two_card_double: bool) -> str:
        """CDZ-'s decision function: the best of stand, hit (and double on two cards) for the hand as
        an unsplit hand of these cards; ties stand, then hit. A 21 is complete."""
        if _total(hand) == 21:
            return "S"
        best, act = self.value(hand, "S"), "S"
        options = ("H", "D") if two_card_double and len(hand) == 2 else ("H",)
        for a in options:
            v = self.value(hand, a)
            if v > best:
                best, act = v, a
        return act

    # ---- the split, card by card ---------------------------------------------------------------------

    def split(self, p: int) -> Fraction:
        """Expected payoff of splitting p-p, every card dealt in the table's order."""
        hands_max = self.max_splits + 1 if (p != A or self.resplit_aces) else 2
        ev = Fraction(0)
        for hole, q, shoe in self.holes((p, p)):
            ev += q * self.play(hole, hands_max, p, shoe, (p,), True, 1, 2, ())
        return ev

    @cache  # noqa: B019
    def play(
        self,
        hole: int,
        hands_max: int,
        p: int,
        shoe: Shoe,
        cur: Hand,
        cur_first: bool,
        pending: int,
        hands: int,
        done: tuple[tuple[int, int, bool], ...],
    ) -> Fraction:
        """The split in progress: `cur` the hand being played, `pending` hands waiting for their second
        card, `done` the completed hands (total or 99 = bust, stake, keeps the original bet)."""
        ev = Fraction(0)
        if len(cur) == 1:  # the hand takes its second card
            for v, pr, rest in _draws(shoe):
                if v == p and hands < hands_max:  # one more hand, to the right; this one draws again
                    ev += pr * self.play(
                        hole, hands_max, p, rest, cur, cur_first, pending + 1, hands + 1, done
                    )
                elif p == A:  # split Aces take one card and stop
                    nxt = (A, v) if v != A else (A, A)
                    ev += pr * self.finish(
                        hole, hands_max, p, rest, _total(nxt), 1, cur_first, pending, hands, done
                    )
                else:
                    nxt = tuple(sorted((p, v)))
                    ev += pr * self.act(hole, hands_max, p, rest, nxt, cur_first, pending, hands, done)
            return ev
        return self.act(hole, hands_max, p, shoe, cur, cur_first, pending, hands, done)

    def act(
        self,
        hole: int,
        hands_max: int,
        p: int,
        shoe: Shoe,
        hand: Hand,
        first: bool,
        pending: int,
        hands: int,
        done: tuple[tuple[int, int, bool], ...],
    ) -> Fraction:
        """A split hand of two or more cards decides as the unsplit hand of its cards would."""
        a = self.decide(hand, two_card_double=True)
        if a == "S":
            return self.finish(hole, hands_max, p, shoe, _total(hand), 1, first, pending, hands, done)
        ev = Fraction(0)
        for v, pr, rest in _draws(shoe):
            nxt = tuple(sorted((*hand, v)))
            t = _total(nxt)
            stake = 2 if a == "D" else 1
            if t > 21:
                ev += pr * self.finish(hole, hands_max, p, rest, 99, stake, first, pending, hands, done)
            elif a == "D":
                ev += pr * self.finish(hole, hands_max, p, rest, t, 2, first, pending, hands, done)
            else:
                ev += pr * self.play(hole, hands_max, p, rest, nxt, first, pending, hands, done)
        return ev

    def finish(
        self,
        hole: int,
        hands_max: int,
        p: int,
        shoe: Shoe,
        result: int,
        stake: int,
        first: bool,
        pending: int,
        hands: int,
        done: tuple[tuple[int, int, bool], ...],
    ) -> Fraction:
        """A hand is complete: the next hand, or the dealer and the settlement."""
        done = tuple(sorted((*done, (result, stake, first))))
        if pending:
            return self.play(hole, hands_max, p, shoe, (p,), False, pending - 1, hands, done)
        if self.dealer_bj(hole):
            # The original bet (on the first hand) is lost; of the extra stakes, those of busted hands.
            lost = 1
            for res, st, fst in done:
                if res == 99:
                    lost += st - 1 if fst else st
            return Fraction(-lost)
        ev = Fraction(0)
        for d, pr in self.dealer(shoe, tuple(sorted((self.up, hole)))).items():
            pay = 0
            for res, st, _ in done:
                if res == 99:
                    pay -= st
                elif d == 22 or res > d:
                    pay += st
                elif res < d:
                    pay -= st
            ev += pr * pay
        return ev

    # ---- a whole deal -----------------------------------------------------------------------------

    def best(self, a: int, b: int) -> Fraction:
        """CDZ- value of the first two cards a, b: the best of every option the regulation offers."""
        hand = tuple(sorted((a, b)))
        if hand == (A, T):
            ev = Fraction(0)
            for hole, q, _ in self.holes(hand):
                ev += q * (0 if self.dealer_bj(hole) else Fraction(3, 2))
            return ev
        options = [self.value(hand, x) for x in ("S", "H", "D")]
        if a == b and self.max_splits >= 1:
            options.append(self.split(a))
        if self.surrender and self.up != A:
            options.append(Fraction(-1, 2))  # the retiro, before anything else, whatever the hole card
        return max(options)


#: 26 cards: four Aces (resplit to four hands), eight tens, a few of the rest.
SHOE: Shoe = (4, 1, 1, 1, 1, 2, 1, 5, 2, 8)
#: 21 cards: four Aces, five 8s (a split to four hands and a fifth 8), eight tens, four small cards.
SMALL: Shoe = (4, 1, 1, 0, 1, 1, 0, 5, 0, 8)


@pytest.mark.parametrize(
    ("shoe", "pair", "up", "max_splits", "resplit_aces"),
    [
        (SMALL, 7, T, 3, False),  # 8-8 against a ten: dealer Black Jacks, busted split hands, four hands
        (SMALL, 7, A, 3, False),  # 8-8 against an Ace
        (SMALL, T, 5, 3, False),  # T-T against a 6, four hands
        (SMALL, 7, T, 4, False),  # 8-8 against a ten, to five hands (all five 8s)
        ((5, 1, 1, 0, 1, 1, 0, 2, 0, 9), A, 5, 4, True),  # A-A resplit to five hands
        (SHOE, A, 5, 3, True),  # A-A resplit to four hands
        (SHOE, 7, 5, 1, False),  # 8-8 against a 6, one split: doubles after the split
        (SHOE, A, T, 1, False),  # A-A against a ten, one split
        (SHOE, T, 5, 2, False),  # T-T: eight tens, split to three hands
        (SMALL, 7, T, 10**6, False),  # Art.11 sets no maximum: the five 8s make five hands at most
        ((5, 1, 1, 0, 1, 1, 0, 2, 0, 9), A, 5, 10**18, True),  # A-A resplit to all five Aces' hands
    ],
)
def test_split_values_match_the_literal_evaluator(
    shoe: Shoe, pair: int, up: int, max_splits: int, resplit_aces: bool
) -> None:
    """The analyzer's CDZ- split value (and the deal's best value) equals the card-by-card one to 1e-15
    of the bet (relative above one unit: a split's value is several hands')."""
    res = analyze_blackjack(counts=shoe, surrender=True, max_splits=max_splits, resplit_aces=resplit_aces)
    lit = Literal(shoe, up, max_splits, resplit_aces, surrender=True)
    got = res.hands[(pair, pair, up)]
    assert got.split is not None
    exact = lit.split(pair)
    assert abs(got.split - float(exact)) <= 1e-15 * max(1.0, abs(got.split)), (got.split, exact)
    best = lit.best(pair, pair)
    assert abs(got.best_ev - float(best)) <= 1e-15 * max(1.0, abs(got.best_ev)), (got.best_ev, best)


#: Eric Farmer's published CDZ- figures for the peek game, S17 DAS SPL3 NRSA (4, 6, 8 decks; without
#: and with late surrender), expected value in %, and his analyzer's (possibly-wrong/blackjack, v7.6,
#: compiled here) full double-precision output for the same rules.
FARMER = {
    (4, False): (-0.347488821663, -0.347488821662546),
    (6, False): (-0.402870236115, -0.402870236115414),
    (8, False): (-0.430580628970, -0.430580628970367),
    (4, True): (-0.280724009596, -0.280724009596166),
    (6, True): (-0.330268037338, -0.330268037337503),
    (8, True): (-0.354762836904, -0.354762836903706),
}

#: The regulation's game (no peek, OBO with busted extra stakes lost, retiro against 2-10): CDZ- house
#: edge in %, also found by an earlier, independently written implementation of the same method.
REGULATION = {
    (4, False): 0.353745493193,
    (6, False): 0.409230921789,
    (8, False): 0.436993057242,
    (4, True): 0.117566693314,
    (6, True): 0.165515593684,
    (8, True): 0.189547054816,
}


@pytest.mark.parametrize("decks", [4, 6, 8])
def test_peek_game_gives_farmers_published_cdz_figures_to_12_digits(decks: int) -> None:
    for surrender in (False, True):
        published, full = FARMER[(decks, surrender)]
        ev = -analyze_blackjack(decks=decks, surrender=surrender, peek=True).house_edge_cd * 100
        assert abs(ev - published) <= 5.1e-13  # the published figure is rounded to 12 decimals
        assert abs(ev - full) <= 1e-13
        edge = analyze_blackjack(decks=decks, surrender=surrender).house_edge_cd * 100
        assert abs(edge - REGULATION[(decks, surrender)]) <= 5.1e-13


def test_c_kernels_and_numba_kernels_give_the_same_figures() -> None:
    """The kernels compiled from C (the default where a C compiler is found) and the Numba ones (the
    fallback, TAPETE_NATIVE=0) run the same loops in the same order: the same figures, to the bit."""
    import json
    import os
    import subprocess
    import sys

    from tapete.math.blackjack import _NATIVE

    code = (
        "import json; from tapete.math.blackjack import analyze_blackjack as a, _NATIVE\n"
        "r = [a(counts=c, max_splits=3, resplit_aces=True) for c in ((4, 1, 1, 1, 1, 2, 1, 5, 2, 8),)]\n"
        "r.append(a(decks=1, surrender=False))\n"
        "print(json.dumps([_NATIVE is None] + [[x.house_edge, x.house_edge_cd] for x in r]))\n"
    )
    env = dict(os.environ, TAPETE_NATIVE="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    numba_side = json.loads(out.stdout)
    assert numba_side[0] is True  # the fallback really ran
    here = [
        analyze_blackjack(counts=(4, 1, 1, 1, 1, 2, 1, 5, 2, 8), max_splits=3, resplit_aces=True),
        analyze_blackjack(decks=1, surrender=False),
    ]
    assert numba_side[1:] == [[x.house_edge, x.house_edge_cd] for x in here]
    if _NATIVE is None:
        pytest.skip("no C compiler here: both sides ran the Numba kernels")
