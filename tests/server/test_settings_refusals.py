"""A refused table setting (invalid_rules) lists each problem with the setting it concerns, said in the
caller's language, so that the administrator's form shows it next to its field; the rest of the error
body is server.md's, unchanged."""

from __future__ import annotations

from tests.server.conftest import Api


def test_a_refused_table_setting_names_the_setting_in_the_callers_language(api: Api) -> None:
    body = {
        "game": "blackjack",
        "name": "x",
        "mode": "virtual",
        "rules": {"decks": 9, "table_min": 900, "table_max": 100},
    }
    for lang, words in (("en", "4 to 8 decks"), ("es", "de 4 a 8 barajas")):
        r = api.as_("admin", "POST", "/api/tables", json=body, headers={"Accept-Language": lang})
        assert r.status_code == 422
        error = r.json()["error"]
        assert error["code"] == "invalid_rules" and error["key"] == "err.rules.problems"  # as before
        problems = {p["setting"]: p for p in error["problems"]}
        assert set(problems) == {"decks", "table_min"}
        assert words in problems["decks"]["message"]
        assert problems["decks"]["key"] == "err.rules.decks"
    r = api.as_(
        "admin", "POST", "/api/tables", json={**body, "mode": "live", "rules": {"betting_seconds": 5}}
    )
    assert [p["setting"] for p in r.json()["error"]["problems"]] == ["betting_seconds"]
