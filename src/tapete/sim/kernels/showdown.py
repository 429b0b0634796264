"""Showdown Póker at speed (rules.md §3): the engine's round, compiled, with the exact optimal play.

As `tapete.games.showdown.ShowdownRound` plays it, card for card: the deck shuffled and cut (one-handed)
before every round (Art.7), `burn` cards burned [A: none], the deal of Art.9.1 (first card to each seat,
community 1, second card to each seat, community 2, third card to each seat), the exchange offered to
every seat in seat order with its replacements dealt at once in the hand's order (Art.9.2), increment
Nº1 offered to every seat, community 1 shown, Nº2 offered to those who made Nº1 (Art.9.2-9.4), then
the settlement: bet and increments by Art.10-11 under the payout limit of Art.12-13, the pot to the
best hand(s) less the commission (split equally, the remainder to the earliest seat; returned to a lone
player), and the bonus by its paytable [A].

Every seat posts the bet, the pot bet and a bonus and plays the exact analysis's strategy: the exchange
of `ShowdownAnalysis.best_keep` and the increments of `increment_decisions`, read from the tables of
`tapete.math.showdown.strategy_tables` (the same integers, no floating point).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from tapete.math.showdown import OUTCOMES as HANDS
from tapete.math.showdown import ShowdownTables, analyze_showdown, strategy_tables
from tapete.poker import strength_tables, table_strength
from tapete.rules.showdown import DEFAULT_BONUS_PAYTABLE, ShowdownRules
from tapete.sim.kernels.rng import U64, below, shuffle
from tapete.sim.kernels.tally import BetTally, ChunkResult

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
I16 = npt.NDArray[np.int16]
I8 = npt.NDArray[np.int8]
F64 = npt.NDArray[np.float64]

BETS = ("bet", "bonus", "pot")
BET, BONUS, POT = range(3)
EXCHANGED = tuple(f"exchanged_{k}" for k in range(4))
INCREMENTS = tuple(f"increments_{k}" for k in range(3))
OUTCOMES: tuple[tuple[str, ...], ...] = (
    ("win", "push", "lose", *HANDS, *EXCHANGED, *INCREMENTS),
    ("win", "lose"),
    ("win", "lose", "returned"),
)
N_OUT = len(OUTCOMES[0])
#: Codes of the recorded decisions.
ACTIONS = ("exchange", "increment_1", "increment_2")
EXCHANGE, INC1, INC2 = range(3)
MAX_CARDS = 64
#: A payout limit above this never binds in the kernels: a round's payouts on the bet and increments are
#: at most 7 seats x 3 stakes x 100000:1 x `MAX_KERNEL_STAKE` (about 2e15); the limit itself may be any
#: whole number (rules.md §3), beyond the kernels' 64-bit integers too.
NO_LIMIT_ABOVE = 2**62


@njit(cache=True, inline="always")
def _cls(strength: int) -> int:
    """Outcome class (`tapete.math.showdown.OUTCOMES`) of a poker strength: pairs split at jacks."""
    cat = strength >> 20
    if cat == 0:
        return 0
    if cat == 1:
        return 2 if ((strength >> 16) & 0xF) >= 9 else 1
    return cat + 1


@njit(cache=True, inline="always")
def _sorted3(a: int, b: int, c: int) -> tuple[int, int, int]:
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
    if a > b:
        a, b = b, a
    return a, b, c


@njit(cache=True)
def _v_vector(
    hand: I64,
    dead: I64,
    nd: int,
    tb_idx3: I32,
    tb_class: I32,
    tb_perm: I8,
    perms: I8,
    reps: I64,
    mpay: I16,
    rowsum: I32,
    v: I64,
    dead_idx: I64,
) -> tuple[int, int, int, int]:
    """``s(c1)`` over the 49 unseen cards of the final `hand` with `nd` dead cards, in the class
    representative's labelling (into `v`); returns (class, perm, sum s, sum max(0, s)) over live c1."""
    a, b, c = _sorted3(hand[0], hand[1], hand[2])
    t = tb_idx3[(a * 52 + b) * 52 + c]
    k = tb_class[t]
    p = tb_perm[t]
    r0 = reps[k, 0]
    r1 = reps[k, 1]
    r2 = reps[k, 2]
    for j in range(nd):
        x = dead[j]
        x = (x // 4) * 4 + perms[p, x % 4]
        u = x - (1 if r0 < x else 0) - (1 if r1 < x else 0) - (1 if r2 < x else 0)
        dead_idx[j] = u
    for i in range(49):
        s = np.int64(rowsum[k, i])
        for j in range(nd):
            s -= mpay[k, dead_idx[j], i]
        v[i] = s
    total = 0
    pos = 0
    for i in range(49):
        live = True
        for j in range(nd):
            if dead_idx[j] == i:
                live = False
        if live:
            total += v[i]
            if v[i] > 0:
                pos += v[i]
    return k, p, total, pos


@njit(cache=True)
def play_rounds(
    seats: int,
    burn: int,
    bet: int,
    pot: int,
    bonus: int,
    pot_pct: int,
    limit: int,
    max_exchange: int,
    keep: I8,
    idx3: I32,
    s_class: I32,
    perm: I8,
    perms: I8,
    reps: I64,
    mpay: I16,
    rowsum: I32,
    plain: I32,
    flush: I32,
    bet_pay: I64,
    bonus_pay: I64,
    rounds: int,
    state: U64,
    acc_i: I64,
    acc_f: F64,
    outc: I64,
    meta: I64,
    rec_cards: I8,
    rec_nc: I32,
    rec_act: I8,
    rec_na: I32,
    rec_net: I64,
) -> None:
    """Play `rounds` rounds (see the module docstring); sums as `tapete.sim.kernels.blackjack`'s, each
    round being its own cluster (the deck is shuffled before every round)."""
    size = 52
    pack = np.empty(size, dtype=np.int8)
    for i in range(size):
        pack[i] = i
    record = rec_cards.shape[0] >= rounds  # cards and decisions
    keep_nets = rec_net.shape[0] >= rounds  # each seat's result per bet
    cards = np.zeros((seats, 3), dtype=np.int64)
    dead = np.zeros((seats, 3), dtype=np.int64)
    nd = np.zeros(seats, dtype=np.int64)
    inc = np.zeros(seats, dtype=np.int64)
    strength = np.zeros(seats, dtype=np.int64)
    cls = np.zeros(seats, dtype=np.int64)
    win = np.zeros(seats, dtype=np.int64)
    net = np.zeros((3, seats), dtype=np.int64)
    vs = np.zeros((seats, 49), dtype=np.int64)  # each seat's s(c1) vector, class and relabelling
    kp = np.zeros((seats, 2), dtype=np.int64)
    dead_idx = np.zeros(3, dtype=np.int64)
    comm = np.zeros(2, dtype=np.int64)
    for r in range(rounds):
        shuffle(pack, state)  # Art.7: shuffled and cut before every round
        base = 1 + int(below(state, size - 1))  # a one-handed cut
        meta[1] += 1
        pos = burn
        nc = 0
        na = 0
        for k in range(3):  # Art.9.1
            for s in range(seats):
                i = base + pos
                if i >= size:
                    i -= size
                cards[s, k] = pack[i]
                pos += 1
                if record:
                    rec_cards[r, nc] = pack[i]
                nc += 1
            if k < 2:
                i = base + pos
                if i >= size:
                    i -= size
                comm[k] = pack[i]
                pos += 1
                if record:
                    rec_cards[r, nc] = pack[i]
                nc += 1
        for s in range(seats):  # Art.9.2: the exchange, replacements in the hand's order
            nd[s] = 0
            inc[s] = 0
            if max_exchange == 0:
                continue
            a, b, c = _sorted3(cards[s, 0], cards[s, 1], cards[s, 2])
            mask = keep[idx3[(a * 52 + b) * 52 + c]]
            srt = (a, b, c)
            for j in range(3):
                x = cards[s, j]
                kept = False
                for q in range(3):
                    if srt[q] == x and (mask >> q) & 1:
                        kept = True
                if not kept:
                    dead[s, nd[s]] = x
                    nd[s] += 1
            if nd[s] > 0:
                if record:
                    rec_act[r, na, 0] = s + 1
                    rec_act[r, na, 1] = EXCHANGE
                    for q in range(3):
                        rec_act[r, na, 2 + q] = dead[s, q] if q < nd[s] else -1
                na += 1
                for j in range(3):
                    x = cards[s, j]
                    gone = False
                    for q in range(nd[s]):
                        if dead[s, q] == x:
                            gone = True
                    if gone:
                        i = base + pos
                        if i >= size:
                            i -= size
                        cards[s, j] = pack[i]
                        pos += 1
                        if record:
                            rec_cards[r, nc] = pack[i]
                        nc += 1
        if pos > size:  # pragma: no cover - 7 seats use at most 44 cards
            meta[2] = 1
            return
        for s in range(seats):  # increment Nº1 (Art.9.2)
            k, p, total, positive = _v_vector(
                cards[s], dead[s], nd[s], idx3, s_class, perm, perms, reps, mpay, rowsum, vs[s], dead_idx
            )
            kp[s, 0] = k
            kp[s, 1] = p
            if total + positive > 0:
                inc[s] = 1
                if record:
                    rec_act[r, na, 0] = s + 1
                    rec_act[r, na, 1] = INC1
                    for q in range(3):
                        rec_act[r, na, 2 + q] = -1
                na += 1
        c1 = comm[0]  # Art.9.3: community 1 shown; Art.9.4: Nº2 for those who made Nº1
        for s in range(seats):
            if inc[s] == 1:  # s(c1) > 0, from the vector Nº1 was decided on
                k = kp[s, 0]
                p = kp[s, 1]
                x = (c1 // 4) * 4 + perms[p, c1 % 4]
                u = x - (1 if reps[k, 0] < x else 0) - (1 if reps[k, 1] < x else 0)
                u -= 1 if reps[k, 2] < x else 0
                if vs[s, u] > 0:
                    inc[s] = 2
                    if record:
                        rec_act[r, na, 0] = s + 1
                        rec_act[r, na, 1] = INC2
                        for q in range(3):
                            rec_act[r, na, 2 + q] = -1
                    na += 1
        # settlement: bet and increments (Art.10-13), pot and bonus [A]
        suma = 0
        best = -1
        for s in range(seats):
            st = table_strength(cards[s, 0], cards[s, 1], cards[s, 2], comm[0], comm[1], plain, flush)
            strength[s] = st
            if st > best:
                best = st
            cls[s] = _cls(st)
            ratio = bet_pay[cls[s]]
            win[s] = bet * (1 + inc[s]) * ratio if ratio > 0 else 0
            suma += win[s]
        for s in range(seats):
            ratio = bet_pay[cls[s]]
            if ratio > 0:
                w = win[s]
                if limit >= 0 and suma > limit:
                    w = win[s] * limit // suma
                net[BET, s] = w
                outc[BET, 0] += 1
            elif ratio == 0:
                net[BET, s] = 0
                outc[BET, 1] += 1
            else:
                net[BET, s] = -bet * (1 + inc[s])
                outc[BET, 2] += 1
            outc[BET, 3 + cls[s]] += 1
            outc[BET, 3 + 11 + nd[s]] += 1
            outc[BET, 3 + 11 + 4 + inc[s]] += 1
            bp = bonus_pay[cls[s]]
            if bp > 0:
                net[BONUS, s] = bonus * bp
                outc[BONUS, 0] += 1
            else:
                net[BONUS, s] = -bonus
                outc[BONUS, 1] += 1
        if seats == 1:
            net[POT, 0] = 0
            outc[POT, 2] += 1
        else:
            winners = 0
            for s in range(seats):
                if strength[s] == best:
                    winners += 1
            distributable = pot * seats * (100 - pot_pct) // 100
            each = distributable // winners
            rem = distributable - each * winners
            first = True
            for s in range(seats):
                if strength[s] == best:
                    net[POT, s] = each + (rem if first else 0) - pot
                    first = False
                    outc[POT, 0] += 1
                else:
                    net[POT, s] = -pot
                    outc[POT, 1] += 1
        for b in range(3):
            x_round = 0
            for s in range(seats):
                x = net[b, s]
                acc_i[b, 0] += 1
                acc_i[b, 1] += x
                acc_f[b, 0] += float(x) * float(x)
                x_round += x
                if keep_nets:
                    rec_net[r, b, s] = x
            xf = float(x_round)
            acc_f[b, 1] += xf * xf
            acc_f[b, 2] += xf * seats
            acc_f[b, 3] += float(seats * seats)
        meta[0] += 1
        if record:
            rec_nc[r] = nc
            rec_na[r] = na


@dataclass(frozen=True)
class ShowdownRecord:
    """Rounds kept for a cross-check: cards in shoe order, decisions (seat, code, up to three cards
    given up), each seat's result per bet."""

    cards: I8
    ncards: I32
    actions: I8
    nactions: I32
    nets: I64


@dataclass(frozen=True)
class ShowdownPlan:
    """Everything a worker needs to play Showdown Póker chunks (picklable)."""

    settings: dict[str, Any]
    seats: int
    burn: int
    stake: int
    pot: int
    bonus: int
    pot_pct: int
    limit: int  # -1 = no payout limit
    max_exchange: int
    tables: ShowdownTables
    plain: I32
    flush: I32
    bonus_pay: I64
    game: str = "showdown_poker"
    bets: tuple[str, ...] = BETS
    strategy: str = "basic"
    events_names: tuple[str, ...] = ()
    full_shoe: bool = False  # the regulation's deck (Art.7) is anyway a fresh deck every round

    @property
    def stakes(self) -> tuple[int, ...]:
        """The bet's initial stake, the bonus, the pot bet."""
        return (self.stake, self.bonus, self.pot)

    @property
    def outcome_names(self) -> tuple[tuple[str, ...], ...]:
        """Outcome names of each bet (the bet's also: final hands, cards exchanged, increments made)."""
        return OUTCOMES

    def new_record(self, rounds: int, *, nets_only: bool = False) -> ShowdownRecord:
        """Empty arrays for `rounds` recorded rounds (`nets_only`: the results alone, for sessions)."""
        full = 0 if nets_only else rounds
        return ShowdownRecord(
            cards=np.full((full, MAX_CARDS), -1, dtype=np.int8),
            ncards=np.zeros(full, dtype=np.int32),
            actions=np.zeros((full, 3 * self.seats, 5), dtype=np.int8),
            nactions=np.zeros(full, dtype=np.int32),
            nets=np.zeros((rounds, 3, self.seats), dtype=np.int64),
        )

    def round_nets(self, record: ShowdownRecord) -> I64:
        """Each recorded round's result per bet per seat, [rounds, bets, seats], money units."""
        return record.nets

    def play(self, index: int, rounds: int, state: U64, record: ShowdownRecord | None = None) -> ChunkResult:
        """Play chunk `index` of `rounds` rounds from generator state `state`."""
        acc_i = np.zeros((3, 2), dtype=np.int64)
        acc_f = np.zeros((3, 4), dtype=np.float64)
        outc = np.zeros((3, N_OUT), dtype=np.int64)
        meta = np.zeros(3, dtype=np.int64)
        rec = record if record is not None else self.new_record(0)
        t = self.tables
        play_rounds(
            self.seats,
            self.burn,
            self.stake,
            self.pot,
            self.bonus,
            self.pot_pct,
            self.limit,
            self.max_exchange,
            t.keep,
            t.idx3,
            t.s_class,
            t.perm,
            t.perms,
            t.reps,
            t.mpay,
            t.rowsum,
            self.plain,
            self.flush,
            t.bet_pay,
            self.bonus_pay,
            rounds,
            state,
            acc_i,
            acc_f,
            outc,
            meta,
            rec.cards,
            rec.ncards,
            rec.actions,
            rec.nactions,
            rec.nets,
        )
        if meta[2]:  # pragma: no cover
            raise RuntimeError("the deck ran out during a round")
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
            for b in range(3)
        ]
        return ChunkResult(index, rounds, int(meta[0]), int(meta[1]), bets, [])


def bonus_vector(paytable: dict[str, int]) -> I64:
    """The bonus's net per unit by outcome class, as the engine pays it (`games.showdown.bonus_ratio`):
    N to 1 for a named hand (a royal flush the table does not name as the straight flush it is), -1
    for any other hand (a ratio of 0 loses too)."""
    out = np.full(len(HANDS), -1, dtype=np.int64)
    names = {
        "two_pair": "two_pair",
        "three_of_a_kind": "three_of_a_kind",
        "straight": "straight",
        "flush": "flush",
        "full_house": "full_house",
        "four_of_a_kind": "four_of_a_kind",
        "straight_flush": "straight_flush",
        "royal_flush": "royal_flush",
    }
    for i, hand in enumerate(HANDS):
        key = names.get(hand)
        if key is None:
            continue
        if key == "royal_flush" and key not in paytable:
            key = "straight_flush"
        ratio = paytable.get(key, 0)
        if ratio > 0:
            out[i] = ratio
    return out


def showdown_plan(rules: ShowdownRules, seats: int) -> ShowdownPlan:
    """The plan for a table's settings: `seats` players each posting the bet (the simulation stake), the
    pot bet and the bonus (its own limits), playing the exact analysis's strategy for these settings."""
    from tapete.errors import InvalidRules
    from tapete.games.showdown import bonus_limits
    from tapete.sim.kernels import kernel_amount, table_stake

    if rules.decks != 1:
        raise InvalidRules(
            f"decks={rules.decks}: the exact Showdown analysis covers the one-deck game",
            key="err.analyze.showdown_decks",
            decks=rules.decks,
        )
    analysis = analyze_showdown(
        max_exchange=rules.max_exchange,
        paytable=rules.pays,
        bonus_paytable=rules.bonus_paytable,
        pot_commission_percent=rules.pot_commission_percent,
    )
    plain, flush = strength_tables()
    return ShowdownPlan(
        settings=dict(rules.settings()),
        seats=seats,
        burn=rules.burn,
        stake=table_stake(rules),
        pot=kernel_amount(rules.pot_amount),
        bonus=table_stake(rules, *bonus_limits(rules)),
        pot_pct=rules.pot_commission_percent,
        # a limit above every payout a round of kernel stakes can make never binds: none, as 64-bit
        limit=-1 if rules.payout_limit is None or rules.payout_limit > NO_LIMIT_ABOVE else rules.payout_limit,
        max_exchange=rules.max_exchange,
        tables=strategy_tables(analysis),
        plain=plain,
        flush=flush,
        bonus_pay=bonus_vector(dict(rules.bonus_paytable or DEFAULT_BONUS_PAYTABLE)),
    )
