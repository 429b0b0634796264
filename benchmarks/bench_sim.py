"""Rounds per second of the simulation kernels, per core, and of the engine simulation (`--engine`)
measured in the same run, for every game. Figures: docs/performance.md ("Simulation kernels").

    python benchmarks/bench_sim.py                      # every game, default sizes, best of 3
    python benchmarks/bench_sim.py --games blackjack --repeat 5
    python benchmarks/bench_sim.py --workers 2          # also the wall-clock rate on 2 worker processes

Kernel rates are per second of this process's CPU time (`time.process_time`) over one chunk played in
this process after a warm-up (the JIT cache loaded, the strategy tables built): one core. The engine's
rate is `tapete.sim.simulate` (what `tapete simulate --engine` runs) timed as the difference between a
long and a one-round run, so its setup (the analysis it re-runs for its chart) is not counted against
it. The load average is printed beside the figures (the machine is shared).
"""

from __future__ import annotations

import argparse
import os
import time

from tapete.sim import simulate as engine_simulate
from tapete.sim.fast import run_plan
from tapete.sim.kernels import make_plan
from tapete.sim.kernels.rng import seed_state

GAMES = ("blackjack", "majestic_21", "punto_y_banca", "showdown_poker")
#: Rounds per timed kernel run and per engine run.
KERNEL_ROUNDS = {
    "blackjack": 20_000_000,
    "majestic_21": 10_000_000,
    "punto_y_banca": 40_000_000,
    "showdown_poker": 3_000_000,
}
ENGINE_ROUNDS = {"blackjack": 20_000, "majestic_21": 20_000, "punto_y_banca": 20_000, "showdown_poker": 4_000}


def kernel_rate(game: str, rounds: int, repeat: int, seats: int | None) -> tuple[float, int]:
    """Best rounds per CPU-second of `repeat` kernel runs of `rounds` rounds (after a warm-up)."""
    plan = make_plan(game, {}, seats=seats)
    plan.play(0, 1_000, seed_state(1, 0))  # JIT (cache) warm-up
    best = 0.0
    for k in range(repeat):
        t0 = time.process_time()
        plan.play(k, rounds, seed_state(7, k))
        best = max(best, rounds / (time.process_time() - t0))
    return best, plan.seats


def engine_rate(game: str, rounds: int) -> float:
    """Rounds per CPU-second of the engine simulation, setup excluded (a long run minus a one-round run)."""
    t0 = time.process_time()
    engine_simulate(game, 1, seed=5)
    t1 = time.process_time()
    engine_simulate(game, rounds + 1, seed=5)
    t2 = time.process_time()
    return rounds / ((t2 - t1) - (t1 - t0))


def parallel_rate(game: str, rounds: int, workers: int) -> float:
    """Wall-clock rounds per second of `workers` worker processes (pool start-up included)."""
    plan = make_plan(game, {})
    result = run_plan(plan, rounds, 3, workers=workers)
    return rounds / result.elapsed


def main() -> None:
    """Measure and print a table (markdown)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", nargs="*", default=list(GAMES))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply the default round counts")
    ap.add_argument("--seats", type=int, default=None, help="boxes / players (default 1, the engine's)")
    ap.add_argument("--workers", type=int, default=1, help="also measure N worker processes (wall clock)")
    args = ap.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} CPUs")
    head = (
        "| game | seats | kernel rounds/s (1 core, CPU time) | engine rounds/s (1 core, CPU time) | ratio |"
    )
    if args.workers > 1:
        head += f" kernel on {args.workers} processes (wall) |"
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    for game in args.games:
        # the engine simulation's table: one box / one player (Punto y Banca: a bettor on each bet)
        seats = None if game == "punto_y_banca" else (args.seats or 1)
        k_rate, n = kernel_rate(game, int(KERNEL_ROUNDS[game] * args.scale), args.repeat, seats)
        e_rate = engine_rate(game, max(100, int(ENGINE_ROUNDS[game] * args.scale)))
        row = f"| {game} | {n} | {k_rate:,.0f} | {e_rate:,.0f} | {k_rate / e_rate:,.0f} |"
        if args.workers > 1:
            row += f" {parallel_rate(game, int(KERNEL_ROUNDS[game] * args.scale), args.workers):,.0f} |"
        print(row, flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
