"""The engine simulator used to cross-check the exact math: plumbing in the default suite, the long
agreement runs marked slow (their results are in docs/math.md)."""

from __future__ import annotations

import pytest

from tapete.math.baccarat import analyze_baccarat
from tapete.math.majestic21 import analyze_majestic_side_bets
from tapete.sim import Tally, simulate


def test_tally_edge_and_standard_error() -> None:
    t = Tally()
    for x in (1.0, -1.0, -1.0, 1.0, -1.0):
        t.add(x, 100)
    assert t.edge == pytest.approx(0.2)
    assert t.stderr == pytest.approx((1.2 / 5) ** 0.5, rel=1e-9)
    assert t.staked == 500


def test_simulation_is_reproducible_and_covers_every_bet() -> None:
    a = simulate("majestic_21", 300, seed=3)
    b = simulate("majestic_21", 300, seed=3)
    assert a.to_json() == b.to_json()
    assert {"main", "under_13", "over_13", "exactly_13"} <= set(a.tallies)


def _within(exact: float, measured: dict[str, float]) -> bool:
    lo, hi = measured["ci99"]
    return bool(lo <= exact <= hi)


@pytest.mark.slow
def test_engine_agrees_with_exact_punto_y_banca() -> None:
    exact = analyze_baccarat(8).to_json()["bets"]
    sim = simulate("punto_y_banca", 400_000, seed=11, workers=2).to_json()["bets"]
    for bet in ("punto", "banca", "empate"):
        assert _within(exact[bet]["house_edge"], sim[bet]), (bet, exact[bet], sim[bet])


@pytest.mark.slow
def test_engine_agrees_with_exact_majestic_side_bets() -> None:
    exact = analyze_majestic_side_bets(6)
    sim = simulate("majestic_21", 300_000, seed=12, workers=2).to_json()["bets"]
    for bet in ("under_13", "over_13", "exactly_13"):
        assert _within(float(exact[bet]["house_edge"]), sim[bet]), (bet, exact[bet], sim[bet])
