"""The Majestic 21 terminal table (rules.md §4): the Black Jack table of `tapete.play.blackjack` plus the
side-bet prompts, the layout's phrases, the insurance against an Ace under a ten, and the reasons of
their payouts. Everything else (deal, offers in order, play, dealer, payouts) is the Black Jack face's.
"""

from __future__ import annotations

from typing import Any

from rich.markup import escape

from tapete.cards import parse_card
from tapete.games.base import DECLINE, Action, Decision
from tapete.games.blackjack import INSURANCE
from tapete.games.majestic21 import SIDE_BETS, side_total
from tapete.i18n import layout_lines
from tapete.play.blackjack import BlackjackFace, View
from tapete.play.common import (
    PlayContext,
    TableFace,
    ask_yes_no,
    card_markup,
    cards_markup,
)
from tapete.table import RawBet

#: How each side bet pays, for its prompt (message ids in locale/majestic_21.*.json).
PAYS = {spot: f"m21.pays.{spot}" for spot in SIDE_BETS}


def is_side_settle(ev: dict[str, Any]) -> bool:
    """Whether `ev` settles a side bet."""
    return ev.get("type") == "settle" and ev.get("spot") in SIDE_BETS


class Majestic21Face(BlackjackFace):
    """A Majestic 21 table in the terminal."""

    def __init__(self, ctx: PlayContext) -> None:
        super().__init__(ctx)
        self.last_side: dict[tuple[int, str], int] = {}  # (seat, spot) -> last side-bet answer
        self.first_two: dict[int, list[str]] = {}  # seat -> the box's first two cards (side bets)

    @property
    def side_limits(self) -> tuple[int, int]:
        """(min, max) of a side bet: the operator's own, else the table's."""
        lo, hi = getattr(self.rules, "side_limits", (self.rules.table_min, self.rules.table_max))
        return int(lo), int(hi)

    # -- the layout ---------------------------------------------------------------------------------
    def banner(self) -> None:
        """The table's name and limits, Art.2a.2's layout phrases, and the side bets' paytable."""
        TableFace.banner(self)
        for line in layout_lines(self.session.game, self.tr.lang):
            self.ctx.console.print(f"[bold]{escape(line)}[/bold]")
        lo, hi = self.side_limits
        self.ctx.say("m21.side_rules", min=self.money.show(lo), max=self.money.show(hi))

    # -- bets ---------------------------------------------------------------------------------------
    def seat_bets(self, seat: int) -> list[RawBet]:
        """The main bet as at Black Jack, then each side bet in the layout's order (Enter = the last
        answer, 0 = none), each re-asked until the table accepts it with the bets before it."""
        bets = super().seat_bets(seat)
        if not bets:
            return bets
        for spot in SIDE_BETS:
            amount = self.ask_side_bet(seat, spot, bets)
            if amount:
                bets.append(RawBet(seat, self.player(seat), spot, amount))
        return bets

    def ask_side_bet(self, seat: int, spot: str, bets: list[RawBet]) -> int:
        """One side bet of `seat` (0 = none); refused amounts are said and asked again."""
        lo, hi = self.side_limits

        def prompt(last: int) -> str:
            return self.ctx.text(
                "m21.side_prompt" if last else "m21.side_prompt_none",
                seat=self.seat_label(seat),
                spot=self.tr(f"spot.{spot}"),
                pays=self.tr(PAYS[spot]),
                min=self.money.show(lo),
                max=self.money.show(hi),
                default=self.money.show(last),
            )

        return self.ask_optional_bet(seat, spot, bets, self.last_side, (seat, spot), prompt)

    # -- the round ----------------------------------------------------------------------------------
    def play_round(self, rnd: Any) -> None:
        """Keep each box's first two cards (the side bets' hand, public once dealt), then play as at
        Black Jack: the side bets' settlements are said with the deal's notes."""
        view = self.view(rnd)
        self.first_two = {b["seat"]: list(b["hands"][0]["cards"][:2]) for b in view["seats"]}
        super().play_round(rnd)

    def notes(self, rnd: Any, start: int) -> None:
        """Say every side bet settled at the deal, won or lost (Art.1a: they are over before anyone plays),
        then Black Jack's notes for whatever followed."""
        events = rnd.events
        side = [i for i in range(start, len(events)) if is_side_settle(events[i])]
        if not side:
            super().notes(rnd, start)
            return
        view = self.view(rnd)
        for i in side:
            ev = events[i]
            why = self._explain(view, ev)
            self.ctx.say(
                "bj.note", who=self.seat_label(ev["seat"]), why=why, paid=self.money.show(ev["paid"])
            )
        super().notes(rnd, side[-1] + 1)

    def ask_decision(self, rnd: Any, d: Decision, box: View, view: View) -> Action:
        """Black Jack's questions; with a 10, J, Q or K up the insurance is against an Ace (10 to 1)."""
        if d.kind != INSURANCE or rnd.insurance_kind() != "ten":
            return super().ask_decision(rnd, d, box, view)
        ctx = self.ctx
        hand = box["hands"][d.hand]
        state = ctx.text(
            "bj.hand_state",
            who=self.who(box, d.hand),
            cards=cards_markup(hand["cards"]),
            total=self.total_text(hand["cards"]),
            dealer=self.dealer_markup(view),
        )
        cap = d.max_amount or 0
        prompt = ctx.text(
            "m21.insurance_ten_prompt", card=card_markup(view["dealer"][0]), max=self.money.show(cap)
        )
        if not ask_yes_no(ctx, state + prompt):
            return Action(d.seat, DECLINE)
        return self.ask_amount_for(
            rnd, d, ctx.text("bj.insurance_amount"), lambda amount: Action(d.seat, INSURANCE, amount=amount)
        )

    # -- reasons ------------------------------------------------------------------------------------
    def reason(self, view: View, ev: dict[str, Any]) -> str:
        """Side bets by the first two cards (Aces as 1); the 10:1 insurance by the Ace in the hole; the
        rest as at Black Jack."""
        tr, spot, outcome = self.tr, ev.get("spot"), ev.get("outcome")
        if spot in SIDE_BETS:
            total = side_total([parse_card(c) for c in self.first_two[ev["seat"]]])
            what = tr(f"spot.{spot}")
            if outcome != "win":
                return tr("why.m21.side_lose", total=total, spot=what)
            if ev.get("ratio") == "3:2":
                return tr("why.m21.side_two_aces")
            return tr("why.m21.side_win", total=total, spot=what, ratio=tr(f"m21.ratio.{spot}"))
        if spot == "insurance" and view["dealer"][0][0] in "TJQK":  # the insurance against an Ace
            return tr("why.m21.insurance_ten_win" if outcome == "win" else "why.m21.insurance_ten_lose")
        return super().reason(view, ev)


def play(ctx: PlayContext) -> None:
    """Run a Majestic 21 table on `ctx` until the person quits or the rounds are played."""
    Majestic21Face(ctx).run()
