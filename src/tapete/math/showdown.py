"""Exact Showdown Póker math (SP Art.9-11; rules.md §3): optimal exchange and increments, house edges.

What is computed. A player posts the bet B and sees only his own three cards. He may exchange any
``0..max_exchange`` of them once; then he may make increment Nº1 (= B); the first community card is
shown; if he made Nº1 he may make increment Nº2 (= B); the second community card is shown. His final
hand is his three cards and the two community cards; bet and increments are each paid by the paytable
(below a pair of jacks loses, a pair of J/Q/K/A pushes, two pair 2:1 … royal 250:1). For every one of
the 22,100 starting hands we find the exchange and the increment decisions that maximise his expected
result and report the house edge of the bet: the expected loss per unit of the INITIAL bet B (positive
= the house gains) with increments made optimally, as an exact fraction.

Modelling choices (all documented in docs/math-showdown.md):

* One deck, one player at the table. With more players, their cards are unseen by him just like the
  deck's, but how many cards they exchange depends on what they hold, which makes the cards reaching him
  very slightly dependent on their strategies; we do not model that.
* Information. The two community cards are dealt before the exchange but are face down, so for the
  player the replacement cards and the two community cards are a uniformly random set of distinct cards
  from the 49 cards he has not seen. His discards are dead (never come back), and he remembers them: the
  increment decisions condition on his final three cards AND his discards (the community cards cannot be
  among them). Nº1 is decided knowing his final three cards; Nº2 knowing also community card 1.
* Ties. Increments are made only when they strictly raise the expected result; among exchanges of
  equal value the one exchanging fewer cards is taken, then the first in a fixed order. These choices
  never change the edge, only (for exact ties) the reported frequencies.
* The bonus is settled on the same final hand, the player following the bet's optimal strategy (he
  does not change his exchange because he has a bonus bet). The pot costs the players the commission
  only: with n >= 2 players someone wins it, so its cost per unit of pot bet is ``percent / 100``.

Method (counting, not sampling). For a final hand H (3 cards) and dead set D, let
``s(c1) = sum over c2 of m(H + c1 + c2)`` (m = net payout per unit) over the ``48 - d`` cards neither in
H, D nor c1. Increment Nº2 is made iff ``s(c1) > 0``; Nº1 iff ``sum s + sum max(0, s) > 0``; the value of
(H, D) times ``(49 - d)(48 - d)`` is the integer ``max(sum s, 2 sum s + sum max(0, s))``. For each of
the 1,755 suit classes of H, the 49x49 matrix of ``m(H + a + b)`` is filled once (1,176 evaluations);
then every dead set D of 0-3 of the 49 other cards is scanned (19,650 of them) with ``s = rowsum - M[D]``
(vectorised over the 49 c1). Each (H, D) feeds every starting hand S = K + D with K ⊂ H kept: its
contribution goes to the suit class of the pair (S, K) with weight = size of H's suit orbit. By
symmetry the sum over a pair class is (class size) x (value of any member), so integer division gives
the exact value of every (start, keep) option. Options are compared as exact fractions. Work: ~34.5 M
(H, D) scans of 49 lanes, ~2 s per core after the JIT; it runs in threads over H classes.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from tapete.cards import DECK_SIZE, NAMES, parse_cards
from tapete.errors import BadCards, InvalidRules
from tapete.poker import HAVE_NUMBA, JACK, Category, jit, strength_tables, table_strength
from tapete.rules.showdown import DEFAULT_BONUS_PAYTABLE, SHOWDOWN_PAYTABLE

__all__ = [
    "OUTCOMES",
    "ShowdownAnalysis",
    "StartingHand",
    "analyze_showdown",
    "hand_options",
    "increment_decisions",
    "outcome_class",
]

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
ProgressFn = Callable[[int, int], None]

#: Outcome classes of a final hand: the categories with the pair split at jacks (Art.10).
OUTCOMES: tuple[str, ...] = (
    "high_card",
    "low_pair",
    "high_pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
    "royal_flush",
)
N_OUT = len(OUTCOMES)
N_START = math.comb(DECK_SIZE, 3)  # 22,100 three-card starting hands
UNSEEN = DECK_SIZE - 3  # 49 cards the player has not seen before his exchange


def outcome_class(strength: int) -> int:
    """Index into :data:`OUTCOMES` of a hand strength (pairs of jacks or better are ``high_pair``)."""
    cat = Category(strength >> 20)
    if cat is Category.HIGH_CARD:
        return 0
    if cat is Category.PAIR:
        return 2 if (strength >> 16) & 0xF >= JACK else 1
    return int(cat) + 1


@cache
def _outcome_tables() -> tuple[I32, I32]:
    """The poker strength tables turned into outcome-class tables (same rank-key indexing)."""
    plain, flush = strength_tables()
    out = []
    for table in (plain, flush):
        cls = np.full(table.shape, -1, dtype=np.int32)
        for idx in np.flatnonzero(table >= 0):
            cls[idx] = outcome_class(int(table[idx]))
        cls.setflags(write=False)
        out.append(cls)
    return out[0], out[1]


def _pay_vector(paytable: Mapping[str, int] | None, default: Mapping[str, int], push_high_pair: bool) -> I64:
    """Net result per unit for each outcome class: paid hands their odds, high pair 0 (bet) or -1, else -1."""
    table = dict(default if paytable is None else paytable)
    if "royal_flush" not in table and "straight_flush" in table:
        # as the engine pays it (games.showdown.bonus_ratio): a royal flush is also a straight flush
        table["royal_flush"] = table["straight_flush"]
    unknown = set(table) - set(OUTCOMES[3:])
    if unknown:
        raise InvalidRules(f"paytable names unknown hands: {sorted(unknown)}")
    if any((not isinstance(v, int)) or v < 0 for v in table.values()):
        raise InvalidRules("paytable odds must be non-negative integers (x to 1)")
    pay = np.full(N_OUT, -1, dtype=np.int64)
    for i, name in enumerate(OUTCOMES):
        if name in table:
            pay[i] = table[name]
    if push_high_pair:
        pay[2] = 0  # Art.10: a pair of J, Q, K or A neither wins nor loses
    return pay


# --------------------------------------------------------------------------------------------------
# Suit symmetry: classes of starting hands and of (starting hand, kept cards) pairs.

_PERMS = np.array(list(itertools.permutations(range(4))), dtype=np.int64)  # 24 suit relabellings


@dataclass(frozen=True)
class _Symmetry:
    triples: I64  # [22100, 3] every 3-card set, sorted, in lexicographic order
    idx3: I32  # a*2704 + b*52 + c -> index of the sorted triple (a<b<c), else -1
    s_class: I64  # [22100] suit class of each triple
    reps: I64  # [1755, 3] class representatives (the smallest member)
    weights: I64  # [1755] orbit sizes (sum 22100)
    pair_class: I32  # [22100 * 8] class of (triple, keep mask); bit i of mask = keep triples[.., i]
    pair_size: I64  # [n_pairs] number of (triple, mask) members of each pair class
    pair_start: I64  # [n_pairs] the starting-hand class of each pair class
    pair_discards: I64  # [n_pairs] cards exchanged


def _encode3(a: I64) -> I64:
    out: I64 = (a[..., 0] * 104 + a[..., 1]) * 104 + a[..., 2]
    return out


@cache
def _symmetry() -> _Symmetry:
    """Suit classes of the 22,100 starting hands (1,755) and of the 176,800 (hand, keep) pairs."""
    triples = np.array(list(itertools.combinations(range(DECK_SIZE), 3)), dtype=np.int64)
    idx3 = np.full(DECK_SIZE**3, -1, dtype=np.int32)
    idx3[(triples[:, 0] * DECK_SIZE + triples[:, 1]) * DECK_SIZE + triples[:, 2]] = np.arange(len(triples))
    ranks, suits = triples // 4, triples % 4
    mapped = ranks[None, :, :] * 4 + _PERMS[:, suits]  # [24, 22100, 3]
    s_code = _encode3(np.sort(mapped, axis=2)).min(axis=0)
    s_codes, s_class, weights = np.unique(s_code, return_inverse=True, return_counts=True)
    reps = np.stack([s_codes // 104 // 104, s_codes // 104 % 104, s_codes % 104], axis=1)
    pair_code = np.empty((len(triples), 8), dtype=np.int64)
    for mask in range(8):
        flags = np.array([(mask >> i) & 1 for i in range(3)], dtype=np.int64)
        pair_code[:, mask] = _encode3(np.sort(mapped * 2 + flags, axis=2)).min(axis=0)
    _, pair_class, pair_size = np.unique(pair_code.ravel(), return_inverse=True, return_counts=True)
    n_pairs = len(pair_size)
    pair_start = np.empty(n_pairs, dtype=np.int64)
    pair_discards = np.empty(n_pairs, dtype=np.int64)
    pc2 = pair_class.reshape(len(triples), 8)
    for mask in range(8):
        pair_start[pc2[:, mask]] = s_class
        pair_discards[pc2[:, mask]] = 3 - bin(mask).count("1")
    return _Symmetry(
        triples=triples,
        idx3=idx3,
        s_class=s_class.astype(np.int64),
        reps=reps.astype(np.int64),
        weights=weights.astype(np.int64),
        pair_class=pair_class.astype(np.int32),
        pair_size=pair_size.astype(np.int64),
        pair_start=pair_start,
        pair_discards=pair_discards,
    )


# --------------------------------------------------------------------------------------------------
# Compiled kernels.


@jit
def _fill(
    x: int,
    y: int,
    z: int,
    cls_plain: I32,
    cls_flush: I32,
    pay: I64,
    unseen: I64,
    mpay: I32,
    mcls: I32,
    rowsum: I32,
) -> None:
    """For final cards x, y, z: the 49 other cards, and the payout / outcome class of x y z + a + b."""
    n = 0
    for c in range(52):
        if c != x and c != y and c != z:
            unseen[n] = c
            n += 1
    for i in range(49):
        mpay[i, i] = 0
        mcls[i, i] = -1
        for j in range(i + 1, 49):
            k = table_strength(x, y, z, unseen[i], unseen[j], cls_plain, cls_flush)
            mcls[i, j] = k
            mcls[j, i] = k
            mpay[i, j] = pay[k]
            mpay[j, i] = pay[k]
    for i in range(49):
        t = 0
        for j in range(49):
            t += mpay[i, j]
        rowsum[i] = t


@jit
def _scan(v: I32, d0: int, d1: int, d2: int) -> tuple[int, int, int]:
    """Over the 49 first community cards (minus the dead indices d0..d2, -1 = none), with ``v[i] = s``:
    ``(sum s, sum max(0, s), number of s > 0)``."""
    total = 0
    pos = 0
    npos = 0
    for i in range(49):
        s = v[i]
        total += s
        if s > 0:
            pos += s
            npos += 1
    for e in (d0, d1, d2):
        if e >= 0:
            s = v[e]
            total -= s
            if s > 0:
                pos -= s
                npos -= 1
    return total, pos, npos


@jit
def _emit(
    hx: int,
    hy: int,
    hz: int,
    weight: int,
    nd: int,
    dc0: int,
    dc1: int,
    dc2: int,
    di0: int,
    di1: int,
    di2: int,
    total: int,
    pos: int,
    npos: int,
    mcls: I32,
    rowcnt: I64,
    tot: I64,
    idx3: I32,
    pair_class: I32,
    acc: I64,
    scratch: I64,
) -> None:
    """Credit the value of final hand {hx,hy,hz} with dead cards dc0..dc2 (indices di0..di2 in the unseen
    list) to every (start = kept + dead, kept) pair class it belongs to.

    ``acc[pair class]`` = (value numerator, Nº1 made, Nº2 made, final-hand counts by outcome class...).
    """
    cnt = scratch[:11]
    cards = scratch[11:14]
    kept = scratch[14:17]
    if total + pos > 0:  # increment Nº1 strictly pays
        v1 = 2 * total + pos
        inc1 = 1
        inc2 = npos
    else:
        v1 = total
        inc1 = 0
        inc2 = 0
    for k in range(11):
        c = tot[k]
        if di0 >= 0:
            c -= rowcnt[k, di0]
        if di1 >= 0:
            c -= rowcnt[k, di1]
        if di2 >= 0:
            c -= rowcnt[k, di2]
        cnt[k] = c
    # pairs inside D were subtracted twice
    if di1 >= 0:
        cnt[mcls[di0, di1]] += 1
    if di2 >= 0:
        cnt[mcls[di0, di2]] += 1
        cnt[mcls[di1, di2]] += 1
    h = (hx, hy, hz)
    nk = 3 - nd
    for kmask in range(8):
        bits = (kmask & 1) + ((kmask >> 1) & 1) + ((kmask >> 2) & 1)
        if bits != nk:
            continue
        # the three cards of S with a kept flag, then sorted by card
        n = 0
        for i in range(3):
            if (kmask >> i) & 1:
                cards[n] = h[i]
                kept[n] = 1
                n += 1
        for dc in (dc0, dc1, dc2):
            if dc >= 0:
                cards[n] = dc
                kept[n] = 0
                n += 1
        for a in range(3):
            for b in range(2 - a):
                if cards[b] > cards[b + 1]:
                    cards[b], cards[b + 1] = cards[b + 1], cards[b]
                    kept[b], kept[b + 1] = kept[b + 1], kept[b]
        sidx = idx3[(cards[0] * 52 + cards[1]) * 52 + cards[2]]
        smask = kept[0] + 2 * kept[1] + 4 * kept[2]
        pc = pair_class[sidx * 8 + smask]
        acc[pc, 0] += weight * v1
        acc[pc, 1] += weight * inc1
        acc[pc, 2] += weight * inc2
        for k in range(11):
            acc[pc, 3 + k] += weight * cnt[k]


@jit
def _accumulate(
    reps: I64,
    weights: I64,
    lo: int,
    hi: int,
    max_exchange: int,
    cls_plain: I32,
    cls_flush: I32,
    pay: I64,
    idx3: I32,
    pair_class: I32,
    acc: I64,
) -> None:
    """Scan final-hand classes ``reps[lo:hi]`` against every dead set of 0..max_exchange cards."""
    unseen = np.empty(49, dtype=np.int64)
    mpay = np.empty((49, 49), dtype=np.int32)
    mcls = np.empty((49, 49), dtype=np.int32)
    rowsum = np.empty(49, dtype=np.int32)
    rowcnt = np.zeros((11, 49), dtype=np.int64)
    tot = np.zeros(11, dtype=np.int64)
    va = np.empty(49, dtype=np.int32)
    vab = np.empty(49, dtype=np.int32)
    v = np.empty(49, dtype=np.int32)
    scratch = np.empty(17, dtype=np.int64)
    for t in range(lo, hi):
        hx, hy, hz = reps[t, 0], reps[t, 1], reps[t, 2]
        w = weights[t]
        _fill(hx, hy, hz, cls_plain, cls_flush, pay, unseen, mpay, mcls, rowsum)
        rowcnt[:, :] = 0
        tot[:] = 0
        for i in range(49):
            for j in range(49):
                if i != j:
                    rowcnt[mcls[i, j], i] += 1
                    if i < j:
                        tot[mcls[i, j]] += 1
        # d = 0: keep everything
        total, pos, npos = _scan(rowsum, -1, -1, -1)
        _emit(
            hx,
            hy,
            hz,
            w,
            0,
            -1,
            -1,
            -1,
            -1,
            -1,
            -1,
            total,
            pos,
            npos,
            mcls,
            rowcnt,
            tot,
            idx3,
            pair_class,
            acc,
            scratch,
        )
        if max_exchange < 1:
            continue
        for a in range(49):
            for i in range(49):
                va[i] = rowsum[i] - mpay[a, i]
            total, pos, npos = _scan(va, a, -1, -1)
            _emit(
                hx,
                hy,
                hz,
                w,
                1,
                unseen[a],
                -1,
                -1,
                a,
                -1,
                -1,
                total,
                pos,
                npos,
                mcls,
                rowcnt,
                tot,
                idx3,
                pair_class,
                acc,
                scratch,
            )
            if max_exchange < 2:
                continue
            for b in range(a + 1, 49):
                for i in range(49):
                    vab[i] = va[i] - mpay[b, i]
                total, pos, npos = _scan(vab, a, b, -1)
                _emit(
                    hx,
                    hy,
                    hz,
                    w,
                    2,
                    unseen[a],
                    unseen[b],
                    -1,
                    a,
                    b,
                    -1,
                    total,
                    pos,
                    npos,
                    mcls,
                    rowcnt,
                    tot,
                    idx3,
                    pair_class,
                    acc,
                    scratch,
                )
                if max_exchange < 3:
                    continue
                for c in range(b + 1, 49):
                    for i in range(49):
                        v[i] = vab[i] - mpay[c, i]
                    total, pos, npos = _scan(v, a, b, c)
                    _emit(
                        hx,
                        hy,
                        hz,
                        w,
                        3,
                        unseen[a],
                        unseen[b],
                        unseen[c],
                        a,
                        b,
                        c,
                        total,
                        pos,
                        npos,
                        mcls,
                        rowcnt,
                        tot,
                        idx3,
                        pair_class,
                        acc,
                        scratch,
                    )


@jit
def _options_for_start(
    s: I64,
    max_exchange: int,
    cls_plain: I32,
    cls_flush: I32,
    pay: I64,
    out: I64,
) -> None:
    """Direct (hand-centred) values of every keep mask of ONE starting hand ``s`` (3 sorted cards).

    ``out[mask] = (sum over replacements of the value numerator, sum of Nº1 made, sum of Nº2 made)``.
    Used to answer "what do I exchange with this hand" and to cross-check the symmetric accumulation.
    """
    unseen = np.empty(49, dtype=np.int64)
    mpay = np.empty((49, 49), dtype=np.int32)
    mcls = np.empty((49, 49), dtype=np.int32)
    rowsum = np.empty(49, dtype=np.int32)
    v = np.empty(49, dtype=np.int32)
    deck = np.empty(49, dtype=np.int64)
    n = 0
    for c in range(52):
        if c != s[0] and c != s[1] and c != s[2]:
            deck[n] = c
            n += 1
    out[:, :] = 0
    for mask in range(8):
        kept = np.empty(3, dtype=np.int64)
        dead = np.empty(3, dtype=np.int64)
        nk = 0
        nd = 0
        for i in range(3):
            if (mask >> i) & 1:
                kept[nk] = s[i]
                nk += 1
            else:
                dead[nd] = s[i]
                nd += 1
        if nd > max_exchange:
            continue
        # every set of nd replacements from the 49-card deck
        for code in range(49**nd):
            r = np.empty(3, dtype=np.int64)
            ok = True
            cc = code
            for i in range(nd):
                r[i] = cc % 49
                cc //= 49
                if i > 0 and r[i] <= r[i - 1]:
                    ok = False
            if not ok:
                continue
            h = np.empty(3, dtype=np.int64)
            for i in range(nk):
                h[i] = kept[i]
            for i in range(nd):
                h[nk + i] = deck[r[i]]
            h.sort()
            _fill(h[0], h[1], h[2], cls_plain, cls_flush, pay, unseen, mpay, mcls, rowsum)
            # dead cards' indices in this hand's unseen list
            di = np.full(3, -1, dtype=np.int64)
            for j in range(nd):
                for i in range(49):
                    if unseen[i] == dead[j]:
                        di[j] = i
            for i in range(49):
                t = rowsum[i]
                for j in range(nd):
                    t -= mpay[di[j], i]
                v[i] = t
            total, pos, npos = _scan(v, di[0], di[1], di[2])
            if total + pos > 0:
                out[mask, 0] += 2 * total + pos
                out[mask, 1] += 1
                out[mask, 2] += npos
            else:
                out[mask, 0] += total


# --------------------------------------------------------------------------------------------------
# Results.


def _den(discards: int) -> int:
    """Common denominator of one option's value: replacement sets x ordered community pairs."""
    return math.comb(UNSEEN, discards) * (UNSEEN - discards) * (UNSEEN - discards - 1)


@dataclass(frozen=True)
class StartingHand:
    """One suit class of starting hands: its optimal exchange and its value under optimal play."""

    cards: tuple[int, ...]  # the class representative (3 card ints)
    combos: int  # how many of the 22,100 starting hands are in the class
    keep: tuple[int, ...]  # cards kept by the optimal exchange
    ev: Fraction  # expected net result per unit of initial bet, optimal play
    p_increment1: Fraction  # probability of making Nº1 (after the optimal exchange)
    p_increment2: Fraction  # probability of making Nº1 and Nº2
    options: tuple[tuple[tuple[int, ...], Fraction], ...]  # (kept cards, ev) of every allowed exchange

    @property
    def discards(self) -> int:
        """Number of cards the optimal play exchanges."""
        return len(self.cards) - len(self.keep)

    def to_json(self) -> dict[str, Any]:
        """JSON view: card names, the optimal exchange and each option's value (floats)."""
        return {
            "hand": " ".join(NAMES[c] for c in self.cards),
            "combos": self.combos,
            "keep": " ".join(NAMES[c] for c in self.keep),
            "exchange": self.discards,
            "ev": float(self.ev),
            "p_increment1": float(self.p_increment1),
            "p_increment2": float(self.p_increment2),
            "options": {" ".join(NAMES[c] for c in k) or "-": float(v) for k, v in self.options},
        }


@dataclass(frozen=True)
class ShowdownAnalysis:
    """Exact figures of Showdown Póker under the bet's optimal strategy (see the module docstring)."""

    max_exchange: int
    paytable: dict[str, int]
    bonus_paytable: dict[str, int]
    pot_commission_percent: int
    bet_ev: Fraction  # expected net result of the bet (and its increments) per unit of initial bet
    increments: dict[int, Fraction]  # P(0, 1, 2 increments made)
    exchanges: dict[int, Fraction]  # P(0..3 cards exchanged)
    final_hands: dict[str, Fraction]  # distribution of the final hand over OUTCOMES
    bonus_ev: Fraction
    strategy: tuple[StartingHand, ...]
    seconds: float = field(compare=False)

    @property
    def house_edge(self) -> Fraction:
        """Expected loss per unit of initial bet (positive = the house gains)."""
        return -self.bet_ev

    @property
    def average_wager(self) -> Fraction:
        """Expected total staked on bet + increments, per unit of initial bet."""
        return 1 + self.increments[1] + 2 * self.increments[2]

    @property
    def bonus_edge(self) -> Fraction:
        """Expected loss per unit of bonus bet."""
        return -self.bonus_ev

    @property
    def pot_edge(self) -> Fraction:
        """Expected cost per unit of pot bet with two or more players (the commission); 0 alone."""
        return Fraction(self.pot_commission_percent, 100)

    def to_json(self) -> dict[str, Any]:
        """The `tapete analyze showdown_poker --json` body (figures as floats; exact ones as strings too)."""
        by_n = {str(n): float(self.pot_edge if n >= 2 else 0) for n in range(1, 8)}
        return {
            "game": "showdown_poker",
            "rules": {
                "decks": 1,
                "max_exchange": self.max_exchange,
                "paytable": self.paytable,
                "bonus_paytable": self.bonus_paytable,
                "pot_commission_percent": self.pot_commission_percent,
            },
            "bets": {
                "bet": {
                    "house_edge": float(self.house_edge),
                    "house_edge_exact": str(self.house_edge),
                    "exact": True,
                    "per": "unit of initial bet, increments made optimally",
                    "edge_per_unit_wagered": float(self.house_edge / self.average_wager),
                    "average_wager": float(self.average_wager),
                    "increments": {str(k): float(v) for k, v in self.increments.items()},
                    "exchanges": {str(k): float(v) for k, v in self.exchanges.items()},
                    "outcomes": {
                        "win": float(sum(self.final_hands[o] for o in OUTCOMES[3:])),
                        "push": float(self.final_hands["high_pair"]),
                        "lose": float(self.final_hands["high_card"] + self.final_hands["low_pair"]),
                    },
                    "final_hands": {k: float(v) for k, v in self.final_hands.items()},
                },
                "bonus": {
                    "house_edge": float(self.bonus_edge),
                    "house_edge_exact": str(self.bonus_edge),
                    "exact": True,
                    "assumes": "the player plays the bet's optimal strategy",
                },
                "pot": {
                    "house_edge": float(self.pot_edge),
                    "house_edge_exact": str(self.pot_edge),
                    "exact": True,
                    "per": "unit of pot bet; the commission, with 2+ players (returned to a lone player)",
                    "by_players": by_n,
                },
            },
            "strategy": [h.to_json() for h in self.strategy],
            "seconds": round(self.seconds, 3),
        }

    def best_keep(self, cards: Sequence[int | str]) -> tuple[int, ...]:
        """The cards to keep from a starting hand (any suits), by the optimal strategy."""
        return _best_keep(self, _as_cards(cards))


def _as_cards(cards: Sequence[int | str]) -> tuple[int, int, int]:
    out = [c if isinstance(c, int) else parse_cards([c])[0] for c in cards]
    if len(out) != 3 or len(set(out)) != 3 or any(not 0 <= c < DECK_SIZE for c in out):
        raise BadCards(f"a Showdown starting hand is three distinct cards, got {list(cards)}")
    a, b, c = sorted(out)
    return a, b, c


def _best_keep(analysis: ShowdownAnalysis, hand: tuple[int, int, int]) -> tuple[int, ...]:
    sym = _symmetry()
    cls = int(sym.s_class[sym.idx3[(hand[0] * 52 + hand[1]) * 52 + hand[2]]])
    entry = analysis.strategy[cls]
    rep = entry.cards
    # find a suit relabelling that maps the hand onto the representative, then map the kept cards back
    for perm in _PERMS:
        mapped = sorted(int(c // 4 * 4 + perm[c % 4]) for c in hand)
        if tuple(mapped) == rep:
            inverse = {int(c // 4 * 4 + perm[c % 4]): c for c in hand}
            return tuple(sorted(inverse[k] for k in entry.keep))
    raise AssertionError("unreachable: every hand maps onto its class representative")  # pragma: no cover


def _require_numba() -> None:
    if not HAVE_NUMBA:  # pragma: no cover
        raise RuntimeError("the exact Showdown analysis needs Numba: pip install 'tapete[fast]'")


def _check_exchange(max_exchange: int) -> None:
    if not isinstance(max_exchange, int) or not 0 <= max_exchange <= 3:
        raise InvalidRules(f"max_exchange must be 0..3, got {max_exchange!r}")


def hand_options(
    cards: Sequence[int | str], max_exchange: int = 3, paytable: Mapping[str, int] | None = None
) -> dict[tuple[int, ...], Fraction]:
    """Exact expected result (per unit of initial bet, optimal increments) of every allowed exchange of one
    starting hand, keyed by the kept cards. Computed directly for this hand (~0.5 s), not from the table."""
    _require_numba()
    _check_exchange(max_exchange)
    hand = _as_cards(cards)
    cls_plain, cls_flush = _outcome_tables()
    pay = _pay_vector(paytable, SHOWDOWN_PAYTABLE, push_high_pair=True)
    out = np.zeros((8, 3), dtype=np.int64)
    _options_for_start(np.array(hand, dtype=np.int64), max_exchange, cls_plain, cls_flush, pay, out)
    result: dict[tuple[int, ...], Fraction] = {}
    for mask in range(7, -1, -1):
        kept = tuple(hand[i] for i in range(3) if (mask >> i) & 1)
        if 3 - len(kept) <= max_exchange:
            result[kept] = Fraction(int(out[mask, 0]), _den(3 - len(kept)))
    return result


# --------------------------------------------------------------------------------------------------
# The increment decisions of one final hand (what a player at the table applies; the engine simulation
# plays them).

#: Per suit: (ranks of the final cards in it, ranks of the dead cards in it), both sorted.
_SuitSig = tuple[tuple[int, ...], tuple[int, ...]]
_DecisionKey = tuple[_SuitSig, _SuitSig, _SuitSig, _SuitSig]


def increment_decisions(
    final3: Sequence[int | str],
    discards: Sequence[int | str] = (),
    community1: int | str | None = None,
    paytable: Mapping[str, int] | None = None,
) -> tuple[bool, bool | None]:
    """The optimal strategy's increments, exactly as the analysis decides them: ``(Nº1, Nº2)``.

    ``final3`` are the player's three cards after the exchange, ``discards`` the cards he gave up (dead:
    they never come back), ``community1`` the first community card once shown (Nº2 is None without it).
    With ``d`` discards it counts, over the ``49 - d`` cards he has not seen, ``s(c1) = sum of m(H + c1 +
    c2)`` over the ``48 - d`` possible second community cards (m = net result per unit by the paytable):
    Nº1 is made iff ``sum s + sum max(0, s) > 0`` (increment Nº1 plus an optimal Nº2 strictly gains in
    expectation), Nº2 iff ``s(community1) > 0`` (only asked of a player who made Nº1, Art.9.4). Same
    integers as the analysis's scan. Cached (LRU) on the suit-canonical form of (final3, discards): ~150 µs
    the first time, ~20 µs after (Nº1 then Nº2 of the same hand cost one computation).
    """
    hand = _as_cards(final3)
    dead = [c if isinstance(c, int) else parse_cards([c])[0] for c in discards]
    if len(dead) > 3 or len(set(dead)) != len(dead) or set(dead) & set(hand):
        raise BadCards(f"discards must be up to three distinct cards not in the hand, got {list(discards)}")
    if any(not 0 <= c < DECK_SIZE for c in dead):
        raise BadCards(f"not a card: {dead}")
    pt = _DEFAULT_PAY_KEY if paytable is None else tuple(sorted(paytable.items()))
    key, suit_of = _canonical_suits(hand, dead)
    make1, positive = _increment_rule(key, pt)
    if community1 is None:
        return make1, None
    c1 = community1 if isinstance(community1, int) else parse_cards([community1])[0]
    if not 0 <= c1 < DECK_SIZE or c1 in hand or c1 in dead:
        raise BadCards(f"the first community card cannot be one of the player's or dead cards: {c1}")
    canonical = c1 // 4 * 4 + suit_of[c1 % 4]
    return make1, positive[canonical] == 1


def _canonical_suits(hand: Sequence[int], dead: Sequence[int]) -> tuple[_DecisionKey, list[int]]:
    """A complete suit-isomorphism invariant of (hand, dead): the four suits' signatures, sorted, and the
    relabelling (old suit -> position in that order) that maps the cards onto the key's representative.
    Two suits with equal signatures hold the same ranks, so the order between them does not matter."""
    own: list[list[int]] = [[], [], [], []]
    gone: list[list[int]] = [[], [], [], []]
    for c in sorted(hand):
        own[c % 4].append(c // 4)
    for c in sorted(dead):
        gone[c % 4].append(c // 4)
    sigs: list[_SuitSig] = [(tuple(own[s]), tuple(gone[s])) for s in range(4)]
    order = sorted(range(4), key=lambda s: sigs[s])
    suit_of = [0] * 4
    for pos, s in enumerate(order):
        suit_of[s] = pos
    key = (sigs[order[0]], sigs[order[1]], sigs[order[2]], sigs[order[3]])
    return key, suit_of


@lru_cache(maxsize=1 << 16)
def _increment_rule(key: _DecisionKey, paytable: tuple[tuple[str, int], ...]) -> tuple[bool, bytes]:
    """For the representative of `key` (suit i holds key[i]): whether Nº1 is made, and per card c1 of the
    representative's labelling a byte that is 1 when Nº2 strictly pays after c1 is shown."""
    _require_numba()
    hand = sorted(r * 4 + s for s, (hr, _) in enumerate(key) for r in hr)
    dead = np.full(3, -1, dtype=np.int64)
    for i, c in enumerate(r * 4 + s for s, (_, dr) in enumerate(key) for r in dr):
        dead[i] = c
    cls_plain, cls_flush = _outcome_tables()
    positive = np.zeros(DECK_SIZE, dtype=np.uint8)
    make1 = _increments_of(
        hand[0], hand[1], hand[2], dead, cls_plain, cls_flush, _bet_pay(paytable), positive
    )
    return bool(make1), positive.tobytes()


@lru_cache(maxsize=8)
def _bet_pay(paytable: tuple[tuple[str, int], ...]) -> I64:
    """The bet's net-result vector by outcome class, built once per paytable."""
    return _pay_vector(dict(paytable), SHOWDOWN_PAYTABLE, push_high_pair=True)


_DEFAULT_PAY_KEY = tuple(sorted(SHOWDOWN_PAYTABLE.items()))


@jit
def _increments_of(
    x: int,
    y: int,
    z: int,
    dead: I64,
    cls_plain: I32,
    cls_flush: I32,
    pay: I64,
    positive: npt.NDArray[np.uint8],
) -> bool:
    """Final cards x y z with dead cards ``dead`` (-1 = none): the scan of `_accumulate` for this one
    (H, D). Sets ``positive[c1] = 1`` where ``s(c1) > 0`` and returns whether Nº1 is made."""
    unseen = np.empty(49, dtype=np.int64)
    mpay = np.empty((49, 49), dtype=np.int32)
    mcls = np.empty((49, 49), dtype=np.int32)
    rowsum = np.empty(49, dtype=np.int32)
    _fill(x, y, z, cls_plain, cls_flush, pay, unseen, mpay, mcls, rowsum)
    di = np.full(3, -1, dtype=np.int64)
    for j in range(3):
        for i in range(49):
            if dead[j] >= 0 and unseen[i] == dead[j]:
                di[j] = i
    v = np.empty(49, dtype=np.int32)
    for i in range(49):
        t = rowsum[i]
        for j in range(3):
            if di[j] >= 0:
                t -= mpay[di[j], i]
        v[i] = t
    total, pos, _npos = _scan(v, di[0], di[1], di[2])
    for i in range(49):
        if v[i] > 0 and i != di[0] and i != di[1] and i != di[2]:
            positive[unseen[i]] = 1
    return total + pos > 0


_CacheKey = tuple[int, tuple[tuple[str, int], ...], tuple[tuple[str, int], ...], int]
#: Results already computed in this process, by settings (the analysis is deterministic).
_CACHE: dict[_CacheKey, ShowdownAnalysis] = {}


def analyze_showdown(
    max_exchange: int = 3,
    paytable: Mapping[str, int] | None = None,
    bonus_paytable: Mapping[str, int] | None = None,
    progress: ProgressFn | None = None,
    *,
    pot_commission_percent: int = 5,
    workers: int = 2,
) -> ShowdownAnalysis:
    """Exact optimal strategy and edges of Showdown Póker for these settings (cached per settings).

    ``paytable`` / ``bonus_paytable`` map category keys (``two_pair`` … ``royal_flush``) to x-to-1 odds
    (defaults: Art.11 and rules.md's bonus table); ``progress(done, total)`` is called as the 1,755
    final-hand classes are scanned; ``workers`` threads share the scan (the kernels release the GIL).
    """
    _require_numba()
    _check_exchange(max_exchange)
    if not 0 <= pot_commission_percent <= 100:
        raise InvalidRules(f"pot_commission_percent must be 0..100, got {pot_commission_percent}")
    pt = dict(SHOWDOWN_PAYTABLE if paytable is None else paytable)
    bt = dict(DEFAULT_BONUS_PAYTABLE if bonus_paytable is None else bonus_paytable)
    _pay_vector(pt, SHOWDOWN_PAYTABLE, True)  # validate before the long run
    _pay_vector(bt, DEFAULT_BONUS_PAYTABLE, False)
    key = (max_exchange, tuple(sorted(pt.items())), tuple(sorted(bt.items())), pot_commission_percent)
    cached = _CACHE.get(key)
    if cached is None:
        cached = _analyze(max_exchange, pt, bt, pot_commission_percent, progress, max(1, workers), 16)
        _CACHE[key] = cached
    elif progress is not None:
        progress(1, 1)
    return cached


def _analyze(
    max_exchange: int,
    paytable: dict[str, int],
    bonus_paytable: dict[str, int],
    pot_commission_percent: int,
    progress: ProgressFn | None,
    workers: int,
    chunk: int,
) -> ShowdownAnalysis:
    t0 = time.perf_counter()
    sym = _symmetry()
    cls_plain, cls_flush = _outcome_tables()
    pay = _pay_vector(paytable, SHOWDOWN_PAYTABLE, push_high_pair=True)
    bonus = _pay_vector(bonus_paytable, DEFAULT_BONUS_PAYTABLE, push_high_pair=False)
    n_pairs = len(sym.pair_size)
    n_reps = len(sym.reps)
    bounds = [(lo, min(lo + chunk, n_reps)) for lo in range(0, n_reps, chunk)]

    def work(span: tuple[int, int]) -> tuple[I64, int]:
        acc = np.zeros((n_pairs, 3 + N_OUT), dtype=np.int64)
        _accumulate(
            sym.reps,
            sym.weights,
            span[0],
            span[1],
            max_exchange,
            cls_plain,
            cls_flush,
            pay,
            sym.idx3,
            sym.pair_class,
            acc,
        )
        return acc, span[1] - span[0]

    total_acc = np.zeros((n_pairs, 3 + N_OUT), dtype=np.int64)
    done = 0
    if progress is not None:
        progress(0, n_reps)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for acc, n in pool.map(work, bounds):
            total_acc += acc
            done += n
            if progress is not None:
                progress(done, n_reps)
    size = sym.pair_size[:, None]
    if (total_acc % size).any():  # would mean a bug in the symmetry bookkeeping
        raise RuntimeError("a pair-class sum is not a multiple of the class size")
    per_member = total_acc // size  # exact: every member of a pair class has the same value
    ev_num, inc1_num, inc2_num, out_num = (
        per_member[:, 0],
        per_member[:, 1],
        per_member[:, 2],
        per_member[:, 3:],
    )

    # options of each starting class, read off the class representative's eight keep masks
    strategy: list[StartingHand] = []
    bet_ev = Fraction(0)
    p_inc1 = Fraction(0)
    p_inc2 = Fraction(0)
    exchanges = dict.fromkeys(range(4), Fraction(0))
    final = dict.fromkeys(OUTCOMES, Fraction(0))
    for cls in range(n_reps):
        rep = tuple(int(c) for c in sym.reps[cls])
        sidx = int(sym.idx3[(rep[0] * 52 + rep[1]) * 52 + rep[2]])
        options: list[tuple[tuple[int, ...], Fraction, int]] = []
        for mask in range(7, -1, -1):  # keep-all first: ties go to fewer exchanged cards
            kept = tuple(rep[i] for i in range(3) if (mask >> i) & 1)
            d = 3 - len(kept)
            if d > max_exchange:
                continue
            pc = int(sym.pair_class[sidx * 8 + mask])
            options.append((kept, Fraction(int(ev_num[pc]), _den(d)), pc))
        options.sort(key=lambda o: (-o[1], 3 - len(o[0])))
        kept, ev, pc = options[0]
        d = 3 - len(kept)
        weight = Fraction(int(sym.weights[cls]), N_START)
        n_r = math.comb(UNSEEN, d)
        q1 = Fraction(int(inc1_num[pc]), n_r)
        q2 = Fraction(int(inc2_num[pc]), n_r * (UNSEEN - d))
        bet_ev += weight * ev
        p_inc1 += weight * q1
        p_inc2 += weight * q2
        exchanges[d] += weight
        n_final = n_r * math.comb(UNSEEN - d, 2)
        for k, name in enumerate(OUTCOMES):
            final[name] += weight * Fraction(int(out_num[pc, k]), n_final)
        strategy.append(
            StartingHand(
                cards=rep,
                combos=int(sym.weights[cls]),
                keep=kept,
                ev=ev,
                p_increment1=q1,
                p_increment2=q2,
                options=tuple((k, v) for k, v, _ in options),
            )
        )
    if sum(final.values()) != 1:
        raise RuntimeError("final-hand probabilities do not sum to 1")
    bonus_ev = sum((final[name] * int(bonus[k]) for k, name in enumerate(OUTCOMES)), Fraction(0))
    return ShowdownAnalysis(
        max_exchange=max_exchange,
        paytable=paytable,
        bonus_paytable=bonus_paytable,
        pot_commission_percent=pot_commission_percent,
        bet_ev=bet_ev,
        increments={0: 1 - p_inc1, 1: p_inc1 - p_inc2, 2: p_inc2},
        exchanges=exchanges,
        final_hands=final,
        bonus_ev=bonus_ev,
        strategy=tuple(strategy),
        seconds=time.perf_counter() - t0,
    )


# --------------------------------------------------------------------------------------------------
# The strategy as lookup tables, for the simulation kernel (tapete.sim.kernels.showdown).


@dataclass(frozen=True)
class ShowdownTables:
    """The analysis's optimal play as arrays a compiled kernel reads.

    Starting hands and final hands are sorted triples, indexed through ``idx3[(a * 52 + b) * 52 + c]``.
    ``keep[t]`` is the exchange: bit i set = keep the i-th card of triple t (what `best_keep` keeps).
    The increments: a final hand t is mapped by the suit relabelling ``perms[perm[t]]`` (suit -> suit)
    onto its class representative ``reps[s_class[t]]``, whose 49 other cards (in increasing order) index
    ``mpay[class, i, j]`` (net result per unit of the final hand with community cards i, j) and
    ``rowsum[class, i]``; with dead cards D, ``s(c1) = rowsum[c1] - sum over d in D of mpay[d, c1]``, and
    Nº1 is made iff ``sum s + sum max(0, s) > 0`` over the c1 not in D, Nº2 iff ``s(c1) > 0`` — the
    integers of `increment_decisions`. ``bet_pay`` is the bet's net per unit by outcome class."""

    keep: npt.NDArray[np.int8]
    idx3: I32
    s_class: I32
    perm: npt.NDArray[np.int8]
    perms: npt.NDArray[np.int8]
    reps: I64
    mpay: npt.NDArray[np.int16]
    rowsum: I32
    bet_pay: I64


def strategy_tables(analysis: ShowdownAnalysis) -> ShowdownTables:
    """The tables of the analysis's exchange (`best_keep`, the first suit relabelling onto the class
    representative, as `best_keep` takes it) and of its increment rule (see `ShowdownTables`)."""
    sym = _symmetry()
    cls_plain, cls_flush = _outcome_tables()
    pay = _pay_vector(analysis.paytable, SHOWDOWN_PAYTABLE, push_high_pair=True)
    triples = sym.triples
    ranks, suits = triples // 4, triples % 4
    mapped = np.sort(ranks[None, :, :] * 4 + _PERMS[:, suits], axis=2)  # [24, 22100, 3]
    codes = _encode3(mapped)
    rep_codes = _encode3(sym.reps)[sym.s_class]
    perm = np.argmax(codes == rep_codes[None, :], axis=0).astype(np.int8)  # the first relabelling
    keep = np.zeros(len(triples), dtype=np.int8)
    for t in range(len(triples)):
        entry = analysis.strategy[int(sym.s_class[t])]
        p = _PERMS[int(perm[t])]
        kept = set(entry.keep)
        for i in range(3):
            c = int(triples[t, i])
            if c // 4 * 4 + int(p[c % 4]) in kept:
                keep[t] |= 1 << i
    n = len(sym.reps)
    mpay = np.empty((n, UNSEEN, UNSEEN), dtype=np.int16)
    rowsum = np.empty((n, UNSEEN), dtype=np.int32)
    unseen = np.empty(UNSEEN, dtype=np.int64)
    m32 = np.empty((UNSEEN, UNSEEN), dtype=np.int32)
    mcls = np.empty((UNSEEN, UNSEEN), dtype=np.int32)
    row = np.empty(UNSEEN, dtype=np.int32)
    for k in range(n):
        x, y, z = (int(c) for c in sym.reps[k])
        _fill(x, y, z, cls_plain, cls_flush, pay, unseen, m32, mcls, row)
        mpay[k] = m32
        rowsum[k] = row
    return ShowdownTables(
        keep=keep,
        idx3=sym.idx3,
        s_class=sym.s_class.astype(np.int32),
        perm=perm,
        perms=_PERMS.astype(np.int8),
        reps=sym.reps,
        mpay=mpay,
        rowsum=rowsum,
        bet_pay=pay,
    )
