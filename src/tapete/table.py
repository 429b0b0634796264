"""The table: boxes (or zones) with a holder and back-bettors, limits, and bets closed at the first card.

rules.md §0 (BJ Art.1ñ, 7; PyB Art.7; M21 Art.1n, 2a; SP Art.8). Bets are checked here once for every
game; each game describes its spots with a `BetSpec`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from tapete.errors import BadBet, Msg
from tapete.memo import memo
from tapete.money import check_amount


@dataclass(frozen=True)
class BetSpec:
    """What bets a game takes: its spots, which a back-bettor may join, which need a main bet.
    `limits` and `fixed` must be pure functions of the spot: `place_bets` asks them once per spec."""

    spots: tuple[str, ...]
    main_spot: str
    seats: int = 7
    back_spots: tuple[str, ...] = ()  # spots a back-bettor may join (empty: no back-betting at all)
    side_spots: tuple[str, ...] = ()  # need the holder's main bet on the same box
    required_spots: tuple[str, ...] = ()  # every player must post these (Showdown: bet and pot)
    exclusive: tuple[tuple[str, str], ...] = ()  # never both in one round (Punto + Banca)
    main_required: bool = True  # the holder must bet main_spot (PyB: any of its spots holds a zone)
    back_same_spots: bool = False  # a back-bettor joins only spots the holder bet (PyB: same side)
    one_box_per_player: bool = False  # PyB Art.7b: never two zones
    max_boxes_per_player: int = 7
    back_betting: bool = True  # the operator's setting
    limits: Callable[[str], tuple[int, int]] = lambda spot: (1, 10**12)
    fixed: Callable[[str], int | None] = lambda spot: None  # a spot whose amount is set (pot bet)


@dataclass
class Box:
    """One box/zone: its holder (first named) and every bettor's stakes by spot, in naming order."""

    seat: int
    holder: str
    stakes: dict[str, dict[str, int]] = field(default_factory=dict)
    first_index: dict[tuple[str, str], int] = field(default_factory=dict)

    @property
    def back_bettors(self) -> list[str]:
        """Players who joined the holder's box (adhesión)."""
        return [p for p in self.stakes if p != self.holder]

    def stake(self, player: str, spot: str) -> int:
        """`player`'s stake on `spot` (0 if none)."""
        return self.stakes.get(player, {}).get(spot, 0)

    def total(self, spot: str) -> int:
        """Everything staked on `spot` of this box."""
        return sum(s.get(spot, 0) for s in self.stakes.values())


@dataclass(frozen=True)
class RawBet:
    """A bet as given (scenario entry or API request), before the table checks it."""

    seat: object
    player: object
    spot: object
    amount: object


#: A problem of a bet list: (index of the entry it is reported at, what is wrong).
_Problem = tuple[int, Msg]
#: A check of every box once the list is read: yields the problems it finds, box by box in naming order.
_BoxCheck = Callable[[Iterable[Box], BetSpec, "_Plan"], Iterator[_Problem]]


@dataclass(frozen=True, slots=True)
class _Plan:
    """What `place_bets` needs of a spec, worked out once (the spec is frozen, and its `limits` and
    `fixed` are pure): each spot's limits and fixed amount, and which checks can fail under it."""

    lo: dict[str, int]
    hi: dict[str, int]
    fixed: dict[str, int | None]
    #: a spot's total above this breaks its fixed amount or its maximum, and only a bet on a spot of
    #: `paired` can complete an exclusive pair: an entry within its limits costs two tests
    ceiling: dict[str, int]
    paired: frozenset[str]
    #: the box checks that can fail under this spec, in the order they were always made (on a tie, the
    #: problem found first is the one reported)
    box_checks: tuple[_BoxCheck, ...]
    #: boxes one holder may hold
    most_boxes: int


_PLANS: dict[int, _Plan] = {}  # by id(spec), while the spec lives (tapete.memo)


def _plan(spec: BetSpec) -> _Plan:
    """Work out the plan of `spec` (once per spec: `place_bets` keeps it in _PLANS)."""
    limits = {s: spec.limits(s) for s in spec.spots}
    fixed = {s: spec.fixed(s) for s in spec.spots}
    checks: list[_BoxCheck] = [_stakes_off_limits]
    if spec.required_spots:
        checks.append(_required_missing)
    if spec.back_same_spots:
        checks.append(_back_bets_off_the_holders_side)
    if spec.main_required and not spec.required_spots:
        checks.append(_holder_without_main)
    return _Plan(
        lo={s: lo for s, (lo, _) in limits.items()},
        hi={s: hi for s, (_, hi) in limits.items()},
        fixed=fixed,
        ceiling={s: hi if (f := fixed[s]) is None else min(hi, f) for s, (_, hi) in limits.items()},
        paired=frozenset(s for pair in spec.exclusive for s in pair),
        box_checks=tuple(checks),
        most_boxes=1 if spec.one_box_per_player else spec.max_boxes_per_player,
    )


def place_bets(bets: Sequence[RawBet], spec: BetSpec, holders: Mapping[int, str] | None = None) -> list[Box]:
    """Check every bet against the table and return the boxes in seat order (dealer's left first).

    Every problem in the list is found, and the refusal (BadBet) names the FIRST offending entry
    (``at`` = its index): checks that need the whole list (minimums, required and side spots, every box
    in play) compete with per-entry checks (seat, spot, amount, maxima) on the entry's position. An entry
    that is itself malformed is left out of the whole-list checks. Nothing is kept on refusal.

    `holders` (a table's seats: box → the player who took it) names each box's holder; without it the
    first bettor named on a box holds it (a scenario's list). With it, a back-bet on a box whose holder
    has no bet of his own is refused (BJ Art.7: the holder plays the box; the back-bettor only joins it).
    """
    plan = _PLANS.get(id(spec)) or memo(_PLANS, spec, lambda: _plan(spec))
    boxes, problems, first_back = _each_entry(bets, spec, plan, holders)
    if holders is not None:  # a box only back-bettors bet on is not in play: its back-bets are refused
        for seat, box in list(boxes.items()):
            if box.stakes.get(box.holder):
                continue
            for player in box.stakes:
                problems.append((_first_entry(box, player), _box_not_in_play(player, box)))
            del boxes[seat]
    # The whole list: each box (entries refused above are not in them), then the table.
    for check in plan.box_checks:
        for problem in check(boxes.values(), spec, plan):  # a loop costs less than += on every round
            problems.append(problem)
    if first_back is not None and len(boxes) < spec.seats:
        problems.append((first_back, _boxes_free(spec, len(boxes))))
    if plan.most_boxes < spec.seats:  # else nobody can hold one box too many
        problems += _too_many_boxes(boxes.values(), plan.most_boxes)
    if problems:
        at, message = min(problems, key=lambda p: p[0])  # the first entry's; on a tie, the first found
        raise BadBet(message, at=at, key=message.key, **message.params)
    return [boxes[s] for s in sorted(boxes)] if len(boxes) > 1 else list(boxes.values())


def _each_entry(
    bets: Sequence[RawBet], spec: BetSpec, plan: _Plan, holders: Mapping[int, str] | None = None
) -> tuple[dict[int, Box], list[_Problem], int | None]:
    """The per-entry checks (seat, spot, amount, back-betting, a second zone, maxima and exclusive pairs
    as the totals grow): the boxes the accepted entries make, the problems, the first back-bet's index.
    A box's holder is `holders`' when given (every box of the table taken for a back-bet), else its
    first bettor."""
    taken = None if holders is None else len(holders)
    boxes: dict[int, Box] = {}  # in the order they were first named
    problems: list[_Problem] = []
    zone_of: dict[str, int] = {}  # one_box_per_player: the zone each player plays, as holder or back-bettor
    first_back: int | None = None
    for i, bet in enumerate(bets):
        entry = _entry(i, bet, spec)
        if isinstance(entry, Msg):
            problems.append((i, entry))
            continue
        seat, player, spot, amount = entry
        box = boxes.get(seat)
        if box is None:
            holder = player if holders is None else holders.get(seat, player)
            box = boxes[seat] = Box(seat, holder)
        if player != box.holder:
            refusal = _back_bet_refusal(player, seat, spot, spec, taken)
            if refusal is not None:
                problems.append((i, refusal))
                continue
            if first_back is None:
                first_back = i
        if spec.one_box_per_player and zone_of.setdefault(player, seat) != seat:
            problems.append((i, _second_zone(player, zone_of[player])))
            continue
        mine = box.stakes.setdefault(player, {})
        if spot in mine:
            total = mine[spot] = mine[spot] + amount
        else:
            box.first_index[(player, spot)] = i
            total = mine[spot] = amount
        if total > plan.ceiling[spot] or spot in plan.paired:
            problems += ((i, message) for message in _over_limits(player, spot, mine, spec, plan))
    return boxes, problems, first_back


def check_entry(
    bets: Sequence[RawBet], at: int, spec: BetSpec, holders: Mapping[int, str] | None = None
) -> None:
    """BadBet when entry `at` of `bets` (the engine's order) is refused by a check that concerns that bet
    (as `place_bets` would judge it in this list: seat, spot, amount, back-betting, a second zone, the
    limits on its bettor's total on its spot, Punto with Banca, a back-bet off the holder's side once he
    has bet). What a table checks when one bet is placed (server.md: its spot, the limits, the funds);
    what needs the whole list (main and required bets, every box in play) is for `place_bets` when the
    bets close. `holders` as for `place_bets`: with it, a back-bet also needs every box taken."""
    plan = _PLANS.get(id(spec)) or memo(_PLANS, spec, lambda: _plan(spec))
    boxes, problems, _ = _each_entry(bets, spec, plan, holders)
    mine = [m for i, m in problems if i == at]
    if not mine:
        seat, player, spot = bets[at].seat, bets[at].player, bets[at].spot
        assert isinstance(seat, int) and isinstance(player, str) and isinstance(spot, str)
        box = boxes[seat]
        mine = _limit_refusals(player, spot, box.stakes[player][spot], plan)
        if player != box.holder and spec.back_same_spots and box.stakes.get(box.holder):
            mine += _off_the_holders_side(box, player, spot)
        if player != box.holder and plan.most_boxes < spec.seats:  # a back-bet is one hand more
            mine += [m for i, m in _too_many_boxes(boxes.values(), plan.most_boxes) if i == at]
    if mine:
        raise BadBet(mine[0], at=at, key=mine[0].key, **mine[0].params)


def check_seat(
    player: str, seat: int, spec: BetSpec, holders: Mapping[int, str], joined: Iterable[int] = ()
) -> None:
    """BadBet when `player` may not take box `seat` (`holders`: the boxes taken; `joined`: the boxes he
    joined as a back-bettor): PyB Art.7b, one zone per player; BJ Art.1ñ / M21 Art.1n, at most the
    operator's number of hands, a box joined counting as one. Whether the seat is free is the table's."""
    mine = sorted(s for s, holder in holders.items() if holder == player)
    if spec.one_box_per_player and mine:
        message = _second_zone(player, mine[0])
    elif len(set(mine) | set(joined)) >= spec.max_boxes_per_player:
        message = _one_hand_more(player, spec.max_boxes_per_player, Box(seat, player))
    else:
        return
    raise BadBet(message, key=message.key, **message.params)


# ---------------------------------------------------------------------------------------- one entry
def _entry(i: int, bet: RawBet, spec: BetSpec) -> tuple[int, str, str, int] | Msg:
    """Entry `i` as (seat, player, spot, amount), or why it is no bet of this table at all."""
    seat, player, spot = bet.seat, bet.player, bet.spot
    if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= spec.seats:
        return Msg(
            f"unknown seat {seat!r}: seats are 1 to {spec.seats}", "err.bet.seat", seat=seat, seats=spec.seats
        )
    if not isinstance(player, str) or not player.strip():
        return Msg(f"bet {i} names no player", "err.bet.no_player", index=i)
    if spot not in spec.spots:
        return Msg(
            f"unknown spot {spot!r}; this game's spots are {', '.join(spec.spots)}",
            "err.bet.spot",
            spot=spot,
            spots=spec.spots,
        )
    assert isinstance(spot, str)
    try:
        return seat, player, spot, check_amount(bet.amount)
    except ValueError as exc:
        message: Msg = exc.args[0]  # money.check_amount says why as a Msg
        return message


def _back_bet_refusal(
    player: str, seat: int, spot: str, spec: BetSpec, taken: int | None = None
) -> Msg | None:
    """Why `player` may not join the box of seat `seat` on `spot` (BJ Art.7, PyB Art.7a), or None;
    `taken`: how many of the table's boxes have a holder, when known (every one must)."""
    if not spec.back_spots:
        return Msg(
            f"{player} cannot join seat {seat}: this game has no back-betting",
            "err.bet.no_back_betting",
            player=player,
            seat=seat,
        )
    if not spec.back_betting:
        return Msg(
            f"{player} cannot join seat {seat}: the operator does not allow back-betting",
            "err.bet.back_betting_off",
            player=player,
            seat=seat,
        )
    if taken is not None and taken < spec.seats:
        return _boxes_free(spec, taken)
    if spot not in spec.back_spots:
        return Msg(
            f"back-bettor {player} may join only {'/'.join(spec.back_spots)}, not {spot}",
            "err.bet.back_spot",
            player=player,
            spots=spec.back_spots,
            spot=spot,
        )
    return None


def _second_zone(player: str, zone: int) -> Msg:
    """PyB Art.7b: `player`, who plays `zone`, names another one."""
    return Msg(
        f"{player} already plays zone {zone} and cannot play two",
        "err.bet.two_zones",
        player=player,
        zone=zone,
    )


def _over_limits(player: str, spot: str, mine: dict[str, int], spec: BetSpec, plan: _Plan) -> Iterator[Msg]:
    """What `player`'s new total on `spot` breaks (`mine`: his stakes on the box): the spot's fixed
    amount, its maximum, an exclusive pair (PyB Art.8: never Punto and Banca)."""
    total = mine[spot]
    fixed = plan.fixed[spot]
    if fixed is not None and total > fixed:
        yield _not_fixed(spot, fixed, player, total)
    hi = plan.hi[spot]
    if total > hi:
        yield Msg(
            f"{player}'s {spot} of {total} is above the limit {hi}",
            "err.bet.above_max",
            player=player,
            spot=spot,
            amount=total,
            limit=hi,
        )
    for a, b in spec.exclusive:
        if {spot} & {a, b} and mine.get(a) and mine.get(b):
            yield Msg(
                f"{player} cannot bet both {a} and {b} in one round",
                "err.bet.exclusive",
                player=player,
                a=a,
                b=b,
            )


def _not_fixed(spot: str, fixed: int, player: str, amount: int) -> Msg:
    """`player` put `amount` on a spot whose amount is set (Showdown's pot bet, rules.md §3)."""
    return Msg(
        f"{spot} is a fixed {fixed}; {player} put {amount}",
        "err.bet.fixed",
        spot=spot,
        fixed=fixed,
        player=player,
        amount=amount,
    )


# ---------------------------------------------------------------------------------------- each box
def _stakes_off_limits(boxes: Iterable[Box], spec: BetSpec, plan: _Plan) -> Iterator[_Problem]:
    """Each bettor's total on each spot: not its fixed amount, below its minimum, a side bet without the
    holder's main bet (rules.md §0); at the entry that first named that spot."""
    for box in boxes:
        for (player, spot), at in box.first_index.items():
            amount, fixed = box.stakes[player][spot], plan.fixed[spot]
            if amount < plan.lo[spot] or (fixed is not None and amount != fixed):  # the rare case
                for message in _limit_refusals(player, spot, amount, plan):
                    yield at, message
            if spot in spec.side_spots and not box.stake(box.holder, spec.main_spot):
                yield (
                    at,
                    Msg(
                        f"{spot} on seat {box.seat} needs a {_bet_named(spec.main_spot)} on the same box",
                        "err.bet.side_needs_main",
                        spot=spot,
                        seat=box.seat,
                        main=spec.main_spot,
                    ),
                )


def _bet_named(spot: str) -> str:
    """A spot said as a bet in a message: "main bet", "pot bet", and Showdown's "bet" (not "bet bet")."""
    return spot if spot == "bet" else f"{spot} bet"


def _limit_refusals(player: str, spot: str, amount: int, plan: _Plan) -> list[Msg]:
    """Why `player`'s total `amount` on `spot` is off the spot's limits below: not its fixed amount, under
    its minimum (the maxima are judged entry by entry, as the total grows)."""
    refusals = []
    fixed = plan.fixed[spot]
    if fixed is not None and amount != fixed:
        refusals.append(_not_fixed(spot, fixed, player, amount))
    lo = plan.lo[spot]
    if amount < lo:
        refusals.append(
            Msg(
                f"{player}'s {spot} of {amount} is below the minimum {lo}",
                "err.bet.below_min",
                player=player,
                spot=spot,
                amount=amount,
                limit=lo,
            )
        )
    return refusals


def _required_missing(boxes: Iterable[Box], spec: BetSpec, plan: _Plan) -> Iterator[_Problem]:
    """SP Art.8: every player of a box posts each required spot; at his first entry on the box."""
    for box in boxes:
        for spot in spec.required_spots:
            for player in box.stakes:
                if not box.stake(player, spot):
                    yield (
                        _first_entry(box, player),
                        Msg(
                            f"{player} on seat {box.seat} must post a {_bet_named(spot)}",
                            "err.bet.required",
                            player=player,
                            seat=box.seat,
                            spot=spot,
                        ),
                    )


def _back_bets_off_the_holders_side(boxes: Iterable[Box], spec: BetSpec, plan: _Plan) -> Iterator[_Problem]:
    """PyB Art.7a: a back-bettor joins only spots the holder bet (his side); at the back-bet's entry."""
    for box in boxes:
        for player in box.back_bettors:
            for spot in box.stakes[player]:
                for message in _off_the_holders_side(box, player, spot):
                    yield box.first_index[(player, spot)], message


def _off_the_holders_side(box: Box, player: str, spot: str) -> list[Msg]:
    """PyB Art.7a: why back-bettor `player` may not join `box` on `spot` (its holder has no bet there)."""
    if box.stake(box.holder, spot):
        return []
    return [
        Msg(
            f"back-bettor {player} may join seat {box.seat} only on its holder "
            f"{box.holder}'s own side; {box.holder} has no {spot} bet",
            "err.bet.back_same_side",
            player=player,
            seat=box.seat,
            holder=box.holder,
            spot=spot,
        )
    ]


def _holder_without_main(boxes: Iterable[Box], spec: BetSpec, plan: _Plan) -> Iterator[_Problem]:
    """A box's holder bets its main spot (BJ, M21); at the holder's first entry on the box."""
    for box in boxes:
        if not box.stake(box.holder, spec.main_spot) and box.first_index:
            yield (
                _first_entry(box, box.holder),
                Msg(
                    f"seat {box.seat}'s holder {box.holder} has no {spec.main_spot} bet",
                    "err.bet.holder_no_main",
                    seat=box.seat,
                    holder=box.holder,
                    main=spec.main_spot,
                ),
            )


def _first_entry(box: Box, player: str) -> int:
    """The index of `player`'s first entry on `box`."""
    return min(box.first_index[k] for k in box.first_index if k[0] == player)


# ---------------------------------------------------------------------------------------- the table
def _boxes_free(spec: BetSpec, taken: int) -> Msg:
    """BJ Art.7: a back-bettor joined a box while only `taken` of the boxes are."""
    return Msg(
        f"back-betting is allowed only when all {spec.seats} boxes are taken ({taken} are)",
        "err.bet.back_boxes_free",
        seats=spec.seats,
        taken=taken,
    )


def _box_not_in_play(player: str, box: Box) -> Msg:
    """BJ Art.7, PyB Art.7a: `player` joined `box`, whose holder has no bet of his own as the bets close."""
    return Msg(
        f"{player} cannot join seat {box.seat}: its holder {box.holder} has no bet of his own",
        "err.bet.back_box_not_in_play",
        player=player,
        seat=box.seat,
        holder=box.holder,
    )


def _too_many_boxes(boxes: Iterable[Box], most: int) -> Iterator[_Problem]:
    """BJ Art.1ñ / M21 Art.1n: a player has at most `most` hands, a hand being each postura he takes part
    in ("posturas en que participa"): the boxes he holds and those he joins as a back-bettor (PyB Art.7b:
    one zone). Counted in naming order (his first entry on each box); each extra one is refused there."""
    firsts = sorted(
        (min(i for (who, _), i in box.first_index.items() if who == player), player, box)
        for box in boxes
        for player in box.stakes
        if any(who == player for who, _ in box.first_index)
    )
    hands: dict[str, int] = {}
    for at, player, box in firsts:
        hands[player] = hands.get(player, 0) + 1
        if hands[player] > most:
            yield at, _one_hand_more(player, most, box)


def _one_hand_more(player: str, most: int, box: Box) -> Msg:
    """Why `player`'s stake on `box` is one hand more than the operator's `most`."""
    if player == box.holder:
        return Msg(
            f"{player} may hold {most} box(es); seat {box.seat} is one more",
            "err.bet.too_many_boxes",
            player=player,
            limit=most,
            seat=box.seat,
        )
    return Msg(
        f"{player} may play {most} box(es), those he holds and those he joins; "
        f"joining seat {box.seat} is one more",
        "err.bet.too_many_hands",
        player=player,
        limit=most,
        seat=box.seat,
    )


def round_settled(staked: dict[str, int], paid: dict[str, int], commission: int) -> dict[str, object]:
    """The round's closing record, the same for every game: each bettor's staked, paid and net, and the
    house's net (minus the players' nets, so money is conserved by construction) and commission."""
    players = {p: {"staked": s, "paid": paid.get(p, 0), "net": paid.get(p, 0) - s} for p, s in staked.items()}
    return {
        "type": "round_settled",
        "players": players,
        "house": {"net": -sum(v["net"] for v in players.values()), "commission": commission},
    }
