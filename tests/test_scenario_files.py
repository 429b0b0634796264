"""Every scenario file under tests/scenarios/<game>/ plays to its expected outcome or error (the format
of shared/spec/examples: NAME.json beside NAME.expected.json).

An expected file holds `players` (nets) and `house`, or `error` (`code`, and `at` when given). Any other
key is checked as a subset of the outcome: `winner`, `punto`/`banca` (Punto y Banca), and `seats` keyed
by seat number (Showdown Póker) with the fields that matter for that scenario.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tapete.scenario import run_file

ROOT = Path(__file__).resolve().parent / "scenarios"
GAMES = ("blackjack", "majestic_21", "punto_y_banca", "showdown_poker")


def _files() -> list[Path]:
    return sorted(
        p for game in GAMES for p in (ROOT / game).glob("*.json") if not p.name.endswith(".expected.json")
    )


def _subset(want: Any, got: Any, where: str) -> None:
    if isinstance(want, dict) and isinstance(got, dict):
        for key, value in want.items():
            assert key in got, f"{where}.{key} missing from the outcome"
            _subset(value, got[key], f"{where}.{key}")
    else:
        assert got == want, f"{where}: expected {want!r}, got {got!r}"


def test_every_game_has_scenario_files() -> None:
    for game in GAMES:
        assert len(list((ROOT / game).glob("*.expected.json"))) >= 10, game


@pytest.mark.parametrize("path", _files(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_scenario_file(path: Path) -> None:
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    code, out = run_file(str(path))
    if "error" in expected:
        assert code == 2, out
        got = {"code": out["error"]["code"]}
        if "at" in expected["error"]:
            got["at"] = out["error"].get("at")
        assert got == expected["error"], out
        return
    assert code == 0, out
    assert {p: v["net"] for p, v in out["players"].items()} == expected["players"]
    assert out["house"] == expected["house"]
    staked = sum(v["staked"] for v in out["players"].values())
    assert staked == sum(v["paid"] for v in out["players"].values()) + out["house"]["net"]
    for key, want in expected.items():
        if key in ("players", "house"):
            continue
        if key == "seats":
            by_seat = {str(s["seat"]): s for s in out["seats"]}
            _subset(want, by_seat, "seats")
        else:
            _subset(want, out[key], key)
