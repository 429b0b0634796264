"""Combinatorial Black Jack analyzer for the regulation's game (BJ Art.8-14; M21 main game).

What it computes, for a finite shoe of `decks` decks (or any composition by value):

* the dealer's final-total probabilities (17, 18, 19, 20, 21, bust, Black Jack) for each up-card, with the
  no-peek convention of the regulation: the hole card is dealt at the deal and only checked at the end,
  so Black Jack is one of the dealer's outcomes;
* for every player first two cards (by value) against every up-card: the expected value of standing,
  hitting (optimal continuation), doubling, splitting (up to the table's maximum, Aces one card) and
  retiring (surrender);
* the optimal total-dependent basic strategy for the settings, the composition-dependent one, and the
  house edge of the whole game with each.

Why the no-peek game is computed like a peek game: with "original bets only" (OBO), a dealer Black Jack
costs the player exactly one unit whatever he did after the deal (doubles and split stakes are returned),
so at every decision the dealer-Black-Jack branch adds the same constant to every action. The analyzer
therefore carries, for every player hand, ``W = E[payoff * 1{dealer has no Black Jack}]`` computed with the
*unconditional* dealer distribution of the remaining shoe (the hole card is exchangeable with the cards
the player draws, so it is drawn after them); the expected value of an action at the deal is
``W - P(dealer BJ)``. This is exact, needs no conditioning of the hole card, and gives the same numbers as
a peek analyzer for the main bet. Surrender is decided before the hole card is known, so against a ten
it is *early* surrender: −0.5 whatever the dealer holds. With ``obo=False`` every stake loses to a dealer
Black Jack (the "ENHC" convention of British casinos), for comparison.

Method and cost: player hands are multisets of values with hard total ≤ 21 (3,083 of them); the dealer's
play is pre-enumerated once per up-card as a trie of sorted multisets of drawn cards with their number of
valid drawing orders, so the dealer distribution for any shoe is one pass over ~200-2,500 trie nodes.
Numba compiles the kernels (cached on disk); without Numba the same code runs in pure Python, slowly.

Splits are exact (Eric Farmer's method for CDZ-): a split hand plays as an unsplit hand of the same
cards would ("composition-dependent zero-memory"), so by exchangeability its value needs only the shoe
less the up-card, the pair cards dealt to the other hands and a count of their other second cards,
removed one random card at a time; the resplit patterns are counted exactly. See _split_total and
docs/math-blackjack.md.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

import numpy as np
import numpy.typing as npt

from tapete.errors import InvalidRules
from tapete.math import _bjnative
from tapete.rules.blackjack import shoe_counts as shoe_counts
from tapete.rules.blackjack import split_limit

#: the kernels compiled from C (tapete/math/_bjkernels.c), when a C compiler is at hand
_NATIVE = _bjnative.load()

_numba: Any = None
if _NATIVE is None:
    try:  # Numba is optional (extra "fast"); the kernels are plain Python without it.
        import numba as _numba
    except ImportError:  # pragma: no cover - exercised only where numba is missing
        _numba = None

F = TypeVar("F", bound=Callable[..., Any])

IntArr = npt.NDArray[np.int64]
FloatArr = npt.NDArray[np.float64]
BoolArr = npt.NDArray[np.bool_]


def _jit(func: F) -> F:
    """Compile with Numba (nopython, cached on disk) when it is installed, else leave the function as is."""
    if _numba is None:  # pragma: no cover
        return func
    return cast(F, _numba.njit(cache=True)(func))


#: Value indices used throughout: 0 = Ace, 1 = 2, ..., 8 = 9, 9 = any ten-value card (10, J, Q, K).
VALUE_LABELS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T")
#: Dealer outcomes in the order of the probability vectors.
OUTCOMES: tuple[str, ...] = ("17", "18", "19", "20", "21", "bust", "blackjack")
#: Chart column order: up-cards 2..9, T, A (value indices).
CHART_UPCARDS: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9, 0)
_TEN = 9
_ACE = 0
_BJ = 6
_BUST = 5

Action = Literal["S", "H", "D", "P", "R"]
ProgressFn = Callable[[int, int], None]


# --------------------------------------------------------------------------------------------------
# Player hands: every multiset of values with hard total <= 21, sorted by decreasing hard total so a
# backward pass sees every successor (hand + one card) before the hand itself.
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _States:
    cnt: IntArr  # (S, 10) cards of each value
    hard: IntArr  # (S,) sum with Aces as 1
    ncards: IntArr  # (S,)
    tot: IntArr  # (S,) best total (an Ace as 11 when it does not bust)
    soft: IntArr  # (S,) 1 if an Ace counts 11
    cls: IntArr  # (S,) total class: soft * 32 + tot
    trans: IntArr  # (S, 10) index of hand + value, -1 when it busts
    index: dict[tuple[int, ...], int]


def _class_id(soft: int, tot: int) -> int:
    return soft * 32 + tot


def hand_states() -> _States:
    """The 3,083 player hands (multisets of values with hard total <= 21) with their totals and the
    transition ``trans[s, v]`` to the hand plus one card of value v (-1 = bust): the index a strategy
    table and the simulation kernels share."""
    return _states()


@cache
def _states() -> _States:
    """Enumerate the player hands once per process (3,083 multisets), sorted by hard total descending."""
    found: list[tuple[int, ...]] = []
    cnt = [0] * 10

    def rec(i: int, s: int) -> None:
        if i == 10:
            found.append(tuple(cnt))
            return
        k = 0
        while s + k * (i + 1) <= 21:
            cnt[i] = k
            rec(i + 1, s + k * (i + 1))
            k += 1
        cnt[i] = 0

    rec(0, 0)
    a_cnt = np.array(found, dtype=np.int64)
    hard = a_cnt @ np.arange(1, 11, dtype=np.int64)
    # each hand's key in base 22 (no value appears 22 times): the hand plus a card of value v is key + 22**v
    weights = 22 ** np.arange(9, -1, -1, dtype=np.int64)
    key = a_cnt @ weights
    order = np.lexsort((key, -hard))  # by hard total descending, then by the counts (A first)
    a_cnt, hard, key = a_cnt[order], hard[order], key[order]
    n = a_cnt.shape[0]
    ncards = a_cnt.sum(axis=1)
    soft = ((a_cnt[:, 0] > 0) & (hard + 10 <= 21)).astype(np.int64)
    tot = hard + 10 * soft
    cls = soft * 32 + tot
    by_key = np.argsort(key)
    nxt = key[:, None] + weights[None, :]
    pos = np.searchsorted(key, nxt, sorter=by_key).clip(max=n - 1)
    hit = by_key[pos]
    trans = np.where(key[hit] == nxt, hit, -1).astype(np.int64)
    index = dict(zip(map(tuple, a_cnt.tolist()), range(n), strict=True))
    return _States(a_cnt, hard, ncards, tot, soft, cls, trans, index)


# --------------------------------------------------------------------------------------------------
# Dealer: every way the dealer can finish from each up-card, as sorted multisets of drawn cards (hole
# card included) with the number of drawing orders that end exactly there. The probability of a multiset
# m from a shoe n (N cards) is orders(m) * prod_v n_v^(m_v falling) / N^(|m| falling), accumulated along
# a trie whose node k multiplies its parent by (n_v - j) / (N - d).
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Trie:
    parent: IntArr
    value: IntArr
    before: IntArr  # cards of the same value already in the multiset
    depth: IntArr  # cards drawn before this one
    orders: FloatArr  # drawing orders that stop exactly at this multiset (0 if none)
    outcome: IntArr  # outcome index if the dealer stops here, else -1


def _dealer_finishes(up: int, h17: bool) -> Counter[tuple[tuple[int, ...], int]]:
    """Count the ordered draws from `up` by (sorted multiset, outcome): stand on 17 (hit soft 17 if h17)."""
    out: Counter[tuple[tuple[int, ...], int]] = Counter()
    seq: list[int] = []

    def go(hard: int, ace: bool) -> None:
        if len(seq) == 1 and ((up == _ACE and seq[0] == _TEN) or (up == _TEN and seq[0] == _ACE)):
            out[(tuple(sorted(seq)), _BJ)] += 1
            return
        soft = ace and hard + 10 <= 21
        total = hard + 10 if soft else hard
        if total > 21:
            out[(tuple(sorted(seq)), _BUST)] += 1
            return
        if total >= 18 or (total == 17 and not (h17 and soft)):
            out[(tuple(sorted(seq)), total - 17)] += 1
            return
        for v in range(10):
            seq.append(v)
            go(hard + v + 1, ace or v == _ACE)
            seq.pop()

    go(up + 1, up == _ACE)
    return out


_TRIE_FIELDS = ("parent", "value", "before", "depth", "orders", "outcome")


@lru_cache(maxsize=4)
def _dealer_tries(h17: bool) -> tuple[_Trie, ...]:
    """One trie per up-card (value index); kept on disk beside the compiled kernels (keyed by this
    file's hash), since building them is a tenth of a second of Python."""
    path = _bjnative.cache_file(f"dealer-tries-{int(h17)}", Path(__file__).read_bytes(), ".npz")
    if path is not None and path.exists():
        try:
            with np.load(path) as data:
                return tuple(
                    _Trie(*(np.ascontiguousarray(data[f"{up}_{f}"]) for f in _TRIE_FIELDS))
                    for up in range(10)
                )
        except (OSError, KeyError, ValueError):
            pass
    tries = _build_tries(h17)
    if path is not None:
        arrays = {f"{up}_{f}": getattr(t, f) for up, t in enumerate(tries) for f in _TRIE_FIELDS}
        _bjnative.save_npz(path, arrays)
    return tries


def _build_tries(h17: bool) -> tuple[_Trie, ...]:
    """One trie per up-card (value index)."""
    tries: list[_Trie] = []
    for up in range(10):
        fin = _dealer_finishes(up, h17)
        term: dict[tuple[int, ...], tuple[int, int]] = {}
        for (m, o), k in fin.items():
            if m in term:  # pragma: no cover - a multiset fixes the total, hence the outcome
                raise AssertionError(f"dealer multiset {m} has two outcomes")
            term[m] = (o, k)
        nodes: set[tuple[int, ...]] = {()}
        for m in term:
            for i in range(1, len(m) + 1):
                nodes.add(m[:i])
        order = sorted(nodes, key=lambda m: (len(m), m))
        pos = {m: i for i, m in enumerate(order)}
        n = len(order)
        parent = np.zeros(n, dtype=np.int64)
        value = np.zeros(n, dtype=np.int64)
        before = np.zeros(n, dtype=np.int64)
        depth = np.zeros(n, dtype=np.int64)
        orders = np.zeros(n, dtype=np.float64)
        outcome = np.full(n, -1, dtype=np.int64)
        for i, m in enumerate(order):
            if m:
                parent[i] = pos[m[:-1]]
                value[i] = m[-1]
                before[i] = m[:-1].count(m[-1])
                depth[i] = len(m) - 1
            if m in term:
                outcome[i], k = term[m]
                orders[i] = float(k)
        # The bust leaves (two in five nodes) are dropped: a walk gives bust as one minus the rest, as
        # Farmer's analyzer does (exact whenever the shoe cannot run out during the dealer's draw).
        has_child = np.zeros(n, dtype=np.bool_)
        has_child[parent[1:]] = True
        keep = has_child | (outcome != _BUST)
        keep[0] = True
        new_pos = np.cumsum(keep) - 1
        tries.append(
            _Trie(
                np.ascontiguousarray(new_pos[parent[keep]]),
                np.ascontiguousarray(value[keep]),
                np.ascontiguousarray(before[keep]),
                np.ascontiguousarray(depth[keep]),
                np.ascontiguousarray(orders[keep]),
                np.ascontiguousarray(outcome[keep]),
            )
        )
    return tuple(tries)


# --------------------------------------------------------------------------------------------------
# Kernels (Numba). `avail` is the shoe the hand's cards come from: pack minus up-card minus any extra
# removed cards (the other split cards). A hand's own cards are subtracted inside.
# --------------------------------------------------------------------------------------------------


@_jit
def _walk_trie(
    shoe: FloatArr,
    m: int,
    t_parent: IntArr,
    t_value: IntArr,
    t_before: IntArr,
    t_depth: IntArr,
    t_orders: FloatArr,
    t_outcome: IntArr,
    nodep: FloatArr,
    inv: FloatArr,
    dist: FloatArr,
) -> None:
    """Dealer outcome probabilities for a shoe (`shoe` counts by value, `m` cards) into `dist`; the trie
    has no bust leaves, so bust is what the other outcomes leave."""
    for d in range(inv.shape[0]):
        inv[d] = 1.0 / (m - d) if m - d > 0 else 0.0
    for o in range(7):
        dist[o] = 0.0
    nodep[0] = 1.0
    for k in range(1, t_parent.shape[0]):
        pp = nodep[t_parent[k]]
        num = shoe[t_value[k]] - t_before[k]
        if pp == 0.0 or num <= 0.0:
            nodep[k] = 0.0
            continue
        p = pp * num * inv[t_depth[k]]
        nodep[k] = p
        o = t_outcome[k]
        if o >= 0:
            dist[o] += t_orders[k] * p
    dist[5] = 1.0 - (dist[0] + dist[1] + dist[2] + dist[3] + dist[4] + dist[6])


@_jit
def _dealer_kernel(
    avail: IntArr,
    cnt: IntArr,
    ncards: IntArr,
    need: BoolArr,
    t_parent: IntArr,
    t_value: IntArr,
    t_before: IntArr,
    t_depth: IntArr,
    t_orders: FloatArr,
    t_outcome: IntArr,
    src_idx: IntArr,
    src_done: BoolArr,
    src_dist: FloatArr,
    dist_out: FloatArr,
    feas_out: BoolArr,
    done_out: BoolArr,
) -> None:
    """Dealer outcome distribution for the shoe left by every needed hand (the costly step).

    When another table already holds the same shoe (``src_idx[s] >= 0`` and ``src_done`` there: a split
    hand whose cards plus one more pair card form a hand of that table), its distribution is copied
    instead of walking the trie again.
    """
    n_nodes = t_parent.shape[0]
    nodep = np.zeros(n_nodes)
    shoe = np.zeros(10)
    dist = np.zeros(7)
    inv = np.zeros(32)
    nav = 0
    for v in range(10):
        nav += avail[v]
    for s in range(cnt.shape[0]):
        feas = True
        for v in range(10):
            x = avail[v] - cnt[s, v]
            if x < 0:
                feas = False
            shoe[v] = x
        feas_out[s] = feas
        if not feas or not need[s]:
            continue
        j = src_idx[s]
        if j >= 0 and src_done[j]:
            for o in range(7):
                dist_out[s, o] = src_dist[j, o]
        else:
            _walk_trie(
                shoe,
                nav - ncards[s],
                t_parent,
                t_value,
                t_before,
                t_depth,
                t_orders,
                t_outcome,
                nodep,
                inv,
                dist,
            )
            for o in range(7):
                dist_out[s, o] = dist[o]
        done_out[s] = True


def _stand_w(dist: FloatArr, tot: IntArr, enhc: bool) -> FloatArr:
    """W of standing: win on dealer bust or lower total, lose to a higher one; the dealer-BJ branch counts
    0 under OBO (it is the constant -P(BJ) added at the deal) and -1 under ENHC."""
    w: FloatArr = dist[:, _BUST].copy()
    for i in range(5):
        w += np.sign(tot - (17 + i)) * dist[:, i]
    if enhc:
        w -= dist[:, _BJ]
    return w


@_jit
def _bust_value(avail: IntArr, up: int, cnt: IntArr, s: int, v: int, m: int, enhc: bool) -> float:
    """W of a hand that busts after drawing `v`: -1 on the no-BJ branch only (OBO), or -1 (`enhc`: the
    ENHC rule, or a split hand whose whole stake is an extra one, lost on the dealer-BJ branch too)."""
    if enhc or (up != 0 and up != 9):
        return -1.0
    x = 9 if up == 0 else 0
    rest = m - 1
    if rest <= 0:
        return -1.0
    k = int(avail[x] - cnt[s, x])
    if v == x:
        k -= 1
    return -(1.0 - k / rest)


@_jit
def _cd_kernel(
    avail: IntArr,
    up: int,
    cnt: IntArr,
    ncards: IntArr,
    trans: IntArr,
    stand_w: FloatArr,
    feas: BoolArr,
    play: BoolArr,
    enhc: bool,
    peek: bool,
    hit_out: FloatArr,
    dbl_out: FloatArr,
    best_out: FloatArr,
) -> None:
    """Backward pass: W of hitting (then playing optimally), of doubling, and the better of stand/hit.

    A doubled hand that busts loses the double's stake on the dealer-BJ branch too (no peek: busts are
    final), or only on the no-BJ branch with `peek` (a peek game ends the round before any draw)."""
    nav = 0
    for v in range(10):
        nav += avail[v]
    for s in range(cnt.shape[0]):
        if not feas[s] or not play[s]:
            continue
        m = nav - ncards[s]
        h = 0.0
        dd = 0.0
        for v in range(10):
            num = avail[v] - cnt[s, v]
            if num <= 0:
                continue
            p = num / m
            t = trans[s, v]
            if t < 0:
                b = _bust_value(avail, up, cnt, s, v, m, enhc)
                h += p * b
                dd += p * (2.0 * b if peek else b - 1.0)
            else:
                h += p * best_out[t]
                dd += 2.0 * p * stand_w[t]
        hit_out[s] = h
        dbl_out[s] = dd
        best_out[s] = max(stand_w[s], h)


@_jit
def _split_kernel(
    avail0: IntArr,
    up: int,
    p: int,
    cnt: IntArr,
    ncards: IntArr,
    tot: IntArr,
    trans: IntArr,
    starts: IntArr,
    pol: IntArr,
    t_parent: IntArr,
    t_value: IntArr,
    t_before: IntArr,
    t_depth: IntArr,
    t_orders: FloatArr,
    t_outcome: IntArr,
    reg_idx: IntArr,
    reg_dist: FloatArr,
    comp: IntArr,
    dist: FloatArr,
    done: BoolArr,
    enhc: bool,
    modes: BoolArr,
    out: FloatArr,
) -> None:
    """The terms of `_split_total` for pair p under policy `pol` (0 stand, 1 hit, 2 double; the policy of
    the hand's own cards, whatever the table), for every split table a = 0 .. out.shape[1] - 1.

    Table a: hands that start with p, from the pack less the up-card and 2 + a cards p. Only the hands
    a split hand's play can reach are valued, and only those it can stand on (or end a double on) get a
    dealer distribution: copied from the regular table's hand c + (1 + a) p (``reg_idx``) or from table
    a - 1's hand c + p when either has the same shoe, else walked down the trie, and kept in
    ``dist``/``done`` for later calls. For each of the two stake modes (``modes[i]`` = (base_full,
    dbl_full): a bust loses the stake, or the double's, on the dealer-BJ branch too) ``out`` gets X(a)
    (row 2i: the hand's value over every second card) and P(a) (row 2i + 1: the second card a pair card).
    """
    n = cnt.shape[0]
    ntab = out.shape[1]
    one_card = p == 0
    # The hands the play reaches (it decides there) and those whose stand value it uses.
    reach = np.zeros(n, dtype=np.bool_)
    need = np.zeros(n, dtype=np.bool_)
    for i in range(starts.shape[0]):
        if starts[i] >= 0:
            reach[starts[i]] = True
    for r in range(n):
        s = n - 1 - r  # hands come by decreasing hard total: a hand's successors have smaller indices
        if not reach[s]:
            continue
        if one_card or pol[s] == 0:
            need[s] = True
            continue
        for v in range(10):
            t = trans[s, v]
            if t >= 0:
                if pol[s] == 2:
                    need[t] = True
                else:
                    reach[t] = True
    n_nodes = t_parent.shape[0]
    nodep = np.zeros(n_nodes)
    shoe = np.zeros(10)
    dd = np.zeros(7)
    inv = np.zeros(32)
    stand = np.zeros(n)
    val = np.zeros(n)
    avail = np.zeros(10, dtype=np.int64)
    for a in range(ntab):
        nav = 0
        for v in range(10):
            avail[v] = avail0[v]
            if v == p:
                avail[v] -= 1 + a
            nav += avail[v]
        m2 = nav - 1  # the second card comes from the pack less the hand's p
        if avail[p] < 1 or m2 <= 0:
            for i in range(out.shape[0]):
                out[i, a] = 0.0
            continue
        for s in range(n):
            if not need[s]:
                continue
            feas = True
            for v in range(10):
                if avail[v] - cnt[s, v] < 0:
                    feas = False
            if not feas:
                stand[s] = 0.0
                continue
            cs = comp[s]
            if not done[a, cs]:
                j = reg_idx[a, s]
                k = trans[s, p]
                ck = comp[k] if k >= 0 else -1
                if j >= 0:
                    for o in range(7):
                        dist[a, cs, o] = reg_dist[j, o]
                elif a > 0 and ck >= 0 and done[a - 1, ck]:
                    for o in range(7):
                        dist[a, cs, o] = dist[a - 1, ck, o]
                else:
                    for v in range(10):
                        shoe[v] = avail[v] - cnt[s, v]
                    _walk_trie(
                        shoe,
                        nav - ncards[s],
                        t_parent,
                        t_value,
                        t_before,
                        t_depth,
                        t_orders,
                        t_outcome,
                        nodep,
                        inv,
                        dd,
                    )
                    for o in range(7):
                        dist[a, cs, o] = dd[o]
                done[a, cs] = True
            w = dist[a, cs, 5]
            t = tot[s]
            for i in range(5):
                if t > 17 + i:
                    w += dist[a, cs, i]
                elif t < 17 + i:
                    w -= dist[a, cs, i]
            if enhc:
                w -= dist[a, cs, 6]
            stand[s] = w
        for mi in range(modes.shape[0]):
            base_full = modes[mi, 0]
            dbl_full = modes[mi, 1]
            for s in range(n):
                if not reach[s]:
                    continue
                act = 0 if one_card else pol[s]
                if act == 0:
                    val[s] = stand[s]
                    continue
                m = nav - ncards[s]
                acc = 0.0
                for v in range(10):
                    num = avail[v] - cnt[s, v]
                    if num <= 0:
                        continue
                    pr = num / m
                    t = trans[s, v]
                    if t < 0:
                        b = _bust_value(avail, up, cnt, s, v, m, base_full)
                        if act == 2:
                            b += _bust_value(avail, up, cnt, s, v, m, dbl_full)
                        acc += pr * b
                    elif act == 1:
                        acc += pr * val[t]
                    else:
                        acc += 2.0 * pr * stand[t]
                val[s] = acc
            xa = 0.0
            pa = 0.0
            for x in range(10):
                num = avail[x] - (1 if x == p else 0)
                if num <= 0 or starts[x] < 0:
                    continue
                vx = val[starts[x]]
                xa += num / m2 * vx
                if x == p:
                    pa = vx
            out[2 * mi, a] = xa
            out[2 * mi + 1, a] = pa


@_jit
def _td_eval_kernel(
    avail: IntArr,
    up: int,
    cnt: IntArr,
    ncards: IntArr,
    trans: IntArr,
    cls: IntArr,
    stand_w: FloatArr,
    feas: BoolArr,
    play: BoolArr,
    policy: IntArr,
    enhc: bool,
    hit_out: FloatArr,
    v_out: FloatArr,
) -> None:
    """Backward pass under a total-dependent policy for hands of 3+ cards (1 = hit, 0 = stand)."""
    nav = 0
    for v in range(10):
        nav += avail[v]
    for s in range(cnt.shape[0]):
        if not feas[s] or not play[s]:
            continue
        m = nav - ncards[s]
        h = 0.0
        for v in range(10):
            num = avail[v] - cnt[s, v]
            if num <= 0:
                continue
            p = num / m
            t = trans[s, v]
            if t < 0:
                h += p * _bust_value(avail, up, cnt, s, v, m, enhc)
            else:
                h += p * v_out[t]
        hit_out[s] = h
        if ncards[s] >= 3 and policy[cls[s]] == 1:
            v_out[s] = h
        else:
            v_out[s] = stand_w[s]


@_jit
def _td_decide_kernel(
    avail: IntArr,
    up: int,
    cnt: IntArr,
    ncards: IntArr,
    trans: IntArr,
    stand_w: FloatArr,
    feas: BoolArr,
    class_order: IntArr,
    member_start: IntArr,
    members: IntArr,
    weight: FloatArr,
    fallback_weight: FloatArr,
    enhc: bool,
    policy_out: IntArr,
    v_out: FloatArr,
) -> None:
    """Choose hit/stand per total class for hands of 3+ cards, classes in an order that sees successors first.

    A class's choice maximises the reach-weighted sum of its hands' values (falling back to all-hit
    reach weights when the policy never reaches the class); the hands then take that class's value.
    """
    nav = 0
    for v in range(10):
        nav += avail[v]
    hitv = np.zeros(cnt.shape[0])
    for ci in range(class_order.shape[0]):
        c = class_order[ci]
        sum_s = 0.0
        sum_h = 0.0
        tw = 0.0
        fs = 0.0
        fh = 0.0
        for q in range(member_start[ci], member_start[ci + 1]):
            s = members[q]
            if not feas[s]:
                continue
            m = nav - ncards[s]
            h = 0.0
            for v in range(10):
                num = avail[v] - cnt[s, v]
                if num <= 0:
                    continue
                p = num / m
                t = trans[s, v]
                if t < 0:
                    h += p * _bust_value(avail, up, cnt, s, v, m, enhc)
                else:
                    h += p * v_out[t]
            hitv[s] = h
            sum_s += weight[s] * stand_w[s]
            sum_h += weight[s] * h
            tw += weight[s]
            fs += fallback_weight[s] * stand_w[s]
            fh += fallback_weight[s] * h
        pol = (1 if sum_h > sum_s else 0) if tw > 0.0 else (1 if fh > fs else 0)
        policy_out[c] = pol
        for q in range(member_start[ci], member_start[ci + 1]):
            s = members[q]
            if feas[s]:
                v_out[s] = hitv[s] if pol == 1 else stand_w[s]


@_jit
def _reach_kernel(
    avail: IntArr,
    cnt: IntArr,
    ncards: IntArr,
    trans: IntArr,
    feas: BoolArr,
    two_card_hit: FloatArr,
    hit_flag: BoolArr,
    w_out: FloatArr,
) -> None:
    """Forward pass: probability of reaching each hand of 3+ cards; two-card hands send `two_card_hit`."""
    nav = 0
    for v in range(10):
        nav += avail[v]
    n = cnt.shape[0]
    for s in range(n):
        w_out[s] = 0.0
    for r in range(n):
        s = n - 1 - r
        if not feas[s]:
            continue
        if ncards[s] == 2:
            out = two_card_hit[s]
        elif ncards[s] >= 3 and hit_flag[s]:
            out = w_out[s]
        else:
            continue
        if out == 0.0:
            continue
        m = nav - ncards[s]
        for v in range(10):
            num = avail[v] - cnt[s, v]
            t = trans[s, v]
            if num <= 0 or t < 0:
                continue
            w_out[t] += out * num / m


if _NATIVE is not None:  # the same loops in C: no Numba start (about 0.6 s of CPU) for one analysis
    _dealer_kernel = _NATIVE.dealer_kernel  # type: ignore[assignment]
    _cd_kernel = _NATIVE.cd_kernel  # type: ignore[assignment]
    _split_kernel = _NATIVE.split_kernel  # type: ignore[assignment]
    _td_eval_kernel = _NATIVE.td_eval_kernel  # type: ignore[assignment]
    _td_decide_kernel = _NATIVE.td_decide_kernel  # type: ignore[assignment]
    _reach_kernel = _NATIVE.reach_kernel  # type: ignore[assignment]


# --------------------------------------------------------------------------------------------------
# Public helpers
# --------------------------------------------------------------------------------------------------


def dealer_probabilities(counts: Sequence[int], up: int, h17: bool = False) -> dict[str, float]:
    """The dealer's final outcome probabilities with up-card value index `up` (0 = Ace, 9 = ten).

    `counts` is the shoe the hole card and the draws come from, by value (A, 2..9, ten), i.e. already
    without the up-card and any other known card. No peek: "blackjack" is one of the outcomes. If the shoe
    can run out before the dealer finishes, "bust" also holds the chance that it does.
    """
    if len(counts) != 10 or any(c < 0 for c in counts):
        raise InvalidRules("counts must give 10 non-negative numbers of cards: A, 2..9, ten-value")
    if not 0 <= up <= 9:
        raise InvalidRules(f"up-card value index must be 0 (Ace) .. 9 (ten), got {up}")
    st = _states()
    trie = _dealer_tries(h17)[up]
    avail = np.array(counts, dtype=np.int64)
    empty = st.index[(0,) * 10]
    need = np.zeros(st.cnt.shape[0], dtype=np.bool_)
    need[empty] = True
    dealt = _dealt({}, (up, -1, 0), st, trie, avail, need, None, None)
    dist = dealt.dist[empty : empty + 1]
    return {name: float(dist[0, i]) for i, name in enumerate(OUTCOMES)}


# --------------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HandEV:
    """Expected values (per unit of the original bet, at the deal) of each action for one hand vs one up-card.

    `hit` continues optimally (composition-dependent); `split` is None unless the hand is a pair and
    splitting is allowed, `surrender` None unless retiring is allowed against this up-card.
    `best` is the composition-dependent best action, `basic` the total-dependent basic strategy's.
    """

    cards: tuple[int, int]
    up: int
    probability: float
    stand: float
    hit: float
    double: float
    split: float | None
    surrender: float | None
    best: Action
    best_ev: float
    basic: Action
    basic_ev: float
    blackjack: bool = False

    def to_json(self) -> dict[str, Any]:
        """Plain dict for JSON output."""
        return {
            "cards": VALUE_LABELS[self.cards[0]] + VALUE_LABELS[self.cards[1]],
            "up": VALUE_LABELS[self.up],
            "probability": self.probability,
            "blackjack": self.blackjack,
            "stand": self.stand,
            "hit": self.hit,
            "double": self.double,
            "split": self.split,
            "surrender": self.surrender,
            "best": self.best,
            "best_ev": self.best_ev,
            "basic": self.basic,
            "basic_ev": self.basic_ev,
        }


@dataclass(frozen=True)
class BlackjackRules:
    """The settings an analysis ran with (see analyze_blackjack)."""

    decks: int = 6
    surrender: bool = True
    surrender_type: Literal["early", "late"] = "early"
    max_splits: int = 3
    resplit_aces: bool = False
    das: bool = True
    obo: bool = True
    h17: bool = False
    blackjack_pays: float = 1.5
    peek: bool = False
    dealer_completes_hand: bool = False

    def to_json(self) -> dict[str, Any]:
        """Plain dict for JSON output."""
        return {
            "peek": self.peek,
            "dealer_completes_hand": self.dealer_completes_hand,
            "decks": self.decks,
            "surrender": self.surrender,
            "surrender_type": self.surrender_type,
            "max_splits": self.max_splits,
            "resplit_aces": self.resplit_aces,
            "das": self.das,
            "obo": self.obo,
            "h17": self.h17,
            "blackjack_pays": self.blackjack_pays,
        }


EXACTNESS_NOTE = (
    "Exact for the finite shoe (within floating point, about 1e-15 of the bet): no-peek with original bets "
    "only as the regulation settles it, and every split hand's value exact with resplits, the cards dealt "
    "to the other split hands accounted for. house_edge_composition_dependent is CDZ- (Farmer): every "
    "unsplit decision optimal for the exact composition, a split hand played as an unsplit hand of the "
    "same cards; house_edge is the total-dependent basic strategy computed here, its splits just as exact."
)


@dataclass(frozen=True)
class BlackjackAnalysis:
    """Everything the analyzer found for one set of rules."""

    rules: BlackjackRules
    counts: tuple[int, ...]
    house_edge: float  # total-dependent basic strategy, positive = house gains
    house_edge_cd: float  # composition-dependent strategy
    dealer: dict[int, dict[str, float]]  # by up-card value index, shoe less the up-card only
    hands: dict[tuple[int, int, int], HandEV]  # (card a <= card b, up) -> values
    two_card: dict[int, dict[tuple[int, int], tuple[Action, ...]]]  # up -> (soft, total) -> ranking
    pairs: dict[int, dict[int, tuple[Action, ...]]]  # up -> pair value -> ranking
    multi_card: dict[int, dict[tuple[int, int], Action]]  # up -> (soft, total) -> S/H for 3+ cards
    seconds: float
    outcome_probabilities: dict[str, float] = field(default_factory=dict)

    # ---- strategy chart -------------------------------------------------------------------------

    def _code(self, ranking: Sequence[Action]) -> str:
        """Chart code of a ranking: the best action, with its fallback when it is D or R."""
        first = ranking[0]
        if first == "D":
            return "D" if _pick(ranking, {"S", "H"}) == "H" else "Ds"
        if first == "R":
            return "R" + _pick(ranking, {"S", "H", "D", "P"}).lower()
        return first

    def chart(self) -> list[tuple[str, tuple[str, ...]]]:
        """The basic strategy as rows (label, codes for up-cards 2, 3, ..., 9, T, A).

        Rows: hard 5..21, soft 13..21, pairs 2-2..T-T, A-A. Codes: S stand, H hit, D double (else hit),
        Ds double (else stand), P split, Rh/Rs/Rp surrender (else hit/stand/split). Two-card decisions;
        hard 20-21 and soft 21 (no two-card non-pair hand) and `multi_card` give 3+ card play.
        """
        rows: list[tuple[str, tuple[str, ...]]] = []
        for soft, lo, hi in ((0, 5, 21), (1, 13, 21)):
            for t in range(lo, hi + 1):
                codes: list[str] = []
                for up in CHART_UPCARDS:
                    rk = self.two_card[up].get((soft, t))
                    codes.append(self._code(rk) if rk else self.multi_card[up][(soft, t)])
                rows.append((f"{'soft' if soft else 'hard'} {t}", tuple(codes)))
        for p in (*range(1, 10), 0):
            codes = [self._code(self.pairs[up][p]) for up in CHART_UPCARDS]
            rows.append((f"{VALUE_LABELS[p]}-{VALUE_LABELS[p]}", tuple(codes)))
        return rows

    def multi_card_exceptions(self) -> list[str]:
        """Totals where hands of 3+ cards should stand/hit differently from the two-card chart's fallback."""
        out: list[str] = []
        for up in CHART_UPCARDS:
            for (soft, t), rk in sorted(self.two_card[up].items()):
                two = next(a for a in rk if a in ("S", "H"))
                multi = self.multi_card[up].get((soft, t))
                if multi is not None and multi != two:
                    kind = "soft" if soft else "hard"
                    out.append(f"{kind} {t} vs {VALUE_LABELS[up]}: {two} with two cards, {multi} with 3+")
        return out

    def composition_exceptions(self) -> list[str]:
        """Two-card hands whose composition-dependent best action differs from the basic strategy's."""
        out: list[str] = []
        for (a, b, up), h in sorted(self.hands.items()):
            if not h.blackjack and h.best != h.basic:
                gain = h.best_ev - h.basic_ev
                out.append(
                    f"{VALUE_LABELS[a]}{VALUE_LABELS[b]} vs {VALUE_LABELS[up]}: {h.best} not {h.basic} "
                    f"(+{gain:.5f})"
                )
        return out

    def to_json(self, detail: bool = False) -> dict[str, Any]:
        """The `tapete analyze blackjack --json` document; `detail` adds every hand's action values."""
        ups = [VALUE_LABELS[u] for u in CHART_UPCARDS]
        doc: dict[str, Any] = {
            "game": "blackjack",
            "rules": self.rules.to_json(),
            "bets": {
                "main": {
                    "house_edge": self.house_edge,
                    "exact": True,
                    "exactness": EXACTNESS_NOTE,
                    "house_edge_composition_dependent": self.house_edge_cd,
                    "composition_dependent_strategy": "CDZ-",
                    "strategy": "total-dependent basic strategy",
                }
            },
            "strategy": {
                "upcards": ups,
                "chart": [{"row": label, "codes": list(codes)} for label, codes in self.chart()],
                "legend": {
                    "S": "stand",
                    "H": "hit",
                    "D": "double, else hit",
                    "Ds": "double, else stand",
                    "P": "split",
                    "Rh": "surrender, else hit",
                    "Rs": "surrender, else stand",
                    "Rp": "surrender, else split",
                },
                "multi_card_exceptions": self.multi_card_exceptions(),
                "composition_dependent_exceptions": self.composition_exceptions(),
            },
            "dealer": {VALUE_LABELS[u]: dict(d) for u, d in sorted(self.dealer.items())},
            "seconds": self.seconds,
        }
        if detail:
            doc["hands"] = [h.to_json() for _, h in sorted(self.hands.items())]
        return doc


# --------------------------------------------------------------------------------------------------
# The analysis
# --------------------------------------------------------------------------------------------------


@dataclass
class _Table:
    """Values of every hand for one up-card: the regular table (hands from the deal)."""

    avail: IntArr
    feas: BoolArr
    stand: FloatArr
    pbj: FloatArr
    dist: FloatArr
    hit: FloatArr
    dbl: FloatArr
    best: FloatArr
    play: BoolArr
    td_hit: FloatArr | None = None


@cache
def _pair_compact(p: int) -> tuple[IntArr, int]:
    """The split tables of pair p store the hands that hold a p (split Aces: two cards) compactly:
    each hand's row there, -1 for the others, and the number of rows."""
    st = _states()
    held = (st.cnt[:, p] >= 1) & ((st.ncards == 2) if p == _ACE else (st.ncards >= 2))
    comp = np.full(st.cnt.shape[0], -1, dtype=np.int64)
    comp[held] = np.arange(int(held.sum()), dtype=np.int64)
    return comp, int(held.sum())


@cache
def _pair_shift(p: int, ntab: int) -> IntArr:
    """For split table a < ntab of pair p: the regular hand c + (1 + a) p of every hand c (-1 if it
    busts), the hand whose shoe is the same."""
    st = _states()
    n = st.cnt.shape[0]
    out = np.full((ntab, n), -1, dtype=np.int64)
    idx = np.arange(n, dtype=np.int64)
    for a in range(ntab):
        idx = np.where(idx >= 0, st.trans[np.maximum(idx, 0), p], -1)
        out[a] = idx
    return out


def _order_classes() -> list[int]:
    """Decision order for 3+ card classes: hard 21..11, soft 21..12, hard 10..3 (successors come first)."""
    return (
        [_class_id(0, t) for t in range(21, 10, -1)]
        + [_class_id(1, t) for t in range(21, 11, -1)]
        + [_class_id(0, t) for t in range(10, 2, -1)]
    )


@dataclass
class _Dealt:
    """Dealer distributions of one table's hands: dist (S, 7), feasibility, and which were computed."""

    dist: FloatArr
    feas: BoolArr
    done: BoolArr


@lru_cache(maxsize=1)
def _dealer_store(shoe: tuple[int, ...], h17: bool) -> dict[tuple[int, int, int], _Dealt]:
    """Dealer tables of the last pack analysed (about 55 MB for 6 decks), kept so analyses that change
    only player rules (surrender, DAS, OBO, splits) reuse them."""
    return {}


def _dealt(
    store: dict[tuple[int, int, int], _Dealt],
    key: tuple[int, int, int],
    st: _States,
    trie: _Trie,
    avail: IntArr,
    need: BoolArr,
    source: _Dealt | None,
    source_idx: IntArr | None,
) -> _Dealt:
    """The dealer distributions of table `key` = (up, pair value or -1, resplits done), computed once."""
    got = store.get(key)
    if got is not None:
        return got
    n = st.cnt.shape[0]
    dist = np.zeros((n, 7))
    feas = np.zeros(n, dtype=np.bool_)
    done = np.zeros(n, dtype=np.bool_)
    if source is None or source_idx is None:
        source_idx = np.full(n, -1, dtype=np.int64)
        src_done, src_dist = done, dist
    else:
        src_done, src_dist = source.done, source.dist
    _dealer_kernel(
        avail,
        st.cnt,
        st.ncards,
        need,
        trie.parent,
        trie.value,
        trie.before,
        trie.depth,
        trie.orders,
        trie.outcome,
        source_idx,
        src_done,
        src_dist,
        dist,
        feas,
        done,
    )
    got = _Dealt(dist, feas, done)
    store[key] = got
    return got


def _build_table(
    st: _States, dealt: _Dealt, avail: IntArr, up: int, play: BoolArr, enhc: bool, peek: bool
) -> _Table:
    """Stand, hit and double values (W) of the regular table's hands from its dealer distributions."""
    n = st.cnt.shape[0]
    stand = _stand_w(dealt.dist, st.tot, enhc)
    pbj = dealt.dist[:, _BJ].copy()
    feas = dealt.feas
    hit = np.zeros(n)
    dbl = np.zeros(n)
    best = stand.copy()
    play = play & feas
    _cd_kernel(avail, up, st.cnt, st.ncards, st.trans, stand, feas, play, enhc, peek, hit, dbl, best)
    return _Table(avail, feas, stand, pbj, dealt.dist, hit, dbl, best, play)


@cache
def _split_patterns(hands: int) -> tuple[tuple[tuple[int, int, int], ...], tuple[tuple[int, int, int], ...]]:
    """How the second cards of a split to at most `hands` hands can fall, grouped for `_split_total`.

    The pending hands draw their second cards one at a time (the first hand until it is complete, then
    the next): a pair card while fewer than `hands` hands exist makes one more hand (S), any other card
    completes the hand (C), and once `hands` hands exist every card completes one. Returns
    (count, h, h) for every split that ends with h < `hands` hands (h - 2 pair cards, h other cards, in
    `count` orders), and (count, k, 0) for every split that reaches `hands` hands after k hands were
    completed (the other `hands` - k take any card), `count` orders of the H - 3 first pair cards and
    the k other cards before the last pair card."""
    ways: dict[tuple[int, int], int] = {(0, 0): 1}
    top = max(hands, 2)
    for total in range(1, 2 * top):
        for ss in range(0, total + 1):
            c = total - ss
            if ss > top or 2 + ss - c < 1:
                continue
            w = ways.get((ss - 1, c), 0) + ways.get((ss, c - 1), 0)
            if w:
                ways[(ss, c)] = w
    early = tuple((ways.get((h - 2, h - 1), 0), h, h) for h in range(2, hands))
    full = tuple((ways.get((hands - 3, k), 0), k, 0) for k in range(0, hands - 1)) if hands >= 3 else ()
    return early, full


def _falling(n: int, k: int) -> int:
    """n (n-1) ... (n-k+1), exactly: a split to a hundred hands multiplies a few hundred of them, past
    what a float holds, so `_weight` divides the exact integers."""
    out = 1
    for i in range(k):
        out *= n - i
    return out


def _weight(count: int, pairs: int, a: int, others: int, k: int, cards: int) -> float:
    """count · pairs_(a) · others_(k) / cards_(a+k) (falling factorials): the probability that a split
    draws its a pair cards and k other cards in one of `count` orders, 0 when the shoe cannot."""
    num = count * _falling(pairs, a) * _falling(others, k)
    return num / _falling(cards, a + k) if num else 0.0


def _split_total(
    pairs: int, cards: int, hands: int, x1: list[float], p1: list[float], xx: list[float], px: list[float]
) -> float:
    """Exact W of a split to at most `hands` hands, summed over the hands (Farmer's method, CDZ-).

    `pairs` and `cards` are the pair cards and all cards left after the up-card and the pair. x?[a] is
    the W of one split hand whose shoe also lacks `a` more pair cards (the other hands' first cards),
    its second card any card; p?[a] the same when that card is a pair card (the hand is played, not
    resplit); '1' for the hand that keeps the original bet, 'x' for the others (extra stakes). A hand's
    play depends only on its own cards, so the other hands' draws can be dealt after it and the dealer
    (every drawing order of a finite shoe is equally likely), and of their cards only what conditions
    the split's shape matters: `a` pair cards and `b` cards known not to be pair cards. X(a, b) and
    N(a, b) (second card not a pair card) follow from removing one random card: it is a pair card with
    probability v, so X(a, b-1) = v X(a+1, b-1) + (1-v) X(a, b), and likewise for N.
    """
    others = cards - pairs

    def tables(
        x: list[float], pp: list[float]
    ) -> tuple[Callable[[int, int], float], Callable[[int, int], float]]:
        memo_x: dict[tuple[int, int], float] = {}
        memo_n: dict[tuple[int, int], float] = {}

        def big_x(a: int, b: int) -> float:
            got = memo_x.get((a, b))
            if got is not None:
                return got
            if pairs - a < 0 or b > others:
                out = 0.0
            elif b == 0:
                out = x[a] if a < len(x) else 0.0
            else:
                v = (pairs - a) / (cards - a - b + 1)
                out = big_x(a, b - 1)
                if v > 0.0:
                    out -= v * big_x(a + 1, b - 1)
                out /= 1.0 - v
            memo_x[(a, b)] = out
            return out

        def big_n(a: int, b: int) -> float:
            got = memo_n.get((a, b))
            if got is not None:
                return got
            if pairs - a < 0 or b + 1 > others:
                out = 0.0
            elif b == 0:
                v = (pairs - a) / (cards - a)
                xa = x[a] if a < len(x) else 0.0
                pa = pp[a] if a < len(pp) else 0.0
                out = (xa - v * pa) / (1.0 - v)
            else:
                v = (pairs - a) / (cards - a - b)
                out = big_n(a, b - 1)
                if v > 0.0:
                    out -= v * big_n(a + 1, b - 1)
                out /= 1.0 - v
            memo_n[(a, b)] = out
            return out

        return big_x, big_n

    x1f, n1f = tables(x1, p1)
    xxf, nxf = tables(xx, px)
    if hands <= 2:
        return x1f(0, 0) + xxf(0, 0)
    early, full = _split_patterns(hands)
    total = 0.0
    for count, h, _ in early:
        if count == 0:
            continue
        w = _weight(count, pairs, h - 2, others, h, cards)
        if w > 0.0:
            total += w * (n1f(h - 2, h - 1) + (h - 1) * nxf(h - 2, h - 1))
    a = hands - 2
    for count, k, _ in full:
        if count == 0:
            continue
        w = _weight(count, pairs, a, others, k, cards)
        if w <= 0.0:
            continue
        if k == 0:
            total += w * (x1f(a, 0) + (hands - 1) * xxf(a, 0))
        else:
            total += w * (n1f(a, k - 1) + (k - 1) * nxf(a, k - 1) + (hands - k) * xxf(a, k))
    return total


def _pick(ranking: Sequence[Action], allowed: set[Action]) -> Action:
    """The first action of `ranking` that is allowed."""
    return next(x for x in ranking if x in allowed)


def _rank(values: dict[Action, float]) -> tuple[Action, ...]:
    """Actions from best to worst."""
    return tuple(sorted(values, key=lambda k: -values[k]))


@dataclass(frozen=True)
class _Common:
    """What every up-card's solver shares: rules, hand tables, class order, two-card hand indices."""

    rules: BlackjackRules
    st: _States
    tries: tuple[_Trie, ...]
    store: dict[tuple[int, int, int], _Dealt]
    full: IntArr
    enhc: bool
    class_arr: IntArr
    member_start: IntArr
    members: IntArr
    multi_classes: tuple[int, ...]
    two_idx: dict[tuple[int, int], int]
    reg_need: BoolArr
    reg_play: BoolArr
    empty: int


@dataclass
class _UpResult:
    """One up-card's share of the analysis (probabilities are conditional on the up-card)."""

    dealer: dict[str, float]
    hands: dict[tuple[int, int], HandEV]
    two_card: dict[tuple[int, int], tuple[Action, ...]]
    pairs: dict[int, tuple[Action, ...]]
    multi_card: dict[tuple[int, int], Action]
    ev_td: float
    ev_cd: float


class _UpSolver:
    """Values and strategy against one up-card.

    Tables: the regular one (hands from the deal) and, per pair value p and pair cards a dealt to the
    other split hands, a split table whose shoe also lacks 1 + a more p's (hands there start with a p).
    """

    def __init__(self, cm: _Common, up: int) -> None:
        self.cm = cm
        self.up = up
        r = cm.rules
        st = cm.st
        trie = cm.tries[up]
        avail0 = cm.full.copy()
        avail0[up] -= 1
        self.avail0 = avail0
        self.n0 = int(avail0.sum())
        reg_dealt = _dealt(cm.store, (up, -1, 0), st, trie, avail0, cm.reg_need, None, None)
        self.reg = _build_table(st, reg_dealt, avail0, up, cm.reg_play, cm.enhc, r.peek)
        self.trie = trie
        self.reg_dealt = reg_dealt
        #: per pair p: the split tables' dealer distributions (a, hand, outcome), filled on demand
        self.split_dealt: dict[int, _Dealt] = {}
        self.max_hands: dict[int, int] = {}
        self.starts: dict[int, IntArr] = {}
        if r.max_splits >= 1:
            for p in range(10):
                # each hand starts with a p: never more hands than the p's left (split_limit)
                splits = split_limit(r.max_splits, [int(avail0[p])])
                hands = (splits + 1) if (p != _ACE or r.resplit_aces) else 2
                self.max_hands[p] = hands
                if avail0[p] < 2:
                    continue
                # a = pair cards out beyond the pair: up to hands - 2 of the other hands' first cards and
                # as many more removed by Farmer's recursion (see _split_total).
                ntab = min(2 * (hands - 2) + 1, int(avail0[p]) - 1)
                key = (up, p, -2)
                dealt = cm.store.get(key)
                if dealt is None or dealt.dist.shape[0] < ntab:
                    rows = _pair_compact(p)[1]
                    dealt = _Dealt(
                        np.zeros((ntab, rows, 7)),
                        np.zeros(0, dtype=np.bool_),
                        np.zeros((ntab, rows), dtype=np.bool_),
                    )
                    cm.store[key] = dealt
                self.split_dealt[p] = dealt
                self.starts[p] = np.array(
                    [cm.two_idx[(min(p, x), max(p, x))] for x in range(10)], dtype=np.int64
                )
        self.deal: dict[tuple[int, int], float] = {}
        denom = self.n0 * (self.n0 - 1)
        for a, b in cm.two_idx:
            num = avail0[a] * (avail0[a] - 1) if a == b else 2 * avail0[a] * avail0[b]
            self.deal[(a, b)] = float(num) / denom if denom > 0 else 0.0
        self.surrender_ok = r.surrender and (up != _ACE or r.peek)
        self.cd_policy = self._cd_policy()
        self._split_memo: dict[tuple[int, bool, bytes], float] = {}
        # Total-dependent strategy state.
        self.t2_rank: dict[tuple[int, int], tuple[Action, ...]] = {}
        self.pair_rank: dict[int, tuple[Action, ...]] = {}
        self.resplit_pref: dict[int, bool] = dict.fromkeys(range(10), True)

    # ---- helpers ----------------------------------------------------------------------------------

    def sub(self, s: int) -> float:
        """The constant dealer-BJ term of a hand's value at the deal: -P(BJ) under OBO, 0 under ENHC."""
        return float(self.reg.pbj[s]) if not self.cm.enhc else 0.0

    def surrender_ev(self, s: int) -> float:
        """Retiring: -1/2 before the hole card is known (early), or only when the dealer has no BJ (late)."""
        if self.cm.rules.surrender_type == "early":
            return -0.5
        pbj0 = float(self.reg.pbj[s])
        return -pbj0 - 0.5 * (1.0 - pbj0)

    def class_of(self, s: int) -> tuple[int, int]:
        return int(self.cm.st.soft[s]), int(self.cm.st.tot[s])

    def _cd_policy(self) -> IntArr:
        """CDZ-: every hand of two or more cards plays as an unsplit hand of the same cards would (the
        best of stand, hit and, on two cards with DAS, double, by the regular table's values; ties stand,
        hit before double), a split hand included; a hand at 21 is complete."""
        st = self.cm.st
        reg = self.reg
        pol = (reg.hit > reg.stand).astype(np.int64)
        if self.cm.rules.das:
            two = (st.ncards == 2) & (reg.dbl > np.maximum(reg.stand, reg.hit))
            pol[two] = 2
        pol[st.tot == 21] = 0
        return pol

    def _td_policy(self, policy: IntArr) -> IntArr:
        """The basic strategy as a policy for split hands: two-card hands by their ranking (pairs by the
        pair's, played; no retiro; double only with DAS), three or more cards by total class."""
        st = self.cm.st
        pol = policy[st.cls].astype(np.int64)
        allowed: set[Action] = {"S", "H", "D"} if self.cm.rules.das else {"S", "H"}
        code = {"S": 0, "H": 1, "D": 2}
        for (a, b), s in self.cm.two_idx.items():
            rk = self.pair_rank.get(a) if a == b else None
            if rk is None:
                rk = self.t2_rank.get(self.class_of(s), ("H", "S"))
            pol[s] = code[_pick(rk, allowed)]
        pol[st.tot == 21] = 0
        return pol

    def split_w(self, p: int, pol: IntArr, resplit: bool = True) -> float | None:
        """Exact total W of splitting pair p when every split hand follows `pol` (by its own cards),
        resplitting whenever allowed (or never, with `resplit` false): see _split_total."""
        dealt = self.split_dealt.get(p)
        if dealt is None:
            return None
        key = (p, resplit, pol.tobytes())
        known = self._split_memo.get(key)
        if known is not None:  # the basic strategy's search asks again with an unchanged policy
            return known
        value = self._split_value(p, pol, resplit, dealt)
        self._split_memo[key] = value
        return value

    def _split_value(self, p: int, pol: IntArr, resplit: bool, dealt: _Dealt) -> float:
        """split_w's computation (see there)."""
        cm = self.cm
        st = cm.st
        r = cm.rules
        hands = self.max_hands[p] if resplit else 2
        ntab = min(2 * (hands - 2) + 1, int(self.avail0[p]) - 1)
        # The hand that keeps the original bet: a bust loses it on the no-BJ branch only (the dealer's
        # BJ takes it anyway); the other hands' stakes are extra ones, lost to a bust on both branches
        # (no peek: busts are final). With peek every stake is lost on the no-BJ branch only.
        first = (cm.enhc, not r.peek)
        extra = (not r.peek, not r.peek)
        modes = np.array([first] if first == extra else [first, extra], dtype=np.bool_)
        out = np.zeros((2 * modes.shape[0], ntab))
        trie = self.trie
        _split_kernel(
            self.avail0,
            self.up,
            p,
            st.cnt,
            st.ncards,
            st.tot,
            st.trans,
            self.starts[p],
            pol,
            trie.parent,
            trie.value,
            trie.before,
            trie.depth,
            trie.orders,
            trie.outcome,
            _pair_shift(p, dealt.dist.shape[0]),
            self.reg_dealt.dist,
            _pair_compact(p)[0],
            dealt.dist,
            dealt.done,
            cm.enhc,
            modes,
            out,
        )
        x1, p1 = list(out[0]), list(out[1])
        xx, px = (x1, p1) if modes.shape[0] == 1 else (list(out[2]), list(out[3]))
        pairs = int(self.avail0[p]) - 2
        cards = self.n0 - 2
        return _split_total(pairs, cards, hands, x1, p1, xx, px)

    def cd_values(self) -> dict[tuple[int, int], dict[Action, float]]:
        """Composition-dependent values of every action for every two-card hand (not Black Jack)."""
        out: dict[tuple[int, int], dict[Action, float]] = {}
        reg = self.reg
        for (a, b), s in self.cm.two_idx.items():
            if self.deal[(a, b)] == 0.0 or (a, b) == (_ACE, _TEN):
                continue
            sub = self.sub(s)
            vals: dict[Action, float] = {
                "S": float(reg.stand[s]) - sub,
                "H": float(reg.hit[s]) - sub,
                "D": float(reg.dbl[s]) - sub,
            }
            if a == b and self.cm.rules.max_splits >= 1:
                sw = self.split_w(a, self.cd_policy)
                if sw is not None:
                    vals["P"] = sw - sub
            if self.surrender_ok:
                vals["R"] = self.surrender_ev(s)
            out[(a, b)] = vals
        return out

    def reach(self, two_hit: FloatArr, hit_flag: BoolArr) -> FloatArr:
        st = self.cm.st
        w = np.zeros(st.cnt.shape[0])
        _reach_kernel(self.avail0, st.cnt, st.ncards, st.trans, self.reg.feas, two_hit, hit_flag, w)
        return w

    def td_strategy(
        self, cd: dict[tuple[int, int], dict[Action, float]]
    ) -> tuple[IntArr, dict[tuple[int, int], dict[Action, float]]]:
        """Find the total-dependent basic strategy by fixed-point iteration (see the module docs).

        Returns the 3+ card policy (by class id) and the values of every two-card hand's actions under it.
        """
        cm = self.cm
        st = cm.st
        n = st.cnt.shape[0]
        reg = self.reg
        two_all = np.zeros(n)
        two_hit = np.zeros(n)
        for (a, b), s in cm.two_idx.items():
            if (a, b) != (_ACE, _TEN):
                two_all[s] = self.deal[(a, b)]
                if (a, b) in cd and _rank(cd[(a, b)])[0] == "H":
                    two_hit[s] = self.deal[(a, b)]
        w_fallback = self.reach(two_all, np.ones(n, dtype=np.bool_))
        hit_flag = reg.hit > reg.stand
        policy = np.zeros(64, dtype=np.int64)
        td_vals: dict[tuple[int, int], dict[Action, float]] = {}
        prev: object = None
        for _iteration in range(8):
            w = self.reach(two_hit, hit_flag)
            v_reg = np.zeros(n)
            _td_decide_kernel(
                self.avail0,
                self.up,
                st.cnt,
                st.ncards,
                st.trans,
                reg.stand,
                reg.feas,
                cm.class_arr,
                cm.member_start,
                cm.members,
                w,
                w_fallback,
                cm.enhc,
                policy,
                v_reg,
            )
            th = np.zeros(n)
            _td_eval_kernel(
                reg.avail,
                self.up,
                st.cnt,
                st.ncards,
                st.trans,
                st.cls,
                reg.stand,
                reg.feas,
                reg.play,
                policy,
                cm.enhc,
                th,
                np.zeros(n),
            )
            reg.td_hit = th
            assert reg.td_hit is not None
            # Two-card hands: values under the policy, and the ranking of each non-pair total class.
            agg: dict[tuple[int, int], dict[Action, float]] = {}
            td_vals = {}
            for (a, b), s in cm.two_idx.items():
                if self.deal[(a, b)] == 0.0 or (a, b) == (_ACE, _TEN):
                    continue
                sub = self.sub(s)
                vals: dict[Action, float] = {
                    "S": float(reg.stand[s]) - sub,
                    "H": float(reg.td_hit[s]) - sub,
                    "D": float(reg.dbl[s]) - sub,
                }
                if self.surrender_ok:
                    vals["R"] = self.surrender_ev(s)
                td_vals[(a, b)] = vals
                if a != b:
                    acc = agg.setdefault(self.class_of(s), dict.fromkeys(vals, 0.0))
                    for act, x in vals.items():
                        acc[act] += self.deal[(a, b)] * x
            self.t2_rank = {key: _rank(acc) for key, acc in agg.items()}
            # Pairs: their own class each; splitting is valued with the basic strategy after the split.
            pair_rank: dict[int, tuple[Action, ...]] = {}
            td_pol = self._td_policy(policy)
            for p in range(10):
                if (p, p) not in td_vals:
                    continue
                vals = td_vals[(p, p)]
                if cm.rules.max_splits >= 1:
                    sw = self.split_w(p, td_pol, self.resplit_pref[p])
                    if sw is not None:
                        vals["P"] = sw - self.sub(cm.two_idx[(p, p)])
                pair_rank[p] = _rank(vals)
            self.pair_rank = pair_rank
            for p, rk in pair_rank.items():
                if "P" in rk:
                    self.resplit_pref[p] = _pick(rk, {"P", "S", "H", "D"}) == "P"
            # Reach of the next round: two-card hands the strategy hits, 3+ card hands by class.
            two_hit = np.zeros(n)
            for a, b in td_vals:
                s = cm.two_idx[(a, b)]
                rk = pair_rank[a] if a == b else self.t2_rank[self.class_of(s)]
                if rk[0] == "H":
                    two_hit[s] = self.deal[(a, b)]
            hit_flag = policy[st.cls] == 1
            key = (policy.tobytes(), sorted(self.t2_rank.items()), sorted(pair_rank.items()))
            if key == prev:
                break
            prev = key
        return policy, td_vals

    def solve(self) -> _UpResult:
        """Values, strategy and this up-card's share of the edge."""
        cm = self.cm
        r = cm.rules
        cd = self.cd_values()
        policy, td = self.td_strategy(cd)
        hands: dict[tuple[int, int], HandEV] = {}
        ev_td = ev_cd = 0.0
        for (a, b), s in cm.two_idx.items():
            pr = self.deal[(a, b)]
            if pr == 0.0:
                continue
            if (a, b) == (_ACE, _TEN):
                ev = r.blackjack_pays * (1.0 - float(self.reg.pbj[s]))
                hands[(a, b)] = HandEV((a, b), self.up, pr, ev, ev, ev, None, None, "S", ev, "S", ev, True)
                ev_td += pr * ev
                ev_cd += pr * ev
                continue
            cv = cd[(a, b)]
            best = _rank(cv)[0]
            rk = self.pair_rank[a] if a == b else self.t2_rank[self.class_of(s)]
            basic = rk[0]
            basic_ev = td[(a, b)][basic]
            hands[(a, b)] = HandEV(
                (a, b),
                self.up,
                pr,
                cv["S"],
                cv["H"],
                cv["D"],
                cv.get("P"),
                cv.get("R"),
                best,
                cv[best],
                basic,
                basic_ev,
            )
            ev_cd += pr * cv[best]
            ev_td += pr * basic_ev
        multi: dict[tuple[int, int], Action] = {
            (c // 32, c % 32): ("H" if policy[c] == 1 else "S") for c in cm.multi_classes
        }
        dealer = {name: float(self.reg.dist[cm.empty, i]) for i, name in enumerate(OUTCOMES)}
        return _UpResult(dealer, hands, dict(self.t2_rank), dict(self.pair_rank), multi, ev_td, ev_cd)


def _make_common(rules: BlackjackRules, shoe: Sequence[int], h17: bool) -> _Common:
    """What every up-card's solver shares for these rules and this shoe (hand tables, class order,
    two-card indices, the dealer tries and the dealer-table store)."""
    st = _states()
    class_order = _order_classes()
    members: list[int] = []
    starts = [0]
    for c in class_order:
        members.extend(int(s) for s in np.nonzero((st.cls == c) & (st.ncards >= 3))[0])
        starts.append(len(members))
    two_idx = {
        (a, b): st.index[tuple(int(i == a) + int(i == b) for i in range(10))]
        for a in range(10)
        for b in range(a, 10)
    }
    empty = st.index[(0,) * 10]
    reg_need = st.ncards >= 2
    reg_need[empty] = True
    cm = _Common(
        rules=rules,
        st=st,
        tries=_dealer_tries(h17),
        store=_dealer_store(tuple(shoe), h17),
        full=np.array(shoe, dtype=np.int64),
        enhc=not rules.obo,
        class_arr=np.array(class_order, dtype=np.int64),
        member_start=np.array(starts, dtype=np.int64),
        members=np.array(members, dtype=np.int64),
        multi_classes=tuple(sorted({int(c) for c in st.cls[st.ncards >= 3]})),
        two_idx=two_idx,
        reg_need=reg_need,
        reg_play=st.ncards >= 2,
        empty=empty,
    )
    return cm


def _solve_ups(cm: _Common, shoe: Sequence[int]) -> Iterator[_UpResult | None]:
    """Each up-card's solution in up-card order (None when the shoe has none of it).

    The up-cards are independent; with the compiled kernels (which run without the GIL) two threads
    solve them side by side. Results come back in order, so every sum is taken in the same order.
    """
    workers = min(2, os.cpu_count() or 1) if _NATIVE is not None else 1
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {up: pool.submit(_solve_up, cm, up) for up in range(10) if shoe[up] > 0}
        for up in range(10):
            yield futures[up].result() if up in futures else None


def _solve_up(cm: _Common, up: int) -> _UpResult:
    return _UpSolver(cm, up).solve()


def analyze_blackjack(
    decks: int = 6,
    surrender: bool = True,
    max_splits: int = 3,
    resplit_aces: bool = False,
    das: bool = True,
    progress: ProgressFn | None = None,
    *,
    obo: bool = True,
    h17: bool = False,
    surrender_type: Literal["early", "late"] = "early",
    blackjack_pays: float = 1.5,
    counts: Sequence[int] | None = None,
    peek: bool = False,
    dealer_completes_hand: bool = False,
) -> BlackjackAnalysis:
    """Analyse the regulation's Black Jack main bet for a shoe of `decks` decks (or `counts` by value).

    Defaults are the regulation's game: 6 decks, stand on all 17s, no peek with original bets only,
    early surrender against 2-10 (not an Ace), double any two cards and after splits, split to 4 hands
    (`max_splits` = 3; any larger number is taken as the splits the shoe allows, `split_limit`, and the
    analysis's rules record that number), split Aces one card each and not resplit, Black Jack 3:2.
    `obo=False` makes every stake lose to a dealer Black Jack; `surrender_type="late"` allows retiring
    only when the dealer has no Black Jack (the American rule), for comparisons; `h17` makes the dealer
    hit soft 17.
    `progress` is called as progress(done, total) once per up-card.

    `peek` analyses the American game instead (not the regulation's: for comparison with published
    figures): the dealer checks for Black Jack first, which then takes the original bet only and ends
    the round; the retiro becomes late surrender, offered against an Ace too. `dealer_completes_hand`
    (the dealer draws to 17 even when every hand has busted) changes no stake, hence no value.
    """
    if counts is None:
        if not 1 <= decks <= 8:
            raise InvalidRules(f"decks must be 1..8, got {decks}")
        shoe = shoe_counts(decks)
    else:
        if len(counts) != 10 or any(c < 0 for c in counts) or sum(counts) < 20:
            raise InvalidRules("counts must give 10 card counts >= 0 (A, 2..9, ten), at least 20 cards")
        shoe = [int(c) for c in counts]
    if max_splits < 0:
        raise InvalidRules(f"max_splits must be 0 or more, got {max_splits}")
    max_splits = split_limit(max_splits, shoe)  # a larger setting plays the same (and sizes the work)
    if surrender_type not in ("early", "late"):
        raise InvalidRules(f"surrender_type must be 'early' or 'late', got {surrender_type!r}")
    if peek:
        surrender_type = "late"
    rules = BlackjackRules(
        decks=decks if counts is None else 0,
        surrender=surrender,
        surrender_type=surrender_type,
        peek=peek,
        dealer_completes_hand=dealer_completes_hand,
        max_splits=max_splits,
        resplit_aces=resplit_aces,
        das=das,
        obo=obo,
        h17=h17,
        blackjack_pays=blackjack_pays,
    )
    t0 = time.perf_counter()
    cm = _make_common(rules, shoe, h17)
    total_cards = sum(shoe)
    dealer: dict[int, dict[str, float]] = {}
    hands: dict[tuple[int, int, int], HandEV] = {}
    two_card: dict[int, dict[tuple[int, int], tuple[Action, ...]]] = {}
    pairs: dict[int, dict[int, tuple[Action, ...]]] = {}
    multi_card: dict[int, dict[tuple[int, int], Action]] = {}
    ev_td = ev_cd = 0.0
    outcome = {"player_blackjack": 0.0, "dealer_blackjack": 0.0}
    for up, res in enumerate(_solve_ups(cm, shoe)):
        if res is not None:
            p_up = shoe[up] / total_cards
            dealer[up] = res.dealer
            for (a, b), h in res.hands.items():
                hands[(a, b, up)] = replace(h, probability=p_up * h.probability)
            two_card[up] = res.two_card
            pairs[up] = res.pairs
            multi_card[up] = res.multi_card
            ev_td += p_up * res.ev_td
            ev_cd += p_up * res.ev_cd
            outcome["dealer_blackjack"] += p_up * res.dealer["blackjack"]
            bj = res.hands.get((_ACE, _TEN))
            outcome["player_blackjack"] += p_up * (bj.probability if bj else 0.0)
        if progress is not None:
            progress(up + 1, 10)
    return BlackjackAnalysis(
        rules=rules,
        counts=tuple(shoe),
        house_edge=-ev_td,
        house_edge_cd=-ev_cd,
        dealer=dealer,
        hands=hands,
        two_card=two_card,
        pairs=pairs,
        multi_card=multi_card,
        seconds=time.perf_counter() - t0,
        outcome_probabilities=outcome,
    )
