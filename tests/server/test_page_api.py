"""What the server adds for the web page (beside server.md, nothing of it changed): the language catalogs,
each game's settings with their defaults, a table's layout phrases and house rules, every payout of the
round in view with its reason (the terminal tables' words)."""

from __future__ import annotations

import json
from pathlib import Path

from tapete.games import GAMES
from tapete.i18n import LANGUAGES, catalog, house_rules_lines, layout_lines
from tapete.rules import load_rules
from tests.server.conftest import Api
from tests.server.support import procedures

EXAMPLES = Path(__file__).resolve().parents[1] / "scenarios" / "examples"


def test_the_catalogs_the_games_and_a_tables_house_rules(api: Api) -> None:
    """One casino for the three reads (each server test pays for its database twice)."""
    # the catalogs, to anyone, whole
    bodies = {lang: api.client.get(f"/api/i18n/{lang}").json() for lang in LANGUAGES}
    for lang, body in bodies.items():
        assert body["lang"] == lang and body["messages"] == dict(catalog(lang))
        assert body["messages"]["layout.blackjack.1"] == layout_lines("blackjack", lang)[0]
        assert body["messages"]["web.login.title"]
    assert set(bodies["es"]["messages"]) == set(bodies["en"]["messages"])
    r = api.client.get("/api/i18n/fr")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"

    # each game with its settings' defaults and bounds
    assert api.client.get("/api/games").status_code == 401
    games = {g["game"]: g for g in api.ok("admin", "GET", "/api/games")["games"]}
    assert list(games) == list(GAMES)
    for game, doc in games.items():
        assert doc["settings"] == dict(load_rules(game, {}).settings())
        assert set(doc["fields"]) == set(doc["settings"]) | {"turn_seconds", "betting_seconds"}
        assert doc["seats"] == 7
    assert games["blackjack"]["fields"]["decks"]["type"] == "integer"
    assert games["blackjack"]["fields"]["cut_card_depth"]["nullable"] is True
    assert games["punto_y_banca"]["fields"]["shoe_passes"]["enum"] == ["banca_loses", "every_round"]
    assert games["showdown_poker"]["required_spots"] == ["bet", "pot"]
    assert games["majestic_21"]["side_spots"] == ["under_13", "over_13", "exactly_13"]

    # a table's layout phrases and house rules in every language
    bj = api.table("blackjack")
    sd = api.table("showdown_poker", pot_bet=200, payout_limit=500_000)
    api.user("ana", "player")
    words = api.ok("ana", "GET", f"/api/tables/{bj}/house-rules")
    assert words["layout"] == {lang: list(layout_lines("blackjack", lang)) for lang in LANGUAGES}
    assert words["house_rules"] == {"es": [], "en": []}
    words = api.ok("ana", "GET", f"/api/tables/{sd}/house-rules")
    rules = load_rules("showdown_poker", {"pot_bet": 200, "payout_limit": 500_000})
    for lang in LANGUAGES:
        assert words["house_rules"][lang] == list(house_rules_lines(rules, lang, currency="PEN"))
    assert "S/ 2.00" in " ".join(words["house_rules"]["es"])
    assert api.as_("ana", "GET", "/api/tables/999/house-rules").status_code == 404


def test_every_payout_in_the_state_with_its_reason_in_both_languages(api: Api) -> None:
    scenario = json.loads((EXAMPLES / "blackjack-split-and-double.json").read_text())
    expected = json.loads((EXAMPLES / "blackjack-split-and-double.expected.json").read_text())
    api.user("ana", "player", chips=100_000)
    api.user("ben", "player", chips=100_000)
    api.user("dora", "dealer")
    table = api.table("blackjack", "live", **scenario["rules"])
    for b in scenario["bets"]:
        api.ok(b["player"], "POST", f"/api/tables/{table}/seats", json={"seat": b["seat"]})
        api.ok(
            b["player"],
            "POST",
            f"/api/tables/{table}/bets",
            json={k: b[k] for k in ("seat", "spot", "amount")},
        )
    assert api.state("ana", table)["payouts"] == []
    procedures(api, "dora", table)  # the control procedures it owes first
    api.ok("dora", "POST", f"/api/tables/{table}/deal")
    cards, actions = list(scenario["cards"]), list(scenario["actions"])
    state = api.state("dora", table)
    while state["pending"] is not None:
        p = state["pending"]
        if p["kind"] == "card":
            state = api.ok("dora", "POST", f"/api/tables/{table}/cards", json={"card": cards.pop(0)})
            continue
        entry = actions.pop(0) if p["decision"] == "play" else {"seat": p["seat"], "action": "decline"}
        state = api.ok(p["holder"], "POST", f"/api/tables/{table}/actions", json=entry)
    lines = api.state("ben", table)["payouts"]  # a payout is public at a table: every viewer reads it
    assert [(line["player"], line["spot"], line["stake"], line["paid"]) for line in lines] == [
        ("ana", "main", 1000, 2000),
        ("ana", "double", 1000, 2000),
        ("ana", "main", 1000, 2000),
        ("ben", "main", 500, 1000),
    ]
    for player, net in expected["players"].items():
        assert sum(line["net"] for line in lines if line["player"] == player) == (
            net["net"] if isinstance(net, dict) else net
        )
    assert {line["why"]["es"] for line in lines} == {"el dealer voló con 24: paga 1 a 1"}
    assert {line["why"]["en"] for line in lines} == {"the dealer busted (volar) with 24: pays 1 to 1"}
    assert lines[1]["what"] == {"es": "incremento", "en": "double (incremento)"}
