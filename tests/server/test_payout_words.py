"""The payout lines a table's state carries are cached per round and step; the cache must never hand one
round's lines to another round that happens to share its table number, round number, length and address
(an object's id is unique only among live objects: a process serving several casinos, as the tests do,
meets table 1, round 1 again and again, often at a freed round's address)."""

from __future__ import annotations

import pytest

from tapete.cards import parse_card
from tapete.rules import load_rules
from tapete.server.catalogs import words
from tapete.session import TableSession
from tapete.shoe import StackedSource
from tapete.table import RawBet


def _finished_round(cards: list[str], amount: int) -> object:
    rules = load_rules("blackjack", {})
    session = TableSession(
        "blackjack", rules, live=False, source=StackedSource([parse_card(c) for c in cards], 8), log=False
    )
    rnd = session.start_round([RawBet(1, "ana", "main", amount)])
    while not rnd.finished:  # ana stands, declining any offer
        legal = rnd.pending.legal  # type: ignore[attr-defined]
        rnd.apply(type(rnd).parse_action({"seat": 1, "action": "stand" if "stand" in legal else "decline"}))
        rnd.deal_from(session.source.draw)
    return rnd


def test_payout_lines_are_never_another_rounds_at_the_same_address(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(words, "id", lambda _obj: 7, raising=False)  # every round "at the same address"
    rules = load_rules("blackjack", {})
    cards = ["Ts", "9h", "Tc", "7d", "Kd", "Kc", "Kh", "Ks"]  # 20 against 16, the dealer draws and busts
    small, big = _finished_round(cards, 1000), _finished_round(cards, 2500)
    assert len(small.events) == len(big.events)  # type: ignore[attr-defined]
    first = words.payouts(1, "blackjack", rules, small)  # type: ignore[arg-type]
    second = words.payouts(1, "blackjack", rules, big)  # type: ignore[arg-type]
    assert [line["stake"] for line in first] == [1000]
    assert [line["stake"] for line in second] == [2500]
