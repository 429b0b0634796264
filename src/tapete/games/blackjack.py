"""Black Jack as the reglamento of 23-12-1999 writes it (rules.md §1): a pure round state machine.

The round never does I/O, reads a clock, makes randomness or draws a card itself: every card it needs is
its pending step (`CardStep`: which box and hand, the dealer's up or hole card, a draw), taken through the
same ``verify()`` / ``can()`` / ``apply(step) -> events`` as a holder's decision (`tapete.games.base`).
Its surface follows OpenSpiel/PokerKit: ``pending``, ``legal()``, the triad, ``view(viewer)``,
``censor(events, viewer)`` and ``result()``. Majestic 21 (§4) subclasses it through the hooks marked HOOK.

Order of a round: bets (checked by `tapete.table`), the deal of Art.8, Black Jacks paid at once when
the up-card is 2-9 (Art.13), surrender offered to every box in seat order (Art.9, not against an Ace),
insurance / even money (Art.10, 13), the drawing stage box by box and hand by hand (Art.11, 12, 14), the
hole card turned, the dealer drawing to 17 (Art.14), then settlement.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from tapete.cards import BJ_VALUE, NAMES, Card, parse_card
from tapete.errors import IllegalAction
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
from tapete.money import EVEN, THREE_TO_TWO, TWO_TO_ONE, Ratio, winnings
from tapete.rules.blackjack import BlackjackRules
from tapete.table import BetSpec, Box

# Kinds of decision the dealer asks for.
SURRENDER = "surrender"
INSURANCE = "insurance"
EVEN_MONEY = "even_money"
RESPLIT = "resplit"  # Art.11 [A]: a split Ace dealt another Ace may be split again, if the operator allows
PLAY = "play"
DEAL = "deal"
DEALER = "dealer"
PLAY_ACTIONS = ("hit", "stand", "double", "split")
# The legal tuples a decision can carry, built once.
_HIT_STAND = ("hit", "stand")
_HIT_STAND_DOUBLE = ("hit", "stand", "double")
_HIT_STAND_DOUBLE_SPLIT = ("hit", "stand", "double", "split")
_SPLIT_DECLINE = ("split", DECLINE)
_SURRENDER_OFFER = (SURRENDER, DECLINE)
_INSURANCE_OFFER = (INSURANCE, DECLINE)
_EVEN_MONEY_OFFER = (EVEN_MONEY, DECLINE)


def hand_total(cards: Sequence[Card]) -> tuple[int, bool]:
    """Best Black Jack total of `cards` and whether it is soft (an Ace counted as 11), BJ Art.3."""
    hard = 0
    ace = False
    for c in cards:
        v = BJ_VALUE[c]
        hard += v
        if v == 1:
            ace = True
    if ace and hard + 10 <= 21:
        return hard + 10, True
    return hard, False


def is_ten(card: Card) -> bool:
    """A ten-value card: 10, J, Q or K."""
    return BJ_VALUE[card] == 10


def is_natural(cards: Sequence[Card]) -> bool:
    """Black Jack (Art.13): an Ace and a ten-value card as the first two cards."""
    return (
        len(cards) == 2
        and BJ_VALUE[cards[0]] + BJ_VALUE[cards[1]] == 11
        and (BJ_VALUE[cards[0]] == 1 or BJ_VALUE[cards[1]] == 1)
    )


_SPECS: dict[type, dict[int, BetSpec]] = {}


@dataclass(slots=True)
class Hand:
    """One hand of a box. `stakes` are the original stakes on it: the holder's and, on the first
    hand, the back-bettors'; `double` is the holder's increment (rules.md §0 [A])."""

    cards: list[Card]
    stakes: list[tuple[str, int]]
    double: int = 0
    split_aces: bool = False
    done: bool = False
    busted: bool = False
    settled: bool = False
    outcome: str = ""
    paid: int = 0

    @property
    def stake(self) -> int:
        """Everything on this hand."""
        return sum(a for _, a in self.stakes) + self.double


@dataclass(slots=True)
class BoxState:
    """A box in play: its holder, bettors, hands, and the offers it took."""

    seat: int
    holder: str
    holder_stake: int
    bettors: list[tuple[str, int]]
    hands: list[Hand]
    blackjack: bool = False
    surrendered: bool = False
    even_money: bool = False
    settled: bool = False  # the whole box is finished before the dealer's turn (BJ paid, even money, retiro)
    insurance: int = 0
    insurance_paid: int = 0
    splits: int = 0
    side: dict[str, list[int]] = field(default_factory=dict)  # spot -> [stake, paid] (Majestic 21)


#: What a card step's card is for (the round's `_want`).
_DEAL, _HIT, _DOUBLE, _SPLIT, _DEALER = range(5)
#: Card steps are immutable: one per (seat, hand) and per dealer card, built once.
_SEAT_STEPS: dict[tuple[int, int], CardStep] = {}
_DEALER_STEPS: list[CardStep] = [
    CardStep("dealer", face="up", position=0),
    CardStep("dealer", face="down", position=1),
]
#: The deal's order for the boxes in play (Art.8): box indices (-1 for the dealer) and the card steps,
#: built once per set of seats.
_DEAL_PLANS: dict[tuple[int, ...], tuple[tuple[int, ...], tuple[CardStep, ...]]] = {}


def _seat_step(seat: int, hand: int) -> CardStep:
    step = _SEAT_STEPS.get((seat, hand))
    if step is None:
        step = _SEAT_STEPS[(seat, hand)] = CardStep("seat", seat, hand)
    return step


def _dealer_step(index: int) -> CardStep:
    while len(_DEALER_STEPS) <= index:
        _DEALER_STEPS.append(CardStep("dealer", face="up", position=len(_DEALER_STEPS)))
    return _DEALER_STEPS[index]


class BlackjackRound(RoundBase):
    """One round of Black Jack on the boxes given; its first pending step is the deal's first card."""

    rules: BlackjackRules
    GAME: ClassVar[str] = "blackjack"
    SPOTS: ClassVar[tuple[str, ...]] = ("main",)
    SIDE_SPOTS: ClassVar[tuple[str, ...]] = ()
    OFFERS: ClassVar[frozenset[str]] = frozenset({SURRENDER, INSURANCE, EVEN_MONEY, RESPLIT})
    #: the actions a scenario names (scenario.md); the API also takes ``decline`` on an offer
    SCENARIO_ACTIONS: ClassVar[tuple[str, ...]] = (*PLAY_ACTIONS, SURRENDER, INSURANCE, EVEN_MONEY)

    def __init__(
        self,
        rules: BlackjackRules,
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
        self.dealer: list[Card] = []
        self.hole_turned = False
        self.exposed = False  # BJ Art.8: the second card was exposed by error and is the up-card
        self.pending: Decision | CardStep | None = None
        self.finished = False
        self.voided = False
        self._phase = DEAL
        self._want = _DEAL
        self._k = 0
        self._bi = 0
        self._hi = 0
        self._live = False
        self.boxes: list[BoxState] = []
        self._seats_memo: tuple[int, list[dict[str, Any]]] | None = None
        self._open(boxes)

    # ------------------------------------------------------------------ bets, money, events
    @classmethod
    def bet_spec(cls, rules: BlackjackRules) -> BetSpec:
        """How this game's bets are checked by the table (BJ Art.7, rules.md §0); built once per
        rules object (they are frozen)."""
        return memo(_SPECS.setdefault(cls, {}), rules, lambda: cls._make_bet_spec(rules))

    @classmethod
    def _make_bet_spec(cls, rules: BlackjackRules) -> BetSpec:
        lo, hi = rules.table_min, rules.table_max
        return BetSpec(
            spots=cls.SPOTS,
            main_spot="main",
            seats=7,
            back_spots=("main",),
            side_spots=cls.SIDE_SPOTS,
            max_boxes_per_player=rules.max_boxes_per_player,
            back_betting=rules.back_betting,
            limits=lambda spot: cls._limits(rules, spot) if spot != "main" else (lo, hi),
        )

    @classmethod
    def _limits(cls, rules: BlackjackRules, spot: str) -> tuple[int, int]:
        return rules.table_min, rules.table_max

    @classmethod
    def parse_action(cls, entry: object) -> Action:
        """A scenario/API decision entry as an Action: BadRequest for a missing or mistyped seat or action,
        IllegalAction for an unknown name or a bad hand or amount. Never a KeyError."""
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
        hand = entry.get("hand")
        if hand is not None and (isinstance(hand, bool) or not isinstance(hand, int) or hand < 0):
            raise IllegalAction(
                f"hand {hand!r} is not a hand number", key="err.action.hand_number", hand=hand
            )
        amount = entry.get("amount")
        if amount is not None and name not in ("double", INSURANCE):
            raise IllegalAction(f"{name} takes no amount", key="err.action.no_amount", action=name)
        if amount is not None and (isinstance(amount, bool) or not isinstance(amount, int) or amount < 1):
            raise IllegalAction(
                f"amount {amount!r} is not a positive whole amount", key="err.action.amount", amount=amount
            )
        return Action(seat, name, hand, amount)

    @classmethod
    def step_from_event(cls, ev: Event) -> Step | None:
        """The step a logged event records: a card, a decision or an answer to an offer (recall, resume)."""
        kind = ev["type"]
        if kind == "card":
            return Dealt(parse_card(ev["card"]), bool(ev.get("exposed", False)))
        if kind == "decision":
            return Action(ev["seat"], ev["action"], ev["hand"], ev.get("amount"))
        if kind == "offer":
            if ev["offer"] == RESPLIT:
                return Action(ev["seat"], "split" if ev["taken"] else DECLINE, ev["hand"])
            return Action(ev["seat"], ev["offer"] if ev["taken"] else DECLINE, None, ev.get("amount"))
        return None

    def _take(self, player: str, amount: int, seat: int, spot: str, hand: int | None = None) -> None:
        self.staked[player] = self.staked.get(player, 0) + amount
        self.paid.setdefault(player, 0)
        ev: Event = {"type": "stake", "seat": seat, "player": player, "spot": spot, "amount": amount}
        if hand is not None:
            ev["hand"] = hand
        self._emit(ev)

    def _pay(
        self,
        player: str,
        stake: int,
        ratio: Ratio | None,
        outcome: str,
        seat: int,
        spot: str,
        hand: int | None = None,
        *,
        half: bool = False,
    ) -> int:
        """Pay one bettor on one bet: stake back plus winnings at `ratio` (None: stake back only, or
        nothing when `outcome` is a loss); `half` returns half the stake (retiro). Rounds down."""
        frac = None
        if half:
            amount, rest = divmod(stake, 2)
            if rest:
                frac = "1/2"
        elif ratio is not None:
            won, f = winnings(stake, ratio)
            amount = stake + won
            if f:
                frac = str(f)
        elif outcome in ("push", "returned"):
            amount = stake
        else:
            amount = 0
        self.paid[player] = self.paid.get(player, 0) + amount
        ev: Event = {
            "type": "settle",
            "seat": seat,
            "player": player,
            "spot": spot,
            "stake": stake,
            "outcome": outcome,
            "paid": amount,
        }
        if hand is not None:
            ev["hand"] = hand
        if ratio is not None:
            ev["ratio"] = str(ratio)
        if frac is not None:
            ev["fraction"] = frac
        self._emit(ev)
        return amount

    # ------------------------------------------------------------------ the deal (Art.8)
    def _open(self, boxes: Sequence[Box]) -> None:
        self._emit(self._started())
        seats_in_play = []
        for table_box in boxes:
            seats_in_play.append(table_box.seat)
            holder_stake = table_box.stake(table_box.holder, "main")
            bettors = [(p, s["main"]) for p, s in table_box.stakes.items() if s.get("main")]
            for p, spots in table_box.stakes.items():
                for spot, amount in spots.items():
                    self._take(p, amount, table_box.seat, spot)
            state = BoxState(
                table_box.seat, table_box.holder, holder_stake, bettors, [Hand([], list(bettors))]
            )
            for spot in self.SIDE_SPOTS:
                amount = table_box.stake(table_box.holder, spot)
                if amount:
                    state.side[spot] = [amount, 0]
            self.boxes.append(state)
        self._emit({"type": "bets_closed"})
        seats = tuple(seats_in_play)
        plan = _DEAL_PLANS.get(seats)
        if plan is None:  # Art.8: one card to each box left to right, then the dealer; twice
            n = len(seats)
            steps = [_seat_step(seat, 0) for seat in seats]
            plan = _DEAL_PLANS[seats] = (
                (*range(n), -1, *range(n), -1),
                (*steps, _DEALER_STEPS[0], *steps, _DEALER_STEPS[1]),
            )
        self._targets, self._plan = plan
        self._deal_size = len(self._plan)
        self.pending = self._plan[0]

    def _exposed(self, card: Card) -> None:
        """Art.8: "si por error se descubre la segunda carta, ésta será la carta descubierta"."""
        self.dealer.insert(0, card)
        self.exposed = True
        self._emit({"type": "card", "to": "dealer", "card": NAMES[card], "face": "up", "exposed": True})
        self._emit(
            {
                "type": "up_card",
                "card": NAMES[card],
                "rule": "BJ Art.8",
                "reason": "the dealer's second card was exposed by error: it is the up-card, "
                "and his first card stays face down as the hole card",
            }
        )

    def _may_expose(self, step: CardStep) -> bool:
        """Art.8: only the dealer's second card of the deal can be the one exposed by error."""
        return self._phase == DEAL and step.to == "dealer" and step.position == 1

    def _after_deal(self) -> None:
        """HOOK: what happens once every box has two cards (Majestic 21 settles its side bets)."""

    # ------------------------------------------------------------------ offers
    def _insurance_kind(self) -> str | None:
        """HOOK: which insurance the up-card allows: 'ace' (Art.10) or None."""
        return "ace" if BJ_VALUE[self.dealer[0]] == 1 else None

    def _insurance_ratio(self, kind: str) -> Ratio:
        """HOOK: what insurance pays (Art.10: 2 to 1)."""
        return TWO_TO_ONE

    def _insurance_wins(self, kind: str) -> bool:
        """HOOK: whether the hole card makes the insurance win (Art.10: a ten-value card)."""
        return is_ten(self.dealer[1])

    def max_insurance(self, box: BoxState) -> int:
        """Art.10: at most half the holder's original bet (rules.md §0 [A]: the holder's own stake)."""
        return box.holder_stake // 2

    # ------------------------------------------------------------------ the cursor
    def _advance(self) -> None:
        """Move to the next point where a holder must decide or a card is needed, doing every automatic
        step on the way."""
        boxes = self.boxes
        n = len(boxes)
        if self._phase == SURRENDER:
            if self.rules.surrender and BJ_VALUE[self.dealer[0]] != 1:
                while self._bi < n:
                    box = boxes[self._bi]
                    if not box.blackjack:
                        self.pending = Decision(SURRENDER, box.seat, 0, _SURRENDER_OFFER)
                        return
                    self._bi += 1
            self._phase = INSURANCE
            self._bi = 0
        if self._phase == INSURANCE:
            kind = self._insurance_kind()
            if kind is not None:
                while self._bi < n:
                    box = boxes[self._bi]
                    if box.blackjack:
                        if kind == "ace" and not box.settled:
                            self.pending = Decision(EVEN_MONEY, box.seat, 0, _EVEN_MONEY_OFFER)
                            return
                    elif not box.surrendered:
                        cap = self.max_insurance(box)
                        if cap >= 1:
                            self.pending = Decision(INSURANCE, box.seat, 0, _INSURANCE_OFFER, cap)
                            return
                    self._bi += 1
            self._phase = PLAY
            self._bi = 0
            self._hi = 0
        if self._phase == PLAY:
            while self._bi < n:
                box = boxes[self._bi]
                if box.settled or box.surrendered or box.blackjack:
                    self._bi += 1
                    self._hi = 0
                    continue
                hands = box.hands
                while self._hi < len(hands):
                    hand = hands[self._hi]
                    # A hand's first two cards make at most 21, and 21 is a Black Jack (box skipped
                    # above); after a hit or double _after_card marks it done. Only a split hand's
                    # second card, asked for here, can bring it to 21.
                    if not hand.done and len(hand.cards) == 1:  # Art.11: its second card in turn
                        self.pending = _seat_step(box.seat, self._hi)
                        self._want = _SPLIT
                        return
                    if hand.done:
                        self._hi += 1
                        continue
                    if hand.split_aces:  # an Ace dealt to a split Ace, resplitting allowed: an offer
                        self.pending = Decision(RESPLIT, box.seat, self._hi, _SPLIT_DECLINE, box.holder_stake)
                        return
                    self.pending = Decision(
                        PLAY, box.seat, self._hi, self._play_options(box, hand), box.holder_stake
                    )
                    return
                self._bi += 1
                self._hi = 0
            self._phase = DEALER
        self._dealer_turn()

    def _can_resplit(self, box: BoxState, hand: Hand) -> bool:
        return (
            self.rules.resplit_aces
            and box.splits < self.rules.max_splits
            and len(hand.cards) == 2
            and BJ_VALUE[hand.cards[0]] == 1
            and BJ_VALUE[hand.cards[1]] == 1
        )

    def _play_options(self, box: BoxState, hand: Hand) -> tuple[str, ...]:
        cards = hand.cards
        if len(cards) != 2:
            return _HIT_STAND
        if BJ_VALUE[cards[0]] == BJ_VALUE[cards[1]] and box.splits < self.rules.max_splits:
            return _HIT_STAND_DOUBLE_SPLIT
        return _HIT_STAND_DOUBLE

    # ------------------------------------------------------------------ cards (steps)
    def _on_card(self, card: Card, exposed: bool) -> None:
        """The card the pending card step waited for: the deal's (Art.8, to the box or the dealer its
        order names), a hit's, a double's, a split hand's second card, or the dealer's draw (Art.14).
        One method with the deal inline: it runs for every card of every round."""
        want = self._want
        if want == _DEAL:
            k = self._k
            t = self._targets[k]
            if t >= 0:
                box = self.boxes[t]
                box.hands[0].cards.append(card)
                self._emit({"type": "card", "to": "seat", "seat": box.seat, "hand": 0, "card": NAMES[card]})
            elif not self.dealer:
                self.dealer.append(card)
                self._emit({"type": "card", "to": "dealer", "card": NAMES[card], "face": "up"})
            elif exposed:
                self._exposed(card)
            else:
                self.dealer.append(card)
                self._emit({"type": "card", "to": "dealer", "card": NAMES[card], "face": "down"})
            k += 1
            self._k = k
            if k < self._deal_size:
                self.pending = self._plan[k]
                return
            self._after_deal()  # the deal is complete
            up_value = BJ_VALUE[self.dealer[0]]
            for box in self.boxes:
                if is_natural(box.hands[0].cards):
                    box.blackjack = True
                    box.hands[0].done = True
                    if 2 <= up_value <= 9:  # Art.13: paid at once unless an Ace or a ten is up
                        self._settle_hand(box, 0, "win", THREE_TO_TWO)
                        box.settled = True
            self._phase = SURRENDER
            self._advance()
            return
        if want == _DEALER:
            dealer = self.dealer
            dealer.append(card)
            self._emit({"type": "card", "to": "dealer", "card": NAMES[card], "face": "up"})
            total = hand_total(dealer)[0]
            if total < 17:
                self.pending = _dealer_step(len(dealer))
            else:
                self._dealer_done(total)
            return
        box = self.boxes[self._bi]
        index = self._hi
        hand = box.hands[index]
        hand.cards.append(card)
        self._emit({"type": "card", "to": "seat", "seat": box.seat, "hand": index, "card": NAMES[card]})
        if want == _HIT:
            self._after_card(box, index)
        elif want == _DOUBLE:  # Art.12: exactly one more card
            hand.done = True
            self._after_card(box, index)
        elif hand.split_aces:  # a split hand's second card; split Aces take one card each (Art.11)
            hand.done = not self._can_resplit(box, hand)
        elif hand_total(hand.cards)[0] == 21:
            hand.done = True
        self._advance()

    # ------------------------------------------------------------------ decisions (triad)
    def _verify_action(self, action: Action) -> None:
        """Raise IllegalAction, saying why, unless `action` is legal now. Changes nothing."""
        d: Decision = self.pending  # type: ignore[assignment]  # a decision: base.verify saw to it
        check_turn(d, action)
        if action.action not in d.legal:
            raise IllegalAction(
                f"{action.action} is not legal for seat {d.seat} now ({d.kind}); legal: {', '.join(d.legal)}",
                key="err.action.not_legal",
                action=action.action,
                seat=d.seat,
                kind=d.kind,
                legal=d.legal,
            )
        if action.cards is not None:
            raise IllegalAction(
                f"{action.action} takes no cards", key="err.sd.no_cards", action=action.action
            )
        if d.kind == PLAY or (d.kind == RESPLIT and action.action != DECLINE):
            box = self.boxes[self._bi]  # the box the cursor is on: the pending decision's
            if action.hand is None and len(box.hands) > 1:
                raise IllegalAction(
                    f"seat {d.seat} has {len(box.hands)} hands: name the hand (now {d.hand})",
                    key="err.action.name_hand",
                    seat=d.seat,
                    hands=len(box.hands),
                    hand=d.hand,
                )
            if action.hand is not None and action.hand != d.hand:
                raise IllegalAction(
                    f"seat {d.seat}: hand {d.hand} is in play, not hand {action.hand}",
                    key="err.action.other_hand",
                    seat=d.seat,
                    hand=d.hand,
                    named=action.hand,
                )
        elif d.kind == RESPLIT:
            if action.hand not in (None, d.hand):
                raise IllegalAction(
                    f"seat {d.seat}: hand {d.hand} is offered the resplit, not hand {action.hand}",
                    key="err.action.resplit_hand",
                    seat=d.seat,
                    hand=d.hand,
                    named=action.hand,
                )
        elif action.hand not in (None, 0):
            raise IllegalAction(
                f"{d.kind} is offered on the box, not on hand {action.hand}",
                key="err.action.box_offer",
                kind=d.kind,
                hand=action.hand,
            )
        if action.amount is not None:
            if action.action not in ("double", INSURANCE):
                raise IllegalAction(
                    f"{action.action} takes no amount", key="err.action.no_amount", action=action.action
                )
            cap = d.max_amount or 0
            if isinstance(action.amount, bool) or not isinstance(action.amount, int) or action.amount < 1:
                raise IllegalAction(
                    f"{action.action} amount {action.amount!r} is not a positive whole amount",
                    key="err.action.action_amount",
                    action=action.action,
                    amount=action.amount,
                )
            if action.amount > cap:
                if action.action == INSURANCE:
                    raise IllegalAction(
                        f"{action.action} of {action.amount} is more than half the original bet ({cap})",
                        key="err.action.insurance_above_half",
                        amount=action.amount,
                        limit=cap,
                    )
                raise IllegalAction(
                    f"{action.action} of {action.amount} is more than the original bet ({cap})",
                    key="err.action.double_above_bet",
                    amount=action.amount,
                    limit=cap,
                )

    def _on_action(self, action: Action) -> None:
        """Carry out a verified decision; the cursor moves on unless a card is now awaited."""
        d: Decision = self.pending  # type: ignore[assignment]  # verified: the pending decision
        box = self.boxes[self._bi]
        ev: Event
        if d.kind == PLAY:
            ev = {"type": "decision", "seat": d.seat, "hand": d.hand, "action": action.action}
        else:
            ev = {"type": "offer", "seat": d.seat, "offer": d.kind, "taken": action.action != DECLINE}
            if d.kind == RESPLIT:
                ev["hand"] = d.hand
        if d.kind == SURRENDER:
            self._emit(ev)
            if action.action == SURRENDER:
                box.surrendered = True
                box.settled = True
                for player, stake in box.bettors:
                    self._pay(player, stake, None, "surrender", box.seat, "main", 0, half=True)
                hand = box.hands[0]
                hand.settled = True
                hand.outcome = "surrender"
                hand.paid = sum(s // 2 for _, s in box.bettors)
            self._bi += 1
        elif d.kind == INSURANCE:
            if action.action == INSURANCE:
                amount = action.amount if action.amount is not None else d.max_amount or 0
                ev["amount"] = amount
                self._emit(ev)
                box.insurance = amount
                self._take(box.holder, amount, box.seat, "insurance")
            else:
                self._emit(ev)
            self._bi += 1
        elif d.kind == EVEN_MONEY:
            self._emit(ev)
            if action.action == EVEN_MONEY:  # Art.13: pago simple, 1 to 1 at once
                box.even_money = True
                box.settled = True
                self._settle_hand(box, 0, "win", EVEN)
            self._bi += 1
        elif d.kind == RESPLIT and action.action == DECLINE:
            self._emit(ev)
            box.hands[d.hand].done = True  # the split Ace keeps its card
        elif not self._play(box, d.hand, action, ev):
            return  # a hit or a double: the hand's card is awaited
        self._advance()

    def _play(self, box: BoxState, index: int, action: Action, ev: Event) -> bool:
        """A play decision on hand `index`; False when it now waits for the hand's card."""
        hand = box.hands[index]
        name = action.action
        if name == "stand":
            self._emit(ev)
            hand.done = True
        elif name == "hit":
            self._emit(ev)
            self.pending = _seat_step(box.seat, index)
            self._want = _HIT
            return False
        elif name == "double":  # Art.12: up to the original bet, exactly one more card
            amount = action.amount if action.amount is not None else box.holder_stake
            ev["amount"] = amount
            self._emit(ev)
            hand.double = amount
            self._take(box.holder, amount, box.seat, "double", index)
            self.pending = _seat_step(box.seat, index)
            self._want = _DOUBLE
            return False
        else:  # split, Art.11: the original bet stays on the first hand; the new hand gets an equal bet
            self._emit(ev)
            box.splits += 1
            aces = BJ_VALUE[hand.cards[0]] == 1
            new = Hand([hand.cards.pop()], [(box.holder, box.holder_stake)], split_aces=aces)
            hand.split_aces = aces
            box.hands.insert(index + 1, new)
            self._take(box.holder, box.holder_stake, box.seat, "split", index + 1)
        return True

    def _chips_for(self, action: Action) -> int:
        """What a verified decision takes from the holder: a double (its amount, the original bet by
        default), a split (an equal bet), insurance (its amount, half the bet by default)."""
        d = self.pending
        assert isinstance(d, Decision)
        name = action.action
        if name == "double":
            return action.amount if action.amount is not None else self.boxes[self._bi].holder_stake
        if name == "split":
            return self.boxes[self._bi].holder_stake
        if name == INSURANCE:
            return action.amount if action.amount is not None else d.max_amount or 0
        return 0

    def _after_card(self, box: BoxState, index: int) -> None:
        hand = box.hands[index]
        total = hand_total(hand.cards)[0]
        if total > 21:  # Art.11, 14: a bust loses at once
            hand.busted = True
            hand.done = True
            self._settle_hand(box, index, "lose", None)
        elif total == 21:
            hand.done = True

    # ------------------------------------------------------------------ dealer and settlement
    def _box(self, seat: int) -> BoxState:
        for box in self.boxes:
            if box.seat == seat:
                return box
        raise IllegalAction(f"seat {seat} has no box in this round", key="err.action.no_box", seat=seat)

    def _holder(self, seat: int | None) -> str | None:
        for box in self.boxes:
            if box.seat == seat:
                return box.holder
        return None

    def _settle_hand(
        self,
        box: BoxState,
        index: int,
        outcome: str,
        ratio: Ratio | None,
        *,
        double_outcome: str | None = None,
    ) -> None:
        """Settle every bettor's stake on a hand; the holder's double follows `double_outcome`."""
        hand = box.hands[index]
        paid = 0
        for player, stake in hand.stakes:
            paid += self._pay(player, stake, ratio, outcome, box.seat, "main", index)
        if hand.double:
            d_out = double_outcome or outcome
            paid += self._pay(
                box.holder, hand.double, ratio if d_out == outcome else None, d_out, box.seat, "double", index
            )
        hand.settled = True
        hand.outcome = outcome
        hand.paid = paid

    def _dealer_turn(self) -> None:
        """Art.13-14: the hole card is turned, insurance settled; on a dealer Black Jack the original bets
        only; else the dealer draws to 17 while some hand's result depends on his total [A], or always
        with `dealer_completes_hand`."""
        dealer = self.dealer
        self.hole_turned = True
        self._emit({"type": "hole_card", "card": NAMES[dealer[1]]})
        for box in self.boxes:
            if box.insurance:
                kind = self._insurance_kind()
                assert kind is not None
                wins = self._insurance_wins(kind)
                box.insurance_paid = self._pay(
                    box.holder,
                    box.insurance,
                    self._insurance_ratio(kind) if wins else None,
                    "win" if wins else "lose",
                    box.seat,
                    "insurance",
                )
        if is_natural(dealer):  # Art.13: original bets only; Black Jacks push; extra stakes come back
            for box in self.boxes:
                if box.settled:
                    continue
                for i, hand in enumerate(box.hands):
                    if hand.settled:
                        continue
                    if box.blackjack:
                        self._settle_hand(box, i, "push", None)
                    elif i == 0:
                        self._settle_hand(box, i, "lose", None, double_outcome="returned")
                    else:
                        self._settle_hand(box, i, "returned", None)
            self.pending = None
            self.finished = True
            self._emit(self._closing_event())
            return
        live = False  # a hand still waiting for the dealer's total
        for box in self.boxes:
            if not box.settled and not box.blackjack:
                for h in box.hands:
                    if not h.settled:
                        live = True
                        break
        # rules.md §1 [A]: he draws only while a result depends on his total, unless the operator has him
        # complete his hand by Art.14 whatever the boxes hold (`dealer_completes_hand`)
        self._live = live or self.rules.dealer_completes_hand
        total = hand_total(dealer)[0]
        if self._live and total < 17:  # Art.14: draw on 16 or less, stand on 17 or more (soft 17 too)
            self.pending = _dealer_step(2)
            self._want = _DEALER
            return
        self._dealer_done(total)

    def _dealer_done(self, total: int) -> None:
        """The dealer stands or busts; every hand still in play is settled against his total."""
        if len(self.dealer) > 2 or self._live:
            self._emit({"type": "dealer_stands" if total <= 21 else "dealer_busts", "total": total})
        for box in self.boxes:
            if box.settled:
                continue
            for i, hand in enumerate(box.hands):
                if hand.settled:
                    continue
                if box.blackjack:
                    self._settle_hand(box, i, "win", THREE_TO_TWO)
                    continue
                mine = hand_total(hand.cards)[0]
                if total > 21 or mine > total:
                    self._settle_hand(box, i, "win", EVEN)
                elif mine == total:
                    self._settle_hand(box, i, "push", None)
                else:
                    self._settle_hand(box, i, "lose", None)
        self.pending = None
        self.finished = True
        self._emit(self._closing_event())

    # ------------------------------------------------------------------ what people see
    def result(self) -> dict[str, Any]:
        """The outcome in the scenario contract's shape (players, house, seats, dealer, events)."""
        closing = self.events[-1] if self.finished else self._closing_event()
        seats = []
        for box in self.boxes:
            hands = []
            for hand in box.hands:
                total = hand_total(hand.cards)[0]
                entry: dict[str, Any] = {
                    "cards": [NAMES[c] for c in hand.cards],
                    "total": total,
                    "stake": hand.stake,
                    "outcome": hand.outcome,
                    "net": hand.paid - hand.stake,
                }
                if box.blackjack and hand is box.hands[0]:
                    entry["blackjack"] = True
                if box.even_money:
                    entry["even_money"] = True
                if hand.double:
                    entry["double"] = hand.double
                if hand.busted:
                    entry["bust"] = True
                hands.append(entry)
            seat: dict[str, Any] = {"seat": box.seat, "holder": box.holder, "hands": hands}
            if len(box.bettors) > 1:
                seat["back_bettors"] = [{"player": p, "stake": s} for p, s in box.bettors[1:]]
            if box.insurance:
                seat["insurance"] = {
                    "stake": box.insurance,
                    "paid": box.insurance_paid,
                    "net": box.insurance_paid - box.insurance,
                }
            if box.side:
                seat["side_bets"] = {
                    spot: {"stake": s, "paid": p, "net": p - s} for spot, (s, p) in box.side.items()
                }
            seats.append(seat)
        return {
            "game": self.GAME,
            "players": json_copy(closing["players"]),
            "house": json_copy(closing["house"]),
            "seats": seats,
            "dealer": {"cards": [NAMES[c] for c in self.dealer], "total": hand_total(self.dealer)[0]},
            **({"voided": True} if self.voided else {}),
            "events": json_copy(self.events),
        }

    def _dealer_shown(self, viewer: Viewer) -> list[bool]:
        """Which of the dealer's cards `viewer` sees: the up-card once the deal is complete (both are
        dealt face down, Art.8), the hole card once turned, his draws; the inspector all of them."""
        n = len(self.dealer)
        if viewer.inspector:
            return [True] * n
        return [self._phase != DEAL if i == 0 else self.hole_turned if i == 1 else True for i in range(n)]

    def _seats_view(self, *, fresh: bool) -> list[dict[str, Any]]:
        """The boxes as every viewer sees them (nothing in a box is hidden). A table pushes the same step
        to all its viewers: built once per step of the round (its events' count) and shared between their
        views, which are read-only (a view is written into JSON, never into; freezing it cost a table
        server more than building it, and tripled its serialization). The inspector's view is always
        built anew (it is the oracle of the test that a refused step changes nothing)."""
        memo = self._seats_memo
        if not fresh and memo is not None and memo[0] == len(self.events):
            return memo[1]
        seats = []
        for box in self.boxes:
            seat: dict[str, Any] = {
                "seat": box.seat,
                "holder": box.holder,
                "bettors": [{"player": p, "stake": s} for p, s in box.bettors],
                "hands": [
                    {
                        "cards": [NAMES[c] for c in h.cards],
                        "total": hand_total(h.cards)[0],
                        "stake": h.stake,
                        "outcome": h.outcome,
                        **({"double": h.double} if h.double else {}),
                    }
                    for h in box.hands
                ],
                "insurance": box.insurance,
                "surrendered": box.surrendered,
                "side_bets": {k: {"stake": b[0], "paid": b[1]} for k, b in box.side.items()},
            }
            seats.append(seat)
        if not fresh:
            self._seats_memo = (len(self.events), seats)
        return seats

    def view_key(self, viewer: Viewer | str) -> str:
        """Nothing in a box is hidden: the inspector sees all, the staff the table as dealt, the holder
        of the pending decision its legal answers, and every other player or spectator one same view."""
        v = Viewer.of(viewer)
        if v.inspector:
            return "inspector"
        if v.staff:
            return "staff"
        d = self.pending
        if isinstance(d, Decision) and v.role == "player" and self._holder(d.seat) == v.name:
            return str(v)
        return "table"

    def view(self, viewer: Viewer | str) -> dict[str, Any]:
        """What `viewer` may see, built from an allow-list: ``inspector`` everything, the ``dealer`` and a
        ``player:NAME`` or ``spectator`` the table as dealt (no peek: the hole card stays face down until
        turned), the holder of the pending decision its legal answers. No view holds the shoe."""
        v = Viewer.of(viewer)
        shown = self._dealer_shown(v)
        dealer = [NAMES[c] if see else HIDDEN for c, see in zip(self.dealer, shown, strict=True)]
        seats = self._seats_view(fresh=v.inspector)
        out: dict[str, Any] = {
            "game": self.GAME,
            "round": self.round_id,
            "viewer": str(v),
            "dealer": dealer,
            "dealer_total": hand_total([c for c, see in zip(self.dealer, shown, strict=True) if see])[0],
            "seats": seats,
            "finished": self.finished,
            "voided": self.voided,
            "pending": self.pending_json(v),
        }
        d = self.pending
        if isinstance(d, Decision):
            out["turn"] = {"seat": d.seat, "hand": d.hand, "kind": d.kind}
            if v.staff or self._holder(d.seat) == v.name:
                out["turn"]["legal"] = list(d.legal)
        if v.inspector:
            out["events"] = json_copy(self.events)
        return out

    @classmethod
    def censor(cls, events: Sequence[Event], viewer: Viewer | str, start: int = 0) -> list[Event]:
        """Copies of ``events[start:]`` as `viewer` may see them, judged as of the last event: only the
        allow-listed keys of each known event; the dealer's first card once the deal is complete, his
        hole card once turned (or the second card when exposed by error: then the first is the hole)."""
        v = Viewer.of(viewer)
        if v.inspector:
            return [json_copy(e) for e in events[start:]]
        dealt = 0
        hole = exposed = False
        for ev in events:
            kind = ev.get("type")
            if kind == CARD and ev.get("to") == "dealer":
                dealt += 1
            elif kind == "hole_card":
                hole = True
            elif kind == "up_card":
                exposed = True
        out: list[Event] = []
        k = 0
        for i, ev in enumerate(events):
            index = None
            if ev.get("type") == CARD and ev.get("to") == "dealer":
                index, k = k, k + 1
            if i < start:
                continue
            c = public_copy(ev)
            if c is None:
                continue
            if (index == 0 and not (hole or (dealt >= 2 and not exposed))) or (
                index == 1 and not (hole or exposed)
            ):
                c["card"] = HIDDEN
            out.append(c)
        return out
