"""The control procedures, a deck-change request and a claim in the browser (server.md "Control procedures at
a live table", "Claims"): the dealer's console shows what the table owes before its deal as a checklist in
the regulation's order, each step one key press (Enter on the highlighted one), the cut with who cut and
the cut card's depth (30 refused under the checklist); a seated player asks for a deck change from his
table page and the dealer answers it; the player files a claim from his round history, the inspector
resolves it beside the round's recall, and the player reads the resolution."""

from __future__ import annotations

from typing import Any

from tests.web.conftest import ARTIFACTS, DOCS, Shots, Site, log_in, new_page
from tests.web.helpers import until

NEW_PACK = ["new_pack", "inspect", "show", "turn", "mix", "shuffle", "cut", "load", "burn"]


def doc_at(page: Any, selector: str, name: str) -> None:
    """A screenshot for the documentation (artifacts/web/docs/NAME.png, as `Shots.doc`) with `selector`
    scrolled into the window: the side panels are below the felt."""
    page.eval_on_selector(selector, "e => e.scrollIntoView({block: 'center'})")
    folder = ARTIFACTS / "docs"
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=False)


def checklist(page: Any) -> list[str]:
    return page.eval_on_selector_all(
        "#procedure-checklist [data-step]", "els => els.map(e => e.dataset.step)"
    )


def test_the_dealers_checklist_a_deck_change_request_and_a_players_claim(
    site: Site, browser: Any, shots: Shots
) -> None:
    site.user("ana", chips=100_000)
    site.user("dora", "dealer")
    site.user("ivan", "inspector")
    table = site.table("blackjack", "live", name="Mesa 4 · Black Jack en vivo")
    site.call("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    site.call("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})

    dealer = new_page(browser, site.url, viewport=DOCS)
    log_in(dealer, "dora", site.passwords["dora"])
    dealer.click(f"#console-{table}")
    dealer.wait_for_selector("#procedure-checklist")
    assert checklist(dealer) == NEW_PACK
    dealer.click("#deal")  # before its procedures the table refuses to deal, and says what comes first
    dealer.wait_for_selector("#deal-error:has-text('Paquete nuevo')")  # the steps in the page's words
    shots(dealer, "checklist-new-pack")
    for i, step in enumerate(NEW_PACK):
        if step == "cut":
            dealer.select_option("#cut-by", "ana")
            dealer.fill("#cut-depth", "30")
            dealer.click("#proc-cut")
            dealer.wait_for_selector("#procedure-error:has-text('30')")
            assert checklist(dealer)[0] == "cut"
            doc_at(dealer, "#procedure-checklist", "dealer-checklist")
            shots(dealer, "cut-card-depth-refused")
            dealer.fill("#cut-depth", "100")
        dealer.focus(f"#proc-{step}")
        dealer.keyboard.press("Enter")  # one key press per step
        if i + 1 < len(NEW_PACK):
            dealer.wait_for_selector(
                f"#procedure-checklist [data-step='{NEW_PACK[i + 1]}'].checklist__step--next"
            )
        else:
            dealer.wait_for_selector("#procedures-ready")
    shots(dealer, "procedures-done")
    state = site.state("dora", table)
    assert state["procedures_due"] == []
    log = site.http.get(
        f"/api/tables/{table}/log", headers={"Authorization": f"Bearer {site.tokens['ivan']}"}
    )
    cut = next(line for line in log.text.splitlines() if '"step": "cut"' in line)
    assert '"cut_card_depth": 100' in cut and '"by": "ana"' in cut, cut

    # the round: 19 against the dealer's 17
    dealer.click("#deal")
    dealer.wait_for_selector("#card-input:enabled")
    for card in ("Ts", "9h", "9c", "6c"):
        site.call("dora", "POST", f"/api/tables/{table}/cards", json={"card": card})
    site.call("ana", "POST", f"/api/tables/{table}/actions", json={"seat": 1, "action": "decline"})
    site.call("ana", "POST", f"/api/tables/{table}/actions", json={"seat": 1, "action": "stand"})
    site.call("dora", "POST", f"/api/tables/{table}/cards", json={"card": "2d"})
    until(lambda: site.state("ana", table)["phase"] == "betting", what="the round's end")

    # ana asks for a deck change from her table page; the dealer's console lists it and answers it
    player = new_page(browser, site.url, viewport=DOCS)
    log_in(player, "ana", site.passwords["ana"])
    player.goto(f"{site.url}/#/table/{table}")
    player.wait_for_selector("#deck-request-form")
    player.fill("#deck-request-reason", "el 7 de corazones tiene una esquina doblada")
    player.click("#deck-request-submit")
    player.wait_for_selector("#deck-request-ok:has-text('1')")
    dealer.wait_for_selector("#deck-request-1")
    assert "esquina doblada" in dealer.inner_text("#deck-requests")
    shots(dealer, "deck-change-request")
    dealer.click("#deck-change-1")
    dealer.wait_for_selector("#procedure-checklist [data-step='new_pack'].checklist__step--next")
    assert checklist(dealer) == NEW_PACK and not dealer.query_selector("#deck-requests")

    # her claim about round 1, from her history
    player.click(f"#history-{table}-1")
    player.click(f"#claim-{table}-1 summary")
    player.fill(f"#claim-text-{table}-1", "El crupier sacó un 2 y yo vi un 3.")
    doc_at(player, f"#claim-{table}-1", "player-claim")
    player.click(f"#claim-submit-{table}-1")
    player.wait_for_selector(f"#claim-status-{table}-1")
    shots(player, "claim-filed")
    (claim,) = site.call("ivan", "GET", "/api/claims")["claims"]
    assert claim["round"] == 1 and claim["player"] == "ana" and claim["status"] == "open"

    # the inspector reads it beside the recall and resolves it
    inspector = new_page(browser, site.url, viewport=DOCS)
    log_in(inspector, "ivan", site.passwords["ivan"])
    inspector.goto(f"{site.url}/#/inspector/claims")
    inspector.click(f"#insp-claim-{claim['id']}")
    inspector.wait_for_selector("#claim-recall #recall-title")
    assert "Cortar" in inspector.inner_text("#claim-recall") and "ana" in inspector.inner_text(
        "#claim-recall"
    )
    inspector.select_option("#resolve-outcome", "rejected")
    inspector.fill("#resolve-text", "La grabación y el registro muestran el 2 de diamantes.")
    inspector.click("#resolve-submit")
    inspector.wait_for_selector("#claim-resolution")
    shots.doc(inspector, "inspector-claim")
    events = {e["kind"] for e in site.call("ivan", "GET", "/api/events")["events"]}
    assert {"claim_filed", "claim_resolved", "deck_change_requested", "deck_change_request_closed"} <= events

    player.reload()
    player.wait_for_selector(f"#history-{table}-1")
    player.click(f"#history-{table}-1")
    player.wait_for_selector(f"#claim-status-{table}-1:has-text('infundado')")
    assert "2 de diamantes" in player.inner_text(f"#claim-status-{table}-1")
    shots(player, "claim-resolved")
