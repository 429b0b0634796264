"""Showdown Póker (reglamento of 17-08-2000, rules.md §3): one test per article the round enforces, the
paytable and the Art.13 formula with worked numbers, the pot and bonus of rules.md [A], views that
never leak a face-down card, recall from the log, and Hypothesis properties (money conserved with pot,
commission, bonus and the payout limit; refused actions change nothing)."""

from __future__ import annotations

import json
import random
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tapete.cards import NAMES, parse_cards
from tapete.cli import app
from tapete.errors import BadBet, IllegalAction, InvalidRules, TapeteError
from tapete.games.showdown import (
    DECLINE,
    EXCHANGE,
    INCREMENT_1,
    INCREMENT_2,
    Action,
    ShowdownRound,
    hand_outcome,
    hand_strength,
)
from tapete.i18n import house_rules_text
from tapete.log import recall
from tapete.play.common import Script
from tapete.poker import evaluate5
from tapete.rules import load_rules
from tapete.rules.showdown import ShowdownRules
from tapete.scenario import run, run_file
from tapete.session import TableSession
from tapete.shoe import SeededRandom, Shoe, StackedSource
from tapete.table import RawBet, place_bets
from tests.engine_helpers import start
from tests.play_helpers import play_game


# ------------------------------------------------------------------------------------------- helpers
def deal(hands: list[str], community: str, replacements: str = "") -> list[str]:
    """The scenario card order of Art.9.1 from each seat's three cards and the two community cards:
    first card to each seat, community 1, second to each seat, community 2, third to each seat, then
    the replacements of exchanges."""
    split = [h.split() for h in hands]
    comm = community.split()
    order = [h[0] for h in split] + [comm[0]] + [h[1] for h in split] + [comm[1]] + [h[2] for h in split]
    return order + replacements.split()


def scenario(
    hands: list[str],
    community: str,
    *,
    seats: list[int] | None = None,
    bet: int = 1000,
    bonus: dict[int, int] | None = None,
    actions: list[dict[str, Any]] | None = None,
    rules: dict[str, Any] | None = None,
    replacements: str = "",
) -> dict[str, Any]:
    """A scenario document: seat k (1..n unless `seats`) holds hands[k], bets `bet`, posts the pot."""
    seats = seats or list(range(1, len(hands) + 1))
    r = {"table_min": 100, "table_max": 100000, **(rules or {})}
    pot = r.get("pot_bet", r["table_min"])
    bets: list[dict[str, Any]] = []
    for s in seats:
        bets.append({"seat": s, "player": f"p{s}", "spot": "bet", "amount": bet})
        bets.append({"seat": s, "player": f"p{s}", "spot": "pot", "amount": pot})
        if bonus and s in bonus:
            bets.append({"seat": s, "player": f"p{s}", "spot": "bonus", "amount": bonus[s]})
    return {
        "game": "showdown_poker",
        "rules": r,
        "cards": deal(hands, community, replacements),
        "bets": bets,
        "actions": actions or [],
    }


def nets(out: dict[str, Any]) -> dict[str, int]:
    return {p: v["net"] for p, v in out["players"].items()}


def seat_of(out: dict[str, Any], seat: int) -> dict[str, Any]:
    return next(s for s in out["seats"] if s["seat"] == seat)


def error_of(doc: dict[str, Any]) -> TapeteError:
    with pytest.raises(TapeteError) as info:
        run(doc)
    return info.value


def conserved(out: dict[str, Any]) -> None:
    staked = sum(v["staked"] for v in out["players"].values())
    paid = sum(v["paid"] for v in out["players"].values())
    assert staked == paid + out["house"]["net"]
    assert out["house"]["net"] == -sum(v["net"] for v in out["players"].values())


def inc(seat: int, n: int = 1) -> dict[str, Any]:
    return {"seat": seat, "action": f"increment_{n}"}


def decline(rnd: ShowdownRound, times: int = 99) -> None:
    """Say nothing to the next `times` offers (all of them by default)."""
    for _ in range(times):
        if rnd.pending is None:
            return
        rnd.apply(rnd.decline(rnd.pending))


def strings(obj: Any) -> set[str]:
    """Every string value inside a view (to look for card names as whole values)."""
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return set().union(*(strings(v) for v in obj.values())) if obj else set()
    if isinstance(obj, list):
        return set().union(*(strings(v) for v in obj)) if obj else set()
    return set()


def make_round(
    hands: list[str], community: str, rules: dict[str, Any] | None = None, replacements: str = ""
) -> ShowdownRound:
    """A round object on a stacked shoe (for view and triad tests)."""
    doc = scenario(hands, community, rules=rules, replacements=replacements)
    r = load_rules("showdown_poker", doc["rules"])
    assert isinstance(r, ShowdownRules)
    boxes = place_bets(
        [RawBet(b["seat"], b["player"], b["spot"], b["amount"]) for b in doc["bets"]],
        ShowdownRound.bet_spec(r),
    )
    return start(ShowdownRound, r, StackedSource(parse_cards(doc["cards"]), 1), boxes)


# ---------------------------------------------------------------------------- the public example
def test_public_example_commission_on_the_whole_pot() -> None:
    """shared/spec/examples: both push with a pair of queens; the 200 pot goes to ben on the kicker,
    less 5% of the WHOLE pot (10), so ben nets 190 - 100 = +90 and the house +10."""
    path = (
        Path(__file__).resolve().parents[2] / "shared" / "spec" / "examples" / "showdown-poker-exchange.json"
    )
    if not path.exists():
        path = Path(__file__).resolve().parent / "scenarios" / "examples" / "showdown-poker-exchange.json"
    code, out = run_file(str(path))
    assert code == 0, out
    assert nets(out) == {"ana": -100, "ben": 90}
    assert out["house"] == {"net": 10, "commission": 10}
    assert out["pot"]["total"] == 200 and out["pot"]["distributable"] == 190
    ben = seat_of(out, 3)
    assert ben["cards"] == ["Qc", "Qh", "4s"] and ben["exchanged"] == ["9c", "3c"]
    assert ben["final_hand"]["category"] == "pair" and ben["outcome"] == "push"
    assert seat_of(out, 1)["increments"] == [1000, 1000] and ben["increments"] == [1000]
    conserved(out)


# ---------------------------------------------------------------------------------------- Art.8
def test_art8_bet_and_pot_bet_are_both_required() -> None:
    doc = scenario(["As Kd 2c"], "3h 4h")
    doc["bets"] = [b for b in doc["bets"] if b["spot"] != "pot"]
    err = error_of(doc)
    assert isinstance(err, BadBet) and err.message.endswith("must post a pot bet") and err.at == 0
    doc = scenario(["As Kd 2c"], "3h 4h")
    doc["bets"] = [b for b in doc["bets"] if b["spot"] != "bet"]
    err = error_of(doc)
    assert isinstance(err, BadBet) and err.message.endswith("must post a bet")  # not "a bet bet"
    doc = scenario(["As Kd 2c", "Ah Kh 2h"], "3h 4h")
    doc["bets"] = [{"seat": 1, "player": "p9", "spot": "bonus", "amount": 100}, *doc["bets"][2:]]
    err = error_of(doc)
    assert isinstance(err, BadBet) and "bonus on seat 1 needs a bet on the same box" in err.message


def test_art8_bet_within_the_table_limits() -> None:
    for amount in (99, 100001):
        err = error_of(scenario(["As Kd 2c"], "3h 4h", bet=amount))
        assert isinstance(err, BadBet) and err.at == 0


def test_art8_pot_bet_is_the_fixed_amount_default_table_minimum() -> None:
    doc = scenario(["As Kd 2c", "Ah Kh 2h"], "3h 4h", rules={"table_min": 250})
    assert doc["bets"][1]["amount"] == 250
    assert run(doc)["pot"]["total"] == 500
    doc["bets"][1]["amount"] = 300
    err = error_of(doc)
    assert isinstance(err, BadBet) and "fixed 250" in err.message and err.at == 1
    doc = scenario(["As Kd 2c", "Ah Kh 2h"], "3h 4h", rules={"pot_bet": 120})
    assert run(doc)["pot"]["total"] == 240


def test_art8_bonus_is_optional_with_its_own_limits() -> None:
    rules = {"bonus_min": 50, "bonus_max": 500}
    out = run(scenario(["As Kd 2c", "Ah Kh 2h"], "3h 4h", bonus={1: 50}, rules=rules))
    assert seat_of(out, 1)["bonus"]["stake"] == 50 and "bonus" not in seat_of(out, 2)
    err = error_of(scenario(["As Kd 2c"], "3h 4h", bonus={1: 501}, rules=rules))
    assert isinstance(err, BadBet) and "above the limit 500" in err.message
    err = error_of(scenario(["As Kd 2c"], "3h 4h", bonus={1: 40}, rules=rules))
    assert isinstance(err, BadBet) and "below the minimum 50" in err.message


def test_art8_at_most_seven_players_one_position_each_no_back_betting() -> None:
    err = error_of(scenario(["As Kd 2c"], "3h 4h", seats=[8]))
    assert isinstance(err, BadBet) and "seats are 1 to 7" in err.message
    doc = scenario(["As Kd 2c", "Ah Kh 2h"], "3h 4h")
    for b in doc["bets"]:
        b["player"] = "ana"  # the same player on two positions
    err = error_of(doc)
    assert isinstance(err, BadBet) and err.at == 2 and "cannot play two" in err.message
    hands = [f"{r}s {r}h {r}d" for r in "23456789"[:7]]
    doc = scenario(hands, "Ts Th")  # seven positions taken: still no joining another's box
    doc["bets"].append({"seat": 1, "player": "back", "spot": "bet", "amount": 100})
    err = error_of(doc)
    assert isinstance(err, BadBet) and "no back-betting" in err.message


def test_art8_bets_are_posted_before_the_first_card() -> None:
    out = run(scenario(["As Kd 2c", "Ah Kh 2h"], "3h 4h", bonus={2: 100}))
    types = [e["type"] for e in out["events"]]
    closed = types.index("bets_closed")
    first_card = types.index("card")
    stakes = [e for e in out["events"][:closed] if e["type"] == "stake"]
    assert closed < first_card
    assert {(e["seat"], e["spot"]) for e in stakes} == {
        (1, "bet"),
        (1, "pot"),
        (2, "bet"),
        (2, "pot"),
        (2, "bonus"),
    }


# ---------------------------------------------------------------------------------------- Art.9
def test_art9_1_deal_order_left_to_right_with_two_community_cards_face_down() -> None:
    cards = ["2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s", "Ts", "Js", "Qs"]
    doc = scenario(["2s 5s 8s", "3s 6s 9s", "4s 7s Ts"], "5s 9s", seats=[2, 5, 7])
    doc["cards"] = cards
    out = run(doc)
    # first to each seat (2s 3s 4s), community 1 (5s), second to each (6s 7s 8s), community 2 (9s), third.
    assert seat_of(out, 2)["cards"] == ["2s", "6s", "Ts"]
    assert seat_of(out, 5)["cards"] == ["3s", "7s", "Js"]
    assert seat_of(out, 7)["cards"] == ["4s", "8s", "Qs"]
    assert out["community"] == ["5s", "9s"]
    dealt = [e for e in out["events"] if e["type"] == "card"]
    assert [e["card"] for e in dealt] == cards
    assert all(e["face"] == "down" for e in dealt)
    assert [e.get("seat", "C") for e in dealt] == [2, 5, 7, "C", 2, 5, 7, "C", 2, 5, 7]


def test_art9_1_everything_face_down_until_shown() -> None:
    rnd = make_round(["As Kd 2c", "Ah Kh 2h"], "3h 4h")
    for viewer in ("dealer", "player:p1", "player:p2"):
        view = rnd.view(viewer)
        assert view["community"] == ["??", "??"]
    assert rnd.view("player:p1")["seats"][0]["cards"] == ["As", "Kd", "2c"]
    assert rnd.view("player:p1")["seats"][1]["cards"] == ["??", "??", "??"]
    assert rnd.view("dealer")["seats"][0]["cards"] == ["??", "??", "??"]
    assert rnd.view("inspector")["community"] == ["3h", "4h"]


def test_art9_2_exchange_replaces_the_named_cards_in_seat_order() -> None:
    # seat 1 gives up 2c and Kd (in that order named), seat 2 gives up 3d; replacements in seat order.
    doc = scenario(
        ["As Kd 2c", "Ah 9h 3d"],
        "Ac 7s",
        replacements="Ad 5h Qs",
        actions=[
            {"seat": 1, "action": "exchange", "cards": ["2c", "Kd"]},
            {"seat": 2, "action": "exchange", "cards": ["3d"]},
        ],
    )
    out = run(doc)
    s1, s2 = seat_of(out, 1), seat_of(out, 2)
    assert s1["cards"] == ["As", "Ad", "5h"]  # each replacement takes the place of the card given up
    assert s1["exchanged"] == ["Kd", "2c"] and s1["dealt"] == ["As", "Kd", "2c"]
    assert s2["cards"] == ["Ah", "9h", "Qs"] and s2["exchanged"] == ["3d"]
    assert s1["final_hand"]["category"] == "three_of_a_kind"  # As Ad + the community's Ac
    conserved(out)


def test_art9_2_exchange_any_number_up_to_three_by_default_and_the_operator_cap() -> None:
    three = {"seat": 1, "action": "exchange", "cards": ["2c", "7d", "9h"]}
    out = run(scenario(["2c 7d 9h"], "As Ks", replacements="Ah Ad 3s", actions=[three]))
    assert seat_of(out, 1)["cards"] == ["Ah", "Ad", "3s"]
    err = error_of(
        scenario(["2c 7d 9h"], "As Ks", replacements="Ah Ad 3s", actions=[three], rules={"max_exchange": 2})
    )
    assert isinstance(err, IllegalAction) and err.at == 0 and "at most 2" in err.message
    # max_exchange 0: the exchange is not offered at all, so the entry is left over.
    err = error_of(
        scenario(["2c 7d 9h"], "As Ks", actions=[{**three, "cards": ["2c"]}], rules={"max_exchange": 0})
    )
    assert isinstance(err, IllegalAction) and err.at == 0


def test_art9_2_exchange_only_own_cards_once_and_before_the_increments() -> None:
    def base(actions: list[dict[str, Any]]) -> dict[str, Any]:
        return scenario(["2c 7d 9h", "3c 8d Th"], "As Ks", replacements="Ah Ad 3s", actions=actions)

    not_mine = [{"seat": 1, "action": "exchange", "cards": ["3c"]}]
    err = error_of(base(not_mine))
    assert isinstance(err, IllegalAction) and err.at == 0 and "does not hold 3c" in err.message
    twice = [
        {"seat": 1, "action": "exchange", "cards": ["2c"]},
        {"seat": 1, "action": "exchange", "cards": ["7d"]},
    ]
    err = error_of(base(twice))
    assert isinstance(err, IllegalAction) and err.at == 1
    late = [inc(1), {"seat": 2, "action": "exchange", "cards": ["3c"]}]
    err = error_of(base(late))
    assert isinstance(err, IllegalAction) and err.at == 1
    dup = [{"seat": 1, "action": "exchange", "cards": ["2c", "2c"]}]
    err = error_of(base(dup))
    assert isinstance(err, IllegalAction) and "twice" in err.message


def test_art9_2_increment_1_equals_the_bet_and_is_offered_to_every_seat() -> None:
    out = run(scenario(["2c 7d 9h", "3c 8d Th"], "As Ks", bet=700, actions=[inc(2)]))
    offers = [e for e in out["events"] if e["type"] == "offer" and e["offer"] == INCREMENT_1]
    assert [(e["seat"], e["taken"]) for e in offers] == [(1, False), (2, True)]
    assert seat_of(out, 2)["increments"] == [700] and seat_of(out, 2)["stake"] == 1400
    wrong = scenario(["2c 7d 9h"], "As Ks", bet=700, actions=[{**inc(1), "amount": 500}])
    err = error_of(wrong)
    assert isinstance(err, IllegalAction) and "Art.9.7" in err.message


def test_art9_3_first_community_card_shown_after_every_increment_1_decision() -> None:
    out = run(scenario(["2c 7d 9h", "3c 8d Th"], "As Ks", actions=[inc(1), inc(2), inc(2, 2)]))
    kinds = [
        (e["type"], e.get("offer"), e.get("index"))
        for e in out["events"]
        if e["type"] in ("offer", "community_shown")
    ]
    assert kinds.index(("community_shown", None, 0)) == 4  # after 2 exchange and 2 increment_1 offers
    assert kinds[-1] == ("community_shown", None, 1)
    rnd = make_round(["2c 7d 9h", "3c 8d Th"], "As Ks")
    decline(rnd, 2)
    rnd.apply(Action(1, INCREMENT_1))
    assert rnd.view("player:p1")["community"] == ["??", "??"]
    rnd.apply(Action(2, DECLINE))
    assert rnd.pending is not None and rnd.pending.kind == INCREMENT_2
    assert rnd.view("player:p2")["community"] == ["As", "??"]


def test_art9_4_increment_2_only_for_players_who_made_increment_1() -> None:
    err = error_of(scenario(["2c 7d 9h"], "As Ks", actions=[inc(1, 2)]))
    assert isinstance(err, IllegalAction) and err.at == 0
    rnd = make_round(["2c 7d 9h"], "As Ks")
    decline(rnd, 1)
    with pytest.raises(IllegalAction, match=r"Art\.9\.4"):
        rnd.apply(Action(1, INCREMENT_2))
    out = run(scenario(["2c 7d 9h", "3c 8d Th", "4c 9d Jh"], "As Ks", actions=[inc(1), inc(3), inc(3, 2)]))
    offers = [e["seat"] for e in out["events"] if e["type"] == "offer" and e["offer"] == INCREMENT_2]
    assert offers == [1, 3]  # seat 2 made no Nº1 and is not asked
    assert seat_of(out, 3)["increments"] == [1000, 1000] and seat_of(out, 1)["increments"] == [1000]


def test_art9_5_second_community_card_shown_after_increment_2() -> None:
    out = run(scenario(["2c 7d 9h"], "As Ks", actions=[inc(1), inc(1, 2)]))
    types = [e["type"] for e in out["events"]]
    last_offer = max(i for i, t in enumerate(types) if t == "offer")
    shown = [i for i, t in enumerate(types) if t == "community_shown"]
    assert len(shown) == 2 and shown[1] > last_offer and types[shown[1] + 1] == "hand"


# ---------------------------------------------------------------------------------- Art.10-11
@pytest.mark.parametrize(
    ("hand", "community", "outcome"),
    [
        ("Ac Kd 9h", "2s 4c", "lose"),  # ace high
        ("Tc Td 9h", "2s 4c", "lose"),  # a pair of tens is below a pair of jacks
        ("Jc Jd 9h", "2s 4c", "push"),
        ("Qc 5d 9h", "Qs 4c", "push"),
        ("Kc 5d 9h", "2s Ks", "push"),
        ("Ac Ad 9h", "2s 4c", "push"),
    ],
)
def test_art10_below_a_pair_of_jacks_loses_pair_of_j_q_k_a_pushes(
    hand: str, community: str, outcome: str
) -> None:
    out = run(scenario([hand, "2d 3d 7c"], community, actions=[inc(1), inc(1, 2)]))
    s = seat_of(out, 1)
    assert s["outcome"] == outcome
    assert s["paid"] == (3000 if outcome == "push" else 0)


@pytest.mark.parametrize(
    ("hand", "community", "category", "ratio"),
    [
        ("Ac Ad 9h", "9s 4c", "two_pair", 2),
        ("7c 7d 9h", "7s 4c", "three_of_a_kind", 3),
        ("Ac 2d 3h", "4s 5c", "straight", 5),  # the wheel is a straight
        ("Ac 8c 3c", "4c Jc", "flush", 7),
        ("7c 7d 9h", "7s 9c", "full_house", 9),
        ("7c 7d 7h", "7s 9c", "four_of_a_kind", 25),
        ("5h 6h 7h", "8h 9h", "straight_flush", 100),
        ("Th Jh Qh", "Kh Ah", "royal_flush", 250),
    ],
)
def test_art11_paytable_on_the_bet_and_on_each_increment(
    hand: str, community: str, category: str, ratio: int
) -> None:
    """Worked numbers: bet 1000 + Nº1 1000 + Nº2 1000 = 3000 at N:1 wins 3000·N; the bet alone 1000·N."""
    other = "Kd Ks Jd"  # a pair of kings: a push beside the hand under test
    full = run(scenario([hand, other], community, actions=[inc(1), inc(1, 2)]))
    s = seat_of(full, 1)
    assert s["final_hand"]["category"] == category and s["outcome"] == "win"
    assert s["ratio"] == f"{ratio}:1" and s["winnings"] == 3000 * ratio and s["paid"] == 3000 + 3000 * ratio
    bare = run(scenario([hand, other], community))
    assert seat_of(bare, 1)["winnings"] == 1000 * ratio and seat_of(bare, 1)["paid"] == 1000 + 1000 * ratio
    conserved(full)


def test_memoised_hand_strength_is_the_evaluators_order() -> None:
    """The round's memoised evaluation gives evaluate5's strength (same order, same ties)."""
    pick = random.Random(11)
    for _ in range(3000):
        cards = pick.sample(range(52), 5)
        assert hand_strength(cards) == evaluate5(cards)


def test_art11_royal_flush_paid_apart_from_straight_flush() -> None:
    assert hand_outcome(evaluate5(parse_cards(["Th", "Jh", "Qh", "Kh", "Ah"]))) == ("win", 250)
    assert hand_outcome(evaluate5(parse_cards(["9h", "Th", "Jh", "Qh", "Kh"]))) == ("win", 100)
    assert hand_outcome(evaluate5(parse_cards(["Jh", "Js", "2c", "5d", "9h"]))) == ("push", 0)
    assert hand_outcome(evaluate5(parse_cards(["Th", "Ts", "2c", "5d", "9h"]))) == ("lose", 0)


# ---------------------------------------------------------------------------------- Art.12-13
def test_art13_payout_limit_formula_worked_numbers() -> None:
    """LIMITE 10000. Seat 1: flush 7:1 on 3000 = 21000; seat 2: straight 5:1 on 1000 = 5000; seat 3 loses.
    SUMA = 26000 > LIMITE, factor = 10000/26000 = 5/13: seat 1 gets 21000·5/13 = 8076 12/13 -> 8076,
    seat 2 gets 5000·5/13 = 1923 1/13 -> 1923 (rounded down, the fractions logged)."""
    doc = scenario(
        ["Ac 8c 3c", "2d 3h Ad", "Kd 9s 7h"],
        "4c 5c",
        rules={"payout_limit": 10000},
        actions=[inc(1), inc(1, 2)],
    )
    out = run(doc)
    s1, s2, s3 = seat_of(out, 1), seat_of(out, 2), seat_of(out, 3)
    assert s1["final_hand"]["category"] == "flush" and s2["final_hand"]["category"] == "straight"
    limit = out["payout_limit"]
    assert limit["limit"] == 10000 and limit["suma"] == 26000 and limit["factor"] == "5/13"
    assert Fraction(10000, 26000) == Fraction(5, 13)
    assert s1["payout_limit"] == {"factor": "5/13", "uncapped": 21000, "paid": 8076, "fraction": "12/13"}
    assert s2["payout_limit"] == {"factor": "5/13", "uncapped": 5000, "paid": 1923, "fraction": "1/13"}
    assert s1["paid"] == 3000 + 8076 and s2["paid"] == 1000 + 1923 and "payout_limit" not in s3
    ev = next(e for e in out["events"] if e["type"] == "payout_limit")
    assert ev["seats"] == [
        {"seat": 1, "individual": 21000, "paid": 8076, "fraction": "12/13"},
        {"seat": 2, "individual": 5000, "paid": 1923, "fraction": "1/13"},
    ]
    conserved(out)


def test_art12_single_winner_is_paid_at_most_the_limit() -> None:
    out = run(scenario(["Th Jh Qh", "2d 3d 7c"], "Kh Ah", rules={"payout_limit": 50000}))
    s = seat_of(out, 1)
    assert s["winnings"] == 250000 and s["payout_limit"]["paid"] == 50000 and s["paid"] == 51000


def test_art13_no_reduction_when_suma_does_not_exceed_limite() -> None:
    out = run(scenario(["Ac Ad 9h", "2d 3d 7c"], "9s 4c", rules={"payout_limit": 2000}))
    assert out["payout_limit"] is None and seat_of(out, 1)["paid"] == 3000
    out = run(scenario(["Ac Ad 9h", "2d 3d 7c"], "9s 4c", rules={"payout_limit": 1999}))
    assert seat_of(out, 1)["payout_limit"]["paid"] == 1999


def test_art13_limit_covers_bet_and_increments_not_the_bonus() -> None:
    out = run(scenario(["Th Jh Qh", "2d 3d 7c"], "Kh Ah", rules={"payout_limit": 5000}, bonus={1: 100}))
    s = seat_of(out, 1)
    assert s["payout_limit"]["paid"] == 5000
    assert s["bonus"] == {"stake": 100, "outcome": "win", "ratio": "1000:1", "paid": 100100, "net": 100000}


# ---------------------------------------------------------------------------------- pot [A]
def test_pot_to_the_best_hand_less_commission_on_the_whole_pot() -> None:
    out = run(scenario(["2c 7d 9h", "Ac Ad Kh", "3c 8d Th"], "As Ks"))
    assert out["pot"]["winners"] == [2] and out["pot"]["total"] == 300
    assert out["pot"]["commission"] == 15 and out["pot"]["distributable"] == 285
    assert seat_of(out, 2)["pot"] == {"stake": 100, "outcome": "win", "paid": 285}
    assert out["house"]["commission"] == 15
    conserved(out)


def test_pot_tie_splits_equally_remainder_to_the_earliest_seat() -> None:
    # Seats 2 and 3 both hold the king-high straight: 285 / 2 = 142 each, the odd unit to seat 2.
    out = run(scenario(["2c 8d 4h", "Tc Jd 9h", "Ts Jc 9s"], "Qs Kd"))
    assert out["pot"]["winners"] == [2, 3]
    assert seat_of(out, 2)["pot"]["paid"] == 143 and seat_of(out, 3)["pot"]["paid"] == 142
    assert out["pot"]["remainder"] == 1 and out["pot"]["commission"] == 15
    conserved(out)


def test_pot_commission_rounding_keeps_the_fraction_for_the_house() -> None:
    """pot 3 × 33 = 99; 95% = 94.05 -> 94 paid, commission 5 (the 1/20 fraction logged)."""
    out = run(
        scenario(
            ["2c 7d 9h", "Ac Ad Kh", "3c 8d Th"], "As Ks", bet=100, rules={"pot_bet": 33, "table_min": 1}
        )
    )
    assert (
        out["pot"]["distributable"] == 94
        and out["pot"]["commission"] == 5
        and out["pot"]["fraction"] == "1/20"
    )
    assert out["house"]["commission"] == 5
    conserved(out)


def test_pot_returned_when_one_player_sits_alone() -> None:
    out = run(scenario(["Ac Ad Kh"], "As Ks"))
    assert seat_of(out, 1)["pot"] == {"stake": 100, "outcome": "returned", "paid": 100}
    assert out["house"]["commission"] == 0 and out["pot"]["returned"] is True


def test_pot_commission_is_a_setting() -> None:
    out = run(scenario(["2c 7d 9h", "Ac Ad Kh"], "As Ks", rules={"pot_commission_percent": 0}))
    assert out["pot"]["commission"] == 0 and seat_of(out, 2)["pot"]["paid"] == 200


# ---------------------------------------------------------------------------------- bonus [A]
def test_bonus_pays_by_the_operator_paytable_lower_hands_lose() -> None:
    out = run(scenario(["7c 7d 9h", "Ac Ad 9d"], "7s 9c", bonus={1: 200, 2: 300}))
    assert seat_of(out, 1)["bonus"] == {
        "stake": 200,
        "outcome": "win",
        "ratio": "11:1",
        "paid": 2400,
        "net": 2200,
    }
    assert seat_of(out, 2)["bonus"] == {
        "stake": 300,
        "outcome": "lose",
        "ratio": None,
        "paid": 0,
        "net": -300,
    }
    custom = {"bonus_paytable": {"flush": 1, "full_house": 20}}  # two pair is not a bonus hand (scenario.md)
    out = run(scenario(["7c 7d 9h", "Ac Ad 9d"], "7s 9c", bonus={1: 200, 2: 300}, rules=custom))
    assert seat_of(out, 1)["bonus"]["paid"] == 200 * 21 and seat_of(out, 2)["bonus"]["paid"] == 0
    conserved(out)


def test_bonus_paytable_with_unknown_hands_is_refused() -> None:
    err = error_of(scenario(["7c 7d 9h"], "7s 9c", rules={"bonus_paytable": {"five_aces": 9}}))
    assert err.code == "invalid_rules"


def test_bonus_paytable_pays_each_hand_a_positive_ratio() -> None:
    """A paytable entry of 0 or less would settle a 'win' that pays nothing, or takes more than the stake
    (SP Art.10: a losing bet loses its chips, no more): refused, at a table and in an analysis alike."""
    for ratio in (-5, -1, 0):
        bad = {"bonus_paytable": {"straight": ratio}}
        err = error_of(scenario(["7c 7d 9h"], "7s 9c", rules=bad))
        assert err.code == "invalid_rules" and "bonus_paytable" in err.message
        with pytest.raises(InvalidRules):
            ShowdownRules.load(bad, regulation=False)


def test_art7_burn_leaves_the_cards_a_full_table_can_need() -> None:
    """Seven players of three cards, two community cards and up to max_exchange replacements each: one
    deck can burn at most 8 (52 - 44), or 29 when nobody may exchange."""
    err = error_of(scenario(["7c 7d 9h"], "7s 9c", rules={"burn": 9}))
    assert err.code == "invalid_rules" and "at most 8" in err.message
    assert load_rules("showdown_poker", {"burn": 8}).burn == 8
    assert load_rules("showdown_poker", {"burn": 29, "max_exchange": 0}).burn == 29
    with pytest.raises(InvalidRules):
        load_rules("showdown_poker", {"burn": 30, "max_exchange": 0})


def test_a_showdown_pack_bound_is_not_said_to_be_the_regulations() -> None:
    """One deck is rules.md's [A] and 1 to 8 the operator's range: the Showdown pages name no pack size,
    so a refusal does not quote them (Black Jack's 4 to 8 is Art.2b's)."""
    err = error_of(scenario(["7c 7d 9h"], "7s 9c", rules={"decks": 9}))
    assert err.code == "invalid_rules" and "regulation" not in err.message and "1 to 8 decks" in err.message
    with pytest.raises(InvalidRules, match="the regulation's pack is 4 to 8"):
        load_rules("blackjack", {"decks": 9})


def test_house_rules_text_shows_pot_and_bonus_in_both_languages() -> None:
    rules = load_rules(
        "showdown_poker", {"pot_bet": 250, "pot_commission_percent": 4, "payout_limit": 900000}
    )
    assert isinstance(rules, ShowdownRules)
    es = house_rules_text(rules, "es")
    en = house_rules_text(rules, "en")
    for text in (es, en):
        assert "250" in text and "4%" in text and "1000" in text and "900000" in text
    assert "Pot bet" in es and "Bono" in es and "se devuelve" in es and "escalera real 1000 a 1" in es
    assert "Bonus" in en and "returned" in en and "royal flush 1000 to 1" in en
    assert "S/ 2.50" in house_rules_text(rules, "es", currency="PEN")
    plain = load_rules("showdown_poker", {})
    assert isinstance(plain, ShowdownRules)
    assert "no tiene pago máximo" in house_rules_text(plain, "es")


# ---------------------------------------------------------------------------------- views and recall
def test_views_never_hold_hidden_cards_or_the_shoe() -> None:
    hands = ["2c 7d 9h", "3c 8d Th"]
    rnd = make_round(hands, "As Ks", replacements="Qd Qh 5s 6s")
    p2_cards = set(hands[1].split())
    rnd.apply(Action(1, EXCHANGE, cards=tuple(parse_cards(["2c"]))))
    v1 = strings(rnd.view("player:p1"))
    assert {"Qd", "2c"} <= v1 and not v1 & (p2_cards | {"As", "Ks", "Qh", "5s", "6s"})
    assert "events" not in rnd.view("player:p1") and "events" not in rnd.view("dealer")
    v2 = strings(rnd.view("player:p2"))
    assert not v2 & {"Qd", "2c", "7d", "9h"}  # seat 1's cards, replacement and discard stay face down
    assert rnd.view("player:p2")["seats"][0]["exchanged"] == 1
    assert not strings(rnd.view("dealer")) & {"Qd", "2c", "3c", "As"}
    decline(rnd)
    after = rnd.view("player:p2")
    assert after["community"] == ["As", "Ks"] and after["seats"][0]["cards"] == ["Qd", "7d", "9h"]
    assert "dealt" not in after["seats"][0] and "2c" not in strings(after["seats"][0])


def test_player_view_shows_the_payout_factor_and_his_uncapped_amount() -> None:
    rnd = make_round(["Th Jh Qh", "2d 3d 7c"], "Kh Ah", rules={"payout_limit": 50000})
    decline(rnd)
    mine = rnd.view("player:p1")["seats"][0]
    assert mine["payout_limit"] == {"factor": "1/5", "uncapped": 250000, "paid": 50000, "fraction": "0"}


def test_recall_rebuilds_the_round_from_its_events() -> None:
    doc = scenario(
        ["2c 7d 9h", "3c 8d Th"],
        "As Ks",
        bonus={2: 100},
        replacements="Qd Qh",
        actions=[{"seat": 1, "action": "exchange", "cards": ["9h", "2c"]}, inc(2), inc(2, 2)],
        rules={"payout_limit": 1000},
    )
    out = run(doc)
    rebuilt, same = recall(out["events"])
    assert same and rebuilt.result()["players"] == out["players"]


def test_offers_are_the_only_decisions_and_silence_declines_them() -> None:
    out = run(scenario(["2c 7d 9h", "3c 8d Th"], "As Ks"))
    offers = [(e["offer"], e["seat"], e["taken"]) for e in out["events"] if e["type"] == "offer"]
    assert offers == [
        (EXCHANGE, 1, False),
        (EXCHANGE, 2, False),
        (INCREMENT_1, 1, False),
        (INCREMENT_1, 2, False),
    ]
    assert {EXCHANGE, INCREMENT_1, INCREMENT_2} == ShowdownRound.OFFERS


def test_unknown_action_and_bad_exchange_entry_are_illegal() -> None:
    for entry in (
        {"seat": 1, "action": "hit"},
        {"seat": 1, "action": "exchange"},
        {"seat": 1, "action": "exchange", "cards": ["Zz"]},
        {"seat": 1, "action": "increment_1", "cards": ["2c"]},
    ):
        err = error_of(scenario(["2c 7d 9h"], "As Ks", actions=[entry]))
        assert isinstance(err, IllegalAction) and err.at == 0


def test_shoe_running_out_is_bad_cards() -> None:
    doc = scenario(["2c 7d 9h"], "As Ks", actions=[{"seat": 1, "action": "exchange", "cards": ["2c"]}])
    err = error_of(doc)
    assert err.code == "bad_cards" and err.at == len(doc["cards"])


# ---------------------------------------------------------------------------------- session
def test_art7_session_shuffles_and_cuts_one_handed_before_every_round() -> None:
    session = TableSession("showdown_poker", {}, live=False, rng=SeededRandom(7))
    seen: list[list[str]] = []
    for _ in range(3):
        rnd = session.start_round([RawBet(1, "ana", "bet", 100), RawBet(1, "ana", "pot", 100)])
        while rnd.pending is not None:
            rnd.apply(rnd.decline(rnd.pending))
        seen.append(rnd.result()["seats"][0]["cards"])
        session.finish_round()
    shoe = session.source
    assert isinstance(shoe, Shoe)
    assert shoe.shuffles == 3  # the new pack's shuffle, then one before each later round
    cuts = [e for e in shoe.events if e.get("step") == "cut"]
    assert len(cuts) == 3 and all(1 <= e["at"] <= 51 for e in cuts)


# ---------------------------------------------------------------------------------- properties
@st.composite
def rounds(draw: Any) -> tuple[ShowdownRules, list[RawBet], list[int], int, int]:
    n = draw(st.integers(1, 7))
    seats = sorted(draw(st.lists(st.integers(1, 7), min_size=n, max_size=n, unique=True)))
    table_min = draw(st.integers(1, 200))
    settings_ = {
        "table_min": table_min,
        "table_max": 100000,
        "pot_commission_percent": draw(st.integers(0, 100)),
        "payout_limit": draw(st.one_of(st.none(), st.integers(1, 200000))),
        "max_exchange": draw(st.integers(0, 3)),
        "pot_bet": draw(st.integers(table_min, 999)),  # Art.8: within the table's limits
    }
    rules = load_rules("showdown_poker", settings_)
    assert isinstance(rules, ShowdownRules)
    bets: list[RawBet] = []
    total = 0
    for s in seats:
        amounts = [("bet", draw(st.integers(rules.table_min, 20000))), ("pot", rules.pot_amount)]
        if draw(st.booleans()):
            amounts.append(("bonus", draw(st.integers(rules.table_min, 5000))))
        for spot, amount in amounts:
            bets.append(RawBet(s, f"p{s}", spot, amount))
            total += amount
    shoe = draw(st.permutations(range(52)))
    return rules, bets, list(shoe), draw(st.integers(0, 2**31)), total


def _random_answer(rnd: ShowdownRound, pick: random.Random) -> Action:
    d = rnd.pending
    assert d is not None
    if pick.random() < 0.5:
        return rnd.decline(d)
    if d.kind == EXCHANGE:
        mine = next(s for s in rnd.seats if s.seat == d.seat).cards
        k = pick.randint(0, d.max_cards)
        return Action(d.seat, EXCHANGE, cards=tuple(pick.sample(mine, k)))
    return Action(d.seat, d.kind)


def _illegal(rnd: ShowdownRound) -> list[Action]:
    d = rnd.pending
    assert d is not None
    mine = next(s for s in rnd.seats if s.seat == d.seat).cards
    foreign = next(c for c in range(52) if c not in mine)
    return [
        Action(1 + d.seat % 7, d.kind),
        Action(d.seat, INCREMENT_2 if d.kind != INCREMENT_2 else EXCHANGE),
        Action(d.seat, EXCHANGE, cards=(foreign,)),
        Action(d.seat, EXCHANGE, cards=(mine[0], mine[1], mine[2], mine[0])),
        Action(d.seat, INCREMENT_1, amount=10**9),
    ]


@settings(max_examples=100, deadline=None)
@given(rounds())
def test_property_money_conserved_with_pot_commission_bonus_and_limit(case: Any) -> None:
    rules, bets, shoe, seed, total = case
    boxes = place_bets(bets, ShowdownRound.bet_spec(rules))
    rnd = start(ShowdownRound, rules, StackedSource(shoe, 1), boxes)
    pick = random.Random(seed)
    while rnd.pending is not None:
        before = (json.dumps(rnd.view("inspector")), len(rnd.events), dict(rnd.staked), dict(rnd.paid))
        for bad in _illegal(rnd):
            if not rnd.can(bad):
                with pytest.raises(IllegalAction):
                    rnd.apply(bad)
        after = (json.dumps(rnd.view("inspector")), len(rnd.events), dict(rnd.staked), dict(rnd.paid))
        assert before == after  # a refused action changes nothing
        rnd.apply(_random_answer(rnd, pick))
    out = rnd.result()
    conserved(out)
    staked = total + sum(sum(s.increments) for s in rnd.seats)
    assert staked == sum(v["staked"] for v in out["players"].values())
    # Art.13: the capped winnings never exceed the limit, nor any player his uncapped amount.
    won = sum(s.won for s in rnd.seats)
    if rules.payout_limit is not None:
        assert won <= rules.payout_limit
    assert all(0 <= s.won <= s.winnings for s in rnd.seats)
    # The pot: all of it goes to the best hands, less the commission, or back to a lone player.
    pot_total = sum(s.pot for s in rnd.seats)
    pot_paid = sum(s.pot_paid for s in rnd.seats)
    assert pot_paid + out["house"]["commission"] == pot_total
    if len(rnd.seats) > 1:
        exact = Fraction(pot_total * (100 - rules.pot_commission_percent), 100)
        assert exact - 1 < pot_paid <= exact
        best = max(s.strength for s in rnd.seats)
        assert all(s.strength == best for s in rnd.seats if s.pot_paid)
    # Every hand that ends the round was dealt by Art.9.1 from the shoe in order, cards never repeat.
    used = [c for s in rnd.seats for c in s.cards] + rnd.community
    assert len(set(used)) == len(used)
    assert rnd.community == [shoe[len(rnd.seats)], shoe[2 * len(rnd.seats) + 1]]
    _, same = recall(out["events"])
    assert same


@settings(max_examples=50, deadline=None)
@given(rounds())
def test_property_player_views_never_leak_hidden_cards(case: Any) -> None:
    rules, bets, shoe, seed, _ = case
    boxes = place_bets(bets, ShowdownRound.bet_spec(rules))
    rnd = start(ShowdownRound, rules, StackedSource(shoe, 1), boxes)
    pick = random.Random(seed)
    while rnd.pending is not None:
        for s in rnd.seats:
            view = rnd.view(f"player:{s.player}")
            assert "events" not in view
            for other in rnd.seats:
                shown = next(v for v in view["seats"] if v["seat"] == other.seat)["cards"]
                if other is s:
                    assert shown == [NAMES[c] for c in other.cards]
                else:
                    assert shown == ["??"] * 3
            for i, c in enumerate(view["community"]):
                assert c == (NAMES[rnd.community[i]] if i < rnd.shown else "??")
        rnd.apply(_random_answer(rnd, pick))


# ---------------------------------------------------------------------------------- the terminal table
# The public example on two seats: seat 1 Qs 2h Qd, seat 2 9c Qh 3c exchanging 9c 3c for Qc 4s;
# community 8d 5c. Both end with a pair of queens (push); the pot goes to seat 2 on the kicker.
EXAMPLE_CARDS = "Qs 9c 8d 2h Qh 5c Qd 3c Qc 4s"


def play_table(cards: str, answers: list[str], **kwargs: Any) -> tuple[str, Script]:
    """Play Showdown rounds on a dealer-entered one-deck stacked deck (two seats by default)."""
    return play_game("showdown_poker", cards, answers, decks=1, **{"seats": 2, **kwargs})


EXAMPLE_ANSWERS = ["10", "", "10", "", "", "9c 3c", "s", "s", "s", "n"]


def test_play_art9_offers_in_the_regulations_order_in_spanish() -> None:
    text, script = play_table(EXAMPLE_CARDS, EXAMPLE_ANSWERS)
    asked = [p for p in script.prompts if "¿" in p]
    assert ["Asiento 1" in p for p in asked] == [True, False, True, False, True, False]
    assert ["Cambia cartas" in p for p in asked[:2]] == [True, True]
    assert all("Incremento Nº1" in p for p in asked[2:4]) and all("Incremento Nº2" in p for p in asked[4:])
    assert "Asiento 2 (P2) cambia 2 carta(s)" in text and "Asiento 2 (P2): sus cartas ahora Q♣ Q♥ 4♠" in text
    assert "El dealer muestra la primera carta comunitaria: 8♦" in text
    assert "Asiento 1 (P1): 9♣" not in text
    assert "Asiento 1 (P1): Q♠ 2♥ Q♦ → par de reinas: empate" in text
    assert "Asiento 2 (P2): Q♣ Q♥ 4♠ → par de reinas: empate" in text
    assert "la casa cobra S/ 0.10 de comisión y se pagan S/ 1.90" in text
    assert "Asiento 1 (P1): -S/ 1.00 · Asiento 2 (P2): +S/ 0.90" in text


def test_play_never_shows_a_card_before_its_owner_or_the_dealer_turns_it() -> None:
    text, _ = play_table(EXAMPLE_CARDS, EXAMPLE_ANSWERS)
    first, second = "primera carta comunitaria: 8♦", "segunda carta comunitaria: 5♣"
    assert "8♦" not in text[: text.index(first)] and "5♣" not in text[: text.index(second)]
    # Before the showdown each seat's cards appear only in that seat's own lines.
    early = text[: text.index("Se muestran las manos")]
    for line in re.split(r"(?=Asiento \d \(P\d\))", early):
        if "Asiento 1 (P1)" in line:
            assert not {"9♣", "Q♥", "3♣", "Q♣", "4♠"} & set(line.split())
        if "Asiento 2 (P2)" in line:
            assert not {"Q♠", "2♥", "Q♦"} & set(line.split())


def test_play_payout_limit_factor_bonus_and_house_rules_in_english() -> None:
    # Seat 1 Th Jh Qh + Kh Ah = royal flush: 250 to 1 on S/ 10 is S/ 2,500, over the S/ 500 limit.
    session = TableSession(
        "showdown_poker",
        {"payout_limit": 50000},
        live=False,
        source=StackedSource(parse_cards(["Th", "2d", "Kh", "Jh", "3d", "Ah", "Qh", "7c"]), 1),
    )
    text, _ = play_table("", ["10", "1", "10", "", "", "", "", ""], lang="en", session=session)
    assert "House rules · Showdown Poker" in text and "Payout limit per round: S/ 500.00" in text
    assert "royal flush 1000 to 1" in text and "house keeps 5% of the whole pot" in text
    assert "Raise Nº1 (incremento Nº1)?" in text
    assert "Table payout limit S/ 500.00: the winnings add up to S/ 2,500.00, so each is paid × 1/5" in text
    assert "royal flush: pays 250 to 1 on the bet and on each raise; table payout limit: factor 1/5" in text
    assert "S/ 2,500.00 without the limit, S/ 500.00 paid" in text
    assert "royal flush: the bonus pays 1000 to 1" in text
    assert "Seat 1 (P1): +S/ 1,500.90" in text  # 500 + 1000 bonus + 0.90 of the pot


def test_play_refused_answers_are_asked_again() -> None:
    answers = ["10", "5000", "2", "10", "", "Kc", "zz", "1 3", "", "", "", ""]
    text, script = play_table("Qs 9c 8d 2h Qh 5c Qd 3c Kc 4s", answers)
    assert "supera el máximo" in text  # the bonus of S/ 5,000 is refused, then S/ 2 accepted
    assert "Decisión no permitida: el asiento 1 no tiene Kc" in text
    assert "No se entiende «zz»" in text
    assert "Asiento 1 (P1): sus cartas ahora K♣ 2♥ 4♠" in text  # positions 1 and 3: Qs and Qd given up
    assert sum("Cambia cartas" in p for p in script.prompts) == 4


def test_play_session_shuffles_before_every_round_on_the_virtual_shoe() -> None:
    session = TableSession("showdown_poker", {}, live=False, rng=SeededRandom(3))
    text, _ = play_table("", ["", "", "", "", "", "", "", ""] * 2, seats=1, rounds=2, session=session)
    assert text.count("Se baraja el paquete") == 2 and "Fin de la sesión: 2 partida(s)" in text


def test_tapete_play_showdown_poker_from_the_command_line() -> None:
    runner = CliRunner()
    done = runner.invoke(
        app, ["play", "showdown_poker", "--rounds", "1"], input="\n" * 10, env={"TAPETE_LANG": ""}
    )
    assert done.exit_code == 0, done.output
    assert "Mesa de Showdown Póker" in done.output and "Pagos de la partida 1" in done.output
    english = runner.invoke(app, ["play", "showdown_poker", "--lang", "en"], input="q\n")
    assert english.exit_code == 0, english.output
    assert "Showdown Póker table" in english.output and "House rules · Showdown Poker" in english.output


def test_art8_pot_bet_setting_within_the_table_limits() -> None:
    for settings_ in ({"pot_bet": 50}, {"pot_bet": 200000}):
        with pytest.raises(InvalidRules):
            load_rules("showdown_poker", settings_)
    assert load_rules("showdown_poker", {"pot_bet": 100}).violations() == []


def test_one_deck_is_an_operator_setting() -> None:
    assert load_rules("showdown_poker", {}).decks == 1
    assert load_rules("showdown_poker", {"decks": 2}).decks == 2
