"""The Showdown Póker terminal table (rules.md §3): bets, the deal and the offers in the regulation's order.

Every seat posts its bet (*apuesta*) and the fixed pot bet, and may add a bonus (Art.8). The round then
says what it waits for (``pending``): the exchange to every seat in seat order (Art.9.2), increment Nº1
to every seat, the first community card shown (Art.9.3), increment Nº2 to those who made Nº1 (Art.9.4),
the second community card shown (Art.9.5). All cards are dealt face down: a seat's own three cards are
shown only when that seat is asked (the terminal is passed from player to player), the community cards
only once the dealer turns them, other seats' cards only at the showdown. The house's rules for the pot
and the bonus (rules.md [A]) are shown when the table opens, and every payout is said with its reason,
the Art.13 payout-limit factor and the player's uncapped amount included.
"""

from __future__ import annotations

from typing import Any

from rich.markup import escape

from tapete.cards import parse_card, read_card
from tapete.errors import BadCards, TapeteError
from tapete.games.base import DECLINE, Action, Decision
from tapete.games.showdown import (
    EXCHANGE,
    INCREMENT_1,
    INCREMENT_2,
    bonus_limits,
    hand_strength,
)
from tapete.i18n import house_rules_lines
from tapete.play.common import (
    PayoutRow,
    PlayContext,
    TableFace,
    ask,
    ask_yes_no,
    cards_markup,
    show_error,
)
from tapete.poker import Category, category, significant_ranks
from tapete.table import RawBet

View = dict[str, Any]

#: Words that mean "no exchange" in either language.
NO_EXCHANGE = frozenset({"", "0", "n", "no", "ninguna", "none"})


class ShowdownFace(TableFace):
    """A Showdown Póker table in the terminal."""

    MAIN_SPOT = "bet"

    def __init__(self, ctx: PlayContext) -> None:
        super().__init__(ctx)
        self.last_bonus: dict[int, int] = {}  # seat -> last bonus answer (0 = none)

    # -- words --------------------------------------------------------------------------------------
    def hand_words(self, cards: list[str]) -> str:
        """A five-card hand said as people say it (``par de reinas``, ``full de sietes y nueves``)."""
        strength = hand_strength([parse_card(c) for c in cards])
        cat = category(strength)
        r = significant_ranks(strength)
        tr = self.tr

        def one(x: int) -> str:
            return tr(f"sd.rank.{x}")

        def many(x: int) -> str:
            return tr(f"sd.ranks.{x}")

        if cat in (Category.PAIR, Category.THREE_OF_A_KIND, Category.FOUR_OF_A_KIND, Category.FIVE_OF_A_KIND):
            return tr(f"sd.hand.{cat.key}", p1=many(r[0]))
        if cat in (Category.TWO_PAIR, Category.FULL_HOUSE):
            return tr(f"sd.hand.{cat.key}", p1=many(r[0]), p2=many(r[1]))
        return tr(f"sd.hand.{cat.key}", r1=one(r[0]))

    def ratio_words(self, ratio: str) -> str:
        """``7:1`` -> ``7 a 1``."""
        return self.tr("sd.ratio", n=ratio.split(":")[0])

    def seat_view(self, rnd: Any, seat: int) -> View:
        """The round as the player at `seat` sees it (his own cards, the community cards turned)."""
        player = next(s.player for s in rnd.seats if s.seat == seat)
        view: View = rnd.view(f"player:{player}")
        return view

    def public_view(self, rnd: Any) -> View:
        """The round as the dealer sees it: no face-down card at all before the showdown."""
        view: View = rnd.view("dealer")
        return view

    # -- the layout ---------------------------------------------------------------------------------
    def banner(self) -> None:
        """The table's name and limits, then the house's rules: paytable, payout limit, pot and bonus."""
        super().banner()
        title, *lines = house_rules_lines(self.rules, self.tr.lang, currency=self.money.currency)
        self.ctx.console.print(f"[bold]{escape(title)}[/bold]")
        for line in lines:
            self.ctx.console.print(escape(line))

    # -- bets ---------------------------------------------------------------------------------------
    def with_pot(self, bets: list[RawBet]) -> list[RawBet]:
        """The bets plus the fixed pot bet of every seat that bets (Art.8: both are compulsory)."""
        have = {(b.seat, b.spot) for b in bets}
        out = list(bets)
        for b in bets:
            if b.spot == "bet" and (b.seat, "pot") not in have:
                out.append(RawBet(b.seat, b.player, "pot", self.rules.pot_amount))
                have.add((b.seat, "pot"))
        return out

    def check_bets(self, bets: Any) -> TapeteError | None:
        """The table's verdict, the compulsory pot bet included."""
        return super().check_bets(self.with_pot(list(bets)))

    def seat_bets(self, seat: int) -> list[RawBet]:
        """The bet as at every table, the pot bet posted with it, then the optional bonus."""
        bets = super().seat_bets(seat)
        if not bets:
            return bets
        bets = self.with_pot(bets)
        self.ctx.say(
            "sd.pot_posted", seat=self.seat_label(seat), amount=self.money.show(self.rules.pot_amount)
        )
        bonus = self.ask_bonus(seat, bets)
        if bonus:
            bets.append(RawBet(seat, self.player(seat), "bonus", bonus))
        return bets

    def ask_bonus(self, seat: int, bets: list[RawBet]) -> int:
        """The optional bonus of `seat` (0 = none), re-asked until the table accepts it."""
        lo, hi = bonus_limits(self.rules)

        def prompt(last: int) -> str:
            return self.ctx.text(
                "sd.bonus_prompt" if last else "sd.bonus_prompt_none",
                seat=self.seat_label(seat),
                min=self.money.show(lo),
                max=self.money.show(hi),
                default=self.money.show(last),
            )

        return self.ask_optional_bet(seat, "bonus", bets, self.last_bonus, seat, prompt)

    # -- the round ----------------------------------------------------------------------------------
    def play_round(self, rnd: Any) -> None:
        """The deal of Art.9.1 (face down), every offer in the round's order, the community cards as the
        dealer turns them, then the showdown."""
        ctx = self.ctx
        ctx.say("sd.deal")
        shown = 0
        while rnd.pending is not None:
            d = rnd.pending
            self.decide(rnd, d)
            shown = self.say_community(rnd, shown)
        self.say_community(rnd, shown)
        self.showdown(rnd)

    def finish_silently(self, rnd: Any) -> None:
        """Decline every offer left, then show the showdown as usual."""
        super().finish_silently(rnd)
        self.showdown(rnd)

    def say_community(self, rnd: Any, shown: int) -> int:
        """Say the community cards the dealer turned since `shown` (Art.9.3, 9.5)."""
        community = self.public_view(rnd)["community"]
        turned = [c for c in community if c != "??"]
        for i in range(shown, len(turned)):
            which = self.tr("sd.first" if i == 0 else "sd.second")
            self.ctx.say("sd.community_shown", which=which, card=cards_markup([turned[i]]))
        return len(turned)

    def decide(self, rnd: Any, d: Decision) -> None:
        """Ask the seat being asked until the round accepts the answer, then say it aloud."""
        while True:
            action = self.ask_decision(rnd, d)
            try:
                self.session.apply(action)
            except TapeteError as exc:  # refused: nothing changed, ask again
                show_error(self.ctx, exc)
                continue
            self.say_taken(rnd, d, action)
            return

    def ask_decision(self, rnd: Any, d: Decision) -> Action:
        """One offer of the regulation, with the seat's own cards and the community cards shown."""
        ctx, money = self.ctx, self.money
        view = self.seat_view(rnd, d.seat)
        mine = next(s for s in view["seats"] if s["seat"] == d.seat)
        state = ctx.text(
            "sd.state",
            seat=self.seat_label(d.seat),
            cards=cards_markup(mine["cards"]),
            community=cards_markup(view["community"]),
        )
        if d.kind == EXCHANGE:
            return self.ask_exchange(ctx, d, state, mine["cards"])
        if d.kind in (INCREMENT_1, INCREMENT_2):
            key = "sd.increment_1_prompt" if d.kind == INCREMENT_1 else "sd.increment_2_prompt"
            yes = ask_yes_no(ctx, state + ctx.text(key, amount=money.show(d.max_amount or 0)))
            return Action(d.seat, d.kind if yes else DECLINE)
        return Action(d.seat, DECLINE)

    def ask_exchange(self, ctx: PlayContext, d: Decision, state: str, cards: list[str]) -> Action:
        """Which of his cards the player gives up: card names (``2c 7d``) or positions (``1 3``)."""
        while True:
            answer = ask(ctx, state + ctx.text("sd.exchange_prompt", max=d.max_cards))
            words = answer.replace(",", " ").split()
            if answer.casefold() in NO_EXCHANGE:
                return Action(d.seat, DECLINE)
            given: list[int] = []
            try:
                for w in words:
                    if w.isdigit() and 1 <= int(w) <= len(cards):
                        given.append(parse_card(cards[int(w) - 1]))
                    else:
                        given.append(read_card(w))
            except BadCards:
                ctx.say("sd.exchange_invalid", text=answer)
                continue
            return Action(d.seat, EXCHANGE, cards=tuple(given))

    def say_taken(self, rnd: Any, d: Decision, action: Action) -> None:
        """Repeat the answer aloud, as the dealer does; the seat's new cards to that seat only."""
        ctx = self.ctx
        seat = self.seat_label(d.seat)
        if d.kind == EXCHANGE:
            if action.action == DECLINE or not action.cards:
                ctx.say("sd.exchange_none", seat=seat)
                return
            ctx.say("sd.exchange_done", seat=seat, count=len(action.cards))
            mine = next(s for s in self.seat_view(rnd, d.seat)["seats"] if s["seat"] == d.seat)
            ctx.say("sd.new_cards", seat=seat, cards=cards_markup(mine["cards"]))
            return
        n = 1 if d.kind == INCREMENT_1 else 2
        if action.action == DECLINE:
            ctx.say("sd.increment_declined", seat=seat, n=n)
        else:
            ctx.say("sd.increment_taken", seat=seat, n=n, amount=self.money.show(d.max_amount or 0))

    def showdown(self, rnd: Any) -> None:
        """Art.9.6: every final hand, from one end of the table to the other; the payout limit and the pot."""
        ctx, money = self.ctx, self.money
        view = self.public_view(rnd)
        ctx.say("sd.showdown_title", community=cards_markup(view["community"]))
        for s in view["seats"]:
            final = s["final_hand"]["cards"]
            ctx.say(
                "sd.showdown",
                seat=self.seat_label(s["seat"]),
                cards=cards_markup(s["cards"]),
                hand=self.hand_words(final),
                outcome=self.tr(f"sd.outcome.{s['outcome']}"),
            )
        limit = view.get("payout_limit")
        if limit:
            ctx.say(
                "sd.limit_applied",
                limit=money.show(limit["limit"]),
                suma=money.show(limit["suma"]),
                factor=limit["factor"],
            )
        pot = view["pot"]
        if pot.get("returned"):
            ctx.say("sd.pot_returned")
            return
        seats = {s["seat"]: s for s in view["seats"]}
        winners = [self.seat_label(w) for w in pot["winners"]]
        best = self.hand_words(seats[pot["winners"][0]]["final_hand"]["cards"])
        ctx.say(
            "sd.pot_won" if len(winners) == 1 else "sd.pot_split",
            total=money.show(pot["total"]),
            who=", ".join(winners),
            hand=best,
            commission=money.show(pot["commission"]),
            paid=money.show(pot["distributable"]),
        )

    # -- payouts ------------------------------------------------------------------------------------
    def payout_rows(self, rnd: Any) -> list[PayoutRow]:
        """Every settlement with its reason; the bet's line names the increments it carries."""
        view = self.public_view(rnd)
        seats = {s["seat"]: s for s in view["seats"]}
        rows = []
        for ev in rnd.events:
            if ev.get("type") != "settle":
                continue
            spot = ev["spot"]
            what = self.tr(f"sd.what.{spot}")
            if spot == "bet" and len(ev.get("stakes", {})) > 1:
                what = self.tr("sd.what.bet_increments", n=len(ev["stakes"]) - 1)
            rows.append(
                PayoutRow(
                    ev["seat"], ev["player"], what, ev["stake"], ev["paid"], self.reason(view, seats, ev)
                )
            )
        return rows

    def reason(self, view: View, seats: dict[int, View], ev: dict[str, Any]) -> str:
        """Why one settlement paid what it paid, in the regulation's words."""
        tr, money = self.tr, self.money
        seat = seats[ev["seat"]]
        hand = self.hand_words(seat["final_hand"]["cards"])
        spot, outcome = ev["spot"], ev["outcome"]
        if spot == "bet":
            if outcome == "win":
                why = tr("why.sd.win", hand=hand, ratio=self.ratio_words(ev["ratio"]))
                capped = seat.get("payout_limit")
                if capped:
                    why = tr(
                        "why.sd.capped",
                        why=why,
                        factor=capped["factor"],
                        uncapped=money.show(capped["uncapped"]),
                        paid=money.show(capped["paid"]),
                    )
                    if capped["fraction"] != "0":
                        why = tr("why.fraction", why=why, fraction=capped["fraction"])
                return why
            return tr("why.sd.push" if outcome == "push" else "why.sd.lose", hand=hand)
        if spot == "pot":
            pot = view["pot"]
            if outcome == "returned":
                return tr("why.sd.pot_returned")
            if outcome == "win":
                why = tr(
                    "why.sd.pot_win" if len(pot["winners"]) == 1 else "why.sd.pot_split",
                    hand=hand,
                    total=money.show(pot["total"]),
                    pct=pot["commission_percent"],
                    n=len(pot["winners"]),
                )
                if pot.get("remainder") and pot["winners"][0] == ev["seat"]:
                    why = tr("why.sd.pot_remainder", why=why, remainder=money.show(pot["remainder"]))
                return why
            best = self.hand_words(seats[pot["winners"][0]]["final_hand"]["cards"])
            return tr("why.sd.pot_lose", best=best)
        if outcome == "win":
            return tr("why.sd.bonus_win", hand=hand, ratio=self.ratio_words(ev["ratio"]))
        return tr("why.sd.bonus_lose", hand=hand)


def play(ctx: PlayContext) -> None:
    """Run a Showdown Póker table on `ctx` until the person quits or the rounds are played."""
    ShowdownFace(ctx).run()
