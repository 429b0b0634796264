"""The Punto y Banca terminal table (rules.md §2): bets zone by zone, then the round as the dealer calls it.

Each terminal seat is a betting zone (Art.7: one player per zone, one zone per player). A zone bets Punto
or Banca, each with Empate if it likes, or Empate alone; never Punto and Banca (Art.8). Nobody decides
anything once the bets are closed, so the face only narrates: who holds the shoe (Art.9), the four cards
in Art.10's order, each side's Art.11 step with its reason ("Banca 5 pide: la tercera carta del Punto fue
un 6"), the winner, and every payout with its reason, the Banca commission and any rounding included.
All Punto y Banca cards are dealt face up, so everything shown is public.
"""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.table import Table

from tapete.games.punto_y_banca import BANCA, EMPATE, PUNTO, next_shoe_holder, shoe_passes
from tapete.i18n import layout_phrases
from tapete.play.common import (
    QUIT_WORDS,
    PlayContext,
    Quit,
    TableFace,
    ask,
    ask_money,
    card_markup,
    cards_markup,
    show_error,
)
from tapete.table import RawBet

View = dict[str, Any]

#: Words accepted for each side whatever the language (the regulation's names, English, one letter).
SIDE_WORDS: dict[str, tuple[str, ...]] = {
    PUNTO: ("p", "punto", "player"),
    BANCA: ("b", "banca", "banker", "banco"),
    EMPATE: ("e", "empate", "tie", "t"),
}


class PuntoYBancaFace(TableFace):
    """A Punto y Banca table in the terminal."""

    MAIN_SPOT = PUNTO

    def __init__(self, ctx: PlayContext) -> None:
        super().__init__(ctx)
        self.last_side: dict[int, str] = {}  # zone -> punto / banca / empate (Empate alone) / "" (sat out)
        self.last_amount: dict[tuple[int, str], int] = {}  # (zone, spot) -> last amount
        self.shoe_zone: int | None = None  # the zone that held the shoe last round
        self.last_winner: str | None = None
        self.zones_in_play: list[int] = []

    # -- names --------------------------------------------------------------------------------------
    def seat_label(self, seat: int) -> str:
        """``Zona 2 (P2)``: the regulation's betting zone (zona de apuesta)."""
        return self.tr("pyb.zone", zone=seat, player=self.player(seat))

    def who(self, seat: int, player: str) -> str:
        """A zone's label when `player` is the terminal's player there, else the player's name."""
        return self.seat_label(seat) if player == self.player_at(seat) else player

    def side_name(self, side: str) -> str:
        """``Punto`` / ``Banca`` (the regulation's words in both languages)."""
        return self.tr(f"pyb.side.{side}")

    # -- the layout ---------------------------------------------------------------------------------
    def banner(self) -> None:
        """The table's name and limits, the layout's phrase, and how bets combine (Art.7-8)."""
        super().banner()
        self.ctx.console.print(f"[bold]{escape(layout_phrases(self.session.game, self.tr.lang))}[/bold]")
        self.ctx.say("pyb.rules", pct=self.rules.commission_percent, tie=self.rules.tie_pays)

    # -- bets ---------------------------------------------------------------------------------------
    def collect_bets(self) -> list[RawBet]:
        """Every zone's bets; remembers which zones play (the shoe goes to one of them, Art.9)."""
        bets = super().collect_bets()
        self.zones_in_play = sorted({b.seat for b in bets if isinstance(b.seat, int)})
        return bets

    def round_options(self) -> dict[str, Any]:
        """The zone that holds the shoe this round: it stays unless Banca lost (or passes every round, as
        the settings say), moving to the next zone in play in zone order (Art.9)."""
        holder = next_shoe_holder(
            self.shoe_zone, self.last_winner, self.zones_in_play, passes=self.rules.shoe_passes
        )
        return {"shoe_holder": holder} if holder is not None else {}

    def seat_bets(self, seat: int) -> list[RawBet]:
        """One zone's bets: Punto, Banca or Empate alone (Enter = the last answer, 0 = sits out, q =
        quit), its amount, then Empate beside Punto or Banca; each re-asked until the table accepts it."""
        side = self.ask_side(seat)
        player = self.player(seat)
        if not side:
            self.last_side[seat] = ""
            self.ctx.say("bet.sit_out", seat=self.seat_label(seat))
            return []
        bets: list[RawBet] = []
        amount = self.ask_spot_amount(seat, side, bets, required=True)
        bets.append(RawBet(seat, player, side, amount))
        if side != EMPATE:
            tie = self.ask_spot_amount(seat, EMPATE, bets, required=False)
            if tie:
                bets.append(RawBet(seat, player, EMPATE, tie))
        self.last_side[seat] = side
        return bets

    def ask_side(self, seat: int) -> str:
        """Which side the zone bets on: punto, banca, empate (Empate alone) or "" (sits out)."""
        ctx = self.ctx
        last = self.last_side.get(seat, PUNTO)
        default = self.tr(f"pyb.choice.{last}") if last else self.tr("bet.default_sit_out")
        while True:
            answer = ask(ctx, ctx.text("pyb.side_prompt", zone=self.seat_label(seat), default=default))
            word = answer.casefold()
            if word in QUIT_WORDS:
                raise Quit
            if not word:
                return last
            if word == "0":
                return ""
            for side, words in SIDE_WORDS.items():
                if word in words:
                    return side
            ctx.say("pyb.side_invalid")

    def ask_spot_amount(self, seat: int, spot: str, bets: list[RawBet], *, required: bool) -> int:
        """The amount on `spot` (Enter = the last one; for an Empate beside a side, 0 = none), re-asked
        until the table accepts it together with `bets`."""
        ctx, money, rules = self.ctx, self.money, self.rules
        while True:
            last = self.last_amount.get((seat, spot), rules.table_min if required else 0)
            params = {
                "zone": self.seat_label(seat),
                "spot": self.side_name(spot),
                "min": money.show(rules.table_min),
                "max": money.show(rules.table_max),
                "tie": rules.tie_pays,
                "default": money.show(last) if last else self.tr("pyb.no_tie"),
            }
            prompt = ctx.text("pyb.amount_prompt" if required else "pyb.tie_prompt", **params)
            amount = ask_money(ctx, money, prompt, last)
            if amount is None:
                continue
            if amount == 0:
                if required:
                    ctx.say("amount.positive")
                    continue
                self.last_amount[(seat, spot)] = 0
                return 0
            refusal = self.check_bets([*bets, RawBet(seat, self.player(seat), spot, amount)])
            if refusal is not None:
                show_error(ctx, refusal)
                continue
            self.last_amount[(seat, spot)] = amount
            return amount

    # -- the round ----------------------------------------------------------------------------------
    def view(self, rnd: Any) -> View:
        """The round as a player at the table sees it (every card is dealt face up; never the shoe)."""
        zones = rnd.zones
        viewer = zones[0].holder if zones else self.player(1)
        view: View = rnd.view(f"player:{viewer}")
        return view

    def play_round(self, rnd: Any) -> None:
        """Narrate the round (it plays itself): the shoe's holder, the deal, each side's Art.11 step with
        its reason, the table, the winner."""
        ctx = self.ctx
        view = self.view(rnd)
        holder = view["shoe_holder"]
        self.shoe_zone = holder["seat"]
        ctx.say("pyb.shoe_holder", zone=self.who(holder["seat"], holder["player"]))
        punto, banca = view["punto"]["cards"], view["banca"]["cards"]
        ctx.say(
            "pyb.deal",
            p1=card_markup(punto[0]),
            b1=card_markup(banca[0]),
            p2=card_markup(punto[1]),
            b2=card_markup(banca[1]),
        )
        self.narrate_steps(view)
        self.show_table(view)
        winner = view["winner"]
        self.last_winner = winner
        p, b = view["punto"]["total"], view["banca"]["total"]
        if winner == EMPATE:
            ctx.say("pyb.result.empate", total=p)
        else:
            won, lost = (p, b) if winner == PUNTO else (b, p)
            ctx.say("pyb.result.win", side=self.side_name(winner), won=won, lost=lost)

    def narrate_steps(self, view: View) -> None:
        """Art.11 as the dealer calls it: a natural stops the coup; else Punto's step, then Banca's, each
        with its reason and the card drawn."""
        ctx = self.ctx
        steps = view["steps"]
        if steps and steps[0]["rule"] == "natural":
            p, b = steps[0]["total"], steps[1]["total"]
            key = (
                "pyb.natural.both"
                if p >= 8 and b >= 8
                else "pyb.natural.punto"
                if p >= 8
                else "pyb.natural.banca"
            )
            ctx.say(key, punto=p, banca=b)
            return
        for step in steps:
            side = step["side"]
            ctx.say(
                f"pyb.{step['type']}.{step['rule']}",
                side=self.side_name(side),
                total=step["total"],
                x=step.get("punto_third", ""),
            )
            if step["type"] == "draw":
                cards = view[side]["cards"]
                ctx.say(
                    "pyb.receives",
                    side=self.side_name(side),
                    card=card_markup(cards[2]),
                    total=view[side]["total"],
                )

    def show_table(self, view: View) -> None:
        """Punto's and Banca's cards and totals."""
        tr = self.tr
        table = Table(show_header=True, header_style="bold")
        table.add_column("")
        table.add_column(tr("col.cards"))
        table.add_column(tr("col.total"), justify="right")
        for side in (PUNTO, BANCA):
            table.add_row(
                f"[bold]{escape(self.side_name(side))}[/bold]",
                cards_markup(view[side]["cards"]),
                str(view[side]["total"]),
            )
        self.ctx.console.print(table)

    def end_round(self, rnd: Any) -> None:
        """Payouts and balances as at every table, then where the shoe goes (Art.9)."""
        super().end_round(rnd)
        winner = self.last_winner or ""
        passes = self.rules.shoe_passes
        if shoe_passes(winner, passes):
            self.ctx.say(
                "pyb.shoe_passes.every_round" if passes == "every_round" else "pyb.shoe_passes.banca_lost"
            )
        else:
            zone = self.shoe_zone or 0
            self.ctx.say("pyb.shoe_stays", zone=self.seat_label(zone) if self.player_at(zone) else zone)

    # -- payouts ------------------------------------------------------------------------------------
    def explain(self, rnd: Any, settle: dict[str, Any]) -> str:
        """Why a settlement paid what it paid: the totals, the ratio, the Banca commission, the rounding."""
        tr, rules = self.tr, self.rules
        view = self.view(rnd)
        p, b, winner = view["punto"]["total"], view["banca"]["total"], view["winner"]
        spot, outcome = settle["spot"], settle["outcome"]
        if outcome == "push":
            why = tr("pyb.why.push", total=p)
        elif outcome == "win" and spot == EMPATE:
            why = tr("pyb.why.empate_win", total=p, tie=rules.tie_pays)
        elif outcome == "win" and spot == BANCA:
            why = tr(
                "pyb.why.banca_win",
                banca=b,
                punto=p,
                pct=rules.commission_percent,
                commission=self.money.show(settle.get("commission", 0)),
            )
        elif outcome == "win":
            why = tr("pyb.why.punto_win", punto=p, banca=b)
        elif winner == EMPATE:
            why = tr("pyb.why.lose_tie", total=p)
        else:
            won, lost = (p, b) if winner == PUNTO else (b, p)
            why = tr("pyb.why.lose", side=self.side_name(winner), won=won, lost=lost)
        if settle.get("fraction"):
            why = tr("why.fraction", why=why, fraction=settle["fraction"])
        return why


def play(ctx: PlayContext) -> None:
    """Run a Punto y Banca table on `ctx` until the person quits or the rounds are played."""
    PuntoYBancaFace(ctx).run()
