"""A property-based run of the served OpenAPI document (schemathesis): every operation of
/openapi.json, with data that fits its schema (positive) and data that does not (negative), sent with
an administrator's, a dealer's and a player's token into a casino that has tables in play. No answer
may be a 5xx, and every 4xx must carry server.md's error body; and the document tells the truth
(server.md): a request valid by it is never refused for its shape (no 400 bad_request in the positive
mode), and the requests the server refuses for their shape are ones the document refuses too.

The default run is short (about a minute for both databases); `-m slow` runs many more examples."""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from tests.server.conftest import Api
from tests.server.support import error_of, live_deal

pytestmark = pytest.mark.usefixtures("fast_hashing")

#: operations left out: logging out would end the tokens the run speaks with
LEFT_OUT = {("POST", "/api/logout")}
TOKENS = ("admin", "dora", "ana")


#: refusals that depend on what no schema states: today's date (a birth date under 18), the user's
#: role (only a player carries an identity), another player's document
BY_CONTENT = frozenset(
    {"err.protection.under_age", "err.protection.not_player", "err.protection.document_taken"}
)


def _casino(api: Api) -> list[int]:
    """A casino worth probing: players with chips and seats, a virtual table with a bet, a live table
    whose round waits for a card, a Punto y Banca and a Showdown table; their ids."""
    api.user("ana", "player", chips=1_000_000)
    api.user("luis", "player", chips=1_000_000)
    api.user("dora", "dealer")
    api.user("spare", "player")  # the user whose password and role the run changes (not a token's)
    virtual = api.table("blackjack", turn_seconds=None)
    live = api.table("blackjack", "live")
    pyb = api.table("punto_y_banca")
    showdown = api.table("showdown_poker", "live")
    for table in (virtual, live, pyb, showdown):
        api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    api.ok("ana", "POST", f"/api/tables/{virtual}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
    api.ok("ana", "POST", f"/api/tables/{live}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
    live_deal(api, "dora", live, ["6h", "9c"])
    return [virtual, live, pyb, showdown]


def _send(api: Api, case: Any, who: str) -> Any:
    """Send a generated case through the app's TestClient as `who` (the token replaces any generated
    Authorization header)."""
    kw = case.as_transport_kwargs(base_url="http://testserver")
    headers = {k: v for k, v in (kw.get("headers") or {}).items() if k.lower() != "authorization"}
    headers["Authorization"] = f"Bearer {api.tokens[who]}"
    request: dict[str, Any] = {"headers": headers, "params": kw.get("params") or None}
    if "json" in kw:
        request["json"] = kw["json"]
    elif isinstance(kw.get("data"), bytes | str):
        request["content"] = kw["data"]
    elif kw.get("data") is not None:
        request["data"] = kw["data"]
    return api.client.request(kw["method"], kw["url"], cookies=kw.get("cookies") or None, **request)


def run_schemathesis(api: Api, examples: int) -> collections.Counter[str]:
    """`examples` generated cases per operation and mode; the count of answers by status class. Fails on
    the first 5xx (Hypothesis then shrinks it to the smallest case) or a 4xx without the error body."""
    tables = _casino(api)
    doc = api.client.get("/openapi.json").json()
    schema = schemathesis.openapi.from_dict(doc)
    operations = [
        op.ok()
        for op in schema.get_all_operations()
        if (op.ok().method.upper(), op.ok().path) not in LEFT_OUT
    ]
    assert len(operations) >= 30
    tally: collections.Counter[str] = collections.Counter()

    def check(op: Any, mode: GenerationMode) -> Callable[[], None]:
        strategies = [op.as_strategy(generation_mode=mode)]
        if "{name}" in op.path and op.method.upper() == "PATCH":  # a change ends the user's tokens
            strategies.append(op.as_strategy(generation_mode=mode, path_parameters={"name": "spare"}))
        if "{table_id}" in op.path:  # most paths also aimed at a table that exists
            strategies += [
                op.as_strategy(generation_mode=mode, path_parameters={"table_id": t}) for t in tables
            ]

        @settings(
            max_examples=examples,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
            derandomize=False,
        )
        @given(case=st.one_of(strategies), who=st.sampled_from(TOKENS))
        def probe(case: Any, who: str) -> None:
            try:
                response = _send(api, case, who)
            except Exception as exc:  # the TestClient re-raises what the app did not handle: a 500
                raise AssertionError(f"{case.method} {case.formatted_path} as {who}: {case!r}") from exc
            tally[f"{response.status_code // 100}xx"] += 1
            tally["examples"] += 1
            said = (
                f"{case.method} {case.formatted_path} as {who}: {response.status_code} {response.text[:300]}"
            )
            assert response.status_code < 500, said
            if 400 <= response.status_code < 500:
                error = error_of(response)
                if mode == GenerationMode.POSITIVE and error.get("key") not in BY_CONTENT:
                    # valid by the document: never refused for its shape
                    assert response.status_code != 400 and error["code"] != "bad_request", f"{said}\n{case!r}"

        return probe

    for op in operations:
        check(op, GenerationMode.POSITIVE)()
        try:
            check(op, GenerationMode.NEGATIVE)()
        except Unsatisfiable:  # an operation with nothing to get wrong (no parameter, no body)
            tally["nothing to negate"] += 1
    return tally


def test_schemathesis_finds_no_server_error(api: Api, capsys: pytest.CaptureFixture[str]) -> None:
    """The default run: a few examples of each operation in each mode."""
    tally = run_schemathesis(api, examples=10)
    with capsys.disabled():
        print(f"\nschemathesis: {dict(tally)}")
    assert tally["examples"] >= 500
    assert tally["2xx"] > 0 and tally["4xx"] > 0


@pytest.mark.slow
def test_schemathesis_finds_no_server_error_long(api: Api, capsys: pytest.CaptureFixture[str]) -> None:
    """The long run (``-m slow``): many examples of each operation in each mode."""
    tally = run_schemathesis(api, examples=300)
    with capsys.disabled():
        print(f"\nschemathesis (long): {dict(tally)}")
    assert tally["examples"] >= 15_000


def test_the_document_refuses_what_the_server_refuses_for_its_shape(api: Api) -> None:
    """What schemathesis found the document allowing and the server refusing (the issue's examples): an
    amount of 0 at the cashier, a table with an empty name, a report's `format=`, a user name with a
    space or a last newline, a password of 7 characters, an unknown role, game, mode or table status,
    a blank reason, a NUL in a text. Each is now invalid by /openapi.json's own schemas; and a seat of
    -626.0 (an integer, for JSON Schema) is valid by it and taken by the server as the seat -626."""
    import jsonschema
    from jsonschema.validators import validator_for

    doc = api.client.get("/openapi.json").json()

    def body_schema(method: str, path: str) -> dict[str, Any]:
        ref = doc["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        return {**doc["components"]["schemas"][ref.split("/")[-1]], "components": doc["components"]}

    def valid(method: str, path: str, body: dict[str, Any]) -> bool:
        schema = body_schema(method, path)
        checker = validator_for(schema)(schema, format_checker=jsonschema.FormatChecker())
        return bool(checker.is_valid(body))

    refused_by_both: list[tuple[str, str, dict[str, Any]]] = [
        ("post", "/api/cashier/buy-in", {"player": "ana", "amount": 0}),
        ("post", "/api/tables", {"game": "blackjack", "name": "", "mode": "virtual"}),
        ("post", "/api/tables", {"game": "blackjack", "name": "   ", "mode": "virtual"}),
        ("post", "/api/tables", {"game": "bingo", "name": "Mesa"}),
        ("post", "/api/tables", {"game": "blackjack", "name": "Mesa", "mode": "online"}),
        ("post", "/api/users", {"username": "ana maria", "password": "password-1", "role": "player"}),
        ("post", "/api/users", {"username": "ana\n", "password": "password-1", "role": "player"}),
        ("post", "/api/users", {"username": "eva", "password": "short-7", "role": "player"}),
        ("post", "/api/users", {"username": "eva", "password": "password-1", "role": "croupier"}),
        ("post", "/api/login", {"username": "ana\x00", "password": "password-1"}),
        ("patch", "/api/tables/{table_id}", {"status": "paused", "reason": "a spill"}),
        ("patch", "/api/tables/{table_id}", {"status": "open", "reason": " "}),
        ("post", "/api/tables/{table_id}/void", {"reason": ""}),
        ("post", "/api/tables/{table_id}/procedures", {"type": "deck_change"}),
    ]
    api.user("ana", "player")
    table = api.table("blackjack", "live")
    for method, path, body in refused_by_both:
        assert not valid(method, path, body), (method, path, body)
        r = api.as_("admin", method.upper(), path.replace("{table_id}", str(table)), json=body)
        if path.endswith(("/void", "/procedures")):  # refused first for the phase or the role here
            assert 400 <= r.status_code < 500, (path, body, r.text)
        else:
            assert r.status_code == 400 and error_of(r)["code"] == "bad_request", (path, body, r.text)
    report = doc["paths"]["/api/reports/tables"]["get"]["parameters"]
    assert next(p for p in report if p["name"] == "format")["schema"]["enum"] == ["json", "csv"]
    assert api.as_("admin", "GET", "/api/reports/tables?format=").status_code == 400
    # a bet of 0: the document refuses it, and the engine does (bad_bet, its own code)
    assert not valid("post", "/api/tables/{table_id}/bets", {"seat": 1, "spot": "main", "amount": 0})
    assert not valid("post", "/api/tables/{table_id}/actions", {"seat": 1, "action": "double", "amount": 0})
    assert valid("post", "/api/tables/{table_id}/seats", {"seat": -626.0})
    assert valid("post", "/api/tables/{table_id}/seats", {"seat": 1.0})
    r = api.as_("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1.0})
    assert r.status_code == 200 and r.json()["seat"] == 1, r.text
    r = api.as_("ana", "POST", f"/api/tables/{table}/seats", json={"seat": -626.0})
    assert r.status_code != 400, r.text  # not its shape: there is no such box (the engine says so)
