"""The control procedures' order as the engine holds it (BJ/PyB/M21 Art.4-6, SP Art.5-7; rules.md §0):
what a live table owes before its deal, each step out of order refused with what is expected, and the
virtual shoe's own records in that same order."""

from __future__ import annotations

import pytest

from tapete.errors import BadCards, BadRequest, InvalidRules
from tapete.games import round_class
from tapete.procedures import ProcedureOutOfOrder, ProcedureSequence, cut_event, inspect_event
from tapete.rules import load_rules
from tapete.session import make_shoe
from tapete.shoe import SecureRandom

NEW_PACK = ["new_pack", "inspect", "show", "turn", "mix", "shuffle", "cut", "load", "burn"]


def sequence(game: str, **rules: object) -> ProcedureSequence:
    model = load_rules(game, rules)
    return ProcedureSequence.for_rules(
        model, every_round=getattr(round_class(game), "SHUFFLE_EVERY_ROUND", False)
    )


@pytest.mark.parametrize("game", ["blackjack", "punto_y_banca", "majestic_21"])
def test_art5_new_pack_steps_in_order_before_the_first_deal(game: str) -> None:
    seq = sequence(game)
    assert seq.procedures_due() == NEW_PACK
    with pytest.raises(ProcedureOutOfOrder) as refused:
        seq.check_deal()
    assert refused.value.code == "conflict" and refused.value.params["due"] == NEW_PACK
    for step in NEW_PACK:
        seq.take(step)
    assert seq.ready and seq.procedures_due() == []
    seq.check_deal()


def test_art5_each_step_out_of_order_names_the_expected_one() -> None:
    seq = sequence("blackjack")
    for i, step in enumerate(NEW_PACK):
        for later in NEW_PACK[i + 1 :]:
            with pytest.raises(ProcedureOutOfOrder) as refused:
                seq.take(later)
            assert refused.value.params["expected"] == [step], (step, later)
        seq.take(step)
    assert seq.ready


def test_art4_a_rejected_inspection_admits_only_a_deck_change() -> None:
    seq = sequence("blackjack")
    seq.take("new_pack")
    seq.take("inspect", rejected=True)
    assert seq.procedures_due() == ["deck_change", *NEW_PACK]
    with pytest.raises(ProcedureOutOfOrder) as refused:
        seq.take("show")
    assert refused.value.params["expected"] == ["deck_change"]
    seq.take("deck_change")
    assert seq.procedures_due() == NEW_PACK


def test_art6_after_the_cut_card_shuffle_cut_load_burn_with_faces_optional_first() -> None:
    seq = sequence("blackjack")
    for step in NEW_PACK:
        seq.take(step)
    seq.round_dealt()
    assert seq.ready  # Black Jack deals on from the same shoe
    seq.take("cut_card")
    assert seq.procedures_due() == ["shuffle", "cut", "load", "burn"]
    with pytest.raises(ProcedureOutOfOrder) as refused:
        seq.take("cut")
    assert refused.value.params["expected"] == ["show", "turn", "mix", "shuffle"]
    seq.take("show")
    with pytest.raises(ProcedureOutOfOrder):
        seq.take("show")  # each face step once, in order
    for step in ("shuffle", "cut", "load", "burn"):
        seq.take(step)
    assert seq.ready


def test_sp_art7_showdown_shuffles_and_cuts_before_every_round() -> None:
    seq = sequence("showdown_poker")
    assert seq.procedures_due() == ["new_pack", "inspect", "show", "turn", "mix", "shuffle", "cut"]
    for step in seq.procedures_due():
        seq.take(step)
    seq.round_dealt()
    assert seq.procedures_due() == ["shuffle", "cut"]
    burning = sequence("showdown_poker", burn=2)
    assert burning.procedures_due()[-3:] == ["shuffle", "cut", "burn"]
    with pytest.raises(ProcedureOutOfOrder):
        burning.take("load")  # no shoe to load at Showdown


def test_art5e_cut_card_depth_within_40_and_half_the_pack() -> None:
    rules = load_rules("blackjack", {"decks": 6})
    assert cut_event({"by": "dealer"}, rules, [])["cut_card_depth"] == rules.cut_depth
    assert cut_event({"cut_card_depth": 40}, rules, [])["cut_card_depth"] == 40
    assert cut_event({"cut_card_depth": 156}, rules, [])["cut_card_depth"] == 156
    for depth in (30, 39, 157):
        with pytest.raises(InvalidRules) as refused:
            cut_event({"cut_card_depth": depth}, rules, [])
        assert refused.value.key == "err.rules.cut_card" and refused.value.params["depth"] == depth


def test_art5e_a_cut_by_a_seated_player_or_the_dealer() -> None:
    rules = load_rules("blackjack", {})
    assert cut_event({"by": "ana"}, rules, ["ana"])["by"] == "ana"
    with pytest.raises(BadRequest) as refused:
        cut_event({"by": "bruno"}, rules, ["ana"])
    assert refused.value.key == "err.procedures.cut_by"


def test_art4_inspection_counts_jokers_and_checks_a_read_pack() -> None:
    from tapete.cards import NAMES

    whole = [NAMES[c] for c in range(52)]
    event, rejected = inspect_event({"result": "complete", "cards": [*whole, "JK", "JK"]}, 1)
    assert not rejected and event["jokers_removed"] == 2 and event["cards_checked"] == 52
    with pytest.raises(BadCards):
        inspect_event({"result": "complete", "cards": whole[:-1]}, 1)
    with pytest.raises(BadRequest):
        inspect_event({"result": "rejected"}, 1)  # a rejection says why
    event, rejected = inspect_event({"result": "rejected", "reason": "a marked card"}, 1)
    assert rejected and event["reason"] == "a marked card"


@pytest.mark.parametrize("game", ["blackjack", "punto_y_banca", "majestic_21", "showdown_poker"])
def test_art5_the_virtual_shoe_records_the_same_steps_in_order(game: str) -> None:
    rules = load_rules(game, {})
    shoe = make_shoe(rules, SecureRandom(), live=True)
    seq = sequence(game)
    for event in shoe.events:
        step = event.get("step", event["type"])
        seq.take(step)  # raises if the shoe's own record is out of the regulation's order
    assert seq.ready
    seq.round_dealt()
    start = len(shoe.events)
    shoe.reshuffle()
    for event in shoe.events[start:]:
        if seq.ready:
            seq.take("cut_card")
        seq.take(event["step"])
    assert seq.ready
