"""`tapete report`: for every game an HTML page and its figures, rendered in Chromium (Debian's package,
driven by Playwright) as the regulator would see and print it; screenshots and PDFs kept in artifacts/."""

from __future__ import annotations

import html
import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tapete.cli import _register_optional, app
from tapete.report import ReportOptions, build_report, command_line
from tapete.rules import load_rules

_register_optional()
ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = Path("/usr/bin/chromium")
GAMES = ("blackjack", "majestic_21", "punto_y_banca", "showdown_poker")
SMALL = ReportOptions(rounds=300_000, seed=3, sessions=1_000, session_rounds=100, engine_rounds=300)
#: An A4 page at CSS's 96 px per inch.
A4_WIDTH_PX = 794


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One report per game; Majestic 21's from a settings file (so the page names and hashes it)."""
    out: dict[str, Path] = {}
    for game in GAMES:
        rules_file = None
        if game == "majestic_21":
            rules_file = tmp_path_factory.mktemp("rules") / "m21.json"
            rules_file.write_text(json.dumps({"decks": 8, "max_splits": 2, "cut_card_depth": 120}))
        out[game] = build_report(game, rules_file, tmp_path_factory.mktemp(game), SMALL)
    return out


def test_every_report_has_every_part(reports: dict[str, Path]) -> None:
    for game, path in reports.items():
        text = path.read_text(encoding="utf-8")
        for heading in (
            "1. The rules as this table runs them",
            "Operator settings",
            "2. House edge, return and outcome probabilities",
            "4. A player's result over a session",
            "5. The simulation's cross-check of each exact figure",
            "6. How this report was made",
        ):
            assert heading in text, (game, heading)
        assert "every round agreed" in text, game
        plain = html.unescape(re.sub(r"<[^>]+>", "", text))
        assert "tapete 0.1.0" in plain and "tapete report " + game in plain
        for img in re.findall(r'<img src="([^"]+)"', text):
            assert (path.parent / img).stat().st_size > 10_000, (game, img)
        # every operator setting of the table's model is listed, every [A] default marked
        rules = load_rules(game, {})
        for key in type(rules).model_fields:
            assert f"<code>{key}</code>" in text, (game, key)
        assert text.count('<span class="tag">[A]</span>') >= 8, game


def test_the_rules_are_the_tables_own(reports: dict[str, Path]) -> None:
    text = reports["majestic_21"].read_text(encoding="utf-8")
    assert "A pack of 8 English 52-card decks" in text
    assert "up to 2 split(s) per box (3 hands)" in text
    assert "The cut card leaves 120 cards behind it" in text
    assert text.count('<span class="bad">(changed)</span>') == 3  # decks, max_splits, cut_card_depth
    assert "m21.json" in text and "SHA-256" in text
    pyb = reports["punto_y_banca"].read_text(encoding="utf-8")
    assert "Banca pays 1:1 less 5% commission" in pyb and "241\u2009149\u2009546\u2009272/" in pyb
    sd = reports["showdown_poker"].read_text(encoding="utf-8")
    assert "683\u2009043\u2009419/35\u2009118\u2009447\u2009000" in sd and "Three of a kind" in sd


def test_the_command_on_the_page_reproduces_it(reports: dict[str, Path], tmp_path: Path) -> None:
    """Run the command the Punto y Banca page prints (in another directory): the same page but for the
    date and the directory."""
    text = reports["punto_y_banca"].read_text(encoding="utf-8")
    cell = re.search(r"Reproduce</td><td>(.*?)</td>", text)
    assert cell is not None
    args = shlex.split(html.unescape(re.sub(r"<[^>]+>", "", cell.group(1))))
    assert args[:3] == ["tapete", "report", "punto_y_banca"]
    out_at = args.index("-o") + 1
    old_dir = args[out_at]
    args[out_at] = str(tmp_path / "again")
    result = CliRunner().invoke(app, args[1:])
    assert result.exit_code == 0, result.output
    again = (tmp_path / "again" / "report.html").read_text(encoding="utf-8")

    def scrub(page: str, directory: str) -> str:
        page = page.replace(directory, "DIR")
        return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "DATE", page)

    assert scrub(again, str(tmp_path / "again")) == scrub(text, old_dir)


def test_command_line_names_every_option() -> None:
    line = command_line("blackjack", Path("t.toml"), Path("out"), ReportOptions())
    assert line == (
        "tapete report blackjack --rules t.toml -o out --rounds 10000000 --seed 1 --sessions 10000 "
        "--session-rounds 200 --engine-rounds 2000"
    )


def test_tapete_report_refuses_with_exit_2(tmp_path: Path) -> None:
    for args in (
        ["report", "roulette", "-o", str(tmp_path)],
        ["report", "blackjack", "-o", str(tmp_path), "--sessions", "0"],
        ["report", "blackjack", "-o", str(tmp_path), "--rules", str(tmp_path / "missing.toml")],
    ):
        out = CliRunner().invoke(app, args)
        assert out.exit_code == 2, (args, out.output)
        assert "Traceback" not in out.output


# ------------------------------------------------------------------------------------------ in Chromium
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium (scripts/dev-setup.sh installs it) through Playwright; never a downloaded one."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: the report is checked in Debian's Chromium; install it with "
            "`apt-get install -y chromium` (scripts/dev-setup.sh does it)",
            pytrace=False,
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("Playwright is missing: pip install -e '.[dev]' installs it", pytrace=False)
    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=str(CHROMIUM),
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        try:
            yield b
        finally:
            b.close()


@pytest.mark.parametrize("game", GAMES)
def test_report_renders_and_prints_on_a4(game: str, reports: dict[str, Path], browser: Any) -> None:
    """Every figure loads, nothing is wider than an A4 page on screen or in print, and the browser prints
    it on A4 pages; the screenshot and the PDF go to artifacts/ (git-ignored) to be looked at."""
    ARTIFACTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": A4_WIDTH_PX, "height": 1123})
    try:
        page.goto(reports[game].as_uri())
        page.wait_for_load_state("load")
        broken = page.evaluate(
            "Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)"
        )
        assert broken == [] and page.evaluate("document.images.length") >= 2
        assert page.evaluate("document.documentElement.scrollWidth") <= A4_WIDTH_PX
        page.screenshot(path=str(ARTIFACTS / f"report-{game}.png"), full_page=True)
        page.emulate_media(media="print")
        wide = page.evaluate(
            "Array.from(document.querySelectorAll('table, figure, img, p'))"
            ".filter(e => e.getBoundingClientRect().right > document.body.getBoundingClientRect().right + 1)"
            ".length"
        )
        assert wide == 0
        pdf = page.pdf(format="A4", print_background=True, prefer_css_page_size=True)
    finally:
        page.close()
    (ARTIFACTS / f"report-{game}.pdf").write_bytes(pdf)
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
    assert 2 <= pages <= 10, pages
    box = re.search(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", pdf)
    assert box is not None and abs(float(box.group(1)) - 595.3) < 2 and abs(float(box.group(2)) - 841.9) < 2
