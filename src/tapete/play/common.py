"""What every terminal table shares: the context (console, translator, money, session, input), prompts
that re-ask until the answer is valid, money input, the seat/bet loop, the shoe's announcements,
running balances and the payout table.

A game's face (``tapete.play.<game>``) subclasses `TableFace` and writes `play_round` (and, for games
with several spots, `seat_bets`); see docs/play.md. Everything shown during play comes from the round's
``view("player:NAME")`` or from events that are public when they happen (stakes, settlements, the
shoe's procedures, never a face-down card): the terminal never prints what a player may not see.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from tapete.errors import BadBet, TapeteError
from tapete.games.base import Round
from tapete.i18n import Money, Translator
from tapete.session import TableSession
from tapete.table import RawBet, place_bets

#: The input function: given the prompt (Rich markup), return the person's answer. It raises EOFError
#: (or KeyboardInterrupt) when the person is gone; the table then stops at the next safe point.
InputFn = Callable[[str], str]

QUIT_WORDS = frozenset({"q", "quit", "salir", "exit"})
YES_WORDS = frozenset({"s", "si", "sí", "y", "yes"})
NO_WORDS = frozenset({"n", "no"})
SUITS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
RED_SUITS = frozenset("hd")


class Quit(Exception):
    """The person asked to leave (``q``) or the input ended."""


@dataclass
class PlayContext:
    """What a terminal table runs with; every part can be replaced in tests."""

    console: Console
    tr: Translator
    money: Money
    session: TableSession
    input: InputFn
    seats: int = 1
    rounds: int = 0  # stop after this many rounds dealt (0 = until the person quits)
    players: list[str] = field(default_factory=list)  # player name of seat 1..seats

    def __post_init__(self) -> None:
        if not self.players:
            self.players = [f"P{i}" for i in range(1, self.seats + 1)]

    def text(self, key: str, /, **params: Any) -> Markup:
        """One translated message as Rich markup: the catalog's text and the params are shown as written
        (brackets escaped), except params that are already `Markup` (cards)."""
        return markup(self.tr, key, **params)

    def say(self, key: str, /, **params: Any) -> None:
        """Print one translated message (see `text`)."""
        self.console.print(self.text(key, **params))


class Markup(str):
    """A string already in Rich markup (cards) that must not be escaped."""


def markup(tr: Translator, key: str, /, **params: Any) -> Markup:
    """``tr(key, **params)`` as Rich markup: literal text escaped, `Markup` params kept as they are."""
    template = tr.messages.get(key, key)
    safe = {k: v if isinstance(v, Markup) else escape(str(v)) for k, v in params.items()}
    try:
        return Markup(escape(template).format(**safe))
    except (KeyError, IndexError, ValueError):
        return Markup(escape(template))


# ---------------------------------------------------------------------------------------------- input
class Script:
    """A scripted person for tests and demos: answers in order, each echoed after its prompt on the
    console (so a captured transcript reads like a terminal); EOFError when the answers run out."""

    def __init__(self, console: Console, answers: Iterable[str]) -> None:
        self.console = console
        self.answers = list(answers)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(Text.from_markup(prompt).plain)
        self.console.print(prompt, end="")
        if not self.answers:
            raise EOFError
        answer = self.answers.pop(0)
        self.console.print(escape(answer), markup=True)
        return answer


def terminal_input(console: Console) -> InputFn:
    """The live input function: Rich's prompt on the terminal, the answer read from stdin."""

    def read(prompt: str) -> str:
        return console.input(prompt)

    return read


def ask(ctx: PlayContext, prompt: str) -> str:
    """One answer, stripped; Quit when the input ends or is interrupted."""
    try:
        return ctx.input(prompt).strip()
    except (EOFError, KeyboardInterrupt):
        ctx.console.print()  # the cursor is still on the prompt's line
        raise Quit from None


def ask_money(ctx: PlayContext, money: Any, prompt: str, default: int) -> int | None:
    """An amount typed by a person: Enter = `default`, a quit word = Quit, and None (after saying why)
    when the answer is not an amount, so the caller asks again."""
    answer = ask(ctx, prompt)
    if answer.casefold() in QUIT_WORDS:
        raise Quit
    if not answer:
        return default
    try:
        amount: int = money.parse(answer)
    except TapeteError as exc:
        show_error(ctx, exc)
        return None
    return amount


def ask_yes_no(ctx: PlayContext, prompt: str, *, default: bool = False) -> bool:
    """A yes/no question (s/n in Spanish, y/n in English, both accepted); Enter takes `default`."""
    tr = ctx.tr
    shown = tr("answer.yes") if default else tr("answer.no")
    while True:
        answer = ask(ctx, prompt + ctx.text("answer.yes_no", default=shown) + " ").casefold()
        if not answer:
            return default
        if answer in YES_WORDS:
            return True
        if answer in NO_WORDS:
            return False
        ctx.say("answer.invalid_yes_no")


@dataclass(frozen=True)
class Choice:
    """One option of a question: the machine name (`value`), the words shown and the key to type.
    `aliases` are more words accepted (e.g. the other language's name)."""

    value: str
    label: str
    key: str
    aliases: tuple[str, ...] = ()


def choice_menu(choices: Sequence[Choice]) -> str:
    """``[c] pedir carta · [p] plantarse`` (markup)."""
    return " · ".join(f"[bold]\\[{escape(c.key)}][/bold] {escape(c.label)}" for c in choices)


def ask_choice(ctx: PlayContext, prompt: str, choices: Sequence[Choice]) -> str:
    """Ask until the answer names one of `choices` (its key, number, label, value or an alias)."""
    while True:
        answer = ask(ctx, f"{prompt}{choice_menu(choices)}: ").casefold()
        for i, c in enumerate(choices, 1):
            names = {c.key.casefold(), str(i), c.label.casefold(), c.value.casefold()}
            names.update(a.casefold() for a in c.aliases)
            if answer in names:
                return c.value
        ctx.say("answer.invalid_choice", options=", ".join(f"{c.key} ({c.label})" for c in choices))


def ask_amount(ctx: PlayContext, prompt: str, *, default: int, maximum: int | None = None) -> int:
    """An amount of money typed in the currency (``12.50``); Enter takes `default`. Re-asks on a typed
    amount that is not money or not positive; whether it is allowed is the engine's to say."""
    money = ctx.money
    while True:
        hint = ctx.text("amount.hint_max", max=money.show(maximum)) if maximum is not None else ""
        answer = ask(ctx, f"{prompt}{hint} {ctx.text('amount.enter_default', default=money.show(default))}: ")
        if not answer:
            return default
        try:
            amount = money.parse(answer)
        except TapeteError as exc:
            show_error(ctx, exc)
            continue
        if amount <= 0:
            ctx.say("amount.positive")
            continue
        return amount


def show_error(ctx: PlayContext, exc: BaseException) -> None:
    """Say a refusal to the person in their language; the caller re-asks (nothing changed)."""
    ctx.console.print(Text(ctx.tr.error(exc, ctx.money), style="bold red"))


# ---------------------------------------------------------------------------------------------- cards
def card_markup(name: str) -> Markup:
    """``Td`` -> ``10♦`` in red; ``??`` (a face-down card) dimmed."""
    if name == "??":
        return Markup("[dim]??[/dim]")
    rank = "10" if name[0] == "T" else name[0]
    suit = SUITS.get(name[1], name[1])
    text = f"{rank}{suit}"
    return Markup(f"[red]{text}[/red]" if name[1] in RED_SUITS else f"[bold]{text}[/bold]")


def cards_markup(names: Iterable[str]) -> Markup:
    """Several cards, space separated."""
    return Markup(" ".join(card_markup(n) for n in names))


def card_plain(name: str) -> str:
    """A card as plain text (``10♦``), e.g. for tests looking for a card in the transcript."""
    return Text.from_markup(card_markup(name)).plain


# ---------------------------------------------------------------------------------------------- the face
@dataclass
class PayoutRow:
    """One line of a round's payouts: who, on what, stake, what was paid back, and why."""

    seat: int
    player: str
    what: str
    stake: int
    paid: int
    why: str


class TableFace:
    """The terminal loop every game shares: bets seat by seat, the round, payouts, balances, the shoe.

    Subclasses write `play_round` (ask the round's pending decisions until it is finished) and
    `explain` (a payout's reason); games with more spots than ``main`` override `seat_bets`.
    """

    #: The spot a plain bet goes on.
    MAIN_SPOT = "main"

    def __init__(self, ctx: PlayContext) -> None:
        self.ctx = ctx
        self.tr = ctx.tr
        self.money = ctx.money
        self.session = ctx.session
        self.rules: Any = ctx.session.rules
        self.last_bet: dict[int, int] = {}  # seat -> last answer (0 = sat out)
        self.balance: dict[str, int] = {p: 0 for p in ctx.players}
        self.rounds_played = 0
        self._shoe_seen = 0
        self._cut_announced = False

    # -- names --------------------------------------------------------------------------------------
    def player(self, seat: int) -> str:
        """The player sitting at `seat` (1-based)."""
        return self.ctx.players[seat - 1]

    def seat_label(self, seat: int) -> str:
        """``Asiento 2 (P2)``."""
        return self.tr("seat.with_player", seat=seat, player=self.player(seat))

    # -- the loop -----------------------------------------------------------------------------------
    def run(self) -> None:
        """Play rounds until the person quits, the input ends, or `rounds` rounds were dealt."""
        self.banner()
        self.announce_shoe()
        ctx = self.ctx
        try:
            while ctx.rounds == 0 or self.rounds_played < ctx.rounds:
                bets = self.collect_bets()
                if not bets:
                    ctx.say("bet.nobody")
                    continue
                rnd = self.start_round(bets)
                if rnd is None:
                    continue
                quit_now = False
                try:
                    self.play_round(rnd)
                except Quit:
                    quit_now = True
                    ctx.say("quit.mid_round")
                    self.finish_silently(rnd)
                self.end_round(rnd)
                if quit_now:
                    break
        except Quit:
            pass
        self.summary()

    def banner(self) -> None:
        """The table's name, limits and how to answer."""
        ctx, tr, rules = self.ctx, self.tr, self.rules
        ctx.console.rule("[bold]" + ctx.text("table.title", game=tr("game." + self.session.game)) + "[/bold]")
        ctx.say(
            "table.limits",
            min=self.money.show(rules.table_min),
            max=self.money.show(rules.table_max),
            seats=ctx.seats,
            currency=self.money.currency,
        )
        ctx.say("table.help")

    def collect_bets(self) -> list[RawBet]:
        """Ask every seat in order (dealer's left first) for its bets; Quit on ``q``."""
        bets: list[RawBet] = []
        for seat in range(1, self.ctx.seats + 1):
            bets.extend(self.seat_bets(seat))
        return bets

    def seat_bets(self, seat: int) -> list[RawBet]:
        """One seat's bets: an amount on MAIN_SPOT (Enter = the last answer, 0 = sits out, q = quit),
        re-asked until the table accepts it."""
        ctx, money, rules = self.ctx, self.money, self.rules
        player = self.player(seat)
        while True:
            last = self.last_bet.get(seat, rules.table_min)
            default = money.show(last) if last else self.tr("bet.default_sit_out")
            amount = ask_money(
                ctx,
                money,
                ctx.text(
                    "bet.prompt",
                    seat=self.seat_label(seat),
                    min=money.show(rules.table_min),
                    max=money.show(rules.table_max),
                    default=default,
                ),
                last,
            )
            if amount is None:
                continue
            if amount == 0:
                self.last_bet[seat] = 0
                ctx.say("bet.sit_out", seat=self.seat_label(seat))
                return []
            bets = [RawBet(seat, player, self.MAIN_SPOT, amount)]
            refusal = self.check_bets(bets)
            if refusal is not None:
                show_error(ctx, refusal)
                continue
            self.last_bet[seat] = amount
            return bets

    def ask_optional_bet(
        self,
        seat: int,
        spot: str,
        bets: list[RawBet],
        last: dict[Any, int],
        key: Any,
        prompt: Callable[[int], str],
    ) -> int:
        """An optional bet of `seat` on `spot` (Enter = the last answer kept in `last[key]`, 0 = none),
        re-asked until the table accepts it with the `bets` before it. `prompt(last)` words the question."""
        ctx, money = self.ctx, self.money
        while True:
            amount = ask_money(ctx, money, prompt(last.get(key, 0)), last.get(key, 0))
            if amount is None:
                continue
            if amount:
                refusal = self.check_bets([*bets, RawBet(seat, self.player(seat), spot, amount)])
                if refusal is not None:
                    show_error(ctx, refusal)
                    continue
            last[key] = amount
            return amount

    def check_bets(self, bets: Sequence[RawBet]) -> TapeteError | None:
        """The table's verdict on some bets (None = accepted), from the same checks the round uses."""
        try:
            place_bets(bets, self.session.round_class.bet_spec(self.rules))
        except TapeteError as exc:
            return exc
        return None

    def start_round(self, bets: Sequence[RawBet]) -> Any:
        """Close the bets and deal (the shoe is reshuffled first when the cut card came out)."""
        try:
            options = self.round_options()
            rnd = self.session.start_round(bets, **options) if options else self.session.start_round(bets)
        except BadBet as exc:  # refused bets: nothing was dealt, ask again
            show_error(self.ctx, exc)
            return None
        self._cut_announced = False
        self.announce_shoe()
        self.ctx.console.rule(self.ctx.text("round.title", round=self.session.round_no))
        self.ctx.say("bets.closed")
        return rnd

    def round_options(self) -> dict[str, Any]:
        """Options the next round is opened with (Punto y Banca: who holds the shoe); none by default."""
        return {}

    def play_round(self, rnd: Any) -> None:
        """Ask the round's decisions until it is finished (each game writes its own)."""
        raise NotImplementedError

    def finish_silently(self, rnd: Round) -> None:
        """Finish a round nobody answers any more (bets are locked: the round must be completed): the
        engine's default answer to each decision (offers declined, a play decision stands)."""
        while rnd.pending is not None:
            self.session.apply(rnd.default_action())

    def end_round(self, rnd: Any) -> None:
        """Write the round to the log, show the payouts and the balances, say what the shoe does next."""
        self.session.finish_round()
        self.rounds_played += 1
        self.show_payouts(rnd)
        result = rnd.result()
        for player, totals in result["players"].items():
            self.balance[player] = self.balance.get(player, 0) + totals["net"]
        self.show_balances()
        self.announce_shoe()
        if self.session.last_round_of_shoe:
            self.ctx.say("shoe.next_reshuffle")

    # -- the shoe -----------------------------------------------------------------------------------
    def announce_shoe(self) -> None:
        """Say the shoe's new procedures: a new pack, a reshuffle, the cut card coming out."""
        events = getattr(self.session.source, "events", [])
        for ev in events[self._shoe_seen :]:
            kind = ev.get("type")
            if kind == "new_pack":
                self.ctx.say("shoe.new_pack", decks=ev.get("decks", ""))
            elif kind == "procedure" and ev.get("step") == "shuffle" and ev.get("generator"):
                self.ctx.say("shoe.shuffle")
            elif kind == "procedure" and ev.get("step") == "burn":
                self.ctx.say("shoe.burn", count=len(ev.get("cards", [])))
            elif kind == "cut_card_out" and not self._cut_announced:
                self._cut_announced = True
                self.ctx.say("shoe.cut_card")
        self._shoe_seen = len(events)

    # -- payouts and balances -----------------------------------------------------------------------
    def payout_rows(self, rnd: Any) -> list[PayoutRow]:
        """Every settlement of the finished round with its reason (games override `explain`)."""
        rows = []
        for ev in rnd.events:
            if ev.get("type") == "settle":
                rows.append(
                    PayoutRow(
                        seat=ev["seat"],
                        player=ev["player"],
                        what=self.tr("spot." + ev["spot"]),
                        stake=ev["stake"],
                        paid=ev["paid"],
                        why=self.explain(rnd, ev),
                    )
                )
        return rows

    def explain(self, rnd: Any, settle: dict[str, Any]) -> str:
        """Why a settlement paid what it paid (games say more)."""
        return self.tr("outcome." + str(settle.get("outcome")))

    def show_payouts(self, rnd: Any) -> None:
        """The round's payouts, one line each with its reason (lines, not a table: a reason must never be
        cut by a narrow terminal)."""
        ctx, money = self.ctx, self.money
        ctx.console.print("[bold]" + ctx.text("payouts.title", round=self.session.round_no) + "[/bold]")
        for row in self.payout_rows(rnd):
            who = self.seat_label(row.seat) if row.player == self.player_at(row.seat) else row.player
            style = "green" if row.paid > row.stake else "red" if row.paid < row.stake else "yellow"
            line = ctx.text(
                "payout.line",
                who=who,
                what=row.what,
                stake=money.show(row.stake),
                paid=money.show(row.paid),
                why=row.why,
            )
            ctx.console.print(f"[{style}]•[/{style}] {line}")

    def player_at(self, seat: int) -> str | None:
        """The terminal's player at `seat`, if the seat exists."""
        return self.ctx.players[seat - 1] if 1 <= seat <= len(self.ctx.players) else None

    def show_balances(self) -> None:
        """Each seat's running balance (net since the session began)."""
        parts = []
        for seat in range(1, self.ctx.seats + 1):
            net = self.balance.get(self.player(seat), 0)
            style = "green" if net > 0 else "red" if net < 0 else ""
            shown = ("+" if net > 0 else "") + self.money.show(net)
            parts.append(
                f"{escape(self.seat_label(seat))}: [{style}]{shown}[/{style}]"
                if style
                else f"{escape(self.seat_label(seat))}: {shown}"
            )
        self.ctx.console.print(f"[bold]{escape(self.tr('balances.title'))}[/bold]  " + " · ".join(parts))

    def summary(self) -> None:
        """The session's end: rounds played and each seat's balance."""
        self.ctx.console.rule(self.ctx.text("session.end", rounds=self.rounds_played))
        self.show_balances()
