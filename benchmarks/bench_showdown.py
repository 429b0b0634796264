"""Rounds per second of the full Showdown Póker engine: table session (live=False) on a seeded one-deck
shoe that is shuffled and cut before every round (Art.7), bets checked by the table, every player
posting bet + pot (+ bonus), a simple auto-player answering the exchange and increment offers, events
kept in memory. One core.

    python benchmarks/bench_showdown.py [--rounds N] [--seats K ...] [--log] [--profile]

``--log`` also writes each round to the in-memory hash-chained event log (SHA-256 per event).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

from tapete.games.base import Action
from tapete.games.showdown import DECLINE, EXCHANGE, INCREMENT_2, ShowdownRound
from tapete.poker import POKER_RANK
from tapete.session import TableSession
from tapete.shoe import SeededRandom
from tapete.table import RawBet

HIGH = 9  # poker rank of the jack


def auto_answer(rnd: ShowdownRound) -> Action:
    """A plain player (not the optimal strategy of tapete.math.showdown): keeps pairs and J-A, exchanges
    the rest; increment Nº1 with a pair or better in hand; Nº2 when the shown community card makes or
    keeps a pair of jacks or better."""
    d = rnd.pending
    assert d is not None
    seat = next(s for s in rnd.seats if s.seat == d.seat)
    ranks = [POKER_RANK[c] for c in seat.cards]
    if d.kind == EXCHANGE:
        give = tuple(c for c, r in zip(seat.cards, ranks, strict=True) if r < HIGH and ranks.count(r) == 1)
        return Action(d.seat, EXCHANGE, cards=give[: d.max_cards]) if give else Action(d.seat, DECLINE)
    if d.kind == INCREMENT_2:
        ranks.append(POKER_RANK[rnd.community[0]])
    paired = [r for r in set(ranks) if ranks.count(r) >= 2]
    good = any(r >= HIGH for r in paired) if d.kind == INCREMENT_2 else bool(paired)
    return Action(d.seat, d.kind) if good else Action(d.seat, DECLINE)


def play(rounds: int, seats: int, *, seed: int = 1, log: bool = False) -> tuple[float, int]:
    """Play `rounds` rounds with `seats` players; return (seconds, events kept)."""
    session = TableSession(
        "showdown_poker",
        {"payout_limit": 500_000},
        live=False,
        rng=SeededRandom(seed),
        log=None if log else False,
    )
    bets: list[RawBet] = []
    for s in range(1, seats + 1):
        bets += [RawBet(s, f"p{s}", "bet", 1000), RawBet(s, f"p{s}", "pot", 100)]
        if s % 2:
            bets.append(RawBet(s, f"p{s}", "bonus", 100))
    events = 0
    start = time.perf_counter()
    for _ in range(rounds):
        rnd = session.start_round(bets)
        while rnd.pending is not None:
            session.apply(auto_answer(rnd))
        events += len(rnd.events)
        session.finish_round()
    return time.perf_counter() - start, events


def main() -> None:
    """Run and print rounds/s."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=20_000)
    ap.add_argument("--seats", type=int, nargs="*", default=[1, 7])
    ap.add_argument("--log", action="store_true", help="also chain every event into the in-memory log")
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    for seats in args.seats:
        if args.profile:
            prof = cProfile.Profile()
            prof.enable()
            play(args.rounds, seats, log=args.log)
            prof.disable()
            pstats.Stats(prof).sort_stats("tottime").print_stats(15)
            continue
        secs, events = play(args.rounds, seats, log=args.log)
        print(
            f"{seats} player(s){' + log' if args.log else ''}: {args.rounds / secs:,.0f} rounds/s "
            f"({args.rounds} rounds, {secs:.2f} s, {events / args.rounds:.1f} events/round)"
        )


if __name__ == "__main__":
    main()
