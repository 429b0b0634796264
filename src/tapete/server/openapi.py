"""The OpenAPI document the server serves, completed where FastAPI's own falls short of server.md: the
Bearer token, the refusals every operation may answer (server.md's error body, not FastAPI's 422
validation shape, which the server never sends), the shapes of the answers server.md names, and the
WebSocket, which OpenAPI has no operation for (described in `info` and in `x-websockets`)."""

from __future__ import annotations

import copy
from typing import Any

#: the operations that need no token
OPEN = {("get", "/api/health"), ("post", "/api/login"), ("get", "/api/i18n/{lang}")}

CODES = [
    "bad_request",
    "unauthorized",
    "forbidden",
    "not_found",
    "conflict",
    "rate_limited",
    "insufficient_funds",
    "limit_reached",
    "invalid_rules",
    "bad_bet",
    "bad_cards",
    "illegal_action",
]

ERROR: dict[str, Any] = {
    "type": "object",
    "description": "Every refusal (server.md): `message` in the caller's language (Accept-Language, "
    "Spanish by default), `key`/`params` for a client that renders its own.",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message", "key", "params"],
            "properties": {
                "code": {"type": "string", "enum": CODES},
                "message": {"type": "string"},
                "key": {"type": "string"},
                "params": {"type": "object"},
                "at": {"type": "integer", "description": "the bet's index, where a bet is refused"},
                "problems": {"type": "array", "description": "invalid_rules: each setting refused"},
            },
        }
    },
}

#: refusals by status: what each means (server.md's codes)
REFUSALS: dict[int, str] = {
    400: "bad_request: a malformed body or parameter",
    401: "unauthorized: no token, or one that opens no session",
    403: "forbidden: not this caller's role, or not his box; limit_reached: past a limit the player set",
    404: "not_found: no such table, round, user or path",
    409: "conflict: not the phase for it, a seat already taken, an idempotency key reused, another "
    "request first",
    422: "the engine's refusals (invalid_rules, bad_bet, bad_cards, illegal_action) and insufficient_funds",
}

_NULLABLE_INT = {"type": ["integer", "null"]}

TABLE: dict[str, Any] = {
    "type": "object",
    "required": ["id", "name", "game", "mode", "rules", "seats_taken"],
    "properties": {
        "id": {"type": "integer"},
        "name": {"type": "string"},
        "game": {"type": "string", "enum": ["blackjack", "punto_y_banca", "showdown_poker", "majestic_21"]},
        "mode": {"type": "string", "enum": ["virtual", "live"]},
        "rules": {"type": "object"},
        "status": {"type": "string"},
        "seats_taken": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["seat", "holder"],
                "properties": {"seat": {"type": "integer"}, "holder": {"type": "string"}},
            },
        },
    },
}

STATE: dict[str, Any] = {
    "type": "object",
    "description": "The caller's view of a table (server.md): never a card the table has not shown him.",
    "required": ["table", "phase", "round", "pending", "view", "seats", "seq"],
    "properties": {
        "table": {
            "type": "object",
            "required": ["id", "game", "mode", "rules"],
            "properties": {
                "id": {"type": "integer"},
                "game": {"type": "string"},
                "mode": {"type": "string"},
                "rules": {"type": "object"},
            },
        },
        "phase": {"type": "string", "enum": ["betting", "playing"]},
        "round": _NULLABLE_INT,
        "pending": {
            "description": "what the table waits for: {kind: card} at a live table, {kind: decision, seat, "
            "hand, legal, max_amount?, deadline?}, or null between rounds",
            "oneOf": [
                {"type": "null"},
                {
                    "type": "object",
                    "required": ["kind"],
                    "properties": {"kind": {"type": "string", "enum": ["card", "decision"]}},
                },
            ],
        },
        "view": {"type": "object", "description": "the engine's view for this caller"},
        "seats": {"type": "array", "items": {"type": "object"}},
        "seq": {"type": "integer", "description": "the table's version: every change moves it"},
    },
}

PUSH: dict[str, Any] = {
    "type": "object",
    "description": "A WebSocket message: the caller's state after every committed change.",
    "required": ["type", "seq", "state"],
    "properties": {
        "type": {"const": "state"},
        "seq": {"type": "integer"},
        "state": {"$ref": "#/components/schemas/State"},
    },
}


def _obj(*required: str, **properties: Any) -> dict[str, Any]:
    return {"type": "object", "required": list(required), "properties": properties}


_INT, _STR, _BOOL = {"type": "integer"}, {"type": "string"}, {"type": "boolean"}
_LIST = {"type": "array"}
_STATE_REF = {"$ref": "#/components/schemas/State"}

#: the answers server.md names, by operation and status
ANSWERS: dict[tuple[str, str], dict[str, dict[str, Any]]] = {
    ("get", "/api/health"): {"200": _obj("ok", "version", ok={"const": True}, version=_STR)},
    ("post", "/api/login"): {
        "200": _obj("token", "user", token=_STR, user=_obj("name", "role", name=_STR, role=_STR))
    },
    ("post", "/api/logout"): {"200": {"type": "object"}},
    ("get", "/api/me"): {
        "200": _obj(
            "name",
            "role",
            name=_STR,
            role=_STR,
            balance=_INT,
            # player protection (server.md): a player's session and his limits (docs/protection.md)
            session=_obj(
                "started_at", "previous_login", "wagered", "net", started_at=_STR, wagered=_INT, net=_INT
            ),
            limits={"$ref": "#/components/schemas/LimitsOut"},
        )
    },
    ("post", "/api/users"): {"201": _obj("name", "role", name=_STR, role=_STR)},
    ("post", "/api/cashier/buy-in"): {"200": _obj("player", "balance", player=_STR, balance=_INT)},
    ("post", "/api/cashier/cash-out"): {"200": _obj("player", "balance", player=_STR, balance=_INT)},
    ("post", "/api/tables"): {"201": {"$ref": "#/components/schemas/Table"}},
    ("get", "/api/tables"): {
        "200": _obj("tables", tables={"type": "array", "items": {"$ref": "#/components/schemas/Table"}})
    },
    ("get", "/api/tables/{table_id}"): {"200": {"$ref": "#/components/schemas/Table"}},
    ("post", "/api/tables/{table_id}/bets"): {
        "200": _obj("status", status={"const": "placed"}, seat=_INT, spot=_STR, amount=_INT),
        "202": _obj("request", "status", request=_INT, status={"const": "waiting"}),
    },
    ("post", "/api/tables/{table_id}/deal"): {"200": _STATE_REF},
    ("post", "/api/tables/{table_id}/actions"): {"200": _STATE_REF},
    ("post", "/api/tables/{table_id}/cards"): {"200": _STATE_REF},
    ("post", "/api/tables/{table_id}/procedures"): {"200": _STATE_REF},
    ("get", "/api/tables/{table_id}/state"): {"200": _STATE_REF},
    ("get", "/api/tables/{table_id}/rounds"): {
        "200": _obj(
            "rounds", rounds={"type": "array", "items": _obj("round", "status", round=_INT, status=_STR)}
        )
    },
    ("get", "/api/tables/{table_id}/rounds/{n}"): {
        "200": _obj(
            "round",
            "status",
            "cards",
            "decisions",
            "ledger",
            "procedures",
            "events",
            round=_INT,
            status={"type": "string", "enum": ["in_progress", "finished", "voided"]},
            cards=_LIST,
            decisions=_LIST,
            ledger={
                "type": "array",
                "items": _obj("id", "account", "amount", id=_INT, account=_STR, amount=_INT),
            },
            procedures=_LIST,
            events=_LIST,
        )
    },
    ("get", "/api/tables/{table_id}/verify"): {
        "200": _obj("ok", "records", ok=_BOOL, records=_INT, first_bad=_INT, reason=_STR)
    },
    ("get", "/api/reports/tables"): {
        "200": _obj(
            "tables",
            tables={
                "type": "array",
                "items": _obj(
                    "table",
                    "name",
                    "game",
                    "rounds",
                    "drop",
                    "win",
                    "hold_percent",
                    table=_INT,
                    name=_STR,
                    game=_STR,
                    rounds=_INT,
                    drop=_INT,
                    win=_INT,
                    hold_percent={"type": ["number", "null"]},
                ),
            },
        )
    },
}

#: answers that are not JSON: their media type instead of it, or beside it
INSTEAD_OF_JSON: dict[tuple[str, str], dict[str, Any]] = {
    ("get", "/api/tables/{table_id}/log"): {
        "application/jsonl": {"schema": {"type": "string", "description": "one chained record a line"}}
    },
}
BESIDE_JSON: dict[tuple[str, str], dict[str, Any]] = {
    ("get", "/api/reports/tables"): {
        "text/csv": {"schema": {"type": "string", "description": "format=csv: the same columns"}}
    },
}

WEBSOCKET = """

## WebSocket: `WS /ws/tables/{table_id}?token=TOKEN[&since=N]`

Any user. After every committed change of the table the server pushes the caller's own state,
`{"type": "state", "seq": N, "state": {…}}` (schema `StatePush`; `state` as `GET
/api/tables/{table_id}/state` answers it), numbered by the table's version. On connecting, the newest
state comes at once; a client that reconnects with `since=N` (the last `seq` it saw) gets the newest
state if it is newer, so a message lost while it was away does no harm. A client may send `{"type":
"ping"}` and gets `{"type": "pong"}`. A refused handshake is answered with the refusal's HTTP status and
error body: 401 `unauthorized` (no token, or one that opens no session), 404 `not_found` (no such table),
400 `bad_request` (a table id that is no number). An open socket is closed with code 4401 when its session
ends (a logout, its user deactivated or given another role, or idle): log in again.
"""


def shape(doc: dict[str, Any]) -> dict[str, Any]:
    """FastAPI's document (`doc`) completed as this module says; returns a new document."""
    doc = copy.deepcopy(doc)
    components = doc.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)
    schemas.update({"Error": ERROR, "State": STATE, "StatePush": PUSH, "Table": TABLE})
    components["securitySchemes"] = {
        "bearer": {
            "type": "http",
            "scheme": "bearer",
            "description": "the token of POST /api/login (the web page may send it as a cookie instead)",
        }
    }
    error = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    for path, item in doc.get("paths", {}).items():
        for method, op in item.items():
            responses = op.setdefault("responses", {})
            responses.pop("422", None)
            if (method, path) not in OPEN:
                op["security"] = [{"bearer": []}]
            for status, schema in ANSWERS.get((method, path), {}).items():
                answer = responses.setdefault(status, {"description": "the answer"})
                answer["content"] = {"application/json": {"schema": schema}}
            if (method, path) in INSTEAD_OF_JSON:
                responses["200"]["content"] = INSTEAD_OF_JSON[(method, path)]
            if (method, path) in BESIDE_JSON:
                responses["200"].setdefault("content", {}).update(BESIDE_JSON[(method, path)])
            for code, text in REFUSALS.items():
                responses[str(code)] = {"description": text, "content": error}
            if (method, path) == ("post", "/api/login"):
                responses["429"] = {"description": "rate_limited: too many failed logins", "content": error}
    info = doc.setdefault("info", {})
    info["description"] = info.get("description", "") + WEBSOCKET
    doc["x-websockets"] = {
        "/ws/tables/{table_id}": {
            "query": {"token": "the login token", "since": "the last seq seen (optional)"},
            "messages": {"$ref": "#/components/schemas/StatePush"},
            "refusals": {str(code): REFUSALS[code] for code in (400, 401, 404)},
            "close_codes": {"4401": "the session ended (logout, user changed, idle): log in again"},
        }
    }
    return doc
