"""`table.place_bets` as it was before its rewrite (commit 5fcbde2), copied verbatim with the helper it
used, so that `tests/test_table_equivalence.py` can show the rewrite behaves the same on every bet list.

Only the imports differ: `BetSpec`, `Box` and `RawBet` come from `tapete.table`, which keeps them; and
the rules changed since are changed here too (marked), so that the comparison stays one of rewrites."""

from __future__ import annotations

from collections.abc import Sequence

from tapete.errors import BadBet, Msg
from tapete.memo import memo
from tapete.money import check_amount
from tapete.table import BetSpec, Box, RawBet

_RESOLVED: dict[int, tuple[dict[str, tuple[int, int]], dict[str, int | None]]] = {}


def _resolved(spec: BetSpec) -> tuple[dict[str, tuple[int, int]], dict[str, int | None]]:
    """Each spot's (min, max) and fixed amount, asked of the spec once (it is frozen)."""
    return memo(
        _RESOLVED,
        spec,
        lambda: ({s: spec.limits(s) for s in spec.spots}, {s: spec.fixed(s) for s in spec.spots}),
    )


def place_bets(bets: Sequence[RawBet], spec: BetSpec) -> list[Box]:
    """Check every bet against the table and return the boxes in seat order (dealer's left first).

    Every problem in the list is found, and the refusal (BadBet) names the FIRST offending entry
    (``at`` = its index): checks that need the whole list (minimums, required and side spots, every box
    taken) compete with per-entry checks (seat, spot, amount, maxima) on the entry's position. An entry
    that is itself malformed is left out of the whole-list checks. Nothing is kept on refusal.
    """
    limits, fixed_amounts = _resolved(spec)
    seats, spots_known, exclusive = spec.seats, spec.spots, spec.exclusive
    one_box = spec.one_box_per_player
    boxes: dict[int, Box] = {}
    first_back: int | None = None
    problems: list[tuple[int, Msg]] = []
    zone_of: dict[str, int] = {}  # one_box_per_player: the zone each player plays, as holder or back-bettor
    for i, bet in enumerate(bets):
        seat, player, spot = bet.seat, bet.player, bet.spot
        if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= seats:
            problems.append(
                (
                    i,
                    Msg(
                        f"unknown seat {seat!r}: seats are 1 to {spec.seats}",
                        "err.bet.seat",
                        seat=seat,
                        seats=seats,
                    ),
                )
            )
            continue
        if not isinstance(player, str) or not player.strip():
            problems.append((i, Msg(f"bet {i} names no player", "err.bet.no_player", index=i)))
            continue
        if spot not in spots_known:
            problems.append(
                (
                    i,
                    Msg(
                        f"unknown spot {spot!r}; this game's spots are {', '.join(spec.spots)}",
                        "err.bet.spot",
                        spot=spot,
                        spots=spec.spots,
                    ),
                )
            )
            continue
        assert isinstance(spot, str)
        try:
            amount = check_amount(bet.amount)
        except ValueError as exc:
            problems.append((i, exc.args[0]))
            continue
        box = boxes.get(seat)
        if box is None:
            box = boxes[seat] = Box(seat=seat, holder=player)
        if player != box.holder:
            if not spec.back_spots:
                problems.append(
                    (
                        i,
                        Msg(
                            f"{player} cannot join seat {seat}: this game has no back-betting",
                            "err.bet.no_back_betting",
                            player=player,
                            seat=seat,
                        ),
                    )
                )
                continue
            if not spec.back_betting:
                problems.append(
                    (
                        i,
                        Msg(
                            f"{player} cannot join seat {seat}: the operator does not allow back-betting",
                            "err.bet.back_betting_off",
                            player=player,
                            seat=seat,
                        ),
                    )
                )
                continue
            if spot not in spec.back_spots:
                problems.append(
                    (
                        i,
                        Msg(
                            f"back-bettor {player} may join only {'/'.join(spec.back_spots)}, not {spot}",
                            "err.bet.back_spot",
                            player=player,
                            spots=spec.back_spots,
                            spot=spot,
                        ),
                    )
                )
                continue
            if first_back is None:
                first_back = i
        if one_box and zone_of.setdefault(player, seat) != seat:
            problems.append(
                (
                    i,
                    Msg(
                        f"{player} already plays zone {zone_of[player]} and cannot play two",
                        "err.bet.two_zones",
                        player=player,
                        zone=zone_of[player],
                    ),
                )
            )
            continue
        mine = box.stakes.setdefault(player, {})
        if spot in mine:
            total = mine[spot] = mine[spot] + amount
        else:
            box.first_index[(player, spot)] = i
            total = mine[spot] = amount
        fixed = fixed_amounts[spot]
        if fixed is not None and total > fixed:
            problems.append(
                (
                    i,
                    Msg(
                        f"{spot} is a fixed {fixed}; {player} put {total}",
                        "err.bet.fixed",
                        spot=spot,
                        fixed=fixed,
                        player=player,
                        amount=total,
                    ),
                )
            )
        hi = limits[spot][1]
        if total > hi:
            problems.append(
                (
                    i,
                    Msg(
                        f"{player}'s {spot} of {total} is above the limit {hi}",
                        "err.bet.above_max",
                        player=player,
                        spot=spot,
                        amount=total,
                        limit=hi,
                    ),
                )
            )
        for a, b in exclusive:
            if {spot} & {a, b} and mine.get(a) and mine.get(b):
                problems.append(
                    (
                        i,
                        Msg(
                            f"{player} cannot bet both {a} and {b} in one round",
                            "err.bet.exclusive",
                            player=player,
                            a=a,
                            b=b,
                        ),
                    )
                )
    # Checks that need the whole list: minimums, fixed amounts, main bets, back-betting, boxes per player.
    side_spots, main_spot = spec.side_spots, spec.main_spot
    main_checked = spec.main_required and not spec.required_spots
    for box in boxes.values():
        for player, spots in box.stakes.items():
            for spot, amount in spots.items():
                at = box.first_index[(player, spot)]
                fixed = fixed_amounts[spot]
                if fixed is not None and amount != fixed:
                    problems.append(
                        (
                            at,
                            Msg(
                                f"{spot} is a fixed {fixed}; {player} put {amount}",
                                "err.bet.fixed",
                                spot=spot,
                                fixed=fixed,
                                player=player,
                                amount=amount,
                            ),
                        )
                    )
                lo = limits[spot][0]
                if amount < lo:
                    problems.append(
                        (
                            at,
                            Msg(
                                f"{player}'s {spot} of {amount} is below the minimum {lo}",
                                "err.bet.below_min",
                                player=player,
                                spot=spot,
                                amount=amount,
                                limit=lo,
                            ),
                        )
                    )
                if spot in side_spots and not box.stake(box.holder, main_spot):
                    problems.append(
                        (
                            at,
                            Msg(
                                f"{spot} on seat {box.seat} needs a "
                                f"{_bet_named(spec.main_spot)} on the same box",
                                "err.bet.side_needs_main",
                                spot=spot,
                                seat=box.seat,
                                main=spec.main_spot,
                            ),
                        )
                    )
        for spot in spec.required_spots:
            for player in box.stakes:
                if not box.stake(player, spot):
                    at = min(box.first_index[k] for k in box.first_index if k[0] == player)
                    problems.append(
                        (
                            at,
                            Msg(
                                f"{player} on seat {box.seat} must post a {_bet_named(spot)}",
                                "err.bet.required",
                                player=player,
                                seat=box.seat,
                                spot=spot,
                            ),
                        )
                    )
        if spec.back_same_spots:
            for player in box.back_bettors:
                for spot in box.stakes[player]:
                    if not box.stake(box.holder, spot):
                        problems.append(
                            (
                                box.first_index[(player, spot)],
                                Msg(
                                    f"back-bettor {player} may join seat {box.seat} only on its holder "
                                    f"{box.holder}'s own side; {box.holder} has no {spot} bet",
                                    "err.bet.back_same_side",
                                    player=player,
                                    seat=box.seat,
                                    holder=box.holder,
                                    spot=spot,
                                ),
                            )
                        )
        if main_checked and not box.stake(box.holder, main_spot) and box.first_index:
            at = min(box.first_index[k] for k in box.first_index if k[0] == box.holder)
            problems.append(
                (
                    at,
                    Msg(
                        f"seat {box.seat}'s holder {box.holder} has no {spec.main_spot} bet",
                        "err.bet.holder_no_main",
                        seat=box.seat,
                        holder=box.holder,
                        main=spec.main_spot,
                    ),
                )
            )
    if first_back is not None and len(boxes) < spec.seats:
        problems.append(
            (
                first_back,
                Msg(
                    f"back-betting is allowed only when all {spec.seats} boxes are taken ({len(boxes)} are)",
                    "err.bet.back_boxes_free",
                    seats=spec.seats,
                    taken=len(boxes),
                ),
            )
        )
    limit = 1 if one_box else spec.max_boxes_per_player
    # Since the rewrite (a rule change, BJ Art.1ñ / M21 Art.1n): every postura a player takes part in is
    # one of his hands, held or joined; counted in the order of his first entry on each box.
    firsts = []
    for box in boxes.values():
        for player in box.stakes:
            mine = [i for (who, _), i in box.first_index.items() if who == player]
            if mine:
                firsts.append((min(mine), player, box))
    count: dict[str, int] = {}
    for first, player, box in sorted(firsts, key=lambda f: f[0]):
        count[player] = count.get(player, 0) + 1
        if count[player] > limit:
            if player == box.holder:
                text, key = (
                    f"{player} may hold {limit} box(es); seat {box.seat} is one more",
                    "err.bet.too_many_boxes",
                )
            else:
                text = (
                    f"{player} may play {limit} box(es), those he holds and those he joins; "
                    f"joining seat {box.seat} is one more"
                )
                key = "err.bet.too_many_hands"
            problems.append((first, Msg(text, key, player=player, limit=limit, seat=box.seat)))
    if problems:
        at, message = min(problems, key=lambda p: p[0])
        raise BadBet(message, at=at, key=message.key, **message.params)
    return [boxes[s] for s in sorted(boxes)] if len(boxes) > 1 else list(boxes.values())


def _bet_named(spot: str) -> str:
    """As `tapete.table._bet_named` (its messages are compared): "main bet", "pot bet", Showdown's "bet"."""
    return spot if spot == "bet" else f"{spot} bet"
