"""Every scenario file under tests/scenarios/<game>/ plays to its expected nets or expected error
(the same format as shared/spec/examples: NAME.json with NAME.expected.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tapete.scenario import run_file

ROOT = Path(__file__).resolve().parent / "scenarios"
GAMES = ("blackjack",)


def _files() -> list[Path]:
    return sorted(
        p for game in GAMES for p in (ROOT / game).glob("*.json") if not p.name.endswith(".expected.json")
    )


@pytest.mark.parametrize("path", _files(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_scenario_file(path: Path) -> None:
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    code, out = run_file(str(path))
    if "error" in expected:
        assert code == 2, out
        got = {"code": out["error"]["code"]}
        if "at" in expected["error"]:
            got["at"] = out["error"].get("at")
        assert got == expected["error"]
        return
    assert code == 0, out
    assert {p: v["net"] for p, v in out["players"].items()} == expected["players"]
    assert out["house"] == expected["house"]
    staked = sum(v["staked"] for v in out["players"].values())
    assert staked == sum(v["paid"] for v in out["players"].values()) + out["house"]["net"]
