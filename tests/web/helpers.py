"""What the browser tests share: amounts as the page shows them, waiting for the server's state, and
playing a round's decisions in the holders' own pages."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tapete.money import format_money
from tests.procs import run_procedures
from tests.web.conftest import Site


def money(units: int) -> str:
    """As the page shows an amount (tapete.money.format_money, soles)."""
    return format_money(units, "PEN")


def signed(units: int) -> str:
    """As the page shows a net: +S/ 10.00, -S/ 5.00, S/ 0.00."""
    return f"+{money(units)}" if units > 0 else money(units)


def until(check: Callable[[], Any], timeout: float = 10.0, what: str = "the condition") -> Any:
    """Poll `check()` until it is truthy (for the server side of a test; the page side waits for
    selectors)."""
    end = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def decide(page: Any, state: dict[str, Any], action: str) -> None:
    """In the holder's page: wait until it shows this very decision, then press the action's button."""
    p = state["pending"]
    page.wait_for_selector(f'[data-turn="{state["round"]}:{p["seat"]}:{p["hand"]}:{p["decision"]}"]')
    page.click(f"#act-{action}")


def play_out(
    site: Site,
    table: int,
    pages: dict[str, Any],
    choose: Callable[[dict[str, Any]], str] | None = None,
    after: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Answer every decision of the round in its holder's page (`choose` picks the action; by default
    stand, or decline an offer) until the round is over; the last state (as the administrator sees it)."""
    for _ in range(60):
        state = site.state("admin", table)
        p = state["pending"]
        if p is None:
            return state
        assert p["kind"] == "decision", p
        action = choose(state) if choose else ("stand" if "stand" in p["legal"] else "decline")
        decide(pages[p["holder"]], state, action)
        until(lambda seq=state["seq"]: site.state("admin", table)["seq"] > seq, what="the decision")
        if after:
            after(state)
    raise AssertionError("the round did not end")


def procedures(
    site: Any, dealer: str, table: int, *, upto: str | None = None, **bodies: dict[str, Any]
) -> None:
    """Run through the API the control procedures a live table owes before its next deal
    (`tests.procs.run_procedures`), each with its default body or the one `bodies` gives its step; stop
    before `upto`. For tests about something else than the dealer's checklist."""
    run_procedures(
        lambda: site.state(dealer, table)["procedures_due"],
        lambda body: site.call(dealer, "POST", f"/api/tables/{table}/procedures", json=body),
        upto=upto,
        bodies=bodies,
    )
