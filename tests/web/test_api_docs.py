"""The API's page at /docs works without reaching any other host: its Swagger UI is served by this server
(a casino's or a lab's network often reaches no CDN; FastAPI's own page loaded it from one)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.web.conftest import WAIT, Shots, Site


@pytest.mark.parametrize(("path", "files"), [("/docs", 3), ("/redoc", 2)])
def test_the_api_pages_name_only_this_server(site: Site, path: str, files: int) -> None:
    page = site.http.get(path)
    assert page.status_code == 200
    sources = re.findall(r"""(?:src|href)=["']([^"']+)["']""", page.text)
    assert len(sources) >= files, sources  # the script, the icon (Swagger UI: its style sheet too)
    assert all(s.startswith("/") and not s.startswith("//") for s in sources), sources
    assert not re.findall(r"https?://(?!127\.0\.0\.1)", page.text.split("<body>")[0])
    for source in sources:
        asset = site.http.get(source)
        assert asset.status_code == 200 and len(asset.content) > 100, source
    assert "/openapi.json" in page.text


def test_the_api_page_shows_the_operations_with_every_other_host_refused(
    site: Site, browser: Any, shots: Shots
) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(WAIT)
    outside: list[str] = []

    def only_here(route: Any) -> None:
        if route.request.url.startswith(site.url):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_here)
    page.goto(site.url + "/docs")
    page.wait_for_selector(".opblock-summary-path")
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert any("/api/tables/{table_id}/actions" in p for p in paths), paths[:10]
    shots(page, "api-docs")
    assert outside == []
    context.close()
