"""Showdown Póker on the ENGINE (rules.md §3): rounds through `TableSession` on a seeded one-deck shoe
(shuffled and cut before every round by the session, Art.7), seats playing the exact optimal strategy of
`tapete.math.showdown`, to confirm the analysis's house edges within their confidence intervals.

The analysis models one player, so the default table has ONE seat (seat 1: bet = the unit, the fixed
pot bet, a bonus). He knows only what the round shows him: his cards, his discards and the community
cards once turned. He exchanges as ``analysis.best_keep(his three cards)`` says, and makes increment Nº1
and Nº2 by the analysis's own rule (`increment_decisions`: strictly positive expected gain).

Tallies, per unit of each bet's INITIAL stake: ``bet`` (bet + increments net, divided by the bet), ``bonus``
(net / bonus stake). With one player the pot bet is returned, so ``pot`` is tallied only with
``players >= 2`` (its exact cost per unit of pot bet is then the commission; every seat is tallied).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tapete.games.base import DECLINE, Action, Decision
from tapete.games.showdown import (
    EXCHANGE,
    INCREMENT_1,
    INCREMENT_2,
    ShowdownRound,
    bonus_limits,
)
from tapete.math.showdown import (
    OUTCOMES,
    ShowdownAnalysis,
    analyze_showdown,
    increment_decisions,
    outcome_class,
)
from tapete.rules.showdown import ShowdownRules
from tapete.session import TableSession
from tapete.shoe import SeededRandom
from tapete.sim import ProgressFn, SimResult
from tapete.table import RawBet

__all__ = ["ROUNDS_PER_SESSION", "OptimalPlayer", "ShowdownStats", "run_showdown", "strategy_for"]

#: The session chains the shoe's procedures (shuffle, cut, load, burn: Art.7 before EVERY round) into its
#: in-memory log, ~4 records a round; a long run opens a new session (a fresh pack, shuffled and cut, on
#: the same seeded generator) every this many rounds so memory stays bounded. Every round still starts
#: from a full pack shuffled and cut, as at the table.
ROUNDS_PER_SESSION = 1000


@dataclass
class ShowdownStats:
    """How the seats played and ended (counts over every seat-round), to compare with the analysis's
    frequencies: cards exchanged, increments made (0, 1, 2) and the final hand's category."""

    seat_rounds: int = 0
    exchanged: Counter[int] = field(default_factory=Counter)
    increments: Counter[int] = field(default_factory=Counter)
    categories: Counter[str] = field(default_factory=Counter)


def strategy_for(rules: ShowdownRules) -> ShowdownAnalysis:
    """The exact analysis for this table's exchange limit, paytables (the bet's: Art.11's figures or the
    operator's higher ones, Art.12) and pot commission. Cached per settings by `analyze_showdown`."""
    return analyze_showdown(
        max_exchange=rules.max_exchange,
        paytable=rules.pays,
        bonus_paytable=rules.bonus_paytable,
        pot_commission_percent=rules.pot_commission_percent,
    )


class OptimalPlayer:
    """The analysis's optimal strategy answering the offers of a round, from what the asked player sees:
    his own cards and discards and the community cards already shown (never the unturned ones or the
    shoe). The exchange is ``analysis.best_keep`` (memoised per starting hand, 22,100 of them); the
    increments are `increment_decisions`, the analysis's own rule."""

    def __init__(self, analysis: ShowdownAnalysis) -> None:
        self.analysis = analysis
        self._keeps: dict[tuple[int, ...], tuple[int, ...]] = {}

    def keep(self, cards: Sequence[int]) -> tuple[int, ...]:
        """The cards the optimal exchange keeps from this starting hand."""
        hand = tuple(sorted(cards))
        kept = self._keeps.get(hand)
        if kept is None:
            kept = self._keeps[hand] = self.analysis.best_keep(hand)
        return kept

    def __call__(self, rnd: ShowdownRound) -> Action:
        """The answer to the offer pending in `rnd`."""
        d = rnd.pending
        assert isinstance(d, Decision)
        seat = next(s for s in rnd.seats if s.seat == d.seat)
        if d.kind == EXCHANGE:
            keep = self.keep(seat.cards)
            give = tuple(c for c in seat.cards if c not in keep)
            return Action(d.seat, EXCHANGE, cards=give) if give else Action(d.seat, DECLINE)
        if d.kind == INCREMENT_1:
            make1, _ = increment_decisions(seat.cards, seat.discarded)
            return Action(d.seat, INCREMENT_1) if make1 else Action(d.seat, DECLINE)
        assert d.kind == INCREMENT_2 and rnd.shown >= 1  # Art.9.3: community card 1 is face up
        _, make2 = increment_decisions(seat.cards, seat.discarded, rnd.community[0])
        return Action(d.seat, INCREMENT_2) if make2 else Action(d.seat, DECLINE)


def run_showdown(
    settings: dict[str, Any],
    rounds: int,
    seed: int,
    progress: ProgressFn | None = None,
    *,
    players: int = 1,
    stats: ShowdownStats | None = None,
) -> SimResult:
    """Play `rounds` rounds of Showdown Póker on the engine with `players` seats (1-7) playing the exact
    optimal strategy; tally each bet per unit of its initial stake (see the module docstring)."""
    if not 1 <= players <= 7:
        raise ValueError(f"Showdown Póker seats 1 to 7 players, not {players}")
    rng = SeededRandom(seed)
    session = TableSession("showdown_poker", settings, live=False, rng=rng, log=False)
    rules = session.rules
    assert isinstance(rules, ShowdownRules)
    player = OptimalPlayer(strategy_for(rules))
    unit = rules.table_min
    bonus = bonus_limits(rules)[0]
    bets: list[RawBet] = []
    for k in range(1, players + 1):
        bets += [
            RawBet(k, f"p{k}", "bet", unit),
            RawBet(k, f"p{k}", "pot", rules.pot_amount),
            RawBet(k, f"p{k}", "bonus", bonus),
        ]
    result = SimResult("showdown_poker", rounds)
    bet, side = result.tally("bet"), result.tally("bonus")
    pot = result.tally("pot") if players >= 2 else None
    for i in range(rounds):
        if i and i % ROUNDS_PER_SESSION == 0:  # bounded memory: see ROUNDS_PER_SESSION
            session = TableSession("showdown_poker", rules, live=False, rng=rng, log=False)
        rnd = session.start_round(bets)
        assert isinstance(rnd, ShowdownRound)
        while rnd.pending is not None:
            session.apply(player(rnd))
        for s in rnd.seats:
            bet.add((s.hand_paid - s.stake) / s.bet, s.bet)
            side.add((s.bonus_paid - s.bonus) / s.bonus, s.bonus)
            if pot is not None:
                pot.add((s.pot_paid - s.pot) / s.pot, s.pot)
            if stats is not None:
                stats.seat_rounds += 1
                stats.exchanged[len(s.discarded)] += 1
                stats.increments[len(s.increments)] += 1
                stats.categories[OUTCOMES[outcome_class(s.strength)]] += 1
        session.current = None
        if progress is not None and i % 2000 == 0:
            progress(i, rounds)
    if progress is not None:
        progress(rounds, rounds)
    return result
