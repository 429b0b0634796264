"""A dropped connection: the page says so at once, keeps trying by itself, and when the network is back it
catches up with what happened at the table meanwhile (server.md: reconnect with since=N)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tests.web.conftest import Proxy, Shots, Site, log_in, new_page
from tests.web.helpers import money


@contextmanager
def ana_at_a_table(site: Site, browser: Any) -> Iterator[tuple[Any, Proxy, int]]:
    """ana's page at a Black Jack table, through a proxy the test can cut: (page, proxy, table)."""
    site.user("ana", chips=50_000)
    table = site.table("blackjack", name="Mesa 1 · Black Jack")
    proxy = Proxy(site.server.port)
    try:
        page = new_page(browser, proxy.url)
        log_in(page, "ana", site.passwords["ana"])
        page.click(f"#open-table-{table}")
        page.wait_for_selector("#take-1")
        yield page, proxy, table
    finally:
        proxy.close()


def test_a_dropped_connection_comes_back_and_catches_up(site: Site, browser: Any, shots: Shots) -> None:
    site.user("ben", chips=50_000)
    with ana_at_a_table(site, browser) as (page, proxy, table):
        page.click("#take-1")
        page.wait_for_selector("#leave-1")

        proxy.cut()
        page.wait_for_selector("#connection:visible")
        assert "reconectando" in page.inner_text("#connection")
        page.click("#spot-1-main")  # nothing reaches the server: said next to the box, nothing done
        page.wait_for_selector("#seat-error-1:has-text('Sin conexión')")
        # the table goes on without her page
        site.call("ben", "POST", f"/api/tables/{table}/seats", json={"seat": 2})
        site.call(
            "ben", "POST", f"/api/tables/{table}/bets", json={"seat": 2, "spot": "main", "amount": 2500}
        )
        shots(page, "connection-lost")
        assert "ben" not in page.inner_text("#felt")

        proxy.restore()
        page.wait_for_selector("#connection", state="hidden", timeout=45_000)
        page.wait_for_selector('#felt .box[data-seat="2"]:has-text("ben")')
        assert money(2500) in page.inner_text('#felt .box[data-seat="2"]')
        assert site.state("ana", table)["seats"][0]["bets"] == []  # the bet she tried was never placed
        shots(page, "caught-up")
        assert not page.js_errors


def test_a_session_that_ended_takes_the_page_back_to_the_login(
    site: Site, browser: Any, shots: Shots
) -> None:
    """The player's session ends (here: its token logged out elsewhere) while his table's connection is
    down. The server refuses the WebSocket's handshake (401 with the error body); a browser sees only a
    closed socket, so the page asks the table's state over HTTP, hears 401, and shows the login again
    instead of reconnecting for ever."""
    import httpx

    with ana_at_a_table(site, browser) as (page, proxy, _):
        token = page.evaluate("sessionStorage.getItem('tapete.token')")
        proxy.cut()
        page.wait_for_selector("#connection:visible")
        r = httpx.post(f"{site.url}/api/logout", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200
        proxy.restore()
        page.wait_for_selector("#login-name", timeout=30_000)
        assert page.evaluate("sessionStorage.getItem('tapete.token')") is None
        shots(page, "session-ended")
        assert not page.js_errors


def test_an_open_table_goes_back_to_the_login_when_its_session_is_logged_out(
    site: Site, browser: Any, shots: Shots
) -> None:
    """The player's token is logged out elsewhere while his table's socket is open: the server closes
    the socket (4401) and the page shows the login at once, instead of going on showing the table to a
    token that no longer works."""
    import httpx

    with ana_at_a_table(site, browser) as (page, _proxy, _):
        token = page.evaluate("sessionStorage.getItem('tapete.token')")
        r = httpx.post(f"{site.url}/api/logout", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200
        page.wait_for_selector("#login-name", timeout=15_000)
        assert page.evaluate("sessionStorage.getItem('tapete.token')") is None
        shots(page, "logged-out-elsewhere")
        assert not page.js_errors
