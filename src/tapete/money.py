"""Money: integer amounts in the table's smallest unit, exact ratios, rounding down with the fraction kept.

rules.md §0 [A]: whatever the house pays or returns that is not whole (3:2 on an odd stake, 95% of a Banca
win, half of an odd stake on a retire, a capped Showdown payout, a back-bettor's share) is rounded down to
the unit, per bettor and per bet, and the fraction is recorded in the round's log.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from tapete.errors import Msg

Amount = int


@dataclass(frozen=True, slots=True)
class Ratio:
    """An exact payout ratio ``num:den`` (3:2 is Ratio(3, 2)); never a float."""

    num: int
    den: int = 1

    def __str__(self) -> str:
        return f"{self.num}:{self.den}"

    @property
    def fraction(self) -> Fraction:
        """The ratio as an exact Fraction."""
        return Fraction(self.num, self.den)


EVEN = Ratio(1, 1)
THREE_TO_TWO = Ratio(3, 2)
TWO_TO_ONE = Ratio(2, 1)


_NO_FRACTION = Fraction(0)


def winnings(stake: Amount, ratio: Ratio) -> tuple[Amount, Fraction]:
    """Winnings on `stake` at `ratio`, rounded down, and the fraction of a unit the rounding kept."""
    whole, rest = divmod(stake * ratio.num, ratio.den)
    return whole, (Fraction(rest, ratio.den) if rest else _NO_FRACTION)


def share(amount: Amount, num: int, den: int) -> tuple[Amount, Fraction]:
    """``amount × num / den`` rounded down and the fraction dropped (pro-rata shares, capped payouts)."""
    whole, rest = divmod(amount * num, den)
    return whole, (Fraction(rest, den) if rest else _NO_FRACTION)


def check_amount(value: object) -> Amount:
    """Return `value` if it is a positive integer amount, else raise ValueError saying why."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(
            Msg(
                f"amount {value!r} is not a whole number of the table's money unit",
                "err.amount.not_whole",
                amount=value,
            )
        )
    if value <= 0:
        raise ValueError(Msg(f"amount {value} must be positive", "err.amount.not_positive", amount=value))
    return value


CURRENCIES: dict[str, tuple[str, int]] = {
    # code: (symbol, decimals of the unit)
    "PEN": ("S/", 2),
    "USD": ("US$", 2),
    "EUR": ("€", 2),
    "CHIPS": ("", 0),
}


def format_money(amount: Amount, currency: str = "PEN") -> str:
    """Show an integer amount of the smallest unit as people read it: 1250 céntimos → ``S/ 12.50``."""
    symbol, decimals = CURRENCIES.get(currency, (currency, 2))
    sign = "-" if amount < 0 else ""
    value = abs(amount)
    if decimals:
        units, cents = divmod(value, 10**decimals)
        body = f"{units:,}.{cents:0{decimals}d}"
    else:
        body = f"{value:,}"
    return f"{sign}{symbol} {body}".strip() if symbol else f"{sign}{body}"
