"""A live table uses only the CSPRNG shoe (or a declared dealer-entered shoe), never logs the shoe order,
and never shows a player the hole card (rules.md §0: procedures of control, CSPRNG; BJ Art.8, 14)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tapete.cards import BJ_VALUE, NAMES, parse_cards
from tapete.errors import LiveTableRefused
from tapete.games.blackjack import PLAY, Action
from tapete.rules import load_rules
from tapete.session import TableSession
from tapete.shoe import SecureRandom, SeededRandom, Shoe, StackedSource, check_live_source
from tapete.table import RawBet

CARD_NAMES = frozenset(NAMES)


def card_strings(obj: Any) -> Iterator[str]:
    """Every string anywhere in `obj` (events, records, views) that is a card's name."""
    if isinstance(obj, str):
        if obj in CARD_NAMES:
            yield obj
    elif isinstance(obj, dict):
        for key, value in obj.items():
            yield from card_strings(key)
            yield from card_strings(value)
    elif isinstance(obj, list | tuple):
        for item in obj:
            yield from card_strings(item)


def play_out(session: TableSession) -> None:
    """Decline every offer and stand on every hand: the round runs to the dealer's turn."""
    rnd = session.current
    assert rnd is not None
    while rnd.pending is not None:
        d = rnd.pending
        session.apply(Action(d.seat, "stand", hand=d.hand) if d.kind == PLAY else rnd.decline(d))


def bets(boxes: int = 1) -> list[RawBet]:
    return [RawBet(seat, f"p{seat}", "main", 1000) for seat in range(1, boxes + 1)]


STACK = parse_cards(["9h", "6d", "7c", "Ks", "2c", "3c", "4c", "5c"])


# ---------------------------------------------------------------------------------------------------
# Which card sources a live table takes.


def test_live_table_refuses_a_seeded_generator() -> None:
    with pytest.raises(LiveTableRefused, match="CSPRNG"):
        TableSession("blackjack", live=True, rng=SeededRandom(2024))


def test_live_table_refuses_a_seeded_shoe_given_as_source() -> None:
    shoe = Shoe(6, SeededRandom(2024), cut_card_depth=78, live=False)
    with pytest.raises(LiveTableRefused, match="seeded"):
        TableSession("blackjack", live=True, source=shoe)


def test_live_table_refuses_a_stacked_source() -> None:
    with pytest.raises(LiveTableRefused, match="dealer-entered"):
        TableSession("blackjack", live=True, source=StackedSource(STACK, 6))


def test_live_table_accepts_a_declared_dealer_entered_shoe() -> None:
    session = TableSession("blackjack", live=True, source=StackedSource(STACK, 6, dealer_entered=True))
    rnd = session.start_round(bets())
    play_out(session)
    assert rnd.finished
    assert [c for c in card_strings(rnd.events)][:4] == ["9h", "6d", "7c", "Ks"]


def test_live_is_the_default_and_shuffles_with_the_csprng() -> None:
    session = TableSession("blackjack")
    assert session.live
    assert isinstance(session.source, Shoe)
    assert isinstance(session.source.rng, SecureRandom)
    shuffles = [r["event"] for r in session.log.records if r["event"].get("step") == "shuffle"]
    assert shuffles == [{"type": "procedure", "step": "shuffle", "generator": "secure"}]


def test_simulation_table_takes_seeded_and_stacked_sources() -> None:
    """The refusals above are the live guard, not a general one: simulations, tests and replay may."""
    seeded = TableSession("blackjack", live=False, rng=SeededRandom(1))
    assert seeded.source.kind == "seeded"
    stacked = TableSession("blackjack", live=False, source=StackedSource(STACK, 6))
    assert stacked.source.kind == "stacked"


def test_shoe_refuses_a_seeded_generator_when_live() -> None:
    with pytest.raises(LiveTableRefused):
        Shoe(6, SeededRandom(7), cut_card_depth=78, live=True)
    assert Shoe(6, SecureRandom(), cut_card_depth=78, live=True).kind == "secure"


@pytest.mark.parametrize(
    ("source", "allowed"),
    [
        (Shoe(6, SecureRandom(), cut_card_depth=78), True),
        (Shoe(6, SeededRandom(3), cut_card_depth=78), False),
        (StackedSource(STACK, 6), False),
        (StackedSource(STACK, 6, dealer_entered=True), True),
    ],
    ids=["csprng-shoe", "seeded-shoe", "stacked", "dealer-entered"],
)
def test_check_live_source(source: Any, allowed: bool) -> None:
    check_live_source(source, live=False)  # anything goes off the live floor
    if allowed:
        check_live_source(source, live=True)
    else:
        with pytest.raises(LiveTableRefused):
            check_live_source(source, live=True)


# ---------------------------------------------------------------------------------------------------
# The shoe order is never written down.


def test_shoe_events_name_only_the_burned_cards() -> None:
    """One deck, so every name is one card: after shuffle, cut and burn the events name the burned card
    and nothing of the 51 still in the shoe; the same after an Art.6 reshuffle."""
    shoe = Shoe(1, SecureRandom(), cut_card_depth=None, burn=1, live=True)
    (burn,) = [e["cards"] for e in shoe.events if e.get("step") == "burn"]
    assert len(burn) == 1
    assert list(card_strings(shoe.events)) == burn
    start = len(shoe.events)
    shoe.reshuffle()
    (burn2,) = [e["cards"] for e in shoe.events[start:] if e.get("step") == "burn"]
    assert list(card_strings(shoe.events[start:])) == burn2
    assert {e["type"] for e in shoe.events} <= {"new_pack", "procedure"}


def test_shoe_logs_every_procedure_step_with_the_cut_position() -> None:
    """BJ Art.4-5: new pack, inspect, show, turn, mix, shuffle, cut (at, by, cut card depth), load (cut
    card depth), burn (cards)."""
    shoe = Shoe(6, SecureRandom(), cut_card_depth=78, burn=1, live=True)
    steps = [e.get("step", e["type"]) for e in shoe.events]
    assert steps == ["new_pack", "inspect", "show", "turn", "mix", "shuffle", "cut", "load", "burn"]
    cut = shoe.events[6]
    assert isinstance(cut["at"], int) and 40 <= cut["at"] <= 312 - 40
    assert cut["by"] == "dealer" and cut["cut_card_depth"] == 78
    assert shoe.events[7]["cut_card_depth"] == 78


class RecordingShoe(Shoe):
    """The production shoe, noting every card that leaves it through `draw` (test instrument only)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.drawn: list[str] = []
        super().__init__(*args, **kwargs)

    def draw(self) -> int:
        card = super().draw()
        self.drawn.append(NAMES[card])
        return card


def test_live_log_never_names_a_card_still_in_the_shoe() -> None:
    """A one-deck live shoe dealt round after round through the cut card and an Art.6 reshuffle: at every
    point, every card named anywhere in the log has already left the shoe (dealt or burned)."""
    rules = load_rules("blackjack", {"decks": 1}, regulation=False)
    shoe = RecordingShoe(1, SecureRandom(), cut_card_depth=13, burn=1, live=True)
    session = TableSession("blackjack", rules, live=True, source=shoe)
    reshuffles = 0
    since = 0  # index in shoe.drawn where the pack now in the shoe began to be dealt
    for _ in range(40):
        shuffles, start = shoe.shuffles, len(shoe.drawn)
        rnd = session.start_round(bets(2))
        if shoe.shuffles > shuffles:
            reshuffles += 1
            since = start
        play_out(session)
        session.finish_round()
        burned = [e for e in shoe.events if e.get("step") == "burn"][-1]["cards"]
        left = burned + shoe.drawn[since:]
        assert len(left) + shoe.remaining == 52
        still_in = CARD_NAMES - set(left)
        assert len(still_in) == shoe.remaining
        logged = [r["event"] for r in session.log.records[_last_shuffle_record(session) :]]
        assert not set(card_strings(logged)) & still_in
        dealt = list(card_strings([e for e in rnd.events if e["type"] == "card"]))
        assert dealt == shoe.drawn[start:]  # cards are logged exactly as they leave the shoe
    assert reshuffles >= 2


def _last_shuffle_record(session: TableSession) -> int:
    return max(i for i, r in enumerate(session.log.records) if r["event"].get("step") == "shuffle")


def test_shoe_records_in_a_regulation_log_carry_no_card_but_the_burn() -> None:
    """Four decks, seven boxes, through reshuffles: of the shoe's records only the burn names cards, as
    many as the burn setting; every other card in the log is a card event of a round."""
    session = TableSession("blackjack", {"decks": 4, "cut_card_depth": 52, "burn": 2}, live=True)
    for _ in range(25):
        session.start_round(bets(7))
        play_out(session)
        session.finish_round()
    shoe_records = [r for r in session.log.records if str(r["round"]).startswith("shoe-")]
    assert sum(r["event"].get("step") == "shuffle" for r in shoe_records) >= 2
    for record in shoe_records:
        names = list(card_strings(record["event"]))
        assert len(names) == (2 if record["event"].get("step") == "burn" else 0), record
    for record in session.log.records:
        event = record["event"]
        if list(card_strings(event)):
            assert event["type"] in {"card", "hole_card"} or event.get("step") == "burn", event


# ---------------------------------------------------------------------------------------------------
# A player never sees the hole card (BJ Art.8: dealt face down; the dealer does not peek).


def test_art8_player_view_never_holds_the_hole_card() -> None:
    session = TableSession("blackjack", live=True, source=StackedSource(STACK, 6, dealer_entered=True))
    rnd = session.start_round([RawBet(1, "ana", "main", 1000)])
    seen_undecided = 0
    while rnd.pending is not None:
        for viewer in ("player:ana", "player:beto", "dealer"):
            view = rnd.view(viewer)
            assert "Ks" not in set(card_strings(view)), (viewer, view)
            assert view["dealer"] == ["6d", "??"]
            assert view["dealer_total"] == 6  # the total does not give the hole card away either
            assert "events" not in view
        assert rnd.view("inspector")["dealer"] == ["6d", "Ks"]
        seen_undecided += 1
        d = rnd.pending
        session.apply(Action(d.seat, "stand", hand=d.hand) if d.kind == PLAY else rnd.decline(d))
    assert seen_undecided >= 2  # surrender offer, then the play decision
    assert rnd.view("player:ana")["dealer"][:2] == ["6d", "Ks"]  # turned at the dealer's turn (Art.14)


def test_player_views_on_a_live_shoe_hide_the_hole_card() -> None:
    """Random live rounds: until the hole card is turned, a player's view shows '??' in its place and a
    total of the up-card alone, and holds no event."""
    session = TableSession("blackjack", live=True)
    for _ in range(30):
        rnd = session.start_round(bets(3))
        while rnd.pending is not None:
            view = rnd.view("player:p1")
            assert view["dealer"][1] == "??"
            assert len(view["dealer"]) == 2
            assert "events" not in view
            up = BJ_VALUE[parse_cards([view["dealer"][0]])[0]]
            assert view["dealer_total"] == (11 if up == 1 else up)
            d = rnd.pending
            session.apply(Action(d.seat, "stand", hand=d.hand) if d.kind == PLAY else rnd.decline(d))
        session.finish_round()
