"""A round's money is one pure function of its events (`tapete.settlement.round_money`), the one the
server's ledger posts: checked here on its own against the engine's independent account of the round
(its `round_settled` event, kept as the round was played) over the golden random rounds of all four
games, a voided round, and Showdown's pot commission shared over its winners."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from tapete.cards import parse_shoe
from tapete.dealer import deal
from tapete.games import round_class
from tapete.rules import load_rules
from tapete.scenario import run
from tapete.settlement import pot_commission, round_money
from tapete.shoe import StackedSource
from tapete.table import RawBet, place_bets

GOLDEN = Path(__file__).parent / "golden" / "random-rounds.json.gz"
DOCS = [case["doc"] for case in json.loads(gzip.decompress(GOLDEN.read_bytes()))]


def _agrees(events: list[dict[str, Any]]) -> None:
    """round_money(events) says what the engine's own round_settled says, bettor by bettor."""
    settled = next(e for e in events if e["type"] == "round_settled")
    money = round_money(events)
    paid = money.paid()
    assert set(money.staked) == set(settled["players"])
    for player, account in settled["players"].items():
        assert money.staked[player] == account["staked"]
        assert paid.get(player, 0) == account["paid"]
    assert sum(money.commission.values()) == settled["house"]["commission"]
    bettors = set(money.staked) | {p for p in money.commission if p is not None}
    house = sum(money.house_net(p) + money.commission.get(p, 0) for p in bettors)
    assert house + money.commission.get(None, 0) == settled["house"]["net"]
    assert sum(money.staked.values()) == sum(paid.values()) + settled["house"]["net"]  # conserved


@pytest.mark.parametrize("game", ["blackjack", "punto_y_banca", "showdown_poker", "majestic_21"])
def test_round_money_agrees_with_the_engines_account_of_every_golden_round(game: str) -> None:
    docs = [d for d in DOCS if d["game"] == game]
    assert docs, f"no golden rounds of {game}"
    played = 0
    for doc in docs:
        try:
            events = run(doc)["events"]
        except Exception:  # a golden document may be a refusal: it has no money
            continue
        _agrees(events)
        played += 1
    assert played >= len(docs) // 2


def test_a_voided_round_returns_every_stake_and_nothing_else() -> None:
    rules = load_rules("blackjack", {})
    cls = round_class("blackjack")
    bets = [RawBet(1, "ana", "main", 1000), RawBet(2, "ben", "main", 800)]
    rnd = cls(rules, place_bets(bets, cls.bet_spec(rules)))
    deal(rnd, StackedSource(parse_shoe(["Ts", "9h", "5c", "7d", "6s", "8c"], rules.decks), rules.decks))
    rnd.void("a card fell face up")
    money = round_money(rnd.events)
    assert money.staked == {"ana": 1000, "ben": 800}
    assert money.paid() == money.staked and {c.kind for c in money.credits} == {"return"}
    assert money.commission == {} and all(money.house_net(p) == 0 for p in money.staked)
    _agrees(rnd.events)


def test_showdown_pot_commission_is_taken_from_the_winners_in_proportion_to_their_shares() -> None:
    pot = {"type": "pot", "commission": 10, "shares": {"3": 200, "5": 100}}
    assert pot_commission(pot, {3: "ana", 5: "ben"}) == {"ana": 7, "ben": 3}  # 6.67 + the unit left over
    assert pot_commission({"commission": 4, "shares": {}}, {}) == {None: 4}
