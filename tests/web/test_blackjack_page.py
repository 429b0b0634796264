"""Black Jack in the browser: two players take all seven boxes between them, a third asks to join behind
one of them and is accepted, they play a round to its payouts in their own pages, and the inspector
recalls that round in his console with its ledger entries (issue 12)."""

from __future__ import annotations

from typing import Any

from tests.web.conftest import DOCS, Shots, Site, log_in, new_page
from tests.web.helpers import money, play_out, signed


def test_seven_boxes_a_back_bet_a_round_and_its_recall(site: Site, browser: Any, shots: Shots) -> None:
    for name in ("ana", "ben", "cara"):
        site.user(name, chips=100_000)
    site.user("dora", "dealer")
    site.user("ines", "inspector")
    table = site.table("blackjack", name="Mesa 1 · Black Jack", turn_seconds=120)
    pages = {name: new_page(browser, site.url) for name in ("ana", "ben", "cara")}
    for name, page in pages.items():
        log_in(page, name, site.passwords[name])
        page.click(f"#open-table-{table}")
        page.wait_for_selector("#take-1")
    ana, cara = pages["ana"], pages["cara"]
    shots(ana, "lobby-to-table")

    boxes = {"ana": [1, 3, 5, 7], "ben": [2, 4, 6]}
    stakes = {"ana": 1000, "ben": 2500}
    for name, seats in boxes.items():
        page = pages[name]
        page.click(f"#chip-{stakes[name]}")
        for seat in seats:
            page.click(f"#take-{seat}")
            page.wait_for_selector(f"#spot-{seat}-main")
            page.click(f"#spot-{seat}-main")
            page.wait_for_selector(f"#spot-{seat}-main.spot--on")
    for seat in range(1, 8):
        holder = next(n for n, s in boxes.items() if seat in s)
        assert ana.inner_text(f'#felt .box[data-seat="{seat}"] .box__holder').startswith(holder)
    shots(ana, "seven-boxes-taken")

    # every box is taken: cara asks to join box 1 behind ana, who sees the request and accepts it
    cara.click("#chip-500")
    cara.click("#join-1")
    cara.wait_for_selector("#requests-panel:has-text('ana')")
    shots(cara, "back-bet-request-waiting")
    ana.wait_for_selector("[id^=accept-]")
    assert "cara" in ana.inner_text("#requests-panel")
    shots(ana, "holder-sees-the-request")
    ana.click("[id^=accept-]")
    ana.wait_for_selector(".spot__backer:has-text('cara')")
    cara.wait_for_selector("#requests-panel", state="hidden")
    assert money(500) in ana.inner_text('#felt .box[data-seat="1"]')
    shots(ana, "back-bet-accepted")

    before = {name: site.balance(name) for name in pages}
    site.call("dora", "POST", f"/api/tables/{table}/deal")
    # the first turn is the holder's of the first box with a decision: ben's when ana's box 1 was dealt
    # a natural (no decision); nobody's when the dealer's peek ended the round (ana sees her result)
    pending = site.state("admin", table)["pending"]
    first = pages[pending["holder"]] if pending else ana
    first.wait_for_selector("#turn-bar .turn--mine, #my-result")
    shots(first, "dealt")
    seen: list[str] = []

    def snap(state: dict[str, Any]) -> None:
        if len(seen) < 3:
            seen.append(state["pending"]["decision"])
            shots(pages[state["pending"]["holder"]], f"decision-{len(seen)}")

    play_out(site, table, pages, after=snap)

    recall = site.call("ines", "GET", f"/api/tables/{table}/rounds/1")
    assert recall["status"] == "finished"
    for name, page in pages.items():
        net = recall["bettors"][name]["totals"]["net"]
        page.wait_for_selector("#my-result")
        assert page.inner_text("#my-result").endswith(signed(net)), (name, net)
        assert site.balance(name) == before[name] + net
        assert page.inner_text("#balance") == money(site.balance(name))
        assert page.inner_text("#my-balance") == money(site.balance(name))
        lines = page.locator("#payouts li").all_inner_texts()
        assert len(lines) == sum(len(b["payouts"]) for b in recall["bettors"].values())
        assert all(":" in line and "→" in line for line in lines)  # each payout says its reason
        shots(page, f"payouts-{name}")
        if name == "cara":
            page.set_viewport_size(DOCS)
            page.evaluate("window.scrollTo(0, 0)")
            shots.doc(page, "blackjack-payouts")
    assert not any(page.js_errors for page in pages.values()), {n: p.js_errors for n, p in pages.items()}

    # the inspector recalls the round: its timeline and every ledger entry
    inspector = new_page(browser, site.url)
    log_in(inspector, "ines", site.passwords["ines"])
    inspector.click(f"#insp-table-{table}")
    inspector.click("#insp-round-1")
    inspector.wait_for_selector("#ledger tbody tr")
    rows = inspector.locator("#ledger tbody tr").all_inner_texts()
    assert len(rows) == len(recall["ledger"])
    for row, entry in zip(rows, recall["ledger"], strict=True):
        assert row.split("\t")[0].strip() == str(entry["id"])
        assert signed(entry["amount"]) in row
    timeline = inspector.inner_text("#timeline")
    assert timeline.count("Asiento ") == len(recall["ledger"])
    dealt = inspector.locator("#timeline .timeline__row--card").all_inner_texts()
    assert len(dealt) == len(recall["cards"])  # every card, in deal order
    assert inspector.inner_text("#recall-bettors").count("cara") == 1
    inspector.click("#verify")
    inspector.wait_for_selector("#verify-result.ok")
    shots(inspector, "inspector-recall")
    inspector.set_viewport_size(DOCS)
    shots.doc(inspector, "inspector-recall")
    assert not inspector.js_errors
