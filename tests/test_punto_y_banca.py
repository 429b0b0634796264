"""Punto y Banca (reglamento of 23-12-1999, rules.md §2): tests named after the articles they check.

The drawing table of Art.11 is written out below from the regulation's text and checked exhaustively on
the engine through stacked shoes; nothing here computes an expectation with the code under test.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tapete.cards import NAMES, parse_cards
from tapete.errors import BadBet, IllegalAction, InvalidRules, TapeteError
from tapete.games import round_class
from tapete.games.blackjack import Action
from tapete.games.punto_y_banca import PuntoYBancaRound, next_shoe_holder, shoe_passes, total
from tapete.log import recall, verify_lines
from tapete.rules import load_rules
from tapete.rules.punto_y_banca import PuntoYBancaRules
from tapete.scenario import run
from tapete.session import TableSession
from tapete.shoe import SeededRandom, Shoe, StackedSource
from tapete.table import RawBet, place_bets
from tests.engine_helpers import start

SCENARIOS = Path(__file__).resolve().parent / "scenarios" / "punto_y_banca"

# A card of each baccarat value 0-9, in four suits so that no shoe below needs more than one copy.
RANK_OF_VALUE = "KA23456789"


def card(value: int, suit: int = 0) -> str:
    """A card worth `value` (0 = a King) in suit `suit`."""
    return RANK_OF_VALUE[value] + "shdc"[suit]


def rules(**kw: Any) -> PuntoYBancaRules:
    out = load_rules("punto_y_banca", kw)
    assert isinstance(out, PuntoYBancaRules)
    return out


def bets(*entries: tuple[int, str, str, int]) -> list[RawBet]:
    return [RawBet(seat, player, spot, amount) for seat, player, spot, amount in entries]


def play(
    cards: list[str], entries: list[tuple[int, str, str, int]], shoe_holder: int | None = None, **kw: Any
) -> PuntoYBancaRound:
    r = rules(**kw)
    boxes = place_bets(bets(*entries), PuntoYBancaRound.bet_spec(r))
    return start(
        PuntoYBancaRound, r, StackedSource(parse_cards(cards), r.decks), boxes, shoe_holder=shoe_holder
    )


def nets(rnd: PuntoYBancaRound) -> dict[str, int]:
    return {p: v["net"] for p, v in rnd.result()["players"].items()}


def of_type(rnd: PuntoYBancaRound, kind: str) -> list[dict[str, Any]]:
    return [e for e in rnd.events if e["type"] == kind]


EVERY_ZONE = [(s, f"p{s}", "punto", 100) for s in range(1, 8)]
BANCA_NATURAL = ["2c", "9d", "3h", "Kd"]  # Punto 5, Banca natural 9
PUNTO_NATURAL = ["9c", "2d", "Kh", "3h"]  # Punto natural 9, Banca 5


# ---------------------------------------------------------------------------------------------- Art.3
def test_art3_totals_are_the_last_digit_and_tens_count_zero() -> None:
    assert total(parse_cards(["Kd", "5s"])) == 5
    assert total(parse_cards(["9h", "9c"])) == 8
    assert total(parse_cards(["As", "Td"])) == 1
    assert total(parse_cards(["Qs", "Jd", "Kh"])) == 0
    assert total(parse_cards(["7s", "8d", "9h"])) == 4


# ---------------------------------------------------------------------------------------------- Art.7
def test_art7a_first_named_bettor_holds_the_zone() -> None:
    rnd = play(BANCA_NATURAL, EVERY_ZONE)
    assert [z["holder"] for z in rnd.result()["seats"]] == [f"p{s}" for s in range(1, 8)]


def test_art7a_back_betting_refused_while_a_zone_is_free() -> None:
    with pytest.raises(BadBet) as exc:
        play(BANCA_NATURAL, [(1, "ana", "banca", 100), (1, "dora", "banca", 100)])
    assert exc.value.at == 1


def test_art7a_back_betting_allowed_when_every_zone_is_taken_each_paid_on_own_stake() -> None:
    entries = [*[e for e in EVERY_ZONE if e[0] != 3], (3, "carla", "banca", 1010), (3, "dora", "banca", 505)]
    rnd = play(BANCA_NATURAL, entries)
    zone3 = rnd.result()["seats"][2]
    assert zone3["holder"] == "carla" and zone3["back_bettors"] == ["dora"]
    # 1010 x 95% = 959.5 -> 959 (commission 51); 505 x 95% = 479.75 -> 479 (commission 26)
    assert nets(rnd)["carla"] == 959 and nets(rnd)["dora"] == 479
    fractions = {e["player"]: e["fraction"] for e in of_type(rnd, "settle") if "fraction" in e}
    assert fractions == {"carla": "1/2", "dora": "3/4"}
    assert rnd.result()["house"] == {"net": 600 - 959 - 479, "commission": 77}


def test_art7a_back_bettor_only_on_the_holders_side() -> None:
    with pytest.raises(BadBet, match="side") as exc:
        play(BANCA_NATURAL, [*EVERY_ZONE, (2, "dora", "banca", 100)])
    assert exc.value.at == 7
    with pytest.raises(BadBet) as exc:  # Empate too: the holder of zone 2 has no Empate bet
        play(BANCA_NATURAL, [*EVERY_ZONE, (2, "dora", "punto", 100), (2, "dora", "empate", 100)])
    assert exc.value.at == 8
    # the holder's Empate named after the back-bettor's still counts: checked on the whole list
    rnd = play(BANCA_NATURAL, [*EVERY_ZONE, (2, "dora", "empate", 100), (2, "p2", "empate", 100)])
    assert nets(rnd)["dora"] == -100


def test_art7a_back_betting_refused_when_the_operator_forbids_it() -> None:
    with pytest.raises(BadBet, match="operator") as exc:
        play(BANCA_NATURAL, [*EVERY_ZONE, (2, "dora", "punto", 100)], back_betting=False)
    assert exc.value.at == 7


def test_art7a_zones_setting_sets_the_table() -> None:
    with pytest.raises(BadBet):
        play(BANCA_NATURAL, [(6, "ana", "punto", 100)], zones=5)
    five = [(s, f"p{s}", "banca", 200) for s in range(1, 6)]
    rnd = play(BANCA_NATURAL, [*five, (5, "eva", "banca", 100)], zones=5)
    assert nets(rnd)["eva"] == 95
    with pytest.raises(BadBet):  # seven zones by default: five taken is not all
        play(BANCA_NATURAL, [*five, (5, "eva", "banca", 100)])


def test_art7a_zones_are_one_to_seven() -> None:
    """scenario.md numbers the seats 1-7: a table of eight zones (a seat 8) is invalid_rules."""
    for zones in (0, 8, 14):
        with pytest.raises(InvalidRules, match="zones"):
            load_rules("punto_y_banca", {"zones": zones})
    assert load_rules("punto_y_banca", {"zones": 1}).zones == 1


def test_art5g_a_fixed_burn_leaves_cards_in_front_of_the_cut_card() -> None:
    """8 decks with 104 behind the cut card leave 312 in front: a fixed burn of 312 is invalid_rules."""
    with pytest.raises(InvalidRules, match="cut card"):
        load_rules("punto_y_banca", {"burn": 312})
    assert load_rules("punto_y_banca", {"burn": 311}).burn == 311


def test_art7b_a_player_never_plays_two_zones() -> None:
    with pytest.raises(BadBet) as exc:
        play(BANCA_NATURAL, [(1, "ana", "punto", 100), (2, "ana", "empate", 100)])
    assert exc.value.at == 1
    with pytest.raises(BadBet):  # nor holds one zone and back-bets another
        play(BANCA_NATURAL, [*EVERY_ZONE, (2, "p1", "punto", 100)])


def test_art7d_bets_close_before_the_first_card() -> None:
    rnd = play(PUNTO_NATURAL, [(1, "ana", "punto", 100), (2, "ben", "banca", 200)])
    kinds = [e["type"] for e in rnd.events]
    closed = kinds.index("bets_closed")
    assert kinds.index("card") == closed + 1
    assert all(i < closed for i, k in enumerate(kinds) if k == "stake")
    before = list(rnd.events)
    with pytest.raises(IllegalAction):
        rnd.apply(Action(seat=1, action="stand"))
    assert rnd.events == before and rnd.pending is None and rnd.finished and rnd.legal() == ()
    assert not rnd.can(Action(seat=1, action="hit"))


def test_art7_limits_bound_every_spot_empate_included() -> None:
    with pytest.raises(BadBet, match="minimum") as exc:
        play(BANCA_NATURAL, [(1, "ana", "punto", 100), (1, "ana", "empate", 99)])
    assert exc.value.at == 1
    with pytest.raises(BadBet, match="limit"):
        play(BANCA_NATURAL, [(1, "ana", "banca", 100001)])
    rnd = play(BANCA_NATURAL, [(1, "ana", "empate", 100)])  # Empate alone is a bet (Art.8c)
    assert nets(rnd) == {"ana": -100}


def test_art7_the_operator_may_set_the_empates_own_limits() -> None:
    """rules.md §0 [A]: the table's limits bound the Empate "unless the operator sets their own":
    empate_min/empate_max (default the table's). An Empate of 10 under its own minimum of 10 plays at a
    table whose minimum is 100; one above its own maximum is refused; Punto keeps the table's limits;
    a minimum above the maximum is refused as the rules' problem."""
    rnd = play(BANCA_NATURAL, [(1, "ana", "empate", 10)], empate_min=10, empate_max=500)
    assert nets(rnd) == {"ana": -10}
    with pytest.raises(BadBet, match="limit"):
        play(BANCA_NATURAL, [(1, "ana", "empate", 501)], empate_min=10, empate_max=500)
    with pytest.raises(BadBet, match="minimum"):
        play(BANCA_NATURAL, [(1, "ana", "punto", 50)], empate_min=10, empate_max=500)
    with pytest.raises(InvalidRules):
        load_rules("punto_y_banca", {"empate_min": 600, "empate_max": 500})
    assert PuntoYBancaRules().empate_limits == (PuntoYBancaRules().table_min, PuntoYBancaRules().table_max)


# ---------------------------------------------------------------------------------------------- Art.8
def test_art8a_punto_pays_one_to_one() -> None:
    rnd = play(PUNTO_NATURAL, [(1, "ana", "punto", 1234)])
    assert nets(rnd) == {"ana": 1234}
    assert rnd.result()["house"] == {"net": -1234, "commission": 0}


def test_art8b_banca_pays_one_to_one_less_five_percent() -> None:
    rnd = play(BANCA_NATURAL, [(1, "ana", "banca", 1000)])
    (settle,) = of_type(rnd, "settle")
    assert settle["paid"] == 1950 and settle["commission"] == 50 and "fraction" not in settle
    assert rnd.result()["house"] == {"net": -950, "commission": 50}


def test_art8b_commission_rounds_down_per_bettor_with_the_fraction_logged() -> None:
    rnd = play(
        BANCA_NATURAL, [(1, "ana", "banca", 1010), (2, "ben", "banca", 1010), (3, "cleo", "banca", 101)]
    )
    settles = {e["player"]: e for e in of_type(rnd, "settle")}
    assert settles["ana"]["paid"] == 1010 + 959 and settles["ana"]["commission"] == 51
    assert settles["ana"]["fraction"] == "1/2"
    # 101 x 95% = 95.95 -> 95: commission 6 (5.05 of it is the 5%, 0.95 the rounding)
    assert settles["cleo"]["paid"] == 101 + 95 and settles["cleo"]["commission"] == 6
    assert settles["cleo"]["fraction"] == "19/20"
    # per bettor, not on the zone total: two 1010 stakes give 51 + 51, not 101 (5% of 2020)
    assert rnd.result()["house"] == {"net": -(959 + 959 + 95), "commission": 51 + 51 + 6}


def test_art8b_banca_loses_and_no_commission_on_a_loss() -> None:
    rnd = play(PUNTO_NATURAL, [(1, "ana", "banca", 1000)])
    assert nets(rnd) == {"ana": -1000}
    assert rnd.result()["house"] == {"net": 1000, "commission": 0}


def test_art8c_empate_pays_eight_to_one_and_punto_banca_push() -> None:
    tie = ["7c", "Kd", "Kc", "7h", "2s"]  # 7 against 7, both stand
    rnd = play(tie, [(1, "ana", "punto", 1000), (1, "ana", "empate", 100), (2, "ben", "banca", 2000)])
    assert rnd.winner == "empate"
    outcomes = {(e["player"], e["spot"]): (e["outcome"], e["paid"]) for e in of_type(rnd, "settle")}
    assert outcomes == {
        ("ana", "punto"): ("push", 1000),
        ("ana", "empate"): ("win", 900),
        ("ben", "banca"): ("push", 2000),
    }
    assert nets(rnd) == {"ana": 800, "ben": 0}


def test_art8c_empate_loses_when_a_side_wins() -> None:
    rnd = play(BANCA_NATURAL, [(1, "ana", "banca", 1000), (1, "ana", "empate", 100)])
    assert nets(rnd) == {"ana": 950 - 100}


def test_art8_banca_with_empate_and_punto_with_empate_but_never_punto_with_banca() -> None:
    play(BANCA_NATURAL, [(1, "ana", "banca", 100), (1, "ana", "empate", 100)])
    play(BANCA_NATURAL, [(1, "ana", "punto", 100), (1, "ana", "empate", 100)])
    with pytest.raises(BadBet, match="both") as exc:
        play(BANCA_NATURAL, [(1, "ana", "punto", 100), (1, "ana", "empate", 100), (1, "ana", "banca", 100)])
    assert exc.value.at == 2


def test_art8_same_spot_named_twice_adds_the_amounts() -> None:
    rnd = play(PUNTO_NATURAL, [(1, "ana", "punto", 100), (1, "ana", "punto", 150)])
    assert of_type(rnd, "settle")[0]["stake"] == 250 and nets(rnd) == {"ana": 250}


@pytest.mark.parametrize(
    ("key", "value"), [("commission_percent", 4), ("commission_percent", 6), ("tie_pays", 9)]
)
def test_art8_commission_and_tie_payout_are_fixed_by_the_regulation(key: str, value: int) -> None:
    with pytest.raises(InvalidRules, match=key):
        rules(**{key: value})
    doc = {"game": "punto_y_banca", "rules": {key: value}, "cards": BANCA_NATURAL, "bets": [], "actions": []}
    with pytest.raises(TapeteError) as exc:
        run(doc)
    assert exc.value.code == "invalid_rules"
    # what-ifs for analysis only
    assert getattr(load_rules("punto_y_banca", {key: value}, regulation=False), key) == value


# ---------------------------------------------------------------------------------------------- Art.9
def test_art9_the_round_records_who_holds_the_shoe() -> None:
    entries = [(2, "ana", "punto", 100), (5, "ben", "banca", 100)]
    rnd = play(PUNTO_NATURAL, entries)
    assert rnd.events[0]["shoe_holder"] == {"seat": 2, "player": "ana"}  # default: first zone in play
    rnd = play(PUNTO_NATURAL, entries, shoe_holder=5)
    assert rnd.events[0]["shoe_holder"] == {"seat": 5, "player": "ben"}
    assert rnd.result()["shoe"] == {"seat": 5, "player": "ben", "passes": True}  # Punto won: Banca lost
    with pytest.raises(IllegalAction, match="zone 3"):
        play(PUNTO_NATURAL, entries, shoe_holder=3)


def test_art9_shoe_passes_when_banca_loses_by_default() -> None:
    assert shoe_passes("punto")
    assert not shoe_passes("banca")
    assert not shoe_passes("empate")  # a tie is no loss for Banca
    assert all(shoe_passes(w, "every_round") for w in ("punto", "banca", "empate"))


def test_art9_next_shoe_holder_rotates_in_zone_order() -> None:
    occupied = [2, 4, 7]
    assert next_shoe_holder(None, None, occupied) == 2  # first round: the first zone in play
    assert next_shoe_holder(4, "banca", occupied) == 4  # Banca won: the holder keeps it
    assert next_shoe_holder(4, "empate", occupied) == 4
    assert next_shoe_holder(4, "punto", occupied) == 7  # Banca lost: next zone in the room's direction
    assert next_shoe_holder(7, "punto", occupied) == 2  # ... wrapping round the table
    assert next_shoe_holder(4, "banca", occupied, passes="every_round") == 7
    assert next_shoe_holder(3, "banca", occupied) == 4  # the holder left: the next zone after his
    assert next_shoe_holder(7, "banca", [1, 3]) == 1
    assert next_shoe_holder(4, "punto", [4]) == 4  # nobody else to pass it to
    assert next_shoe_holder(4, "punto", []) is None


def test_art9_shoe_rotates_across_a_session_and_every_round_is_recalled(tmp_path: Path) -> None:
    session = TableSession("punto_y_banca", {}, live=False, rng=SeededRandom(9), log=tmp_path / "log.jsonl")
    entries = bets((1, "ana", "banca", 100), (3, "ben", "punto", 100), (6, "cleo", "empate", 100))
    holder: int | None = None
    winner: str | None = None
    held: list[tuple[int, str | None]] = []
    for _ in range(12):
        holder = next_shoe_holder(holder, winner, [1, 3, 6])
        assert holder is not None
        rnd = session.start_round(entries, shoe_holder=holder)
        held.append((holder, rnd.winner))
        winner = rnd.winner
        session.finish_round()
    for (h, w), (h2, _) in itertools.pairwise(held):
        assert h2 == (h if w != "punto" else {1: 3, 3: 6, 6: 1}[h])
    assert len({h for h, _ in held}) > 1
    report = verify_lines((tmp_path / "log.jsonl").read_text().splitlines())
    assert report.ok
    for round_id in range(1, 13):
        events = session.log.events_of(round_id)
        _, same = recall(events)
        assert same, round_id


# --------------------------------------------------------------------------------------------- Art.10
def test_art10_first_and_third_cards_to_punto_second_and_fourth_to_banca() -> None:
    rnd = play(["9s", "8d", "Kh", "Qc", "5c", "5d"], [(1, "ana", "punto", 100)])
    deals = [(e["to"], e["card"]) for e in of_type(rnd, "card")]
    assert deals == [("punto", "9s"), ("banca", "8d"), ("punto", "Kh"), ("banca", "Qc")]
    res = rnd.result()
    assert res["punto"] == {"cards": ["9s", "Kh"], "total": 9, "natural": True}
    assert res["banca"] == {"cards": ["8d", "Qc"], "total": 8, "natural": True}
    assert res["winner"] == "punto"


def test_art10_third_cards_go_punto_first_then_banca() -> None:
    rnd = play(["Kc", "2d", "Qd", "3h", "6s", "3d"], [(1, "ana", "banca", 1000)])
    deals = [(e["to"], e["card"]) for e in of_type(rnd, "card")]
    assert deals[4:] == [("punto", "6s"), ("banca", "3d")]
    steps = [(e["type"], e["side"]) for e in rnd.events if e["type"] in ("draw", "stand")]
    assert steps == [("draw", "punto"), ("draw", "banca")]


# --------------------------------------------------------------------------------------------- Art.11
# Written out from the regulation's text (Art.11 a-e, rules.md §2), not from the code under test.
# Punto's two-card total -> draws a third card (11b: 6 or more stands; 11c: 5 or less always draws).
PUNTO_DRAWS_ON = {0: True, 1: True, 2: True, 3: True, 4: True, 5: True, 6: False, 7: False}
# Banca when Punto stood (page missing; rules.md [A] standard): 0-5 draws, 6-7 stands.
BANCA_DRAWS_WHEN_PUNTO_STOOD = {0: True, 1: True, 2: True, 3: True, 4: True, 5: True, 6: False, 7: False}
# Banca's two-card total (rows) against the value of Punto's third card (columns 0 to 9):
# D = Banca draws, S = Banca stands. 11d: 7 stands, 2 or less draws; 11e: 3-6 by Punto's third card.
#                   x = 0123456789
BANCA_TABLE = {
    0: "DDDDDDDDDD",
    1: "DDDDDDDDDD",
    2: "DDDDDDDDDD",
    3: "DDDDDDDDSD",  # 3 draws unless x = 8
    4: "SSDDDDDDSS",  # 4 draws when x is 2-7
    5: "SSSSDDDDSS",  # 5 draws when x is 4-7
    6: "SSSSSSDDSS",  # 6 draws when x is 6 or 7
    7: "SSSSSSSSSS",
}


def _cases() -> list[tuple[int, int, int | None]]:
    out: list[tuple[int, int, int | None]] = []
    for p2 in range(10):
        for b2 in range(10):
            natural = p2 >= 8 or b2 >= 8
            if not natural and PUNTO_DRAWS_ON[p2]:
                out.extend((p2, b2, x) for x in range(10))
            else:
                out.append((p2, b2, None))
    return out


CASES = _cases()


def _coup(p2: int, b2: int, x: int | None) -> tuple[list[str], str | None, str]:
    """A shoe whose first four cards give Punto `p2` and Banca `b2` (each as two cards of different
    values where it can), then Punto's third card worth `x` (or a spare card), then a spare card."""
    p_first = (p2 + 3) % 10
    b_first = (b2 + 6) % 10
    cards = [card(p_first, 0), card(b_first, 1), card((p2 - p_first) % 10, 2), card((b2 - b_first) % 10, 3)]
    fifth = card(x, 0) if x is not None else "9h"
    return [*cards, fifth, "8c", "7d"], fifth, "8c"


def test_art11_the_drawing_table_is_complete() -> None:
    # 48 (Punto 0-5 against Banca 0-7) x 10 third cards + 52 pairs with no Punto third card
    assert len(CASES) == 48 * 10 + 52


@pytest.mark.parametrize(("p2", "b2", "x"), CASES)
def test_art11_drawing_table_exhaustive_on_the_engine(p2: int, b2: int, x: int | None) -> None:
    shoe, fifth, sixth = _coup(p2, b2, x)
    rnd = play(shoe, [(1, "ana", "punto", 100), (2, "ben", "banca", 100), (3, "cleo", "empate", 100)])
    res = rnd.result()
    assert total(parse_cards(res["punto"]["cards"][:2])) == p2
    assert total(parse_cards(res["banca"]["cards"][:2])) == b2
    natural = p2 >= 8 or b2 >= 8
    punto_draws = not natural and PUNTO_DRAWS_ON[p2]
    if natural:
        banca_draws = False
    elif punto_draws:
        assert x is not None
        banca_draws = BANCA_TABLE[b2][x] == "D"
    else:
        banca_draws = BANCA_DRAWS_WHEN_PUNTO_STOOD[b2]
    assert res["punto"]["cards"][2:] == ([fifth] if punto_draws else [])
    banca_third = sixth if punto_draws else fifth
    assert res["banca"]["cards"][2:] == ([banca_third] if banca_draws else [])
    steps = [e for e in rnd.events if e["type"] in ("draw", "stand")]
    assert [(e["side"], e["type"]) for e in steps] == [
        ("punto", "draw" if punto_draws else "stand"),
        ("banca", "draw" if banca_draws else "stand"),
    ]
    assert [e["total"] for e in steps] == [p2, b2]
    if punto_draws:
        assert steps[1]["punto_third"] == x
    # the winner by the final totals and money conserved
    pt, bt = res["punto"]["total"], res["banca"]["total"]
    assert res["winner"] == ("punto" if pt > bt else "banca" if bt > pt else "empate")
    staked = sum(v["staked"] for v in res["players"].values())
    paid = sum(v["paid"] for v in res["players"].values())
    assert staked == paid + res["house"]["net"]


def test_art11a_a_natural_on_either_side_stops_the_coup() -> None:
    rnd = play(["4c", "Kd", "4h", "2s", "9c", "9d"], [(1, "ana", "punto", 100)])  # Punto 8, Banca 2
    assert len(rnd.punto) == 2 and len(rnd.banca) == 2
    assert [e["reason"] for e in of_type(rnd, "stand")] == ["Punto has a natural 8: no third cards"] * 2
    rnd = play(["Kc", "4d", "2h", "5s", "9c", "9d"], [(1, "ana", "punto", 100)])  # Punto 2, Banca 9
    assert len(rnd.punto) == 2 and len(rnd.banca) == 2 and rnd.winner == "banca"
    assert of_type(rnd, "stand")[0]["reason"] == "Banca has a natural 9: no third cards"
    rnd = play(["4c", "4d", "4h", "5s"], [(1, "ana", "punto", 100)])  # Punto 8, Banca 9
    assert of_type(rnd, "stand")[0]["reason"] == "Punto has a natural 8 and Banca a natural 9: no third cards"


def test_art11b_punto_6_or_7_stands() -> None:
    for p in ("6", "7"):
        rnd = play([f"{p}c", "Kd", "Kh", "2s", "3c", "3d"], [(1, "ana", "punto", 100)])
        assert len(rnd.punto) == 2
        assert of_type(rnd, "stand")[0]["reason"] == f"Punto {p} stands"


def test_art11c_punto_0_to_5_always_draws() -> None:
    for p in range(6):
        rnd = play([card(p), "Kd", "Kh", "7s", "3c", "3d"], [(1, "ana", "punto", 100)])
        assert [NAMES[c] for c in rnd.punto] == [card(p), "Kh", "3c"]
        assert of_type(rnd, "draw")[0]["reason"] == f"Punto {p} draws"


def test_art11d_banca_7_stands_and_0_to_2_draws_after_punto_drew() -> None:
    for x in range(10):
        rnd = play(["Kc", "7d", "Kh", "Ks", card(x, 2), "2c"], [(1, "ana", "punto", 100)])
        assert len(rnd.banca) == 2, x
        for b in range(3):
            rnd = play(["Kc", card(b, 1), "Kh", "Ks", card(x, 2), "2c"], [(1, "ana", "punto", 100)])
            assert len(rnd.banca) == 3, (b, x)


@pytest.mark.parametrize(("banca", "draws_on"), [(3, "012345679"), (4, "234567"), (5, "4567"), (6, "67")])
def test_art11e_banca_3_to_6_by_puntos_third_card(banca: int, draws_on: str) -> None:
    for x in range(10):
        rnd = play(["Kc", card(banca, 1), "Kh", "Ks", card(x, 2), "2c"], [(1, "ana", "punto", 100)])
        drew = len(rnd.banca) == 3
        assert drew == (str(x) in draws_on), (banca, x)
        verb = "draws" if drew else "stands"
        reason = next(e["reason"] for e in rnd.events if e.get("side") == "banca")
        assert reason == f"Banca {banca} {verb}: Punto's third card was a {x}"


def test_art11_banca_when_punto_stood_draws_on_0_to_5_stands_on_6_7() -> None:
    for b in range(8):
        rnd = play(["6c", card(b, 1), "Kh", "Ks", "2c", "3c"], [(1, "ana", "punto", 100)])
        drew = len(rnd.banca) == 3
        assert drew == (b <= 5), b
        verb = "draws" if drew else "stands"
        assert [e["reason"] for e in rnd.events if e.get("side") == "banca"] == [
            f"Banca {b} {verb}: Punto stood"
        ]


def test_art11_reason_names_puntos_third_card() -> None:
    rnd = play(["Kc", "2d", "Qd", "3h", "6s", "3d"], [(1, "ana", "banca", 1000)])
    draws = of_type(rnd, "draw")
    assert draws[1] == {
        "type": "draw",
        "side": "banca",
        "total": 5,
        "rule": "punto_third",
        "punto_third": 6,
        "reason": "Banca 5 draws: Punto's third card was a 6",
    }
    assert nets(rnd) == {"ana": 950}


# ------------------------------------------------------------------------------------ views, surface
def test_views_hold_neither_the_shoe_nor_undealt_cards() -> None:
    rnd = play(["4c", "Kd", "4h", "2s", "Jc", "Jd"], [(1, "ana", "punto", 100), (2, "ben", "banca", 100)])
    for viewer in ("player:ana", "player:ben", "dealer", "inspector"):
        text = json.dumps(rnd.view(viewer))
        assert "Jc" not in text and "Jd" not in text
        assert "4c" in text
    assert "events" in rnd.view("inspector") and "events" not in rnd.view("player:ana")
    assert rnd.view("dealer")["reasons"] == ["Punto has a natural 8: no third cards"] * 2


def test_round_surface_matches_the_reference() -> None:
    assert round_class("punto_y_banca") is PuntoYBancaRound
    assert not PuntoYBancaRound.OFFERS
    with pytest.raises(IllegalAction):
        PuntoYBancaRound.parse_action({"seat": 1, "action": "hit"})
    rnd = play(PUNTO_NATURAL, [(1, "ana", "punto", 100)])
    assert PuntoYBancaRound.actions_from_events(rnd.events) == []
    assert PuntoYBancaRound.options_from_events(rnd.events) == {"shoe_holder": 1}


# --------------------------------------------------------------------------------------- scenarios
def _scenario_files() -> list[Path]:
    return sorted(p for p in SCENARIOS.glob("*.json") if not p.name.endswith(".expected.json"))


def test_every_article_has_a_scenario() -> None:
    names = [p.stem for p in _scenario_files()]
    for art in ("art3", "art7a", "art7b", "art8b", "art8c", "art10", "art11a", "art11e"):
        assert any(n.startswith(art) for n in names), art


# -------------------------------------------------------------------------------------- properties
PLAYERS = ("ana", "ben", "cleo", "dora", "eva", "fito", "gus", "hugo", "ines")
bet_entry = st.tuples(
    st.integers(1, 7),
    st.sampled_from(PLAYERS),
    st.sampled_from(("punto", "banca", "empate")),
    st.integers(1, 120_000),
)
shoe_cards = st.lists(st.integers(0, 51), min_size=6, max_size=6)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shoe_cards, st.lists(bet_entry, min_size=1, max_size=12))
def test_property_money_is_conserved_and_settled_by_art8(cards: list[int], entries: list[Any]) -> None:
    r = rules()
    try:
        boxes = place_bets(bets(*entries), PuntoYBancaRound.bet_spec(r))
    except BadBet:
        return
    rnd = start(PuntoYBancaRound, r, StackedSource(cards, r.decks), boxes)
    res = rnd.result()
    staked = sum(v["staked"] for v in res["players"].values())
    paid = sum(v["paid"] for v in res["players"].values())
    assert staked == paid + res["house"]["net"]
    assert staked == sum(e[3] for e in entries)
    commission = 0
    for e in of_type(rnd, "settle"):
        stake, spot = e["stake"], e["spot"]
        if rnd.winner == "empate":
            expected = stake * 9 if spot == "empate" else stake
        elif spot == rnd.winner == "banca":
            expected = stake + stake * 95 // 100
            commission += stake * 5 // 100 + (1 if stake * 5 % 100 else 0)
        else:
            expected = 2 * stake if spot == rnd.winner else 0
        assert e["paid"] == expected
    assert res["house"]["commission"] == commission


def remaining(session: TableSession) -> int:
    """Cards left in a session's virtual shoe."""
    assert isinstance(session.source, Shoe)
    return session.source.remaining


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(bet_entry, min_size=1, max_size=10), st.integers(0, 2**32))
def test_property_refused_bets_change_nothing(entries: list[Any], seed: int) -> None:
    good = bets((1, "zoe", "banca", 500), (2, "yan", "punto", 300))
    session = TableSession("punto_y_banca", {}, live=False, rng=SeededRandom(seed))
    twin = TableSession("punto_y_banca", {}, live=False, rng=SeededRandom(seed))
    before = (session.round_no, len(session.log.records), remaining(session), session.log.head)
    try:
        session.start_round(bets(*entries))
    except BadBet:
        assert (
            session.round_no,
            len(session.log.records),
            remaining(session),
            session.log.head,
        ) == before
        assert session.current is None
        a = session.start_round(good)
        b = twin.start_round(good)
        assert a.events == b.events
        return
    assert session.current is not None and session.current.finished


def test_property_refusal_examples_do_occur() -> None:
    """The refusal property above is not vacuous: these entries are refused and change nothing."""
    session = TableSession("punto_y_banca", {}, live=False, rng=SeededRandom(1))
    left = remaining(session)
    with pytest.raises(BadBet):
        session.start_round(bets((1, "ana", "punto", 100), (1, "ana", "banca", 100)))
    assert remaining(session) == left and session.round_no == 0


def test_art7b_a_back_bettor_never_plays_two_zones() -> None:
    rules = load_rules("punto_y_banca", {})
    bets = [RawBet(s, f"p{s}", "punto", 100) for s in range(1, 8)]
    bets += [RawBet(1, "bb", "punto", 100), RawBet(2, "bb", "punto", 100)]
    with pytest.raises(BadBet) as info:
        place_bets(bets, PuntoYBancaRound.bet_spec(rules))
    assert info.value.at == 8
