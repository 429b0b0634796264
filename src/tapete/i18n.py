"""Language and money as our users read them: message catalogs (Spanish by default, English on request)
and amounts shown and typed in soles (or the table's currency) from integer units.

Everything said to a person goes through a `Translator`; machine-facing names (scenario keys, JSON, the
API, the log) stay English. The regulation's own words (retiro, seguro, separación, incremento, pago
simple, volar) are used in both languages: English says "surrender (retiro)" (rules.md §5).

Catalogs are flat JSON files of ``message id -> template`` with ``{placeholders}`` in
``tapete/locale/``: ``es.json`` and ``en.json`` hold the shared messages; a game or a face may add its
own pair ``<name>.es.json`` / ``<name>.en.json`` (so engineers do not edit one file at once). A message
id may be defined in one file of a language only.

The games' own sentences live there too, so that a game module holds rules and numbers and every front
end (terminal, web page, server) says the same words: the layout's phrases (`layout_lines`) and the
house rules shown to players (`house_rules_lines`).
"""

from __future__ import annotations

import json
import os
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from tapete.errors import Msg, TapeteError
from tapete.games import GAMES
from tapete.money import CURRENCIES, Amount, format_money

if TYPE_CHECKING:
    from tapete.rules.common import CommonRules

LANGUAGES = ("es", "en")
DEFAULT_LANG = "es"
#: environment variable that chooses the language when no --lang is given.
LANG_ENV = "TAPETE_LANG"


class BadSetting(TapeteError):
    """A setting of a face (language, currency, seats, rounds) that is not one we offer."""

    code = "bad_setting"


class BadAmount(TapeteError):
    """An amount typed by a person that is not a valid amount of money (carries a message id)."""

    code = "bad_amount"

    def __init__(self, message: str, key: str, **params: Any) -> None:
        super().__init__(message, key=key, **params)


# ---------------------------------------------------------------------------------------------- catalogs
def _catalog_files(lang: str) -> list[tuple[str, str]]:
    """(file name, text) of every catalog file of `lang`: ``lang.json`` first, then ``*.lang.json``."""
    root = resources.files("tapete").joinpath("locale")
    out: list[tuple[str, str]] = []
    names = sorted(p.name for p in root.iterdir() if p.name.endswith(".json"))
    for name in names:
        if name == f"{lang}.json" or name.endswith(f".{lang}.json"):
            out.append((name, root.joinpath(name).read_text(encoding="utf-8")))
    out.sort(key=lambda item: item[0] != f"{lang}.json")
    return out


@cache
def catalog(lang: str) -> Mapping[str, str]:
    """Every message of `lang`, merged from its catalog files (ValueError on a duplicate id)."""
    merged: dict[str, str] = {}
    origin: dict[str, str] = {}
    for name, text in _catalog_files(lang):
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError(f"locale/{name} must be a JSON object of message id -> text")
        for key, value in data.items():
            if not isinstance(value, str):
                raise ValueError(f"locale/{name}: {key} is not a string")
            if key in merged:
                raise ValueError(f"locale/{name}: {key} is already defined in locale/{origin[key]}")
            merged[key] = value
            origin[key] = name
    return merged


def placeholders(template: str) -> set[str]:
    """The ``{names}`` a template uses."""
    return {field for _, field, _, _ in string.Formatter().parse(template) if field}


def resolve_lang(lang: str | None = None, env: Mapping[str, str] | None = None) -> str:
    """The language to speak: the one asked for, else $TAPETE_LANG, else Spanish (BadSetting if unknown)."""
    environ = os.environ if env is None else env
    chosen = (lang or environ.get(LANG_ENV) or DEFAULT_LANG).strip().lower()
    chosen = chosen.split("_")[0].split(".")[0]  # accept es_PE.UTF-8 style values
    if chosen not in LANGUAGES:
        raise BadSetting(
            f"unknown language {lang or environ.get(LANG_ENV)!r}; languages: es, en",
            key="err.setting.language",
            lang=lang or environ.get(LANG_ENV),
        )
    return chosen


class Translator:
    """Messages of one language by id: ``tr("bet.prompt", seat=1)``. A missing id or placeholder
    shows the id itself rather than stopping a table (the catalog tests keep both complete)."""

    def __init__(self, lang: str = DEFAULT_LANG) -> None:
        self.lang = lang if lang in LANGUAGES else DEFAULT_LANG
        self.messages = catalog(self.lang)

    def __call__(self, key: str, /, **params: Any) -> str:
        template = self.messages.get(key)
        if template is None:
            return key
        try:
            return template.format(**params)
        except (KeyError, IndexError, ValueError):
            return template

    def has(self, key: str) -> bool:
        """Whether the catalog defines `key`."""
        return key in self.messages

    def error(self, exc: BaseException, money: Money | None = None) -> str:
        """An error as a person reads it in this language (see `describe_error`)."""
        return describe_error(exc, self, money)


# ---------------------------------------------------------------------------------------------- errors
#: format specs a catalog template may give a placeholder: ``{amount:money}`` shows an amount of the
#: table's unit as money; ``{spot:spot}``, ``{action:action}``, ``{game:game}``, ``{reason:reason}``,
#: ``{kind:source}`` say a machine name (a bet spot, an action or decision, a game, an errno name, a card
#: source) in the language through the ids ``spot.NAME`` / ``act.NAME`` / ``game.NAME`` / ``oserror.NAME``
#: / ``source.NAME`` (the name itself when there is none).
NAME_SPECS = {"spot": "spot", "action": "act", "game": "game", "reason": "oserror", "source": "source"}
MONEY_SPEC = "money"


class _Renderer(string.Formatter):
    """Fills a catalog template: amounts as money, machine names in the language, a nested message
    (Msg or TapeteError with a key) rendered in turn, and a list joined (``; `` for messages)."""

    def __init__(self, tr: Translator, money: Money) -> None:
        self.tr, self.money = tr, money

    def format_field(self, value: Any, format_spec: str) -> str:
        if isinstance(value, Msg | TapeteError):
            return self.body(value)
        if isinstance(value, list | tuple):
            sep = "; " if any(isinstance(v, Msg | TapeteError) for v in value) else ", "
            return sep.join(self.format_field(v, format_spec) for v in value)
        if format_spec == MONEY_SPEC and isinstance(value, int) and not isinstance(value, bool):
            return self.money.show(value)
        if format_spec in NAME_SPECS:
            key = f"{NAME_SPECS[format_spec]}.{value}"
            return self.tr(key) if self.tr.has(key) else str(value)
        if format_spec == MONEY_SPEC:
            return str(value)  # not an amount (a malformed entry): shown as given
        return str(super().format_field(value, format_spec))

    def body(self, err: Msg | TapeteError) -> str:
        """The message of `err` in the language, or its English text when it has no (known) key."""
        key = err.key
        template = self.tr.messages.get(key) if key else None
        if template is None:
            return err.message if isinstance(err, TapeteError) else str(err)
        try:
            return self.vformat(template, (), err.params)
        except (KeyError, IndexError, ValueError, AttributeError):
            return err.message if isinstance(err, TapeteError) else str(err)


def describe_error(exc: BaseException, tr: Translator, money: Money | None = None) -> str:
    """Say an error to a person in `tr`'s language.

    A BadAmount (typed money) is said from its message id alone. Any other TapeteError gets the
    language's lead-in for its `code` then its message, rendered from its `key` and `params` (amounts as
    money) -- or, for an error raised without a key, the engine's English message. Anything else gets a
    generic lead-in.
    """
    money = money or Money()
    if isinstance(exc, BadAmount):
        return tr(exc.key or "error.other", **exc.params)
    if isinstance(exc, TapeteError):
        lead = f"error.{exc.code}"
        if not tr.has(lead):
            lead = "error.other"
        return tr(lead, message=_Renderer(tr, money).body(exc))
    return tr("error.other", message=str(exc))


# ---------------------------------------------------------------------------------------------- money
_SYMBOLS = sorted({sym for sym, _ in CURRENCIES.values() if sym}, key=len, reverse=True)
_NUMBER = re.compile(r"^(?P<whole>\d+)(?:\.(?P<frac>\d*))?$")
_GROUPED = re.compile(r"^\d{1,3}(?:,\d{3})+(?:\.\d*)?$")


@dataclass(frozen=True)
class Money:
    """Amounts as a person reads and types them: integer units (céntimos) <-> ``S/ 12.50``."""

    currency: str = "PEN"

    def __post_init__(self) -> None:
        if self.currency not in CURRENCIES:
            raise BadSetting(
                f"unknown currency {self.currency!r}; currencies: {', '.join(CURRENCIES)}",
                key="err.setting.currency",
                currency=self.currency,
                currencies=list(CURRENCIES),
            )

    @property
    def decimals(self) -> int:
        """Decimal places of one unit of the currency (2 for soles: the unit is the céntimo)."""
        return CURRENCIES[self.currency][1]

    def show(self, amount: Amount) -> str:
        """1250 -> ``S/ 12.50``."""
        return format_money(amount, self.currency)

    def example(self) -> str:
        """How to type an amount, for prompts and error messages (``12.50``, or ``12`` for chips)."""
        return "12.50" if self.decimals == 2 else "12" if self.decimals == 0 else "12." + "5" * self.decimals

    def parse(self, text: str) -> Amount:
        """A typed amount in whole currency (``12.50``, ``S/ 12.50``, ``1,000``) as integer units.

        Refused with BadAmount: empty text, non-numbers, negatives, and more decimals than the currency
        has (a céntimo is the smallest amount; ``12.505`` is not money). Zero is returned as 0.
        """
        raw = text.strip()
        shown = raw
        if not raw:
            raise BadAmount("no amount given", "money.empty", example=self.example())
        for sym in _SYMBOLS:
            if raw.upper().startswith(sym.upper()):
                raw = raw[len(sym) :].strip()
                break
        if raw.startswith("-"):
            raise BadAmount(f"{shown!r} is negative", "money.negative", text=shown)
        if raw.startswith("+"):
            raw = raw[1:]
        if "," in raw:
            if _GROUPED.match(raw):
                raw = raw.replace(",", "")
            else:
                raise BadAmount(
                    f"{shown!r}: write decimals with a point",
                    "money.comma",
                    text=shown,
                    example=self.example(),
                )
        m = _NUMBER.match(raw)
        if m is None:
            raise BadAmount(
                f"{shown!r} is not an amount", "money.not_number", text=shown, example=self.example()
            )
        frac = m.group("frac") or ""
        if len(frac) > self.decimals:
            raise BadAmount(
                f"{shown!r} has more than {self.decimals} decimals",
                "money.too_many_decimals",
                text=shown,
                decimals=self.decimals,
            )
        scale: int = 10**self.decimals
        return int(m.group("whole")) * scale + int(frac.ljust(self.decimals, "0") or "0")


# ---------------------------------------------------------------------------------------- the games' words
#: The hand categories as the house rules list them: best first (Art.11's paytable read from the top).
_SHOWDOWN_PAY_ORDER = (
    "royal_flush",
    "straight_flush",
    "four_of_a_kind",
    "full_house",
    "flush",
    "straight",
    "three_of_a_kind",
    "two_pair",
)


def layout_lines(game: str, lang: str = DEFAULT_LANG) -> tuple[str, ...]:
    """The phrases printed on `game`'s layout, one by one, in `lang` (catalog ids ``layout.<game>.1``,
    ``.2``, ...): in Spanish the regulation's own words (M21 Art.2a.2). () when the layout has none
    (Showdown Póker); KeyError for a game we do not run."""
    if game not in GAMES:
        raise KeyError(f"unknown game {game!r}; games: {', '.join(GAMES)}")
    messages = Translator(lang).messages
    lines: list[str] = []
    while (line := messages.get(f"layout.{game}.{len(lines) + 1}")) is not None:
        lines.append(line)
    return tuple(lines)


def layout_phrases(game: str, lang: str = DEFAULT_LANG) -> str:
    """The layout's phrases on one line, joined with `` · `` as the terminal tables print them."""
    return " · ".join(layout_lines(game, lang))


def house_rules_lines(
    rules: CommonRules, lang: str = DEFAULT_LANG, *, currency: str | None = None
) -> tuple[str, ...]:
    """The house's own rules a table shows its players, title first, in `lang`; () for a game with none.

    Showdown Póker's pot and bonus (rules.md §3 [A]: both "must be visible in the rules shown to
    players"), with its limits, the exchange, the table's paytable (Art.11's or more, Art.12), the Art.12
    payout limit and, with more than one deck, how equal cards rank (rules.md §0 [A]). Every [A] is
    marked as a house rule, never as the regulation's text. Amounts
    are in the table's money unit, or shown in `currency` (``PEN`` → ``S/ 1.00``).
    """
    # Imported here: the Showdown round loads the poker evaluator (numpy, numba), which a language module
    # must not make every face and command pay for.
    from tapete.games.showdown import bonus_limits
    from tapete.rules.showdown import SHOWDOWN_PAYTABLE, ShowdownRules

    if not isinstance(rules, ShowdownRules):
        return ()
    tr = Translator(lang)

    def money(amount: int) -> str:
        return format_money(amount, currency) if currency else str(amount)

    def pays(paytable: Mapping[str, int]) -> str:
        hands = [hand for hand in _SHOWDOWN_PAY_ORDER if hand in paytable]
        return ", ".join(tr("sd.house.pays", hand=tr(f"sd.category.{h}"), n=paytable[h]) for h in hands)

    bonus_min, bonus_max = bonus_limits(rules)
    limit = rules.payout_limit
    return (
        tr("sd.house.title"),
        tr("sd.house.bet", min=money(rules.table_min), max=money(rules.table_max)),
        tr("sd.house.exchange", max=rules.max_exchange),
        (
            tr("sd.house.final_hand", pays=pays(SHOWDOWN_PAYTABLE))
            if rules.pays == SHOWDOWN_PAYTABLE
            else tr("sd.house.final_hand_more", pays=pays(rules.pays))
        ),
        *((tr("sd.house.decks", decks=rules.decks),) if rules.decks > 1 else ()),
        tr("sd.house.no_payout_limit") if limit is None else tr("sd.house.payout_limit", limit=money(limit)),
        tr("sd.house.pot", pot=money(rules.pot_amount), pct=rules.pot_commission_percent),
        tr(
            "sd.house.bonus",
            min=money(bonus_min),
            max=money(bonus_max),
            pays=pays(rules.bonus_paytable) or tr("sd.house.bonus_pays_nothing"),
        ),
    )


def house_rules_text(rules: CommonRules, lang: str = DEFAULT_LANG, *, currency: str | None = None) -> str:
    """`house_rules_lines` as one text, a line each ("" for a game with no house rules)."""
    return "\n".join(house_rules_lines(rules, lang, currency=currency))
