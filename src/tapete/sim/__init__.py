"""Simulation of the ENGINE itself (not of a second model): many rounds through TableSession on a seeded
shoe with auto-players, to confirm the exact figures of `tapete.math` within their confidence intervals.

Each bet's result is measured per unit of its initial stake: the mean of (paid - staked) / initial stake
over the rounds, with its standard error; the house edge is minus that mean. Runs split across worker
processes with independent seeds (`workers`), and report progress through a callback.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from tapete.games.base import Action, Decision
from tapete.games.blackjack import BlackjackRound
from tapete.session import TableSession
from tapete.shoe import SeededRandom, Shoe
from tapete.strategy import DEFAULT_CHART, Chart
from tapete.table import RawBet

ProgressFn = Callable[[int, int], None]
Z99 = 2.5758293035489


@dataclass
class Tally:
    """Running sums of a bet's per-unit results (Welford-free: sums and sums of squares, in float)."""

    n: int = 0
    total: float = 0.0
    squares: float = 0.0
    staked: int = 0

    def add(self, per_unit: float, stake: int) -> None:
        """One round's result of the bet, per unit of its initial stake."""
        self.n += 1
        self.total += per_unit
        self.squares += per_unit * per_unit
        self.staked += stake

    def merge(self, other: Tally) -> None:
        """Add another worker's sums."""
        self.n += other.n
        self.total += other.total
        self.squares += other.squares
        self.staked += other.staked

    @property
    def edge(self) -> float:
        """House edge: minus the mean result per unit staked."""
        return -self.total / self.n if self.n else math.nan

    @property
    def stderr(self) -> float:
        """Standard error of the edge."""
        if self.n < 2:
            return math.nan
        mean = self.total / self.n
        var = (self.squares - self.n * mean * mean) / (self.n - 1)
        return math.sqrt(max(var, 0.0) / self.n)

    def to_json(self) -> dict[str, Any]:
        """The measured edge with a 99% confidence interval."""
        half = Z99 * self.stderr
        return {
            "house_edge": self.edge,
            "stderr": self.stderr,
            "ci99": [self.edge - half, self.edge + half],
            "rounds": self.n,
        }


@dataclass
class SimResult:
    """Tallies by bet name."""

    game: str
    rounds: int
    tallies: dict[str, Tally] = field(default_factory=dict)

    def tally(self, bet: str) -> Tally:
        """The tally of one bet (created on first use)."""
        return self.tallies.setdefault(bet, Tally())

    def to_json(self) -> dict[str, Any]:
        """Per-bet measured edges."""
        return {
            "game": self.game,
            "rounds": self.rounds,
            "bets": {k: t.to_json() for k, t in self.tallies.items()},
        }


def _bj_round(session: TableSession, bets: list[RawBet], insure: bool, chart: Chart) -> Any:
    rnd = session.start_round(bets)
    assert isinstance(rnd, BlackjackRound)
    up = rnd.dealer[0]
    while rnd.pending is not None:
        d = rnd.pending
        assert isinstance(d, Decision)
        box = rnd._box(d.seat)
        if d.kind == "insurance" and insure:
            session.apply(Action(d.seat, "insurance"))
            continue
        choice = chart.decide(d, box.hands[d.hand].cards, up)
        session.apply(Action(d.seat, choice, d.hand if d.kind == "play" and len(box.hands) > 1 else None))
    session.current = None
    return rnd


def _run_blackjack(
    game: str, settings: dict[str, Any], rounds: int, seed: int, progress: ProgressFn | None
) -> SimResult:
    session = TableSession(game, settings, live=False, rng=SeededRandom(seed), log=False)
    chart = _chart_for(session.rules)
    unit = 1000
    bets = [RawBet(1, "p", "main", unit)]
    side = game == "majestic_21"
    if side:
        bets += [RawBet(1, "p", s, unit) for s in ("under_13", "over_13", "exactly_13")]
    result = SimResult(game, rounds)
    main = result.tally("main")
    for i in range(rounds):
        rnd = _bj_round(session, bets, insure=side, chart=chart)
        box = rnd.boxes[0]
        staked = sum(h.stake for h in box.hands)
        paid = sum(h.paid for h in box.hands)
        main.add((paid - staked) / unit, unit)
        if side:
            for spot, (stake, got) in box.side.items():
                result.tally(spot).add((got - stake) / stake, stake)
            if box.insurance:
                name = "insurance_ace" if rnd._insurance_kind() == "ace" else "insurance_ten"
                result.tally(name).add((box.insurance_paid - box.insurance) / box.insurance, box.insurance)
        if progress is not None and i % 2000 == 0:
            progress(i, rounds)
        if session.source.cut_card_out:
            _reshuffle(session)
    return result


def _reshuffle(session: TableSession) -> None:
    """Art.6 between simulated rounds: the session's virtual shoe shuffles, cuts and burns again."""
    shoe = session.source
    assert isinstance(shoe, Shoe)
    shoe.prepare_round()


def _chart_for(rules: Any) -> Chart:
    """The exact basic strategy for these settings (what the analyzer's house edge assumes); the
    default chart when the analyzer is not available."""
    try:
        from tapete.math.blackjack import analyze_blackjack
    except ImportError:  # pragma: no cover - numba missing
        return DEFAULT_CHART
    analysis = analyze_blackjack(
        decks=rules.decks,
        surrender=rules.surrender,
        max_splits=rules.splits_possible,
        resplit_aces=rules.resplit_aces,
    )
    return Chart.from_analysis(analysis)


def _run_baccarat(settings: dict[str, Any], rounds: int, seed: int, progress: ProgressFn | None) -> SimResult:
    session = TableSession("punto_y_banca", settings, live=False, rng=SeededRandom(seed), log=False)
    unit = 1000
    spots = ("punto", "banca", "empate")
    bets = [RawBet(i + 1, f"p{i + 1}", spot, unit) for i, spot in enumerate(spots)]
    result = SimResult("punto_y_banca", rounds)
    for i in range(rounds):
        rnd = session.start_round(bets)
        out = rnd.result()
        for spot in spots:
            player = out["players"][f"p{spots.index(spot) + 1}"]
            result.tally(spot).add(player["net"] / unit, unit)
        session.current = None
        if progress is not None and i % 2000 == 0:
            progress(i, rounds)
        if session.source.cut_card_out:
            _reshuffle(session)
    return result


def _run(args: tuple[str, dict[str, Any], int, int]) -> SimResult:
    game, settings, rounds, seed = args
    return _run_one(game, settings, rounds, seed, None)


def _run_one(
    game: str, settings: dict[str, Any], rounds: int, seed: int, progress: ProgressFn | None
) -> SimResult:
    if game in ("blackjack", "majestic_21"):
        return _run_blackjack(game, settings, rounds, seed, progress)
    if game == "punto_y_banca":
        return _run_baccarat(settings, rounds, seed, progress)
    if game == "showdown_poker":
        from tapete.sim.showdown import run_showdown

        return run_showdown(settings, rounds, seed, progress)
    raise ValueError(f"no simulator for {game}")


def simulate(
    game: str,
    rounds: int,
    *,
    seed: int = 1,
    settings: dict[str, Any] | None = None,
    workers: int = 1,
    progress: ProgressFn | None = None,
) -> SimResult:
    """Play `rounds` rounds of `game` on the engine and measure each bet's house edge."""
    settings = dict(settings or {})
    if workers <= 1:
        return _run_one(game, settings, rounds, seed, progress)
    share = rounds // workers
    jobs = [
        (game, settings, share + (1 if i < rounds % workers else 0), seed * 1000 + i) for i in range(workers)
    ]
    total = SimResult(game, rounds)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for done, part in enumerate(pool.map(_run, jobs), start=1):
            for name, tally in part.tallies.items():
                total.tally(name).merge(tally)
            if progress is not None:
                progress(done * share, rounds)
    return total
