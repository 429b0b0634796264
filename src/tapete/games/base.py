"""The one typed surface of a round, for all four games: steps, decisions, viewers and the `Round` protocol.

A round is a pure state machine (OpenSpiel/PokerKit shape). It never draws a card itself: when it needs
one it says so as its pending step (a `CardStep`: whose card, face up or down), and the card arrives
through the same ``verify``/``can``/``apply`` path as a holder's decision (a `Dealt` step). Whoever holds
the cards answers those steps: the virtual shoe in a loop (`tapete.dealer.deal`), a dealer typing a
physical shoe, a shoe reader, a scenario's stacked cards, or a replay of logged events.

The JSON shapes are the same in every game and are those of shared/spec/scenario.md and server.md:
an action is ``{"seat", "action", "hand"?, "amount"?, "cards"?}``, a dealt card ``{"card", "exposed"?}``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, NamedTuple, Protocol, runtime_checkable

from tapete import __version__ as ENGINE_VERSION
from tapete.cards import NAMES, Card, parse_card
from tapete.errors import BadCards, BadRequest, IllegalAction, Msg, NotWaitingFor
from tapete.rules.common import CommonRules, FrozenDict
from tapete.table import round_settled

Event = dict[str, Any]

#: Schema of the events a round writes (round_started carries it, with the engine's version).
EVENT_SCHEMA = 2
CARD = "card"
DECLINE = "decline"


class Action(NamedTuple):
    """A holder's decision, the same type in every game: `action` is a scenario action name (hit, stand,
    double, split, surrender, insurance, even_money, exchange, increment_1, increment_2) or decline.
    `hand` names a split hand, `amount` a double/insurance/increment, `cards` an exchange's cards.
    Immutable; a NamedTuple because one is built per decision (a frozen dataclass costs ~5x more)."""

    seat: int
    action: str
    hand: int | None = None
    amount: int | None = None
    cards: tuple[Card, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        """The decision as a scenario / API entry."""
        out: dict[str, Any] = {"seat": self.seat, "action": self.action}
        if self.hand is not None:
            out["hand"] = self.hand
        if self.amount is not None:
            out["amount"] = self.amount
        if self.cards is not None:
            out["cards"] = [NAMES[c] for c in self.cards]
        return out

    @classmethod
    def from_json(cls, entry: object) -> Action:
        """An action from untrusted input, every field checked: a missing or mistyped ``seat`` or
        ``action`` is BadRequest; a bad ``hand``, ``amount`` or ``cards`` is IllegalAction (as the
        scenario contract has it). Never a KeyError or TypeError."""
        if not isinstance(entry, Mapping):
            raise BadRequest("an action is an object with seat and action", key="err.request.action_object")
        if "seat" not in entry or "action" not in entry:
            missing = [k for k in ("seat", "action") if k not in entry]
            raise BadRequest(
                f"an action needs {' and '.join(missing)}", key="err.request.action_missing", missing=missing
            )
        seat, name = entry["seat"], entry["action"]
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise BadRequest(f"seat {seat!r} is not a whole number", key="err.request.seat", seat=seat)
        if not isinstance(name, str):
            raise BadRequest(f"action {name!r} is not a name", key="err.request.action_name", action=name)
        hand = entry.get("hand")
        if hand is not None and (isinstance(hand, bool) or not isinstance(hand, int) or hand < 0):
            raise IllegalAction(
                f"hand {hand!r} is not a hand number", key="err.action.hand_number", hand=hand
            )
        amount = entry.get("amount")
        if amount is not None and (isinstance(amount, bool) or not isinstance(amount, int) or amount < 1):
            raise IllegalAction(
                f"amount {amount!r} is not a positive whole amount", key="err.action.amount", amount=amount
            )
        cards: tuple[Card, ...] | None = None
        raw = entry.get("cards")
        if raw is not None:
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
        return cls(seat, name, hand, amount, cards)


class Decision(NamedTuple):
    """What the round waits for from a holder: an offer to a box or a play decision on one of its hands.
    `max_amount` caps a double/insurance (or is an increment's amount), `max_cards` an exchange.
    Immutable (a front end cannot widen `legal`)."""

    kind: str
    seat: int
    hand: int
    legal: tuple[str, ...]
    max_amount: int | None = None
    max_cards: int = 0

    def to_json(self) -> dict[str, Any]:
        """The pending decision as server.md's ``state.pending`` has it (``deadline`` is the server's)."""
        out: dict[str, Any] = {
            "kind": "decision",
            "decision": self.kind,
            "seat": self.seat,
            "hand": self.hand,
            "legal": list(self.legal),
        }
        if self.max_amount is not None:
            out["max_amount"] = self.max_amount
        if self.max_cards:
            out["max_cards"] = self.max_cards
        return out


class CardStep(NamedTuple):
    """The round waits for the next card out of the shoe, and says whose it is: ``to`` is ``seat`` (with
    `seat` and `hand`), ``dealer`` (`index` 0 is the first card, 1 the hole card), ``punto``/``banca``, or
    ``community`` (`position`); `replaces` names the card an exchange gives up; `face` is how it is dealt.
    (`position` is ``index`` in JSON, as in the card events; a tuple's own ``index`` is its method.)"""

    to: str
    seat: int | None = None
    hand: int | None = None
    face: str = "up"
    position: int | None = None
    replaces: str | None = None
    kind: str = CARD

    def to_json(self) -> dict[str, Any]:
        """The pending card as server.md's ``state.pending`` has it, with whose card it is."""
        out: dict[str, Any] = {"kind": CARD, "to": self.to, "face": self.face}
        for key, value in (
            ("seat", self.seat),
            ("hand", self.hand),
            ("index", self.position),
            ("replaces", self.replaces),
        ):
            if value is not None:
                out[key] = value
        return out


class Dealt(NamedTuple):
    """A card given to the round's pending card step. `exposed`: the dealer's second card was exposed by
    error while dealt (BJ Art.8): it becomes the up-card."""

    card: Card
    exposed: bool = False

    def to_json(self) -> dict[str, Any]:
        """The card as the API's ``cards`` body has it."""
        out: dict[str, Any] = {"card": NAMES[self.card]}
        if self.exposed:
            out["exposed"] = True
        return out

    @classmethod
    def from_json(cls, entry: object) -> Dealt:
        """A dealt card from untrusted input: ``{"card": "As", "exposed"?: bool}`` (BadRequest for a bad
        shape, BadCards for a string that is no card)."""
        if not isinstance(entry, Mapping) or "card" not in entry:
            raise BadRequest('a dealt card is {"card": "As"}', key="err.request.card_object")
        exposed = entry.get("exposed", False)
        if not isinstance(exposed, bool):
            raise BadRequest("exposed is true or false", key="err.request.exposed")
        return cls(parse_card(entry["card"]), exposed)


Step = Action | Dealt
Pending = Decision | CardStep


Role = Literal["player", "spectator", "dealer", "inspector"]


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who looks at a round: a named player, a spectator, the dealer or the inspector. A view and a
    censored event hold only what this viewer may see (allow-lists, per game)."""

    role: Role
    name: str | None = None

    ROLES: ClassVar[tuple[str, ...]] = ("player", "spectator", "dealer", "inspector")

    @classmethod
    def of(cls, who: Viewer | str) -> Viewer:
        """A viewer from ``"inspector"``, ``"dealer"``, ``"spectator"`` or ``"player:NAME"`` (or itself).
        Anything else is a spectator: a name nobody plays under sees no more than the public table."""
        if isinstance(who, Viewer):
            return who
        if who.startswith("player:"):
            return cls("player", who.removeprefix("player:"))
        if who in ("inspector", "dealer"):
            return cls(who)  # type: ignore[arg-type]
        return cls("spectator")

    @property
    def staff(self) -> bool:
        """The dealer or the inspector."""
        return self.role in ("dealer", "inspector")

    @property
    def inspector(self) -> bool:
        """Sees everything, the hole card and the discards included."""
        return self.role == "inspector"

    def to_json(self) -> dict[str, Any]:
        """``{"role", "name"?}``."""
        return {"role": self.role, **({"name": self.name} if self.name is not None else {})}

    def __str__(self) -> str:
        return f"player:{self.name}" if self.role == "player" else self.role


HIDDEN = "??"


def json_copy(value: Any) -> Any:
    """A copy of JSON-shaped data (dicts, lists, scalars) sharing nothing mutable with `value`: what
    crosses the engine's boundary (a result's events, a view) is copied, so writing into it changes
    nothing inside (a round's own events). Frozen settings come out as plain dicts. Faster than deepcopy."""
    kind = type(value)
    if kind is dict or kind is FrozenDict:
        return {k: v if type(v) in _SCALARS else json_copy(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [v if type(v) in _SCALARS else json_copy(v) for v in value]
    return value


_SCALARS = frozenset((str, int, bool, float, type(None)))


def default_action(decision: Decision, offers: frozenset[str]) -> Action:
    """What the table does for a holder who does not answer in time (the server's turn timer, a player
    who left): an offer is declined; a play decision stands (server.md)."""
    if decision.kind in offers or "stand" not in decision.legal:
        return Action(decision.seat, DECLINE)
    return Action(decision.seat, "stand", decision.hand)


@runtime_checkable
class Round(Protocol):
    """What every game's round offers the session, the scenario runner, the log and the server."""

    GAME: ClassVar[str]
    OFFERS: ClassVar[frozenset[str]]
    round_id: int | str
    events: list[Event]
    finished: bool
    voided: bool
    staked: dict[str, int]
    paid: dict[str, int]

    @property
    def pending(self) -> Pending | None:
        """The step the round waits for (a card or a holder's decision), None once it is over."""
        ...

    def legal(self) -> tuple[str, ...]:
        """The legal decisions of whoever must act now (empty while a card is awaited or at the end)."""
        ...

    def verify(self, step: Step) -> None:
        """Raise the typed error that says why `step` is refused now; change nothing."""
        ...

    def can(self, step: Step) -> bool:
        """Whether `step` would be accepted now."""
        ...

    def apply(self, step: Step) -> list[Event]:
        """Take a legal step and return the events it caused; a refused step changes nothing."""
        ...

    def deal_from(self, draw: Callable[[], Card]) -> None:
        """Answer every card step with ``draw()``, as apply(Dealt(card)) would, to a decision or the end."""
        ...

    def chips_for(self, action: Action) -> int:
        """What `action` will take from its holder's chips if applied (double, split, insurance,
        increment), so a wallet can refuse what it cannot cover before the step is taken."""
        ...

    def default_action(self) -> Action:
        """The engine's answer for a holder who does not answer the pending decision."""
        ...

    def void(self, reason: str) -> list[Event]:
        """End a round that cannot be completed: every stake returned (round_voided, then the closing
        record with every bettor's net at zero)."""
        ...

    def view(self, viewer: Viewer | str) -> dict[str, Any]:
        """What `viewer` may see of the table, built from an allow-list."""
        ...

    def view_key(self, viewer: Viewer | str) -> str:
        """A key such that viewers with the same key see the same view but for its ``viewer`` label (a
        table pushes every step to all its viewers: they may share one)."""
        ...

    def result(self) -> dict[str, Any]:
        """The outcome in the scenario contract's shape."""
        ...


class RoundType(Protocol):
    """A game's round class: how its bets are checked, how its decisions are parsed, how it is built."""

    GAME: ClassVar[str]
    OFFERS: ClassVar[frozenset[str]]
    SCENARIO_ACTIONS: ClassVar[tuple[str, ...]]

    def __call__(self, rules: Any, boxes: Sequence[Any], *, round_id: int | str = 1, **options: Any) -> Round:
        """A new round on checked boxes (nothing dealt yet: its first pending step is the first card)."""
        ...

    def bet_spec(self, rules: Any) -> Any:
        """The table's checks of this game's bets for `rules`."""
        ...

    def parse_action(self, entry: object) -> Action:
        """A decision entry (scenario, API) as an Action, every field checked."""
        ...

    def step_from_event(self, event: Event) -> Step | None:
        """The step a logged event records (a card or a decision), or None (for recall and resume)."""
        ...

    def decline(self, decision: Decision) -> Action:
        """The answer of a holder who says nothing when an offer is made."""
        ...

    def options_from_events(self, events: Sequence[Event]) -> dict[str, Any]:
        """The options a round was opened with, as its events record them."""
        ...

    def censor(self, events: Sequence[Event], viewer: Viewer | str, start: int = 0) -> list[Event]:
        """Copies of ``events[start:]`` holding only what `viewer` may see, judged as of the last event."""
        ...


# ---------------------------------------------------------------------------------------------- the base
class RoundBase:
    """What the four rounds share: the step triad over cards and decisions, the money sums, the closing
    record, the void of a round that cannot be completed, and the default answer. A game writes its
    ``_verify_action``/``_on_action`` (decisions) and ``_on_card`` (the pending card step's card)."""

    GAME: ClassVar[str] = ""
    OFFERS: ClassVar[frozenset[str]] = frozenset()
    #: the actions a scenario file names (scenario.md: an offer is declined by silence, never "decline")
    SCENARIO_ACTIONS: ClassVar[tuple[str, ...]] = ()

    rules: CommonRules
    round_id: int | str
    events: list[Event]
    pending: Pending | None
    finished: bool
    voided: bool
    staked: dict[str, int]
    paid: dict[str, int]
    commission: int

    # -- the triad ------------------------------------------------------------------------------------
    def legal(self) -> tuple[str, ...]:
        """The legal decisions of whoever must act now (empty while a card is awaited or at the end)."""
        p = self.pending
        return p.legal if p is not None and p.kind != CARD else ()  # type: ignore[union-attr]

    def verify(self, step: Step) -> None:
        """Raise the typed error that says why `step` is refused now (IllegalAction, NotWaitingFor,
        BadCards); change nothing."""
        if type(step) is Dealt:
            self._verify_card(step)
            return
        assert isinstance(step, Action)
        p = self.pending
        if isinstance(p, CardStep):
            raise NotWaitingFor(
                f"the dealer must deal the next card ({_whose(p)}); "
                f"seat {step.seat}'s {step.action} must wait",
                key="err.step.card_first",
                whose=_whose(p),
                seat=step.seat,
                action=step.action,
            )
        self._verify_action(step)

    def can(self, step: Step) -> bool:
        """Whether `step` would be accepted now."""
        try:
            self.verify(step)
        except (IllegalAction, BadCards):
            return False
        return True

    def apply(self, step: Step) -> list[Event]:
        """Take a legal step (a card for the pending card step, or the holder's decision) and return the
        events it caused. Whatever refuses it leaves the round exactly as it was."""
        start = len(self.events)
        if type(step) is Dealt:
            self._verify_card(step)
            self._on_card(step.card, step.exposed)
        else:
            p = self.pending
            if p is not None and p.kind == CARD:
                self.verify(step)  # raises: the dealer must deal first
            self._verify_action(step)  # type: ignore[arg-type]
            self._on_action(step)  # type: ignore[arg-type]
        return self.events[start:]

    def deal_from(self, draw: Callable[[], Card]) -> None:
        """The virtual shoe's dealer loop: answer every card step with ``draw()``, each card checked and
        taken exactly as ``apply(Dealt(card))`` takes it, until a holder must decide or the round is over.
        A draw that fails (a shoe run out) raises before its step, so the round stays at that step. The
        events are the round's new ones (the callers slice them; it runs for every card)."""
        on_card = self._on_card
        while True:
            p = self.pending
            if p is None or p.kind != CARD:
                return
            card = draw()
            if type(card) is not int or not 0 <= card < 52:
                raise BadCards(f"{card!r} is not a card", key="err.cards.not_a_card", card=repr(card))
            on_card(card, False)

    def _verify_card(self, step: Dealt) -> None:
        p = self.pending
        if p is None or p.kind != CARD:
            if p is None:
                raise NotWaitingFor("the round is over: it takes no more cards", key="err.step.over")
            raise NotWaitingFor(
                f"the round waits for seat {p.seat}'s decision ({p.kind}), not for a card",
                key="err.step.decision_first",
                seat=p.seat,
                kind=p.kind,
            )
        card = step.card
        if type(card) is not int or not 0 <= card < 52:
            raise BadCards(f"{card!r} is not a card", key="err.cards.not_a_card", card=repr(card))
        if step.exposed and not self._may_expose(p):  # type: ignore[arg-type]
            self._refuse_exposed()

    def _refuse_exposed(self) -> None:
        """Refuse a card exposed where no exposure is allowed, quoting the game's own pages (Majestic 21
        overrides it: it never quotes Black Jack's articles as its own)."""
        raise IllegalAction(
            "only the dealer's second card can be exposed by error (BJ Art.8)", key="err.step.exposed"
        )

    def _may_expose(self, step: CardStep) -> bool:
        """HOOK: whether the pending card may arrive exposed by error (Black Jack's hole card)."""
        return False

    def _verify_action(self, action: Action) -> None:
        raise NotImplementedError

    def _on_action(self, action: Action) -> None:
        raise NotImplementedError

    def _on_card(self, card: Card, exposed: bool) -> None:
        raise NotImplementedError

    @classmethod
    def step_from_event(cls, ev: Event) -> Step | None:
        """HOOK: the step a logged event records (a card or a decision), or None."""
        raise NotImplementedError

    @classmethod
    def options_from_events(cls, events: Sequence[Event]) -> dict[str, Any]:
        """HOOK: the options the round was opened with, as its events record them (none by default)."""
        return {}

    @classmethod
    def actions_from_events(cls, events: Sequence[Event]) -> list[Action]:
        """The holders' decisions a round's events record, in order (its cards left out)."""
        return [s for s in map(cls.step_from_event, events) if isinstance(s, Action)]

    # -- defaults, money, void ------------------------------------------------------------------------
    @staticmethod
    def decline(decision: Decision) -> Action:
        """The answer of a holder who says nothing when an offer is made."""
        return Action(decision.seat, DECLINE)

    def default_action(self) -> Action:
        """The engine's answer to the pending decision for a holder who does not answer (server.md:
        ``stand`` on a play decision, ``decline`` on an offer)."""
        p = self.pending
        if p is None or p.kind == CARD:
            raise NotWaitingFor("no holder's decision is pending", key="err.step.no_decision")
        return default_action(p, self.OFFERS)  # type: ignore[arg-type]

    def chips_for(self, action: Action) -> int:
        """What `action` takes from its holder's chips if applied (0 for a decision that stakes
        nothing). Verifies it first, so an illegal action is refused here too."""
        self.verify(action)
        return self._chips_for(action)

    def _chips_for(self, action: Action) -> int:
        return 0

    def void(self, reason: str) -> list[Event]:
        """End a round that cannot be completed: ``round_voided`` with every stake returned (what was paid
        on bets already settled is annulled: each bettor gets back exactly what he staked), then the
        closing record with every net at zero. Refused once the round is over."""
        if self.finished:
            raise NotWaitingFor("the round is over and cannot be voided", key="err.step.void_over")
        if not isinstance(reason, str) or not reason.strip():
            raise BadRequest("a void needs its reason", key="err.step.void_reason")
        start = len(self.events)
        returned = dict(self.staked)
        self.paid = dict(returned)
        self.commission = 0
        self.pending = None
        self.finished = True
        self.voided = True
        self.events.append({"type": "round_voided", "reason": reason, "returned": returned})
        self.events.append(round_settled(self.staked, self.paid, 0))
        return self.events[start:]

    def _closing_event(self) -> Event:
        return round_settled(self.staked, self.paid, self.commission)

    def _started(self, **extra: Any) -> Event:
        """The round_started record: game, round id, every setting, the event schema and engine."""
        ev: Event = {
            "type": "round_started",
            "game": self.GAME,
            "round": self.round_id,
            "rules": self.rules.frozen_settings,  # frozen: shared by every round, never written
            **extra,
            "schema": EVENT_SCHEMA,
            "engine": ENGINE_VERSION,
        }
        return ev

    def view_key(self, viewer: Viewer | str) -> str:
        """A key such that viewers with the same key see the same view but for its ``viewer`` label:
        each viewer his own, unless the game knows better."""
        return str(Viewer.of(viewer))

    def pending_json(self, viewer: Viewer) -> dict[str, Any] | None:
        """The pending step as `viewer` may see it: whose card is awaited (never which), or the decision
        with its legal answers for its holder and the staff."""
        p = self.pending
        if p is None:
            return None
        out = p.to_json()
        mine = viewer.role == "player" and self._holder(p.seat) == viewer.name
        if isinstance(p, Decision) and not (viewer.staff or mine):
            out.pop("legal", None)
        if "replaces" in out and not (viewer.inspector or mine):  # given up face down (SP Art.9.2)
            out["replaces"] = HIDDEN
        return out

    def _holder(self, seat: int | None) -> str | None:
        """HOOK: who holds `seat` in this round."""
        return None


def _whose(step: CardStep) -> Msg:
    """Whose card a card step waits for, in words (for messages; its key says it in the caller's
    language, the text stays English in the error's params)."""
    if step.to == "seat":
        if step.hand:
            return Msg(
                f"seat {step.seat}, hand {step.hand}", "whose.seat_hand", seat=step.seat, hand=step.hand
            )
        return Msg(f"seat {step.seat}", "whose.seat", seat=step.seat)
    if step.to == "community":
        n = (step.position or 0) + 1
        return Msg(f"community card {n}", "whose.community", n=n)
    if step.to == "dealer":
        if step.position == 1:
            return Msg("the dealer's hole card", "whose.hole")
        return Msg("the dealer", "whose.dealer")
    return Msg(step.to.capitalize(), "whose.side", side=step.to)


def entry_basics(entry: object) -> tuple[int, str]:
    """The seat and action name of an untrusted decision entry (BadRequest when either is missing or
    mistyped, or the entry is not an object): the part of the parse every game shares."""
    if not isinstance(entry, Mapping):
        raise BadRequest("an action is an object with seat and action", key="err.request.action_object")
    missing = [k for k in ("seat", "action") if k not in entry]
    if missing:
        raise BadRequest(
            f"an action needs {' and '.join(missing)}", key="err.request.action_missing", missing=missing
        )
    seat, name = entry["seat"], entry["action"]
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise BadRequest(f"seat {seat!r} is not a whole number", key="err.request.seat", seat=seat)
    if not isinstance(name, str):
        raise BadRequest(f"action {name!r} is not a name", key="err.request.action_name", action=name)
    return seat, name


#: The allow-list of what a player, a spectator or the dealer may read of each kind of event: its keys.
#: An event of a kind not named here never reaches them (the inspector reads every event whole). Which
#: cards are face down is each game's censor's business; these keys hold no card that is always hidden.
PUBLIC_KEYS: dict[str, frozenset[str]] = {
    kind: frozenset(("type", *keys))
    for kind, keys in {
        "round_started": ("game", "round", "rules", "schema", "engine", "shoe_holder"),
        "stake": ("seat", "player", "spot", "amount", "hand"),
        "bets_closed": (),
        "card": ("to", "seat", "hand", "card", "face", "index", "replaces", "exposed"),
        "up_card": ("card", "rule", "reason"),
        "decision": ("seat", "hand", "action", "amount"),
        "offer": ("seat", "offer", "taken", "amount", "hand", "cards"),
        "settle": (
            "seat",
            "player",
            "spot",
            "stake",
            "outcome",
            "paid",
            "hand",
            "ratio",
            "fraction",
            "commission",
            "stakes",
            "winnings",
            "capped_winnings",
        ),
        "hole_card": ("card",),
        "dealer_stands": ("total",),
        "dealer_busts": ("total",),
        "draw": ("side", "total", "rule", "punto_third", "reason"),
        "stand": ("side", "total", "rule", "punto_third", "reason"),
        "outcome": ("punto", "banca", "winner"),
        "hand": ("seat", "cards", "category", "description"),
        "community_shown": ("index", "card"),
        "payout_limit": ("limit", "suma", "factor", "seats"),
        "pot": (
            "total",
            "returned",
            "commission_percent",
            "commission",
            "distributable",
            "winners",
            "best_hand",
            "shares",
            "remainder",
            "fraction",
        ),
        "round_settled": ("players", "house"),
        "round_voided": ("reason", "returned"),
        "new_pack": ("decks", "reason"),
        "procedure": ("step", "generator", "at", "cut_card_depth", "cards", "reason", "by"),
        "cut_card_out": ("dealt",),
        "shoe_recovered": ("reason", "undealt", "generator"),
        "correction": ("seq", "was", "now", "reason", "by", "to", "seat", "hand", "index"),
    }.items()
}


def public_copy(event: Event) -> Event | None:
    """A deep copy of `event` with only its allow-listed keys, or None when no player may read its kind.
    Burned cards go face down: their count is public, never the cards."""
    keys = PUBLIC_KEYS.get(event.get("type", ""))
    if keys is None:
        return None
    return burn_face_down({k: copy.deepcopy(v) for k, v in event.items() if k in keys})


def burn_face_down(event: Event) -> Event:
    """`event` with the cards of a burn face down (a procedure's `cards`: their count is public, never the
    cards); any other event as it is."""
    if event.get("type") == "procedure" and isinstance(event.get("cards"), list):
        return {**event, "cards": [HIDDEN] * len(event["cards"])}
    return event
