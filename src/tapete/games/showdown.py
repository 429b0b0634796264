"""Showdown Póker as the reglamento of 17-08-2000 writes it (rules.md §3): a pure round state machine.

The round draws from an injected card source and never does I/O, reads a clock or makes randomness. Its
surface is the reference round's (games/blackjack.py): ``pending``, ``legal()``, ``verify()`` / ``can()``
/ ``apply(action) -> events``, ``view(viewer)`` and ``result()``.

Order of a round: bets and pot bets (Art.8, checked by `tapete.table`; optional bonus), the deal of
Art.9.1 (first card to each seat, community 1, second card to each seat, community 2, third card to each
seat, all face down), the exchange offered to every seat in seat order (Art.9.2; replacements dealt at
once), increment Nº1 offered to every seat (Art.9.2), community card 1 shown (Art.9.3), increment Nº2
offered to those who made Nº1 (Art.9.4), community card 2 shown (Art.9.5), then settlement: bet and
increments by Art.10-11 under the payout limit of Art.12-13, the pot and the bonus (rules.md [A]).
Every decision is an offer: silence declines it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any, ClassVar

from tapete.cards import NAMES, Card, parse_card
from tapete.errors import BadCards, IllegalAction
from tapete.games.turn import check_turn
from tapete.memo import memo
from tapete.money import Ratio, share, winnings
from tapete.poker import JACK, POKER_RANK, Category, category, describe, significant_ranks, strength_of_ranks
from tapete.rules.showdown import SHOWDOWN_PAYTABLE, ShowdownRules
from tapete.shoe import CardSource
from tapete.table import BetSpec, Box, round_settled

Event = dict[str, Any]

# Kinds of decision the dealer asks for (all offers: declined by silence).
EXCHANGE = "exchange"
INCREMENT_1 = "increment_1"
INCREMENT_2 = "increment_2"
DECLINE = "decline"
SETTLE = "settle"
SPOTS = ("bet", "pot", "bonus")
HIDDEN = "??"


@dataclass(frozen=True, slots=True)
class Action:
    """A player's answer to an offer: exchange (with the cards he gives up), increment_1/2, or decline."""

    seat: int
    action: str
    cards: tuple[Card, ...] | None = None
    amount: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The decision as a scenario entry."""
        out: dict[str, Any] = {"seat": self.seat, "action": self.action}
        if self.cards is not None:
            out["cards"] = [NAMES[c] for c in self.cards]
        if self.amount is not None:
            out["amount"] = self.amount
        return out


@dataclass(frozen=True, slots=True)
class Decision:
    """What the dealer is asking one seat: `kind` is exchange / increment_1 / increment_2.

    `max_cards` is the most cards the exchange may take (rules.max_exchange); `max_amount` is the
    increment's amount, which equals the bet (Art.9.7). `hand` is always 0 (one hand per seat)."""

    kind: str
    seat: int
    legal: tuple[str, ...]
    hand: int = 0
    max_cards: int = 0
    max_amount: int | None = None


@dataclass(slots=True)
class SeatState:
    """One position (Art.8: one player, no back-betting): stakes, cards and how it settled."""

    seat: int
    player: str
    bet: int
    pot: int
    bonus: int
    cards: list[Card] = field(default_factory=list)
    dealt: list[Card] = field(default_factory=list)
    discarded: list[Card] = field(default_factory=list)
    replacements: list[Card] = field(default_factory=list)
    increments: list[int] = field(default_factory=list)
    strength: int = -1
    outcome: str = ""
    ratio: int = 0
    winnings: int = 0  # uncapped winnings on bet + increments (Art.13 "pago individual")
    won: int = 0  # winnings actually paid (after the payout limit)
    capped: bool = False
    cap_fraction: Fraction = Fraction(0)
    hand_paid: int = 0
    pot_outcome: str = ""
    pot_paid: int = 0
    bonus_outcome: str = ""
    bonus_ratio: int = 0
    bonus_paid: int = 0

    @property
    def stake(self) -> int:
        """The bet plus the increments made (what Art.10-11 settle)."""
        return self.bet + sum(self.increments)

    @property
    def staked(self) -> int:
        """Everything this seat put on the table."""
        return self.stake + self.pot + self.bonus

    @property
    def paid(self) -> int:
        """Everything paid or returned to this seat."""
        return self.hand_paid + self.pot_paid + self.bonus_paid


# ---------------------------------------------------------------------------------------- hand language
@cache
def _strength(ranks: tuple[int, ...], flush: bool) -> int:
    return strength_of_ranks(ranks, flush)


def hand_strength(cards: Sequence[Card]) -> int:
    """The strength of five cards of one deck, as `tapete.poker.evaluate5` defines it, memoised on the
    sorted ranks and the flush flag (a hand's order depends on nothing else)."""
    suit = cards[0] % 4
    flush = all(c % 4 == suit for c in cards)
    return _strength(tuple(sorted(POKER_RANK[c] for c in cards)), flush)


describe_strength = cache(describe)


def hand_outcome(strength: int) -> tuple[str, int]:
    """Art.10-11: ("lose", 0) below a pair of jacks, ("push", 0) for a pair of J/Q/K/A, else
    ("win", N) paying N to 1 on the bet and on each increment."""
    cat = category(strength)
    if cat is Category.HIGH_CARD:
        return "lose", 0
    if cat is Category.PAIR:
        return ("push", 0) if significant_ranks(strength)[0] >= JACK else ("lose", 0)
    return "win", SHOWDOWN_PAYTABLE[cat.key]


def bonus_ratio(rules: ShowdownRules, strength: int) -> int:
    """The bonus's N to 1 for a final hand (rules.md [A]: operator paytable; 0 = loses). A royal flush
    the paytable does not name is paid as the straight flush it also is."""
    key = category(strength).key
    table = rules.bonus_paytable
    if key == "royal_flush" and key not in table:
        key = "straight_flush"
    return table.get(key, 0)


def bonus_limits(rules: ShowdownRules) -> tuple[int, int]:
    """(min, max) of a bonus stake: its own limits, else the table's (rules.md [A])."""
    lo = rules.bonus_min if rules.bonus_min is not None else rules.table_min
    hi = rules.bonus_max if rules.bonus_max is not None else rules.table_max
    return lo, hi


_SPECS: dict[int, BetSpec] = {}


class ShowdownRound:
    """One round of Showdown Póker on the positions given, drawing from `source`."""

    GAME: ClassVar[str] = "showdown_poker"
    SPOTS: ClassVar[tuple[str, ...]] = SPOTS
    OFFERS: ClassVar[frozenset[str]] = frozenset({EXCHANGE, INCREMENT_1, INCREMENT_2})
    #: Art.7: the pack is shuffled and cut before every round (TableSession reads this).
    SHUFFLE_EVERY_ROUND: ClassVar[bool] = True

    def __init__(
        self,
        rules: ShowdownRules,
        source: CardSource,
        boxes: Sequence[Box],
        *,
        round_id: int | str = 1,
    ) -> None:
        self.rules = rules
        self.source = source
        self.round_id = round_id
        self.events: list[Event] = []
        self._emit = self.events.append
        self._draw = source.draw
        self.staked: dict[str, int] = {}
        self.paid: dict[str, int] = {}
        self.commission = 0
        self.community: list[Card] = []
        self.shown = 0  # community cards turned face up (Art.9.3, 9.5)
        self.pending: Decision | None = None
        self.finished = False
        self.seats: list[SeatState] = []
        self.pot: dict[str, Any] = {}
        self.limit: dict[str, Any] | None = None
        self._phase = EXCHANGE
        self._i = 0
        self._open(boxes)

    # ------------------------------------------------------------------ bets, money, events
    @classmethod
    def bet_spec(cls, rules: ShowdownRules) -> BetSpec:
        """Art.8: bet and pot bet required on every position, optional bonus, one position per player,
        no back-betting; the pot bet is a fixed amount and the bonus has its own limits. Built once per
        rules object (they are frozen)."""
        return memo(_SPECS, rules, lambda: cls._make_bet_spec(rules))

    @classmethod
    def _make_bet_spec(cls, rules: ShowdownRules) -> BetSpec:
        pot = rules.pot_amount
        table = (rules.table_min, rules.table_max)
        bonus = bonus_limits(rules)

        def limits(spot: str) -> tuple[int, int]:
            return (pot, pot) if spot == "pot" else bonus if spot == "bonus" else table

        return BetSpec(
            spots=SPOTS,
            main_spot="bet",
            seats=7,
            back_spots=(),
            side_spots=("bonus",),
            required_spots=("bet", "pot"),
            one_box_per_player=True,
            max_boxes_per_player=1,
            back_betting=False,
            limits=limits,
            fixed=lambda spot: pot if spot == "pot" else None,
        )

    @classmethod
    def parse_action(cls, entry: dict[str, Any]) -> Action:
        """A scenario/API decision entry as an Action (IllegalAction for an unknown name or a bad field)."""
        name = entry["action"]
        known = (EXCHANGE, INCREMENT_1, INCREMENT_2)
        if name not in known:
            raise IllegalAction(
                f"unknown action {name!r}; {cls.GAME} actions: {', '.join(known)}",
                key="err.action.unknown",
                action=name,
                game=cls.GAME,
                known=known,
            )
        cards: tuple[Card, ...] | None = None
        if name == EXCHANGE:
            raw = entry.get("cards")
            if not isinstance(raw, list):
                raise IllegalAction(
                    'exchange names the cards given up: "cards": [...] (Art.9.2)', key="err.sd.exchange_cards"
                )
            try:
                cards = tuple(parse_card(c) for c in raw)
            except BadCards as exc:
                raise IllegalAction(
                    f"exchange: {exc.message}", key="err.sd.exchange_bad_card", problem=exc
                ) from None
        elif "cards" in entry:
            raise IllegalAction(f"{name} takes no cards", key="err.sd.no_cards", action=name)
        amount = entry.get("amount")
        if amount is not None:
            if name == EXCHANGE:
                raise IllegalAction("exchange takes no amount", key="err.action.no_amount", action=EXCHANGE)
            if isinstance(amount, bool) or not isinstance(amount, int) or amount < 1:
                raise IllegalAction(
                    f"amount {amount!r} is not a positive whole amount",
                    key="err.action.amount",
                    amount=amount,
                )
        hand = entry.get("hand")
        if hand not in (None, 0):
            raise IllegalAction(
                f"a Showdown position has one hand; hand {hand!r} does not exist",
                key="err.sd.one_hand",
                hand=hand,
            )
        return Action(seat=entry["seat"], action=name, cards=cards, amount=amount)

    @classmethod
    def actions_from_events(cls, events: Sequence[Event]) -> list[Action]:
        """The decisions recorded in a round's events, in order (for recall)."""
        out: list[Action] = []
        for ev in events:
            if ev["type"] != "offer":
                continue
            if not ev["taken"]:
                out.append(Action(ev["seat"], DECLINE))
            elif ev["offer"] == EXCHANGE:
                out.append(Action(ev["seat"], EXCHANGE, tuple(parse_card(c) for c in ev["cards"])))
            else:
                out.append(Action(ev["seat"], ev["offer"], amount=ev.get("amount")))
        return out

    @staticmethod
    def decline(decision: Decision) -> Action:
        """The answer of a player who says nothing when an offer is made."""
        return Action(seat=decision.seat, action=DECLINE)

    def _take(self, seat: SeatState, amount: int, spot: str) -> None:
        self.staked[seat.player] = self.staked.get(seat.player, 0) + amount
        self.paid.setdefault(seat.player, 0)
        self._emit(
            {"type": "stake", "seat": seat.seat, "player": seat.player, "spot": spot, "amount": amount}
        )

    def _settle(self, seat: SeatState, spot: str, stake: int, outcome: str, paid: int, **extra: Any) -> None:
        self.paid[seat.player] = self.paid.get(seat.player, 0) + paid
        ev: Event = {
            "type": "settle",
            "seat": seat.seat,
            "player": seat.player,
            "spot": spot,
            "stake": stake,
            "outcome": outcome,
            "paid": paid,
        }
        ev.update(extra)
        self._emit(ev)

    # ------------------------------------------------------------------ the deal (Art.9.1)
    def _open(self, boxes: Sequence[Box]) -> None:
        self._emit(
            {
                "type": "round_started",
                "game": self.GAME,
                "round": self.round_id,
                "rules": self.rules.settings(),
            }
        )
        for box in boxes:
            holder = box.holder
            state = SeatState(
                box.seat,
                holder,
                box.stake(holder, "bet"),
                box.stake(holder, "pot"),
                box.stake(holder, "bonus"),
            )
            self.seats.append(state)
            for spot in box.stakes[holder]:
                self._take(state, box.stakes[holder][spot], spot)
        self._emit({"type": "bets_closed"})
        for k in range(3):
            for s in self.seats:
                c = self._draw()
                s.cards.append(c)
                s.dealt.append(c)
                self._emit({"type": "card", "to": "seat", "seat": s.seat, "card": NAMES[c], "face": "down"})
            if k < 2:
                c = self._draw()
                self.community.append(c)
                self._emit({"type": "card", "to": "community", "index": k, "card": NAMES[c], "face": "down"})
        self._advance()

    # ------------------------------------------------------------------ the cursor
    def _advance(self) -> None:
        """Move to the next offer, doing every automatic step (showing community cards) on the way."""
        seats = self.seats
        n = len(seats)
        if self._phase == EXCHANGE:
            if self.rules.max_exchange > 0 and self._i < n:
                s = seats[self._i]
                self.pending = Decision(
                    EXCHANGE, s.seat, (EXCHANGE, DECLINE), max_cards=self.rules.max_exchange
                )
                return
            self._phase, self._i = INCREMENT_1, 0
        if self._phase == INCREMENT_1:
            if self._i < n:
                s = seats[self._i]
                self.pending = Decision(INCREMENT_1, s.seat, (INCREMENT_1, DECLINE), max_amount=s.bet)
                return
            self._show(0)  # Art.9.3
            self._phase, self._i = INCREMENT_2, 0
        if self._phase == INCREMENT_2:
            while self._i < n:  # Art.9.4: only to those who made increment Nº1
                s = seats[self._i]
                if len(s.increments) == 1:
                    self.pending = Decision(INCREMENT_2, s.seat, (INCREMENT_2, DECLINE), max_amount=s.bet)
                    return
                self._i += 1
            self._show(1)  # Art.9.5
            self._phase = SETTLE
        self.pending = None
        self._settle_round()
        self.finished = True
        self._emit(self._closing_event())

    def _show(self, index: int) -> None:
        self.shown = index + 1
        self._emit({"type": "community_shown", "index": index, "card": NAMES[self.community[index]]})

    # ------------------------------------------------------------------ decisions (triad)
    def legal(self) -> tuple[str, ...]:
        """The legal answers of the seat being asked now (empty when the round is over)."""
        return self.pending.legal if self.pending else ()

    def verify(self, action: Action) -> None:
        """Raise IllegalAction, saying why, unless `action` is legal now. Changes nothing."""
        d = self.pending
        check_turn(d, action)
        assert d is not None
        if action.action not in d.legal:
            if action.action == INCREMENT_2 and d.kind == INCREMENT_1:
                raise IllegalAction(
                    f"{action.action} is not legal for seat {d.seat} now ({d.kind}); "
                    f"legal: {', '.join(d.legal)} (Art.9.4: increment Nº2 only after increment Nº1)",
                    key="err.sd.increment_2_first",
                    seat=d.seat,
                    legal=d.legal,
                )
            raise IllegalAction(
                f"{action.action} is not legal for seat {d.seat} now ({d.kind}); legal: {', '.join(d.legal)}",
                key="err.action.not_legal",
                action=action.action,
                seat=d.seat,
                kind=d.kind,
                legal=d.legal,
            )
        if action.action == EXCHANGE:
            cards = action.cards
            if cards is None:
                raise IllegalAction(
                    'exchange names the cards given up: "cards": [...] (Art.9.2)', key="err.sd.exchange_cards"
                )
            if len(cards) > d.max_cards:
                raise IllegalAction(
                    f"seat {d.seat} may exchange at most {d.max_cards} card(s), not {len(cards)} (Art.9.2)",
                    key="err.sd.exchange_too_many",
                    seat=d.seat,
                    limit=d.max_cards,
                    count=len(cards),
                )
            if len(set(cards)) != len(cards):
                raise IllegalAction(
                    f"seat {d.seat} names a card twice in the exchange",
                    key="err.sd.exchange_twice",
                    seat=d.seat,
                )
            mine = self._seat(d.seat).cards
            for c in cards:
                if c not in mine:
                    have = " ".join(NAMES[x] for x in mine)
                    raise IllegalAction(
                        f"seat {d.seat} does not hold {NAMES[c]} (holds {have}): only his own cards",
                        key="err.sd.exchange_foreign",
                        seat=d.seat,
                        card=NAMES[c],
                        held=have,
                    )
        elif action.cards is not None:
            raise IllegalAction(
                f"{action.action} takes no cards", key="err.sd.no_cards", action=action.action
            )
        if action.amount is not None:
            if action.action not in (INCREMENT_1, INCREMENT_2):
                raise IllegalAction(
                    f"{action.action} takes no amount", key="err.action.no_amount", action=action.action
                )
            if action.amount != d.max_amount:
                raise IllegalAction(
                    f"{action.action} of {action.amount}: an increment equals the bet "
                    f"({d.max_amount}), Art.9.7",
                    key="err.sd.increment_equals_bet",
                    action=action.action,
                    amount=action.amount,
                    bet=d.max_amount,
                )

    def can(self, action: Action) -> bool:
        """Whether `action` is legal now."""
        try:
            self.verify(action)
        except IllegalAction:
            return False
        return True

    def apply(self, action: Action) -> list[Event]:
        """Carry out a legal answer and return the events it caused (IllegalAction changes nothing)."""
        self.verify(action)
        d = self.pending
        assert d is not None
        start = len(self.events)
        s = self._seat(d.seat)
        taken = action.action != DECLINE and not (action.action == EXCHANGE and not action.cards)
        ev: Event = {"type": "offer", "seat": d.seat, "offer": d.kind, "taken": taken}
        if not taken:
            self._emit(ev)
        elif d.kind == EXCHANGE:  # Art.9.2: given up face down; replacements dealt at once, in hand order
            assert action.cards is not None
            given = [c for c in s.cards if c in action.cards]
            ev["cards"] = [NAMES[c] for c in given]
            self._emit(ev)
            for i, c in enumerate(s.cards):
                if c in action.cards:
                    new = self._draw()
                    s.cards[i] = new
                    s.discarded.append(c)
                    s.replacements.append(new)
                    self._emit(
                        {
                            "type": "card",
                            "to": "seat",
                            "seat": s.seat,
                            "card": NAMES[new],
                            "face": "down",
                            "replaces": NAMES[c],
                        }
                    )
        else:  # Art.9.2, 9.4, 9.7: an increment equal to the bet
            assert d.max_amount is not None
            ev["amount"] = d.max_amount
            self._emit(ev)
            s.increments.append(d.max_amount)
            self._take(s, d.max_amount, d.kind)
        self._i += 1
        self._advance()
        return self.events[start:]

    def _seat(self, seat: int) -> SeatState:
        for s in self.seats:
            if s.seat == seat:
                return s
        raise IllegalAction(
            f"seat {seat} has no position in this round", key="err.action.no_position", seat=seat
        )

    # ------------------------------------------------------------------ settlement (Art.9.6-13, [A])
    def final_cards(self, s: SeatState) -> list[Card]:
        """Art.9: the player's three cards and the two community cards."""
        return [*s.cards, *self.community]

    def _settle_round(self) -> None:
        seats = self.seats
        for s in seats:  # Art.9.6: the dealer checks every hand, from one end to the other
            s.strength = hand_strength(self.final_cards(s))
            s.outcome, s.ratio = hand_outcome(s.strength)
            if s.outcome == "win":
                s.winnings = winnings(s.stake, Ratio(s.ratio))[0]
            self._emit(
                {
                    "type": "hand",
                    "seat": s.seat,
                    "cards": [NAMES[c] for c in self.final_cards(s)],
                    "category": category(s.strength).key,
                    "description": describe_strength(s.strength),
                }
            )
        self._apply_limit()
        for s in seats:
            stakes = {"bet": s.bet}
            for k, amount in enumerate(s.increments):
                stakes[f"increment_{k + 1}"] = amount
            extra: dict[str, Any] = {"stakes": stakes}
            if s.outcome == "win":
                s.hand_paid = s.stake + s.won
                extra["ratio"] = f"{s.ratio}:1"
                extra["winnings"] = s.winnings
                if s.capped:
                    extra["capped_winnings"] = s.won
                    if s.cap_fraction:
                        extra["fraction"] = str(s.cap_fraction)
            elif s.outcome == "push":
                s.hand_paid = s.stake
            self._settle(s, "bet", s.stake, s.outcome, s.hand_paid, **extra)
        self._settle_pot()
        for s in seats:
            if not s.bonus:
                continue
            s.bonus_ratio = bonus_ratio(self.rules, s.strength)
            if s.bonus_ratio:
                s.bonus_outcome = "win"
                s.bonus_paid = s.bonus + s.bonus * s.bonus_ratio
                self._settle(s, "bonus", s.bonus, "win", s.bonus_paid, ratio=f"{s.bonus_ratio}:1")
            else:
                s.bonus_outcome = "lose"
                self._settle(s, "bonus", s.bonus, "lose", 0)

    def _apply_limit(self) -> None:
        """Art.12-13: when the individual payouts (winnings on bet and increments, SUMA) exceed the table's
        payout limit (LIMITE), each is paid individual × LIMITE / SUMA, rounded down, fraction logged."""
        suma = sum(s.winnings for s in self.seats)
        limite = self.rules.payout_limit
        for s in self.seats:
            s.won = s.winnings
        if limite is None or suma <= limite:
            return
        rows = []
        for s in self.seats:
            if not s.winnings:
                continue
            s.won, s.cap_fraction = share(s.winnings, limite, suma)
            s.capped = True
            row: dict[str, Any] = {"seat": s.seat, "individual": s.winnings, "paid": s.won}
            if s.cap_fraction:
                row["fraction"] = str(s.cap_fraction)
            rows.append(row)
        factor = Fraction(limite, suma)
        self.limit = {
            "limit": limite,
            "suma": suma,
            "factor": f"{factor.numerator}/{factor.denominator}",
            "seats": rows,
        }
        self._emit({"type": "payout_limit", **self.limit})

    def _settle_pot(self) -> None:
        """rules.md [A]: the pot to the best final hand(s) less the house commission on the whole pot
        (what is paid is rounded down, the house keeps the rest); a tie splits it equally with the
        indivisible remainder to the earliest seat from the dealer's left; one player alone: returned."""
        seats = self.seats
        total = sum(s.pot for s in seats)
        pct = self.rules.pot_commission_percent
        if len(seats) == 1:
            s = seats[0]
            s.pot_outcome, s.pot_paid = "returned", s.pot
            self.pot = {"total": total, "returned": True, "commission": 0, "winners": []}
            self._emit({"type": "pot", **self.pot})
            self._settle(s, "pot", s.pot, "returned", s.pot)
            return
        best = max(s.strength for s in seats)
        winners = [s for s in seats if s.strength == best]  # seat order = from the dealer's left
        distributable, fraction = share(total, 100 - pct, 100)
        commission = total - distributable
        each, remainder = divmod(distributable, len(winners))
        self.commission += commission
        shares = {}
        for k, s in enumerate(winners):
            s.pot_paid = each + (remainder if k == 0 else 0)
            shares[str(s.seat)] = s.pot_paid
        self.pot = {
            "total": total,
            "returned": False,
            "commission_percent": pct,
            "commission": commission,
            "distributable": distributable,
            "winners": [s.seat for s in winners],
            "best_hand": describe_strength(best),
            "shares": shares,
            "remainder": remainder,
        }
        if fraction:
            self.pot["fraction"] = str(fraction)
        self._emit({"type": "pot", **self.pot})
        for s in seats:
            s.pot_outcome = "win" if s in winners else "lose"
            self._settle(s, "pot", s.pot, s.pot_outcome, s.pot_paid)

    def _closing_event(self) -> Event:
        return round_settled(self.staked, self.paid, self.commission)

    # ------------------------------------------------------------------ what people see
    def _seat_result(self, s: SeatState) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "seat": s.seat,
            "player": s.player,
            "cards": [NAMES[c] for c in s.cards],
            "dealt": [NAMES[c] for c in s.dealt],
            "exchanged": [NAMES[c] for c in s.discarded],
            "bet": s.bet,
            "increments": list(s.increments),
            "stake": s.stake,
        }
        if self.finished:
            entry["final_hand"] = {
                "cards": [NAMES[c] for c in self.final_cards(s)],
                "category": category(s.strength).key,
                "description": describe_strength(s.strength),
            }
            entry["outcome"] = s.outcome
            if s.outcome == "win":
                entry["ratio"] = f"{s.ratio}:1"
                entry["winnings"] = s.winnings
            if s.capped:
                assert self.limit is not None
                entry["payout_limit"] = {
                    "factor": self.limit["factor"],
                    "uncapped": s.winnings,
                    "paid": s.won,
                    "fraction": str(s.cap_fraction),
                }
            entry["paid"] = s.hand_paid
            entry["pot"] = {"stake": s.pot, "outcome": s.pot_outcome, "paid": s.pot_paid}
            if s.bonus:
                entry["bonus"] = {
                    "stake": s.bonus,
                    "outcome": s.bonus_outcome,
                    "ratio": f"{s.bonus_ratio}:1" if s.bonus_ratio else None,
                    "paid": s.bonus_paid,
                    "net": s.bonus_paid - s.bonus,
                }
            entry["net"] = s.paid - s.staked
        return entry

    def result(self) -> dict[str, Any]:
        """The outcome in the scenario contract's shape (players, house, seats, community, pot, events)."""
        closing = self.events[-1] if self.finished else self._closing_event()
        return {
            "game": self.GAME,
            "players": closing["players"],
            "house": closing["house"],
            "seats": [self._seat_result(s) for s in self.seats],
            "community": [NAMES[c] for c in self.community],
            "pot": dict(self.pot) if self.pot else {"total": sum(s.pot for s in self.seats)},
            "payout_limit": dict(self.limit) if self.limit else None,
            "events": self.events,
        }

    def view(self, viewer: str) -> dict[str, Any]:
        """What `viewer` may see. Before the showdown a player sees his own cards and discards, every
        seat's stakes, the community cards already shown and nothing else; the dealer sees no hidden
        card (all are dealt face down); the inspector sees everything. After the showdown (the round
        finished) every hand is open. No view ever holds the shoe or the cards still in it."""
        inspector = viewer == "inspector"
        player = viewer.removeprefix("player:") if viewer.startswith("player:") else None
        open_all = inspector or self.finished
        community = [
            NAMES[c] if (open_all or i < self.shown) else HIDDEN for i, c in enumerate(self.community)
        ]
        seats = []
        for s in self.seats:
            mine = s.player == player
            see = open_all or mine
            entry: dict[str, Any] = {
                "seat": s.seat,
                "player": s.player,
                "bet": s.bet,
                "pot": s.pot,
                "bonus": s.bonus,
                "increments": list(s.increments),
                "cards": [NAMES[c] if see else HIDDEN for c in s.cards],
                "exchanged": len(s.discarded),
            }
            if mine or inspector:  # given up face down (Art.9.2): only their owner ever sees them
                entry["discarded"] = [NAMES[c] for c in s.discarded]
            if self.finished:  # the showdown: final hands open; others' discards stay face down
                keep = set(entry) if mine or inspector else {*entry, "dealt"}
                entry.update({k: v for k, v in self._seat_result(s).items() if k not in keep})
            seats.append(entry)
        out: dict[str, Any] = {
            "game": self.GAME,
            "round": self.round_id,
            "viewer": viewer,
            "community": community,
            "seats": seats,
            "pot_total": sum(s.pot for s in self.seats),
            "finished": self.finished,
        }
        if self.finished:
            out["pot"] = dict(self.pot)
            out["payout_limit"] = dict(self.limit) if self.limit else None
        d = self.pending
        if d is not None:
            turn: dict[str, Any] = {"seat": d.seat, "kind": d.kind}
            if viewer in ("dealer", "inspector") or self._seat(d.seat).player == player:
                turn["legal"] = list(d.legal)
                if d.kind == EXCHANGE:
                    turn["max_cards"] = d.max_cards
                else:
                    turn["amount"] = d.max_amount
            out["turn"] = turn
        if inspector:
            out["events"] = list(self.events)
        return out
