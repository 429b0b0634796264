"""Typed errors shared by the engine, the CLI and the server.

Each error carries the scenario contract's `code` (shared/spec/scenario.md) and, where there is one,
`at`: the index of the offending entry. The CLI and the server map them to exit codes / HTTP statuses
in one place (`tapete.cli`, `tapete.server`).
"""

from __future__ import annotations

import errno
import json
import math
import re
import sys
import tomllib
from pathlib import Path
from typing import Any, Literal


class Msg(str):
    """An English text that also carries its message id and parameters, so a person can be told it in
    their language (`tapete.i18n` renders ``key`` from the catalogs); the string itself stays the
    machine-facing English. Used where a message is built before it is raised (rules violations)."""

    key: str
    params: dict[str, Any]

    def __new__(cls, text: str, key: str, /, **params: Any) -> Msg:
        self = super().__new__(cls, text)
        self.key = key
        self.params = params
        return self


class TapeteError(Exception):
    """Base of every error a person or a tool may see; `code` is machine-facing, `message` English.

    `key` (a message id of the locale catalogs) and `params` let a person read the same message in
    their language: the raise site gives both next to the English text, so each message has one place.
    A `Msg` given as the message brings its own key and params.
    """

    code = "error"

    def __init__(self, message: str, at: int | None = None, *, key: str | None = None, **params: Any) -> None:
        super().__init__(str(message))
        if key is None and isinstance(message, Msg):
            key, params = message.key, {**message.params, **params}
        self.message = str(message)
        self.at = at
        self.key = key
        self.params = params

    def to_json(self) -> dict[str, Any]:
        """The error object of the scenario contract, ``{"error": {"code", "message", "at"?}}``, with the
        message id and its params (``key``, ``params``) that a client in another language renders."""
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.at is not None:
            body["at"] = self.at
        if self.key is not None:
            body["key"] = self.key
            body["params"] = json_safe(self.params)
        return {"error": body}


def json_safe(value: Any) -> Any:
    """`value` as plain JSON data: tuples and sets become lists, an error its message, anything else
    that JSON cannot carry its text (params may hold a nested error or a card tuple)."""
    if isinstance(value, TapeteError):
        return value.message
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted(json_safe(v) for v in value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def file_problem(exc: BaseException) -> dict[str, Any]:
    """Params that say where a JSON/TOML parser stopped (``line``, ``column``; 0 when unknown) or why a
    file could not be read (``reason``: the errno name, e.g. ``ENOENT``), for a person's message."""
    if isinstance(exc, OSError):
        return {"reason": errno.errorcode.get(exc.errno or 0, "EIO")}
    line, column = getattr(exc, "lineno", None), getattr(exc, "colno", None)
    if line is None:  # tomllib (3.11) says it only in the text: "... (at line 3, column 7)"
        m = re.search(r"at line (\d+), column (\d+)", str(exc))
        line, column = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
    return {"line": line, "column": column}


class BadFile(TapeteError):
    """The input's shape is wrong (not JSON, missing keys, wrong types)."""

    code = "bad_file"


class InvalidRules(TapeteError):
    """A setting is unknown, malformed, or forbidden by the regulation."""

    code = "invalid_rules"


class BadCards(TapeteError):
    """A card that cannot exist in the pack, an incomplete pack, or a shoe that ran out."""

    code = "bad_cards"


class BadBet(TapeteError):
    """A bet that the table must refuse (limits, seat, back-betting, combinations)."""

    code = "bad_bet"


class IllegalAction(TapeteError):
    """A decision that is not legal at this point of the round (or missing, or out of turn)."""

    code = "illegal_action"


class ShoeSealBroken(TapeteError):
    """A sealed shoe that does not open: a wrong key, another table's or shuffle's seal, an altered one."""

    code = "shoe_seal_broken"


class NotWaitingFor(IllegalAction):
    """A step of another kind than the one the round waits for (a card while a holder must decide, a
    decision while the dealer must deal): at the server, not the phase for it (409)."""

    code = "conflict"


class BadRequest(TapeteError):
    """Input whose shape is wrong (a missing key, a mistyped field) from a client of the engine or API."""

    code = "bad_request"


class LiveTableRefused(TapeteError):
    """A live table was given a card source that is only allowed for simulation, tests or replay."""

    code = "live_table_refused"


def read_text(path: str | Path, error: type[TapeteError] | None = None) -> str:
    """A text file's contents, or the `error` kind (BadFile by default) when it cannot be read or is
    not UTF-8 text — never a traceback for a person's bad path."""
    kind = error or BadFile
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise kind(
            f"cannot read {path}: {exc.strerror}",
            key="err.file.unreadable",
            path=str(path),
            **file_problem(exc),
        ) from None
    except UnicodeDecodeError as exc:
        raise kind(
            f"{path} is not UTF-8 text (byte {exc.start})",
            key="err.file.not_utf8",
            path=str(path),
            byte=exc.start,
        ) from None


#: The deepest nesting of arrays and objects (tables) a document may have. A scenario needs 3 levels, a
#: settings or chart file 5; much deeper, Python's parsers, and whatever walks the data after them (an
#: error that echoes a value), run out of recursion (a traceback instead of bad_file).
MAX_DEPTH = 100
#: The most digits of a whole number in a document: Python's default limit of int conversion
#: (``sys.int_info.default_max_str_digits``), fixed here so that the refusal is the same whatever the
#: environment sets (PYTHONINTMAXSTRDIGITS), and every number read can be written again.
MAX_DIGITS = 4300
_BOUND = 10**MAX_DIGITS

Syntax = Literal["json", "toml", "json_or_toml"]


class _Refused(Exception):
    """A limit of `parse_document` met inside a parser's hook: (English text, message id, params)."""

    def __init__(self, text: str, key: str, **params: Any) -> None:
        super().__init__(text)
        self.key = key
        self.params = params


def _constant(name: str) -> Any:
    """json's hook for NaN, Infinity and -Infinity, which Python accepts and JSON does not have."""
    raise _Refused(f"{name} is not JSON (a number is finite)", "err.file.not_json", token=name)


def _whole(text: str) -> int:
    """json's hook for a whole number: at most MAX_DIGITS digits (else Python's own ValueError)."""
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise _Refused(f"a number of more than {MAX_DIGITS} digits", "err.file.digits", most=MAX_DIGITS)
    return int(text)


def _real(text: str) -> float:
    """The parsers' hook for a number with a fraction or an exponent: a finite float (1e400 is not one;
    TOML's nan and inf are not numbers of ours either)."""
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"{text[:40]} is not a finite number", "err.file.not_finite", number=text[:40])
    return value


def _check_tree(data: Any) -> None:
    """_Refused when `data` nests deeper than MAX_DEPTH or holds a whole number of more than MAX_DIGITS
    digits (TOML's integers have no hook); walked without recursion."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > MAX_DEPTH:
                raise _Refused(
                    f"arrays and objects nested more than {MAX_DEPTH} deep", "err.file.depth", most=MAX_DEPTH
                )
            children = value.values() if isinstance(value, dict) else value
            stack.extend((child, depth + 1) for child in children)
        elif isinstance(value, int) and not isinstance(value, bool) and not -_BOUND < value < _BOUND:
            raise _Refused(f"a number of more than {MAX_DIGITS} digits", "err.file.digits", most=MAX_DIGITS)


def parse_document(
    text: str, error: type[TapeteError] | None = None, *, syntax: Syntax = "json", path: str | None = None
) -> Any:
    """The data of a JSON or TOML text, or the `error` kind (BadFile by default) saying why not — never a
    traceback, whatever the text (the one parser of every file a person gives: scenarios, settings,
    charts). Strict JSON: NaN, Infinity and -Infinity are refused; so are numbers Python cannot hold as
    they are written (a whole number beyond MAX_DIGITS digits, a float beyond its range) and nesting
    deeper than MAX_DEPTH. `syntax` json_or_toml reads JSON, else TOML. `path` names the file in the
    message (a scenario's text is said without one)."""
    kind = error or BadFile
    where = f"{path}: " if path is not None else ""
    try:
        if syntax == "toml":
            data = tomllib.loads(text, parse_float=_real)
        else:
            try:
                data = json.loads(text, parse_constant=_constant, parse_int=_whole, parse_float=_real)
            except json.JSONDecodeError:
                if syntax == "json":
                    raise
                data = tomllib.loads(text, parse_float=_real)
        _check_tree(data)
    except _Refused as exc:
        raise kind(f"{where}{exc}", key=exc.key, **exc.params) from None
    except RecursionError:
        raise kind(
            f"{where}arrays and objects nested more than {MAX_DEPTH} deep",
            key="err.file.depth",
            most=MAX_DEPTH,
        ) from None
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        fmt = {"json": "JSON", "toml": "TOML", "json_or_toml": "JSON or TOML"}[syntax]
        if path is None:
            raise kind(f"not valid {fmt}: {exc}", key="err.file.json", **file_problem(exc)) from None
        raise kind(
            f"{path} is not valid {fmt}: {exc}",
            key="err.file.syntax",
            path=path,
            format=fmt,
            **file_problem(exc),
        ) from None
    except ValueError:  # tomllib's int() of a number beyond the interpreter's limit of digits
        raise kind(
            f"{where}a number of more than {MAX_DIGITS} digits", key="err.file.digits", most=MAX_DIGITS
        ) from None
    return data


def json_text(doc: Any, *, indent: int | None = 1) -> str:
    """`doc` as strict JSON (RFC 8259): what every command prints. JSON has no NaN nor Infinity, so a
    figure that is not a finite number (the spread of a single round) is written null, never as the
    bare NaN Python's json writes by default, which no strict reader accepts. Whole numbers are written
    as long as the engine made them: a document's have at most MAX_DIGITS digits, and a payout made of
    them (10:1 on a bet of MAX_DIGITS digits) a few more, which Python's own limit would refuse to write
    (a traceback after the round was played)."""
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return json.dumps(_finite(doc), ensure_ascii=False, indent=indent, allow_nan=False)
    finally:
        sys.set_int_max_str_digits(limit)


def _finite(value: Any) -> Any:
    """`value` with every non-finite float replaced by None (containers rebuilt only where needed)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def read_settings_file(path: str | Path, error: type[TapeteError] | None = None) -> dict[str, Any]:
    """Table settings (scenario.md's keys) from a JSON or TOML file: bare settings, or a document with a
    `rules` object (a scenario file) whose rules are taken. Errors are the `error` kind (BadFile)."""
    kind = error or BadFile
    p = Path(path)
    text = read_text(p, kind)
    data = parse_document(text, kind, syntax="toml" if p.suffix.lower() == ".toml" else "json", path=str(p))
    if isinstance(data, dict) and isinstance(data.get("rules"), dict):
        data = data["rules"]
    if not isinstance(data, dict):
        raise kind(f"{p} must hold an object of settings", key="err.file.settings_object", path=str(p))
    return data
