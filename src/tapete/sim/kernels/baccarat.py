"""Punto y Banca at speed (rules.md §2): the coup of Art.10-11 over a real shoe, compiled by Numba.

The shoe is the engine's (`tapete.shoe.Shoe`): the pack shuffled (Fisher-Yates), cut at least 40 cards
from either end, the cut card `cut_card_depth` cards from the end, burned (by default the first card's
value, a ten or face counting 10 [A]); the coup during which the cut card comes out is completed and is
the shoe's last; then the pack is shuffled again. Nobody decides anything, so a coup is its winner: the
kernel counts Punto, Banca and tie wins per shoe, and every bet's sums follow exactly from those counts
(each bet's result is fixed by the winner), in integers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from tapete.rules.punto_y_banca import PuntoYBancaRules
from tapete.shoe import MIN_CUT_FROM_END
from tapete.sim.kernels.rng import U64, cut_point, deal, shuffle
from tapete.sim.kernels.tally import BetTally, ChunkResult

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
I8 = npt.NDArray[np.int8]

#: Baccarat value of each card int (tapete.cards: rank * 4 + suit, Ace = rank 0; 10/J/Q/K = 0).
_VALUE = np.array([(c // 4 + 1) if c // 4 < 9 else 0 for c in range(52)], dtype=np.int8)
PUNTO, BANCA, TIE = 0, 1, 2
BETS = ("punto", "banca", "empate")
OUTCOMES = ("win", "push", "lose")
EVENTS = ("natural", "punto_draws", "banca_draws")
#: Columns of a recorded coup's info row.
INFO = ("shoe", "start", "end", "punto_total", "banca_total", "punto_cards", "banca_cards", "winner")


@njit(cache=True)
def _banca_draws(b2: int, x: int) -> bool:
    """Art.11 (as `tapete.math.baccarat.banca_draws`): x = Punto's third card's value, -1 if he stood."""
    if x < 0:
        return b2 <= 5
    if b2 <= 2:
        return True
    if b2 == 3:
        return x != 8
    if b2 == 4:
        return 2 <= x <= 7
    if b2 == 5:
        return 4 <= x <= 7
    if b2 == 6:
        return 6 <= x <= 7
    return False


@njit(cache=True)
def play_coups(
    decks: int,
    depth: int,
    burn: int,
    full_shoe: bool,
    rounds: int,
    state: U64,
    wins: I64,
    moments: I64,
    meta: I64,
    events: I64,
    rec_cards: I8,
    rec_info: I32,
) -> None:
    """Play `rounds` coups from a fresh shoe. `burn` < 0 burns by the first card's value [A].

    Out (added to): ``wins[3]`` Punto/Banca/tie, ``moments[3, 3]`` the sum over shoes of the outer
    product of a shoe's win counts, ``meta`` = (shoes, shuffles, error), ``events`` (naturals, Punto
    draws, Banca draws). When `rec_cards` has rows, each coup's cards (-1 padded) and `INFO` are kept.
    """
    size = 52 * decks
    pack = np.empty(size, dtype=np.int8)
    for i in range(size):
        pack[i] = i % 52
    stop = size - depth
    record = rec_cards.shape[0] >= rounds  # the cards
    keep_info = rec_info.shape[0] >= rounds  # shoe positions, totals, the winner
    shoe = np.zeros(3, dtype=np.int64)
    base = 0
    pos = 0
    shoe_no = -1
    new_shoe = True
    for r in range(rounds):
        if new_shoe:
            if shoe[0] + shoe[1] + shoe[2] > 0:
                for a in range(3):
                    for b in range(3):
                        moments[a, b] += shoe[a] * shoe[b]
                meta[0] += 1
                shoe[:] = 0
            if full_shoe:
                base = 0
            else:
                shuffle(pack, state)
                base = cut_point(size, MIN_CUT_FROM_END, state)
            pos = 0
            meta[1] += 1
            shoe_no += 1
            n_burn = burn
            if burn < 0:  # PyB Art.5g [A]: turn the first card, burn it and as many as its value
                v = _VALUE[deal(pack, base, pos, state, full_shoe)]
                pos += 1
                n_burn = v if v > 0 else 10
            for _ in range(n_burn):
                deal(pack, base, pos, state, full_shoe)
                pos += 1
        start = pos
        if pos + 6 > size:  # the engine's shoe would run out (cannot happen with a legal cut card)
            meta[2] = 1
            return
        p1 = deal(pack, base, pos, state, full_shoe)
        b1 = deal(pack, base, pos + 1, state, full_shoe)
        p2 = deal(pack, base, pos + 2, state, full_shoe)
        b2 = deal(pack, base, pos + 3, state, full_shoe)
        pos += 4
        pt = (_VALUE[p1] + _VALUE[p2]) % 10
        bt = (_VALUE[b1] + _VALUE[b2]) % 10
        p3 = -1
        b3 = -1
        if pt >= 8 or bt >= 8:
            events[0] += 1
        else:
            x = -1
            if pt <= 5:
                p3 = deal(pack, base, pos, state, full_shoe)
                pos += 1
                x = _VALUE[p3]
                pt = (pt + x) % 10
                events[1] += 1
            if _banca_draws(bt, x):
                b3 = deal(pack, base, pos, state, full_shoe)
                pos += 1
                bt = (bt + _VALUE[b3]) % 10
                events[2] += 1
        w = PUNTO if pt > bt else (BANCA if bt > pt else TIE)
        wins[w] += 1
        shoe[w] += 1
        if record:
            rec_cards[r, 0] = p1
            rec_cards[r, 1] = b1
            rec_cards[r, 2] = p2
            rec_cards[r, 3] = b2
            k = 4
            if p3 >= 0:
                rec_cards[r, k] = p3
                k += 1
            if b3 >= 0:
                rec_cards[r, k] = b3
                k += 1
            for j in range(k, 6):
                rec_cards[r, j] = -1
        if keep_info:
            rec_info[r, 0] = shoe_no
            rec_info[r, 1] = start
            rec_info[r, 2] = pos
            rec_info[r, 3] = pt
            rec_info[r, 4] = bt
            rec_info[r, 5] = 3 if p3 >= 0 else 2
            rec_info[r, 6] = 3 if b3 >= 0 else 2
            rec_info[r, 7] = w
        new_shoe = full_shoe or pos > stop  # Art.6: the cut card came out during this coup: the last
    if shoe[0] + shoe[1] + shoe[2] > 0:
        for a in range(3):
            for b in range(3):
                moments[a, b] += shoe[a] * shoe[b]
        meta[0] += 1


@dataclass(frozen=True)
class BaccaratRecord:
    """Coups kept for a cross-check: cards in shoe order (-1 padded) and the `INFO` columns."""

    cards: I8
    info: I32


@dataclass(frozen=True)
class BaccaratPlan:
    """Everything a worker needs to play Punto y Banca chunks (picklable: plain numbers)."""

    settings: dict[str, Any]
    decks: int
    depth: int
    burn: int  # -1 = by the first card's value
    stake: int
    nets: tuple[tuple[int, int, int], ...]  # nets[bet][winner], money units
    full_shoe: bool = False  # a freshly shuffled full pack every coup (the exact analysis's assumption)
    game: str = "punto_y_banca"
    bets: tuple[str, ...] = BETS
    seats: int = 3
    strategy: str = "none"
    events_names: tuple[str, ...] = EVENTS

    @property
    def stakes(self) -> tuple[int, ...]:
        """The stake of each bet (one bettor on each of Punto, Banca, Empate)."""
        return (self.stake,) * 3

    @property
    def outcome_names(self) -> tuple[tuple[str, ...], ...]:
        """Outcome names of each bet (win / push / lose)."""
        return (OUTCOMES,) * 3

    def play(self, index: int, rounds: int, state: U64, record: BaccaratRecord | None = None) -> ChunkResult:
        """Play chunk `index` of `rounds` coups from generator state `state`."""
        wins = np.zeros(3, dtype=np.int64)
        moments = np.zeros((3, 3), dtype=np.int64)
        meta = np.zeros(3, dtype=np.int64)
        events = np.zeros(3, dtype=np.int64)
        rec_cards = record.cards if record is not None else np.zeros((0, 6), dtype=np.int8)
        rec_info = record.info if record is not None else np.zeros((0, len(INFO)), dtype=np.int32)
        play_coups(
            self.decks,
            self.depth,
            self.burn,
            self.full_shoe,
            rounds,
            state,
            wins,
            moments,
            meta,
            events,
            rec_cards,
            rec_info,
        )
        if meta[2]:  # pragma: no cover - impossible with a cut card at least 40 cards deep
            raise RuntimeError("the shoe ran out during a coup")
        return ChunkResult(
            index=index,
            rounds=rounds,
            clusters=int(meta[0]),
            shuffles=int(meta[1]),
            bets=[self._tally(b, wins, moments) for b in range(3)],
            events=[int(x) for x in events],
        )

    def _tally(self, bet: int, wins: I64, moments: I64) -> BetTally:
        """A bet's exact sums from the win counts (its result is fixed by the coup's winner)."""
        net = self.nets[bet]
        w = [int(x) for x in wins]
        m = [[int(moments[a, b]) for b in range(3)] for a in range(3)]
        out = [0, 0, 0]  # win / push / lose
        for k in range(3):
            out[0 if net[k] > 0 else 1 if net[k] == 0 else 2] += w[k]
        return BetTally(
            n=sum(w),
            total=sum(w[k] * net[k] for k in range(3)),
            squares=sum(w[k] * net[k] * net[k] for k in range(3)),
            cx2=sum(m[a][b] * net[a] * net[b] for a in range(3) for b in range(3)),
            cxn=sum(m[a][b] * net[a] for a in range(3) for b in range(3)),
            cn2=sum(m[a][b] for a in range(3) for b in range(3)),
            outcomes=out,
        )

    def new_record(self, rounds: int, *, nets_only: bool = False) -> BaccaratRecord:
        """Empty arrays for `rounds` recorded coups (`nets_only`: the info columns alone)."""
        cards = np.zeros((0 if nets_only else rounds, 6), dtype=np.int8)
        return BaccaratRecord(cards, np.zeros((rounds, len(INFO)), dtype=np.int32))

    def round_nets(self, record: BaccaratRecord) -> I64:
        """Each recorded coup's result per bet, [rounds, bets, 1] (a seat per bet), money units."""
        table = np.array(self.nets, dtype=np.int64).T  # [winner, bet]
        out: I64 = table[record.info[:, 7]][:, :, None]
        return out


def baccarat_plan(rules: PuntoYBancaRules, stake: int, *, full_shoe: bool = False) -> BaccaratPlan:
    """The plan for a table's settings: one bettor on each bet with `stake`; nets as the engine pays
    them (Art.8: Punto 1:1; Banca 1:1 less the commission, rounded down; Empate tie_pays:1; Punto and
    Banca push on a tie [A])."""
    banca_win = stake * (100 - rules.commission_percent) // 100
    nets = (
        (stake, -stake, 0),
        (-stake, banca_win, 0),
        (-stake, -stake, stake * rules.tie_pays),
    )
    burn = -1 if rules.burn == "first_card_value" else int(rules.burn)
    return BaccaratPlan(
        settings=dict(rules.settings()),
        decks=rules.decks,
        depth=rules.cut_depth,
        burn=burn,
        stake=stake,
        nets=nets,
        full_shoe=full_shoe,
    )
