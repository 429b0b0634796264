"""Basic-strategy auto-players for the regulation's Black Jack (no peek, original bets only, retiro
against 2-10 but not an Ace, double any two and after splits, stand on all 17).

A `Chart` answers the dealer's questions from a strategy table. `DEFAULT_CHART` is the familiar
multi-deck S17/DAS chart; `Chart.from_analysis` takes the exact one that `tapete analyze blackjack`
computes for a table's settings (what the engine simulation plays when it cross-checks the math).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tapete.cards import BJ_VALUE, Card
from tapete.games.base import Decision
from tapete.games.blackjack import hand_total

UPS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "A")

#: rows of the default chart: label -> codes against 2..9, T, A (H S D Ds P Rh Rs Rp)
_DEFAULT_ROWS: dict[str, str] = {
    "hard 8": "H H H H H H H H H H",
    "hard 9": "H D D D D H H H H H",
    "hard 10": "D D D D D D D D H H",
    "hard 11": "D D D D D D D D D H",
    "hard 12": "H H S S S H H H H H",
    "hard 13": "S S S S S H H H H H",
    "hard 14": "S S S S S H H H Rh H",
    "hard 15": "S S S S S H H H Rh H",
    "hard 16": "S S S S S H H Rh Rh H",
    "hard 17": "S S S S S S S S S S",
    "soft 13": "H H H D D H H H H H",
    "soft 14": "H H H D D H H H H H",
    "soft 15": "H H D D D H H H H H",
    "soft 16": "H H D D D H H H H H",
    "soft 17": "H D D D D H H H H H",
    "soft 18": "S Ds Ds Ds Ds S S H H H",
    "soft 19": "S S S S S S S S S S",
    "soft 20": "S S S S S S S S S S",
    "2-2": "P P P P P P H H H H",
    "3-3": "P P P P P P H H H H",
    "4-4": "H H H P P H H H H H",
    "5-5": "D D D D D D D D H H",
    "6-6": "P P P P P H H H H H",
    "7-7": "P P P P P P H H Rh H",
    "8-8": "P P P P P P P P Rp P",
    "9-9": "P P P P P S P P S S",
    "T-T": "S S S S S S S S S S",
    "A-A": "P P P P P P P P P P",
}


def _col(up: Card) -> int:
    v = BJ_VALUE[up]
    return 9 if v == 1 else v - 2


_COL = tuple(_col(c) for c in range(len(BJ_VALUE)))  # the chart's column of each card as up-card


@dataclass(frozen=True)
class Chart:
    """A strategy table: hard and soft totals and pairs against each up-card."""

    hard: dict[int, tuple[str, ...]]
    soft: dict[int, tuple[str, ...]]
    pairs: dict[int, tuple[str, ...]]  # by the pair's card value (1 = Aces)

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[str, Sequence[str]]]) -> Chart:
        """Build from rows (label, codes) as `BlackjackAnalysis.chart()` gives them."""
        hard: dict[int, tuple[str, ...]] = {}
        soft: dict[int, tuple[str, ...]] = {}
        pairs: dict[int, tuple[str, ...]] = {}
        for label, codes in rows:
            codes = tuple(codes)
            if label.startswith("hard "):
                hard[int(label[5:])] = codes
            elif label.startswith("soft "):
                soft[int(label[5:])] = codes
            else:
                rank = label.split("-")[0]
                pairs[1 if rank == "A" else 10 if rank == "T" else int(rank)] = codes
        return cls(hard, soft, pairs)

    @classmethod
    def from_analysis(cls, analysis: Any) -> Chart:
        """The exact basic strategy of an analysis (`tapete.math.blackjack.analyze_blackjack`)."""
        return cls.from_rows(analysis.chart())

    def code(self, cards: Sequence[Card], up: Card) -> str:
        """The chart's code for a hand (pairs read as their total when not split)."""
        return self._code(cards, _COL[up])

    def _code(self, cards: Sequence[Card], col: int) -> str:
        total, soft = hand_total(cards)
        if soft and total <= 21 and total in self.soft:
            return self.soft[total][col]
        hard = self.hard
        row = hard.get(total)
        if row is None:  # below or above the chart's rows: its first or last row
            row = hard[min(max(total, min(hard)), max(hard))]
        return row[col]

    def decide(self, decision: Decision, cards: Sequence[Card], up: Card) -> str:
        """The chart's answer to `decision` on `cards` against `up` (offers included)."""
        col = _COL[up]
        legal = decision.legal
        if decision.kind == "surrender":
            pair = len(cards) == 2 and BJ_VALUE[cards[0]] == BJ_VALUE[cards[1]]
            code = self.pairs[BJ_VALUE[cards[0]]][col] if pair else self._code(cards, col)
            return "surrender" if code.startswith("R") else "decline"
        if decision.kind != "play":
            return "decline"  # insurance and even money are separate bets, not basic strategy
        pair = len(cards) == 2 and BJ_VALUE[cards[0]] == BJ_VALUE[cards[1]]
        if pair and "split" in legal:
            code = self.pairs[BJ_VALUE[cards[0]]][col]
            if code in ("P", "Rp"):
                return "split"
            if code.startswith("R"):
                code = code[1].upper()
        if "hit" not in legal:
            return "stand"
        code = self._code(cards, col)
        if code.startswith("R"):
            code = code[1].upper()
        if code in ("D", "Ds"):
            if "double" in legal:
                return "double"
            return "stand" if code == "Ds" else "hit"
        return "stand" if code == "S" else "hit"


DEFAULT_CHART = Chart.from_rows((label, codes.split()) for label, codes in _DEFAULT_ROWS.items())


def basic_strategy(decision: Decision, cards: Sequence[Card], up: Card) -> str:
    """The default chart's decision (see `Chart.decide`)."""
    return DEFAULT_CHART.decide(decision, cards, up)
