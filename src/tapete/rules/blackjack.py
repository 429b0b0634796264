"""Settings of a Black Jack table (rules.md §1) and of a Majestic 21 table (§4), which is Black Jack
with side bets and a second insurance."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from tapete.errors import Msg
from tapete.rules.common import CommonRules, check_burn_before_cut, check_cut_card_depth


class BlackjackRules(CommonRules):
    """Black Jack, reglamento of 23-12-1999."""

    game: ClassVar[str] = "blackjack"

    decks: int = Field(6, description="Art.2b: 4 to 8 decks, operator's choice [A: default 6]")
    max_boxes_per_player: int = Field(7, ge=1, le=7, description="Art.1ñ: boxes one player may hold")
    max_splits: int = Field(3, ge=0, le=7, description="Art.11: splits per box [A: default 3, 4 hands]")
    resplit_aces: bool = Field(False, description="Art.11: resplitting Aces [A: default no]")
    surrender: bool = Field(True, description="Art.9: retiro offered (the regulation grants it)")
    burn: int = Field(1, ge=0, description="Art.5g: cards burned after a shuffle [A: default 1]")
    cut_card_depth: int | None = Field(
        None, description="Art.5e: cards behind the cut card, 40 to half the pack [A: a quarter]"
    )

    @property
    def cut_depth(self) -> int:
        """The cut card depth in force (default: a quarter of the pack)."""
        return self.cut_card_depth if self.cut_card_depth is not None else self.pack_size // 4

    def violations(self) -> list[str]:
        """Regulation checks: pack size, cut card window, at least one burned card, surrender granted."""
        out = super().violations()
        problem = check_cut_card_depth(self.cut_depth, self.pack_size) or check_burn_before_cut(
            self.burn, self.pack_size, self.cut_depth
        )
        if problem:
            out.append(problem)
        if self.burn < 1:
            out.append(
                Msg("burn=0: Art.5g burns one or more cards before the first round", "err.rules.bj_burn")
            )
        if not self.surrender:
            out.append(Msg("surrender=false: Art.9 grants the retiro to every player", "err.rules.surrender"))
        return out


class Majestic21Rules(BlackjackRules):
    """Majestic 21, reglamento of 21-10-2005: Black Jack plus the (+), (−), (13) side bets."""

    game: ClassVar[str] = "majestic_21"

    side_bet_min: int | None = Field(None, gt=0, description="least side-bet stake [A: table_min]")
    side_bet_max: int | None = Field(None, gt=0, description="largest side-bet stake [A: table_max]")

    @property
    def side_limits(self) -> tuple[int, int]:
        """(min, max) of a side bet: its own limits, else the table's."""
        lo = self.side_bet_min if self.side_bet_min is not None else self.table_min
        hi = self.side_bet_max if self.side_bet_max is not None else self.table_max
        return lo, hi

    def violations(self) -> list[str]:
        """Black Jack's checks plus consistent side-bet limits."""
        out = super().violations()
        lo, hi = self.side_limits
        if lo > hi:
            out.append(
                Msg(
                    f"side bet minimum {lo} is above its maximum {hi}",
                    "err.rules.side_limits",
                    min=lo,
                    max=hi,
                )
            )
        return out
