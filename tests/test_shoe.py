"""The virtual shoe and its procedures of control (BJ Art.5-6, PyB Art.5-6, M21 Art.5; rules.md §0)."""

from __future__ import annotations

from collections import Counter

import pytest

from tapete.cards import NAMES, parse_card
from tapete.errors import BadCards, LiveTableRefused
from tapete.shoe import SecureRandom, SeededRandom, Shoe, StackedSource, check_live_source, cut, fisher_yates


def test_art5_new_decks_procedures_in_order_as_events() -> None:
    shoe = Shoe(6, SeededRandom(1), cut_card_depth=78, burn=1)
    steps = [e.get("step", e["type"]) for e in shoe.events]
    assert steps == ["new_pack", "inspect", "show", "turn", "mix", "shuffle", "cut", "load", "burn"]


def test_art5_shoe_order_is_never_logged() -> None:
    shoe = Shoe(1, SeededRandom(3), cut_card_depth=None, burn=0)
    order = [NAMES[shoe.draw()] for _ in range(52)]
    text = repr(shoe.events)
    # no event carries more than the burned cards: the undealt order does not appear
    assert " ".join(order[:10]) not in text
    assert all(len(e.get("cards", [])) <= 11 for e in shoe.events)


def test_art5g_burn_fixed_count() -> None:
    shoe = Shoe(6, SeededRandom(2), cut_card_depth=78, burn=3)
    burn = next(e for e in shoe.events if e.get("step") == "burn")
    assert len(burn["cards"]) == 3
    assert shoe.remaining == 312 - 3


def test_pyb_burn_by_first_card_value() -> None:
    for seed in range(20):
        shoe = Shoe(8, SeededRandom(seed), cut_card_depth=104, burn="first_card_value")
        burned = next(e for e in shoe.events if e.get("step") == "burn")["cards"]
        first = parse_card(burned[0])
        value = (first // 4 + 1) if first // 4 < 9 else 10
        assert len(burned) == 1 + value


def test_art5e_cut_card_marks_the_last_round() -> None:
    shoe = Shoe(4, SeededRandom(5), cut_card_depth=52, burn=1)
    dealt = 0
    while not shoe.cut_card_out:
        shoe.draw()
        dealt += 1
    # cards before the cut card: the pack less the burn less the cards behind the cut card
    assert dealt == 208 - 52 - 1 + 1
    assert shoe.remaining == 52 - 1
    assert shoe.needs_shuffle()
    events = shoe.prepare_round()
    assert [e["step"] for e in events] == ["shuffle", "cut", "load", "burn"]  # Art.6 order
    assert not shoe.cut_card_out and shoe.remaining == 207


def test_cut_moves_the_cards_above_the_cutter_to_the_bottom() -> None:
    assert cut([1, 2, 3, 4, 5], 2) == [3, 4, 5, 1, 2]


def test_shuffle_is_a_permutation() -> None:
    cards = list(range(52)) * 2
    fisher_yates(cards, SeededRandom(9))
    assert Counter(cards) == Counter(list(range(52)) * 2)


def test_seeded_shuffle_is_reproducible_for_replay() -> None:
    a = Shoe(6, SeededRandom(42), cut_card_depth=78)
    b = Shoe(6, SeededRandom(42), cut_card_depth=78)
    assert [a.draw() for _ in range(50)] == [b.draw() for _ in range(50)]


def test_live_shoe_refuses_a_seeded_generator() -> None:
    with pytest.raises(LiveTableRefused):
        Shoe(6, SeededRandom(1), cut_card_depth=78, live=True)
    shoe = Shoe(6, SecureRandom(), cut_card_depth=78, live=True)
    check_live_source(shoe, live=True)


def test_live_table_refuses_a_stacked_source_unless_dealer_entered() -> None:
    cards = [parse_card("As")]
    with pytest.raises(LiveTableRefused):
        check_live_source(StackedSource(cards, 6), live=True)
    check_live_source(StackedSource(cards, 6, dealer_entered=True), live=True)
    check_live_source(StackedSource(cards, 6), live=False)


def test_stacked_source_rejects_impossible_cards_and_runs_out_cleanly() -> None:
    with pytest.raises(BadCards):
        StackedSource([parse_card("As")] * 2, 1)
    src = StackedSource([parse_card("As")], 1)
    src.draw()
    with pytest.raises(BadCards) as info:
        src.draw()
    assert info.value.at == 1


def test_seeded_fast_shuffle_is_the_same_fisher_yates() -> None:
    a, b = list(range(312)), list(range(312))
    fisher_yates(a, SeededRandom(5))
    SeededRandom(5).shuffle(b)
    assert a == b


def test_live_guard_checks_the_generators_type_not_its_declared_kind() -> None:
    class Impostor(SeededRandom):
        kind = "secure"

    with pytest.raises(LiveTableRefused):
        Shoe(6, Impostor(1), cut_card_depth=78, live=True)
    impostor_shoe = Shoe(6, Impostor(1), cut_card_depth=78, live=False)
    with pytest.raises(LiveTableRefused):
        check_live_source(impostor_shoe, live=True)  # a seeded shoe that says "secure" is still refused
