"""Language and money as our users read them: message catalogs (Spanish by default, English on request)
and amounts shown and typed in soles (or the table's currency) from integer units.

Everything said to a person goes through a `Translator`; machine-facing names (scenario keys, JSON, the
API, the log) stay English. The regulation's own words (retiro, seguro, separación, incremento, pago
simple, volar) are used in both languages: English says "surrender (retiro)" (rules.md §5).

Catalogs are flat JSON files of ``message id -> template`` with ``{placeholders}`` in
``tapete/locale/``: ``es.json`` and ``en.json`` hold the shared messages; a game or a face may add its
own pair ``<name>.es.json`` / ``<name>.en.json`` (so engineers do not edit one file at once). A message
id may be defined in one file of a language only.
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
from typing import Any

from tapete.errors import TapeteError
from tapete.money import CURRENCIES, Amount, format_money

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
        super().__init__(message)
        self.key = key
        self.params = params


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
        raise BadSetting(f"unknown language {lang or environ.get(LANG_ENV)!r}; languages: es, en")
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
@dataclass(frozen=True)
class ErrorPattern:
    """An engine message (English, with a `code`) we know how to say fully in every language.
    `amounts` are the named groups that hold money in the table's unit (shown as money)."""

    code: str
    regex: re.Pattern[str]
    key: str
    amounts: tuple[str, ...] = ()


_PATTERNS: tuple[ErrorPattern, ...] = (
    ErrorPattern(
        "bad_bet",
        re.compile(
            r"^(?P<player>.+)'s (?P<spot>\w+) of (?P<amount>\d+) is below the minimum (?P<limit>\d+)$"
        ),
        "error.bet_below_min",
        ("amount", "limit"),
    ),
    ErrorPattern(
        "bad_bet",
        re.compile(r"^(?P<player>.+)'s (?P<spot>\w+) of (?P<amount>\d+) is above the limit (?P<limit>\d+)$"),
        "error.bet_above_max",
        ("amount", "limit"),
    ),
    ErrorPattern(
        "illegal_action",
        re.compile(r"^double of (?P<amount>\d+) is more than the original bet \((?P<limit>\d+)\)$"),
        "error.double_above_max",
        ("amount", "limit"),
    ),
    ErrorPattern(
        "illegal_action",
        re.compile(r"^insurance of (?P<amount>\d+) is more than half the original bet \((?P<limit>\d+)\)$"),
        "error.insurance_above_max",
        ("amount", "limit"),
    ),
)


def describe_error(exc: BaseException, tr: Translator, money: Money | None = None) -> str:
    """Say an error to a person in `tr`'s language.

    A BadAmount (typed money) is said fully from its message id. An engine error whose message matches
    a known pattern is said fully too, amounts as money. Any other TapeteError gets the language's lead-in
    for its `code` followed by the engine's (English) message; anything else, a generic lead-in.
    """
    money = money or Money()
    if isinstance(exc, BadAmount):
        return tr(exc.key, **exc.params)
    if isinstance(exc, TapeteError):
        for pattern in _PATTERNS:
            if pattern.code != exc.code:
                continue
            m = pattern.regex.match(exc.message)
            if m is not None:
                params: dict[str, Any] = dict(m.groupdict())
                for name in pattern.amounts:
                    params[name] = money.show(int(params[name]))
                return tr(pattern.key, **params)
        lead = f"error.{exc.code}"
        if not tr.has(lead):
            lead = "error.other"
        return tr(lead, message=exc.message)
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
            raise BadSetting(f"unknown currency {self.currency!r}; currencies: {', '.join(CURRENCIES)}")

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
