"""Refusals at the server: the API's own errors beside the engine's, and the one place where every typed
error becomes an HTTP status and server.md's body ``{"error": {"code", "message", "key", "params"}}``,
its message in the caller's language (Accept-Language; Spanish by default)."""

from __future__ import annotations

from typing import Any

from tapete.errors import Msg, TapeteError, json_safe
from tapete.i18n import DEFAULT_LANG, LANGUAGES, Money, Translator, _Renderer


class ApiError(TapeteError):
    """A refusal of the API itself (not of the game)."""

    status = 400


class Unauthorized(ApiError):
    """No token, or a token that no longer works (logged out, idle, unknown)."""

    code = "unauthorized"
    status = 401


class Forbidden(ApiError):
    """The caller's role (or his seat) does not allow this."""

    code = "forbidden"
    status = 403


class NotFound(ApiError):
    """No such table, round, user or request."""

    code = "not_found"
    status = 404


class Conflict(ApiError):
    """Not the phase for it, a seat already taken, an idempotency key reused for another request."""

    code = "conflict"
    status = 409


class RateLimited(ApiError):
    """Too many failed logins: throttled for a while (`seconds`, said in the Retry-After header too)."""

    code = "rate_limited"
    status = 429


class InsufficientFunds(ApiError):
    """The wallet cannot cover the bet or the step."""

    code = "insufficient_funds"
    status = 422


#: HTTP status by error code (the engine's codes are refusals of the request's content: 422).
STATUS: dict[str, int] = {
    "bad_request": 400,
    "bad_file": 400,
    "unauthorized": 401,
    "forbidden": 403,
    "not_found": 404,
    "conflict": 409,
    "rate_limited": 429,
    "insufficient_funds": 422,
    "limit_reached": 403,
    "invalid_rules": 422,
    "bad_bet": 422,
    "bad_cards": 422,
    "illegal_action": 422,
    "live_table_refused": 409,
    "shoe_seal_broken": 409,
    "unavailable": 503,  # not a refusal: the database did not answer; nothing changed, retry
}


def language(accept: str | None) -> str:
    """The caller's language from an Accept-Language header (RFC 9110 §12.5.4): of the tags naming es or
    en (a region aside), the one with the highest quality, the first on a tie; `q=0` means "not this
    one"; none of them (or `*`): Spanish."""
    best, best_q = DEFAULT_LANG, 0.0
    for part in (accept or "").split(","):
        tag, *params = (p.strip() for p in part.split(";"))
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        lang = tag.lower().split("-")[0]
        if lang in LANGUAGES and q > best_q:
            best, best_q = lang, q
    return best


_TRANSLATORS = {lang: Translator(lang) for lang in LANGUAGES}


#: the setting each regulation refusal concerns, for the refusals whose params do not name it
RULE_SETTINGS: dict[str, str] = {
    "err.rules.decks": "decks",
    "err.rules.min_above_max": "table_min",
    "err.rules.cut_card": "cut_card_depth",
    "err.rules.bj_burn": "burn",
    "err.rules.pyb_burn": "burn",
    "err.rules.surrender": "surrender",
    "err.rules.side_limits": "side_bet_min",
    "err.rules.empate_limits": "empate_min",
    "err.rules.commission": "commission_percent",
    "err.rules.tie_pays": "tie_pays",
    "err.rules.pot_bet": "pot_bet",
    "err.rules.bonus_hands": "bonus_paytable",
    "err.api.betting_live": "betting_seconds",
}


def _problems(exc: TapeteError, render: _Renderer) -> list[dict[str, Any]]:
    """Each problem of a refused table setting on its own, with the setting it concerns (so that a form
    shows it next to its field) and its message in the caller's language."""
    raw = exc.params.get("problems")
    items: list[Msg | TapeteError] = (
        [p for p in raw if isinstance(p, Msg)] if isinstance(raw, list | tuple) else [exc]
    )
    out = []
    for item in items:
        key = item.key or ""
        setting = item.params.get("setting") or RULE_SETTINGS.get(key)
        out.append(
            {"key": key, "setting": setting, "message": render.body(item), "params": json_safe(item.params)}
        )
    return out


def error_body(exc: TapeteError, lang: str) -> dict[str, Any]:
    """server.md's error body for `exc`, its message said in `lang` (the English text without a key);
    a refusal of table settings also lists its `problems`, each with the setting it concerns."""
    render = _Renderer(_TRANSLATORS.get(lang, _TRANSLATORS[DEFAULT_LANG]), Money())
    body: dict[str, Any] = {
        "code": exc.code,
        "message": render.body(exc),
        "key": exc.key or f"err.{exc.code}",
        "params": json_safe(exc.params),
    }
    if exc.at is not None:
        body["at"] = exc.at
    if exc.code == "invalid_rules":
        body["problems"] = _problems(exc, render)
    return {"error": body}


def headers_of(exc: TapeteError) -> dict[str, str] | None:
    """The headers a refusal's answer carries: Retry-After on a throttling (RFC 9110 §10.2.3)."""
    seconds = exc.params.get("seconds")
    if isinstance(exc, RateLimited) and isinstance(seconds, int):
        return {"Retry-After": str(seconds)}
    return None


def status_of(exc: TapeteError) -> int:
    """The HTTP status of a refusal (4xx, always)."""
    if isinstance(exc, ApiError):
        return exc.status
    return STATUS.get(exc.code, 400)
