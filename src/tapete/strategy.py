"""A basic-strategy auto-player for the regulation's Black Jack (no peek, original bets only, surrender
against 2-10 but not an Ace, double any two, double after split, stand on soft 17).

Used by simulations and benchmarks. It is the familiar multi-deck S17/DAS chart; `tapete analyze
blackjack --chart` computes the exact one for a table's settings.
"""

from __future__ import annotations

from tapete.cards import BJ_VALUE, Card
from tapete.games.blackjack import Decision, hand_total

# up-card index: 2..10 → 0..8, Ace → 9
_HARD: dict[int, str] = {
    # total: actions vs 2 3 4 5 6 7 8 9 T A
    8: "HHHHHHHHHH",
    9: "HDDDDHHHHH",
    10: "DDDDDDDDHH",
    11: "DDDDDDDDDH",
    12: "HHSSSHHHHH",
    13: "SSSSSHHHHH",
    14: "SSSSSHHHHH",
    15: "SSSSSHHHRH",
    16: "SSSSSHHRRH",
    17: "SSSSSSSSSS",
}
_SOFT: dict[int, str] = {
    13: "HHHDDHHHHH",
    14: "HHHDDHHHHH",
    15: "HHDDDHHHHH",
    16: "HHDDDHHHHH",
    17: "HDDDDHHHHH",
    18: "SDDDDSSHHH",
    19: "SSSSSSSSSS",
    20: "SSSSSSSSSS",
}
_PAIRS: dict[int, str] = {
    # pair card value: split (P) or not (-) vs 2..A
    1: "PPPPPPPPPP",
    2: "PPPPPP----",
    3: "PPPPPP----",
    4: "---PP-----",
    5: "----------",
    6: "PPPPP-----",
    7: "PPPPPP----",
    8: "PPPPPPPPPP",
    9: "PPPPP-PP--",
    10: "----------",
}


def _col(up: Card) -> int:
    v = BJ_VALUE[up]
    return 9 if v == 1 else v - 2


def basic_strategy(decision: Decision, cards: list[Card], up: Card) -> str:
    """The chart's decision for `decision` (a play decision or an offer) on `cards` against `up`."""
    kind = decision.kind
    legal = decision.legal
    if kind != "play":
        if kind == "surrender":
            total, soft = hand_total(cards)
            return (
                "surrender"
                if not soft and _HARD.get(min(max(total, 8), 17), "")[_col(up)] == "R"
                else "decline"
            )
        return "decline"  # insurance and even money are not part of basic strategy
    col = _col(up)
    pair = "split" in legal and len(cards) == 2 and BJ_VALUE[cards[0]] == BJ_VALUE[cards[1]]
    if pair and _PAIRS[BJ_VALUE[cards[0]]][col] == "P":
        return "split"
    if "hit" not in legal:
        return "stand"
    total, soft = hand_total(cards)
    code = _SOFT.get(max(total, 13), "S")[col] if soft and total <= 20 else _HARD[min(max(total, 8), 17)][col]
    if code == "D":
        return "double" if "double" in legal else ("stand" if soft and total >= 18 else "hit")
    if code == "R":
        return "hit"
    return "stand" if code == "S" else "hit"
