"""`tapete analyze blackjack`: exact CDZ- figures, `exact: true`, the analysis-only `peek` setting and
`dealer_completes_hand` (rules.md §1), through the command as an operator runs it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tapete.cli import _register_optional, app
from tapete.errors import InvalidRules
from tapete.math.analyze import analyze
from tapete.rules import load_rules

_register_optional()
runner = CliRunner()


def _json(*args: str) -> dict:  # type: ignore[type-arg]
    result = runner.invoke(app, ["analyze", "blackjack", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_regulation_game_is_exact_cdz() -> None:
    doc = _json("--decks", "6")
    main = doc["bets"]["main"]
    assert doc["regulation"] is True and main["exact"] is True
    assert main["composition_dependent_strategy"] == "CDZ-"
    assert main["house_edge_composition_dependent"] == pytest.approx(0.00165515593684349, abs=1e-14)
    assert doc["rules"]["peek"] is False and doc["rules"]["dealer_completes_hand"] is False


def test_peek_is_analysis_only_and_gives_farmers_figure(tmp_path: Path) -> None:
    rules = tmp_path / "peek.json"
    rules.write_text(json.dumps({"peek": True, "surrender": False}))
    doc = _json("--rules", str(rules))
    assert doc["regulation"] is False
    assert any("peek" in r for r in doc["not_regulation_because"])
    assert -doc["bets"]["main"]["house_edge_composition_dependent"] * 100 == pytest.approx(
        -0.402870236115414, abs=1e-13
    )
    with pytest.raises(InvalidRules):  # a table refuses it
        load_rules("blackjack", {"peek": True})
    with pytest.raises(InvalidRules):
        analyze("blackjack", {"peek": "yes"})


def test_dealer_completes_hand_changes_no_figure() -> None:
    """The dealer's draws after every hand has busted settle nothing: the same edge either way."""
    base = analyze("blackjack", {"decks": 4})
    full = analyze("blackjack", {"decks": 4, "dealer_completes_hand": True})
    assert full["rules"]["dealer_completes_hand"] is True
    assert (
        full["bets"]["main"]["house_edge_composition_dependent"]
        == (base["bets"]["main"]["house_edge_composition_dependent"])
    )
