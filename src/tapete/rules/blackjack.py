"""Settings of a Black Jack table (rules.md §1) and of a Majestic 21 table (§4), which is Black Jack
with side bets and a second insurance."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import Field

from tapete.errors import Msg
from tapete.rules.common import CommonRules, check_burn_before_cut, check_cut_card_depth


def shoe_counts(decks: int) -> list[int]:
    """Cards of each value (A, 2..9, ten-value) in a pack of `decks` 52-card decks."""
    return [4 * decks] * 9 + [16 * decks]


def split_limit(max_splits: int, counts: Sequence[int]) -> int:
    """The splits a box can really make under the setting `max_splits` from a pack holding `counts` cards
    of each value: every hand of a split starts with a card of the pair's value, so no box can split
    more than the largest count less one times, and a larger setting plays exactly the same. Whatever
    sizes an array or a loop by the splits (the analysis, the simulation) takes this number, never the
    setting, which the regulation leaves unbounded above (Art.11)."""
    return max(0, min(max_splits, max(counts, default=0) - 1))


class BlackjackRules(CommonRules):
    """Black Jack, reglamento of 23-12-1999."""

    game: ClassVar[str] = "blackjack"

    decks: int = Field(6, description="Art.2b: 4 to 8 decks, operator's choice [A: default 6]")
    max_boxes_per_player: int = Field(7, ge=1, le=7, description="Art.1ñ: boxes one player may hold")
    max_splits: int = Field(
        3, ge=0, description="Art.11: splits per box, at least 1 (Art.11 grants it) [A: default 3]"
    )
    resplit_aces: bool = Field(False, description="Art.11: resplitting Aces [A: default no]")
    surrender: bool = Field(True, description="Art.9: retiro offered (the regulation grants it)")
    burn: int = Field(1, ge=0, description="Art.5g: cards burned after a shuffle [A: default 1]")
    cut_card_depth: int | None = Field(
        None, description="Art.5e: cards behind the cut card, 40 to half the pack [A: a quarter]"
    )
    dealer_completes_hand: bool = Field(
        False,
        description="Art.14: the dealer draws to 17 even when no hand's result depends on his total "
        "[A: default no, he draws only while a result depends on it]",
    )

    @property
    def splits_possible(self) -> int:
        """`max_splits` as this pack can play it (`split_limit`): what sizes the analysis and the
        simulation, so that a setting of 10**18 costs no more than the pack's own limit."""
        return split_limit(self.max_splits, shoe_counts(self.decks))

    def played_settings(self) -> dict[str, Any]:
        """`max_splits` as the pack plays it (10**18 plays as 95 at six decks): it bounds the hands a
        box can stake on, never a stake itself."""
        return {**super().played_settings(), "max_splits": self.splits_possible}

    @property
    def cut_depth(self) -> int:
        """The cut card depth in force (default: a quarter of the pack)."""
        return self.cut_card_depth if self.cut_card_depth is not None else self.pack_size // 4

    def violations(self) -> list[str]:
        """Regulation checks: pack size, cut card window, at least one burned card, the split and the
        surrender the regulation grants. Each refusal quotes this game's own articles (`_refusal`)."""
        out = super().violations()
        problem = check_cut_card_depth(self.cut_depth, self.pack_size) or check_burn_before_cut(
            self.burn, self.pack_size, self.cut_depth
        )
        if problem:
            out.append(problem)
        if self.burn < 1:
            out.append(self._refusal("burn"))
        if self.max_splits < 1:
            out.append(self._refusal("max_splits", n=self.max_splits))
        if not self.surrender and self.SURRENDER_GRANTED:
            out.append(self._refusal("surrender"))
        return out

    #: Art.9 grants the retiro to every Black Jack player, so a Black Jack table cannot switch it off.
    SURRENDER_GRANTED: ClassVar[bool] = True

    def _refusal(self, setting: str, **params: object) -> Msg:
        """Black Jack's refusal of `setting`, quoting the article of the reglamento of 23-12-1999."""
        if setting == "burn":
            return Msg("burn=0: Art.5g burns one or more cards before the first round", "err.rules.bj_burn")
        if setting == "max_splits":
            return Msg(
                f"max_splits={params['n']}: Art.11 grants the split (separación), so at least 1",
                "err.rules.max_splits",
                **params,
            )
        return Msg("surrender=false: Art.9 grants the retiro to every player", "err.rules.surrender")


class Majestic21Rules(BlackjackRules):
    """Majestic 21, reglamento of 21-10-2005: Black Jack plus the (+), (−), (13) side bets."""

    game: ClassVar[str] = "majestic_21"

    #: no Majestic 21 page grants the retiro (its pages end at Art.5f): the operator may switch it off
    SURRENDER_GRANTED: ClassVar[bool] = False

    surrender: bool = Field(
        True, description="retiro offered [A: as Black Jack, default yes; no Majestic 21 page grants it]"
    )
    burn: int = Field(1, ge=0, description="cards burned after a shuffle, one or more [A: as Black Jack, 1]")
    max_splits: int = Field(
        3, ge=0, description="splits per box, at least 1 [A: the play follows Black Jack, default 3]"
    )
    side_bet_min: int | None = Field(None, gt=0, description="least side-bet stake [A: table_min]")
    side_bet_max: int | None = Field(None, gt=0, description="largest side-bet stake [A: table_max]")

    @property
    def side_limits(self) -> tuple[int, int]:
        """(min, max) of a side bet: its own limits, else the table's."""
        lo = self.side_bet_min if self.side_bet_min is not None else self.table_min
        hi = self.side_bet_max if self.side_bet_max is not None else self.table_max
        return lo, hi

    def _refusal(self, setting: str, **params: object) -> Msg:
        """Majestic 21's refusal of `setting`: its recovered pages end at Art.5f, so the play and the burn
        follow Black Jack as rules.md §4 assumes [A]; no Black Jack article is quoted as Majestic 21's."""
        if setting == "burn":
            return Msg(
                "burn=0: one or more cards are burned before the first round (rules.md §4 [A]: "
                "Majestic 21 follows Black Jack's procedures)",
                "err.rules.m21_burn",
            )
        return Msg(
            f"max_splits={params['n']}: the split is part of the play Majestic 21 takes from Black Jack "
            "(rules.md §4 [A]), so at least 1",
            "err.rules.m21_max_splits",
            **params,
        )

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
