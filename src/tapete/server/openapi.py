"""The OpenAPI document the server serves, completed where FastAPI's own falls short of server.md: the
Bearer token, the refusals every operation may answer (server.md's error body, not FastAPI's 422
validation shape, which the server never sends), the answers that are not JSON, and the WebSocket,
which OpenAPI has no operation for (described in `info` and in `x-websockets`). The answers' shapes are
the endpoints' own response models (each endpoint module's), which FastAPI writes into the document."""

from __future__ import annotations

import copy
from typing import Any

from tapete.server.live.push_api import StatePush

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
    schemas["Error"] = ERROR
    push = StatePush.model_json_schema(ref_template="#/components/schemas/{model}")
    for name, schema in push.pop("$defs", {}).items():  # State and its parts, as the answers name them
        schemas.setdefault(name, schema)
    schemas["StatePush"] = push
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
