"""Showdown Póker on the ENGINE against the exact analysis (SP Art.9.2-9.5 decisions, Art.10-11 payouts).

Fast: the increment rule (`increment_decisions`) against an independent count from the engine's own
settlement function and against the analysis's Nº1/Nº2 frequencies; the optimal player in a stacked
round; the simulator's plumbing, determinism and CLI. Slow: the long engine run whose 99% confidence
interval must hold the exact bet and bonus edges (results in docs/math-sim-showdown.md).
"""

from __future__ import annotations

import itertools
import json
import math
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tapete.cards import NAMES, parse_cards
from tapete.cli import app
from tapete.errors import BadCards
from tapete.games.showdown import INCREMENT_1, INCREMENT_2, hand_outcome, hand_strength
from tapete.math import showdown as sd
from tapete.session import TableSession
from tapete.shoe import StackedSource
from tapete.sim import showdown as sim_showdown
from tapete.sim import simulate
from tapete.sim.showdown import OptimalPlayer, ShowdownStats, run_showdown
from tapete.table import RawBet

pytest.importorskip("numba")

FAST = {"max_exchange": 2}  # the fast suite's analysis (a few seconds, cached); the regulation's is 3


@pytest.fixture(scope="module")
def analysis2() -> sd.ShowdownAnalysis:
    return sd.analyze_showdown(max_exchange=2)


def net(cards: list[int]) -> int:
    """Net result per unit of five cards by the ENGINE's settlement (Art.10-11)."""
    outcome, ratio = hand_outcome(hand_strength(cards))
    return ratio if outcome == "win" else 0 if outcome == "push" else -1


def brute_decisions(hand: list[int], dead: list[int]) -> tuple[bool, dict[int, bool]]:
    """Nº1 and Nº2-by-first-community-card written from their definitions: every unseen c1, every c2."""
    unseen = [c for c in range(52) if c not in hand and c not in dead]
    s = {c1: sum(net([*hand, c1, c2]) for c2 in unseen if c2 != c1) for c1 in unseen}
    # E[Nº1 + optimal Nº2] - E[stand] = E[m] + E[max(0, E[m | c1])], times (49-d)(48-d) > 0
    make1 = sum(s.values()) + sum(max(0, v) for v in s.values()) > 0
    return make1, {c1: v > 0 for c1, v in s.items()}


# ------------------------------------------------------------------------------- the increment rule
@pytest.mark.parametrize(
    ("hand", "dead"),
    [
        ("Qs Qh Kd", "5d"),  # a high pair: Nº1 always
        ("7c 7d 2h", "Ks"),  # a low pair
        ("2c 7d 9h", "Kc Qd"),
        ("9h Th Jh", ""),  # three to a straight flush, nothing exchanged
        ("Ac 5d 9s", "2h 3h 4h"),
        ("Jd 4c 8s", "Ts Js"),
        ("8h Th Qh", "5s 4c"),  # Nº1 declined by a hair: sum s + sum max(0, s) = -3
        ("9s Qs Ks", "Jd 9d 5s"),  # Nº1 made by a hair (+22) although E[m] < 0
        ("3s 3d 9d", ""),  # a low pair: E[m] < 0, Nº1 still made
    ],
)
def test_increments_follow_their_definitions(hand: str, dead: str) -> None:
    h, d = parse_cards(hand.split()), parse_cards(dead.split())
    make1, by_c1 = brute_decisions(h, d)
    for c1, make2 in by_c1.items():
        assert sd.increment_decisions(h, d, c1) == (make1, make2), NAMES[c1]
    assert sd.increment_decisions(h, d) == (make1, None)


@settings(max_examples=15, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(0, 3), st.permutations(range(4)))
def test_increment_rule_does_not_depend_on_suit_names(rng: random.Random, d: int, perm: list[int]) -> None:
    cards = rng.sample(range(52), 4 + d)
    hand, dead, c1 = cards[:3], cards[3 : 3 + d], cards[-1]
    make1, by_c1 = brute_decisions(hand, dead)
    relabel = [c // 4 * 4 + perm[c % 4] for c in cards]
    assert sd.increment_decisions(relabel[:3], relabel[3 : 3 + d], relabel[-1]) == (make1, by_c1[c1])


def test_increment_rule_refuses_impossible_cards() -> None:
    with pytest.raises(BadCards):
        sd.increment_decisions(["As", "Ks", "Qs"], ["As"])
    with pytest.raises(BadCards):
        sd.increment_decisions(["As", "Ks", "Qs"], ["2c"], "2c")
    with pytest.raises(BadCards):
        sd.increment_decisions(["As", "Ks", "Qs"], ["2c", "3c", "4c", "5c"])


def _frequencies(start: tuple[int, ...], keep: tuple[int, ...]) -> tuple[Fraction, Fraction]:
    """P(Nº1) and P(Nº1 and Nº2) of keeping `keep` from `start`, by `increment_decisions` over every
    replacement set and every first community card."""
    dead = [c for c in start if c not in keep]
    deck = [c for c in range(52) if c not in start]
    n1 = n2 = 0
    sets = list(itertools.combinations(deck, len(dead)))
    for repl in sets:
        hand = [*keep, *repl]
        if not sd.increment_decisions(hand, dead)[0]:
            continue
        n1 += 1
        n2 += sum(sd.increment_decisions(hand, dead, c1)[1] is True for c1 in deck if c1 not in repl)
    return Fraction(n1, len(sets)), Fraction(n2, len(sets) * (len(deck) - len(dead)))


def test_increment_rule_reproduces_the_analysis_frequencies(analysis2: sd.ShowdownAnalysis) -> None:
    """The function the simulator plays gives exactly the analysis's p_increment1 / p_increment2 for
    starting classes that exchange 0, 1 and 2 cards."""

    def pick(d: int, mixed_first: bool, last: bool = False) -> sd.StartingHand:
        """A class exchanging d cards whose Nº2 (and, if asked, Nº1) is made only sometimes."""
        found = [
            e
            for e in analysis2.strategy
            if e.discards == d and 0 < e.p_increment2 < 1 and (0 < e.p_increment1 < 1 or not mixed_first)
        ]
        return found[-1 if last else 0]

    picks = [pick(0, False), pick(1, False), pick(1, True), pick(1, True, last=True), pick(2, True)]
    for entry in picks:
        p1, p2 = _frequencies(entry.cards, entry.keep)
        assert (p1, p2) == (entry.p_increment1, entry.p_increment2), entry.to_json()["hand"]


# ------------------------------------------------------------------------------- the player on the engine
def test_optimal_player_on_a_stacked_round(analysis2: sd.ShowdownAnalysis) -> None:
    """Qs 5d Qh: keep the queens (Art.9.2), then Nº1 (Art.9.2) and Nº2 after the 2c (Art.9.4)."""
    # seat card, community 1, seat card, community 2, seat card, then the replacement
    shoe = parse_cards(["Qs", "2c", "5d", "9s", "Qh", "Kd"])
    session = TableSession("showdown_poker", FAST, live=False, source=StackedSource(shoe, 1))
    rnd = session.start_round([RawBet(1, "ana", "bet", 100), RawBet(1, "ana", "pot", 100)])
    player = OptimalPlayer(analysis2)
    taken = []
    while rnd.pending is not None:
        action = player(rnd)
        taken.append((action.action, [NAMES[c] for c in action.cards or ()]))
        session.apply(action)
    assert taken == [("exchange", ["5d"]), (INCREMENT_1, []), (INCREMENT_2, [])]
    seat = rnd.result()["seats"][0]
    assert seat["increments"] == [100, 100] and seat["outcome"] == "push"  # pair of queens, Art.10
    assert rnd.result()["players"]["ana"]["net"] == 0


def test_simulator_plays_the_strategy_and_tallies_per_unit(analysis2: sd.ShowdownAnalysis) -> None:
    stats = ShowdownStats()
    res = run_showdown(FAST, 400, seed=5, stats=stats)
    assert set(res.tallies) == {"bet", "bonus"}  # one player: the pot bet is returned, not tallied
    assert res.tallies["bet"].n == res.tallies["bonus"].n == 400 == stats.seat_rounds
    assert sum(stats.exchanged.values()) == sum(stats.increments.values()) == 400
    assert max(stats.exchanged) <= 2 and stats.increments[2] > 0 and stats.increments[0] > 0
    # the bet's results are whole multiples of the unit (-3 … 750), the bonus's are -1 or a win
    assert res.tallies["bet"].staked == 400 * 100 and res.tallies["bonus"].staked == 400 * 100
    assert -3 <= -res.tallies["bet"].edge <= 750


def test_simulation_is_reproducible_for_a_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sim_showdown, "ROUNDS_PER_SESSION", 120)  # cross session renewals too
    a = run_showdown(FAST, 300, seed=9).to_json()
    assert a == run_showdown(FAST, 300, seed=9).to_json()
    assert a != run_showdown(FAST, 300, seed=10).to_json()
    assert a["bets"]["bet"]["rounds"] == 300


def test_two_players_pay_exactly_the_pot_commission() -> None:
    """With two seats someone wins the pot: per unit of pot bet the players lose the 5 % commission."""
    res = run_showdown(FAST, 200, seed=3, players=2)
    pot = res.tallies["pot"]
    assert pot.n == 400 and math.isclose(pot.edge, 0.05, abs_tol=1e-12)
    with pytest.raises(ValueError):
        run_showdown(FAST, 1, seed=1, players=8)


def test_tapete_simulate_showdown_poker(tmp_path: Path) -> None:
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps(FAST))
    out = CliRunner().invoke(
        app,
        [
            "simulate",
            "showdown_poker",
            "--rounds",
            "300",
            "--seed",
            "4",
            "--rules",
            str(rules),
            "--engine",
            "--json",
        ],
    )
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert doc["rounds"] == 300 and set(doc["bets"]) == {"bet", "bonus"} and doc["engine"] == "engine"
    engine = run_showdown(FAST, 300, seed=4).to_json()["bets"]
    for name, bet in engine.items():
        assert (
            doc["bets"][name]["house_edge"] == bet["house_edge"] and doc["bets"][name]["n"] == bet["rounds"]
        )


# ------------------------------------------------------------------------------- long runs
def _within(exact: float, measured: dict[str, Any]) -> bool:
    lo, hi = measured["ci99"]
    return bool(lo <= exact <= hi)


@pytest.mark.slow
def test_engine_agrees_with_exact_showdown_edges() -> None:
    """The regulation's game (up to 3 exchanged): the exact bet edge (1.944970 %) and bonus edge lie in
    the engine's 99% confidence intervals."""
    exact = sd.analyze_showdown()
    assert round(float(exact.house_edge) * 100, 6) == 1.944970
    sim = simulate("showdown_poker", 400_000, seed=21, workers=2).to_json()["bets"]
    assert _within(float(exact.house_edge), sim["bet"]), sim["bet"]
    assert _within(float(exact.bonus_edge), sim["bonus"]), sim["bonus"]


@pytest.mark.slow
def test_engine_plays_the_analysis_frequencies() -> None:
    """Cards exchanged and increments made on the engine match the analysis's exact frequencies
    (each within a 99.9% binomial interval)."""
    exact = sd.analyze_showdown()
    stats = ShowdownStats()
    run_showdown({}, 60_000, seed=22, stats=stats)
    n = stats.seat_rounds
    for observed, probs in ((stats.exchanged, exact.exchanges), (stats.increments, exact.increments)):
        for k, p in probs.items():
            half = 3.29 * math.sqrt(float(p) * (1 - float(p)) / n)
            assert abs(observed[k] / n - float(p)) <= half, (k, observed[k] / n, float(p))
