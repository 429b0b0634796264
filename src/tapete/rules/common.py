"""Settings common to every game (rules.md §0) and the machinery that turns pydantic's errors into
InvalidRules. A model validated with ``regulation=True`` (live tables, scenarios) refuses what the
regulation forbids; ``regulation=False`` (``tapete analyze`` what-ifs) accepts it and lists why not.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import cached_property
from typing import Any, ClassVar, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    model_validator,
)

from tapete.errors import InvalidRules, Msg


class CommonRules(BaseModel):
    """Settings every table has. Field descriptions cite the article; [A] marks rules.md assumptions."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, defer_build=True)

    game: ClassVar[str] = ""
    DECKS_RANGE: ClassVar[tuple[int, int]] = (4, 8)
    #: whether the regulation itself bounds the pack (else the range is the operator's setting [A])
    DECKS_RULED: ClassVar[bool] = True

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
                raise Violations(problems)
        return self

    def violations(self) -> list[str]:
        """What in these settings the regulation forbids (empty for a regulation table)."""
        out: list[str] = []
        lo, hi = self.DECKS_RANGE
        if not lo <= self.decks <= hi:
            whose, key = (
                ("the regulation's", "err.rules.decks") if self.DECKS_RULED else ("a", "err.rules.decks_a")
            )
            out.append(
                Msg(
                    f"decks={self.decks}: {whose} pack is {lo} to {hi} decks",
                    key,
                    decks=self.decks,
                    lo=lo,
                    hi=hi,
                )
            )
        if self.table_min > self.table_max:
            out.append(
                Msg(
                    f"table_min={self.table_min} is above table_max={self.table_max}",
                    "err.rules.min_above_max",
                    min=self.table_min,
                    max=self.table_max,
                )
            )
        return out

    @property
    def pack_size(self) -> int:
        """Cards in the pack."""
        return 52 * self.decks

    @cached_property
    def frozen_settings(self) -> FrozenDict:
        """The settings with every default filled in, under the scenario keys (for logs and reports).
        Computed once (the model is frozen) and frozen too: every round's round_started shares it, so
        writing into one is refused (TypeError) instead of changing every later round's record."""
        settings: FrozenDict = freeze(self.model_dump(mode="json"))
        return settings

    def settings(self) -> dict[str, Any]:
        """`frozen_settings` (a dict that refuses to change)."""
        return self.frozen_settings

    def played_settings(self) -> dict[str, Any]:
        """The settings as a table plays them (what bounds the amounts a round can make): `settings`,
        unless a game's setting can be larger than any pack lets it play (HOOK: Black Jack's splits)."""
        return dict(self.settings())

    @classmethod
    def load(cls, data: object, *, regulation: bool = True) -> Self:
        """Validate operator settings; any problem (unknown key, wrong type, forbidden value) is
        InvalidRules with a message that names the key."""
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise InvalidRules("rules must be a JSON object of settings", key="err.rules.object")
        try:
            return cls.model_validate(data, context={"regulation": regulation})
        except ValidationError as exc:
            problems = _describe(exc, cls.game)
            problems += cls._other_violations(data, exc, regulation)
            raise InvalidRules("; ".join(problems), key="err.rules.problems", problems=problems) from None

    @classmethod
    def _other_violations(cls, data: dict[str, Any], exc: ValidationError, regulation: bool) -> list[Msg]:
        """The regulation's refusals of the settings that were well formed, when others were not: a form
        is told every problem at once, not the malformed ones first and the regulation's bounds after."""
        bad = {str(err["loc"][0]) for err in exc.errors() if err["loc"]}
        if not bad or not regulation:
            return []
        rest = {k: v for k, v in data.items() if k not in bad}
        try:
            cls.model_validate(rest, context={"regulation": regulation})
        except ValidationError as again:
            return [p for p in _describe(again, cls.game) if p.key not in {"err.rules.refused"}]
        return []


class FrozenDict(dict[str, Any]):
    """A dict that refuses to change: JSON-serialisable as any dict, safe to share between records."""

    def _refuse(self, *args: object, **kwargs: object) -> None:
        raise TypeError("these settings are frozen: copy them to change them")

    __setitem__ = __delitem__ = _refuse
    clear = pop = popitem = setdefault = update = __ior__ = _refuse  # type: ignore[assignment]

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        import copy

        return {k: copy.deepcopy(v, memo) for k, v in self.items()}

    def __reduce__(self) -> Any:
        return (dict, (dict(self),))


def freeze(value: Any, *, lists: Callable[[Iterable[Any]], Any] = tuple) -> Any:
    """`value` (JSON-shaped) with every dict frozen all the way down and every list made by `lists` (a
    tuple by default, as settings keep them)."""
    if isinstance(value, dict):
        return FrozenDict({k: freeze(v, lists=lists) for k, v in value.items()})
    if isinstance(value, list):
        return lists(freeze(v, lists=lists) for v in value)
    return value


class Violations(ValueError):
    """What the regulation forbids in a model's settings, kept as messages (each with its id) through
    pydantic's validation so `load` can say them in a person's language."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


#: pydantic error types said in a person's language (message id per type; the bound's ctx name)
_PYDANTIC_KEYS: dict[str, tuple[str, str | None]] = {
    "int_type": ("err.rules.int", None),
    "bool_type": ("err.rules.bool", None),
    "string_type": ("err.rules.str", None),
    "dict_type": ("err.rules.dict", None),
    "greater_than": ("err.rules.gt", "gt"),
    "greater_than_equal": ("err.rules.ge", "ge"),
    "less_than": ("err.rules.lt", "lt"),
    "less_than_equal": ("err.rules.le", "le"),
    "literal_error": ("err.rules.literal", None),
}


def _describe(exc: ValidationError, game: str) -> list[Msg]:
    """Each of pydantic's errors as a message (English text as before, with an id and params)."""
    parts: list[Msg] = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"])
        # the setting a person wrote: without pydantic's union member tags ("burn.int", "burn.literal[...]")
        setting = ".".join(
            str(p)
            for p in err["loc"]
            if p not in ("int", "none", "bool", "str") and not str(p).startswith("literal[")
        )
        ctx = err.get("ctx") or {}
        if err["type"] == "extra_forbidden":
            parts.append(
                Msg(
                    f"unknown setting {loc!r} for {game}", "err.rules.unknown_setting", setting=loc, game=game
                )
            )
        elif loc:
            key, bound = _PYDANTIC_KEYS.get(err["type"], ("err.rules.invalid", None))
            params: dict[str, Any] = {"setting": setting}
            if bound:
                params["limit"] = ctx.get(bound)
            if err["type"] == "literal_error":
                params["expected"] = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
            parts.append(Msg(f"{loc}: {err['msg']}", key, **params))
        elif isinstance(ctx.get("error"), Violations):
            parts.extend(
                Msg(p, p.key, **p.params) if isinstance(p, Msg) else _plain(p) for p in ctx["error"].problems
            )
        else:
            parts.append(_plain(str(err["msg"]).removeprefix("Value error, ")))
    return parts


def _plain(text: str) -> Msg:
    """A problem without a message id of its own (not expected: every violation carries one)."""
    return Msg(text, "err.rules.refused")


#: BJ Art.5e: the cut card goes "a no menos de 40 cartas de la base y la mitad del paquete".
MIN_CUT_CARD_DEPTH = 40


def check_cut_card_depth(depth: int, pack_size: int) -> str | None:
    """BJ Art.5e: the cut card leaves at least 40 cards and at most half the pack behind it."""
    if not MIN_CUT_CARD_DEPTH <= depth <= pack_size // 2:
        return Msg(
            f"cut_card_depth={depth}: the cut card must leave between {MIN_CUT_CARD_DEPTH} and "
            f"{pack_size // 2} cards "
            f"(half the pack) behind it",
            "err.rules.cut_card",
            depth=depth,
            hi=pack_size // 2,
        )
    return None


def check_burn_before_cut(burn: int, pack_size: int, depth: int) -> str | None:
    """A fixed burn leaves cards in front of the cut card: a burn that reaches it could never be followed
    by a round (rules.md §0: the cut card marks the last round; the burn comes before the first)."""
    front = pack_size - depth
    if burn >= front:
        return Msg(
            f"burn={burn}: the pack has {front} cards in front of the cut card; the burn must leave some",
            "err.rules.burn_past_cut",
            burn=burn,
            front=front,
        )
    return None
