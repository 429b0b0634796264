"""Exact Punto y Banca math (PyB Art.8, 10, 11): outcome counts and house edges by full enumeration.

Method. Only baccarat values matter, so the pack is ten value classes (0 = 10/J/Q/K with ``16 * decks``
cards, 1-9 with ``4 * decks`` each). The first four cards (Punto, Banca, Punto, Banca) are enumerated as
a multiset of two Punto values and two Banca values (55 x 55 states, each weighted by its number of
ordered card sequences), then the third cards as Art.11 directs. Every count is an exact integer.

Counting convention (the one the published figures use): a coup is counted as the ordered sequence of
the first SIX cards of the shoe. A coup that ends after four or five cards is therefore weighted by the
number of ways to draw the unused remaining cards, so the three counts always sum to the falling
factorial ``N (N-1) ... (N-5)`` of the pack size ``N = 52 * decks``; the probabilities are unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from tapete.errors import BadCards, InvalidRules

#: Number of baccarat value classes (0-9).
VALUES = 10

__all__ = [
    "BaccaratAnalysis",
    "analyze_baccarat",
    "banca_draws",
    "class_counts",
    "count_outcomes",
    "falling",
    "is_natural",
    "play_coup",
    "punto_draws",
]


# --- drawing rule (Art.11) -------------------------------------------------------------------------


def is_natural(total: int) -> bool:
    """True for a two-card 8 or 9 (Art.11): if either side has one, nobody draws."""
    return total >= 8


def punto_draws(p2: int) -> bool:
    """Whether Punto takes a third card on two-card total `p2` (Art.11: 0-5 draws, 6-7 stands).

    Call it only when neither side has a natural (see `is_natural`); 8 and 9 return False.
    """
    _check_total(p2)
    return p2 <= 5


def banca_draws(b2: int, punto_third: int | None) -> bool:
    """Whether Banca takes a third card on two-card total `b2` (Art.11).

    `punto_third` is the baccarat value (0-9) of Punto's third card, or None if Punto stood. If Punto
    stood, Banca draws on 0-5 and stands on 6-7. If Punto drew x: 0-2 draws; 3 draws unless x = 8;
    4 draws when x is 2-7; 5 when x is 4-7; 6 when x is 6-7; 7 stands. Call it only when neither side
    has a natural; 8 and 9 return False.
    """
    _check_total(b2)
    if punto_third is None:
        return b2 <= 5
    _check_total(punto_third)
    x = punto_third
    if b2 <= 2:
        return True
    if b2 == 3:
        return x != 8
    if b2 == 4:
        return 2 <= x <= 7
    if b2 == 5:
        return 4 <= x <= 7
    if b2 == 6:
        return 6 <= x <= 7
    return False


def play_coup(values: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Deal one coup from baccarat `values` in shoe order (Art.10-11): (Punto's cards, Banca's cards).

    Cards go Punto, Banca, Punto, Banca, then Punto's third card (if any), then Banca's. Needs at least
    as many values as the coup uses (at most six); extra values are left undealt.
    """

    def take(i: int) -> int:
        if i >= len(values):
            raise BadCards(f"the coup needs card #{i + 1} but only {len(values)} were given", at=i)
        v = values[i]
        _check_total(v)
        return v

    punto = [take(0), take(2)]
    banca = [take(1), take(3)]
    p2 = (punto[0] + punto[1]) % 10
    b2 = (banca[0] + banca[1]) % 10
    if is_natural(p2) or is_natural(b2):
        return tuple(punto), tuple(banca)
    nxt = 4
    third: int | None = None
    if punto_draws(p2):
        third = take(nxt)
        punto.append(third)
        nxt += 1
    if banca_draws(b2, third):
        banca.append(take(nxt))
    return tuple(punto), tuple(banca)


def _check_total(v: int) -> None:
    if not 0 <= v <= 9:
        raise ValueError(f"a baccarat total or card value is 0-9, got {v}")


# --- counting ----------------------------------------------------------------------------------------


def falling(n: int, k: int) -> int:
    """The falling factorial n (n-1) ... (n-k+1): ordered ways to draw k of n cards."""
    out = 1
    for i in range(k):
        out *= n - i
    return out


def class_counts(decks: int) -> tuple[int, ...]:
    """Cards of each baccarat value 0-9 in a pack of `decks` decks (PyB Art.3: 10/J/Q/K are 0)."""
    if decks < 1:
        raise InvalidRules(f"a pack needs at least one deck, got {decks}")
    return (16 * decks,) + (4 * decks,) * 9


@lru_cache(maxsize=64)
def _count_cached(counts: tuple[int, ...]) -> tuple[int, int, int]:
    return _count(counts)


def count_outcomes(counts: Sequence[int]) -> tuple[int, int, int]:
    """Exact (Banca wins, Punto wins, ties) over ordered six-card sequences of a pack with `counts[v]`
    cards of baccarat value v; works for any composition (a full pack or a depleted shoe)."""
    if len(counts) != VALUES or any(c < 0 for c in counts):
        raise BadCards(f"need ten non-negative counts (values 0-9), got {list(counts)}")
    if sum(counts) < 6:
        raise BadCards(f"a coup needs six cards in the pack for this count, got {sum(counts)}")
    return _count_cached(tuple(counts))


def _count(counts: tuple[int, ...]) -> tuple[int, int, int]:
    c = list(counts)
    n = sum(c)
    tail4 = (n - 4) * (n - 5)  # ways to draw the two unused cards of a four-card coup
    tail5 = n - 5  # ... the one unused card of a five-card coup
    banca = punto = tie = 0
    rng = range(VALUES)
    # Banca-draws table, precomputed: draw[b2][x + 1] (x = -1 for "Punto stood").
    draw = [[banca_draws(b, None)] + [banca_draws(b, x) for x in rng] for b in range(8)]

    for p1 in rng:
        for p2 in range(p1, VALUES):
            wp = c[p1]
            c[p1] -= 1
            wp *= c[p2]
            c[p2] -= 1
            if wp:
                pt = (p1 + p2) % 10
                for b1 in rng:
                    for b2 in range(b1, VALUES):
                        w = wp * c[b1]
                        c[b1] -= 1
                        w *= c[b2]
                        c[b2] -= 1
                        if w:
                            if p1 != p2:
                                w *= 2
                            if b1 != b2:
                                w *= 2
                            bt = (b1 + b2) % 10
                            if pt >= 8 or bt >= 8 or (pt >= 6 and bt >= 6):
                                # natural, or both stand: four cards
                                w *= tail4
                                if pt > bt:
                                    punto += w
                                elif bt > pt:
                                    banca += w
                                else:
                                    tie += w
                            elif pt >= 6:
                                # Punto stands, Banca (0-5) draws: five cards
                                w *= tail5
                                for b3 in rng:
                                    k = c[b3]
                                    if k:
                                        bf = (bt + b3) % 10
                                        if pt > bf:
                                            punto += w * k
                                        elif bf > pt:
                                            banca += w * k
                                        else:
                                            tie += w * k
                            else:
                                row = draw[bt]
                                for x in rng:
                                    kx = c[x]
                                    if not kx:
                                        continue
                                    pf = (pt + x) % 10
                                    w5 = w * kx
                                    if row[x + 1]:
                                        c[x] -= 1
                                        lo = eq = hi = 0  # Banca third cards: final below/equal/above pf
                                        for b3 in rng:
                                            k = c[b3]
                                            bf = (bt + b3) % 10
                                            if bf < pf:
                                                lo += k
                                            elif bf == pf:
                                                eq += k
                                            else:
                                                hi += k
                                        c[x] += 1
                                        punto += w5 * lo
                                        tie += w5 * eq
                                        banca += w5 * hi
                                    else:
                                        w5 *= tail5
                                        if pf > bt:
                                            punto += w5
                                        elif bt > pf:
                                            banca += w5
                                        else:
                                            tie += w5
                        c[b1] += 1
                        c[b2] += 1
            c[p1] += 1
            c[p2] += 1
    return banca, punto, tie


# --- edges -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BaccaratAnalysis:
    """Exact counts, probabilities and house edges of the three bets for one table setting.

    Counts are ordered six-card sequences (see the module docstring); edges are the expected loss per
    unit staked, positive when the house gains.
    """

    decks: int
    commission_percent: int
    tie_pays: int
    banca_wins: int
    punto_wins: int
    ties: int
    total: int
    p_banca: Fraction
    p_punto: Fraction
    p_tie: Fraction
    edge_punto: Fraction
    edge_banca: Fraction
    edge_empate: Fraction

    def outcomes(self, bet: str) -> dict[str, Fraction]:
        """Probabilities of win / push / lose for bet ``punto``, ``banca`` or ``empate``."""
        if bet == "punto":
            return {"win": self.p_punto, "push": self.p_tie, "lose": self.p_banca}
        if bet == "banca":
            return {"win": self.p_banca, "push": self.p_tie, "lose": self.p_punto}
        if bet == "empate":
            return {"win": self.p_tie, "push": Fraction(0), "lose": self.p_banca + self.p_punto}
        raise KeyError(bet)

    def edges(self) -> dict[str, Fraction]:
        """House edge of each bet by its machine name."""
        return {"punto": self.edge_punto, "banca": self.edge_banca, "empate": self.edge_empate}

    def to_json(self) -> dict[str, Any]:
        """The `tapete analyze punto_y_banca --json` body (issue 6): floats rounded to 7 decimals, and
        every edge and probability also as the exact fraction (a string, ``"p/q"``)."""
        bets = {
            name: {
                "house_edge": round(float(edge), 7),
                "house_edge_exact": str(edge),
                "exact": True,
                "outcomes": {k: round(float(v), 7) for k, v in self.outcomes(name).items()},
                "outcomes_exact": {k: str(v) for k, v in self.outcomes(name).items()},
            }
            for name, edge in self.edges().items()
        }
        return {
            "game": "punto_y_banca",
            "rules": {
                "decks": self.decks,
                "commission_percent": self.commission_percent,
                "tie_pays": self.tie_pays,
            },
            "bets": bets,
            "counts": {"punto": self.punto_wins, "banca": self.banca_wins, "empate": self.ties},
        }


def analyze_baccarat(decks: int = 8, commission_percent: int = 5, tie_pays: int = 8) -> BaccaratAnalysis:
    """Exact outcome counts and house edges of Punto (1:1), Banca (1:1 less commission) and Empate
    (`tie_pays`:1) for a full pack of `decks` decks; Punto and Banca push on a tie (Art.8)."""
    if not 1 <= decks <= 8:  # as the Black Jack analysis; a huge pack took minutes, then a traceback
        raise InvalidRules(f"decks must be 1..8, got {decks}")
    if not 0 <= commission_percent <= 100:
        raise InvalidRules(f"commission_percent must be 0-100, got {commission_percent}")
    if tie_pays < 0:
        raise InvalidRules(f"tie_pays must be non-negative, got {tie_pays}")
    counts = class_counts(decks)
    banca, punto, tie = count_outcomes(counts)
    total = falling(sum(counts), 6)
    assert banca + punto + tie == total
    pb, pp, pt = Fraction(banca, total), Fraction(punto, total), Fraction(tie, total)
    banca_pays = Fraction(100 - commission_percent, 100)
    return BaccaratAnalysis(
        decks=decks,
        commission_percent=commission_percent,
        tie_pays=tie_pays,
        banca_wins=banca,
        punto_wins=punto,
        ties=tie,
        total=total,
        p_banca=pb,
        p_punto=pp,
        p_tie=pt,
        edge_punto=pb - pp,
        edge_banca=pp - pb * banca_pays,
        edge_empate=(pb + pp) - pt * tie_pays,
    )
