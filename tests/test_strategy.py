"""The basic-strategy auto-player: the default chart and the analyzer's chart answer the dealer's
questions the way the tables say."""

from __future__ import annotations

from tapete.cards import parse_card
from tapete.games.blackjack import Decision
from tapete.strategy import DEFAULT_CHART, Chart

PLAY = Decision("play", 1, 0, ("hit", "stand", "double", "split"))
NO_SPLIT = Decision("play", 1, 0, ("hit", "stand", "double"))
SURRENDER = Decision("surrender", 1, 0, ("surrender", "decline"))


def cards(text: str) -> list[int]:
    return [parse_card(c) for c in text.split()]


def test_default_chart_answers() -> None:
    up_t, up_6, up_a = parse_card("Ks"), parse_card("6d"), parse_card("Ah")
    assert DEFAULT_CHART.decide(PLAY, cards("8s 8d"), up_6) == "split"
    assert DEFAULT_CHART.decide(PLAY, cards("Ts Td"), up_6) == "stand"
    assert DEFAULT_CHART.decide(NO_SPLIT, cards("6s 5d"), up_6) == "double"
    assert DEFAULT_CHART.decide(NO_SPLIT, cards("Ts 6d"), up_t) == "hit"
    assert DEFAULT_CHART.decide(SURRENDER, cards("Ts 6d"), up_t) == "surrender"
    assert DEFAULT_CHART.decide(SURRENDER, cards("Ts 7d"), up_t) == "decline"
    assert DEFAULT_CHART.decide(NO_SPLIT, cards("As 7d"), up_a) == "hit"
    # a three-card 11 cannot double: the D falls back to a hit; soft 18 Ds falls back to stand
    three = Decision("play", 1, 0, ("hit", "stand"))
    assert DEFAULT_CHART.decide(three, cards("2s 4d 5c"), up_6) == "hit"
    assert DEFAULT_CHART.decide(three, cards("As 2d 5c"), up_6) == "stand"


def test_chart_from_rows_reads_labels() -> None:
    rows = [("hard 5", ["H"] * 10), ("hard 17", ["S"] * 10), ("soft 18", ["S"] * 10), ("A-A", ["P"] * 10)]
    chart = Chart.from_rows(rows)
    assert chart.pairs[1][0] == "P" and chart.hard[17][9] == "S" and chart.soft[18][3] == "S"
