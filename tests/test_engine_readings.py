"""The engine's readings of issue 31 (rules.md §0, §1, §3, §4; scenario.md's settings): Showdown Póker with
more than one deck (five of a kind above a royal flush and paid as one, a flush holding a pair still a
flush compared from its highest card, descriptions that say the hand), checked against an independent
evaluator written here; Showdown's `paytable` (Art.11's figures the minimum, Art.12) followed by the round,
the analysis and the report; `max_splits` at least 1; Majestic 21's retiro an operator setting and its
refusals quoting no Black Jack article; `dealer_completes_hand`. The scenario files of each reading are in
tests/scenarios/<game>/ (s0-*, art12-paytable-*, bonus-paytable-*, art14-dealer-*, art11-max-splits-*,
s4-*), played by tests/test_scenario_files.py.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tapete.cards import NAMES, parse_card, parse_cards
from tapete.dealer import DealerEntered
from tapete.errors import InvalidRules, TapeteError
from tapete.games import round_class
from tapete.games.base import CARD
from tapete.games.showdown import bonus_ratio, hand_outcome, hand_strength
from tapete.i18n import house_rules_text
from tapete.poker import Category, category, describe
from tapete.report.content import blackjack_rules, showdown_rules
from tapete.rules import load_rules
from tapete.rules.showdown import SHOWDOWN_PAYTABLE
from tapete.scenario import run, run_file
from tapete.table import RawBet, place_bets

SCENARIOS = Path(__file__).resolve().parent / "scenarios"

# ------------------------------------------------------------------------------ an independent evaluator
#: Categories of the reference, weakest first, named as the engine's JSON names them.
REF_NAMES = (
    "high_card",
    "pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
    "royal_flush",
    "five_of_a_kind",
)
_VALUE = {r: v for v, r in enumerate("23456789TJQKA", start=2)}


def reference_rank(cards: list[str]) -> tuple[int, tuple[int, ...]]:
    """rules.md §0 and §3 read directly, sharing no code with `tapete.poker`: every category the five cards
    make is listed with its tie-break, and the hand is the best of them. A five of a kind ranks above a
    royal flush; a flush compares all five cards from the highest, equal cards included."""
    values = sorted((_VALUE[c[0]] for c in cards), reverse=True)
    flush = len({c[1] for c in cards}) == 1
    distinct = sorted(set(values), reverse=True)
    top = 0
    if len(distinct) == 5 and distinct[0] - distinct[4] == 4:
        top = distinct[0]
    elif distinct == [14, 5, 4, 3, 2]:
        top = 5  # the wheel: the ace plays low
    groups = sorted(((values.count(v), v) for v in distinct), reverse=True)
    sizes = [n for n, _ in groups]
    by_group = tuple(v for _, v in groups)
    made: list[tuple[int, tuple[int, ...]]] = [(0, tuple(values))]
    if sizes[0] == 2:
        made.append((1, by_group))
    if sizes[:2] == [2, 2]:
        made.append((2, by_group))
    if sizes[0] == 3:
        made.append((3, by_group))
    if top:
        made.append((4, (top,)))
    if flush:
        made.append((5, tuple(values)))
    if sizes[:2] == [3, 2]:
        made.append((6, by_group))
    if sizes[0] == 4:
        made.append((7, by_group))
    if flush and top:
        made.append((9, ()) if top == 14 else (8, (top,)))
    if sizes[0] == 5:
        made.append((10, by_group))
    return max(made)


def _engine(cards: list[str] | str) -> int:
    """The engine's strength of five cards (a list, or one text of cards)."""
    return hand_strength(parse_cards(cards.split() if isinstance(cards, str) else cards))


def _same_order(hands: list[list[str]]) -> None:
    """The engine orders `hands` exactly as the reference does (ties included) and names the same category."""
    keyed = sorted((reference_rank(h), _engine(h), h) for h in hands)
    for (ref_a, eng_a, hand_a), (ref_b, eng_b, hand_b) in itertools.pairwise(keyed):
        assert (eng_a < eng_b) == (ref_a < ref_b), (hand_a, hand_b)
        assert (eng_a == eng_b) == (ref_a == ref_b), (hand_a, hand_b)
    for ref, eng, hand in keyed:
        assert category(eng).key == REF_NAMES[ref[0]], hand


def _two_deck_hand(ranks: tuple[int, ...], flush: bool) -> list[str] | None:
    """Five cards of a two-deck pack with these ranks (2..14), all spades when `flush`, else of mixed suits
    (each card at most twice); None when two decks cannot deal it."""
    symbol = {v: r for r, v in _VALUE.items()}
    seen: Counter[str] = Counter()
    out = []
    for i, v in enumerate(ranks):
        suits = "s" if flush else "shdc"[i % 4 :] + "shdc"[: i % 4]
        card = next((symbol[v] + s for s in suits if seen[symbol[v] + s] < 2), None)
        if card is None:
            return None
        seen[card] += 1
        out.append(card)
    if not flush and len({c[1] for c in out}) == 1:
        return None
    return out


def test_art11_evaluator_matches_an_independent_one_on_every_two_deck_hand_class() -> None:
    """Every five-card multiset two decks can deal is one of these classes: its ranks and whether it is
    suited (a hand's strength depends on nothing else, `hand_strength`); each class is dealt as real
    cards and ordered by the engine exactly as by the reference, 6,188 unsuited and 5,005 suited."""
    hands = []
    for ranks in itertools.combinations_with_replacement(range(2, 15), 5):
        for flush in (False, True):
            hand = _two_deck_hand(ranks, flush)
            if hand is not None:
                hands.append(hand)
    suited = sum(1 for h in hands if len({c[1] for c in h}) == 1)
    assert (len(hands) - suited, suited) == (6188, 5005)
    _same_order(hands)
    counts = Counter(category(_engine(h)) for h in hands)
    assert counts[Category.FIVE_OF_A_KIND] == 13 and counts[Category.ROYAL_FLUSH] == 1


def test_art11_evaluator_matches_an_independent_one_on_a_random_sample_of_two_deck_hands() -> None:
    """200,000 hands dealt from a shuffled two-deck pack (seeded), compared card by card."""
    pack = [NAMES[c] for c in range(52)] * 2
    rng = random.Random(31)
    _same_order([rng.sample(pack, 5) for _ in range(200_000)])


@pytest.mark.parametrize(
    ("text", "cat", "words"),
    [
        ("As Ah As Ad Ah", Category.FIVE_OF_A_KIND, "five aces"),
        ("7c 7c 7d 7h 7s", Category.FIVE_OF_A_KIND, "five sevens"),
        ("As As Ks Qs Js", Category.FLUSH, "flush, ace high: A A K Q J"),
        ("9h 9h 4h 4h 2h", Category.FLUSH, "flush, nine high: 9 9 4 4 2"),
        ("Ks Ks Kh Qs Qs", Category.FULL_HOUSE, "full house, kings over queens"),
    ],
)
def test_art11_descriptions_say_what_the_hand_is_with_two_decks(text: str, cat: Category, words: str) -> None:
    strength = _engine(text)
    assert category(strength) is cat and describe(strength) == words


def test_art11_five_of_a_kind_ranks_above_a_royal_flush_and_is_paid_as_one() -> None:
    five_twos, royal = _engine("2s 2h 2s 2d 2c"), _engine("Ts Js Qs Ks As")
    assert five_twos > royal > _engine("9s Ts Js Qs Ks")
    assert _engine("3s 3h 3s 3d 3c") > five_twos
    assert hand_outcome(five_twos) == hand_outcome(royal) == ("win", 250)
    rules = load_rules("showdown_poker", {"decks": 2, "paytable": {"royal_flush": 400}})
    assert hand_outcome(five_twos, rules.pays) == ("win", 400)
    assert bonus_ratio(rules, five_twos) == bonus_ratio(rules, royal) == 1000
    no_royal = load_rules("showdown_poker", {"decks": 2, "bonus_paytable": {"straight_flush": 90}})
    assert (
        bonus_ratio(no_royal, five_twos) == 90
    )  # paid as the royal, which this table pays as a straight flush


def test_art11_a_flush_holding_a_pair_is_a_flush_compared_from_its_highest_card() -> None:
    """A A K Q J beats A K Q J 9 (the second card: A over K) and K K Q J 9 beats K Q J 9 8; a flush with
    a pair is never read as the pair, and it ranks below a full house as any flush does."""
    paired, plain = _engine("As As Ks Qs Js"), _engine("Ah Kh Qh Jh 9h")
    assert category(paired) is Category.FLUSH and paired > plain
    assert _engine("Ks Ks Qs Js 9s") > _engine("Kh Qh Jh 9h 8h")
    assert _engine("As As Ks Qs Js") < _engine("2c 2d 2h 3c 3d")
    assert hand_outcome(paired) == ("win", 7)


def test_art11_the_issues_five_aces_with_two_decks_win_bet_increments_bonus_and_pot() -> None:
    """The scenario file of the five Aces (shared with tests/test_scenario_files.py), read here."""
    code, out = run_file(
        str(SCENARIOS / "showdown_poker" / "s0-five-aces-two-decks-paid-as-royal-flush.json")
    )
    assert code == 0
    ana = out["seats"][0]
    assert ana["final_hand"]["category"] == "five_of_a_kind"
    assert (ana["outcome"], ana["ratio"], ana["stake"], ana["winnings"]) == ("win", "250:1", 300, 75000)
    assert ana["bonus"]["ratio"] == "1000:1" and out["pot"]["winners"] == [1]
    assert out["pot"]["best_hand"] == "five aces"


# ------------------------------------------------------------------------------------- Showdown paytable
def _sd_doc(rules: dict[str, Any], cards: str = "2h Kh 7h 4h 9h") -> dict[str, Any]:
    return {
        "game": "showdown_poker",
        "rules": rules,
        "cards": cards.split(),
        "bets": [
            {"seat": 1, "player": "ana", "spot": "bet", "amount": 100},
            {"seat": 1, "player": "ana", "spot": "pot", "amount": 100},
            {"seat": 1, "player": "ana", "spot": "bonus", "amount": 100},
        ],
        "actions": [],
    }


def _refusal(doc: dict[str, Any]) -> TapeteError:
    with pytest.raises(TapeteError) as info:
        run(doc)
    return info.value


def test_art12_paytable_pays_at_least_art11_and_at_most_100000_to_1() -> None:
    for hand, least in SHOWDOWN_PAYTABLE.items():
        assert load_rules("showdown_poker", {"paytable": {hand: least}}).pays[hand] == least
        assert load_rules("showdown_poker", {"paytable": {hand: 100_000}}).pays[hand] == 100_000
        for bad in (least - 1, 100_001):
            err = _refusal(_sd_doc({"paytable": {hand: bad}}))
            assert err.code == "invalid_rules" and f"paytable {hand}={bad}" in err.message
    assert _refusal(_sd_doc({"paytable": {"pair": 5}})).code == "invalid_rules"
    assert _refusal(_sd_doc({"paytable": {"flush": True}})).code == "invalid_rules"
    out = run(_sd_doc({"paytable": {"flush": 12}}))
    assert out["seats"][0]["ratio"] == "12:1" and out["seats"][0]["winnings"] == 1200


def test_art12_bonus_paytable_pays_1_to_100000_on_its_own_hands() -> None:
    out = run(_sd_doc({"bonus_paytable": {"flush": 1}}))
    assert out["seats"][0]["bonus"]["paid"] == 200
    for bad in ({"flush": 0}, {"flush": 100_001}, {"two_pair": 3}, {"pair": 1}):
        assert _refusal(_sd_doc({"bonus_paytable": bad})).code == "invalid_rules", bad


def test_art12_the_analysis_follows_the_tables_paytable() -> None:
    """`tapete analyze` values the bet by the table's paytable (Art.11's figures or more) and says when a
    paytable below Art.11 is not the regulation's."""
    from tapete.math.analyze import analyze

    base = analyze("showdown_poker", {"max_exchange": 1})
    richer = analyze("showdown_poker", {"max_exchange": 1, "paytable": {"flush": 20, "straight": 9}})
    assert richer["regulation"] and base["regulation"]
    assert richer["bets"]["bet"]["house_edge"] < base["bets"]["bet"]["house_edge"]
    assert richer["_analysis"].paytable["flush"] == 20
    poorer = analyze("showdown_poker", {"max_exchange": 1, "paytable": {"flush": 6}})
    assert not poorer["regulation"] and "paytable flush=6" in poorer["not_regulation_because"][0]


def test_art12_the_report_shows_the_tables_paytable_and_marks_every_assumption() -> None:
    rules = load_rules("showdown_poker", {"decks": 2, "paytable": {"flush": 20}})
    shown = showdown_rules(rules)
    final = next(r for r in shown if r.article == "Art.10-11")
    assert "flush 20:1" in final.text and "Art.12 calls the minimum" in final.text and not final.assumed
    equal_cards = next(r for r in shown if "five of a kind" in r.text)
    assert equal_cards.assumed
    pot_and_bonus = [r for r in shown if r.article.startswith("§3 ")]
    assert pot_and_bonus and all(r.assumed for r in pot_and_bonus)
    one_deck = showdown_rules(load_rules("showdown_poker", {}))
    assert not [r for r in one_deck if "five of a kind" in r.text]


def test_art12_the_players_rules_say_the_paytable_and_how_equal_cards_rank_as_house_rules() -> None:
    rules = load_rules("showdown_poker", {"decks": 2, "paytable": {"flush": 20}})
    en, es = house_rules_text(rules, "en"), house_rules_text(rules, "es")
    assert "flush 20 to 1" in en and "color 20 a 1" in es
    assert "Five of a kind is above a royal flush" in en and "repóker" in es
    for text in (en, es):
        lines = text.splitlines()
        assert sum("[A]" in line for line in lines) >= 4  # exchange count, equal cards, pot, bonus


# ------------------------------------------------------------------------------ Black Jack, Majestic 21
def _bj_doc(game: str, rules: dict[str, Any], cards: str, actions: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "game": game,
        "rules": rules,
        "cards": cards.split(),
        "bets": [{"seat": 1, "player": "ana", "spot": "main", "amount": 1000}],
        "actions": actions,
    }


@pytest.mark.parametrize("game", ["blackjack", "majestic_21"])
def test_art11_max_splits_is_at_least_one(game: str) -> None:
    """Art.11 grants the split: a table without it is refused (`invalid_rules`); one split is a table."""
    doc = _bj_doc(game, {"max_splits": 0}, "8s 6c 8h Td", [{"seat": 1, "action": "stand"}])
    err = _refusal(doc)
    assert err.code == "invalid_rules" and "max_splits=0" in err.message
    assert load_rules(game, {"max_splits": 0}, regulation=False).violations()  # analysis what-ifs only
    one = _bj_doc(game, {"max_splits": 1}, "8s 6c 8h Td 3d 9c 2h", [{"seat": 1, "action": "split"}])
    one["actions"] += [{"seat": 1, "hand": 0, "action": "stand"}, {"seat": 1, "hand": 1, "action": "stand"}]
    assert len(run(one)["seats"][0]["hands"]) == 2


def _eight_splits(game: str, max_splits: int, ninth: bool = False) -> dict[str, Any]:
    """8-8 against a 6 split eight times on the first hand (nine hands), each hand then standing on 18;
    `ninth`: the first hand draws a ninth 8 and asks to split it too."""
    cards = "8s 6c 8h Td 8d 8c 8s 8h 8d 8c 8s"
    actions = [{"seat": 1, "action": "split"}] + [{"seat": 1, "hand": 0, "action": "split"}] * 7
    if ninth:
        return _bj_doc(game, {"max_splits": max_splits}, cards + " 8h", [*actions, actions[-1]])
    cards += " Ts Tc Th Td Ks Kc Kh Kd Qs Qh"  # a ten to each hand, the dealer's 16 busts with Qh
    actions += [{"seat": 1, "hand": i, "action": "stand"} for i in range(9)]
    return _bj_doc(game, {"max_splits": max_splits}, cards, actions)


@pytest.mark.parametrize("game", ["blackjack", "majestic_21"])
def test_art11_max_splits_has_no_maximum(game: str) -> None:
    """Art.11 grants the split and leaves its maximum to the operator: any number from 1 is a table (8
    was refused, as above 7). With 8 a box plays nine hands and the ninth split is refused; a setting
    beyond what the pack can hold plays exactly as the pack's own limit (6 decks: 95 splits)."""
    out = run(_eight_splits(game, 8))
    assert len(out["seats"][0]["hands"]) == 9
    assert out["players"]["ana"] == {"staked": 9000, "paid": 18000, "net": 9000}
    err = _refusal(_eight_splits(game, 8, ninth=True))
    assert (err.code, err.at) == ("illegal_action", 8)
    assert run(_eight_splits(game, 10**18))["seats"] == out["seats"]
    assert _refusal(_eight_splits(game, 10**18, ninth=True)).code == "bad_cards"  # split; then no cards
    rules = load_rules(game, {"max_splits": 10**18})
    assert rules.max_splits == 10**18 and rules.splits_possible == 95  # type: ignore[attr-defined]
    assert load_rules(game, {"max_splits": 8}).splits_possible == 8  # type: ignore[attr-defined]


@pytest.mark.parametrize("game", ["blackjack", "majestic_21"])
def test_a_server_table_takes_any_max_splits_and_checks_its_amounts_as_played(game: str) -> None:
    """The server's overflow check (`check_amounts`) read max_splits=10**18 as a stake of 10**18 (a
    `max_` setting) and refused the table; the check now sees the splits the pack allows (95), so the
    table opens, while a table_max whose payouts could leave 64-bit integers is still refused."""
    from tapete.server.play.tables import parse_settings

    _, model, _ = parse_settings(game, {"max_splits": 10**18}, "virtual")
    assert model.max_splits == 10**18  # type: ignore[attr-defined]
    with pytest.raises(InvalidRules) as info:
        parse_settings(game, {"max_splits": 10**18, "table_max": 2**62}, "virtual")
    assert info.value.key == "err.rules.overflow" and info.value.params["stake"] == 2**62


def test_s4_majestic_21_may_switch_the_retiro_off_black_jack_may_not() -> None:
    """No Majestic 21 page grants the retiro (rules.md §4): `surrender: false` is a Majestic 21 table, where
    nobody is offered it; Black Jack's Art.9 grants it, so the same setting is refused there."""
    actions = [{"seat": 1, "action": "surrender"}]
    cards = "Ts Kc 6h 7d 9s"
    with_retiro = run(_bj_doc("majestic_21", {}, cards, actions))
    assert with_retiro["players"]["ana"]["net"] == -500
    without = _refusal(_bj_doc("majestic_21", {"surrender": False}, cards, actions))
    assert without.code == "illegal_action" and without.at == 0
    played = run(_bj_doc("majestic_21", {"surrender": False}, cards, [{"seat": 1, "action": "stand"}]))
    assert not [e for e in played["events"] if e.get("offer") == "surrender"]
    assert _refusal(_bj_doc("blackjack", {"surrender": False}, cards, actions)).code == "invalid_rules"


def test_s4_majestic_21_refusals_never_quote_black_jack_articles() -> None:
    """Majestic 21's pages end at Art.5f: its refusals of the burn, the split and an exposed card say the
    play follows Black Jack by rules.md §4 [A], and quote none of Black Jack's articles as its own."""
    with pytest.raises(InvalidRules) as info:
        load_rules("majestic_21", {"burn": 0, "max_splits": 0})
    for problem in info.value.params["problems"]:
        assert "Art." not in problem and "§4 [A]" in problem
    with pytest.raises(InvalidRules) as bj:
        load_rules("blackjack", {"burn": 0, "max_splits": 0})
    assert [p.split(":")[1].split()[0] for p in bj.value.params["problems"]] == ["Art.5g", "Art.11"]
    rules = load_rules("majestic_21", {})
    rnd = round_class("majestic_21")(rules, place_bets([RawBet(1, "ana", "main", 1000)], _spec(rules)))
    shoe = DealerEntered(rules.decks)
    with pytest.raises(TapeteError) as exposed:
        shoe.post(rnd, parse_card("Ts"), exposed=True)  # a box's card cannot be "exposed by error"
    assert exposed.value.key == "err.step.exposed_m21" and "Art." not in exposed.value.message


def test_s4_the_majestic_21_report_shows_black_jacks_articles_as_assumptions() -> None:
    """The report of a Majestic 21 table never presents a Black Jack article as Majestic 21's text: those
    rules are marked [A] under "§4 (BJ Art.n)"; its own articles (Art.1g, 2b, 3-5, 2c) keep their names."""
    shown = blackjack_rules(load_rules("majestic_21", {"surrender": False}), majestic=True)
    borrowed = [r for r in shown if "BJ " in r.article]
    assert borrowed and all(
        r.assumed and r.article.startswith("§4 (BJ Art") for r in borrowed if "Art" in r.article
    )
    assert not [
        r for r in shown if r.article in ("Art.8", "Art.9", "Art.11", "Art.14", "Art.5g", "Art.1h, 3-4")
    ]
    retiro = next(r for r in shown if "Retiro" in r.text)
    assert "NOT offered" in retiro.text and retiro.assumed


@pytest.mark.parametrize("game", ["blackjack", "majestic_21"])
def test_art14_dealer_completes_hand_draws_to_17_after_every_box_busted(game: str) -> None:
    """rules.md §1: by default the dealer stops once no hand waits for his total [A]; with
    `dealer_completes_hand` he draws to 17 whatever the boxes hold, and those cards are the round's."""
    cards = "Ts 6c 6h Td Kh 5s"
    hit = [{"seat": 1, "action": "hit"}]
    stops = run(_bj_doc(game, {}, cards, hit))
    completes = run(_bj_doc(game, {"dealer_completes_hand": True}, cards, hit))
    assert stops["dealer"] == {"cards": ["6c", "Td"], "total": 16}
    assert completes["dealer"] == {"cards": ["6c", "Td", "5s"], "total": 21}
    assert stops["players"] == completes["players"] == {"ana": {"staked": 1000, "paid": 0, "net": -1000}}
    assert {"type": "dealer_stands", "total": 21} in completes["events"]
    assert completes["events"][0]["rules"]["dealer_completes_hand"] is True


@pytest.mark.parametrize("game", ["blackjack", "majestic_21"])
def test_art14_dealer_completes_hand_at_a_live_table_the_dealer_is_asked_for_those_cards(game: str) -> None:
    """At a live table the cards are posted by the dealer (a dealer-entered shoe): after the box busts, the
    round's pending step is the dealer's next card, which is what the console asks for; without the
    setting the round is over at once."""
    for completes, finished in ((True, False), (False, True)):
        rules = load_rules(game, {"dealer_completes_hand": completes})
        rnd = round_class(game)(rules, place_bets([RawBet(1, "ana", "main", 1000)], _spec(rules)))
        shoe = DealerEntered(rules.decks)
        for card in parse_cards(["Ts", "6c", "6h", "Td"]):
            shoe.post(rnd, card)
        rnd.apply(rnd.parse_action({"seat": 1, "action": "decline"}))  # the retiro offered against the 6
        rnd.apply(rnd.parse_action({"seat": 1, "action": "hit"}))
        shoe.post(rnd, parse_card("Kh"))  # 26: the box busts
        assert rnd.finished is finished
        if completes:
            assert rnd.pending is not None and rnd.pending.kind == CARD and rnd.pending.to == "dealer"
            assert rnd.view("dealer")["pending"]["to"] == "dealer"
            shoe.post(rnd, parse_card("5s"))
            assert rnd.finished and rnd.result()["dealer"]["total"] == 21


def _spec(rules: Any) -> Any:
    return round_class(rules.game).bet_spec(rules)


def test_the_new_readings_have_their_scenario_files() -> None:
    """Each reading has scenario files that pass through `tapete scenario` (tests/test_scenario_files.py
    checks their outcomes against the hand-written expected files)."""
    names = {p.relative_to(SCENARIOS).as_posix() for p in SCENARIOS.rglob("*.expected.json")}
    for name in (
        "showdown_poker/s0-five-aces-two-decks-paid-as-royal-flush",
        "showdown_poker/s0-flush-holding-a-pair-two-decks",
        "showdown_poker/art12-paytable-pays-more-than-art11",
        "showdown_poker/art12-paytable-below-art11-minimum-refused",
        "showdown_poker/bonus-paytable-above-100000-refused",
        "blackjack/art11-max-splits-zero-refused",
        "blackjack/art14-dealer-completes-hand-after-every-box-busted",
        "majestic_21/art14-dealer-completes-hand-after-every-box-busted",
        "majestic_21/s4-surrender-false-is-a-valid-table",
        "majestic_21/s4-max-splits-zero-refused",
    ):
        assert f"{name}.expected.json" in names
        expected = json.loads((SCENARIOS / f"{name}.expected.json").read_text(encoding="utf-8"))
        code, out = run_file(str(SCENARIOS / f"{name}.json"))
        assert code == (2 if "error" in expected else 0), out
