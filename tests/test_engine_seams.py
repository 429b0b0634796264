"""The round as a service (issue 10): dealing as a step, atomic steps, one typed surface, views by
allow-list and the censor, persistence and resume, for all four games.

Random rounds come from the golden generator's bets and decisions (tests/golden/make_random_rounds.py),
dealt from a seeded virtual shoe, so every property is checked on the same kind of rounds whose outputs
the golden test pins.
"""

from __future__ import annotations

import base64
import copy
import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tapete.cards import NAMES, pack, parse_card, parse_cards
from tapete.dealer import DealerEntered, deal
from tapete.errors import BadCards, BadRequest, IllegalAction, NotWaitingFor, ShoeSealBroken, TapeteError
from tapete.games import round_class
from tapete.games.base import (
    CARD,
    DECLINE,
    Action,
    CardStep,
    Dealt,
    Decision,
    Round,
    Viewer,
    public_copy,
)
from tapete.log import (
    EMPTY_HEAD,
    EventLog,
    FileStore,
    MemoryStore,
    RoundIncomplete,
    canonical,
    chain,
    rebuild,
    recall,
    resume,
    void_incomplete,
)
from tapete.rules import load_rules
from tapete.scenario import run, run_file
from tapete.session import TableSession, make_shoe
from tapete.shoe import SecureRandom, SeededRandom, Shoe, StackedSource, open_shoe, seal_shoe
from tapete.table import RawBet, place_bets
from tests.golden.make_random_rounds import _bets, _decide, _rules

GAMES = ("blackjack", "majestic_21", "punto_y_banca", "showdown_poker")
SCENARIOS = Path(__file__).resolve().parent / "scenarios"
CARD_NAME = re.compile(r"^[A2-9TJQK][shdc]$")


# ---------------------------------------------------------------------------------------------- helpers
def random_table(game: str, r: random.Random, *, decks: int | None = None) -> tuple[Any, list[Any]]:
    """Random settings and bets the table accepts (one deck when `decks` is 1: every card unique)."""
    while True:
        data = _rules(game, r)
        if decks is not None:
            data["decks"] = decks
        rules = load_rules(game, data, regulation=decks is None)
        bets = _bets(game, r)
        try:
            boxes = place_bets(
                [RawBet(b["seat"], b["player"], b["spot"], b["amount"]) for b in bets],
                round_class(game).bet_spec(rules),
            )
        except TapeteError:
            continue
        return rules, boxes


class Played:
    """A round played whole from a seeded shoe: the shoe's snapshot before it, the cards out of the shoe
    before the deal (the burn), every step taken, the events each step handed out."""

    def __init__(self, game: str, seed: int, *, decks: int | None = None) -> None:
        r = random.Random(seed)
        self.rules, self.boxes = random_table(game, r, decks=decks)
        self.cls = round_class(game)
        self.shoe = make_shoe(self.rules, SeededRandom(seed), live=False)
        self.snapshot = self.shoe.snapshot()
        self.burned = [parse_card(c) for e in self.shoe.events if e.get("step") == "burn" for c in e["cards"]]
        self.rnd = self.cls(self.rules, self.boxes)
        self.steps: list[Any] = []
        self.by_step: list[list[dict[str, Any]]] = [list(self.rnd.events)]
        self.opening = len(self.rnd.events)
        self.states: list[Round] = []
        while self.rnd.pending is not None:
            p = self.rnd.pending
            step = Dealt(self.shoe.draw()) if p.kind == CARD else _decide(game, self.rnd, r)[0]
            self.steps.append(step)
            self.by_step.append(self.rnd.apply(step))
        self.events = self.rnd.events


def card_names(obj: Any) -> list[str]:
    """Every card name in a JSON-shaped object."""
    if isinstance(obj, str):
        return [obj] if CARD_NAME.match(obj) else []
    if isinstance(obj, dict):
        return [n for v in obj.values() for n in card_names(v)]
    if isinstance(obj, list | tuple):
        return [n for v in obj for n in card_names(v)]
    return []


def snapshot_state(rnd: Round) -> Any:
    """Everything a round holds (its own attributes, deep), to show a refused step changed nothing."""
    return copy.deepcopy({k: v for k, v in vars(rnd).items() if not callable(v) and k != "rules"})


# ---------------------------------------------------------------------------- resume at every point
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 2**32 - 1))
def test_resume_at_every_point_ends_as_the_uninterrupted_round(game: str, seed: int) -> None:
    """Cut the log after every event: the round rebuilt from those events alone, its owed events
    appended, and continued from the shoe restored from its sealed order (each logged card checked
    against it) ends exactly as the uninterrupted round: same events, same result, same hash chain."""
    full = Played(game, seed)
    events = full.events
    whole = MemoryStore()
    for evs in full.by_step:
        whole.append("t", 1, evs)
    for k in range(1, len(events) + 1):
        prefix = [json.loads(json.dumps(e)) for e in events[:k]]  # what a store gives back
        if k < full.opening:  # the opening is written whole (one write, one transaction)
            with pytest.raises(RoundIncomplete):
                resume(prefix)
            continue
        rnd, owed = resume(prefix)
        store = MemoryStore()
        store.append("t", 1, prefix)
        store.append("t", 1, owed)
        out = [*full.burned, *(parse_card(e["card"]) for e in rnd.events if e["type"] == CARD)]
        shoe = Shoe.restore(full.snapshot, SeededRandom(0), out)
        taken = sum(1 for e in rnd.events if full.cls.step_from_event(e) is not None)
        for step in full.steps[taken:]:
            if isinstance(step, Dealt):
                store.append("t", 1, rnd.apply(Dealt(shoe.draw())))
            else:
                store.append("t", 1, rnd.apply(step))
        assert canonical(rnd.events) == canonical(events), k
        assert canonical(rnd.result()) == canonical(full.rnd.result()), k
        assert store.head("t") == whole.head("t"), k
        assert list(store.records("t")) == list(whole.records("t")), k


def test_a_torn_opening_is_voided_with_every_logged_stake_returned() -> None:
    full = Played("blackjack", 7)
    cut = full.events[: full.opening - 1]
    voided = void_incomplete(cut, "the opening was not recorded whole")
    staked = sum(e["amount"] for e in cut if e["type"] == "stake")
    assert voided[0]["type"] == "round_voided"
    assert sum(voided[0]["returned"].values()) == staked
    assert all(p["net"] == 0 for p in voided[1]["players"].values())
    assert voided[1]["house"] == {"net": 0, "commission": 0}


def test_restoring_a_shoe_checks_each_logged_card() -> None:
    full = Played("blackjack", 11)
    out = [*full.burned, *(parse_card(e["card"]) for e in full.events if e["type"] == CARD)]
    assert Shoe.restore(full.snapshot, SeededRandom(0), out).remaining == full.shoe.remaining
    wrong = list(out)
    wrong[-1] = next(c for c in range(52) if c != wrong[-1])
    with pytest.raises(BadCards) as exc:
        Shoe.restore(full.snapshot, SeededRandom(0), wrong)
    assert exc.value.key == "err.cards.snapshot_differs" and exc.value.at == len(out) - 1


def test_sealed_shoe_opens_only_with_its_key_and_context() -> None:
    shoe = Shoe(6, SecureRandom(), cut_card_depth=78, burn=1, live=True)
    key = bytes(range(32))
    sealed = seal_shoe(shoe.snapshot(), key, "table:1:shuffle:1")
    raw = base64.urlsafe_b64decode(sealed)
    order = json.dumps(shoe.snapshot()["order"], separators=(",", ":")).encode()
    # nothing of the plain snapshot shows: neither its keys nor its order (too long to occur by chance)
    assert b'"order"' not in raw and order not in raw and order[:24] not in raw
    assert open_shoe(sealed, key, "table:1:shuffle:1") == shoe.snapshot()
    for bad_key, context in ((bytes(32), "table:1:shuffle:1"), (key, "table:2:shuffle:1")):
        with pytest.raises(ShoeSealBroken):
            open_shoe(sealed, bad_key, context)
    tampered = sealed[:-4] + ("AAAA" if sealed[-4:] != "AAAA" else "BBBB")
    with pytest.raises(ShoeSealBroken):
        open_shoe(tampered, key, "table:1:shuffle:1")
    burned = [parse_card(c) for e in shoe.events if e.get("step") == "burn" for c in e["cards"]]
    restored = Shoe.restore(open_shoe(sealed, key, "table:1:shuffle:1"), SecureRandom(), burned, live=True)
    assert [restored.draw() for _ in range(10)] == [shoe.draw() for _ in range(10)]


def test_a_lost_shoe_is_recovered_by_reshuffling_what_is_still_in_it() -> None:
    shoe = Shoe(6, SeededRandom(3), cut_card_depth=78, burn=1)
    burned = [parse_card(c) for e in shoe.events if e.get("step") == "burn" for c in e["cards"]]
    out = [*burned, *(shoe.draw() for _ in range(60))]
    again = Shoe.recover(6, SecureRandom(), out, cut_card_depth=78, burn=1, live=True)
    assert again.remaining == shoe.remaining
    assert Counter(again.draw() for _ in range(again.remaining)) == Counter(pack(6)) - Counter(out)
    event = again.events[0]
    assert event["type"] == "shoe_recovered" and event["undealt"] == 312 - 61
    assert event["generator"] == "secure"
    rest = list((Counter(pack(6)) - Counter(out)).elements())
    early = Shoe.recover(6, SecureRandom(), [*out, *rest[:173]], cut_card_depth=78)
    assert not early.cut_card_out  # 234 out, the cut card 78 from the end: 234 may go before it
    late = Shoe.recover(6, SecureRandom(), [*out, *rest[:174]], cut_card_depth=78)
    assert late.cut_card_out
    with pytest.raises(BadCards):
        Shoe.recover(1, SecureRandom(), [0, 0], cut_card_depth=None)


# ------------------------------------------------------------------------------------------- no leak
def known_cards(rnd: Any, viewer: Viewer) -> set[str]:
    """What `viewer` may know of the table now, by the regulation (one-deck rounds: names are unique)."""
    game = rnd.GAME
    names: set[str] = set()
    if game in ("blackjack", "majestic_21"):
        for box in rnd.boxes:
            for hand in box.hands:
                names |= {NAMES[c] for c in hand.cards}
        dealt = sum(1 for e in rnd.events if e["type"] == CARD)
        deal_done = dealt >= 2 * len(rnd.boxes) + 2
        dealer = rnd.dealer
        if dealer and deal_done:
            names.add(NAMES[dealer[0]])
        if len(dealer) > 1 and any(e["type"] == "hole_card" for e in rnd.events):
            names.add(NAMES[dealer[1]])
        names |= {NAMES[c] for c in dealer[2:]}
    elif game == "punto_y_banca":
        names = {NAMES[c] for c in rnd.punto + rnd.banca}
    else:
        names |= {NAMES[c] for c in rnd.community[: rnd.shown]}
        for s in rnd.seats:
            if viewer.role == "player" and s.player == viewer.name:
                names |= {NAMES[c] for c in s.dealt + s.replacements}
            elif rnd.finished:
                names |= {NAMES[c] for c in s.cards}
        if rnd.finished:
            names |= {NAMES[c] for c in rnd.community}
    return names


def viewers_of(rnd: Any) -> list[Viewer]:
    players = {e["player"] for e in rnd.events if e["type"] == "stake"}
    return [*(Viewer("player", p) for p in sorted(players)), Viewer("spectator"), Viewer("dealer")]


@settings(max_examples=60, deadline=None)
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 2**32 - 1))
def test_no_view_and_no_censored_event_holds_a_card_not_shown_to_the_viewer(game: str, seed: int) -> None:
    """One-deck rounds (every card unique): after every step, for every player, a spectator and the
    dealer, no card in his view or in the censored events so far is one the table has not shown him
    (the hole card, another Showdown player's cards and discards, an undealt card, the shoe order)."""
    full = Played(game, seed, decks=1)
    cls = full.cls
    rnd = cls(full.rules, full.boxes)
    every = {NAMES[c] for c in range(52)}
    for step in [None, *full.steps]:
        if step is not None:
            rnd.apply(step)
        for viewer in viewers_of(rnd):
            hidden = every - known_cards(rnd, viewer)
            view = rnd.view(viewer)
            assert not set(card_names(view)) & hidden, (viewer, set(card_names(view)) & hidden)
            censored = cls.censor(rnd.events, viewer)
            assert not set(card_names(censored)) & hidden, (viewer, set(card_names(censored)) & hidden)
            assert "events" not in view
    assert set(card_names(rnd.view("inspector"))) >= {e["card"] for e in rnd.events if e["type"] == CARD}


def test_censor_is_an_allow_list() -> None:
    assert public_copy({"type": "shoe_order", "order": ["As"]}) is None  # unknown kinds never pass
    burn = public_copy({"type": "procedure", "step": "burn", "cards": ["As", "Kd"]})
    assert burn == {"type": "procedure", "step": "burn", "cards": ["??", "??"]}
    assert public_copy({"type": "stake", "seat": 1, "player": "a", "spot": "main", "amount": 5, "x": 1}) == {
        "type": "stake",
        "seat": 1,
        "player": "a",
        "spot": "main",
        "amount": 5,
    }


def test_views_share_keys_across_games() -> None:
    for game in GAMES:
        full = Played(game, 5)
        view = full.rnd.view("spectator")
        assert {"game", "round", "viewer", "seats", "finished", "voided", "pending"} <= set(view), game
        assert all({"seat", "holder"} <= set(s) for s in view["seats"]), game


# ------------------------------------------------------------------- dealer-entered = the scenario
def _scenario_files() -> list[Path]:
    return sorted(p for p in SCENARIOS.rglob("*.json") if not p.name.endswith(".expected.json"))


@pytest.mark.parametrize("path", _scenario_files(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_round_dealt_card_by_card_by_the_dealer_equals_the_scenario(path: Path) -> None:
    """Every scenario file of the repository, its cards posted one by one through a dealer-entered
    shoe (each checked against the pack as it arrives): the same outcome, or the same refusal."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    try:
        want: Any = run(doc)
    except TapeteError as exc:
        want = exc.to_json()
    try:
        got: Any = run(doc, dealer_entered=True)
    except TapeteError as exc:
        got = exc.to_json()
    assert got == want


def test_dealer_entered_refuses_a_card_the_pack_cannot_hold_and_changes_nothing() -> None:
    rules = load_rules("blackjack", {"decks": 4})
    rnd = round_class("blackjack")(
        rules, place_bets([RawBet(1, "ana", "main", 1000)], _spec("blackjack", rules))
    )
    shoe = DealerEntered(4)
    for _ in range(4):
        shoe.post(rnd, parse_card("As")) if rnd.pending is not None and rnd.pending.kind == CARD else None
    before = snapshot_state(rnd)
    with pytest.raises(BadCards) as exc:
        shoe.post(rnd, parse_card("As"))  # a fifth Ace of spades from four decks
    assert exc.value.key == "err.cards.too_many"
    assert snapshot_state(rnd) == before and shoe.dealt == 4
    event = shoe.signal_cut_card()
    assert shoe.cut_card_out and event == {"type": "cut_card_out", "dealt": 4, "by": "dealer"}
    shoe.shuffled()
    assert shoe.dealt == 0 and not shoe.cut_card_out


def _spec(game: str, rules: Any) -> Any:
    return round_class(game).bet_spec(rules)


def test_live_table_takes_a_dealer_entered_shoe() -> None:
    session = TableSession("blackjack", live=True, source=DealerEntered(6))
    rnd = session.current
    assert rnd is None and session.live


# ------------------------------------------------------------------------------------- atomic steps
def _refusals(rnd: Any) -> list[Any]:
    """Steps of every kind that the round must refuse now."""
    p = rnd.pending
    out: list[Any] = [Dealt(99), Dealt(-1), Dealt("As"), Dealt(1, True)]  # type: ignore[arg-type]
    if p is None:
        return [*out, Dealt(0), Action(1, "stand")]
    if p.kind == CARD:
        return [*out, Action(p.seat or 1, "stand"), Action(1, DECLINE)]
    other = 1 + p.seat % 7
    return [
        *out,
        Dealt(0),
        Action(other, p.legal[0]),
        Action(p.seat, "fly"),
        Action(p.seat, p.legal[0], hand=9),
        Action(p.seat, "double", amount=10**9),
        Action(p.seat, "exchange", cards=(99,)),
        Action(p.seat, "increment_1", amount=1),
    ]


@settings(max_examples=40, deadline=None)
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 2**32 - 1))
def test_every_refused_step_leaves_the_round_exactly_as_it_was(game: str, seed: int) -> None:
    """At every point of random rounds: an illegal decision (IllegalAction), a step of the wrong kind
    (NotWaitingFor), a card that is no card or exposed where it cannot be (BadCards, IllegalAction), a
    shoe that runs out, a void with no reason: each refused, and nothing in the round changed."""
    full = Played(game, seed)
    rnd = full.cls(full.rules, full.boxes)
    for step in [None, *full.steps]:
        if step is not None:
            rnd.apply(step)
        before = snapshot_state(rnd)
        for bad in _refusals(rnd):
            if rnd.can(bad):
                continue
            with pytest.raises((IllegalAction, BadCards)):
                rnd.apply(bad)
            assert snapshot_state(rnd) == before, bad
        if rnd.pending is not None and rnd.pending.kind == CARD:
            with pytest.raises(BadCards):
                deal(rnd, StackedSource([], full.rules.decks))  # the shoe runs out
            assert snapshot_state(rnd) == before
        if not rnd.finished:
            with pytest.raises(BadRequest):
                rnd.void("  ")
            assert snapshot_state(rnd) == before


def test_a_finished_round_refuses_cards_decisions_and_a_void() -> None:
    rnd = Played("punto_y_banca", 2).rnd
    before = snapshot_state(rnd)
    for bad in (Dealt(0), Action(1, "stand")):
        with pytest.raises(IllegalAction):
            rnd.apply(bad)
    with pytest.raises(NotWaitingFor):
        rnd.void("too late")
    assert snapshot_state(rnd) == before


# ----------------------------------------------------------------------------------- typed surface
def test_action_json_is_the_same_in_every_game() -> None:
    exchange = Action(2, "exchange", cards=tuple(parse_cards(["As", "Kd"])))
    assert exchange.to_json() == {"seat": 2, "action": "exchange", "cards": ["As", "Kd"]}
    assert Action.from_json(exchange.to_json()) == exchange
    double = Action(1, "double", hand=1, amount=500)
    assert Action.from_json(double.to_json()) == double
    for game, entry in (
        ("blackjack", {"seat": 1, "action": "double", "hand": 1, "amount": 500}),
        ("majestic_21", {"seat": 3, "action": "insurance", "amount": 50}),
        ("showdown_poker", {"seat": 2, "action": "exchange", "cards": ["As", "Kd"]}),
        ("showdown_poker", {"seat": 2, "action": "increment_1"}),
    ):
        action = round_class(game).parse_action(entry)
        assert type(action) is Action and action.to_json() == entry


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=150, deadline=None)
@given(
    entry=st.one_of(
        st.none(),
        st.integers(),
        st.text(),
        st.dictionaries(
            st.sampled_from(["seat", "action", "hand", "amount", "cards", "x"]),
            st.one_of(
                st.none(),
                st.booleans(),
                st.integers(-3, 9),
                st.floats(allow_nan=False),
                st.sampled_from(["hit", "stand", "double", "exchange", "increment_1", "As", ""]),
                st.lists(st.sampled_from(["As", "Kd", "Zz", 3])),
                st.dictionaries(st.text(max_size=2), st.integers()),
            ),
        ),
    )
)
def test_untrusted_action_input_raises_only_the_typed_errors(game: str, entry: Any) -> None:
    """Any JSON at all as an action: an Action or BadRequest / IllegalAction, never KeyError/TypeError."""
    try:
        action = round_class(game).parse_action(entry)
    except (BadRequest, IllegalAction):
        return
    assert type(action) is Action and isinstance(action.seat, int) and not isinstance(action.seat, bool)


def test_missing_or_mistyped_seat_and_action_are_bad_requests() -> None:
    for entry in (
        {},
        {"seat": 1},
        {"action": "hit"},
        {"seat": "1", "action": "hit"},
        {"seat": True, "action": "hit"},
    ):
        for game in GAMES:
            with pytest.raises(BadRequest):
                round_class(game).parse_action(entry)
    with pytest.raises(BadRequest):
        Dealt.from_json({"cards": "As"})
    with pytest.raises(BadCards):
        Dealt.from_json({"card": "Zz"})
    with pytest.raises(BadCards):
        Dealt.from_json({"card": "10d"})  # the notation only (rules.md): T, not 10
    assert Dealt.from_json({"card": "Td", "exposed": True}) == Dealt(parse_card("Td"), True)


@pytest.mark.parametrize("game", GAMES)
def test_default_action_stands_on_a_play_decision_and_declines_an_offer(game: str) -> None:
    for seed in range(40):
        full = Played(game, seed)
        rnd = full.cls(full.rules, full.boxes)
        for step in full.steps:
            p = rnd.pending
            if isinstance(p, Decision):
                answer = rnd.default_action()
                if p.kind == "play":
                    assert answer == Action(p.seat, "stand", p.hand)
                else:
                    assert answer == Action(p.seat, DECLINE)
                assert rnd.can(answer)
            else:
                with pytest.raises(NotWaitingFor):
                    rnd.default_action()
            rnd.apply(step)


def test_chips_for_says_what_a_step_takes_from_the_holder_before_it_is_applied() -> None:
    bj = round_class("blackjack")
    rules = load_rules("blackjack", {})
    boxes = place_bets([RawBet(1, "ana", "main", 1000)], bj.bet_spec(rules))
    rnd = bj(rules, boxes)
    deal(rnd, StackedSource(parse_cards(["8s", "9h", "8d", "7c", "3s", "3d"]), 6))
    rnd.apply(Action(1, DECLINE))  # surrender offer
    assert rnd.chips_for(Action(1, "double")) == 1000
    assert rnd.chips_for(Action(1, "double", amount=400)) == 400
    assert rnd.chips_for(Action(1, "split")) == 1000
    assert rnd.chips_for(Action(1, "hit")) == 0
    with pytest.raises(IllegalAction):
        rnd.chips_for(Action(1, "insurance"))  # a 9 up: no insurance
    m21 = round_class("majestic_21")
    rules21 = load_rules("majestic_21", {})
    rnd = m21(rules21, place_bets([RawBet(1, "ana", "main", 1000)], m21.bet_spec(rules21)))
    deal(rnd, StackedSource(parse_cards(["8s", "As", "8d", "7c"]), 6))
    assert rnd.pending.kind == "insurance"
    assert rnd.chips_for(Action(1, "insurance")) == 500
    assert rnd.chips_for(Action(1, "insurance", amount=120)) == 120
    sd = round_class("showdown_poker")
    rules_sd = load_rules("showdown_poker", {})
    bets = [RawBet(1, "ana", "bet", 300), RawBet(1, "ana", "pot", 100)]
    rnd = sd(rules_sd, place_bets(bets, sd.bet_spec(rules_sd)))
    deal(rnd, StackedSource(pack(1), 1))
    assert rnd.chips_for(Action(1, "exchange", cards=())) == 0
    rnd.apply(Action(1, DECLINE))
    assert rnd.chips_for(Action(1, "increment_1")) == 300


# --------------------------------------------------------------------------------- Art.8 exposure
@pytest.mark.parametrize("game", ["blackjack", "majestic_21"])
def test_art8_second_card_exposed_by_error_is_the_up_card(game: str) -> None:
    """BJ Art.8 (M21 the same): the dealer's second card exposed by error is the up-card; his first card
    stays face down as the hole card, and the round plays on from there."""
    cls = round_class(game)
    rules = load_rules(game, {})
    rnd = cls(rules, place_bets([RawBet(1, "ana", "main", 1000)], cls.bet_spec(rules)))
    shoe = DealerEntered(6)
    for name in ("Ts", "Kh", "7d"):  # box, dealer's first, box
        shoe.post(rnd, parse_card(name))
    assert rnd.pending == CardStep("dealer", face="down", position=1)
    shoe.post(rnd, parse_card("6c"), exposed=True)
    assert NAMES[rnd.dealer[0]] == "6c" and rnd.exposed
    kinds = [e["type"] for e in rnd.events[-2:]]
    assert kinds == ["card", "up_card"] and rnd.events[-2]["exposed"] is True
    for viewer in ("player:ana", "spectator", "dealer"):
        assert rnd.view(viewer)["dealer"] == ["6c", "??"]
        assert "Kh" not in card_names(cls.censor(rnd.events, viewer))
    assert rnd.view("inspector")["dealer"] == ["6c", "Kh"]
    assert rnd.pending.kind == "surrender"  # a 6 up: the retiro is offered (Art.9)
    rnd.apply(Action(1, DECLINE))
    rnd.apply(Action(1, "stand"))
    shoe.post(rnd, parse_card("2h"))  # 6 + K = 16 draws; 18 stands
    assert rnd.finished and rnd.result()["dealer"]["cards"] == ["6c", "Kh", "2h"]
    assert any(e == {"type": "hole_card", "card": "Kh"} for e in rnd.events)
    assert "Kh" in card_names(cls.censor(rnd.events, "player:ana"))  # turned: now shown
    rebuilt, same = recall(rnd.events)
    assert same and rebuilt.result() == rnd.result()


def test_art8_only_the_dealers_second_card_can_be_exposed() -> None:
    cls = round_class("blackjack")
    rules = load_rules("blackjack", {})
    rnd = cls(rules, place_bets([RawBet(1, "ana", "main", 1000)], cls.bet_spec(rules)))
    for _ in range(2):
        before = snapshot_state(rnd)
        with pytest.raises(IllegalAction) as exc:
            rnd.apply(Dealt(parse_card("5s"), True))
        assert exc.value.key == "err.step.exposed" and snapshot_state(rnd) == before
        rnd.apply(Dealt(parse_card("5s")))


# ------------------------------------------------------------------------------------------ the void
@pytest.mark.parametrize("game", GAMES)
def test_a_voided_round_returns_every_stake(game: str) -> None:
    full = Played(game, 21)
    rnd = full.cls(full.rules, full.boxes)
    for step in full.steps[: len(full.steps) // 2]:
        rnd.apply(step)
    events = rnd.void("the shoe reader failed")
    assert events[0]["type"] == "round_voided" and events[0]["reason"] == "the shoe reader failed"
    assert events[0]["returned"] == rnd.staked
    assert all(p["net"] == 0 and p["paid"] == p["staked"] for p in events[1]["players"].values())
    assert rnd.finished and rnd.voided and rnd.pending is None
    out = rnd.result()
    assert out["voided"] is True and out["house"] == {"net": 0, "commission": 0}
    assert rnd.view("spectator")["voided"] is True
    rebuilt, same = recall(rnd.events)
    assert same and rebuilt.voided


# ------------------------------------------------------------------------------ Punto y Banca's coup
def test_punto_y_banca_coup_is_dealt_card_by_card_with_each_rule_as_it_decides() -> None:
    cls = round_class("punto_y_banca")
    rules = load_rules("punto_y_banca", {})
    rnd = cls(rules, place_bets([RawBet(1, "ana", "punto", 1000)], cls.bet_spec(rules)))
    seen = []
    for name in ("2s", "3h", "Kd", "4c", "6d", "Qs"):  # Punto 2, Banca 7 ... Punto draws a 6
        seen.append(rnd.pending.to)
        rnd.apply(Dealt(parse_card(name)))
        if rnd.finished:
            break
    assert seen == ["punto", "banca", "punto", "banca", "punto"]
    steps = [(e["side"], e["type"], e["rule"]) for e in rnd.events if e["type"] in ("draw", "stand")]
    assert steps == [("punto", "draw", "punto_0_5"), ("banca", "stand", "punto_third")]
    assert rnd.finished and rnd.winner == "punto"


# ------------------------------------------------------------------------------- what a review found
def test_showdown_two_decks_exchange_one_of_two_identical_cards_is_one_card() -> None:
    """With two decks a hand may hold two Ah: exchanging one gives up one card, by position, and deals
    one replacement (it used to give up both and deal two)."""
    cls = round_class("showdown_poker")
    rules = load_rules("showdown_poker", {"decks": 2}, regulation=False)
    bets = [RawBet(1, "ana", "bet", 100), RawBet(1, "ana", "pot", 100)]
    rnd = cls(rules, place_bets(bets, cls.bet_spec(rules)))
    # seat card, community 1, seat card, community 2, seat card, then the replacement
    deal(rnd, StackedSource(parse_cards(["Ah", "2c", "Ah", "3d", "9s", "Kd"]), 2))
    rnd.apply(Action(1, "exchange", cards=(parse_card("Ah"),)))
    deal(rnd, StackedSource(parse_cards(["Kd"]), 2))
    seat = rnd.seats[0]
    assert [NAMES[c] for c in seat.cards] == ["Kd", "Ah", "9s"]
    assert [NAMES[c] for c in seat.discarded] == ["Ah"]
    offer = next(e for e in rnd.events if e["type"] == "offer")
    assert offer["cards"] == ["Ah"]
    assert sum(1 for e in rnd.events if e.get("replaces")) == 1
    both = cls(rules, place_bets(bets, cls.bet_spec(rules)))
    deal(both, StackedSource(parse_cards(["Ah", "2c", "Ah", "3d", "9s", "Kd", "Qc"]), 2))
    both.apply(Action(1, "exchange", cards=(parse_card("Ah"), parse_card("Ah"))))
    deal(both, StackedSource(parse_cards(["Kd", "Qc"]), 2))
    assert [NAMES[c] for c in both.seats[0].cards] == ["Kd", "Qc", "9s"]


def test_writing_into_a_result_or_an_event_changes_no_later_round() -> None:
    """Events, results and the cached settings used to share dicts: writing into an event changed the
    decks recorded by every later round. The settings are frozen and what leaves the engine is a copy."""
    doc = json.loads((SCENARIOS / "examples" / "blackjack-split-and-double.json").read_text())
    first = run(doc)
    first["events"][0]["rules"]["decks"] = 99
    first["events"][-1]["players"].clear()
    second = run(doc)
    assert second["events"][0]["rules"]["decks"] == doc["rules"].get("decks", 6)
    assert second["events"][-1]["players"]
    rules = load_rules("blackjack", {})
    with pytest.raises(TypeError):
        rules.settings()["decks"] = 4
    session = TableSession("blackjack", {}, live=False, rng=SeededRandom(1))
    rnd = session.start_round([RawBet(1, "ana", "main", 1000)])
    with pytest.raises(TypeError):
        rnd.events[0]["rules"]["decks"] = 4
    view = rnd.view("inspector")
    view["events"][0]["round"] = 77
    assert rnd.events[0]["round"] == 1
    store = MemoryStore()
    ev = {"type": "bets_closed"}
    store.append("t", 1, [ev])
    ev["type"] = "edited"
    assert next(store.records("t"))["event"] == {"type": "bets_closed"}


def test_a_reopened_log_numbers_the_next_round_after_the_last(tmp_path: Path) -> None:
    """Reopening a log and playing on numbered the rounds wrongly: shoe-N records counted as rounds."""
    path = tmp_path / "table.jsonl"
    for expected in ((1, 2), (3, 4)):
        session = TableSession("punto_y_banca", {}, live=False, rng=SeededRandom(4), log=path)
        for n in expected:
            rnd = session.start_round([RawBet(1, "ana", "banca", 1000)])
            assert rnd.round_id == n
            session.finish_round()
    rounds = [r for r in EventLog(path).rounds() if isinstance(r, int)]
    assert rounds == [1, 2, 3, 4]


def test_error_json_carries_the_message_key_and_params(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(
        json.dumps(
            {
                "game": "blackjack",
                "rules": {},
                "cards": ["Ts", "9h", "9c", "Kc"],
                "bets": [{"seat": 9, "player": "ana", "spot": "main", "amount": 1000}],
                "actions": [],
            }
        )
    )
    code, doc = run_file(str(path))
    assert code == 2
    assert doc == {
        "error": {
            "code": "bad_bet",
            "message": "unknown seat 9: seats are 1 to 7",
            "at": 0,
            "key": "err.bet.seat",
            "params": {"seat": 9, "seats": 7},
        }
    }


def test_round_started_carries_the_schema_and_engine_version() -> None:
    from tapete import __version__

    for game in GAMES:
        started = Played(game, 1).events[0]
        assert started["type"] == "round_started"
        assert started["schema"] == 2 and started["engine"] == __version__


# ------------------------------------------------------------------------------------------- stores
def test_file_store_reads_a_head_from_the_last_line_only(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    store.append("t7", 1, [{"type": "a"}, {"type": "b"}])
    store.append("t7", "shoe-1", [{"type": "c"}])
    store.append("t8", 1, [{"type": "x"}])
    assert (tmp_path / "t7.jsonl").exists() and (tmp_path / "t8.jsonl").exists()
    head = FileStore(tmp_path).head("t7")
    assert head.seq == 3 and head.round == 1
    # A head needs only the last record: with the whole-file check off, garbage before it is not read.
    path = tmp_path / "t7.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(["not json"] * 5 + lines[-1:]) + "\n")
    fast = FileStore(tmp_path, verify=False)
    assert fast.head("t7").hash == head.hash
    from tapete.errors import BadFile

    with pytest.raises(BadFile):
        FileStore(tmp_path).head("t7")  # the checked open refuses a broken chain


def test_stores_chain_one_head_per_table() -> None:
    store = MemoryStore()
    a = store.append("a", 1, [{"type": "x"}])
    b = store.append("b", 1, [{"type": "x"}])
    assert a[0]["seq"] == b[0]["seq"] == 0 and a[0]["hash"] == b[0]["hash"]
    records, _, head = chain(EMPTY_HEAD, 1, [{"type": "x"}])
    assert head.hash == store.head("a").hash == records[-1]["hash"]


def test_rebuild_stops_where_the_events_stop_and_waits_for_the_next_step() -> None:
    full = Played("showdown_poker", 3)
    for k in (full.opening, full.opening + 1, len(full.events) // 2):
        rnd = rebuild(full.events[:k])
        assert canonical(rnd.events[:k]) == canonical(full.events[:k])
        assert not rnd.finished
