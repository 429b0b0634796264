"""The public worked examples of shared/spec/examples run through `tapete scenario` give their nets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tapete.scenario import run_file

EXAMPLES = Path(__file__).resolve().parents[2] / "shared" / "spec" / "examples"
LOCAL = Path(__file__).resolve().parent / "scenarios" / "examples"


def _example_dir() -> Path:
    return EXAMPLES if EXAMPLES.is_dir() else LOCAL


def _cases() -> list[Path]:
    return sorted(p for p in _example_dir().glob("*.json") if not p.name.endswith(".expected.json"))


@pytest.mark.parametrize("path", _cases(), ids=lambda p: p.stem)
def test_public_example_nets(path: Path) -> None:
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    game = json.loads(path.read_text())["game"]
    try:
        code, out = run_file(str(path))
    except ImportError:
        pytest.skip(f"{game} not built yet")
    if code == 2 and "not built" in json.dumps(out):
        pytest.skip(f"{game} not built yet")
    assert code == 0, out
    assert {p: v["net"] for p, v in out["players"].items()} == expected["players"]
    assert out["house"] == expected["house"]
    staked = sum(v["staked"] for v in out["players"].values())
    paid = sum(v["paid"] for v in out["players"].values())
    assert staked == paid + out["house"]["net"]
