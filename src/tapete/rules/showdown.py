"""Settings of a Showdown Póker table (rules.md §3, reglamento of 17-08-2000)."""

from __future__ import annotations

from functools import cached_property
from typing import Annotated, ClassVar

from pydantic import Field

from tapete.errors import Msg
from tapete.rules.common import CommonRules

#: Art.11: payout on the bet and on each increment, by hand category name.
SHOWDOWN_PAYTABLE: dict[str, int] = {
    "two_pair": 2,
    "three_of_a_kind": 3,
    "straight": 5,
    "flush": 7,
    "full_house": 9,
    "four_of_a_kind": 25,
    "straight_flush": 100,
    "royal_flush": 250,
}

#: rules.md §3: a paytable entry (Art.11-12's minimum or more, the bonus's 1 or more) pays at most this to 1.
MAX_PAYOUT_RATIO = 100_000

#: Art.8: at most seven players, one position each (three cards each, two community cards, exchanges).
SEATS = 7

#: rules.md §3 [A]: the bonus's default paytable (lower hands lose).
DEFAULT_BONUS_PAYTABLE: dict[str, int] = {
    "royal_flush": 1000,
    "straight_flush": 200,
    "four_of_a_kind": 50,
    "full_house": 11,
    "flush": 8,
    "straight": 5,
}


class ShowdownRules(CommonRules):
    """Showdown Póker: one deck shuffled and cut before every round, at most seven players."""

    game: ClassVar[str] = "showdown_poker"
    DECKS_RANGE: ClassVar[tuple[int, int]] = (1, 8)  # one deck by default [A]; an operator setting
    DECKS_RULED: ClassVar[bool] = False  # the Showdown pages name no pack size

    decks: int = Field(1, description="one deck [A]")
    burn: int = Field(0, ge=0, description="cards burned after the cut [A: none; Art.7 names no burn]")
    pot_bet: int | None = Field(None, gt=0, description="the pot bet every player posts [A: table_min]")
    pot_commission_percent: int = Field(5, ge=0, le=100, description="house commission on the pot [A: 5]")
    payout_limit: int | None = Field(None, gt=0, description="Art.12: table payout limit, null = none")
    max_exchange: int = Field(3, ge=0, le=3, description="Art.9.2: cards a player may exchange [A: 3]")
    paytable: dict[str, int] = Field(
        default_factory=lambda: dict(SHOWDOWN_PAYTABLE),
        description="Art.11-12: N to 1 on the bet and each increment, by hand; Art.11's figures are the "
        "minimum (Art.12), at most 100000; hands not named keep Art.11's",
    )
    bonus_paytable: dict[str, Annotated[int, Field(gt=0)]] = Field(
        default_factory=lambda: dict(DEFAULT_BONUS_PAYTABLE),
        description="bonus paytable [A]: N pays N to 1, 1 to 100000 (a bet never loses more than it staked)",
    )

    @cached_property
    def pays(self) -> dict[str, int]:
        """The paytable in force on the bet and increments: Art.11's, with the operator's higher figures."""
        return {**SHOWDOWN_PAYTABLE, **self.paytable}

    bonus_min: int | None = Field(None, gt=0, description="least bonus stake [A: table_min]")
    bonus_max: int | None = Field(None, gt=0, description="largest bonus stake [A: table_max]")

    @property
    def pot_amount(self) -> int:
        """The pot bet in force (default: the table minimum)."""
        return self.pot_bet if self.pot_bet is not None else self.table_min

    def violations(self) -> list[str]:
        """Regulation checks: the pot bet within the table's limits (Art.8), a known bonus paytable."""
        out = super().violations()
        if not self.table_min <= self.pot_amount <= self.table_max:
            out.append(
                Msg(
                    f"pot_bet={self.pot_amount}: Art.8 has the dealer keep pot bets within the table's "
                    f"limits ({self.table_min} to {self.table_max})",
                    "err.rules.pot_bet",
                    amount=self.pot_amount,
                    min=self.table_min,
                    max=self.table_max,
                )
            )
        need = SEATS * (3 + self.max_exchange) + 2  # a full table's cards, replacements and community
        most = self.pack_size - need
        if self.burn > most:
            out.append(
                Msg(
                    f"burn={self.burn}: a full table can need {need} of the pack's "
                    f"{self.pack_size} cards in a round, so at most {most} can be burned",
                    "err.rules.sp_burn",
                    burn=self.burn,
                    need=need,
                    pack=self.pack_size,
                    most=most,
                )
            )
        unknown = set(self.bonus_paytable) - set(DEFAULT_BONUS_PAYTABLE)
        if unknown:
            out.append(
                Msg(
                    f"bonus_paytable names unknown hands: {sorted(unknown)}",
                    "err.rules.bonus_hands",
                    hands=sorted(unknown),
                )
            )
        out.extend(self._paytable_violations())
        return out

    def _paytable_violations(self) -> list[str]:
        """Art.12 calls Art.11's figures "mínimas": each entry of `paytable` is at least Art.11's and at
        most 100000 to 1 (rules.md §3); the bonus's (rules.md §3 [A]) 1 to 100000 to 1."""
        out: list[str] = []
        unknown = sorted(set(self.paytable) - set(SHOWDOWN_PAYTABLE))
        if unknown:
            out.append(
                Msg(f"paytable names unknown hands: {unknown}", "err.rules.paytable_hands", hands=unknown)
            )
        for hand, n in sorted(self.paytable.items()):
            least = SHOWDOWN_PAYTABLE.get(hand)
            if least is None:
                continue
            if not least <= n <= MAX_PAYOUT_RATIO:
                out.append(
                    Msg(
                        f"paytable {hand}={n}: Art.11-12 pay at least {least} to 1 (the minimum) "
                        f"and this table at most {MAX_PAYOUT_RATIO} to 1",
                        "err.rules.paytable",
                        hand=hand,
                        n=n,
                        least=least,
                        most=MAX_PAYOUT_RATIO,
                    )
                )
        for hand, n in sorted(self.bonus_paytable.items()):
            if n > MAX_PAYOUT_RATIO:
                out.append(
                    Msg(
                        f"bonus_paytable {hand}={n}: the bonus pays 1 to {MAX_PAYOUT_RATIO} to 1 [A]",
                        "err.rules.bonus_paytable",
                        hand=hand,
                        n=n,
                        most=MAX_PAYOUT_RATIO,
                    )
                )
        return out
