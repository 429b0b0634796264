"""Rounds per second of the full Punto y Banca engine: seven zones taken (plus a back-bettor), a seeded
8-deck virtual shoe through TableSession(live=False), bets checked by the table, the round played and
settled, its events chained into the in-memory hash-chained log, reshuffles when the cut card comes out.

    python benchmarks/bench_punto_y_banca.py [--rounds 20000] [--seed 1]

Prints one JSON line: rounds, seconds and rounds/s for the whole loop (bets + round + log) and for the
round alone (bets + round, log not written), best of `--repeat` runs.
"""

from __future__ import annotations

import argparse
import json
import time

from tapete.games.punto_y_banca import next_shoe_holder
from tapete.session import TableSession
from tapete.shoe import SeededRandom
from tapete.table import RawBet

SPOTS = ("punto", "banca", "punto", "banca", "punto", "banca", "banca")
BETS = [
    *(RawBet(zone, f"p{zone}", spot, 1000 + 15 * zone) for zone, spot in enumerate(SPOTS, start=1)),
    RawBet(1, "p1", "empate", 100),
    RawBet(4, "p4", "empate", 200),
    RawBet(2, "back", "banca", 505),  # a back-bettor: every zone is taken
]
ZONES = list(range(1, 8))


def run(rounds: int, seed: int, *, log: bool) -> float:
    """Seconds to play `rounds` rounds on a fresh seeded table (log: write each round to the chain)."""
    session = TableSession(
        "punto_y_banca", {}, live=False, rng=SeededRandom(seed), log=None if log else False
    )
    holder: int | None = None
    winner: str | None = None
    start = time.perf_counter()
    for _ in range(rounds):
        holder = next_shoe_holder(holder, winner, ZONES)
        rnd = session.start_round(BETS, shoe_holder=holder)
        winner = rnd.winner
        session.finish_round()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    full = min(run(args.rounds, args.seed, log=True) for _ in range(args.repeat))
    bare = min(run(args.rounds, args.seed, log=False) for _ in range(args.repeat))
    print(
        json.dumps(
            {
                "game": "punto_y_banca",
                "zones": 7,
                "bets_per_round": len(BETS),
                "rounds": args.rounds,
                "with_log": {"seconds": round(full, 3), "rounds_per_s": round(args.rounds / full)},
                "round_only": {"seconds": round(bare, 3), "rounds_per_s": round(args.rounds / bare)},
            }
        )
    )


if __name__ == "__main__":
    main()
