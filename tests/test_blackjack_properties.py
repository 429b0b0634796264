"""Property tests (Hypothesis) of the Black Jack round, shared with Majestic 21: random legal decision
sequences on random shoes always finish, conserve money, leave state unchanged after a refused decision,
and never leak the hole card into a player's or the dealer's view before it is turned."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tapete.cards import NAMES
from tapete.errors import IllegalAction
from tapete.games import round_class
from tapete.games.blackjack import Action
from tapete.log import recall
from tapete.rules import load_rules
from tapete.shoe import SeededRandom, Shoe
from tapete.table import RawBet, place_bets
from tests.bj_helpers import BJ_GAMES, game_param
from tests.engine_helpers import start


@pytest.fixture(params=[game_param(g) for g in BJ_GAMES])
def game(request: pytest.FixtureRequest) -> str:
    """Each property is checked on Black Jack and on Majestic 21."""
    return str(request.param)


def _bets(draw: Any, game: str) -> list[RawBet]:
    seats = draw(st.lists(st.integers(1, 7), min_size=1, max_size=7, unique=True))
    bets = [RawBet(s, f"p{s}", "main", draw(st.integers(100, 5000))) for s in sorted(seats)]
    if len(seats) == 7 and draw(st.booleans()):
        bets.append(RawBet(draw(st.integers(1, 7)), "back", "main", draw(st.integers(100, 999))))
    if game == "majestic_21":
        for s in seats:
            for spot in ("under_13", "over_13", "exactly_13"):
                if draw(st.booleans()):
                    bets.append(RawBet(s, f"p{s}", spot, draw(st.integers(100, 777))))
    return bets


def _illegal_candidates(rnd: Any) -> list[Action]:
    d = rnd.pending
    other = 1 + d.seat % 7
    return [
        Action(other, "hit"),
        Action(d.seat, "even_money" if d.kind != "even_money" else "hit"),
        Action(d.seat, "double", amount=10**9),
        Action(d.seat, "insurance", amount=10**9),
        Action(d.seat, "hit", hand=9),
    ]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_random_rounds_finish_conserve_money_and_hide_the_hole_card(game: str, data: Any, seed: int) -> None:
    rules = load_rules(
        game, {"resplit_aces": data.draw(st.booleans()), "decks": data.draw(st.integers(4, 8))}
    )
    cls = round_class(game)
    boxes = place_bets(_bets(data.draw, game), cls.bet_spec(rules))
    shoe = Shoe(rules.decks, SeededRandom(seed), cut_card_depth=rules.cut_depth, burn=1)
    rnd = start(cls, rules, shoe, boxes)
    pick = random.Random(seed)
    steps = 0
    while rnd.pending is not None:
        steps += 1
        assert steps < 200
        hole = NAMES[rnd.dealer[1]]
        for viewer in ("dealer", *(f"player:{b.holder}" for b in rnd.boxes)):
            shown = rnd.view(viewer)
            assert shown["dealer"][1] == "??"
            assert "events" not in shown
        before = (repr(rnd.view("inspector")), len(rnd.events), dict(rnd.staked), dict(rnd.paid))
        for bad in _illegal_candidates(rnd):
            if not rnd.can(bad):
                with pytest.raises(IllegalAction):
                    rnd.apply(bad)
        assert (repr(rnd.view("inspector")), len(rnd.events), dict(rnd.staked), dict(rnd.paid)) == before
        d = rnd.pending
        choice = pick.choice(d.legal)
        box = next(b for b in rnd.boxes if b.seat == d.seat)
        hand = d.hand if d.kind == "play" and len(box.hands) > 1 else None
        amount = None
        if choice in ("double", "insurance") and pick.random() < 0.5:
            amount = pick.randint(1, d.max_amount or 1)
        rnd.apply(Action(d.seat, choice, hand, amount))
        assert NAMES[rnd.dealer[1]] == hole
    assert rnd.finished
    out = rnd.result()
    staked = sum(v["staked"] for v in out["players"].values())
    paid = sum(v["paid"] for v in out["players"].values())
    assert staked == paid + out["house"]["net"]
    assert all(h["outcome"] for s in out["seats"] for h in s["hands"])
    # recall: the round is rebuilt from its events alone
    _, same = recall(rnd.events)
    assert same
