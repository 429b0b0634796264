"""Settings common to every game (rules.md §0) and the machinery that turns pydantic's errors into
InvalidRules. A model validated with ``regulation=True`` (live tables, scenarios) refuses what the
regulation forbids; ``regulation=False`` (``tapete analyze`` what-ifs) accepts it and lists why not.
"""

from __future__ import annotations

from typing import Any, ClassVar, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    model_validator,
)

from tapete.errors import InvalidRules
from tapete.memo import memo

#: settings dicts by rules object (pydantic's private attributes are slow to read on every round)
_SETTINGS: dict[int, dict[str, Any]] = {}


class CommonRules(BaseModel):
    """Settings every table has. Field descriptions cite the article; [A] marks rules.md assumptions."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    game: ClassVar[str] = ""
    DECKS_RANGE: ClassVar[tuple[int, int]] = (4, 8)

    decks: int = Field(6, description="decks in the pack (BJ Art.2b: 4 to 8, the operator chooses)")
    table_min: int = Field(100, gt=0, description="least stake of a bettor on a spot, money units (Art.7)")
    table_max: int = Field(100000, gt=0, description="largest stake of a bettor on a spot (Art.7)")
    back_betting: bool = Field(True, description="operator allows back-betting (Art.7) [A: default yes]")

    @model_validator(mode="after")
    def _regulation(self, info: ValidationInfo) -> Self:
        ctx = info.context or {}
        if ctx.get("regulation", True):
            problems = self.violations()
            if problems:
                raise ValueError("; ".join(problems))
        return self

    def violations(self) -> list[str]:
        """What in these settings the regulation forbids (empty for a regulation table)."""
        out: list[str] = []
        lo, hi = self.DECKS_RANGE
        if not lo <= self.decks <= hi:
            out.append(f"decks={self.decks}: the regulation's pack is {lo} to {hi} decks")
        if self.table_min > self.table_max:
            out.append(f"table_min={self.table_min} is above table_max={self.table_max}")
        return out

    @property
    def pack_size(self) -> int:
        """Cards in the pack."""
        return 52 * self.decks

    def settings(self) -> dict[str, Any]:
        """The settings with every default filled in, under the scenario keys (for logs and reports).
        Computed once (the model is frozen); callers must not mutate the dict."""
        return memo(_SETTINGS, self, lambda: self.model_dump(mode="json"))

    @classmethod
    def load(cls, data: object, *, regulation: bool = True) -> Self:
        """Validate operator settings; any problem (unknown key, wrong type, forbidden value) is
        InvalidRules with a message that names the key."""
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise InvalidRules("rules must be a JSON object of settings")
        try:
            return cls.model_validate(data, context={"regulation": regulation})
        except ValidationError as exc:
            raise InvalidRules(_describe(exc, cls.game)) from None


def _describe(exc: ValidationError, game: str) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"])
        if err["type"] == "extra_forbidden":
            parts.append(f"unknown setting {loc!r} for {game}")
        elif loc:
            parts.append(f"{loc}: {err['msg']}")
        else:
            parts.append(str(err["msg"]).removeprefix("Value error, "))
    return "; ".join(parts)


def check_cut_card_depth(depth: int, pack_size: int) -> str | None:
    """BJ Art.5e: the cut card leaves at least 40 cards and at most half the pack behind it."""
    if not 40 <= depth <= pack_size // 2:
        return (
            f"cut_card_depth={depth}: the cut card must leave between 40 and {pack_size // 2} cards "
            f"(half the pack) behind it"
        )
    return None
