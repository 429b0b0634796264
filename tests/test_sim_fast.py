"""`tapete simulate` on the kernels: the same seed gives the same numbers on 1 or 2 workers and on Ray,
the numbers agree with the exact analysis, and the command's JSON and refusals."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest
from typer.testing import CliRunner

from tapete.cli import _register_optional, app
from tapete.math.analyze import analyze
from tapete.sim.fast import FastResult, chunks, run_plan, simulate_fast
from tapete.sim.kernels import make_plan

_register_optional()
runner = CliRunner()
#: 99.9 % two-sided normal quantile: a run checks up to six bets at once, so each is tested against its
#: 99.9 % interval (the JSON reports 95 %) to keep a false alarm of the whole test near 0.5 %.
Z999 = 3.2905267314919255


def _stable(result: FastResult) -> dict[str, Any]:
    doc = result.to_json()
    doc.pop("elapsed_s")
    doc.pop("rounds_per_second")
    return doc


def test_chunks_are_fixed_by_the_rounds_only() -> None:
    assert chunks(2_500_000) == [(0, 1_000_000), (1, 1_000_000), (2, 500_000)]
    assert chunks(7, size=3) == [(0, 3), (1, 3), (2, 1)]


@pytest.mark.parametrize("game", ["punto_y_banca", "blackjack"])
def test_same_seed_same_numbers_on_one_or_two_workers(game: str) -> None:
    plan = make_plan(game, {})
    one = run_plan(plan, 650_000, 21, chunk_rounds=100_000)
    two = run_plan(plan, 650_000, 21, workers=2, chunk_rounds=100_000)
    assert _stable(one) == _stable(two)
    assert one.total.rounds == 650_000 and one.to_json()["bets"]
    other = run_plan(plan, 650_000, 22, chunk_rounds=100_000)
    assert _stable(other) != _stable(one)


def test_same_seed_same_numbers_on_ray() -> None:
    """With a Ray running (here a local one: 2 CPUs, no dashboard) `--ray auto` joins it, plays the
    chunks as tasks and leaves it running: the numbers are those of one process."""
    try:
        import ray
    except ImportError:
        pytest.fail("Ray is missing: pip install -e '.[dev]' installs it (extra 'cluster')", pytrace=False)
    plans = [make_plan("majestic_21", {}), make_plan("punto_y_banca", {})]
    local = [_stable(run_plan(p, 240_000, 5, chunk_rounds=50_000)) for p in plans]
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        for plan, expected in zip(plans, local, strict=True):
            got = run_plan(plan, 240_000, 5, ray_address="auto", chunk_rounds=50_000)
            assert _stable(got) == expected
        assert ray.is_initialized()  # joined, not stopped
    finally:
        ray.shutdown()
    assert not ray.is_initialized()


class _FakeRay:
    """Ray's surface as the runner uses it, playing tasks at once, recording init and shutdown."""

    def __init__(self, running: bool) -> None:
        self.running = running
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def is_initialized(self) -> bool:
        return self.calls[-1][0] == "init" if self.calls else False

    def init(self, **kwargs: Any) -> None:
        if kwargs.get("address") == "auto" and not self.running:
            self.calls.append(("failed", kwargs))
            raise ConnectionError("no cluster")
        self.calls.append(("init", kwargs))

    def shutdown(self) -> None:
        self.calls.append(("shutdown", {}))

    def put(self, obj: Any) -> Any:
        return obj

    def remote(self, fn: Any) -> Any:
        class Task:
            @staticmethod
            def remote(*args: Any) -> Any:
                return fn(*args)

        return Task

    def wait(self, refs: list[Any], num_returns: int) -> tuple[list[Any], list[Any]]:
        return refs[:num_returns], refs[num_returns:]

    def get(self, ref: Any) -> Any:
        return ref


def test_ray_auto_starts_a_local_ray_when_none_runs_and_stops_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    plan = make_plan("punto_y_banca", {})
    expected = _stable(run_plan(plan, 120_000, 6, chunk_rounds=50_000))
    for running, address in ((False, "auto"), (True, "auto"), (True, "ray://head:10001")):
        fake = _FakeRay(running)
        monkeypatch.setitem(sys.modules, "ray", fake)
        assert (
            _stable(run_plan(plan, 120_000, 6, workers=2, ray_address=address, chunk_rounds=50_000))
            == expected
        )
        kinds = [k for k, _ in fake.calls]
        if not running:
            assert kinds == ["failed", "init", "shutdown"]
            assert fake.calls[1][1]["num_cpus"] == 2 and fake.calls[1][1]["include_dashboard"] is False
        else:
            assert kinds == ["init", "shutdown"] and fake.calls[0][1]["address"] == address


# ------------------------------------------------------------------------------ agreement with the math
def _exact(game: str, settings: dict[str, Any] | None = None) -> dict[str, float]:
    doc = analyze(game, settings or {})
    return {
        name: float(Fraction(bet["house_edge_exact"])) if "house_edge_exact" in bet else bet["house_edge"]
        for name, bet in doc["bets"].items()
    }


def _agrees(doc: dict[str, Any], exact: dict[str, float]) -> list[str]:
    """Bets whose exact edge lies outside the simulation's 99.9 % interval."""
    out = []
    for name, bet in doc["bets"].items():
        half = Z999 * bet["se"]
        if not bet["house_edge"] - half <= exact[name] <= bet["house_edge"] + half:
            out.append(f"{name}: exact {exact[name]:.6f}, simulated {bet['house_edge']:.6f} ± {half:.6f}")
    return out


@pytest.mark.parametrize(
    ("game", "rounds", "full_shoe"),
    [
        ("punto_y_banca", 8_000_000, True),
        ("punto_y_banca", 8_000_000, False),
        ("blackjack", 3_000_000, True),
        ("blackjack", 3_000_000, False),
        ("majestic_21", 3_000_000, True),
    ],
)
def test_simulation_agrees_with_the_exact_edges(game: str, rounds: int, full_shoe: bool) -> None:
    """Every bet's exact edge (a full shoe each round) inside the kernel's interval; on the regulation's
    shoe too for the main bets, whose cut-card effect is far below these intervals (docs/math.md has the
    long runs, and the Majestic 21 side bets whose cut-card effect is not)."""
    doc = simulate_fast(game, rounds, seed=31, full_shoe=full_shoe).to_json()
    exact = _exact(game)
    assert set(doc["bets"]) == set(exact)
    assert not _agrees(doc, exact)


def test_showdown_simulation_agrees_with_the_exact_edges_and_frequencies() -> None:
    """Bet, bonus and pot (two players: the pot costs exactly the commission) inside their intervals; the
    analysis's exchange and increment frequencies inside 99.9 % binomial intervals."""
    from tapete.math.showdown import analyze_showdown

    doc = simulate_fast("showdown_poker", 600_000, seed=32, seats=2).to_json()
    exact = _exact("showdown_poker")
    assert not _agrees({"bets": {k: v for k, v in doc["bets"].items() if k != "pot"}}, exact)
    assert doc["bets"]["pot"]["house_edge"] == pytest.approx(0.05, abs=1e-12)
    a = analyze_showdown()
    bet = doc["bets"]["bet"]
    n = bet["n"]
    for prefix, probs in (("exchanged", a.exchanges), ("increments", a.increments)):
        for k, p in probs.items():
            half = Z999 * (float(p) * (1 - float(p)) / n) ** 0.5
            assert abs(bet["outcomes"][f"{prefix}_{k}"] - float(p)) <= half, (prefix, k)


@pytest.mark.slow
@pytest.mark.parametrize("game", ["punto_y_banca", "blackjack", "majestic_21", "showdown_poker"])
def test_long_runs_agree_with_the_exact_edges(game: str) -> None:
    """The long runs of docs/math.md (full shoe; 100M rounds, Showdown 20M), both cores."""
    rounds = 20_000_000 if game == "showdown_poker" else 100_000_000
    doc = simulate_fast(game, rounds, seed=2026, full_shoe=True, workers=2).to_json()
    exact = _exact(game)
    if game == "showdown_poker":
        doc["bets"].pop("pot")
    assert not _agrees(doc, exact)


# ------------------------------------------------------------------------------ the command
def test_tapete_simulate_json_names_the_bets_as_tapete_analyze() -> None:
    out = runner.invoke(app, ["simulate", "majestic_21", "--rounds", "200000", "--seed", "3", "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert {"game", "rounds", "seed", "elapsed_s", "rounds_per_second", "bets"} <= set(doc)
    assert doc["game"] == "majestic_21" and doc["rounds"] == 200_000 and doc["seed"] == 3
    assert set(doc["bets"]) == set(_exact("majestic_21"))
    for bet in doc["bets"].values():
        lo, hi = bet["ci95"]
        assert lo < bet["house_edge"] < hi and bet["sd"] > 0
    assert doc["bets"]["insurance_ten"]["n"] < doc["bets"]["main"]["n"] == 200_000


def test_tapete_simulate_prints_a_table_and_plays_the_engine_on_request() -> None:
    out = runner.invoke(app, ["simulate", "punto_y_banca", "--rounds", "100000"])
    assert out.exit_code == 0, out.output
    assert "banca" in out.stdout and "95% CI" in out.stdout and "rounds/s" in out.stdout
    eng = runner.invoke(app, ["simulate", "blackjack", "--rounds", "300", "--engine", "--json"])
    assert eng.exit_code == 0, eng.output
    doc = json.loads(eng.stdout)
    assert doc["engine"] == "engine" and doc["bets"]["main"]["n"] == 300
    assert set(doc["bets"]["main"]) >= {"house_edge", "ci95", "sd"}


@pytest.mark.parametrize(
    "args",
    [
        ["punto_y_banca", "--strategy", "composition"],
        ["showdown_poker", "--seats", "8"],
        ["blackjack", "--seed", "-1"],
        ["blackjack", "--strategy", "/no/such/chart.json"],
        ["blackjack", "--engine", "--seats", "3"],
    ],
)
def test_tapete_simulate_refuses_with_exit_2(args: list[str]) -> None:
    out = runner.invoke(app, ["simulate", *args, "--rounds", "1000"])
    assert out.exit_code == 2, out.output
    assert "Traceback" not in out.output
