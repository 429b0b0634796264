"""Black Jack and Majestic 21 at speed (rules.md §1, §4): the engine's round over a real shoe, compiled.

The round is `tapete.games.blackjack.BlackjackRound`'s, step for step and card for card (so that the
cards a round takes from the shoe are the same, in the same order): the deal of Art.8 (one card to each
box left to right, the dealer's up-card, again, the dealer's hole card), Black Jacks paid at once 3:2
against 2-9 (Art.13), the retiro offered to every box in seat order unless an Ace is up (Art.9), the
insurances (Art.10; Majestic 21 Art.2a.2: 2:1 on a ten under an Ace, 10:1 on an Ace under a ten) to every
box but a Black Jack or a retired one, then each box hand by hand (a split hand's second card when its
turn comes, split Aces one card each unless the operator allows resplitting them and the holder takes
the offer, a hand at 21 complete, doubles with one card, busts lost at once), the dealer drawing to 17
only while a hand waits for his total (always, with `dealer_completes_hand`), and the settlement: dealer
Black Jack takes the original bets only (extra stakes returned, busted hands stay lost, Black Jacks
push), else 1:1 and 3:2.

The shoe is the engine's (`tapete.shoe.Shoe`): shuffled, cut at least 40 cards from either end, the cut
card `cut_card_depth` cards from the end, `burn` cards burned; the round during which the cut card
comes out is completed and is the last; then a fresh shuffle. Majestic 21's side bets are settled on the
box's first two cards, Aces counted as 1.

Every box bets `stake` on the main bet (and at Majestic 21 `side_stake` on each side bet and insures
for the maximum, half the stake, whenever offered); decisions come from a `DecisionTables` strategy.
Money is integers, as at the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from tapete.math.blackjack_tables import DecisionTables
from tapete.shoe import MIN_CUT_FROM_END
from tapete.sim.kernels.rng import U64, cut_point, deal, shuffle
from tapete.sim.kernels.tally import BetTally, ChunkResult

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
I16 = npt.NDArray[np.int16]
I8 = npt.NDArray[np.int8]
F64 = npt.NDArray[np.float64]
B = npt.NDArray[np.bool_]

#: Bets of the kernel, in its order (Black Jack plays only the first).
BETS = ("main", "under_13", "over_13", "exactly_13", "insurance_ace", "insurance_ten")
MAIN, UNDER, OVER, EXACTLY, INS_ACE, INS_TEN = range(6)
#: Outcome counters of each bet (per bet settled).
OUTCOMES: tuple[tuple[str, ...], ...] = (
    ("win", "push", "lose", "blackjack", "surrender", "double", "split", "bust"),
    ("win", "win_two_aces", "lose"),
    ("win", "lose"),
    ("win", "lose"),
    ("win", "lose"),
    ("win", "lose"),
)
N_OUT = 8
#: Round-level counters.
EVENTS = ("dealer_blackjack", "dealer_bust")
#: Codes of the recorded decisions (scenario action names).
ACTIONS = ("stand", "hit", "double", "split", "surrender", "insurance")
STAND, HIT, DOUBLE, SPLIT, SURRENDER, INSURE = range(6)
#: Most cards a recorded round may hold, most decisions (generous: a round rarely needs 20).
MAX_CARDS = 96
MAX_ACTIONS = 96

#: Value index of each card int (0 = Ace, 1..8 = 2..9, 9 = 10/J/Q/K), as the analyzer counts them.
_VI = np.array([min(c // 4, 9) for c in range(52)], dtype=np.int8)


@njit(cache=True)
def play_rounds(
    decks: int,
    depth: int,
    burn: int,
    seats: int,
    stake: int,
    side_stake: int,
    max_splits: int,
    resplit_aces: bool,
    surrender_on: bool,
    completes: bool,
    majestic: bool,
    insure: bool,
    full_shoe: bool,
    trans: I16,
    empty: int,
    surr_t: B,
    first_t: I8,
    spf_t: I8,
    spn_t: I8,
    multi_t: I8,
    mspl_t: I8,
    ace_res_t: B,
    rounds: int,
    state: U64,
    acc_i: I64,
    acc_f: F64,
    outc: I64,
    meta: I64,
    events: I64,
    rec_cards: I8,
    rec_nc: I32,
    rec_act: I8,
    rec_na: I32,
    rec_net: I64,
    rec_pos: I32,
) -> None:
    """Play `rounds` rounds from a fresh shoe (see the module docstring).

    Out (added to): ``acc_i[bet] = (bets settled, sum of results)``, ``acc_f[bet] = (sum of squared
    results, and over shoes: sum X^2, sum X N, sum N^2)``, ``outc[bet, OUTCOMES]``, ``meta = (shoes,
    shuffles, error)``, ``events``. With `rec_cards` rows: each round's cards, decisions (seat, code,
    hand or -1), results ``rec_net[round, bet, seat]`` and ``rec_pos[round] = (shoe, start, end)``.
    """
    size = 52 * decks
    pack = np.empty(size, dtype=np.int8)
    for i in range(size):
        pack[i] = i % 52
    stop = size - depth
    record = rec_cards.shape[0] >= rounds  # cards, decisions, shoe positions
    keep_nets = rec_net.shape[0] >= rounds  # each seat's result per bet
    kmax = spf_t.shape[2]
    maxh = max_splits + 1
    maxc = rec_cards.shape[1]
    maxa = rec_act.shape[1]
    nb = 6
    nbets = nb if majestic else 1  # Black Jack plays the main bet only
    shoe_x = np.zeros(nb, dtype=np.int64)
    shoe_n = np.zeros(nb, dtype=np.int64)
    # per box, per hand
    h_st = np.zeros((seats, maxh), dtype=np.int64)
    h_n = np.zeros((seats, maxh), dtype=np.int64)
    h_hard = np.zeros((seats, maxh), dtype=np.int64)
    h_ace = np.zeros((seats, maxh), dtype=np.bool_)
    h_v1 = np.zeros((seats, maxh), dtype=np.int64)
    h_v2 = np.zeros((seats, maxh), dtype=np.int64)
    h_mult = np.zeros((seats, maxh), dtype=np.int64)
    h_status = np.zeros((seats, maxh), dtype=np.int64)  # 0 open, 1 done, 2 busted (settled)
    h_split = np.zeros((seats, maxh), dtype=np.bool_)
    h_aces = np.zeros((seats, maxh), dtype=np.bool_)
    nh = np.zeros(seats, dtype=np.int64)
    splits = np.zeros(seats, dtype=np.int64)
    bj = np.zeros(seats, dtype=np.bool_)
    settled = np.zeros(seats, dtype=np.bool_)
    surr = np.zeros(seats, dtype=np.bool_)
    ins = np.zeros(seats, dtype=np.int64)
    main_net = np.zeros(seats, dtype=np.int64)
    flags = np.zeros((seats, 4), dtype=np.bool_)  # doubled, split, busted, (spare)
    net = np.zeros((nb, seats), dtype=np.int64)
    placed = np.zeros((nb, seats), dtype=np.bool_)
    base = 0
    pos = 0
    shoe_no = -1
    new_shoe = True
    for r in range(rounds):
        if new_shoe:
            if shoe_n[MAIN] > 0:
                for b in range(nb):
                    x = float(shoe_x[b])
                    n = float(shoe_n[b])
                    acc_f[b, 1] += x * x
                    acc_f[b, 2] += x * n
                    acc_f[b, 3] += n * n
                    shoe_x[b] = 0
                    shoe_n[b] = 0
                meta[0] += 1
            if full_shoe:
                base = 0
            else:
                shuffle(pack, state)
                base = cut_point(size, MIN_CUT_FROM_END, state)
            pos = 0
            for _ in range(burn):  # Art.5g: burned face down
                deal(pack, base, pos, state, full_shoe)
                pos += 1
            meta[1] += 1
            shoe_no += 1
        start = pos
        nc = 0
        na = 0
        # ---------------------------------------------------------------- the deal (Art.8)
        d_hard = 0
        d_ace = False
        up = 0
        hole = 0
        for k in range(2):
            for b in range(seats):
                if k == 0:
                    nh[b] = 1
                    splits[b] = 0
                    bj[b] = False
                    settled[b] = False
                    surr[b] = False
                    ins[b] = 0
                    main_net[b] = 0
                    for f in range(4):
                        flags[b, f] = False
                    h_st[b, 0] = empty
                    h_n[b, 0] = 0
                    h_hard[b, 0] = 0
                    h_ace[b, 0] = False
                    h_mult[b, 0] = 1
                    h_status[b, 0] = 0
                    h_split[b, 0] = False
                    h_aces[b, 0] = False
                if pos >= size:
                    meta[2] = 1
                    return
                c = deal(pack, base, pos, state, full_shoe)
                pos += 1
                if record and nc < maxc:
                    rec_cards[r, nc] = c
                nc += 1
                v = _VI[c]
                h_st[b, 0] = trans[h_st[b, 0], v]
                h_n[b, 0] += 1
                h_hard[b, 0] += v + 1
                if v == 0:
                    h_ace[b, 0] = True
                if k == 0:
                    h_v1[b, 0] = v
                else:
                    h_v2[b, 0] = v
            c = deal(pack, base, pos, state, full_shoe)
            pos += 1
            if record and nc < maxc:
                rec_cards[r, nc] = c
            nc += 1
            v = _VI[c]
            d_hard += v + 1
            if v == 0:
                d_ace = True
            if k == 0:
                up = v
            else:
                hole = v
        dealer_bj = (up == 0 and hole == 9) or (up == 9 and hole == 0)
        # ---------------------------------------------------------------- side bets (M21 Art.1a)
        for b in range(nbets):
            for s in range(seats):
                net[b, s] = 0
                placed[b, s] = b == MAIN or (majestic and b <= EXACTLY)
        if majestic:
            for b in range(seats):
                tot = h_v1[b, 0] + h_v2[b, 0] + 2  # Aces count 1
                if tot < 13:
                    if h_v1[b, 0] == 0 and h_v2[b, 0] == 0:
                        net[UNDER, b] = side_stake * 3 // 2
                        outc[UNDER, 1] += 1
                    else:
                        net[UNDER, b] = side_stake
                        outc[UNDER, 0] += 1
                else:
                    net[UNDER, b] = -side_stake
                    outc[UNDER, 2] += 1
                if tot > 13:
                    net[OVER, b] = side_stake
                    outc[OVER, 0] += 1
                else:
                    net[OVER, b] = -side_stake
                    outc[OVER, 1] += 1
                if tot == 13:
                    net[EXACTLY, b] = 10 * side_stake
                    outc[EXACTLY, 0] += 1
                else:
                    net[EXACTLY, b] = -side_stake
                    outc[EXACTLY, 1] += 1
        # ---------------------------------------------------------------- Black Jacks (Art.13)
        for b in range(seats):
            if h_hard[b, 0] == 11 and h_ace[b, 0]:
                bj[b] = True
                h_status[b, 0] = 1
                if 1 <= up <= 8:
                    main_net[b] = stake * 3 // 2
                    settled[b] = True
        # ---------------------------------------------------------------- retiro (Art.9)
        if surrender_on and up != 0:
            for b in range(seats):
                if not bj[b] and surr_t[up, h_st[b, 0]]:
                    surr[b] = True
                    settled[b] = True
                    main_net[b] = stake // 2 - stake
                    if record and na < maxa:
                        rec_act[r, na, 0] = b + 1
                        rec_act[r, na, 1] = SURRENDER
                        rec_act[r, na, 2] = -1
                    na += 1
        # ---------------------------------------------------------------- insurance (Art.10, M21 Art.2a.2)
        kind = -1
        if up == 0:
            kind = INS_ACE
        elif up == 9 and majestic:
            kind = INS_TEN
        if kind >= 0 and insure:
            cap = stake // 2
            for b in range(seats):
                if not bj[b] and not surr[b] and cap >= 1:
                    ins[b] = cap
                    if record and na < maxa:
                        rec_act[r, na, 0] = b + 1
                        rec_act[r, na, 1] = INSURE
                        rec_act[r, na, 2] = -1
                    na += 1
        # ---------------------------------------------------------------- the boxes play (Art.11, 12, 14)
        for b in range(seats):
            if settled[b] or surr[b] or bj[b]:
                continue
            i = 0
            while i < nh[b]:
                if h_status[b, i] == 0 and h_n[b, i] == 1:  # a split hand's second card, in turn
                    if pos >= size:
                        meta[2] = 1
                        return
                    c = deal(pack, base, pos, state, full_shoe)
                    pos += 1
                    if record and nc < maxc:
                        rec_cards[r, nc] = c
                    nc += 1
                    v = _VI[c]
                    h_st[b, i] = trans[h_st[b, i], v]
                    h_n[b, i] = 2
                    h_hard[b, i] += v + 1
                    if v == 0:
                        h_ace[b, i] = True
                    h_v2[b, i] = v
                    if h_aces[b, i]:
                        if not (resplit_aces and splits[b] < max_splits and v == 0):
                            h_status[b, i] = 1
                    elif h_hard[b, i] == 11 and h_ace[b, i]:  # 21 (not a Black Jack after a split)
                        h_status[b, i] = 1
                if h_status[b, i] != 0:
                    i += 1
                    continue
                if h_aces[b, i]:  # the offer to resplit Aces
                    if not ace_res_t[up]:
                        h_status[b, i] = 1
                        i += 1
                        continue
                    code = SPLIT
                elif h_n[b, i] == 2:
                    st = h_st[b, i]
                    if not h_split[b, i]:
                        code = first_t[up, st]
                    else:
                        kk = min(splits[b] - 1, kmax - 1)
                        p = h_v1[b, i]
                        if h_v1[b, i] == h_v2[b, i] and splits[b] < max_splits:
                            code = spf_t[up, p, kk, st]
                        else:
                            code = spn_t[up, p, kk, st]
                    if code == SPLIT and not (h_v1[b, i] == h_v2[b, i] and splits[b] < max_splits):
                        code = HIT  # pragma: no cover - the tables never split what cannot be split
                else:
                    st = h_st[b, i]
                    if h_split[b, i]:
                        kk = min(splits[b] - 1, kmax - 1)
                        code = mspl_t[up, h_v1[b, i], kk, st]
                    else:
                        code = multi_t[up, st]
                if record and na < maxa:
                    rec_act[r, na, 0] = b + 1
                    rec_act[r, na, 1] = code
                    rec_act[r, na, 2] = i if nh[b] > 1 else -1
                na += 1
                if code == STAND:
                    h_status[b, i] = 1
                elif code == SPLIT:
                    splits[b] += 1
                    flags[b, 1] = True
                    for j in range(nh[b], i + 1, -1):
                        h_st[b, j] = h_st[b, j - 1]
                        h_n[b, j] = h_n[b, j - 1]
                        h_hard[b, j] = h_hard[b, j - 1]
                        h_ace[b, j] = h_ace[b, j - 1]
                        h_v1[b, j] = h_v1[b, j - 1]
                        h_v2[b, j] = h_v2[b, j - 1]
                        h_mult[b, j] = h_mult[b, j - 1]
                        h_status[b, j] = h_status[b, j - 1]
                        h_split[b, j] = h_split[b, j - 1]
                        h_aces[b, j] = h_aces[b, j - 1]
                    nh[b] += 1
                    p = h_v1[b, i]
                    for j in (i, i + 1):
                        h_st[b, j] = trans[empty, p]
                        h_n[b, j] = 1
                        h_hard[b, j] = p + 1
                        h_ace[b, j] = p == 0
                        h_v1[b, j] = p
                        h_mult[b, j] = 1
                        h_status[b, j] = 0
                        h_split[b, j] = True
                        h_aces[b, j] = p == 0
                else:  # hit or double: one card
                    if code == DOUBLE:
                        h_mult[b, i] = 2
                        flags[b, 0] = True
                    if pos >= size:
                        meta[2] = 1
                        return
                    c = deal(pack, base, pos, state, full_shoe)
                    pos += 1
                    if record and nc < maxc:
                        rec_cards[r, nc] = c
                    nc += 1
                    v = _VI[c]
                    h_n[b, i] += 1
                    h_hard[b, i] += v + 1
                    if v == 0:
                        h_ace[b, i] = True
                    if h_n[b, i] == 2:
                        h_v2[b, i] = v
                    h_st[b, i] = trans[h_st[b, i], v] if h_hard[b, i] <= 21 else -1
                    if h_hard[b, i] > 21:  # a bust loses at once
                        h_status[b, i] = 2
                        flags[b, 2] = True
                        main_net[b] -= stake * h_mult[b, i]
                    elif code == DOUBLE:
                        h_status[b, i] = 1
                    else:
                        tot = h_hard[b, i] + 10 if (h_ace[b, i] and h_hard[b, i] <= 11) else h_hard[b, i]
                        if tot == 21:
                            h_status[b, i] = 1
        # ---------------------------------------------------------------- dealer and settlement
        if kind >= 0:
            wins = (kind == INS_ACE and hole == 9) or (kind == INS_TEN and hole == 0)
            pays = 2 if kind == INS_ACE else 10
            for b in range(seats):
                if ins[b] > 0:
                    placed[kind, b] = True
                    if wins:
                        net[kind, b] = ins[b] * pays
                        outc[kind, 0] += 1
                    else:
                        net[kind, b] = -ins[b]
                        outc[kind, 1] += 1
        if dealer_bj:
            events[0] += 1
            for b in range(seats):
                if settled[b]:
                    continue
                if bj[b]:
                    continue  # push
                if h_status[b, 0] != 2:
                    main_net[b] -= stake  # the original bet; doubles and split stakes come back
        else:
            live = False
            for b in range(seats):
                if not settled[b] and not bj[b]:
                    for i in range(nh[b]):
                        if h_status[b, i] != 2:
                            live = True
            d_tot = d_hard + 10 if (d_ace and d_hard <= 11) else d_hard
            while (live or completes) and d_tot < 17:  # rules.md §1: dealer_completes_hand
                if pos >= size:
                    meta[2] = 1
                    return
                c = deal(pack, base, pos, state, full_shoe)
                pos += 1
                if record and nc < maxc:
                    rec_cards[r, nc] = c
                nc += 1
                v = _VI[c]
                d_hard += v + 1
                if v == 0:
                    d_ace = True
                d_tot = d_hard + 10 if (d_ace and d_hard <= 11) else d_hard
            if d_tot > 21:
                events[1] += 1
            for b in range(seats):
                if settled[b]:
                    continue
                if bj[b]:
                    main_net[b] = stake * 3 // 2
                    continue
                for i in range(nh[b]):
                    if h_status[b, i] == 2:
                        continue
                    mine = h_hard[b, i] + 10 if (h_ace[b, i] and h_hard[b, i] <= 11) else h_hard[b, i]
                    if d_tot > 21 or mine > d_tot:
                        main_net[b] += stake * h_mult[b, i]
                    elif mine < d_tot:
                        main_net[b] -= stake * h_mult[b, i]
        # ---------------------------------------------------------------- tallies
        for b in range(seats):
            m = main_net[b]
            net[MAIN, b] = m
            outc[MAIN, 0 if m > 0 else (1 if m == 0 else 2)] += 1
            if bj[b]:
                outc[MAIN, 3] += 1
            if surr[b]:
                outc[MAIN, 4] += 1
            if flags[b, 0]:
                outc[MAIN, 5] += 1
            if flags[b, 1]:
                outc[MAIN, 6] += 1
            if flags[b, 2]:
                outc[MAIN, 7] += 1
        for bet in range(nbets):
            for b in range(seats):
                if placed[bet, b]:
                    x = net[bet, b]
                    acc_i[bet, 0] += 1
                    acc_i[bet, 1] += x
                    acc_f[bet, 0] += float(x) * float(x)
                    shoe_x[bet] += x
                    shoe_n[bet] += 1
                if keep_nets:
                    rec_net[r, bet, b] = net[bet, b] if placed[bet, b] else 0
        if record:
            if nc > maxc or na > maxa:
                meta[2] = 2
                return
            rec_nc[r] = nc
            rec_na[r] = na
            rec_pos[r, 0] = shoe_no
            rec_pos[r, 1] = start
            rec_pos[r, 2] = pos
        new_shoe = full_shoe or pos > stop  # Art.6: the cut card came out during this round: the last
    if shoe_n[MAIN] > 0:
        for b in range(nb):
            x = float(shoe_x[b])
            n = float(shoe_n[b])
            acc_f[b, 1] += x * x
            acc_f[b, 2] += x * n
            acc_f[b, 3] += n * n
        meta[0] += 1


@dataclass(frozen=True)
class BlackjackRecord:
    """Rounds kept for a cross-check (see `play_rounds`)."""

    cards: I8
    ncards: I32
    actions: I8
    nactions: I32
    nets: I64
    pos: I32


@dataclass(frozen=True)
class BlackjackPlan:
    """Everything a worker needs to play Black Jack or Majestic 21 chunks (picklable)."""

    game: str
    settings: dict[str, Any]
    decks: int
    depth: int
    burn: int
    seats: int
    stake: int
    side_stake: int
    #: the splits the pack allows (`BlackjackRules.splits_possible`), never the raw setting: it sizes
    #: the kernel's hands per box
    max_splits: int
    resplit_aces: bool
    surrender: bool
    tables: DecisionTables
    trans: I16
    empty: int
    full_shoe: bool = False
    events_names: tuple[str, ...] = EVENTS
    dealer_completes_hand: bool = False

    @property
    def majestic(self) -> bool:
        """Majestic 21: side bets, both insurances taken whenever offered."""
        return self.game == "majestic_21"

    @property
    def strategy(self) -> str:
        """The strategy's name."""
        return self.tables.name

    @property
    def bets(self) -> tuple[str, ...]:
        """The bets measured (`tapete analyze`'s names)."""
        return BETS if self.majestic else BETS[:1]

    @property
    def stakes(self) -> tuple[int, ...]:
        """Each bet's stake (an insurance is half the main stake, the most Art.10 allows)."""
        all_stakes = (self.stake, self.side_stake, self.side_stake, self.side_stake)
        return (*all_stakes, self.stake // 2, self.stake // 2)[: len(self.bets)]

    @property
    def outcome_names(self) -> tuple[tuple[str, ...], ...]:
        """Outcome names of each bet."""
        return OUTCOMES[: len(self.bets)]

    def new_record(self, rounds: int, *, nets_only: bool = False) -> BlackjackRecord:
        """Empty arrays for `rounds` recorded rounds (`nets_only`: the results alone, for sessions)."""
        full = 0 if nets_only else rounds
        return BlackjackRecord(
            cards=np.full((full, MAX_CARDS), -1, dtype=np.int8),
            ncards=np.zeros(full, dtype=np.int32),
            actions=np.zeros((full, MAX_ACTIONS, 3), dtype=np.int8),
            nactions=np.zeros(full, dtype=np.int32),
            nets=np.zeros((rounds, len(BETS), self.seats), dtype=np.int64),
            pos=np.zeros((full, 3), dtype=np.int32),
        )

    def round_nets(self, record: BlackjackRecord) -> I64:
        """Each recorded round's result per bet per seat, [rounds, bets, seats], money units."""
        out: I64 = record.nets[:, : len(self.bets), :]
        return out

    def play(self, index: int, rounds: int, state: U64, record: BlackjackRecord | None = None) -> ChunkResult:
        """Play chunk `index` of `rounds` rounds from generator state `state`."""
        nb = len(BETS)
        acc_i = np.zeros((nb, 2), dtype=np.int64)
        acc_f = np.zeros((nb, 4), dtype=np.float64)
        outc = np.zeros((nb, N_OUT), dtype=np.int64)
        meta = np.zeros(3, dtype=np.int64)
        events = np.zeros(len(EVENTS), dtype=np.int64)
        rec = record if record is not None else self.new_record(0)
        t = self.tables
        play_rounds(
            self.decks,
            self.depth,
            self.burn,
            self.seats,
            self.stake,
            self.side_stake,
            self.max_splits,
            self.resplit_aces,
            self.surrender,
            self.dealer_completes_hand,
            self.majestic,
            self.majestic,
            self.full_shoe,
            self.trans,
            self.empty,
            t.surrender,
            t.first,
            t.split_first,
            t.split_first_no,
            t.multi,
            t.split_multi,
            t.resplit_aces,
            rounds,
            state,
            acc_i,
            acc_f,
            outc,
            meta,
            events,
            rec.cards,
            rec.ncards,
            rec.actions,
            rec.nactions,
            rec.nets,
            rec.pos,
        )
        if meta[2] == 1:  # pragma: no cover - needs a round of more cards than the cut card leaves
            raise RuntimeError("the shoe ran out during a round")
        if meta[2] == 2:  # pragma: no cover - a recorded round of more than MAX_CARDS cards
            raise RuntimeError("a recorded round has more cards or decisions than the record holds")
        bets = [
            BetTally(
                n=int(acc_i[b, 0]),
                total=int(acc_i[b, 1]),
                squares=float(acc_f[b, 0]),
                cx2=float(acc_f[b, 1]),
                cxn=float(acc_f[b, 2]),
                cn2=float(acc_f[b, 3]),
                outcomes=[int(x) for x in outc[b, : len(OUTCOMES[b])]],
            )
            for b in range(len(self.bets))
        ]
        return ChunkResult(index, rounds, int(meta[0]), int(meta[1]), bets, [int(x) for x in events])
