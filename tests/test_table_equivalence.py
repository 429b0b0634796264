"""`table.place_bets` rewritten behaves exactly as the version it replaced (`tests/legacy_place_bets.py`):
on random bet lists for every game's bet spec, both return the same boxes (order, holders, stakes and first
indexes) or raise the same error (type, `at`, English message, message id and params, in order).

The suite runs a few hundred random lists; set TAPETE_EQUIVALENCE_EXAMPLES to run more (see the report
of the rewrite for the count run once locally)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tapete.games import round_class
from tapete.rules import load_rules
from tapete.table import BetSpec, Box, RawBet, place_bets
from tests import legacy_place_bets as legacy
from tests.legacy_place_bets import place_bets as legacy_place_bets

EXAMPLES = int(os.environ.get("TAPETE_EQUIVALENCE_EXAMPLES", "300"))

#: (game, settings): each game's spec under its default settings and under the settings that change it.
GAME_SETTINGS: list[tuple[str, dict[str, Any]]] = [
    ("blackjack", {}),
    ("blackjack", {"back_betting": False}),
    ("blackjack", {"max_boxes_per_player": 2, "table_min": 500, "table_max": 2000}),
    ("blackjack", {"max_boxes_per_player": 1}),
    ("majestic_21", {}),
    ("majestic_21", {"side_bet_min": 50, "side_bet_max": 300, "max_boxes_per_player": 3}),
    ("majestic_21", {"back_betting": False, "side_bet_min": 1000}),
    ("punto_y_banca", {}),
    ("punto_y_banca", {"zones": 1}),
    ("punto_y_banca", {"zones": 2}),
    ("punto_y_banca", {"zones": 3, "back_betting": False}),
    ("showdown_poker", {}),
    ("showdown_poker", {"pot_bet": 250, "bonus_min": 50, "bonus_max": 500}),
    ("showdown_poker", {"table_min": 200, "table_max": 300, "pot_bet": 300}),
]


def _game_spec(game: str, data: dict[str, Any]) -> BetSpec:
    spec: BetSpec = round_class(game).bet_spec(load_rules(game, data))
    return spec


#: Specs no game has today, mixing every option (fixed amounts, exclusive pairs, side and required spots,
#: same-side back-betting, one box per player with back-bettors) on few seats, so that the whole-list
#: checks meet in combinations the four games never make.
SYNTHETIC: list[BetSpec] = [
    BetSpec(
        spots=("a", "b", "c", "d"),
        main_spot="a",
        seats=2,
        back_spots=("a", "b"),
        side_spots=("c",),
        exclusive=(("a", "b"),),
        one_box_per_player=True,
        max_boxes_per_player=1,
        limits=lambda spot: (50, 400) if spot == "d" else (100, 1000),
        fixed=lambda spot: 200 if spot == "d" else None,
    ),
    BetSpec(
        spots=("a", "b", "c"),
        main_spot="a",
        seats=3,
        back_spots=("a", "c"),
        side_spots=("b",),
        required_spots=("a",),
        exclusive=(("b", "c"), ("a", "c")),
        back_same_spots=True,
        max_boxes_per_player=2,
        limits=lambda spot: (100, 1000),
        fixed=lambda spot: 300 if spot == "c" else None,
    ),
    BetSpec(
        spots=("a", "b"),
        main_spot="a",
        seats=2,
        back_spots=("a", "b"),
        main_required=False,
        back_same_spots=True,
        max_boxes_per_player=0,
        limits=lambda spot: (1, 10),
    ),
]

SPECS: list[tuple[str, BetSpec]] = [
    *((f"{game} {data}", _game_spec(game, data)) for game, data in GAME_SETTINGS),
    *((f"synthetic {n}", spec) for n, spec in enumerate(SYNTHETIC)),
]

PLAYERS = ("ana", "bob", "cid", "dan", "p1", "p2")
NOT_PLAYERS: tuple[object, ...] = ("", "   ", "\t", None, 7, b"ana")
NOT_SEATS: tuple[object, ...] = (0, -1, 8, 15, 99, True, False, "1", 1.0, None)
OTHER_SPOTS: tuple[object, ...] = (
    "",
    "MAIN",
    "main ",
    "unknown",
    None,
    0,
    "main",
    "punto",
    "bet",
    "pot",
    "banca",
)
NOT_AMOUNTS: tuple[object, ...] = (True, False, 0, -1, -500, 1.5, 100.0, "100", None, 10**13)


def _amounts(spec: BetSpec) -> st.SearchStrategy[object]:
    """Amounts near every spot's limits and fixed amount, and any integer (zero and negatives included)."""
    near: set[int] = {1, 2, 99, 100, 101}
    for spot in spec.spots:
        lo, hi = spec.limits(spot)
        fixed = spec.fixed(spot)
        near |= {lo - 1, lo, lo + 1, hi - 1, hi, hi + 1, hi // 2}
        if fixed is not None:
            near |= {fixed - 1, fixed, fixed + 1, fixed // 2}
    return st.one_of(
        st.sampled_from(sorted(near)), st.sampled_from(sorted(near)), st.integers(-10, 2 * 10**5)
    )


def _mostly(good: st.SearchStrategy[object], bad: Sequence[object]) -> st.SearchStrategy[object]:
    """`good` fifteen times in sixteen, else one of `bad` (a malformed entry hides every later problem)."""
    return st.integers(0, 15).flatmap(lambda n: good if n else st.sampled_from(bad))


def _bet(spec: BetSpec, players: Sequence[str]) -> st.SearchStrategy[RawBet]:
    """One entry: mostly a plausible bet, sometimes with a seat, player, spot or amount that is not one."""
    return st.builds(
        RawBet,
        _mostly(st.integers(1, spec.seats), NOT_SEATS),
        _mostly(st.sampled_from(players), NOT_PLAYERS),
        _mostly(st.sampled_from(spec.spots), OTHER_SPOTS),
        _mostly(_amounts(spec), NOT_AMOUNTS),
    )


@st.composite
def bet_lists(draw: st.DrawFn) -> tuple[str, BetSpec, list[RawBet]]:
    """A spec and a list of entries for it: random entries, often after a full table (every seat taken
    by its own holder with valid required/main bets, so back-bettors may join), in a random order."""
    name, spec = draw(st.sampled_from(SPECS))
    players = [*PLAYERS, *(f"p{s}" for s in range(1, spec.seats + 1))]
    bets: list[RawBet] = []
    if draw(st.integers(0, 2)) > 0:
        for seat in range(1, spec.seats + 1):
            for spot in spec.required_spots or (spec.main_spot,):
                lo, hi = spec.limits(spot)
                fixed = spec.fixed(spot)
                amount = fixed if fixed is not None else draw(st.sampled_from((lo, hi, (lo + hi) // 2)))
                bets.append(RawBet(seat, f"p{seat}", spot, amount))
    bets += draw(st.lists(_bet(spec, players), max_size=12))
    if draw(st.booleans()):
        bets = draw(st.permutations(bets))
    return name, spec, bets


def outcome(
    place: Callable[[Sequence[RawBet], BetSpec], list[Box]], bets: list[RawBet], spec: BetSpec
) -> Any:
    """Everything a caller can see of one call, comparable with ==: the boxes with every stake in order
    (reprs, so that True and 1 or 1 and 1.0 differ), or the error with its position, message and params."""
    try:
        boxes = place(bets, spec)
    except Exception as exc:
        return (
            "refused",
            type(exc).__name__,
            repr(exc.args),
            getattr(exc, "at", None),
            getattr(exc, "key", None),
            repr(list(getattr(exc, "params", {}).items())),
            getattr(exc, "message", None),
        )
    return (
        "placed",
        [
            (
                box.seat,
                box.holder,
                repr([(player, list(spots.items())) for player, spots in box.stakes.items()]),
                list(box.first_index.items()),
            )
            for box in boxes
        ],
    )


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(case=bet_lists())
def test_rewritten_place_bets_behaves_as_the_legacy_one(case: tuple[str, BetSpec, list[RawBet]]) -> None:
    name, spec, bets = case
    new, old = outcome(place_bets, bets, spec), outcome(legacy_place_bets, bets, spec)
    event(f"{name.split()[0]}: {old[0]} {old[4] if old[0] == 'refused' else len(old[1])}")
    assert new == old


B = RawBet
#: One list per message the table can say (and acceptances), so the comparison is known to meet each:
#: (spec, entries, the message id expected at `at`, or None when the bets are placed).
KNOWN: list[tuple[str, list[RawBet], str | None, int | None]] = [
    ("blackjack {}", [B(1, "ana", "main", 1000), B(3, "bob", "main", 100)], None, None),
    ("blackjack {}", [B(9, "ana", "main", 1000)], "err.bet.seat", 0),
    ("blackjack {}", [B(1, "ana", "main", 1000), B(2, " ", "main", 1000)], "err.bet.no_player", 1),
    ("blackjack {}", [B(1, "ana", "side", 1000)], "err.bet.spot", 0),
    ("blackjack {}", [B(1, "ana", "main", True)], "err.amount.not_whole", 0),
    ("blackjack {}", [B(1, "ana", "main", -5)], "err.amount.not_positive", 0),
    ("blackjack {}", [B(1, "ana", "main", 50)], "err.bet.below_min", 0),
    ("blackjack {}", [B(1, "ana", "main", 60000), B(1, "ana", "main", 60000)], "err.bet.above_max", 1),
    ("blackjack {}", [B(1, "ana", "main", 1000), B(1, "bob", "main", 1000)], "err.bet.back_boxes_free", 1),
    (
        "blackjack {'back_betting': False}",
        [B(1, "a", "main", 100), B(1, "b", "main", 100)],
        "err.bet.back_betting_off",
        1,
    ),
    (
        "blackjack {'max_boxes_per_player': 1}",
        [B(1, "a", "main", 100), B(2, "a", "main", 100)],
        "err.bet.too_many_boxes",
        1,
    ),
    (
        "blackjack {'max_boxes_per_player': 1}",
        [*(B(s, f"p{s}", "main", 100) for s in range(1, 8)), B(2, "p1", "main", 100)],
        "err.bet.too_many_hands",
        7,
    ),
    ("majestic_21 {}", [B(1, "ana", "under_13", 500)], "err.bet.side_needs_main", 0),
    ("punto_y_banca {}", [B(1, "ana", "punto", 500), B(1, "ana", "banca", 500)], "err.bet.exclusive", 1),
    ("punto_y_banca {}", [B(1, "ana", "punto", 500), B(2, "ana", "empate", 500)], "err.bet.two_zones", 1),
    ("punto_y_banca {'zones': 1}", [B(1, "ana", "punto", 500), B(1, "bob", "punto", 500)], None, None),
    (
        "punto_y_banca {'zones': 1}",
        [B(1, "ana", "punto", 500), B(1, "bob", "banca", 500)],
        "err.bet.back_same_side",
        1,
    ),
    (
        "showdown_poker {}",
        [B(1, "ana", "bet", 500), B(2, "bob", "bet", 500), B(2, "bob", "pot", 100)],
        "err.bet.required",
        0,
    ),
    ("showdown_poker {}", [B(1, "ana", "bet", 500), B(1, "ana", "pot", 500)], "err.bet.fixed", 1),
    (
        "showdown_poker {}",
        [B(1, "a", "bet", 500), B(1, "a", "pot", 100), B(1, "b", "pot", 100)],
        "err.bet.no_back_betting",
        2,
    ),
    (
        "synthetic 0",
        [B(1, "ana", "a", 100), B(2, "bob", "a", 100), B(1, "cid", "c", 100)],
        "err.bet.back_spot",
        2,
    ),
    ("synthetic 0", [B(1, "ana", "b", 100)], "err.bet.holder_no_main", 0),
]
KNOWN_IDS = [f"{key or 'placed'} ({name})" for name, _, key, _ in KNOWN]


def test_known_lists_name_every_message_of_the_table() -> None:
    """Every message id `place_bets` can refuse with is met by one of the known lists."""
    source = Path(legacy.__file__).read_text(encoding="utf-8")
    named = set(re.findall(r'"(err\.(?:bet|amount)\.[a-z_]+)"', source))
    named |= {"err.amount.not_whole", "err.amount.not_positive"}  # said by money.check_amount
    assert len(named) == 20
    assert {key for _, _, key, _ in KNOWN} - {None} == named


@pytest.mark.parametrize(("name", "bets", "key", "at"), KNOWN, ids=KNOWN_IDS)
def test_known_lists_give_the_same_answer_old_and_new(
    name: str, bets: list[RawBet], key: str | None, at: int | None
) -> None:
    spec = dict(SPECS)[name]
    new, old = outcome(place_bets, bets, spec), outcome(legacy_place_bets, bets, spec)
    assert new == old
    if key is None:
        assert new[0] == "placed"
    else:
        assert new[0] == "refused" and (new[4], new[3]) == (key, at)


def test_check_entry_refuses_what_concerns_that_bet_alone() -> None:
    """A bet placed on its own at the server (table.check_entry): refused for its own seat, spot, amount,
    limits on its bettor's total or combination, judged where it stands in the list; what needs the
    whole list (main and required bets, every box taken) waits for the deal."""
    from tapete.errors import BadBet
    from tapete.games import round_class
    from tapete.rules import load_rules
    from tapete.table import RawBet, check_entry

    spec = round_class("punto_y_banca").bet_spec(load_rules("punto_y_banca", {}))
    early = [RawBet(1, "ana", "punto", 100)]
    check_entry([*early, RawBet(1, "ana", "punto", 50)], 1, spec)  # 150 in all
    check_entry([RawBet(1, "ana", "punto", 50), *early], 1, spec)  # the earlier 50 is the list's business
    for bad, key in (
        (RawBet(1, "ana", "banca", 500), "err.bet.exclusive"),
        (RawBet(1, "ana", "punto", 10**6), "err.bet.above_max"),
        (RawBet(1, "ana", "empate", 99), "err.bet.below_min"),
        (RawBet(1, "luis", "banca", 500), "err.bet.back_same_side"),
        (RawBet(9, "ana", "punto", 500), "err.bet.seat"),
        (RawBet(1, "ana", "dragon", 500), "err.bet.spot"),
        (RawBet(1, "ana", "punto", 1.5), "err.bet.amount_whole"),
    ):
        try:
            check_entry([*early, bad], 1, spec)
        except BadBet as exc:
            assert exc.at == 1 and (exc.key == key or key == "err.bet.amount_whole"), (bad, exc.key)
        else:
            raise AssertionError(f"{bad} was not refused")
    # a back-bet on a box whose holder has not bet yet: his side is not known until the deal
    check_entry([RawBet(1, "ana", "empate", 100), RawBet(2, "bo", "banca", 500)], 1, spec)
    # the bet judged is the one at `at`, wherever it stands: a holder's bet before a back-bet on his box
    check_entry([RawBet(1, "ana", "punto", 500), RawBet(1, "luis", "punto", 500)], 0, spec)
