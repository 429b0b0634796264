"""The page's files (no browser): served at / by the server, complete without the network (no address
outside the server in any of them), and every message id the page uses is in the catalogs of both
languages, so that the regulation's words it shows are the catalogs' own."""

from __future__ import annotations

import re
from pathlib import Path

from tapete.i18n import catalog
from tests.web.conftest import Site

STATIC = Path(__file__).resolve().parents[2] / "src" / "tapete" / "server" / "static"
KEY = re.compile(
    r"""["'`]((?:web|act|spot|pyb|sd|bj|m21|game|payout|payouts|dealer|outcome|money|amount)\.[a-z0-9_.]+[a-z0-9_])["'`]"""
)


def test_the_page_needs_no_network_beyond_its_server() -> None:
    files = [p for p in STATIC.rglob("*") if p.is_file() and p.suffix in (".html", ".js", ".css", ".svg")]
    assert len(files) > 10
    for path in files:
        text = path.read_text(encoding="utf-8")
        outside = re.findall(r"""(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}""", text)
        assert not [u for u in outside if not u.endswith("//www.w3.org")], (
            path.name,
            outside,
        )  # SVG namespace
        assert "@import" not in text and "fonts.googleapis" not in text


def test_every_message_the_page_uses_is_in_both_catalogs() -> None:
    used: set[str] = set()
    for path in STATIC.rglob("*.js"):
        used |= set(KEY.findall(path.read_text(encoding="utf-8")))
    assert len(used) > 150
    for lang in ("es", "en"):
        missing = sorted(k for k in used if k not in catalog(lang))
        assert not missing, (lang, missing)


def test_the_page_is_served_at_the_root(site: Site) -> None:
    client = site.http
    index = client.get("/")
    assert index.status_code == 200 and '<script type="module" src="js/main.js">' in index.text
    script = client.get("/js/main.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert client.get("/tapete.css").status_code == 200
    assert client.get("/api/nothing-here").json()["error"]["code"] == "not_found"
