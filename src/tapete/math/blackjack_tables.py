"""Black Jack strategies as lookup tables, for the simulation kernels (`tapete.sim.kernels.blackjack`).

A strategy answers every question the regulation's round asks a holder (retiro, play decisions, the
offer to resplit Aces) from the dealer's up-card (value index: 0 = Ace, 1..8 = 2..9, 9 = ten) and the
hand's STATE: its multiset of values, one of the 3,083 of `tapete.math.blackjack.hand_states` (so a
composition-dependent strategy fits the same tables as a total-dependent one). Three builders:

* `basic_tables` — the analyzer's total-dependent basic strategy exactly as its house edge assumes it:
  the two-card rankings by total (pairs by pair), the 3+ card hit/stand policy by total (which may
  differ from the two-card chart's row: `BlackjackAnalysis.multi_card_exceptions`), split hands played by
  the same rankings with doubling allowed, resplitting by the pair's own ranking;
* `composition_tables` — the analyzer's composition-dependent play (`house_edge_composition_dependent`):
  every decision by the exact values of the hand's own cards, a split hand as an unsplit hand of the
  same cards (CDZ-);
* `chart_tables` — a chart (`tapete.strategy.Chart`, e.g. read from a file) answered as its
  ``decide`` answers the engine, so `tapete simulate --strategy FILE` plays what an engine auto-player
  with that chart plays.

Codes: 0 stand, 1 hit, 2 double, 3 split.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tapete.math.blackjack import (
    _ACE,
    _TEN,
    Action,
    BlackjackAnalysis,
    BlackjackRules,
    _make_common,
    _pick,
    _rank,
    _UpSolver,
    hand_states,
    shoe_counts,
)
from tapete.rules.blackjack import split_limit

STAND, HIT, DOUBLE, SPLIT = 0, 1, 2, 3
CODE: dict[str, int] = {"S": STAND, "H": HIT, "D": DOUBLE, "P": SPLIT}
I8 = npt.NDArray[np.int8]
B = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class DecisionTables:
    """A strategy for the kernels. ``K`` = max(1, the splits the pack allows: `split_limit`) (resplits
    already made, for split hands)."""

    name: str
    surrender: B  # [10, S] take the retiro offer (two-card states)
    first: I8  # [10, S] first decision of a hand that is not a split hand (two-card states)
    split_first: I8  # [10, 10, K, S] first decision of a split hand of pair p that may split again
    split_first_no: I8  # [10, 10, K, S] ... that may not (the box used its splits)
    multi: I8  # [10, S] hit (1) or stand (0) with three or more cards
    split_multi: I8  # [10, 10, K, S] the same on a split hand
    resplit_aces: B  # [10] take the offer to resplit Aces (only asked when the operator allows it)


def _empty(name: str, k: int) -> DecisionTables:
    n = hand_states().cnt.shape[0]
    return DecisionTables(
        name=name,
        surrender=np.zeros((10, n), dtype=np.bool_),
        first=np.zeros((10, n), dtype=np.int8),
        split_first=np.zeros((10, 10, k, n), dtype=np.int8),
        split_first_no=np.zeros((10, 10, k, n), dtype=np.int8),
        multi=np.zeros((10, n), dtype=np.int8),
        split_multi=np.zeros((10, 10, k, n), dtype=np.int8),
        resplit_aces=np.zeros(10, dtype=np.bool_),
    )


def _two_card_states() -> list[tuple[int, int, int]]:
    """(a, b, state) of every two-card hand, a <= b by value index."""
    st = hand_states()
    return [
        (a, b, st.index[tuple(int(i == a) + int(i == b) for i in range(10))])
        for a in range(10)
        for b in range(a, 10)
    ]


def basic_tables(analysis: BlackjackAnalysis, max_splits: int) -> DecisionTables:
    """The analyzer's total-dependent basic strategy (what `BlackjackAnalysis.house_edge` assumes)."""
    st = hand_states()
    max_splits = split_limit(max_splits, analysis.counts)
    k = max(1, max_splits)
    t = _empty("basic", k)
    no_r: set[Action] = {"S", "H", "D"}
    for up in range(10):
        two = analysis.two_card.get(up)
        if two is None:
            continue
        pairs = analysis.pairs[up]
        for a, b, s in _two_card_states():
            if (a, b) == (_ACE, _TEN):
                continue
            soft_tot = (int(st.soft[s]), int(st.tot[s]))
            found = pairs.get(a) if a == b else two.get(soft_tot)
            rk: tuple[Action, ...] = found if found is not None else ("H", "S")
            t.surrender[up, s] = rk[0] == "R"
            allowed: set[Action] = no_r | ({"P"} if a == b and max_splits >= 1 else set())
            t.first[up, s] = CODE[_pick(rk, allowed)]
        for m in np.nonzero(st.ncards >= 3)[0]:
            t.multi[up, m] = (
                HIT if analysis.multi_card[up][(int(st.soft[m]), int(st.tot[m]))] == "H" else STAND
            )
        t.split_multi[up, :, :, :] = t.multi[up][None, None, :]
        resplit = {p: _pick(rk, {"P", "S", "H", "D"}) == "P" for p, rk in pairs.items() if "P" in rk}
        t.resplit_aces[up] = resplit.get(_ACE, True)
        for a, b, s in _two_card_states():
            for p, x in ((a, b), (b, a)):
                if x == p:
                    rk = pairs.get(p, ("H", "S"))
                    play = CODE[_pick(rk, no_r)]
                    t.split_first[up, p, :, s] = SPLIT if resplit.get(p, True) else play
                    t.split_first_no[up, p, :, s] = play
                else:
                    rk = two.get((int(st.soft[s]), int(st.tot[s])), ("H", "S"))
                    t.split_first[up, p, :, s] = t.split_first_no[up, p, :, s] = CODE[_pick(rk, no_r)]
    return t


def composition_tables(
    decks: int = 6,
    surrender: bool = True,
    max_splits: int = 3,
    resplit_aces: bool = False,
) -> DecisionTables:
    """The analyzer's composition-dependent strategy (its ``house_edge_composition_dependent``), CDZ-:
    the best action by the exact values of the hand's cards, and a split hand plays as an unsplit hand
    of the same cards would (stand, hit or double, by the regular table), resplitting whenever allowed:
    exactly the play the analyzer's exact split values assume."""
    shoe = shoe_counts(decks)
    max_splits = split_limit(max_splits, shoe)
    rules = BlackjackRules(decks=decks, surrender=surrender, max_splits=max_splits, resplit_aces=resplit_aces)
    cm = _make_common(rules, shoe, False)
    st = cm.st
    k = max(1, max_splits)
    t = _empty("composition", k)
    multi_states = np.nonzero(st.ncards >= 3)[0]
    for up in range(10):
        solver = _UpSolver(cm, up)
        cd = solver.cd_values()
        for a, b, s in _two_card_states():
            vals = cd.get((a, b))
            if vals is None:
                continue
            rk = _rank(vals)
            t.surrender[up, s] = rk[0] == "R"
            t.first[up, s] = CODE[_pick(rk, {"S", "H", "D", "P"})]
        pol = solver.cd_policy
        t.multi[up, multi_states] = pol[multi_states].astype(np.int8)
        t.split_multi[up, :, :, :] = t.multi[up][None, None, :]
        t.resplit_aces[up] = True
        for p in range(10):
            for x in range(10):
                s = cm.two_idx[(min(p, x), max(p, x))]
                best = STAND if p == _ACE else int(pol[s])
                t.split_first_no[up, p, :, s] = best
                t.split_first[up, p, :, s] = SPLIT if x == p else best
    return t


def chart_tables(chart: object, max_splits: int) -> DecisionTables:
    """A `tapete.strategy.Chart` as tables: every state answered by ``chart.decide`` as the engine's
    auto-player asks it (the resplit-Aces offer is declined, as ``decide`` declines every non-play offer).
    `max_splits` sizes the tables: give the splits the pack allows (`BlackjackRules.splits_possible`)."""
    from tapete.games.base import Decision
    from tapete.strategy import Chart

    if not isinstance(chart, Chart):
        raise TypeError("chart_tables takes a tapete.strategy.Chart")
    st = hand_states()
    k = max(1, max_splits)
    t = _empty("chart", k)
    names = {"stand": STAND, "hit": HIT, "double": DOUBLE, "split": SPLIT}
    up_cards = [0] + [v * 4 for v in range(1, 10)]  # As, 2s .. 9s, Ts: only values matter

    def cards_of(s: int) -> list[int]:
        out: list[int] = []
        for v in range(10):
            out += [v * 4] * int(st.cnt[s, v])
        return out

    def decide(kind: str, legal: Sequence[str], cards: list[int], up: int) -> str:
        return chart.decide(Decision(kind, 1, 0, tuple(legal)), cards, up_cards[up])

    for up in range(10):
        for a, b, s in _two_card_states():
            if (a, b) == (_ACE, _TEN):
                continue
            cards = cards_of(s)
            t.surrender[up, s] = decide("surrender", ("surrender", "decline"), cards, up) == "surrender"
            legal = ["hit", "stand", "double"] + (["split"] if a == b and max_splits >= 1 else [])
            t.first[up, s] = names[decide("play", legal, cards, up)]
            with_split = names[decide("play", ["hit", "stand", "double", "split"], cards, up)]
            without = names[decide("play", ["hit", "stand", "double"], cards, up)]
            for p in {a, b}:
                t.split_first[up, p, :, s] = with_split if a == b else without
                t.split_first_no[up, p, :, s] = without
        for m in np.nonzero(st.ncards >= 3)[0]:
            t.multi[up, m] = names[decide("play", ["hit", "stand"], cards_of(int(m)), up)]
        t.split_multi[up, :, :, :] = t.multi[up][None, None, :]
    return t


def retired_pairs(tables: DecisionTables, up: int) -> set[tuple[int, int]]:
    """The two-card hands (Black Jack values, Ace 1, ten 10) a strategy retires against up-card value
    index `up`: what `tapete.math.majestic21.insurance_as_offered` needs."""
    out: set[tuple[int, int]] = set()
    for a, b, s in _two_card_states():
        if tables.surrender[up, s]:
            out.add((a + 1, b + 1))
    return out
