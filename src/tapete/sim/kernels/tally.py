"""What a kernel returns for one chunk of rounds, how chunks add up, and the statistics of the JSON.

Every sum a chunk returns is either an exact integer (counts, sums of results in money units) or a float
computed in a fixed order inside one chunk, and chunks are merged in chunk order: so a run's numbers
depend on the seed and the number of rounds only, never on how many workers or machines played it.

The confidence interval treats each CLUSTER as one observation (a shoe, from shuffle to reshuffle; a
round at Showdown Póker, whose deck is shuffled before every round): the rounds of one shoe share its
cards and the seats of one round share the dealer's or the community cards, so rounds are not
independent. The house edge is the ratio estimator ``-sum X / (stake * sum N)`` (``X`` = results, ``N``
= bets settled, per cluster), its variance the delta method's ``S/(S-1) * sum (X_c - mu N_c)^2 / (sum N)^2``.
The standard deviation is per bet settled (one seat's one round): what a player's result swings by.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

#: Two-sided 95% normal quantile.
Z95 = 1.959963984540054


@dataclass
class BetTally:
    """Sums of one bet over the rounds of a chunk (or of a run, once merged). Money in table units."""

    n: int = 0  # bets settled (a seat's bet in one round; insurance only when taken)
    total: int = 0  # sum of results (paid - staked)
    squares: float = 0.0  # sum of squared results
    cx2: float = 0.0  # over clusters: sum of X_c^2
    cxn: float = 0.0  # ... sum of X_c * N_c
    cn2: float = 0.0  # ... sum of N_c^2
    outcomes: list[int] = field(default_factory=list)  # counts by the plan's outcome names

    def merge(self, other: BetTally) -> None:
        """Add another chunk's sums (chunks are merged in chunk order)."""
        self.n += other.n
        self.total += other.total
        self.squares += other.squares
        self.cx2 += other.cx2
        self.cxn += other.cxn
        self.cn2 += other.cn2
        if not self.outcomes:
            self.outcomes = [0] * len(other.outcomes)
        for i, k in enumerate(other.outcomes):
            self.outcomes[i] += k


@dataclass
class ChunkResult:
    """One chunk's tallies: one BetTally per bet of the plan (same order), the clusters (shoes, or rounds
    at Showdown), the shuffles, and the plan's event counters (e.g. naturals, splits, exchanges)."""

    index: int
    rounds: int
    clusters: int
    shuffles: int
    bets: list[BetTally]
    events: list[int]

    def merge(self, other: ChunkResult) -> None:
        """Add another chunk (in chunk order)."""
        self.rounds += other.rounds
        self.clusters += other.clusters
        self.shuffles += other.shuffles
        for mine, theirs in zip(self.bets, other.bets, strict=True):
            mine.merge(theirs)
        if not self.events:
            self.events = [0] * len(other.events)
        for i, k in enumerate(other.events):
            self.events[i] += k


def bet_summary(t: BetTally, stake: int, clusters: int, outcome_names: tuple[str, ...]) -> dict[str, Any]:
    """The JSON of one bet: house edge (per unit of the bet's initial stake, positive = the house gains),
    its 95% interval over clusters, the standard deviation of one settled bet, and outcome frequencies."""
    out: dict[str, Any] = {"n": t.n, "stake": stake}
    if t.n == 0:
        out.update({"house_edge": None, "ci95": [None, None], "sd": None})
        return out
    mean = t.total / t.n
    edge = -mean / stake
    var = (t.squares - t.total * mean) / (t.n - 1) if t.n > 1 else math.nan
    sd = math.sqrt(max(var, 0.0)) / stake if t.n > 1 else math.nan
    if clusters > 1:
        resid = t.cx2 - 2.0 * mean * t.cxn + mean * mean * t.cn2
        se = math.sqrt(max(resid, 0.0) * clusters / (clusters - 1)) / t.n / stake
    else:
        se = math.nan
    out.update(
        {
            "house_edge": edge,
            "ci95": [edge - Z95 * se, edge + Z95 * se],
            "sd": sd,
            "se": se,
            "outcomes": {name: k / t.n for name, k in zip(outcome_names, t.outcomes, strict=True)},
        }
    )
    return out
