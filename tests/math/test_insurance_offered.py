"""Majestic 21's insurances valued as the table offers them (never to a Black Jack box nor to a box that
retired): the exact fraction against a count over every card of a one-deck pack."""

from __future__ import annotations

from fractions import Fraction

from tapete.cards import BJ_VALUE, parse_card
from tapete.math.majestic21 import insurance, insurance_as_offered


def _brute(up: int, retired: set[tuple[int, int]]) -> Fraction:
    """Count (box card 1, box card 2, hole card) over one deck less the up-card."""
    target, pays = (10, 2) if BJ_VALUE[up] == 1 else (1, 10)
    cards = [c for c in range(52) if c != up]
    wins = asked = 0
    for a in cards:
        for b in cards:
            if a == b:
                continue
            va, vb = BJ_VALUE[a], BJ_VALUE[b]
            if {va, vb} == {1, 10} or (va, vb) in retired or (vb, va) in retired:
                continue
            for hole in cards:
                if hole in (a, b):
                    continue
                asked += 1
                wins += BJ_VALUE[hole] == target
    p = Fraction(wins, asked)
    return 1 - (pays + 1) * p


def test_insurance_as_offered_is_the_count_over_every_card() -> None:
    ace, ten = parse_card("As"), parse_card("Kd")
    retire = {(10, 6), (9, 7), (10, 5), (8, 8)}
    assert insurance_as_offered(1, ace)["house_edge"] == _brute(ace, set())
    assert insurance_as_offered(1, ten, retire)["house_edge"] == _brute(ten, retire)
    # a box that may hold any two cards, Black Jack included, is the up-card-only figure
    everyone = insurance(1, ace)["house_edge"]
    assert insurance_as_offered(1, ace)["house_edge"] != everyone
    outcomes = insurance_as_offered(6, ten, retire)["outcomes"]
    assert outcomes["win"] + outcomes["lose"] == 1
