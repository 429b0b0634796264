"""The control procedures of a table in the regulation's order (BJ/PyB/M21 Art.4-6, SP Art.5-7; rules.md §0).

A `ProcedureSequence` knows which steps a table owes before it may deal, and in what order: a new pack is
opened, inspected (Art.4), shown, turned, mixed, shuffled, cut, loaded into the shoe and burned (Art.5a-g);
after the cut card came out the pack is shuffled, cut, loaded and burned again (Art.6); Showdown Póker
shuffles and cuts before every round (Art.7). The server asks it whether a step may come now and whether
the table may deal; it is rebuilt from the table's recorded events (`replay`), so any process can. A step
out of order is refused with the step(s) expected; nothing of the sequence changes then.

Each step is recorded as an event: ``{"type": "new_pack", ...}`` for the new decks, and
``{"type": "procedure", "step": STEP, ...}`` for the others (the virtual shoe writes the same ones).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tapete.cards import inspect_pack
from tapete.errors import BadRequest, InvalidRules, TapeteError

Event = dict[str, Any]

#: every step a dealer posts (server.md "Control procedures at a live table")
STEPS = (
    "new_pack",
    "inspect",
    "show",
    "turn",
    "mix",
    "shuffle",
    "cut",
    "load",
    "burn",
    "deck_change",
    "cut_card",
)
#: Art.5a-c: optional before a later shuffle (rules.md §0: the operator's choice), in this order
FACES = ("show", "turn", "mix")
#: the most jokers a pack of eight decks can carry (two a deck, and a spare or two): a count above is a typo
MAX_JOKERS = 32


class ProcedureOutOfOrder(TapeteError):
    """A control procedure out of the regulation's order, or a deal while procedures are due: at the
    server, not the phase for it (409 conflict). `params["expected"]` names what may come now."""

    code = "conflict"


def step_of(event: Mapping[str, Any]) -> str | None:
    """The procedure step an event records (None for any other event): a ``procedure`` event's step, a
    ``new_pack`` (an older record of a deck change is that change), the cut card coming out."""
    kind = event.get("type")
    if kind == "procedure":
        step = event.get("step")
        return step if isinstance(step, str) else None
    if kind == "new_pack":
        return "new_pack"
    if kind == "cut_card_out":
        return "cut_card"
    return None


class ProcedureSequence:
    """What a table owes before its next deal, in the regulation's order.

    `shoe`: the game deals from a shoe with a cut card (BJ, PyB, M21: cut window and load); `burns`: the
    table burns cards after the cut (BJ/PyB/M21 always; Showdown only with `burn` > 0); `every_round`:
    the pack is shuffled and cut before every round (Showdown Art.7)."""

    def __init__(self, *, shoe: bool, burns: bool, every_round: bool) -> None:
        self.shoe, self.burns, self.every_round = shoe, burns, every_round
        #: the steps required before the next deal, in order
        self.due: list[str] = self.new_pack_steps()
        #: steps that may come before `due[0]` (show, turn, mix before a later shuffle), in order
        self.optional: list[str] = []
        #: the last inspection rejected the pack: only a deck change may follow (Art.4)
        self.rejected = False

    @classmethod
    def for_rules(cls, rules: Any, *, every_round: bool) -> ProcedureSequence:
        """The sequence of a table with these rules (a rules model of `tapete.rules`)."""
        shoe = getattr(rules, "cut_depth", None) is not None
        burn = getattr(rules, "burn", 0)
        return cls(shoe=shoe, burns=shoe or (isinstance(burn, int) and burn > 0), every_round=every_round)

    # -- the sequences of rules.md §0 -------------------------------------------------------------------
    def _after_shuffle(self) -> list[str]:
        return ["cut", *(["load"] if self.shoe else []), *(["burn"] if self.burns else [])]

    def new_pack_steps(self) -> list[str]:
        """A new pack: new_pack, inspect, show, turn, mix, shuffle, cut, load, burn (Art.4-5)."""
        return ["new_pack", "inspect", *FACES, "shuffle", *self._after_shuffle()]

    def reshuffle_steps(self) -> list[str]:
        """A later shuffle (after the cut card; Showdown before every round): shuffle, cut, load, burn."""
        return ["shuffle", *self._after_shuffle()]

    # -- what the table may do ---------------------------------------------------------------------------
    @property
    def ready(self) -> bool:
        """True when nothing is due: the table may deal."""
        return not self.due and not self.rejected

    def procedures_due(self) -> list[str]:
        """The steps due before the next deal, in order (server.md's ``procedures_due``; empty: it may
        deal)."""
        if self.rejected:
            return ["deck_change", *self.new_pack_steps()]
        return list(self.due)

    def expected(self) -> list[str]:
        """The steps that may come now: the optional ones still open, then the next one due."""
        if self.rejected:
            return ["deck_change"]
        if self.due:
            return [*self.optional, self.due[0]]
        return ["new_pack", "show", "shuffle", "deck_change"]

    def check_deal(self) -> None:
        """ProcedureOutOfOrder naming what is due, unless the table may deal."""
        if self.ready:
            return
        due = self.procedures_due()
        raise ProcedureOutOfOrder(
            f"the control procedures come first: {', '.join(due)}",
            key="err.procedures.due",
            expected=self.expected(),
            due=due,
        )

    def check(self, step: str) -> None:
        """ProcedureOutOfOrder unless `step` may come now (nothing changes)."""
        if step in ("deck_change", "cut_card"):
            return  # a deck change may always be asked for between rounds; the cut card is a signal
        if self.rejected or step not in self._allowed():
            expected = self.expected()
            raise ProcedureOutOfOrder(
                f"{step} is out of the regulation's order: expected {', '.join(expected)}",
                key="err.procedures.order",
                step=step,
                expected=expected,
            )

    def _allowed(self) -> list[str]:
        if self.due:
            return [*self.optional, self.due[0]]
        # nothing due: fresh decks, or a later shuffle (with its faces shown first, or not)
        return ["new_pack", "show", "shuffle"]

    def take(self, step: str, *, rejected: bool = False) -> None:
        """Record that `step` was done (checked first: ProcedureOutOfOrder and nothing changes).
        `rejected`: an inspection that rejected the pack."""
        self.check(step)
        self.apply(step, rejected=rejected)

    def apply(self, step: str, *, rejected: bool = False) -> None:
        """Move on past `step` without checking it (a record replayed: the table did it, whatever the
        rules of its time were)."""
        if step == "deck_change":
            self.due, self.optional, self.rejected = self.new_pack_steps(), [], False
        elif step == "cut_card":
            if "shuffle" not in self.due and not self.rejected:
                self.due, self.optional = self.reshuffle_steps(), list(FACES)
        elif step == "new_pack":
            self.due, self.optional, self.rejected = self.new_pack_steps()[1:], [], False
        elif self.due and step in self.optional:
            self.optional = self.optional[self.optional.index(step) + 1 :]
        elif self.due and step in self.due:
            self.due = self.due[self.due.index(step) + 1 :]
            self.optional = []
            if step == "inspect" and rejected:
                self.rejected = True
        elif not self.due and step in FACES:
            at = FACES.index(step)
            self.due, self.optional = self.reshuffle_steps(), list(FACES[at + 1 :])
        elif not self.due and step == "shuffle":
            self.due, self.optional = self._after_shuffle(), []

    def round_dealt(self) -> None:
        """A round was dealt: Showdown shuffles and cuts again before the next (Art.7)."""
        if self.every_round and not self.due:
            self.due, self.optional = self.reshuffle_steps(), list(FACES)

    def replay(self, events: Iterable[Mapping[str, Any]]) -> ProcedureSequence:
        """Move through a table's recorded events in order (procedures and the rounds' starts); self."""
        for event in events:
            kind = event.get("type")
            if kind == "round_started":
                # the table dealt: whatever an older record left unmarked was done under its rules
                self.due, self.optional, self.rejected = [], [], False
                self.round_dealt()
                continue
            step = step_of(event)
            if step is None:
                continue
            if kind == "new_pack" and event.get("deck_change"):
                self.apply("deck_change")
            self.apply(step, rejected=event.get("result") == "rejected")
        return self


# ------------------------------------------------------------------------------------ the steps' records
def inspect_event(body: Mapping[str, Any], decks: int) -> tuple[Event, bool]:
    """The record of Art.4's deck review from a dealer's body ``{"result", "jokers_removed"?, "reason"?,
    "cards"?}`` and whether it rejected the pack. `cards` (the pack as a reader read it) is checked by
    `cards.inspect_pack`: a complete review of a pack that is not is bad_cards, and the jokers it found
    are those counted."""
    result = body.get("result")
    if result not in ("complete", "rejected"):
        raise BadRequest("an inspection's result is complete or rejected", key="err.procedures.result")
    jokers = body.get("jokers_removed", 0)
    if not isinstance(jokers, int) or isinstance(jokers, bool) or not 0 <= jokers <= MAX_JOKERS:
        raise BadRequest(
            f"jokers_removed is a count from 0 to {MAX_JOKERS}", key="err.procedures.jokers", most=MAX_JOKERS
        )
    reason = body.get("reason")
    if reason is not None and not isinstance(reason, str):
        raise BadRequest("a reason is a text", key="err.api.reason")
    if result == "rejected" and not (reason or "").strip():
        raise BadRequest("a rejected pack says why", key="err.procedures.reject_reason")
    event: Event = {"type": "procedure", "step": "inspect", "result": result, "jokers_removed": jokers}
    cards = body.get("cards")
    if cards is not None and result == "complete":
        if not isinstance(cards, list):
            raise BadRequest("an inspection's cards are a list", key="err.procedures.cards")
        found = inspect_pack(cards, decks)  # BadCards naming the missing, extra or foreign card
        if "jokers_removed" in body and found.jokers_removed != jokers:
            raise BadRequest(
                f"the cards hold {found.jokers_removed} joker(s), not {jokers}",
                key="err.procedures.jokers_count",
                found=found.jokers_removed,
                said=jokers,
            )
        event["jokers_removed"] = found.jokers_removed
        event["cards_checked"] = len(found.cards)
    if reason:
        event["reason"] = reason
    return event, result == "rejected"


def cut_event(body: Mapping[str, Any], rules: Any, seated: Sequence[str]) -> Event:
    """The record of a cut (Art.5e; Showdown Art.7's one-handed cut): who cut — ``"dealer"`` (the
    default) or a player seated at the table — and, at a shoe game, the cards left behind the cut card
    (the table's `cut_card_depth` by default), within [40, half the pack] (`check_cut_card_depth`): a depth
    outside is invalid_rules, as the same value is in the table's settings."""
    from tapete.rules.common import check_cut_card_depth

    by = body.get("by", "dealer")
    if not isinstance(by, str) or (by != "dealer" and by not in seated):
        raise BadRequest(
            f"a cut is made by the dealer or by a player seated at the table, not {by!r}",
            key="err.procedures.cut_by",
            by=str(by),
        )
    event: Event = {"type": "procedure", "step": "cut", "by": by}
    table_depth = getattr(rules, "cut_depth", None)
    depth = body.get("cut_card_depth")
    if table_depth is None:
        if depth is not None:
            raise BadRequest(
                "this game's cut is one-handed: no cut card goes into the pack",
                key="err.procedures.no_cut_card",
            )
        event["one_handed"] = True
        return event
    if depth is None:
        depth = table_depth
    if not isinstance(depth, int) or isinstance(depth, bool):
        raise BadRequest("cut_card_depth is a number of cards", key="err.procedures.depth")
    problem = check_cut_card_depth(depth, rules.pack_size)
    if problem is not None:  # a value the regulation forbids: invalid_rules, as for the table's setting
        raise InvalidRules(str(problem), key="err.rules.cut_card", depth=depth, hi=rules.pack_size // 2)
    event["cut_card_depth"] = depth
    return event
