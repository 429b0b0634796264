"""The engine judges back-bets with the table's holders (BJ Art.7, PyB Art.7a): given who took each box,
a back-bet on a box whose holder has no bet of his own is refused when the bets close, the first
bettor on a box never becomes its holder, and a back-bet is refused when placed unless every box is
taken. Without holders (a scenario's list) the first bettor named on a box holds it, as before."""

from __future__ import annotations

import pytest

from tapete.errors import BadBet
from tapete.games.blackjack import BlackjackRound
from tapete.rules.blackjack import BlackjackRules
from tapete.table import RawBet, check_entry, check_seat, place_bets

SPEC = BlackjackRound.bet_spec(BlackjackRules())
FULL = {seat: "demo" if seat <= 5 else "ana" for seat in range(1, 8)}


def test_art7_a_back_bet_on_a_box_whose_holder_has_no_bet_is_refused_at_the_close() -> None:
    bets = [RawBet(3, "beto", "main", 1000)]
    with pytest.raises(BadBet) as refused:
        place_bets(bets, SPEC, FULL)
    assert refused.value.key == "err.bet.back_box_not_in_play" and refused.value.at == 0
    assert refused.value.params == {"player": "beto", "seat": 3, "holder": "demo"}
    assert place_bets(bets, SPEC)[0].holder == "beto"  # a scenario's list: the first bettor holds it


def test_art7_the_holder_named_by_the_table_holds_the_box_with_its_back_bettor() -> None:
    bets = [RawBet(seat, FULL[seat], "main", 500) for seat in range(1, 8)] + [RawBet(3, "beto", "main", 1000)]
    boxes = place_bets(bets, SPEC, FULL)
    box = next(b for b in boxes if b.seat == 3)
    assert box.holder == "demo" and box.back_bettors == ["beto"]


def test_art7_a_back_bet_is_refused_when_placed_unless_every_box_is_taken() -> None:
    held = {seat: "demo" for seat in range(1, 7)}
    with pytest.raises(BadBet) as refused:
        check_entry([RawBet(3, "beto", "main", 1000)], 0, SPEC, held)
    assert refused.value.key == "err.bet.back_boxes_free"
    check_entry([RawBet(3, "beto", "main", 1000)], 0, SPEC, FULL)  # every box taken: it may wait


def test_art7b_a_player_who_plays_a_zone_cannot_take_a_second() -> None:
    from tapete.games.punto_y_banca import PuntoYBancaRound
    from tapete.rules.punto_y_banca import PuntoYBancaRules

    spec = PuntoYBancaRound.bet_spec(PuntoYBancaRules())
    with pytest.raises(BadBet) as refused:
        check_seat("ana", 4, spec, {2: "ana"})
    assert refused.value.key == "err.bet.two_zones" and refused.value.params == {"player": "ana", "zone": 2}
    check_seat("ben", 4, spec, {2: "ana"})


def test_art1n_a_box_joined_counts_among_the_boxes_a_player_may_take() -> None:
    spec = BlackjackRound.bet_spec(BlackjackRules(max_boxes_per_player=2))
    check_seat("ana", 3, spec, {1: "ana"})
    with pytest.raises(BadBet) as refused:
        check_seat("ana", 3, spec, {1: "ana"}, joined={5})
    assert refused.value.key == "err.bet.too_many_boxes"
    assert refused.value.params == {"player": "ana", "limit": 2, "seat": 3}
