"""`tapete analyze`: the JSON contract of issue 6 for every game, settings through the rules models,
what-ifs flagged as not the regulation's, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tapete.cli import _register_optional, app
from tapete.errors import TapeteError
from tapete.math.analyze import analyze

_register_optional()
runner = CliRunner()


def _json(*args: str) -> dict:  # type: ignore[type-arg]
    result = runner.invoke(app, ["analyze", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_punto_y_banca_json_contract() -> None:
    doc = _json("punto_y_banca")
    assert doc["game"] == "punto_y_banca" and doc["regulation"] is True
    assert doc["rules"]["decks"] == 8
    assert doc["bets"]["banca"]["house_edge"] == pytest.approx(0.0105791, abs=1e-7)
    assert doc["bets"]["punto"]["house_edge"] == pytest.approx(0.0123508, abs=1e-7)
    assert doc["bets"]["empate"]["house_edge"] == pytest.approx(0.1435963, abs=1e-7)
    assert all(doc["bets"][b]["exact"] for b in ("punto", "banca", "empate"))
    assert doc["counts"] == {
        "banca": 2_292_252_566_437_888,
        "punto": 2_230_518_282_592_256,
        "empate": 475_627_426_473_216,
    }


def test_rules_file_json_or_toml_and_decks_option(tmp_path: Path) -> None:
    toml = tmp_path / "t.toml"
    toml.write_text("decks = 6\n")
    doc = _json("punto_y_banca", "--rules", str(toml))
    assert doc["rules"]["decks"] == 6
    assert doc["bets"]["banca"]["house_edge"] == pytest.approx(0.010558, abs=1e-5)
    doc = _json("punto_y_banca", "--decks", "1")
    assert doc["regulation"] is False and any("decks" in r for r in doc["not_regulation_because"])


def test_what_if_settings_are_accepted_and_flagged() -> None:
    doc = analyze("punto_y_banca", {"tie_pays": 9})
    assert doc["regulation"] is False
    assert doc["bets"]["empate"]["house_edge"] == pytest.approx(0.048440, abs=1e-5)


def test_blackjack_main_and_chart() -> None:
    doc = analyze("blackjack", {}, strategy=True)
    assert 0.0010 < doc["bets"]["main"]["house_edge"] < 0.0025  # early surrender against 2-10
    no_surrender = analyze("blackjack", {"surrender": False})
    assert no_surrender["regulation"] is False
    assert 0.0039 < no_surrender["bets"]["main"]["house_edge"] < 0.0042
    result = runner.invoke(app, ["analyze", "blackjack", "--chart"])
    assert result.exit_code == 0 and "8-8" in result.output and "A-A" in result.output


def test_max_splits_above_what_the_pack_allows_is_analysed_as_the_packs_limit() -> None:
    """Art.11 bounds the splits from below only: any number is the regulation's game (it was refused
    above 7, and a huge one hung the analysis); 6 decks' 96 tens allow 95 splits, so 10**6 is 95."""
    huge = analyze("majestic_21", {"max_splits": 10**6})
    assert huge["regulation"] is True and huge["rules"]["max_splits"] == 10**6
    assert huge["bets"] == analyze("majestic_21", {"max_splits": 95})["bets"]
    assert huge["bets"]["main"] != analyze("majestic_21", {})["bets"]["main"]  # more than 3 splits count


@pytest.mark.parametrize(
    ("game", "settings", "key"),
    [
        ("punto_y_banca", {"tie_pays": 10**400}, "err.analyze.ratio"),  # was: OverflowError (a float)
        ("showdown_poker", {"paytable": {"royal_flush": 10**19}}, "err.analyze.ratio"),  # was: int64
        ("showdown_poker", {"bonus_paytable": {"flush": 10**19}}, "err.analyze.ratio"),
    ],
)
def test_a_what_if_pay_beyond_any_table_is_refused_not_a_traceback(
    game: str, settings: dict[str, object], key: str
) -> None:
    """A what-if may pay what the regulation does not, up to the 100000:1 any table pays (rules.md §3);
    beyond it the analyses leave their floats and 64-bit integers: refused, said."""
    with pytest.raises(TapeteError) as info:
        analyze(game, settings)
    assert (info.value.code, info.value.key) == ("invalid_rules", key)
    assert info.value.params["most"] == 100000
    assert analyze("punto_y_banca", {"tie_pays": 100000})["regulation"] is False  # the most: analysed


def test_an_enormous_pack_is_refused_at_once() -> None:
    """`tapete analyze punto_y_banca --decks` with 4000 digits took minutes, then a traceback."""
    huge = "9" * 4000
    result = runner.invoke(app, ["analyze", "punto_y_banca", "--json", "--decks", huge])
    assert result.exit_code == 2 and json.loads(result.stdout)["error"]["code"] == "invalid_rules"
    assert _json("punto_y_banca", "--decks", "8")["regulation"] is True


def test_majestic_21_every_bet() -> None:
    doc = analyze("majestic_21", {})
    assert set(doc["bets"]) == {"main", "under_13", "over_13", "exactly_13", "insurance_ace", "insurance_ten"}
    assert doc["bets"]["exactly_13"]["house_edge"] == pytest.approx(347 / 4043, abs=1e-7)


def test_unknown_setting_and_bad_file_exit_2(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["analyze", "punto_y_banca", "--json", "--rules", str(tmp_path / "nope.json")]
    )
    assert result.exit_code == 2 and json.loads(result.stdout)["error"]["code"] == "invalid_rules"
    bad = tmp_path / "bad.json"
    bad.write_text('{"deck": 8}')
    result = runner.invoke(app, ["analyze", "punto_y_banca", "--json", "--rules", str(bad)])
    assert result.exit_code == 2 and "deck" in json.loads(result.stdout)["error"]["message"]
    result = runner.invoke(app, ["analyze", "roulette", "--json"])
    assert result.exit_code == 2


def test_showdown_bet_bonus_and_pot() -> None:
    doc = analyze("showdown_poker", {})
    bets = doc["bets"]
    assert set(bets) == {"bet", "bonus", "pot"}
    assert bets["bet"]["house_edge"] == pytest.approx(683043419 / 35118447000, rel=1e-12)
    assert bets["pot"]["house_edge"] == pytest.approx(0.05)
    assert 0 < bets["bonus"]["house_edge"] < 1
    assert len(doc["strategy"]) == 1755
