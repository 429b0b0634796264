"""Punto y Banca as the reglamento of 23-12-1999 writes it (rules.md §2): a pure round dealt card by card.

Nobody decides anything in a Punto y Banca round: once the bets are closed (Art.7d) the four cards go
Punto, Banca, Punto, Banca (Art.10), third cards follow the numeric rules of Art.11 (one definition, in
`tapete.math.baccarat`), and the bets are settled by Art.8. The round's only steps are its cards: each is
its pending step (`CardStep` to ``punto`` or ``banca``), taken like any step (tapete.games.base), so a
live table's dealer enters the coup card by card. Every card is an event, and every draw or stand is
recorded as the rule decides it, with its reason ("Banca 5 draws: Punto's third card was a 6").
``OFFERS`` is empty. The round also records who holds the shoe (Art.9); `next_shoe_holder` says where it
goes next.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, Literal

from tapete.cards import BACCARAT_VALUE, NAMES, Card, parse_card
from tapete.errors import IllegalAction
from tapete.games.base import (
    Action,
    CardStep,
    Dealt,
    Event,
    RoundBase,
    Step,
    Viewer,
    entry_basics,
    json_copy,
    public_copy,
)
from tapete.math.baccarat import banca_draws, is_natural, punto_draws
from tapete.memo import memo
from tapete.money import EVEN, Ratio, winnings
from tapete.rules.punto_y_banca import PuntoYBancaRules
from tapete.table import BetSpec, Box

Side = Literal["punto", "banca"]
Winner = Literal["punto", "banca", "empate"]

PUNTO: Final = "punto"
BANCA: Final = "banca"
EMPATE: Final = "empate"
SPOTS = (PUNTO, BANCA, EMPATE)


def total(cards: Sequence[Card]) -> int:
    """A side's total (Art.3): the last digit of the sum of baccarat values (A = 1, 10/J/Q/K = 0)."""
    return sum(BACCARAT_VALUE[c] for c in cards) % 10


def shoe_passes(winner: str, passes: str = "banca_loses") -> bool:
    """Whether the shoe moves on after a round that `winner` won (Art.9 [A]: when Banca loses, i.e.
    Punto wins; a tie keeps it), or after every round with ``passes="every_round"``."""
    return passes == "every_round" or winner == PUNTO


def next_shoe_holder(
    holder: int | None,
    winner: str | None,
    occupied: Iterable[int],
    *,
    passes: str = "banca_loses",
) -> int | None:
    """The zone that holds the shoe in the next round (Art.9), given the zone that held it (None before
    the first round), the last round's winner and the zones played in the next round.

    The room's direction is the zones' order: 1, 2, ... up to the last zone, then 1 again. The shoe
    stays with its holder unless it passes (`shoe_passes`) or its holder no longer plays; it then goes
    to the next occupied zone in that direction. With nobody at the table it goes to nobody (None).
    """
    zones = sorted(set(occupied))
    if not zones:
        return None
    if holder is None:
        return zones[0]
    if holder in zones and (winner is None or not shoe_passes(winner, passes)):
        return holder
    after = [z for z in zones if z > holder] + [z for z in zones if z <= holder]
    return after[0]


@dataclass(slots=True)
class Bet:
    """One bettor's stake on one spot of a zone, and how it was settled."""

    player: str
    spot: str
    stake: int
    outcome: str = ""
    paid: int = 0
    commission: int = 0


@dataclass(slots=True)
class Zone:
    """A betting zone in play: its holder (the one player of Art.7a) and every bet on it."""

    seat: int
    holder: str
    bets: list[Bet] = field(default_factory=list)

    @property
    def staked(self) -> int:
        """Everything staked on this zone."""
        return sum(b.stake for b in self.bets)

    @property
    def paid(self) -> int:
        """Everything paid back on this zone (stakes returned included)."""
        return sum(b.paid for b in self.bets)


_SPECS: dict[int, BetSpec] = {}
_TO_PUNTO = CardStep(PUNTO)
_TO_BANCA = CardStep(BANCA)
#: Art.10: the first four cards go Punto, Banca, Punto, Banca.
_COUP = (_TO_PUNTO, _TO_BANCA, _TO_PUNTO, _TO_BANCA)


class PuntoYBancaRound(RoundBase):
    """One round of Punto y Banca on the zones given; its pending steps are the coup's cards.

    `shoe_holder` is the zone whose player draws the cards (Art.9); by default the first occupied
    zone. It must be a zone in play.
    """

    rules: PuntoYBancaRules
    GAME: ClassVar[str] = "punto_y_banca"
    SPOTS: ClassVar[tuple[str, ...]] = SPOTS
    OFFERS: ClassVar[frozenset[str]] = frozenset()

    def __init__(
        self,
        rules: PuntoYBancaRules,
        boxes: Sequence[Box],
        *,
        round_id: int | str = 1,
        shoe_holder: int | None = None,
    ) -> None:
        self.rules = rules
        self.round_id = round_id
        self.events: list[Event] = []
        self.staked: dict[str, int] = {}
        self.paid: dict[str, int] = {}
        self.commission = 0
        self.punto: list[Card] = []
        self.banca: list[Card] = []
        self.winner: Winner | None = None
        self.pending: CardStep | None = None
        self.finished = False
        self.voided = False
        self._third: int | None = None  # the value of Punto's third card, once dealt
        self.zones: list[Zone] = [Zone(b.seat, b.holder) for b in boxes]
        seats = [z.seat for z in self.zones]
        if shoe_holder is None and seats:
            shoe_holder = seats[0]
        if not seats:
            raise IllegalAction("no bets: a round needs at least one zone in play", key="err.pyb.no_bets")
        if shoe_holder not in seats:
            raise IllegalAction(
                f"the shoe cannot go to zone {shoe_holder}: nobody plays that zone",
                key="err.pyb.shoe_holder",
                zone=shoe_holder,
            )
        self.shoe_holder: int = shoe_holder
        self._open(boxes)

    # ------------------------------------------------------------------ the surface every round offers
    @classmethod
    def bet_spec(cls, rules: PuntoYBancaRules) -> BetSpec:
        """The table's bet checks for these rules, built once per rules object (they are frozen)."""
        return memo(_SPECS, rules, lambda: cls._make_bet_spec(rules))

    @classmethod
    def _make_bet_spec(cls, rules: PuntoYBancaRules) -> BetSpec:
        """How the table checks Punto y Banca bets (Art.7, 8; rules.md §0): `rules.zones` zones, one
        player per zone and one zone per player, back-bettors only when every zone is taken and only
        on the holder's own side, never Punto and Banca together, each stake within the table limits."""
        lo, hi = rules.table_min, rules.table_max
        tie = rules.empate_limits
        return BetSpec(
            spots=SPOTS,
            main_spot=PUNTO,
            seats=rules.zones,
            back_spots=SPOTS,
            exclusive=((PUNTO, BANCA),),
            one_box_per_player=True,
            max_boxes_per_player=1,
            back_betting=rules.back_betting,
            main_required=False,
            back_same_spots=True,
            limits=lambda spot: tie if spot == EMPATE else (lo, hi),
        )

    @classmethod
    def parse_action(cls, entry: object) -> Action:
        """IllegalAction for any decision (nobody decides anything in Punto y Banca, Art.10-11); an entry
        without a seat or an action name is BadRequest, as in every game."""
        _, got = entry_basics(entry)
        raise IllegalAction(
            f"Punto y Banca takes no decisions (the cards follow Art.11); got {got!r}",
            key="err.pyb.no_decisions_got",
            action=got,
        )

    @classmethod
    def step_from_event(cls, ev: Event) -> Step | None:
        """The only steps of a round are its cards."""
        return Dealt(parse_card(ev["card"])) if ev["type"] == "card" else None

    @classmethod
    def options_from_events(cls, events: Sequence[Event]) -> dict[str, Any]:
        """The round options its events record, for recall: the zone that held the shoe."""
        holder = events[0].get("shoe_holder") if events else None
        return {"shoe_holder": holder["seat"]} if isinstance(holder, dict) else {}

    @staticmethod
    def decline(decision: Any) -> Action:
        """Never called: Punto y Banca makes no offers (IllegalAction if it is)."""
        raise IllegalAction("Punto y Banca makes no offers", key="err.pyb.no_offers")

    def _verify_action(self, action: Action) -> None:
        """Always IllegalAction: there is nothing to decide."""
        raise IllegalAction(
            f"seat {action.seat}'s {action.action}: Punto y Banca takes no decisions",
            key="err.pyb.no_decisions",
            seat=action.seat,
            action=action.action,
        )

    def _holder(self, seat: int | None) -> str | None:
        return next((z.holder for z in self.zones if z.seat == seat), None)

    # ------------------------------------------------------------------ the round
    def _emit(self, event: Event) -> None:
        self.events.append(event)

    def _open(self, boxes: Sequence[Box]) -> None:
        emit = self._emit
        holder = next(z.holder for z in self.zones if z.seat == self.shoe_holder)
        emit(self._started(shoe_holder={"seat": self.shoe_holder, "player": holder}))
        for zone, box in zip(self.zones, boxes, strict=True):
            for player, spots in box.stakes.items():
                for spot in SPOTS:
                    amount = spots.get(spot, 0)
                    if amount:
                        zone.bets.append(Bet(player, spot, amount))
                        self.staked[player] = self.staked.get(player, 0) + amount
                        self.paid.setdefault(player, 0)
                        emit(
                            {
                                "type": "stake",
                                "seat": zone.seat,
                                "player": player,
                                "spot": spot,
                                "amount": amount,
                            }
                        )
        emit({"type": "bets_closed"})  # Art.7d: bets until the first card leaves the shoe
        self.pending = _COUP[0]

    def _on_card(self, card: Card, exposed: bool) -> None:
        """The card the coup waits for: one of the first four (Art.10), or a third card (Art.11)."""
        side = self.pending.to if self.pending is not None else PUNTO
        (self.punto if side == PUNTO else self.banca).append(card)
        self._emit({"type": "card", "to": side, "card": NAMES[card]})
        dealt = len(self.punto) + len(self.banca)
        if dealt < 4:
            self.pending = _COUP[dealt]
        elif dealt == 4:
            self._after_four()
        elif side == PUNTO:
            self._third = BACCARAT_VALUE[card]
            self._banca_rule()
        else:
            self._outcome()

    def _after_four(self) -> None:
        """Art.11: naturals stop the coup; Punto draws on 0-5 and stands on 6-7."""
        p2, b2 = total(self.punto), total(self.banca)
        if is_natural(p2) or is_natural(b2):
            if is_natural(p2) and is_natural(b2):
                why = f"Punto has a natural {p2} and Banca a natural {b2}: no third cards"
            elif is_natural(p2):
                why = f"Punto has a natural {p2}: no third cards"
            else:
                why = f"Banca has a natural {b2}: no third cards"
            self._rule(PUNTO, False, p2, "natural", why)
            self._rule(BANCA, False, b2, "natural", why)
            self._outcome()
            return
        if punto_draws(p2):
            self._rule(PUNTO, True, p2, "punto_0_5", f"Punto {p2} draws")
            self.pending = _TO_PUNTO
            return
        self._rule(PUNTO, False, p2, "punto_6_7", f"Punto {p2} stands")
        self._banca_rule()

    def _banca_rule(self) -> None:
        """Art.11: Banca by its two-card total and Punto's third card (or Punto standing)."""
        b2 = total(self.banca)
        third = self._third
        draws = banca_draws(b2, third)
        verb = "draws" if draws else "stands"
        if third is None:
            self._rule(BANCA, draws, b2, "punto_stood", f"Banca {b2} {verb}: Punto stood")
        else:
            why = f"Banca {b2} {verb}: Punto's third card was a {third}"
            self._rule(BANCA, draws, b2, "punto_third", why, punto_third=third)
        if draws:
            self.pending = _TO_BANCA
            return
        self._outcome()

    def _outcome(self) -> None:
        """Art.8: the winner, every bet settled, the closing record."""
        p, b = total(self.punto), total(self.banca)
        self.winner = PUNTO if p > b else BANCA if b > p else EMPATE
        self._emit({"type": "outcome", "punto": p, "banca": b, "winner": self.winner})
        for zone in self.zones:
            for bet in zone.bets:
                self._settle(zone.seat, bet)
        self.pending = None
        self.finished = True
        self._emit(self._closing_event())

    def _rule(
        self, side: str, draws: bool, t: int, rule: str, reason: str, *, punto_third: int | None = None
    ) -> None:
        """Record one side's Art.11 step: draw or stand, its two-card total, which rule and why."""
        ev: Event = {"type": "draw" if draws else "stand", "side": side, "total": t, "rule": rule}
        if punto_third is not None:
            ev["punto_third"] = punto_third
        ev["reason"] = reason
        self._emit(ev)

    def _settle(self, seat: int, bet: Bet) -> None:
        """Art.8: Punto 1:1; Banca 1:1 less the commission (the house keeps the gross win minus what it
        pays, rounding included); Empate tie_pays:1; Punto and Banca push on a tie [A]."""
        ratio: Ratio | None = None
        frac = None
        gross = 0
        if bet.spot == EMPATE:
            if self.winner == EMPATE:
                ratio = Ratio(self.rules.tie_pays)
        elif self.winner == EMPATE:
            bet.outcome = "push"
            bet.paid = bet.stake
        elif bet.spot == self.winner == PUNTO:
            ratio = EVEN
        elif bet.spot == self.winner == BANCA:
            ratio = Ratio(100 - self.rules.commission_percent, 100)
            gross = bet.stake  # what 1:1 would pay
        if ratio is not None:
            won, f = winnings(bet.stake, ratio)
            bet.outcome = "win"
            bet.paid = bet.stake + won
            bet.commission = gross - won if gross else 0
            if f:
                frac = str(f)
        elif not bet.outcome:
            bet.outcome = "lose"
        self.commission += bet.commission
        self.paid[bet.player] = self.paid.get(bet.player, 0) + bet.paid
        ev: Event = {
            "type": "settle",
            "seat": seat,
            "player": bet.player,
            "spot": bet.spot,
            "stake": bet.stake,
            "outcome": bet.outcome,
            "paid": bet.paid,
        }
        if ratio is not None:
            ev["ratio"] = str(ratio)
        if bet.commission:
            ev["commission"] = bet.commission
        if frac is not None:
            ev["fraction"] = frac
        self._emit(ev)

    # ------------------------------------------------------------------ what people see
    def _side(self, cards: Sequence[Card]) -> dict[str, Any]:
        two = total(cards[:2])
        return {
            "cards": [NAMES[c] for c in cards],
            "total": total(cards),
            "natural": len(cards) == 2 and two >= 8,
        }

    def _zone_json(self, zone: Zone) -> dict[str, Any]:
        out: dict[str, Any] = {
            "seat": zone.seat,
            "holder": zone.holder,
            "bets": [
                {
                    "player": b.player,
                    "spot": b.spot,
                    "stake": b.stake,
                    "outcome": b.outcome,
                    "paid": b.paid,
                    "net": b.paid - b.stake,
                    **({"commission": b.commission} if b.commission else {}),
                }
                for b in zone.bets
            ],
            "staked": zone.staked,
            "paid": zone.paid,
            "net": zone.paid - zone.staked,
        }
        backs = list(dict.fromkeys(b.player for b in zone.bets if b.player != zone.holder))
        if backs:
            out["back_bettors"] = backs
        return out

    def result(self) -> dict[str, Any]:
        """The outcome in the scenario contract's shape: players, house, the zones with every bet and
        its net, Punto's and Banca's cards and totals, the winner, who held the shoe, the events."""
        closing = self.events[-1] if self.finished else self._closing_event()
        holder = self.events[0]["shoe_holder"]
        return {
            "game": self.GAME,
            "players": json_copy(closing["players"]),
            "house": json_copy(closing["house"]),
            "seats": [self._zone_json(z) for z in self.zones],
            "punto": self._side(self.punto),
            "banca": self._side(self.banca),
            "winner": self.winner,
            "shoe": {**holder, "passes": shoe_passes(self.winner or "", self.rules.shoe_passes)},
            **({"voided": True} if self.voided else {}),
            "events": json_copy(self.events),
        }

    def view(self, viewer: Viewer | str) -> dict[str, Any]:
        """What `viewer` may see, built from an allow-list: every card of Punto y Banca is dealt face up,
        so a player, a spectator and the dealer see the table as dealt, with each side's Art.11 step
        (`steps`: draw/stand, total, rule, Punto's third card, reason); the inspector also the events.
        No view holds the shoe or the cards still in it."""
        v = Viewer.of(viewer)
        steps = [e for e in self.events if e["type"] in ("draw", "stand")]
        out: dict[str, Any] = {
            "game": self.GAME,
            "round": self.round_id,
            "viewer": str(v),
            "punto": self._side(self.punto),
            "banca": self._side(self.banca),
            "winner": self.winner,
            "shoe_holder": dict(self.events[0]["shoe_holder"]),
            "seats": [self._zone_json(z) for z in self.zones],
            "steps": [public_copy(e) for e in steps],
            "reasons": [e["reason"] for e in steps],
            "finished": self.finished,
            "voided": self.voided,
            "pending": self.pending_json(v),
        }
        if v.inspector:
            out["events"] = json_copy(self.events)
        return out

    @classmethod
    def censor(cls, events: Sequence[Event], viewer: Viewer | str, start: int = 0) -> list[Event]:
        """Copies of ``events[start:]`` for `viewer`: every card is dealt face up, so each known event's
        allow-listed keys; the inspector reads them whole."""
        if Viewer.of(viewer).inspector:
            return [json_copy(e) for e in events[start:]]
        return [c for c in (public_copy(e) for e in events[start:]) if c is not None]
