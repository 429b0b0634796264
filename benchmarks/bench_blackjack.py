"""Rounds per second of the full Black Jack engine: table session, virtual shoe (seeded, as a simulation
is), bets checked by the table, events kept in memory, basic-strategy auto-player. One core.

    python benchmarks/bench_blackjack.py [--rounds N] [--seats K ...] [--profile]

Rates are per second of this process's CPU time (`time.process_time`), so other jobs on a shared machine
disturb them less than wall time; the load average is printed beside them. Figures: docs/performance.md.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import time

from tapete.games.base import Action
from tapete.session import TableSession
from tapete.shoe import SeededRandom, Shoe
from tapete.strategy import basic_strategy
from tapete.table import RawBet


def play(rounds: int, seats: int, seed: int = 1) -> tuple[float, int]:
    """Play `rounds` rounds with `seats` boxes; return (CPU seconds, events kept)."""
    session = TableSession("blackjack", {}, live=False, rng=SeededRandom(seed), log=False)
    shoe = session.source
    assert isinstance(shoe, Shoe)
    bets = [RawBet(s, f"p{s}", "main", 1000) for s in range(1, seats + 1)]
    events = 0
    start = time.process_time()
    for _ in range(rounds):
        rnd = session.start_round(bets)
        up = rnd.dealer[0]
        while rnd.pending is not None:
            d = rnd.pending
            box = rnd._box(d.seat)
            cards = box.hands[d.hand].cards
            choice = basic_strategy(d, cards, up)
            hand = d.hand if d.kind == "play" and len(box.hands) > 1 else None
            session.apply(Action(d.seat, choice, hand))
        events += len(rnd.events)
        session.current = None
        if shoe.cut_card_out:
            shoe.reshuffle()
    return time.process_time() - start, events


def main() -> None:
    """Run and print rounds/s."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=50_000)
    ap.add_argument("--seats", type=int, nargs="*", default=[1, 7])
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    for seats in args.seats:
        if args.profile:
            prof = cProfile.Profile()
            prof.enable()
            play(args.rounds, seats)
            prof.disable()
            pstats.Stats(prof).sort_stats("tottime").print_stats(15)
            continue
        secs, events = play(args.rounds, seats)
        print(
            f"{seats} seat(s): {args.rounds / secs:,.0f} rounds/s ({args.rounds} rounds, {secs:.2f} s, "
            f"{events / args.rounds:.1f} events/round; CPU time; load average {os.getloadavg()[0]:.2f})"
        )


if __name__ == "__main__":
    main()
