"""A round's money as one pure function of its events: what each bettor staked, every credit back to his
wallet (payouts and returns, each from the event that says it), and the commission taken on his round.

The server's ledger posts exactly this (`server.tables.Stepper.close_round`); the engine's own
`round_settled` event is the independent account it is tested against. Money is conserved per bettor:
staked = paid + commission + the house's net.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

Event = dict[str, Any]

#: the ledger's kind of a settle event's credit, by its outcome (a push or a return gives the stake back)
PAYOUT_KIND = {"win": "payout", "push": "return", "returned": "return", "surrender": "return"}


@dataclass(frozen=True)
class Credit:
    """Chips from the table back to a bettor's wallet: a payout or a return, from events[`event`]."""

    player: str
    amount: int
    kind: str  # "payout" | "return"
    spot: str | None
    event: int


@dataclass
class RoundMoney:
    """A round's money by bettor (`round_money`)."""

    staked: dict[str, int] = field(default_factory=dict)
    credits: list[Credit] = field(default_factory=list)
    #: commission by the bettor it is taken from (None: the pot's own, when no share can carry it)
    commission: dict[str | None, int] = field(default_factory=dict)

    def paid(self) -> dict[str, int]:
        """Everything credited back to each bettor."""
        out: dict[str, int] = {}
        for credit in self.credits:
            out[credit.player] = out.get(credit.player, 0) + credit.amount
        return out

    def house_net(self, player: str | None) -> int:
        """The house's net on `player`'s round, beside its commission on it."""
        paid = self.paid().get(player, 0) if player is not None else 0
        staked = self.staked.get(player, 0) if player is not None else 0
        return staked - paid - self.commission.get(player, 0)


def round_money(events: Sequence[Event]) -> RoundMoney:
    """The money of a round from its (effective) events: stakes, settle credits or a void's returns,
    Banca's commission on each win, Showdown's pot commission shared over its winners."""
    money = RoundMoney()
    player_at: dict[int, str] = {}
    for ev in events:
        if ev.get("type") == "stake":
            money.staked[ev["player"]] = money.staked.get(ev["player"], 0) + ev["amount"]
            player_at.setdefault(ev["seat"], ev["player"])
    voided = next((i for i, ev in enumerate(events) if ev.get("type") == "round_voided"), None)
    if voided is not None:
        for player, amount in events[voided]["returned"].items():
            if amount:
                money.credits.append(Credit(player, amount, "return", None, voided))
        return money
    for i, ev in enumerate(events):
        if ev.get("type") == "settle" and ev.get("paid"):
            kind = PAYOUT_KIND.get(ev["outcome"], "payout")
            money.credits.append(Credit(ev["player"], ev["paid"], kind, ev["spot"], i))
            if ev.get("commission"):  # Banca's, on this bettor's win
                _add(money.commission, ev["player"], ev["commission"])
        elif ev.get("type") == "pot" and ev.get("commission"):  # Showdown's, on the winners' shares
            for player, part in pot_commission(ev, player_at).items():
                _add(money.commission, player, part)
    return money


def pot_commission(pot: Event, player_at: dict[int, str]) -> dict[str | None, int]:
    """Showdown's pot commission by the winner it is taken from: in proportion to each winner's share
    (the units left over to the earliest seat, as the pot's own remainder goes)."""
    shares = {int(seat): int(amount) for seat, amount in (pot.get("shares") or {}).items()}
    total, commission = sum(shares.values()), int(pot["commission"])
    if not total:  # no share to take it from: the pot's, no bettor's
        return {None: commission}
    parts = {seat: commission * amount // total for seat, amount in shares.items()}
    parts[min(parts)] += commission - sum(parts.values())
    out: dict[str | None, int] = {}
    for seat, part in parts.items():
        if part:
            _add(out, player_at[seat], part)
    return out


def _add(into: dict[str | None, int], player: str | None, amount: int) -> None:
    into[player] = into.get(player, 0) + amount
