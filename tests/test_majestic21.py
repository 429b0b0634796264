"""Majestic 21 (rules.md §4, reglamento of 21-10-2005): side bets, the two insurances, the layout phrases,
the scenario files of tests/scenarios/majestic_21, and property tests on money and hidden cards.

Rules Majestic 21 shares with Black Jack are tested once, in tests/test_blackjack.py, against both games.
"""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tapete.cards import BJ_VALUE, NAMES, RANKS, Card, pack, parse_card, parse_cards
from tapete.errors import BadBet, IllegalAction, InvalidRules, TapeteError
from tapete.games import round_class
from tapete.games.blackjack import INSURANCE, PLAY, SURRENDER, Action, BlackjackRound
from tapete.games.majestic21 import SIDE_BETS, Majestic21Round, side_bet_ratio, side_total
from tapete.i18n import layout_lines, layout_phrases
from tapete.log import recall
from tapete.math import majestic21 as m21_math
from tapete.money import Ratio
from tapete.rules import Majestic21Rules, load_rules
from tapete.scenario import run
from tapete.shoe import SeededRandom, StackedSource, fisher_yates
from tapete.table import RawBet, place_bets
from tests.engine_helpers import start

RULES: dict[str, Any] = {"decks": 6, "table_min": 100, "table_max": 100000}


# ---------------------------------------------------------------------------------------------- helpers
def scenario(
    cards: str, bets: list[tuple[int, str, str, int]], actions: list[dict[str, Any]], **rules: Any
) -> Any:
    """Play a Majestic 21 scenario: `cards` space-separated, bets as (seat, player, spot, amount)."""
    return run(
        {
            "game": "majestic_21",
            "rules": {**RULES, **rules},
            "cards": cards.split(),
            "bets": [{"seat": s, "player": p, "spot": sp, "amount": a} for s, p, sp, a in bets],
            "actions": actions,
        }
    )


def deal(cards: str, bets: list[tuple[int, str, str, int]], **rules: Any) -> Majestic21Round:
    """A Majestic 21 round dealt on a stacked shoe, stopped at its first decision."""
    r = Majestic21Rules.load({**RULES, **rules})
    boxes = place_bets([RawBet(*b) for b in bets], Majestic21Round.bet_spec(r))
    return start(Majestic21Round, r, StackedSource(parse_cards(cards.split()), r.decks), boxes)


def settles(out: dict[str, Any], spot: str) -> list[dict[str, Any]]:
    """The settle events of `spot` in a round's events."""
    return [e for e in out["events"] if e["type"] == "settle" and e["spot"] == spot]


def nets(out: dict[str, Any]) -> dict[str, int]:
    """Each player's net."""
    return {p: v["net"] for p, v in out["players"].items()}


# ------------------------------------------------------------------------------- Art.1a: the side bets
def test_art1a_under_13_below_13_pays_1_to_1() -> None:
    # 9 + 3 = 12 < 13: Under 13 wins 1:1. Dealer 9-8 = 17; the box stands on 12 and loses its main bet.
    out = scenario(
        "9s 9h 3d 8d",
        [(1, "ana", "main", 1000), (1, "ana", "under_13", 400)],
        [{"seat": 1, "action": "stand"}],
    )
    assert out["seats"][0]["side_bets"]["under_13"] == {"stake": 400, "paid": 800, "net": 400}
    assert nets(out) == {"ana": 400 - 1000}


def test_art1a_under_13_two_aces_pay_3_to_2() -> None:
    # A-A counts 2 for the side bet (Aces as 1): 3:2 on 300 is 450; on an odd stake the half unit is kept.
    out = scenario(
        "As 9h Ad 8d 9s",
        [(1, "ana", "main", 1000), (1, "ana", "under_13", 300)],
        [{"seat": 1, "action": "hit"}],
    )
    (ev,) = settles(out, "under_13")
    assert (ev["outcome"], ev["ratio"], ev["paid"]) == ("win", "3:2", 750)
    odd = scenario(
        "As 9h Ad 8d 9s",
        [(1, "ana", "main", 1000), (1, "ana", "under_13", 101)],
        [{"seat": 1, "action": "hit"}],
    )
    (ev,) = settles(odd, "under_13")
    assert (ev["paid"], ev["fraction"]) == (101 + 151, "1/2")


@pytest.mark.parametrize("cards", ["7s 9h 6d 8d", "Ks 9h 3d 8d", "Ks 9h Qd 8d"], ids=["13", "13-face", "20"])
def test_art1a_under_13_loses_on_13_or_more(cards: str) -> None:
    out = scenario(
        cards, [(1, "ana", "main", 1000), (1, "ana", "under_13", 400)], [{"seat": 1, "action": "stand"}]
    )
    assert out["seats"][0]["side_bets"]["under_13"] == {"stake": 400, "paid": 0, "net": -400}


def test_art1a_over_13_above_13_pays_1_to_1() -> None:
    out = scenario(
        "Ts 9h 4d 8d",
        [(1, "ana", "main", 1000), (1, "ana", "over_13", 500)],
        [{"seat": 1, "action": "stand"}],
    )
    assert out["seats"][0]["side_bets"]["over_13"] == {"stake": 500, "paid": 1000, "net": 500}


@pytest.mark.parametrize("cards", ["7s 9h 6d 8d", "As 9h 2d 8d", "2s 9h 3d 8d"], ids=["13", "A-2=3", "5"])
def test_art1a_over_13_loses_on_13_or_less(cards: str) -> None:
    out = scenario(
        cards, [(1, "ana", "main", 1000), (1, "ana", "over_13", 500)], [{"seat": 1, "action": "stand"}]
    )
    assert out["seats"][0]["side_bets"]["over_13"]["paid"] == 0


def test_art1a_exactly_13_pays_10_to_1() -> None:
    out = scenario(
        "8c 9h 5d 8d",
        [(1, "ana", "main", 1000), (1, "ana", "exactly_13", 100)],
        [{"seat": 1, "action": "stand"}],
    )
    (ev,) = settles(out, "exactly_13")
    assert (ev["outcome"], ev["ratio"], ev["paid"]) == ("win", "10:1", 1100)
    miss = scenario(
        "8c 9h 6d 8d",
        [(1, "ana", "main", 1000), (1, "ana", "exactly_13", 100)],
        [{"seat": 1, "action": "stand"}],
    )
    assert settles(miss, "exactly_13")[0]["paid"] == 0


def test_art1a_aces_count_as_one_for_side_bets() -> None:
    # A-Q is Black Jack for the main bet but 11 for the side bets: Under 13 wins, Over 13 and 13 lose.
    out = scenario(
        "As 9h Qd 8d",
        [
            (1, "ana", "main", 1000),
            (1, "ana", "under_13", 100),
            (1, "ana", "over_13", 100),
            (1, "ana", "exactly_13", 100),
        ],
        [],
    )
    side = out["seats"][0]["side_bets"]
    assert {k: v["paid"] for k, v in side.items()} == {"under_13": 200, "over_13": 0, "exactly_13": 0}
    assert out["seats"][0]["hands"][0]["blackjack"] is True
    # A-2 is 3 (soft 13 at Black Jack): Under 13 wins, Exactly 13 does not.
    assert side_total(parse_cards(["As", "2d"])) == 3
    assert side_bet_ratio("exactly_13", parse_cards(["As", "2d"])) is None


def test_art1a_side_bet_table_over_every_pair_of_ranks() -> None:
    # The whole paytable written out independently of the engine, for all 169 ordered pairs of ranks.
    for a in range(13):
        for b in range(13):
            cards = [a * 4, b * 4 + 1]
            t = min(a + 1, 10) + min(b + 1, 10)
            under = Ratio(3, 2) if a == b == 0 else Ratio(1, 1) if t < 13 else None
            assert side_bet_ratio("under_13", cards) == under, (RANKS[a], RANKS[b])
            assert side_bet_ratio("over_13", cards) == (Ratio(1, 1) if t > 13 else None)
            assert side_bet_ratio("exactly_13", cards) == (Ratio(10, 1) if t == 13 else None)
    with pytest.raises(ValueError):
        side_bet_ratio("main", [0, 1])


def test_art1a_engine_side_bet_edges_match_the_exact_math() -> None:
    # Weighting the engine's settlement by the pack's ordered pairs gives the math module's exact edges.
    decks = 6
    per_rank = 4 * decks
    for spot, math_fn in (
        ("under_13", m21_math.under_13),
        ("over_13", m21_math.over_13),
        ("exactly_13", m21_math.exactly_13),
    ):
        total = Fraction(0)
        weight = 0
        for a in range(13):
            for b in range(13):
                w = per_rank * (per_rank - (a == b))
                ratio = side_bet_ratio(spot, [a * 4, b * 4])
                total += w * (ratio.fraction if ratio else Fraction(-1))
                weight += w
        assert -total / weight == math_fn(decks)["house_edge"], spot


def test_art1a_side_bets_settled_once_the_deal_is_complete() -> None:
    # Settled after the second round of cards (the hole card is the last card of the deal), before any
    # offer or decision, and never again.
    out = scenario(
        "Ts 7c 9h 5h 6d 8d",
        [
            (1, "ana", "main", 1000),
            (1, "ana", "over_13", 500),
            (2, "luis", "main", 1000),
            (2, "luis", "exactly_13", 100),
        ],
        [{"seat": 1, "action": "stand"}, {"seat": 2, "action": "stand"}],
    )
    types = [(e["type"], e.get("spot")) for e in out["events"]]
    hole = next(i for i, e in enumerate(out["events"]) if e.get("face") == "down")
    side = [i for i, (t, s) in enumerate(types) if t == "settle" and s in SIDE_BETS]
    first_offer = next(i for i, (t, _) in enumerate(types) if t in ("offer", "decision"))
    assert side == [hole + 1, hole + 2]
    assert first_offer == hole + 3
    assert [out["events"][i]["seat"] for i in side] == [1, 2]


def test_art1a_side_bets_untouched_by_split_and_double() -> None:
    bets = [(1, "ana", "main", 1000), (1, "ana", "over_13", 200), (1, "ana", "exactly_13", 100)]
    acts = [
        {"seat": 1, "action": "split"},
        {"seat": 1, "action": "double", "hand": 0},
        {"seat": 1, "action": "stand", "hand": 1},
    ]
    out = scenario("8s 6h 8d Tc 3c 9h Ts 7s", bets, acts)
    assert len(out["seats"][0]["hands"]) == 2
    side = out["seats"][0]["side_bets"]
    assert side == {
        "over_13": {"stake": 200, "paid": 400, "net": 200},
        "exactly_13": {"stake": 100, "paid": 0, "net": -100},
    }
    assert len(settles(out, "over_13")) == 1  # settled on 8-8 = 16, not on the split hands
    assert nets(out) == {"ana": 3000 + 200 - 100}


def test_art1a_side_bets_untouched_by_surrender_and_dealer_blackjack() -> None:
    # Seat 1 surrenders 16 against a ten; the dealer then turns an Ace: the side bets stand as settled.
    out = scenario(
        "Ts 9c Qh 6d 4s Ah",
        [
            (1, "ana", "main", 1000),
            (1, "ana", "over_13", 200),
            (2, "luis", "main", 1000),
            (2, "luis", "exactly_13", 100),
        ],
        [{"seat": 1, "action": "surrender"}, {"seat": 2, "action": "stand"}],
    )
    assert out["seats"][0]["side_bets"]["over_13"]["paid"] == 400
    assert out["seats"][1]["side_bets"]["exactly_13"]["paid"] == 1100
    assert nets(out) == {"ana": -500 + 200, "luis": -1000 + 1000}


def test_art1a_side_bet_needs_main_bet_on_the_same_box() -> None:
    with pytest.raises(BadBet) as err:
        scenario("Ts 9h 5h 8d", [(2, "luis", "main", 1000), (1, "luis", "under_13", 100)], [])
    assert err.value.at == 1
    # A main bet on another box does not count, nor does a back-bettor's main bet (seats are all taken).
    seven = [(i, f"p{i}", "main", 100) for i in range(2, 8)]
    with pytest.raises(BadBet):
        scenario("Ts 9h 5h 8d", [(1, "ana", "under_13", 100), (1, "zoe", "main", 100), *seven], [])


def test_art1n_back_bettor_joins_the_main_bet_only() -> None:
    seven = [(i, f"p{i}", "main", 100) for i in range(1, 8)]
    cards = "Ts Td Tc Th Js Jd Jc 9h 9s 7s 7d 7c 7h 7s 7d 8c"
    for spot in SIDE_BETS:
        with pytest.raises(BadBet) as err:
            scenario(cards, [*seven, (1, "zoe", "main", 200), (1, "zoe", spot, 100)], [])
        assert err.value.at == 8 and "back-bettor" in err.value.message
    # The holder's side bet is his alone; the back-bettor shares the main hand pro rata.
    out = scenario(
        cards,
        [*seven, (1, "zoe", "main", 200), (1, "p1", "over_13", 100)],
        [{"seat": i, "action": "stand"} for i in range(1, 8)],
    )
    assert [e["player"] for e in settles(out, "over_13")] == ["p1"]
    assert nets(out)["p1"] == 200 and nets(out)["zoe"] == 200


def test_art1a_side_bets_have_their_own_limits_default_the_tables() -> None:
    spec = Majestic21Round.bet_spec(Majestic21Rules.load({"side_bet_min": 50, "side_bet_max": 500}))
    assert spec.limits("under_13") == (50, 500) and spec.limits("main") == (100, 100000)
    default = Majestic21Round.bet_spec(Majestic21Rules.load({"table_min": 200, "table_max": 9000}))
    assert all(default.limits(s) == (200, 9000) for s in SIDE_BETS)
    with pytest.raises(BadBet):
        scenario("Ts 9h 5h 8d", [(1, "ana", "main", 1000), (1, "ana", "over_13", 40)], [], side_bet_min=50)
    with pytest.raises(BadBet):
        scenario("Ts 9h 5h 8d", [(1, "ana", "main", 1000), (1, "ana", "over_13", 501)], [], side_bet_max=500)
    # A main bet of 60 is still below the table minimum even though side bets may start at 50.
    with pytest.raises(BadBet):
        scenario("Ts 9h 5h 8d", [(1, "ana", "main", 60), (1, "ana", "over_13", 60)], [], side_bet_min=50)
    with pytest.raises(InvalidRules):
        load_rules("majestic_21", {"side_bet_min": 600, "side_bet_max": 500})


# ------------------------------------------------------------------------------- Art.2a.2: insurance
def test_art2a2_insurance_ace_up_pays_2_to_1() -> None:
    out = scenario(
        "9s Ah 9d Kc",
        [(1, "ana", "main", 1000)],
        [{"seat": 1, "action": "insurance"}, {"seat": 1, "action": "stand"}],
    )
    (ev,) = settles(out, "insurance")
    assert (ev["stake"], ev["ratio"], ev["paid"]) == (500, "2:1", 1500)
    assert nets(out) == {"ana": 0}


def test_art2a2_insurance_ace_up_loses_on_an_ace_in_the_hole() -> None:
    # The 10:1 insurance is for a ten up only: with an Ace up, an Ace in the hole loses the insurance.
    out = scenario(
        "9s Ah 9d Ac 7c",
        [(1, "ana", "main", 1000)],
        [{"seat": 1, "action": "insurance"}, {"seat": 1, "action": "stand"}],
    )
    assert settles(out, "insurance")[0]["paid"] == 0


@pytest.mark.parametrize("up", ["Th", "Jh", "Qh", "Kh"])
def test_art2a2_insurance_ten_up_pays_10_to_1(up: str) -> None:
    out = scenario(
        f"9s {up} 9d Ac",
        [(1, "ana", "main", 1000)],
        [{"seat": 1, "action": "insurance", "amount": 300}, {"seat": 1, "action": "stand"}],
    )
    (ev,) = settles(out, "insurance")
    assert (ev["stake"], ev["outcome"], ev["ratio"], ev["paid"]) == (300, "win", "10:1", 3300)
    assert out["seats"][0]["insurance"] == {"stake": 300, "paid": 3300, "net": 3000}
    assert nets(out) == {"ana": 3000 - 1000}  # dealer Black Jack: the main bet loses


def test_art2a2_insurance_ten_up_loses_without_an_ace() -> None:
    out = scenario(
        "9s Kh 9d Tc",
        [(1, "ana", "main", 1000)],
        [{"seat": 1, "action": "insurance"}, {"seat": 1, "action": "stand"}],
    )
    (ev,) = settles(out, "insurance")
    assert (ev["stake"], ev["outcome"], ev["paid"]) == (500, "lose", 0)
    assert nets(out) == {"ana": -500 - 1000}  # insurance lost, and 18 loses to 20


def test_art2a2_insurance_ten_up_at_most_half_the_bet() -> None:
    rnd = deal("9s Kh 9d Tc", [(1, "ana", "main", 1001)])
    rnd.apply(Action(1, "decline"))  # surrender
    assert rnd.pending is not None and rnd.pending.kind == INSURANCE and rnd.pending.max_amount == 500
    with pytest.raises(IllegalAction, match="half"):
        rnd.apply(Action(1, INSURANCE, amount=501))
    rnd.apply(Action(1, INSURANCE))
    assert rnd.boxes[0].insurance == 500


def test_art2a2_ten_up_surrender_is_offered_first_then_insurance() -> None:
    rnd = deal(
        "Ts 9c 5d Qh 6d 8s 4c 7c",
        [(1, "ana", "main", 1000), (2, "luis", "main", 1000), (3, "eva", "main", 1000)],
    )
    asked = []
    while rnd.pending is not None and rnd.pending.kind != PLAY:
        asked.append((rnd.pending.kind, rnd.pending.seat))
        rnd.apply(Action(rnd.pending.seat, SURRENDER if rnd.pending.seat == 2 else "decline"))
    # Every box is asked about surrender in seat order, then the boxes still in play about insurance.
    assert asked == [(SURRENDER, 1), (SURRENDER, 2), (SURRENDER, 3), (INSURANCE, 1), (INSURANCE, 3)]
    offers = [e for e in rnd.events if e["type"] == "offer"]
    assert [o["offer"] for o in offers] == ["surrender"] * 3 + ["insurance"] * 2


def test_art2a2_insurance_taken_before_any_card_is_drawn() -> None:
    rnd = deal("5s Kh 6d 7c 9c", [(1, "ana", "main", 1000)])
    rnd.apply(Action(1, "decline"))
    assert rnd.pending is not None and rnd.pending.kind == INSURANCE
    assert sum(1 for e in rnd.events if e["type"] == "card") == 4  # nothing drawn yet
    rnd.apply(Action(1, INSURANCE, amount=100))
    rnd.apply(Action(1, "hit"))
    assert rnd.pending is not None and rnd.pending.kind == PLAY  # no second insurance after a draw
    ins = [e for e in rnd.events if e.get("spot") == "insurance" and e["type"] == "settle"]
    assert ins == []  # settled only when the hole card is turned
    rnd.apply(Action(1, "stand"))
    types = [e["type"] for e in rnd.events]
    assert types.index("hole_card") < next(
        i for i, e in enumerate(rnd.events) if e.get("spot") == "insurance" and e["type"] == "settle"
    )


def test_art2a2_blackjack_box_offered_nothing_with_a_ten_up() -> None:
    rnd = deal("As 5h Kd Kh 7c 6s 9d 2c", [(1, "ana", "main", 1000), (2, "luis", "main", 1000)])
    asked = []
    while rnd.pending is not None and rnd.pending.kind != PLAY:
        asked.append((rnd.pending.kind, rnd.pending.seat))
        rnd.apply(Action(rnd.pending.seat, "decline"))
    assert asked == [(SURRENDER, 2), (INSURANCE, 2)]
    rnd.apply(Action(2, "hit"))
    out = rnd.result()
    assert (
        out["seats"][0]["hands"][0]["outcome"] == "win" and nets(out)["ana"] == 1500
    )  # 3:2 after the hole card


def test_art2a2_blackjack_box_offered_even_money_only_with_an_ace_up() -> None:
    rnd = deal("As 9s Ah Kd 9d 5c", [(1, "ana", "main", 1000), (2, "luis", "main", 1000)])
    asked = []
    while rnd.pending is not None and rnd.pending.kind != PLAY:
        asked.append((rnd.pending.kind, rnd.pending.seat, rnd.pending.legal))
        rnd.apply(Action(rnd.pending.seat, "decline"))
    assert asked == [("even_money", 1, ("even_money", "decline")), (INSURANCE, 2, (INSURANCE, "decline"))]


@pytest.mark.parametrize("up", ["2h", "5h", "9h"])
def test_art2a2_no_insurance_with_2_to_9_up(up: str) -> None:
    rnd = deal(f"9s {up} 9d Ac", [(1, "ana", "main", 1000)])
    assert rnd.pending is not None and rnd.pending.kind == SURRENDER
    rnd.apply(Action(1, "decline"))
    assert rnd.pending is not None and rnd.pending.kind == PLAY
    assert rnd.insurance_kind() is None


def test_art2a2_layout_phrases() -> None:
    es = layout_lines("majestic_21", "es")
    assert es == (
        "Majestic 21 paga tres por dos",
        "El dealer debe pedir hasta con 16 y no debe pedir desde 17",
        "Seguro con As paga dos por uno, seguro con 10,J,Q,K paga 10 a 1",
    )
    assert layout_phrases("majestic_21", "es") == " · ".join(es)
    assert "10 to 1" in layout_phrases("majestic_21", "en")
    assert len(layout_lines("majestic_21", "en")) == 3
    assert layout_phrases("majestic_21", "es") != layout_phrases("blackjack", "es")


# ---------------------------------------------------------------------------- engine, files and reuse
def test_majestic_21_is_the_black_jack_round_through_its_hooks() -> None:
    assert round_class("majestic_21") is Majestic21Round
    assert issubclass(Majestic21Round, BlackjackRound)
    own = set(vars(Majestic21Round))
    # Reused, not copied: the round's machinery lives only in Black Jack.
    assert not own & {"apply", "verify", "_advance", "_open", "_dealer_turn", "result", "view", "_play"}


def test_recall_rebuilds_a_round_with_side_bets_and_ten_insurance() -> None:
    out = scenario(
        "6s Kh 5d Ac 9c",
        [(1, "ana", "main", 1000), (1, "ana", "under_13", 200)],
        [{"seat": 1, "action": "insurance", "amount": 300}, {"seat": 1, "action": "double"}],
    )
    rnd, same = recall(out["events"])
    assert same and rnd.result()["players"] == out["players"]
    assert nets(out) == {"ana": 200 + 3000 - 1000}


# ------------------------------------------------------------------------------------ property tests
UP_RANKS = [None, "A", "T", "J", "Q", "K", "5"]


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[RawBet], list[Card]]:
    """Random bets (main, side bets, back-bets when all seven boxes are taken) and a shuffled six-deck
    shoe, sometimes with the up-card and the hole card forced so both insurances are reached often."""
    n = draw(st.integers(1, 7))
    seats = sorted(draw(st.sets(st.integers(1, 7), min_size=n, max_size=n)))
    names = ["ana", "luis", "eva", "juan"]
    bets: list[RawBet] = []
    for seat in seats:
        holder = draw(st.sampled_from(names))
        bets.append(RawBet(seat, holder, "main", draw(st.integers(100, 5001))))
        for spot in draw(st.sets(st.sampled_from(SIDE_BETS))):
            bets.append(RawBet(seat, holder, spot, draw(st.integers(100, 3001))))
    if n == 7:
        taken = {(b.seat, b.player) for b in bets}
        for seat in draw(st.sets(st.sampled_from(seats), max_size=3)):
            if (seat, "zoe") not in taken:
                bets.append(RawBet(seat, "zoe", "main", draw(st.integers(100, 2001))))
    cards = pack(6)
    fisher_yates(cards, SeededRandom(draw(st.integers(0, 2**32))))
    for pos, rank in (
        (n, draw(st.sampled_from(UP_RANKS))),
        (2 * n + 1, draw(st.sampled_from([None, "A", "T"]))),
    ):
        if rank is not None:
            j = next(i for i in range(pos, len(cards)) if NAMES[cards[i]][0] == rank)
            cards[pos], cards[j] = cards[j], cards[pos]
    return bets, cards


def _oracle_side_paid(spot: str, stake: int, cards: list[Card]) -> int:
    a, b = BJ_VALUE[cards[0]], BJ_VALUE[cards[1]]
    t = a + b
    if spot == "under_13":
        return 0 if t >= 13 else stake + (stake * 3 // 2 if a == b == 1 else stake)
    if spot == "over_13":
        return 2 * stake if t > 13 else 0
    return 11 * stake if t == 13 else 0


def _check_player_views(rnd: Majestic21Round) -> None:
    """No player's view holds the hole card before it is turned, nor the shoe, nor the log."""
    if rnd.hole_turned or len(rnd.dealer) < 2:
        return
    hole = NAMES[rnd.dealer[1]]
    visible = Counter(NAMES[c] for box in rnd.boxes for h in box.hands for c in h.cards)
    visible[NAMES[rnd.dealer[0]]] += 1
    for player in {box.holder for box in rnd.boxes} | {"zoe", "nobody"}:
        v = rnd.view(f"player:{player}")
        assert v["dealer"] == [NAMES[rnd.dealer[0]], "??"]
        assert v["dealer_total"] == (11 if BJ_VALUE[rnd.dealer[0]] == 1 else BJ_VALUE[rnd.dealer[0]])
        assert "events" not in v and "shoe" not in v
        assert json.dumps(v).count(f'"{hole}"') == visible[hole]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(), data=st.data())
def test_property_money_conserved_across_main_side_bets_and_both_insurances(
    table: tuple[list[RawBet], list[Card]], data: st.DataObject
) -> None:
    bets, cards = table
    rules = Majestic21Rules.load({})
    boxes = place_bets(bets, Majestic21Round.bet_spec(rules))
    rnd = start(Majestic21Round, rules, StackedSource(cards, 6), boxes)
    _check_player_views(rnd)
    while rnd.pending is not None:
        d = rnd.pending
        name = data.draw(st.sampled_from(d.legal))
        amount = None
        if name in ("double", INSURANCE) and data.draw(st.booleans()):
            amount = data.draw(st.integers(1, d.max_amount or 1))
        hand = d.hand if d.kind == PLAY else None
        events = rnd.apply(Action(d.seat, name, hand, amount))
        assert events
        _check_player_views(rnd)
    out = rnd.result()
    ev = out["events"]
    staked = sum(p["staked"] for p in out["players"].values())
    paid = sum(p["paid"] for p in out["players"].values())
    assert staked == paid + out["house"]["net"]
    # Every amount staked is settled exactly once, per player, and the totals match the events.
    for player, p in out["players"].items():
        assert p["staked"] == sum(e["amount"] for e in ev if e["type"] == "stake" and e["player"] == player)
        assert p["staked"] == sum(e["stake"] for e in ev if e["type"] == "settle" and e["player"] == player)
        assert p["paid"] == sum(e["paid"] for e in ev if e["type"] == "settle" and e["player"] == player)
    up, hole = rnd.dealer[0], rnd.dealer[1]
    for box, seat in zip(rnd.boxes, out["seats"], strict=True):
        assert seat["seat"] == box.seat
        dealt = [parse_card(e["card"]) for e in ev if e["type"] == "card" and e.get("seat") == box.seat][:2]
        for spot, (stake, got) in box.side.items():
            assert got == _oracle_side_paid(spot, stake, dealt), (spot, [NAMES[c] for c in dealt])
        side_players = {
            e["player"]
            for e in ev
            if e["type"] == "settle" and e["spot"] in SIDE_BETS and e["seat"] == box.seat
        }
        assert side_players <= {box.holder}
        if box.splits:
            event("split")
        if len(box.bettors) > 1:
            event("back-bettors")
        if box.insurance:
            event(
                f"insurance {'ace' if BJ_VALUE[up] == 1 else 'ten'} {'won' if box.insurance_paid else 'lost'}"
            )
            assert BJ_VALUE[up] in (1, 10) and not box.surrendered
            assert box.insurance <= box.holder_stake // 2
            assert not (box.blackjack and BJ_VALUE[up] == 10)
            if BJ_VALUE[up] == 1:
                assert box.insurance_paid == (3 * box.insurance if BJ_VALUE[hole] == 10 else 0)
            else:
                assert box.insurance_paid == (11 * box.insurance if BJ_VALUE[hole] == 1 else 0)
    same = recall(ev)[1]
    assert same


def test_rules_errors_are_typed() -> None:
    with pytest.raises(TapeteError):
        scenario("Ts 9h 5h 8d", [(1, "ana", "main", 1000)], [], side_bet_max=0)


# ------------------------------------------------------------------------- the terminal table (play)
def table(
    cards: str, answers: list[str], *, seats: int = 1, lang: str = "es", rounds: int = 1, **rules: Any
) -> tuple[str, Any]:
    """Play a Majestic 21 terminal table on a dealer-entered stacked shoe; (transcript, script)."""
    from io import StringIO

    from rich.console import Console

    from tapete.play import run_play
    from tapete.play.common import Script
    from tapete.session import TableSession

    out = StringIO()
    console = Console(file=out, width=100)
    script = Script(console, answers)
    source = StackedSource(parse_cards(cards.split()), 6, dealer_entered=True)
    session = TableSession("majestic_21", rules or None, source=source)
    run_play(
        "majestic_21",
        seats=seats,
        lang=lang,
        rounds=rounds,
        console=console,
        input_fn=script,
        session=session,
    )
    return " ".join(out.getvalue().split()), script


def test_play_shows_the_layout_phrases_in_both_languages() -> None:
    es, _ = table("9s 9h 3d 8d", ["q"])
    for line in layout_lines("majestic_21", "es"):
        assert line in es
    en, _ = table("9s 9h 3d 8d", ["q"], lang="en")
    assert "Insurance with an Ace pays two to one, insurance with a 10, J, Q, K pays 10 to 1" in en


def test_play_side_bets_asked_after_the_main_bet_and_paid_at_the_deal() -> None:
    # A-A under 13 for S/ 3.01 (3:2 → S/ 4.51 won, half a céntimo kept), exactly 13 for S/ 1.00 lost.
    text, script = table("As 9h Ad 8d 9s", ["10", "3.01", "", "1", "n", "c"])
    assert "apuesta al margen menos de 13 (−)" in script.prompts[1]
    assert "más de 13 (+)" in script.prompts[2] and "13 exacto (13)" in script.prompts[3]
    deal_notes = text[text.index("Segunda carta") : text.index("¿Retiro?")]
    assert "dos Ases: menos de 13 paga 3 a 2" in deal_notes and "S/ 7.52 pagado" in deal_notes
    assert "pierde 13 exacto (13)" in deal_notes
    assert "fracción de 1/2 registrada" in text
    # Main 21 (A-A-9) beats 17: +10.00; side bets +4.51 -1.00.
    assert text.endswith("Saldos Asiento 1 (P1): +S/ 13.51")


def test_play_side_bet_refused_above_its_limit_is_asked_again() -> None:
    text, script = table("9s 9h 3d 8d", ["10", "6", "4", "0", "0", "n", "p"], side_bet_max=500)
    assert "apuesta al margen menos de 13" in script.prompts[2]  # asked again after the refusal
    assert "Apuesta rechazada" in text and "S/ 5.00" in text
    assert "menos de 13 (−) S/ 4.00 → pagado S/ 8.00" in text


def test_play_side_bet_repeated_with_enter_in_the_next_round() -> None:
    # Round 1: 9-3 = 12, under 13 wins; round 2 (Enter everywhere): 9-4 = 13, under 13 loses.
    cards = "9s 9h 3d 8d 9c 9d 4d 8c"
    text, script = table(cards, ["10", "2", "", "", "n", "p", "", "", "", "", "n", "p"], rounds=2)
    assert "[Enter = S/ 2.00" in script.prompts[7]
    assert (
        "menos de 13 (−) S/ 2.00 → pagado S/ 4.00" in text
        and "menos de 13 (−) S/ 2.00 → pagado S/ 0.00" in text
    )


def test_play_ten_up_insurance_is_against_an_ace_and_pays_10_to_1() -> None:
    text, script = table("6s Kh 5d Ac 9c", ["10", "", "", "", "n", "s", "3", "i", ""])
    assert "¿Retiro?" in script.prompts[4]  # surrender first
    assert "¿seguro contra un As tapado? (paga 10 a 1" in script.prompts[5]
    assert "el dealer tenía un As tapado: el seguro paga 10 a 1" in text
    assert "seguro S/ 3.00 → pagado S/ 33.00" in text
    # Insurance +30, main lost -10, the double returned.
    assert text.endswith("Saldos Asiento 1 (P1): +S/ 20.00")


def test_play_ace_up_insurance_is_black_jacks() -> None:
    _, script = table("9s Ah 9d Kc", ["10", "", "", "", "n", "p"])
    assert "El dealer muestra un As: ¿seguro? (paga 2 a 1" in script.prompts[4]


def test_play_never_prints_the_hole_card_before_it_is_turned() -> None:
    text, _ = table("9s Kh 3d 7c 2d", ["10", "", "", "", "n", "n", "c", "p"])
    turned = text.index("El dealer voltea su carta tapada")
    assert "7♣" not in text[:turned] and "7♣" in text[turned:]


def test_tapete_play_majestic_21_from_the_command_line() -> None:
    from typer.testing import CliRunner

    from tapete.cli import app

    done = CliRunner().invoke(app, ["play", "majestic_21"], input="q\n", env={"TAPETE_LANG": "es"})
    assert done.exit_code == 0, done.output
    assert "Majestic 21 paga tres por dos" in done.output
