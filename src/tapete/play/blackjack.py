"""The Black Jack terminal table: the regulation's questions in the regulation's order (rules.md §1).

The round says what it waits for (``pending``): surrender to every box in seat order (Art.9), then
insurance / even money (Art.10, 13), then each hand's play decisions (Art.11, 12, 14). This face only
asks those questions, shows what a player sees (``view("player:NAME")``: the dealer's up-card and ``??``
until the hole card is turned) card by card, and explains every payout. Majestic 21's face subclasses it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.markup import escape
from rich.table import Table

from tapete.cards import parse_card
from tapete.errors import IllegalAction
from tapete.games.base import DECLINE, Action, Decision
from tapete.games.blackjack import (
    EVEN_MONEY,
    INSURANCE,
    PLAY,
    RESPLIT,
    SURRENDER,
    hand_total,
)
from tapete.i18n import layout_phrases
from tapete.play.common import (
    Choice,
    Markup,
    PlayContext,
    TableFace,
    ask_amount,
    ask_choice,
    ask_yes_no,
    card_markup,
    cards_markup,
    show_error,
)

View = dict[str, Any]

#: Words accepted for each play decision whatever the language (the other language's name, synonyms).
ALIASES: dict[str, tuple[str, ...]] = {
    "hit": ("pedir", "carta", "hit"),
    "stand": ("plantarse", "plantar", "me planto", "stand"),
    "double": ("incremento", "doblar", "double"),
    "split": ("separación", "separacion", "separar", "split"),
}


def total_of(names: list[str]) -> tuple[int, bool]:
    """Black Jack total (and softness) of visible cards; a ``??`` card is not counted."""
    return hand_total([parse_card(n) for n in names if n != "??"])


def is_natural_names(names: list[str]) -> bool:
    """Ace + ten-value as the only two cards."""
    return len(names) == 2 and "??" not in names and total_of(names)[0] == 21


class BlackjackFace(TableFace):
    """A Black Jack table in the terminal."""

    def __init__(self, ctx: PlayContext) -> None:
        super().__init__(ctx)
        self._final: View | None = None

    # -- what is shown ------------------------------------------------------------------------------
    def view(self, rnd: Any, seat: int | None = None) -> View:
        """The round as the player at `seat` (else the first box's holder) sees it: never the hole card
        before it is turned, never the shoe."""
        holder = None
        if seat is not None:
            holder = next((b.holder for b in rnd.boxes if b.seat == seat), None)
        if holder is None:
            holder = rnd.boxes[0].holder if rnd.boxes else self.player(1)
        view: View = rnd.view(f"player:{holder}")
        return view

    def total_text(self, names: list[str], *, final: bool = False) -> str:
        """``17`` or, for a soft total still in play, ``7/17``."""
        total, soft = total_of(names)
        return f"{total - 10}/{total}" if soft and total < 21 and not final else str(total)

    def who(self, box: View, hand: int) -> str:
        """``Asiento 2 (P2)`` or, when the box has split, ``Asiento 2 (P2), mano 2``."""
        label = self.seat_label(box["seat"])
        if len(box["hands"]) > 1:
            return self.tr("hand.label", seat=label, hand=hand + 1)
        return label

    def dealer_markup(self, view: View) -> Markup:
        """The dealer's cards as shown now (``9♣ ??``)."""
        return cards_markup(view["dealer"])

    def show_table(self, view: View) -> None:
        """The table as it stands: each box's hands, stakes and totals, and the dealer's cards."""
        tr, money = self.tr, self.money
        table = Table(show_header=True, header_style="bold")
        table.add_column(tr("col.seat"))
        table.add_column(tr("col.stake"), justify="right")
        table.add_column(tr("col.cards"))
        table.add_column(tr("col.total"), justify="right")
        for box in view["seats"]:
            for i, hand in enumerate(box["hands"]):
                table.add_row(
                    escape(self.who(box, i)),
                    money.show(hand["stake"]),
                    cards_markup(hand["cards"]),
                    self.total_text(hand["cards"], final=view["finished"]) if hand["cards"] else "",
                )
        table.add_row(
            f"[bold]{escape(tr('dealer.name'))}[/bold]",
            "",
            self.dealer_markup(view),
            self.total_text(view["dealer"], final=view["finished"]),
        )
        self.ctx.console.print(table)

    def banner(self) -> None:
        """The table's name, the layout's phrases, limits and how to answer."""
        super().banner()
        phrases = layout_phrases(self.session.game, self.tr.lang)  # the layout's own words
        self.ctx.console.print(f"[bold]{escape(phrases)}[/bold]")

    # -- narration ----------------------------------------------------------------------------------
    def narrate_deal(self, view: View) -> None:
        """Art.8's deal in its order: a card to each box, the dealer's up-card, a second card to each
        box, the dealer's face-down card (shown as ??)."""
        ctx = self.ctx
        for step, key in ((0, "deal.first"), (1, "deal.second")):
            parts = []
            for box in view["seats"]:
                cards = box["hands"][0]["cards"]
                if len(cards) > step:
                    parts.append(
                        ctx.text("deal.to", who=self.seat_label(box["seat"]), card=card_markup(cards[step]))
                    )
            dealer_card = view["dealer"][0] if step == 0 else "??"
            parts.append(ctx.text("deal.to", who=self.tr("dealer.name"), card=card_markup(dealer_card)))
            ctx.say(key, cards=Markup(" · ".join(parts)))
        ctx.say("bj.dealer_shows", card=card_markup(view["dealer"][0]))
        for box in view["seats"]:
            if is_natural_names(box["hands"][0]["cards"]):
                ctx.say("bj.blackjack", who=self.who(box, 0))

    @staticmethod
    def hole_turned(view: View) -> bool:
        """Whether the dealer's second card is face up in this view."""
        return len(view["dealer"]) > 1 and view["dealer"][1] != "??"

    def narrate_changes(
        self, before: View, after: View, decision: Decision | None, action: Action | None
    ) -> None:
        """Say every card that came out between two views, in play order, then the dealer's."""
        ctx = self.ctx
        split_at = None
        if decision is not None and action is not None and action.action == "split":
            split_at = (decision.seat, decision.hand)
        old_boxes = {b["seat"]: b for b in before["seats"]}
        for box in after["seats"]:
            old = old_boxes.get(box["seat"])
            if old is None:
                continue
            old_hands = [h["cards"] for h in old["hands"]]
            if split_at is not None and split_at[0] == box["seat"]:
                k = split_at[1]
                ctx.say("bj.split_done", who=self.seat_label(box["seat"]))
                pair = old_hands[k]
                old_hands = [*old_hands[:k], pair[:1], pair[1:2], *old_hands[k + 1 :]]
            for i, hand in enumerate(box["hands"]):
                base = old_hands[i] if i < len(old_hands) else []
                cards = hand["cards"]
                new = cards[len(base) :] if cards[: len(base)] == base else cards
                for j, name in enumerate(new):
                    shown = cards[: len(cards) - len(new) + j + 1]
                    ctx.say(
                        "bj.receives",
                        who=self.who(box, i),
                        card=card_markup(name),
                        total=self.total_text(shown),
                    )
                if new and total_of(cards)[0] > 21:
                    ctx.say("bj.busts", who=self.who(box, i), total=total_of(cards)[0])
        self.narrate_dealer(before["dealer"], after)

    def narrate_dealer(self, before: list[str], after: View) -> None:
        """The hole card when it is turned, each card the dealer draws, and how he ends."""
        ctx = self.ctx
        cards = after["dealer"]
        if not self.hole_turned(after):
            return
        if len(before) > 1 and before[1] == "??":
            ctx.say("bj.hole", card=card_markup(cards[1]), total=self.total_text(cards[:2]))
        for i in range(max(2, len(before)), len(cards)):
            ctx.say("bj.dealer_draws", card=card_markup(cards[i]), total=self.total_text(cards[: i + 1]))
        if after["finished"]:
            total = total_of(cards)[0]
            if is_natural_names(cards):
                ctx.say("bj.dealer_blackjack")
            elif total > 21:
                ctx.say("bj.dealer_busts", total=total)
            elif len(cards) > 2 or self._any_live(after):
                ctx.say("bj.dealer_stands", total=total)

    @staticmethod
    def _any_live(view: View) -> bool:
        return any(h["outcome"] in ("win", "push", "lose") for b in view["seats"] for h in b["hands"])

    def notes(self, rnd: Any, start: int) -> None:
        """Settlements made during play (a Black Jack paid at once, a bust, a retiro, pago simple)."""
        final = self.view(rnd)
        for ev in rnd.events[start:]:
            if ev.get("type") == "settle" and ev.get("outcome") != "lose":  # a bust was said already
                self.ctx.say(
                    "bj.note",
                    who=self.seat_label(ev["seat"])
                    if ev["player"] == self.player_at(ev["seat"])
                    else ev["player"],
                    why=self._explain(final, ev),
                    paid=self.money.show(ev["paid"]),
                )

    # -- the round ----------------------------------------------------------------------------------
    def play_round(self, rnd: Any) -> None:
        """Deal, ask every pending decision in the round's order, then show the dealer's turn."""
        view = self.view(rnd)
        self.narrate_deal(view)
        self.show_table(view)
        if not rnd.finished:
            self.notes(rnd, 0)
        self.narrate_dealer([view["dealer"][0], "??"], view)
        while rnd.pending is not None:
            decision = rnd.pending
            before = self.view(rnd, decision.seat)
            start = len(rnd.events)
            action = self.decide(rnd, decision, before)
            after = self.view(rnd, decision.seat)
            self.narrate_changes(before, after, decision, action)
            if not rnd.finished:
                self.notes(rnd, start)
            self.announce_shoe()
        self._final = self.view(rnd)
        self.show_table(self._final)

    def finish_silently(self, rnd: Any) -> None:
        """Finish an abandoned round (decline offers, stand) and still show what happened."""
        before = self.view(rnd)
        super().finish_silently(rnd)
        after = self.view(rnd)
        self.narrate_changes(before, after, None, None)
        self._final = after
        self.show_table(after)

    def decide(self, rnd: Any, decision: Decision, view: View) -> Action:
        """Ask the person for `decision` until the round accepts the answer; apply it and return it."""
        box = next(b for b in view["seats"] if b["seat"] == decision.seat)
        while True:
            action = self.ask_decision(rnd, decision, box, view)
            try:
                self.session.apply(action)
            except IllegalAction as exc:  # refused: nothing changed, ask again
                show_error(self.ctx, exc)
                continue
            self.say_taken(decision, action, box)
            return action

    def ask_amount_for(self, rnd: Any, d: Decision, prompt: str, make: Callable[[int], Action]) -> Action:
        """An amount for a double or an insurance, its maximum the default, re-asked (only the amount)
        until the round's `verify` accepts it."""
        cap = d.max_amount or 0
        while True:
            action = make(ask_amount(self.ctx, prompt, default=cap, maximum=cap))
            try:
                rnd.verify(action)
            except IllegalAction as exc:
                show_error(self.ctx, exc)
                continue
            return action

    def ask_decision(self, rnd: Any, d: Decision, box: View, view: View) -> Action:
        """One question of the regulation, as the round's pending Decision says it."""
        tr, money = self.tr, self.money
        hand = box["hands"][d.hand]
        ctx = self.ctx
        state = ctx.text(
            "bj.hand_state",
            who=self.who(box, d.hand),
            cards=cards_markup(hand["cards"]),
            total=self.total_text(hand["cards"]),
            dealer=self.dealer_markup(view),
        )
        stake = hand["stake"]
        if d.kind == SURRENDER:
            yes = ask_yes_no(ctx, state + ctx.text("bj.surrender_prompt", half=money.show(stake // 2)))
            return Action(d.seat, SURRENDER if yes else DECLINE)
        if d.kind == INSURANCE:
            cap = d.max_amount or 0
            if not ask_yes_no(ctx, state + ctx.text("bj.insurance_prompt", max=money.show(cap))):
                return Action(d.seat, DECLINE)
            prompt = ctx.text("bj.insurance_amount")
            return self.ask_amount_for(
                rnd, d, prompt, lambda amount: Action(d.seat, INSURANCE, amount=amount)
            )
        if d.kind == EVEN_MONEY:
            yes = ask_yes_no(ctx, state + ctx.text("bj.even_money_prompt", win=money.show(stake)))
            return Action(d.seat, EVEN_MONEY if yes else DECLINE)
        if d.kind == RESPLIT:
            yes = ask_yes_no(ctx, state + ctx.text("bj.resplit_prompt", stake=money.show(d.max_amount or 0)))
            return Action(d.seat, "split", hand=d.hand) if yes else Action(d.seat, DECLINE)
        if d.kind != PLAY:  # a kind this face does not know (a subclass's game): offers are declined
            return Action(d.seat, DECLINE)
        choices = [
            Choice(name, tr(f"bj.action.{name}"), tr(f"bj.key.{name}"), ALIASES.get(name, ()))
            for name in d.legal
        ]
        name = ask_choice(ctx, state, choices)
        if name == "double":
            return self.ask_amount_for(
                rnd,
                d,
                ctx.text("bj.double_amount"),
                lambda amount: Action(d.seat, "double", hand=d.hand, amount=amount),
            )
        return Action(d.seat, name, hand=d.hand)

    def say_taken(self, d: Decision, action: Action, box: View) -> None:
        """Repeat an offer's answer aloud, as a dealer does."""
        who = self.seat_label(d.seat)
        if d.kind == PLAY:
            return
        if action.action == DECLINE:
            self.ctx.say("bj.declined", who=who)
        elif action.action == SURRENDER:
            self.ctx.say("bj.surrender_taken", who=who)
        elif action.action == INSURANCE:
            amount = action.amount if action.amount is not None else d.max_amount or 0
            self.ctx.say("bj.insurance_taken", who=who, amount=self.money.show(amount))
        elif action.action == EVEN_MONEY:
            self.ctx.say("bj.even_money_taken", who=who)

    # -- payouts ------------------------------------------------------------------------------------
    def payout_rows(self, rnd: Any) -> list[Any]:
        """Every settlement, naming the hand when a box split."""
        self._final = self.view(rnd)
        rows = super().payout_rows(rnd)
        boxes = {b["seat"]: b for b in self._final["seats"]}
        settles = [ev for ev in rnd.events if ev.get("type") == "settle"]
        for row, ev in zip(rows, settles, strict=True):
            box = boxes.get(ev["seat"])
            if box is not None and "hand" in ev and len(box["hands"]) > 1:
                what = self.tr("spot.split") if ev["spot"] == "main" and ev["hand"] > 0 else row.what
                row.what = self.tr("bj.what.hand", what=what, hand=ev["hand"] + 1)
        return rows

    def explain(self, rnd: Any, settle: dict[str, Any]) -> str:
        """Why a settlement paid what it paid, in the regulation's words."""
        return self._explain(self._final or self.view(rnd), settle)

    def _explain(self, view: View, ev: dict[str, Any]) -> str:
        why = self.reason(view, ev)
        if ev.get("fraction"):
            why = self.tr("why.fraction", why=why, fraction=ev["fraction"])
        return why

    def reason(self, view: View, ev: dict[str, Any]) -> str:
        """The reason of one settle event, from the table as the player sees it once settled."""
        tr = self.tr
        outcome, spot = ev.get("outcome"), ev.get("spot")
        dealer = view["dealer"]
        dealer_total = total_of(dealer)[0]
        dealer_bj = self.hole_turned(view) and is_natural_names(dealer[:2]) and len(dealer) == 2
        box = next((b for b in view["seats"] if b["seat"] == ev["seat"]), None)
        hand_index = ev.get("hand", 0)
        hands = box["hands"] if box else []
        cards = hands[hand_index]["cards"] if hand_index < len(hands) else []
        mine = total_of(cards)[0] if cards else 0
        natural = len(hands) == 1 and hand_index == 0 and is_natural_names(cards)
        if spot == "insurance":
            return tr("why.insurance_win" if outcome == "win" else "why.insurance_lose")
        if outcome == "surrender":
            return tr("why.surrender")
        if outcome == "win":
            if ev.get("ratio") == "3:2":
                return tr("why.blackjack")
            if natural:
                return tr("why.even_money")
            if dealer_total > 21:
                return tr("why.dealer_bust", dealer=dealer_total)
            return tr("why.beats", mine=mine, dealer=dealer_total)
        if outcome == "push":
            return (
                tr("why.bj_push") if natural and dealer_bj else tr("why.push", mine=mine, dealer=dealer_total)
            )
        if outcome == "returned":
            return tr("why.dealer_bj_double" if spot == "double" else "why.dealer_bj_split")
        if outcome == "lose":
            if mine > 21:
                return tr("why.bust", mine=mine)
            if dealer_bj:
                return tr("why.dealer_bj_original")
            return tr("why.lose", mine=mine, dealer=dealer_total)
        return tr("outcome." + str(outcome))


def play(ctx: PlayContext) -> None:
    """Run a Black Jack table on `ctx` until the person quits or the rounds are played."""
    BlackjackFace(ctx).run()
