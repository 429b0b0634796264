"""Showdown Póker as the reglamento of 17-08-2000 writes it (rules.md §3): a pure round state machine.

The round never does I/O, reads a clock, makes randomness or draws a card itself: every card it needs (the
deal's, an exchange's replacements) is its pending step (`CardStep`), taken through the same ``verify()``
/ ``can()`` / ``apply(step) -> events`` as a player's answer (tapete.games.base). Its surface is every
round's: ``pending``, ``legal()``, the triad, ``view(viewer)``, ``censor(events, viewer)``, ``result()``.

Order of a round: bets and pot bets (Art.8, checked by `tapete.table`; optional bonus), the deal of
Art.9.1 (first card to each seat, community 1, second card to each seat, community 2, third card to each
seat, all face down), the exchange offered to every seat in seat order (Art.9.2; replacements dealt at
once), increment Nº1 offered to every seat (Art.9.2), community card 1 shown (Art.9.3), increment Nº2
offered to those who made Nº1 (Art.9.4), community card 2 shown (Art.9.5), then settlement: bet and
increments by Art.10-11 under the payout limit of Art.12-13, the pot and the bonus (rules.md [A]).
Every decision is an offer: silence declines it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any, ClassVar

from tapete.cards import NAMES, Card, parse_card
from tapete.errors import BadCards, IllegalAction
from tapete.games.base import (
    CARD,
    DECLINE,
    HIDDEN,
    Action,
    CardStep,
    Dealt,
    Decision,
    Event,
    RoundBase,
    Step,
    Viewer,
    entry_basics,
    json_copy,
    public_copy,
)
from tapete.games.turn import check_turn
from tapete.memo import memo
from tapete.money import Ratio, share, winnings
from tapete.poker import JACK, POKER_RANK, Category, category, describe, significant_ranks, strength_of_ranks
from tapete.rules.showdown import SEATS, SHOWDOWN_PAYTABLE, ShowdownRules
from tapete.table import BetSpec, Box

# Kinds of decision the dealer asks for (all offers: declined by silence).
EXCHANGE = "exchange"
INCREMENT_1 = "increment_1"
INCREMENT_2 = "increment_2"
DEAL = "deal"
SETTLE = "settle"
SPOTS = ("bet", "pot", "bonus")


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
    """The strength of five cards of the pack, as `tapete.poker.strength_of_ranks` defines it (with more
    than one deck equal cards may meet: five of a kind, a flush holding a pair), memoised on the sorted
    ranks and the flush flag (a hand's order depends on nothing else)."""
    suit = cards[0] % 4
    flush = all(c % 4 == suit for c in cards)
    return _strength(tuple(sorted(POKER_RANK[c] for c in cards)), flush)


describe_strength = cache(describe)


def paid_as(cat: Category) -> str:
    """The paytable entry a category is paid by: five of a kind (more than one deck) as a royal flush
    (rules.md §0 [A]), every other category as itself."""
    return "royal_flush" if cat is Category.FIVE_OF_A_KIND else cat.key


def hand_outcome(strength: int, pays: Mapping[str, int] = SHOWDOWN_PAYTABLE) -> tuple[str, int]:
    """Art.10-11: ("lose", 0) below a pair of jacks, ("push", 0) for a pair of J/Q/K/A, else
    ("win", N) paying N to 1 on the bet and on each increment, N from the table's paytable `pays`
    (Art.11's figures or more, Art.12)."""
    cat = category(strength)
    if cat is Category.HIGH_CARD:
        return "lose", 0
    if cat is Category.PAIR:
        return ("push", 0) if significant_ranks(strength)[0] >= JACK else ("lose", 0)
    return "win", pays[paid_as(cat)]


def bonus_ratio(rules: ShowdownRules, strength: int) -> int:
    """The bonus's N to 1 for a final hand (rules.md [A]: operator paytable; 0 = loses). A royal flush
    the paytable does not name is paid as the straight flush it also is; five of a kind as a royal."""
    key = paid_as(category(strength))
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


def exchange_positions(hand: Sequence[Card], given: Sequence[Card]) -> list[int]:
    """The positions of `hand` an exchange of `given` gives up, in the hand's order: each named card is
    one position (the first not yet taken that holds it), so one of two identical cards is one card."""
    wanted = Counter(given)
    out = []
    for i, c in enumerate(hand):
        if wanted[c]:
            wanted[c] -= 1
            out.append(i)
    return out


class ShowdownRound(RoundBase):
    """One round of Showdown Póker on the positions given; its first pending step is the deal's first card."""

    rules: ShowdownRules
    GAME: ClassVar[str] = "showdown_poker"
    SPOTS: ClassVar[tuple[str, ...]] = SPOTS
    OFFERS: ClassVar[frozenset[str]] = frozenset({EXCHANGE, INCREMENT_1, INCREMENT_2})
    #: the actions a scenario names (scenario.md); the API also takes ``decline`` on an offer
    SCENARIO_ACTIONS: ClassVar[tuple[str, ...]] = (EXCHANGE, INCREMENT_1, INCREMENT_2)
    #: Art.7: the pack is shuffled and cut before every round (TableSession reads this).
    SHUFFLE_EVERY_ROUND: ClassVar[bool] = True

    def __init__(
        self,
        rules: ShowdownRules,
        boxes: Sequence[Box],
        *,
        round_id: int | str = 1,
    ) -> None:
        self.rules = rules
        self.round_id = round_id
        self.events: list[Event] = []
        self._emit = self.events.append
        self.staked: dict[str, int] = {}
        self.paid: dict[str, int] = {}
        self.commission = 0
        self.community: list[Card] = []
        self.shown = 0  # community cards turned face up (Art.9.3, 9.5)
        self.pending: Decision | CardStep | None = None
        self.finished = False
        self.voided = False
        self.seats: list[SeatState] = []
        self.pot: dict[str, Any] = {}
        self.limit: dict[str, Any] | None = None
        self._phase = DEAL
        self._i = 0
        self._k = 0  # cards of the deal given so far
        self._swap: list[int] = []  # positions of the pending exchange still waiting for their card
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
            seats=SEATS,
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
    def parse_action(cls, entry: object) -> Action:
        """A scenario/API decision entry as an Action: BadRequest for a missing or mistyped seat or action,
        IllegalAction for an unknown name or a bad field. Never a KeyError."""
        seat, name = entry_basics(entry)
        assert isinstance(entry, dict)
        known = cls.SCENARIO_ACTIONS
        if name not in known and name != DECLINE:
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
        return Action(seat, name, None, amount, cards)

    @classmethod
    def step_from_event(cls, ev: Event) -> Step | None:
        """The step a logged event records: a card, or a player's answer to an offer (recall, resume)."""
        kind = ev["type"]
        if kind == CARD:
            return Dealt(parse_card(ev["card"]))
        if kind != "offer":
            return None
        if not ev["taken"]:
            return Action(ev["seat"], DECLINE)
        if ev["offer"] == EXCHANGE:
            return Action(ev["seat"], EXCHANGE, cards=tuple(parse_card(c) for c in ev["cards"]))
        return Action(ev["seat"], ev["offer"], amount=ev.get("amount"))

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
        self._emit(self._started())
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
        # Art.9.1: first card to each seat, community 1, second card to each seat, community 2, third card
        seat_steps = [CardStep("seat", s.seat, 0, "down") for s in self.seats]
        self._plan = (
            *seat_steps,
            CardStep("community", face="down", position=0),
            *seat_steps,
            CardStep("community", face="down", position=1),
            *seat_steps,
        )
        self.pending = self._plan[0]

    def _on_card(self, card: Card, exposed: bool) -> None:
        """The card the pending step waited for: one of the deal's (Art.9.1), or a replacement for a card
        an exchange gave up (Art.9.2), dealt at once in the hand's order."""
        step = self.pending
        assert isinstance(step, CardStep)
        if self._phase == DEAL:
            if step.to == "community":
                self.community.append(card)
                self._emit(
                    {
                        "type": "card",
                        "to": "community",
                        "index": step.position,
                        "card": NAMES[card],
                        "face": "down",
                    }
                )
            else:
                s = self._seat(step.seat or 0)
                s.cards.append(card)
                s.dealt.append(card)
                self._emit(
                    {"type": "card", "to": "seat", "seat": s.seat, "card": NAMES[card], "face": "down"}
                )
            self._k += 1
            if self._k < len(self._plan):
                self.pending = self._plan[self._k]
                return
            self._phase = EXCHANGE
            self._advance()
            return
        s = self.seats[self._i]  # an exchange's replacement, position by position
        pos = self._swap.pop(0)
        old = s.cards[pos]
        s.cards[pos] = card
        s.discarded.append(old)
        s.replacements.append(card)
        self._emit(
            {
                "type": "card",
                "to": "seat",
                "seat": s.seat,
                "card": NAMES[card],
                "face": "down",
                "replaces": NAMES[old],
            }
        )
        if self._swap:
            self.pending = self._replacement_step(s)
            return
        self._i += 1
        self._advance()

    def _replacement_step(self, s: SeatState) -> CardStep:
        return CardStep("seat", s.seat, 0, "down", replaces=NAMES[s.cards[self._swap[0]]])

    # ------------------------------------------------------------------ the cursor
    def _advance(self) -> None:
        """Move to the next offer, doing every automatic step (showing community cards) on the way."""
        seats = self.seats
        n = len(seats)
        if self._phase == EXCHANGE:
            if self.rules.max_exchange > 0 and self._i < n:
                s = seats[self._i]
                self.pending = Decision(
                    EXCHANGE, s.seat, 0, (EXCHANGE, DECLINE), max_cards=self.rules.max_exchange
                )
                return
            self._phase, self._i = INCREMENT_1, 0
        if self._phase == INCREMENT_1:
            if self._i < n:
                s = seats[self._i]
                self.pending = Decision(INCREMENT_1, s.seat, 0, (INCREMENT_1, DECLINE), max_amount=s.bet)
                return
            self._show(0)  # Art.9.3
            self._phase, self._i = INCREMENT_2, 0
        if self._phase == INCREMENT_2:
            while self._i < n:  # Art.9.4: only to those who made increment Nº1
                s = seats[self._i]
                if len(s.increments) == 1:
                    self.pending = Decision(INCREMENT_2, s.seat, 0, (INCREMENT_2, DECLINE), max_amount=s.bet)
                    return
                self._i += 1
            self._show(1)  # Art.9.5
            self._phase = SETTLE
        self.pending = None
        self._settle_round()
        self.finished = True
        self._emit(self._closing_event())

    def _holder(self, seat: int | None) -> str | None:
        return next((s.player for s in self.seats if s.seat == seat), None)

    @property
    def _showdown(self) -> bool:
        """The hands were shown and settled (a voided round never reaches its showdown)."""
        return self.finished and not self.voided

    def _show(self, index: int) -> None:
        self.shown = index + 1
        self._emit({"type": "community_shown", "index": index, "card": NAMES[self.community[index]]})

    # ------------------------------------------------------------------ decisions (triad)
    def _verify_action(self, action: Action) -> None:
        """Raise IllegalAction, saying why, unless `action` is legal now. Changes nothing."""
        d = self.pending
        check_turn(d, action)
        assert isinstance(d, Decision)
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
            for c in cards:
                if type(c) is not int or not 0 <= c < 52:
                    raise IllegalAction(
                        f"exchange: {c!r} is not a card", key="err.sd.exchange_bad_card", problem=repr(c)
                    )
            mine = self._seat(d.seat).cards
            named, held = Counter(cards), Counter(mine)
            if any(n > 1 and n > held[c] for c, n in named.items()):  # by position: no more than he holds
                raise IllegalAction(
                    f"seat {d.seat} names a card twice in the exchange",
                    key="err.sd.exchange_twice",
                    seat=d.seat,
                )
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

    def _on_action(self, action: Action) -> None:
        """Carry out a verified answer. An exchange gives up the named cards by position (with more than
        one deck a hand may hold two of a card: each named copy is one position) and then waits for
        their replacements, dealt at once in the hand's order (Art.9.2)."""
        d = self.pending
        assert isinstance(d, Decision)
        s = self._seat(d.seat)
        taken = action.action != DECLINE and not (action.action == EXCHANGE and not action.cards)
        ev: Event = {"type": "offer", "seat": d.seat, "offer": d.kind, "taken": taken}
        if not taken:
            self._emit(ev)
        elif d.kind == EXCHANGE:  # Art.9.2: given up face down; replacements dealt at once, in hand order
            assert action.cards is not None
            self._swap = exchange_positions(s.cards, action.cards)
            ev["cards"] = [NAMES[s.cards[i]] for i in self._swap]
            self._emit(ev)
            self.pending = self._replacement_step(s)
            return
        else:  # Art.9.2, 9.4, 9.7: an increment equal to the bet
            assert d.max_amount is not None
            ev["amount"] = d.max_amount
            self._emit(ev)
            s.increments.append(d.max_amount)
            self._take(s, d.max_amount, d.kind)
        self._i += 1
        self._advance()

    def _chips_for(self, action: Action) -> int:
        """An increment takes the bet's amount again (Art.9.7); an exchange or a decline nothing."""
        d = self.pending
        assert isinstance(d, Decision)
        return d.max_amount or 0 if action.action in (INCREMENT_1, INCREMENT_2) else 0

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
            s.outcome, s.ratio = hand_outcome(s.strength, self.rules.pays)
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
        if self._showdown:
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
            "players": json_copy(closing["players"]),
            "house": json_copy(closing["house"]),
            "seats": [self._seat_result(s) for s in self.seats],
            "community": [NAMES[c] for c in self.community],
            "pot": json_copy(self.pot) if self.pot else {"total": sum(s.pot for s in self.seats)},
            "payout_limit": json_copy(self.limit) if self.limit else None,
            **({"voided": True} if self.voided else {}),
            "events": json_copy(self.events),
        }

    #: What every seat shows once the round is over (the showdown: final hands open).
    _SHOWDOWN_KEYS: ClassVar[tuple[str, ...]] = (
        "stake",
        "final_hand",
        "outcome",
        "ratio",
        "winnings",
        "payout_limit",
        "paid",
        "net",
    )

    def view(self, viewer: Viewer | str) -> dict[str, Any]:
        """What `viewer` may see, built from an allow-list. Before the showdown a player sees his own
        cards and discards, every seat's stakes, the community cards already shown and nothing else; the
        dealer and a spectator see no hidden card (all are dealt face down); the inspector sees everything.
        At the showdown (the round over) every final hand opens; discards stay with their owner. No view
        ever holds the shoe or the cards still in it."""
        v = Viewer.of(viewer)
        inspector = v.inspector
        open_all = inspector or self._showdown
        community = [
            NAMES[c] if (open_all or i < self.shown) else HIDDEN for i, c in enumerate(self.community)
        ]
        seats = []
        for s in self.seats:
            mine = v.role == "player" and s.player == v.name
            see = open_all or mine
            entry: dict[str, Any] = {
                "seat": s.seat,
                "holder": s.player,
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
            if self._showdown:
                shown = self._seat_result(s)
                entry.update({k: shown[k] for k in self._SHOWDOWN_KEYS if k in shown})
                if mine or inspector:
                    entry["dealt"] = shown["dealt"]
            seats.append(entry)
        out: dict[str, Any] = {
            "game": self.GAME,
            "round": self.round_id,
            "viewer": str(v),
            "community": community,
            "seats": seats,
            "pot_total": sum(s.pot for s in self.seats),
            "finished": self.finished,
            "voided": self.voided,
            "pending": self.pending_json(v),
        }
        if self._showdown:
            out["pot"] = json_copy(self.pot)
            out["payout_limit"] = json_copy(self.limit) if self.limit else None
        d = self.pending
        if isinstance(d, Decision):
            turn: dict[str, Any] = {"seat": d.seat, "kind": d.kind}
            if v.staff or self._holder(d.seat) == v.name:
                turn["legal"] = list(d.legal)
                if d.kind == EXCHANGE:
                    turn["max_cards"] = d.max_cards
                else:
                    turn["amount"] = d.max_amount
            out["turn"] = turn
        if inspector:
            out["events"] = json_copy(self.events)
        return out

    @classmethod
    def censor(cls, events: Sequence[Event], viewer: Viewer | str, start: int = 0) -> list[Event]:
        """Copies of ``events[start:]`` for `viewer`, judged as of the last event: every card is dealt
        face down, so a seat's cards (dealt or replacements) and the cards an exchange gave up reach only
        their owner; community cards reach everyone as they are shown (``community_shown``); final hands
        at the showdown (``hand``). The inspector reads every event whole."""
        v = Viewer.of(viewer)
        if v.inspector:
            return [json_copy(e) for e in events[start:]]
        owner: dict[int, str] = {}
        for ev in events:
            if ev.get("type") == "stake":
                owner.setdefault(ev["seat"], ev["player"])
        out: list[Event] = []
        for ev in events[start:]:
            c = public_copy(ev)
            if c is None:
                continue
            kind = c["type"]
            mine = v.role == "player" and owner.get(c.get("seat", -1)) == v.name
            if kind == CARD and not (c.get("to") == "seat" and mine):
                c["card"] = HIDDEN
                if "replaces" in c:
                    c["replaces"] = HIDDEN
            elif kind == "offer" and "cards" in c and not mine:
                c["cards"] = [HIDDEN] * len(c["cards"])
            out.append(c)
        return out
