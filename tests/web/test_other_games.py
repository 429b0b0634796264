"""Punto y Banca and Showdown Póker in the browser: the players bet in their pages on their zones and
positions, Showdown's players answer the exchange and both increments there, the cards come from a
physical shoe (posted through the API, as a shoe reader does), and the page shows each payout with its
reason and a result equal to the scenario's net for the same cards."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.web.conftest import DOCS, Shots, Site, log_in, new_page
from tests.web.helpers import decide, procedures, signed, until

EXAMPLES = Path(__file__).resolve().parents[1] / "scenarios" / "examples"


def scenario(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    given = json.loads((EXAMPLES / f"{name}.json").read_text())
    expected = json.loads((EXAMPLES / f"{name}.expected.json").read_text())
    return given, expected


def net_of(expected: dict[str, Any], player: str) -> int:
    value = expected["players"][player]
    return int(value["net"] if isinstance(value, dict) else value)


def seated(browser: Any, site: Site, table: int, names: list[str]) -> dict[str, Any]:
    pages = {}
    for name in names:
        page = new_page(browser, site.url)
        log_in(page, name, site.passwords[name])
        page.goto(f"{site.url}/#/table/{table}")
        page.wait_for_selector("#take-1")
        pages[name] = page
    return pages


def bet(page: Any, seat: int, spot: str, amount: int) -> None:
    """Type the amount, press the spot: the bet shows on it."""
    page.fill("#bet-amount", f"{amount / 100:.2f}")
    page.dispatch_event("#bet-amount", "change")
    page.click(f"#spot-{seat}-{spot}")
    page.wait_for_selector(f"#spot-{seat}-{spot}.spot--on")


def test_a_round_of_punto_y_banca(site: Site, browser: Any, shots: Shots) -> None:
    given, expected = scenario("punto-y-banca-third-cards")
    for name in ("ana", "ben"):
        site.user(name, chips=100_000)
    site.user("dora", "dealer")
    table = site.table("punto_y_banca", "live", name="Mesa 2 · Punto y Banca", **given["rules"])
    pages = seated(browser, site, table, ["ana", "ben"])
    for b in given["bets"]:
        page = pages[b["player"]]
        if not page.query_selector(f"#leave-{b['seat']}"):
            page.click(f"#take-{b['seat']}")
            page.wait_for_selector(f"#leave-{b['seat']}")
        bet(page, b["seat"], b["spot"], b["amount"])
    shots(pages["ben"], "bets-on-the-zones")
    procedures(site, "dora", table)  # the table's control procedures first
    site.call("dora", "POST", f"/api/tables/{table}/deal")
    cards = list(given["cards"])  # in the order of the scenario (cards left over are fine)
    while site.state("admin", table)["pending"]:
        site.call("dora", "POST", f"/api/tables/{table}/cards", json={"card": cards.pop(0)})
    until(lambda: site.state("admin", table)["phase"] == "betting", what="the coup's end")
    for name, page in pages.items():
        page.wait_for_selector("#my-result")
        assert page.inner_text("#my-result").endswith(signed(net_of(expected, name)))
        shots(page, f"result-{name}")
        if name == "ben":
            page.set_viewport_size(DOCS)
            shots.doc(page, "punto-y-banca")
    ana = pages["ana"]
    steps = ana.locator("#felt .steps li").all_inner_texts()
    assert len(steps) == 2 and "pide carta" in steps[0]  # Art.11, as the dealer calls it
    assert "Gana Punto" in ana.inner_text("#felt .result")
    payouts = pages["ben"].inner_text("#payouts")
    assert "Empate" in payouts and "pierde" in payouts
    assert not any(p.js_errors for p in pages.values())


def test_a_round_of_showdown_poker_with_an_exchange_and_both_increments(
    site: Site, browser: Any, shots: Shots
) -> None:
    given, expected = scenario("showdown-poker-exchange")
    for name in ("ana", "ben"):
        site.user(name, chips=100_000)
    site.user("dora", "dealer")
    table = site.table("showdown_poker", "live", name="Mesa 3 · Showdown Póker", **given["rules"])
    pages = seated(browser, site, table, ["ana", "ben"])
    for b in given["bets"]:
        if b["spot"] != "bet":
            continue  # the page posts the compulsory pot bet with the bet (Art.8)
        page = pages[b["player"]]
        page.click(f"#take-{b['seat']}")
        page.wait_for_selector(f"#leave-{b['seat']}")
        bet(page, b["seat"], "bet", b["amount"])
        page.wait_for_selector(f"#spot-{b['seat']}-pot.spot--on")
    shots(pages["ana"], "bets-and-pot-bets")
    procedures(site, "dora", table)  # the table's control procedures first
    site.call("dora", "POST", f"/api/tables/{table}/deal")
    cards = list(given["cards"])
    actions = list(given["actions"])
    for _ in range(40):
        state = site.state("admin", table)
        p = state["pending"]
        if p is None:
            break
        if p["kind"] == "card":
            site.call("dora", "POST", f"/api/tables/{table}/cards", json={"card": cards.pop(0)})
        else:
            page = pages[p["holder"]]
            wanted = (
                actions[0]
                if actions and actions[0]["seat"] == p["seat"] and actions[0]["action"] in p["legal"]
                else None
            )
            if wanted:
                actions.pop(0)
            if wanted and wanted["action"] == "exchange":
                page.wait_for_selector(f'[data-turn="{state["round"]}:{p["seat"]}:{p["hand"]}:exchange"]')
                for card in wanted["cards"]:
                    page.click(f'#turn-bar [data-card="{card}"]')
                page.wait_for_selector(f"#act-exchange:has-text('{len(wanted['cards'])}'):enabled")
                shots(page, "exchange-chosen")
                page.set_viewport_size(DOCS)
                shots.doc(page, "showdown-exchange")
                page.click("#act-exchange")
            else:
                decide(page, state, wanted["action"] if wanted else "decline")
                if wanted and wanted["action"] == "increment_2":
                    shots(page, "increment-2")
        until(lambda seq=state["seq"]: site.state("admin", table)["seq"] > seq, what="the step")
    assert not actions and not cards
    for name, page in pages.items():
        page.wait_for_selector("#my-result")
        assert page.inner_text("#my-result").endswith(signed(net_of(expected, name)))
        shots(page, f"showdown-{name}")
    ana = pages["ana"]
    assert ana.locator('#felt .box[data-seat="1"] .tag').count() == 2  # increments Nº1 and Nº2
    assert "cambió 2" in ana.inner_text('#felt .box[data-seat="3"]')
    assert "pot bet" in ana.inner_text("#payouts")
    assert not any(p.js_errors for p in pages.values())


def test_bets_the_betting_timer_returns_are_said_next_to_the_box(
    site: Site, browser: Any, shots: Shots
) -> None:
    """A Showdown bet placed without its pot bet (through the API: the page places both) cannot be dealt:
    the betting timer gives it back, and the bettor's page says so next to his box, with the reason."""
    site.user("ana", chips=50_000)
    site.user("beto", chips=50_000)
    table = site.table("showdown_poker", betting_seconds=1.5, turn_seconds=None)
    page = new_page(browser, site.url)
    log_in(page, "beto", site.passwords["beto"])
    page.click(f"#open-table-{table}")
    page.wait_for_selector("#take-1")
    for who, seat in (("ana", 1), ("beto", 2)):
        site.call(who, "POST", f"/api/tables/{table}/seats", json={"seat": seat})
        site.call(who, "POST", f"/api/tables/{table}/bets", json={"seat": seat, "spot": "bet", "amount": 500})
    site.call("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "pot", "amount": 100})
    page.wait_for_selector("#seat-error-2:has-text('devueltas')", timeout=20_000)
    said = page.inner_text("#seat-error-2")
    assert "pozo" in said.lower() or "pot" in said.lower(), said
    assert site.state("beto", table)["phase"] == "playing" and site.balance("beto") == 50_000
    shots(page, "bets-returned")
    assert not page.js_errors
