"""Cards, decks and pack inspection (BJ Art.1h, 3, 4; PyB Art.3-4; M21 Art.1g, 4; rules.md §0)."""

from __future__ import annotations

import pytest

from tapete.cards import (
    NAMES,
    card_name,
    check_can_hold,
    deck,
    inspect_pack,
    pack,
    parse_card,
    parse_cards,
    read_card,
)
from tapete.errors import BadCards


def test_art1h_deck_is_52_english_cards_four_suits_thirteen_ranks() -> None:
    cards = deck()
    assert len(cards) == 52 and len(set(cards)) == 52
    assert {card_name(c)[0] for c in cards} == set("A23456789TJQK")
    assert {card_name(c)[1] for c in cards} == set("shdc")


def test_notation_round_trips_and_a_person_may_type_10() -> None:
    for name in NAMES:
        assert card_name(parse_card(name)) == name
    assert card_name(read_card("10d")) == "Td"
    assert card_name(read_card(" qH ")) == "Qh"


@pytest.mark.parametrize("text", ["10d", "as", "AS", "qh", " 2s ", "10s"])
def test_files_and_the_api_take_the_notation_only(text: str) -> None:
    """rules.md: rank A 2-9 T J Q K then suit s h d c, everywhere (files, API, logs): a lab's file or a
    shoe reader writing `as` or `10s` is refused by name, not read as it might have meant."""
    with pytest.raises(BadCards) as info:
        parse_card(text)
    assert repr(text) in info.value.message


@pytest.mark.parametrize("text", ["1s", "Ax", "", "T", "Tdd", 5, None, "11c", "JK"])
def test_unknown_card_is_refused_by_name(text: object) -> None:
    with pytest.raises(BadCards) as info:
        parse_card(text)
    assert repr(text) in info.value.message


def test_parse_cards_names_the_index_of_the_bad_card() -> None:
    with pytest.raises(BadCards) as info:
        parse_cards(["As", "Kd", "Zz"])
    assert info.value.at == 2


def test_art2b_pack_of_n_decks() -> None:
    assert len(pack(6)) == 312
    assert all(pack(6).count(c) == 6 for c in range(52))


def test_art4_inspection_removes_and_counts_jokers() -> None:
    cards = [*NAMES, "JK", *NAMES, "JOKER"]
    report = inspect_pack(cards, 2)
    assert report.jokers_removed == 2 and len(report.cards) == 104
    assert "joker" in report.notes[0]


def test_art4_incomplete_pack_names_the_missing_card() -> None:
    cards = [n for n in NAMES if n != "7h"]
    with pytest.raises(BadCards) as info:
        inspect_pack(cards, 1)
    assert "7h" in info.value.message and "incomplete" in info.value.message


def test_art4_extra_card_is_named() -> None:
    with pytest.raises(BadCards) as info:
        inspect_pack([*NAMES, "Qs"], 1)
    assert "Qs" in info.value.message


def test_art4_foreign_card_is_named() -> None:
    with pytest.raises(BadCards) as info:
        inspect_pack([*NAMES, "Xq"], 1)
    assert "Xq" in info.value.message and info.value.at == 52


def test_stacked_cards_cannot_exceed_the_packs_copies() -> None:
    check_can_hold([parse_card("As")] * 6, 6)
    with pytest.raises(BadCards) as info:
        check_can_hold([parse_card("Kd")] + [parse_card("As")] * 7, 6)
    assert info.value.at == 7 and "As" in info.value.message
