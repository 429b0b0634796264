"""Settings of a Punto y Banca table (rules.md §2, reglamento of 23-12-1999)."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from tapete.errors import Msg
from tapete.rules.common import CommonRules, check_burn_before_cut, check_cut_card_depth


class PuntoYBancaRules(CommonRules):
    """Punto y Banca. Commission and tie payout are fixed by Art.8; as settings they exist only for
    `tapete analyze` what-ifs, and a table or scenario refuses other values."""

    game: ClassVar[str] = "punto_y_banca"

    decks: int = Field(8, description="PyB Art.3-4: 4 to 8 decks [A: default 8]")
    burn: int | Literal["first_card_value"] = Field(
        "first_card_value", description="Art.5g: burn by the first card's value [A], or a fixed count"
    )
    cut_card_depth: int | None = Field(None, description="Art.5e: 40 to half the pack [A: a quarter]")
    commission_percent: int = Field(5, ge=0, le=100, description="Art.8b: Banca pays 1:1 less 5%")
    tie_pays: int = Field(8, ge=1, description="Art.8c: Empate pays 8 to 1")
    zones: int = Field(7, ge=1, le=7, description="Art.7: betting zones, 1 to 7 (seats 1-7) [A: default 7]")
    shoe_passes: Literal["banca_loses", "every_round"] = Field(
        "banca_loses", description="Art.9: when the shoe moves on [A: when Banca loses]"
    )
    empate_min: int | None = Field(None, gt=0, description="least Empate stake [A: table_min]")
    empate_max: int | None = Field(None, gt=0, description="largest Empate stake [A: table_max]")

    @property
    def empate_limits(self) -> tuple[int, int]:
        """(min, max) of an Empate bet: its own limits where the operator set them, else the table's
        (rules.md §0: the limits bound Empate too, unless the operator sets their own)."""
        lo = self.empate_min if self.empate_min is not None else self.table_min
        hi = self.empate_max if self.empate_max is not None else self.table_max
        return lo, hi

    @property
    def cut_depth(self) -> int:
        """The cut card depth in force (default: a quarter of the pack)."""
        return self.cut_card_depth if self.cut_card_depth is not None else self.pack_size // 4

    def violations(self) -> list[str]:
        """Regulation checks: pack, cut window, the fixed 5% commission and 8:1 tie."""
        out = super().violations()
        problem = check_cut_card_depth(self.cut_depth, self.pack_size)
        if problem is None and isinstance(self.burn, int):
            problem = check_burn_before_cut(self.burn, self.pack_size, self.cut_depth)
        if problem:
            out.append(problem)
        if self.commission_percent != 5:
            out.append(
                Msg(
                    f"commission_percent={self.commission_percent}: Art.8b fixes it at 5",
                    "err.rules.commission",
                    value=self.commission_percent,
                )
            )
        if self.tie_pays != 8:
            out.append(
                Msg(
                    f"tie_pays={self.tie_pays}: Art.8c fixes the Empate at 8 to 1",
                    "err.rules.tie_pays",
                    value=self.tie_pays,
                )
            )
        if isinstance(self.burn, int) and self.burn < 1:
            out.append(Msg("burn=0: Art.5g burns cards before the first round", "err.rules.pyb_burn"))
        lo, hi = self.empate_limits
        if lo > hi:
            out.append(
                Msg(
                    f"Empate minimum {lo} is above its maximum {hi}",
                    "err.rules.empate_limits",
                    min=lo,
                    max=hi,
                )
            )
        return out
