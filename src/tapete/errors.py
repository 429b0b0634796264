"""Typed errors shared by the engine, the CLI and the server.

Each error carries the scenario contract's `code` (shared/spec/scenario.md) and, where there is one,
`at`: the index of the offending entry. The CLI and the server map them to exit codes / HTTP statuses
in one place (`tapete.cli`, `tapete.server`).
"""

from __future__ import annotations

import errno
import re
from pathlib import Path
from typing import Any


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


def read_settings_file(path: str | Path, error: type[TapeteError] | None = None) -> dict[str, Any]:
    """Table settings (scenario.md's keys) from a JSON or TOML file: bare settings, or a document with a
    `rules` object (a scenario file) whose rules are taken. Errors are the `error` kind (BadFile)."""
    import json
    import tomllib

    kind = error or BadFile
    p = Path(path)
    text = read_text(p, kind)
    toml = p.suffix.lower() == ".toml"
    try:
        data: Any = tomllib.loads(text) if toml else json.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise kind(
            f"{p} is not valid {'TOML' if toml else 'JSON'}: {exc}",
            key="err.file.syntax",
            path=str(p),
            format="TOML" if toml else "JSON",
            **file_problem(exc),
        ) from None
    if isinstance(data, dict) and isinstance(data.get("rules"), dict):
        data = data["rules"]
    if not isinstance(data, dict):
        raise kind(f"{p} must hold an object of settings", key="err.file.settings_object", path=str(p))
    return data
